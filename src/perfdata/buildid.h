/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-ids a recording carries (its BUILD_ID feature): record notes
 * every file-backed object its MMAP/MMAP2 records map, and at the end reads
 * each one's GNU build-id note, and the kernel's, so that a report made
 * later (or elsewhere) can find the right debug info and refuse a file that
 * changed since.
 */
#ifndef C2CSCAN_BUILDID_H
#define C2CSCAN_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct buildids;
struct pd_writer;

#define BUILDIDS_MAX 4096       /* objects noted at most (system-wide recordings) */

/* In the build-id cache beside an object's copy (~/.debug/PATH/BUILDID/):
 * its debug info with every compressed section inflated, which record
 * writes and report reads first (libdw otherwise inflates the sections of
 * a distribution's -dbg files at every report: 40 ms for libc). */
#define BUILDCACHE_INFLATED_DEBUG "c2cscan-debug"

struct buildids *buildids__new(void);
void buildids__delete(struct buildids *b);
/* Notes the object of an MMAP or MMAP2 record (others are ignored; b may be NULL). */
void buildids__note(struct buildids *b, const struct perf_event_header *h, const void *rec);
/* From now on only the objects of process root and of the processes it
 * forks, and they fork, are noted (a recording of every CPU for one
 * command: the others' are not its objects, and go neither into the file
 * nor into the build-id cache). The records are kept, up to
 * KEPT_MAPS_MAX and KEPT_FORKS_MAX (past them: counted as dropped), until
 * buildids__write knows the processes. */
#define KEPT_MAPS_MAX 16384             /* MMAP records (a few MiB; 70 at their longest) */
#define KEPT_FORKS_MAX (1u << 20)       /* FORK records (8 MiB) */
void buildids__only_tree(struct buildids *b, uint32_t root);
/* Adds the build-ids of the noted objects that have one, and the kernel's,
 * to w; returns how many. */
size_t buildids__write(struct buildids *b, struct pd_writer *w);
/* Object i's path, a pid that mapped it and its build-id, once known
 * (from its MMAP2 record, or read by buildids__write); false otherwise. */
bool buildids__get(const struct buildids *b, size_t i, const char **name, uint32_t *pid, const uint8_t **id,
		   size_t *size);
/* Objects noted, and dropped at BUILDIDS_MAX. */
size_t buildids__nr(const struct buildids *b);
size_t buildids__dropped(const struct buildids *b);

/* The GNU build-id of the ELF file at path: its size (<= 20), or < 0. Never
 * blocks on a FIFO and reads only regular files. */
int buildid__read_file(const char *path, uint8_t id[20]);
/* The same from a buffer of ELF notes (/sys/kernel/notes). */
int buildid__from_notes(const uint8_t *p, size_t len, uint8_t id[20]);
/* The path of file in the build-id cache's directory of the n-byte
 * build-id id (home/.debug/.build-id/BU/ILDID/file), malloc'ed; NULL
 * without a home or a build-id of 2 to 20 bytes. */
char *buildid__cache_path(const char *home, const uint8_t *id, size_t n, const char *file);

#endif
