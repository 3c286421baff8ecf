/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache (~/.debug, perf's layout): record keeps a copy of each
 * object it mapped, so that report names an old recording right after the
 * program was rebuilt (src/record/buildcache.c).
 */
#ifndef C2CSCAN_BUILDCACHE_H
#define C2CSCAN_BUILDCACHE_H

#include <stddef.h>
#include "perfdata/buildid.h"

struct buildcache_stats {
	size_t copied;          /* objects copied (or linked) now */
	size_t present;         /* already cached, or not files to cache */
	size_t failed;          /* could not be written (a read-only or full home) */
};

/* Caches every object of b whose build-id is known, under $HOME/.debug. */
void buildcache__store(const struct buildids *b, struct buildcache_stats *st);

#endif
