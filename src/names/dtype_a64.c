// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include "names/dtype_int.h"

const struct dt_arch dt_a64 = { .machine = EM_AARCH64 };
