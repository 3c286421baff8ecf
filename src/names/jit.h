/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT code names per process: jit-PID.dump files (JIT_CODE_LOAD, MOVE and
 * DEBUG_INFO records with their timestamps; format facts from perf's
 * tools/perf/Documentation/jitdump-specification.txt) and /tmp/perf-PID.map
 * text files ("START SIZE name", hex).
 *
 * Lookups go by (pid, address, time) against the code loads themselves, not
 * through the mmap records: JITs mmap code memory once and later mmaps
 * (coalesced //anon regions, mprotect splits) carry later timestamps than
 * the loads, so a map-first lookup would hide the code. A jitdump answers
 * before the perf map of the same process.
 *
 * Strings returned are owned by the index. Never prints.
 */
#ifndef C2CSCAN_JIT_H
#define C2CSCAN_JIT_H

#include <stdbool.h>
#include <stdint.h>

struct jit_index;

struct jit_sym {
	const char *name;
	uint64_t start, size;
	const char *file;       /* from JIT_CODE_DEBUG_INFO, else NULL */
	int line;
	bool from_jitdump;
};

/* jitdump magic, as written by a JIT of the same byte order and swapped */
#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au

enum jit_record_id {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

struct jit_index *jit_index__new(void);
void jit_index__delete(struct jit_index *j);

/* Returns the number of code loads and moves indexed, or -errno (-EINVAL for
 * a file that is not a jitdump). Records after a damaged one are ignored. */
int jit_index__add_jitdump(struct jit_index *j, uint32_t pid, const char *path);
/* Returns the number of entries read, or -errno. Bad lines are skipped. */
int jit_index__add_perf_map(struct jit_index *j, uint32_t pid, const char *path);

/* Whether pid has entries of either kind (-1: never loaded anything). */
bool jit_index__has_pid(const struct jit_index *j, uint32_t pid);

/* time 0 = unknown: the latest load covering addr wins. Returns 0 or -ENOENT. */
int jit_index__find(const struct jit_index *j, uint32_t pid, uint64_t addr, uint64_t time,
		    struct jit_sym *out);

#endif
