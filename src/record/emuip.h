/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction an emulated sample stands for: the load or store after
 * the TSan hook's call, found in the code the runtime sent with the
 * thread's first sample of that return address (emuip.c). Never prints.
 */
#ifndef C2CSCAN_RECORD_EMUIP_H
#define C2CSCAN_RECORD_EMUIP_H

#include <stdint.h>

struct emu_ip;
struct pd_emu_sample;

struct emu_ip *emu_ip__new(void);
void emu_ip__delete(struct emu_ip *x);
/* The access's address for e: code is its code_before + code_after bytes
 * (NULL when it carries none: then what the thread's earlier sample of the
 * same return address found), else the return address. */
uint64_t emu_ip__of(struct emu_ip *x, const struct pd_emu_sample *e, const uint8_t *code);

#endif
