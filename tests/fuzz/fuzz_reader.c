// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the perf.data reader alone, as the report drives it --
 * a side-band pass that skips samples, a rewind, a full pass, and a rewind
 * in the middle of a stream. Every field of every yielded record is touched
 * so that a pointer into the input that is out of bounds shows up under ASan.
 * Then the input as a file: a side-band pass with a skim (perfdata/skim.c)
 * from a place the input picks must yield what a pass without yields, and
 * so must a pass asking for runs of fixed-layout samples (lengths the input
 * picks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perfdata/reader.h"
#include "../unit/fixed_oracle.h"
#include "../unit/pass_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void touch_event(const struct pd_event *ev)
{
	switch (ev->kind) {
	case PD_SAMPLE:
		touch(ev->u.sample.callchain, ev->u.sample.callchain_nr * 8);
		touch(ev->u.sample.raw, ev->u.sample.raw_size);
		break;
	case PD_MMAP:
		sink += strlen(ev->u.mmap.filename);
		break;
	case PD_COMM:
		sink += strlen(ev->u.comm.comm);
		break;
	default:
		sink += ev->type;
		break;
	}
}

/* Up to limit records (0 = all); the return of the last next(). */
static int pass(struct pd_reader *rd, uint64_t limit)
{
	struct pd_event ev;
	uint64_t n = 0;
	int ret;

	while ((ret = pd_reader__next(rd, &ev)) > 0) {
		touch_event(&ev);
		if (limit && ++n == limit)
			break;
	}
	return ret;
}

/* A side-band pass that read the file's index (C2CSCAN_INDEX) against a
 * walk: when a walk of every record then confirms the index, the two passes
 * met the same records, end and error (pass_oracle.h); abort (a finding)
 * if not. */
static void index_check(const char *path)
{
	struct pd_reader *a, *b;
	struct pd_event eb;
	bool same;
	int ra, rb;

	if (!pass_oracle_open(path, &a, &b))
		return;
	pd_reader__skip_samples(a, true);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, 0);
	same = pass_oracle_same(a, b, &ra, &rb);
	if (!pd_reader__rewind(b)) {
		pd_reader__skip_samples(b, false);
		while (pd_reader__next(b, &eb) > 0)
			touch_event(&eb);
		if (!same && !pd_reader__index_unconfirmed(b) && pd_reader__skimmed(b))
			abort();
	}
	pd_reader__delete(a);
	pd_reader__delete(b);
}

/* The same records, end and error with and without a skim (pass_oracle.h);
 * abort (a finding) otherwise. */
static void skim_check(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct pd_reader *a, *b;
	const struct pd_info *in;
	char path[64];
	int ra, rb;

	if (fd < 0)
		fd = memfd_create("fuzz-skim", 0);
	if (fd < 0 || !size || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!pass_oracle_open(path, &a, &b))
		return;
	pd_reader__skip_samples(a, true);
	pd_reader__skip_samples(b, true);
	in = pd_reader__info(b);
	pd_reader__skim_ahead(b, in->data_offset + 1 + in->data_size / 8 * (1 + data[size - 1] % 7));
	if (!pass_oracle_same(a, b, &ra, &rb))
		abort();
	pd_reader__delete(a);
	pd_reader__delete(b);
	index_check(path);
}

/* Runs of fixed samples against events (fixed_oracle.h); abort if they differ. */
static void fixed_check(const uint8_t *data, size_t size)
{
	struct pd_reader *a, *b;
	char err[512];

	if (size < 4 || pd_reader__open_mem(&a, data, size, "fuzz", NULL) < 0)
		return;
	if (pd_reader__open_mem(&b, data, size, "fuzz", NULL) < 0 ||
	    fixed_oracle(a, b, data + size - 4, 4) < 0)
		abort();
	pd_reader__delete(a);
	pd_reader__delete(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	skim_check(data, size);
	fixed_check(data, size);
	struct pd_reader *rd;
	const struct pd_info *in;
	char err[512];
	struct pd_error perr;

	if (pd_reader__open_mem(&rd, data, size, "fuzz", &perr) < 0) {
		sink += strlen(pd_error__str(&perr, err, sizeof(err)));
		return 0;
	}
	pd_reader__skip_samples(rd, true);
	pass(rd, 0);
	pd_reader__rewind(rd);
	pd_reader__skip_samples(rd, false);
	pass(rd, 0);
	sink += strlen(pd_reader__strerror(rd));
	pd_reader__rewind(rd);
	pass(rd, 3);
	pd_reader__rewind(rd);
	pass(rd, 0);

	for (size_t i = 0; i < pd_reader__nr_attrs(rd); i++) {
		const struct pd_attr *a = pd_reader__attr(rd, i);

		sink += strlen(a->name);
		touch(a->ids, a->nr_ids * 8);
	}
	in = pd_reader__info(rd);
	for (uint32_t i = 0; i < in->nr_cmdline; i++)
		sink += strlen(in->cmdline[i]);
	touch(in->cpu_node, in->nr_cpu_node * sizeof(*in->cpu_node));
	if (in->cpu_core)
		touch(in->cpu_core, in->nr_cpus_avail * sizeof(*in->cpu_core));
	pd_reader__delete(rd);
	return 0;
}
