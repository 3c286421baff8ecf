/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps timeline: processes, threads and their mappings over time, built from
 * the side-band records (MMAP, MMAP2, COMM, FORK, EXIT) of a recording, and
 * the keying rule that turns a data address into a cacheline identity.
 *
 * Use: feed every side-band event of pass 1 with maps__add_event() in file
 * order, call maps__finalize() once (it orders events by time, file order
 * breaking ties, and replays them), then answer lookups for samples of
 * pass 2 in any order. "time" is the event timestamp, or the record's
 * sequence number when the file has no usable timestamps (file order).
 *
 * Never prints. Functions return 0 or a negative errno.
 *
 * Decisions the records leave open (tests/unit/test_maps.c checks each):
 * - A pid first seen without a FORK existed before the recording: its maps
 *   apply from time 0. FORK (pid != ppid) and exec start a new address space;
 *   EXIT keeps the maps (samples stamped before need them, and a leader can
 *   pthread_exit while its threads run); a later FORK of the pid replaces it.
 * - MMAP v1 "/anon_hugepage (deleted)" (hugetlb anonymous) is private: it is
 *   almost always MAP_PRIVATE, and the record cannot tell. v1 shared-memory
 *   names key by name, which merges unrelated segments of one name
 *   ("/dev/zero (deleted)", "/SYSV00000000").
 * - MMAP2 inode form, MAP_SHARED with maj = min = ino = 0 (no identity at all)
 *   keys by origin like the build-id form; an inode of 0 with a device (SysV
 *   shm id 0) is an inode like any other.
 * - Lookups may run concurrently from several threads (the lookup cache is
 *   per thread); add_event/finalize may not.
 */
#ifndef C2CSCAN_MAPS_H
#define C2CSCAN_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "perfdata/perf_data.h"
#include "util/util.h"

struct maps;

/* How a shared mapping names the memory behind it. */
enum map_ident {
	MAP_ID_NONE = 0,
	MAP_ID_INODE,   /* MMAP2: maj, min, ino, ino_generation */
	MAP_ID_NAME,    /* MMAP v1 shared memory (/dev/shm, /SYSV, memfd, /dev/zero): by name */
	MAP_ID_BUILDID, /* MMAP2 build-id form, file-backed: by build-id (or path when none) */
	MAP_ID_ORIGIN,  /* MMAP2 build-id form, anonymous shared: by the mmap that created it */
};

/* One mapping, read-only for users; lives as long as the struct maps. */
struct map_desc {
	uint64_t start, end, pgoff;
	uint32_t prot, flags;     /* PROT_*, MAP_*; 0 for MMAP v1 */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool v2, build_id_form;
	uint8_t build_id_size;
	uint8_t build_id[20];
	const char *name;         /* interned */
	uint64_t origin;          /* MAP_ID_ORIGIN identity (inherited through fork) */
};

enum cl_kind { CL_PRIVATE = 0, CL_SHARED = 1, CL_KERNEL = 2 };

/* Identity of a cacheline. Compare with cl_key__equal(), hash with
 * cl_key__hash(); build only with maps__key() (unused fields are zero). */
struct cl_key {
	uint8_t kind;             /* enum cl_kind */
	uint8_t ident;            /* enum map_ident, CL_SHARED only */
	uint8_t unmapped;         /* CL_PRIVATE: no mapping known for the address */
	uint8_t approx;           /* CL_PRIVATE from an MMAP v1 file mapping: approximate */
	uint32_t pid;             /* CL_PRIVATE */
	uint32_t maj, min;        /* MAP_ID_INODE */
	uint64_t ino, ino_generation;
	uint64_t ident_id;        /* MAP_ID_NAME/BUILDID: interned id; MAP_ID_ORIGIN: origin */
	uint64_t line;            /* CL_SHARED: file offset of the line; else line vaddr */
};

/* (the two run per sample: inline) */
static inline uint64_t cl_key__hash(const struct cl_key *k)
{
	uint64_t h = k->line ^ ((uint64_t)k->kind << 56 | (uint64_t)k->ident << 48 | (uint64_t)k->unmapped << 40 |
				(uint64_t)k->approx << 32 | k->pid);
	/* the shared key's fields, masked rather than branched over: a
	 * stream mixes shared and private lines unpredictably */
	uint64_t shared = -(uint64_t)(k->kind == CL_SHARED);

	h ^= shared & (k->ino * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k->maj << 32 | k->min) * 0xc2b2ae3d27d4eb4fULL ^
		       k->ino_generation * 0x165667b19e3779f9ULL ^ k->ident_id * 0xd6e8feb86659fd93ULL);
	return hash64(h);
}

static inline bool cl_key__equal(const struct cl_key *a, const struct cl_key *b)
{
	return a->line == b->line && a->kind == b->kind && a->pid == b->pid && a->ident == b->ident &&
	       a->ino == b->ino && a->ident_id == b->ident_id && a->maj == b->maj && a->min == b->min &&
	       a->ino_generation == b->ino_generation && a->unmapped == b->unmapped && a->approx == b->approx;
}

/* "private pid 123", "shared 08:01 ino 4242", "kernel", ... (m names the
 * interned ids of name and build-id keys) */
size_t cl_key__scnprintf(const struct cl_key *k, const struct maps *m, char *buf, size_t size);

/* Why an mmap record was rejected (validation of real streams). */
enum maps_reject {
	MAPS_REJ_ZERO_LEN,
	MAPS_REJ_HUGE_LEN,
	MAPS_REJ_WRAP,
	MAPS_REJ_UNALIGNED,
	MAPS_REJ_LOW_START,       /* start below the lowest user page (4096) */
	MAPS_REJ_NO_NAME,         /* file-backed (or v1) with an empty name */
	MAPS_REJ__NR,
};

struct maps_stats {
	uint64_t mmap_v1, mmap2, mmap2_build_id;
	uint64_t rejected[MAPS_REJ__NR];
	uint64_t rejected_total;
	uint64_t comms, comm_execs, forks, exits;
	uint64_t processes;       /* address spaces created */
	uint64_t fork_loops;      /* FORKs refused because they would make a cycle */
	uint64_t untracked;       /* mmaps, fork copies, pids, tids dropped at the limits */
	bool v1_file_mappings;    /* file-backed MMAP v1 seen: keying of them is approximate */
};

struct maps *maps__new(void);
void maps__delete(struct maps *m);

/* Default: 1 << 63 (64-bit kernels). 32-bit recordings: 0xc0000000. */
void maps__set_kernel_start(struct maps *m, uint64_t kernel_start);
uint64_t maps__kernel_start(const struct maps *m);

/* Side-band only (PD_MMAP, PD_COMM, PD_FORK, PD_EXIT); other kinds are ignored. */
int maps__add_event(struct maps *m, const struct pd_event *ev, uint64_t time);
/* Both return -EBUSY once finalized. */
int maps__finalize(struct maps *m);

/* Which address space of pid is live at time: 0 for its first, one more
 * after each exec (a program's own at that pid). */
uint32_t maps__aspace(const struct maps *m, uint32_t pid, uint64_t time);
/* Mapping of pid at addr live at time, or NULL. pid (u32)-1 is the kernel. */
const struct map_desc *maps__find(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t time);
/* Anonymous memory with no name of its own ("", "//anon"): not [heap],
 * [stack], shm or a file. */
static inline bool map_desc__unnamed_anon(const struct map_desc *m)
{
	return !m->name || !m->name[0] || !strncmp(m->name, "//anon", 6);
}

/*
 * The keying rule (docs/DESIGN.md) in one place. cpumode is the sample's
 * (PERF_RECORD_MISC_*). Kernel-half addresses key as kernel; a user-half
 * address touched in kernel mode (futex, copy_to_user) keys by the process
 * mapping when there is one. Returns the mapping used, or NULL.
 */
const struct map_desc *maps__key(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t time,
				 uint8_t cpumode, uint32_t line_size, struct cl_key *key);

/* Name of the interned id in a MAP_ID_NAME / MAP_ID_BUILDID key. */
const char *maps__ident_name(const struct maps *m, uint64_t ident_id);
/* comm of pid/tid at time ("" when unknown); interned. */
const char *maps__comm(const struct maps *m, uint32_t pid, uint32_t tid, uint64_t time);

const struct maps_stats *maps__stats(const struct maps *m);

#endif
