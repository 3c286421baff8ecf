/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --alloc: the preload shim (src/record/shim/shim.c) for a launched
 * command, and the collection of what it wrote into the C2CSCAN_ALLOC
 * feature (perfdata/alloc.h). Never prints.
 */
#ifndef C2CSCAN_RECORD_ALLOCREC_H
#define C2CSCAN_RECORD_ALLOCREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/record.h"

struct alloc_rec;

struct alloc_rec_stats {
	uint64_t events;                /* kept */
	uint64_t dropped;               /* past PD_MAX_ALLOC_EVENTS: counted, kept in the file */
	uint64_t processes;             /* that wrote a file */
	uint64_t torn_bytes;            /* a file's tail that is no whole block */
	size_t bytes;                   /* the feature's size */
};

/* Finds the shim (C2CSCAN_ALLOC_SHIM, else libc2cscan-alloc.so beside the
 * running executable) and makes the directory it writes to. 0, or a
 * negative errno with the message in why. */
int alloc_rec__new(struct alloc_rec **out, struct record_msg *why);
/* In the forked child, before exec: LD_PRELOAD and C2CSCAN_ALLOC_DIR (and
 * C2CSCAN_ALLOC_STACK with stacks: the shim records callers, record -g). */
void alloc_rec__child_env(const struct alloc_rec *a, bool stacks);
/* The feature's payload from every process's file (malloc'ed), or NULL when
 * no process wrote one. */
uint8_t *alloc_rec__collect(struct alloc_rec *a, size_t *len, struct alloc_rec_stats *st);
/* Removes the directory and its files. */
void alloc_rec__delete(struct alloc_rec *a);
/* A library record preloads (name): the path in env_var when set, else
 * beside the running executable, else installed (../lib/c2cscan/). 0, or a
 * negative errno. */
int record_lib__find(const char *name, const char *env_var, char *out, size_t size);
/* record_lib__find, and a directory for what it writes
 * (/tmp/c2cscan-OPT-XXXXXX, OPT the library's option without its dashes:
 * "alloc"); which (RECORD_LIB_*) says the library in why. */
int record_lib__setup(int which, const char *opt, const char *name, const char *env_var, char *lib, size_t lsize,
		      char *dir, size_t dsize, struct record_msg *why);
/* Removes dir's files whose names start with prefix, then dir. */
void record_dir__remove(const char *dir, const char *prefix);
/* The record that made a directory or file of pid is gone (killed): what
 * it left is the next record's to remove. */
bool record__gone(long pid);

#endif
