/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is wrong with a perf.data file, as a value: the reader returns a
 * negative errno-style code and keeps one of these (pd_reader__error), with
 * the numbers that place the defect. pd_error__str words it: the one place
 * its sentences are written, since a report prints them too (a partial
 * report's reason in --stdio, JSON and HTML), not only the command line.
 */
#ifndef C2CSCAN_PD_ERROR_H
#define C2CSCAN_PD_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pd_err {
	PD_ERR_NONE,
	/* the input (errnum: the failed call's) */
	PD_ERR_OPEN,
	PD_ERR_STAT,
	PD_ERR_DIRECTORY,
	PD_ERR_SPOOL,                   /* copying a pipe to a temporary file */
	PD_ERR_SPOOL_STAT,
	PD_ERR_EMPTY,
	PD_ERR_TOO_LARGE,
	PD_ERR_MAP,
	/* the header: n[] as each names them */
	PD_ERR_SHORT,                   /* n0 the file's size */
	PD_ERR_BIG_ENDIAN,
	PD_ERR_V1,
	PD_ERR_MAGIC,                   /* n0 the magic */
	PD_ERR_HEADER_SIZE,             /* n0 the size, n1 a file's, n2 a pipe's */
	PD_ERR_HEADER_PAST_END,         /* n0 the header's size, n1 the file's */
	PD_ERR_ATTR_SMALL,              /* n0 attr size, n1 the least */
	PD_ERR_ATTR_LARGE,              /* n0 attr size */
	PD_ERR_ATTRS_OUTSIDE,           /* n0 offset, n1 size, n2 the file's */
	PD_ERR_TOO_MANY_ATTRS,          /* n0 attrs, n1 the limit */
	PD_ERR_NO_ATTRS,
	PD_ERR_IDS_OUTSIDE,             /* n0 attr, n1 offset, n2 size, n3 the file's */
	PD_ERR_TOO_MANY_IDS,            /* n0 the limit */
	PD_ERR_DATA_OUTSIDE,            /* n0 offset, n1 size, n2 the file's */
	/* the records (at: the record's offset; inner: inside the compressed
	 * record at that offset) */
	PD_ERR_REC_LEFT,                /* n0 bytes left */
	PD_ERR_REC_SMALL,               /* n0 the record's size */
	PD_ERR_REC_PAST_END,            /* n0 size, n1 bytes left */
	PD_ERR_TRAILER_SMALL,           /* name the type, n0 size */
	PD_ERR_TRAILER_PAST_END,        /* n0 trailing bytes */
	PD_ERR_TRAILER_TOO_BIG,         /* n0 trailing bytes (inner) */
	PD_ERR_COMPRESSED_SMALL,        /* n0 size */
	PD_ERR_COMPRESSED_PAST,         /* n0 compressed size, n1 the record's */
	PD_ERR_ZSTD,                    /* name zstd's reason */
	PD_ERR_ZSTD_EXPANDS,            /* n0 the limit in MiB */
	PD_ERR_ZSTD_CONTEXT,
	PD_ERR_ZSTD_LEFTOVER,           /* n0 bytes */
	PD_ERR_TRUNCATED,               /* n0 the file's size, n1 data size, n2 data offset */
};

struct pd_error {
	enum pd_err kind;
	int errnum;                     /* the errno of a failed system call, else 0 */
	bool inner;                     /* in a compressed record's contents */
	uint64_t at;                    /* the record's offset */
	uint64_t n[4];                  /* the kind's numbers (above) */
	const char *name;               /* a static name the kind takes, or NULL */
};

/* The negative errno-style code the reader returns for e. */
int pd_error__code(const struct pd_error *e);
/* e in one sentence (no file name, no trailing period) into buf; buf. */
const char *pd_error__str(const struct pd_error *e, char *buf, size_t size);

#endif
