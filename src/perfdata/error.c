// SPDX-License-Identifier: GPL-2.0
/* The sentences of a perf.data file's defects (error.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "perfdata/error.h"

int pd_error__code(const struct pd_error *e)
{
	if (e->errnum)
		return -e->errnum;
	switch (e->kind) {
	case PD_ERR_NONE:
		return 0;
	case PD_ERR_DIRECTORY:
		return -EISDIR;
	case PD_ERR_TOO_LARGE:
		return -EFBIG;
	default:
		return -EINVAL;
	}
}

/* The input and the header. */
static int str_file(const struct pd_error *e, char *buf, size_t size)
{
	const uint64_t *n = e->n;
	const char *why = strerror(e->errnum);

	switch (e->kind) {
	case PD_ERR_OPEN:
		return snprintf(buf, size, "cannot open: %s", why);
	case PD_ERR_STAT:
		return snprintf(buf, size, "cannot stat: %s", why);
	case PD_ERR_DIRECTORY:
		return snprintf(buf, size, "is a directory, not a perf.data file");
	case PD_ERR_SPOOL:
		return snprintf(buf, size, "cannot copy the input to a temporary file: %s", why);
	case PD_ERR_SPOOL_STAT:
		return snprintf(buf, size, "cannot stat the temporary file: %s", why);
	case PD_ERR_EMPTY:
		return snprintf(buf, size, "the file is empty");
	case PD_ERR_TOO_LARGE:
		return snprintf(buf, size, "the file is too large to map");
	case PD_ERR_MAP:
		return snprintf(buf, size, "cannot map the file: %s", why);
	case PD_ERR_SHORT:
		return snprintf(buf, size, "the file is too short for a perf.data header (%" PRIu64 " bytes)", n[0]);
	case PD_ERR_BIG_ENDIAN:
		return snprintf(buf, size, "big-endian perf.data is not supported");
	case PD_ERR_V1:
		return snprintf(buf, size, "old perf.data v1 format (magic PERFFILE) is not supported");
	case PD_ERR_MAGIC:
		return snprintf(buf, size, "not a perf.data file (bad magic 0x%016" PRIx64 ")", n[0]);
	case PD_ERR_HEADER_SIZE:
		return snprintf(buf, size, "header size %" PRIu64 " is neither a file (%" PRIu64 ") nor a pipe (%"
				PRIu64 ") header", n[0], n[1], n[2]);
	case PD_ERR_HEADER_PAST_END:
		return snprintf(buf, size, "the header (%" PRIu64 " bytes) goes past the end of the file (%" PRIu64
				" bytes)", n[0], n[1]);
	case PD_ERR_ATTR_SMALL:
		return snprintf(buf, size, "attr size %" PRIu64 " is too small (at least %" PRIu64 ")", n[0], n[1]);
	case PD_ERR_ATTR_LARGE:
		return snprintf(buf, size, "attr size %" PRIu64 " is too large", n[0]);
	case PD_ERR_ATTRS_OUTSIDE:
		return snprintf(buf, size, "the attr section (offset %" PRIu64 ", size %" PRIu64 ") lies outside the "
				"file (%" PRIu64 " bytes)", n[0], n[1], n[2]);
	case PD_ERR_TOO_MANY_ATTRS:
		return snprintf(buf, size, "%" PRIu64 " attrs exceed the limit of %" PRIu64, n[0], n[1]);
	case PD_ERR_NO_ATTRS:
		return snprintf(buf, size, "the file has no event attrs");
	case PD_ERR_IDS_OUTSIDE:
		return snprintf(buf, size, "the ids of attr %" PRIu64 " (offset %" PRIu64 ", size %" PRIu64
				") lie outside the file (%" PRIu64 " bytes)", n[0], n[1], n[2], n[3]);
	case PD_ERR_TOO_MANY_IDS:
		return snprintf(buf, size, "more than %" PRIu64 " event ids", n[0]);
	case PD_ERR_DATA_OUTSIDE:
		return snprintf(buf, size, "the data section (offset %" PRIu64 ", size %" PRIu64 ") lies outside the "
				"file (%" PRIu64 " bytes)", n[0], n[1], n[2]);
	default:
		return -1;
	}
}

/* The records of the data section. */
static int str_records(const struct pd_error *e, char *buf, size_t size)
{
	const uint64_t *n = e->n;
	const char *in = e->inner ? "inside the compressed record " : "";

	switch (e->kind) {
	case PD_ERR_REC_LEFT:
		return snprintf(buf, size, "record at offset %" PRIu64 ": only %" PRIu64 " bytes left, less than a "
				"record header", e->at, n[0]);
	case PD_ERR_REC_SMALL:
		return snprintf(buf, size, "record %sat offset %" PRIu64 ": size %" PRIu64 " is smaller than a record "
				"header", in, e->at, n[0]);
	case PD_ERR_REC_PAST_END:
		return snprintf(buf, size, "record at offset %" PRIu64 ": size %" PRIu64 " goes past the end of the "
				"data (%" PRIu64 " bytes left)", e->at, n[0], n[1]);
	case PD_ERR_TRAILER_SMALL:
		return snprintf(buf, size, "record %sat offset %" PRIu64 ": %s record of size %" PRIu64 " is too short",
				in, e->at, e->name, n[0]);
	case PD_ERR_TRAILER_PAST_END:
		return snprintf(buf, size, "record %sat offset %" PRIu64 ": its %" PRIu64 " bytes of trailing data go "
				"past the end of the data", in, e->at, n[0]);
	case PD_ERR_TRAILER_TOO_BIG:
		return snprintf(buf, size, "record %sat offset %" PRIu64 ": its %" PRIu64 " bytes of trailing data "
				"are more than a compressed record may expand to", in, e->at, n[0]);
	case PD_ERR_COMPRESSED_SMALL:
		return snprintf(buf, size, "record at offset %" PRIu64 ": COMPRESSED2 record of size %" PRIu64
				" is too short", e->at, n[0]);
	case PD_ERR_COMPRESSED_PAST:
		return snprintf(buf, size, "record at offset %" PRIu64 ": compressed size %" PRIu64 " goes past the "
				"record (%" PRIu64 " bytes)", e->at, n[0], n[1]);
	case PD_ERR_ZSTD:
		return snprintf(buf, size, "compressed record at offset %" PRIu64 ": not valid zstd data (%s)", e->at,
				e->name);
	case PD_ERR_ZSTD_EXPANDS:
		return snprintf(buf, size, "compressed record at offset %" PRIu64 ": expands to more than %" PRIu64
				" MiB", e->at, n[0]);
	case PD_ERR_ZSTD_CONTEXT:
		return snprintf(buf, size, "cannot create a zstd decompression context");
	case PD_ERR_ZSTD_LEFTOVER:
		return snprintf(buf, size, "the compressed data ends inside a record (%" PRIu64 " bytes left over)",
				n[0]);
	case PD_ERR_TRUNCATED:
		return snprintf(buf, size, "the file is truncated: it ends at %" PRIu64 " bytes, inside the data "
				"section (%" PRIu64 " bytes from offset %" PRIu64 ")", n[0], n[1], n[2]);
	default:
		return -1;
	}
}

const char *pd_error__str(const struct pd_error *e, char *buf, size_t size)
{
	if (!size)
		return buf;
	if (e->kind == PD_ERR_NONE)
		snprintf(buf, size, "no error");
	else if (str_file(e, buf, size) < 0 && str_records(e, buf, size) < 0)
		snprintf(buf, size, "error %d", (int)e->kind);
	return buf;
}
