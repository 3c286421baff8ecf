/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names cache's file (namecache.c), in this machine's byte order (the
 * cache is not carried elsewhere): struct nc_head, then nr_vars and nr_tls
 * struct nc_var, nr_got struct nc_got, nr_types struct nc_type each
 * followed by its variable's name (var_len bytes). DIEs are offsets in the
 * module's .debug_info. fuzz_namecache writes it too.
 */
#ifndef C2CSCAN_NAMECACHE_H
#define C2CSCAN_NAMECACHE_H

#include <stddef.h>
#include <stdint.h>

#define NC_FILE "c2cscan-names"
#define NC_MAGIC 0x4e433243u            /* "C2CN" */
#define NC_VERSION 1

struct nc_head {
	uint32_t magic, version;
	uint8_t self[20], module[20];   /* build-ids: the writer's executable, the object */
	uint8_t self_len, module_len, has_vars, has_thread, has_tcb, pad[3];
	uint64_t info_size, abbrev_size;
	uint64_t thread_off, tcb_off;
	uint32_t nr_vars, nr_tls, nr_got, nr_types;
	uint64_t sum;                   /* FNV-1a of every byte after the header */
};

struct nc_var {
	uint64_t addr, size, off;
};

struct nc_got {
	uint64_t slot, off;
};

struct nc_type {
	uint64_t vaddr;
	int64_t off;
	uint64_t type_off;              /* 0: no type */
	int32_t rc;
	int8_t reason;
	uint8_t source, indexed, ptr, inner, scale;
	uint16_t var_len;               /* 0xffff: no variable */
};

/* the layout tests/cli/namecache.sh edits */
_Static_assert(sizeof(struct nc_head) == 112 && sizeof(struct nc_var) == 24 && sizeof(struct nc_got) == 16 &&
	       sizeof(struct nc_type) == 40, "the names cache's layout");

#define NC_SUM_START 0xcbf29ce484222325ull

/* FNV-1a of n bytes at p, on from h (NC_SUM_START): nc_head.sum. */
static inline uint64_t nc_sum(const uint8_t *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#endif
