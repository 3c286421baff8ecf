/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C2CSCAN_ALLOC feature (allocation events of record --alloc; layout in
 * perf_data.h): encoded by record, decoded by the reader. Never prints.
 */
#ifndef C2CSCAN_ALLOC_H
#define C2CSCAN_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/perf_data.h"

/* Events a section holds at most (6 GiB decoded, a few hundred MB in the
 * file): record drops what comes past it, and says and keeps how many. */
#define PD_MAX_ALLOC_EVENTS (1u << 27)
/* The largest section the reader takes (the file is mapped, not read). */
#define PD_MAX_ALLOC_SECTION (1ULL << 32)

/* Allocation events as uprobe samples (record --alloc with -p/-a, or
 * --alloc-fn): events named PD_ALLOC_PROBE_PREFIX "FN:ROLE[:ARGS]", ROLE
 * "entry" (ARGS: size=aN or aN*aM, old=aN), "ret" (the pointer in the
 * return register; the sample's ip is the call site) or "free" (free=aN);
 * aN is the Nth argument register, sampled in REGS_USER. */
#define PD_ALLOC_PROBE_PREFIX "c2cscan_alloc:"

enum pd_probe_role { PD_PROBE_NONE, PD_PROBE_ENTRY, PD_PROBE_RET, PD_PROBE_FREE };

/* What such an event's name says. */
struct pd_alloc_probe {
	char fn[41];                    /* the function (longer names are cut) */
	enum pd_probe_role role;
	int8_t size_a, size_b;          /* entry: the size's argument, or the product of two; -1 none */
	int8_t old_a;                   /* entry: realloc's old pointer; -1 none */
	int8_t free_a;                  /* free: the freed pointer; -1 none */
};

/* The event name of p into buf (record); its length (scnprintf). */
size_t pd_alloc_probe__name(const struct pd_alloc_probe *p, char *buf, size_t size);
/* p from an event name (report): false when it is not an allocator probe. */
bool pd_alloc_probe__parse(const char *name, struct pd_alloc_probe *p);
#define PD_MAX_ALLOC_NAMES  1024

struct pd_alloc {
	struct pd_alloc_event *ev;      /* owned */
	uint64_t nr;
	char **names;                   /* fn PD_ALLOC_FN_USER + i; owned */
	uint32_t nr_names;
	uint64_t dropped;               /* events record left out (past PD_MAX_ALLOC_EVENTS) */
};

/* The feature's payload (version 3) of nr events: malloc'ed, its size in
 * *len; NULL when zstd fails. dropped: the events left out. */
uint8_t *pd_alloc__encode(const struct pd_alloc_event *ev, uint64_t nr, const char *const *names,
			  uint32_t nr_names, uint64_t dropped, size_t *len);
/* The same of nr events already packed in blocks (alloc_pack.h), plen bytes. */
uint8_t *pd_alloc__encode_packed(const uint8_t *packed, size_t plen, uint64_t nr, const char *const *names,
				 uint32_t nr_names, uint64_t dropped, size_t *len);
/* 0, or -EINVAL with the reason in why (out is then empty). */
int pd_alloc__decode(const uint8_t *p, size_t len, struct pd_alloc *out, char *why, size_t whysize);
void pd_alloc__exit(struct pd_alloc *a);
/* The fn of a C library or C++ allocator's name, or -1. */
int pd_alloc__fn_id(const char *name);
/* "malloc", "operator new[]", a user allocator's name, or "?" */
const char *pd_alloc__fn_name(const struct pd_alloc *a, uint16_t fn);

#endif
