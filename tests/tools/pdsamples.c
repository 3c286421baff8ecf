// SPDX-License-Identifier: GPL-2.0
/*
 * pdsamples FILE: every memory sample the reader yields, one a line, as
 * "pid tid cpu time ip addr data_src weight" (hex for addresses and
 * data_src), then the reader's AUX counters as "# key value" lines: what
 * tests/cli/spe.sh compares with perf script --itrace=M on the same file.
 */
#include <inttypes.h>
#include <stdio.h>
#include "perfdata/reader.h"

int main(int argc, char **argv)
{
	struct pd_reader *r;
	struct pd_event ev;
	const struct pd_reader_stats *st;
	char err[512];
	struct pd_error perr;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: pdsamples FILE\n");
		return 2;
	}
	if (pd_reader__open(&r, argv[1], &perr) < 0) {
		pd_error__str(&perr, err, sizeof(err));
		fprintf(stderr, "pdsamples: %s: %s\n", argv[1], err);
		return 1;
	}
	while ((ret = pd_reader__next(r, &ev)) > 0) {
		const struct pd_sample *s = &ev.u.sample;
		const struct pd_attr *a;

		if (ev.kind != PD_SAMPLE || ev.attr_idx < 0)
			continue;
		a = pd_reader__attr(r, (size_t)ev.attr_idx);
		if (!(a->attr.sample_type & PERF_SAMPLE_DATA_SRC))
			continue;
		printf("%d %d %u %" PRIu64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %" PRIu64 "\n", (int)s->pid,
		       (int)s->tid, s->cpu, s->time, s->ip, s->addr, s->data_src, s->weight);
	}
	st = pd_reader__stats(r);
	printf("# aux_buffers %" PRIu64 "\n# aux_bytes %" PRIu64 "\n# spe_records %" PRIu64 "\n# spe_samples %" PRIu64
	       "\n# spe_cut %" PRIu64 "\n# spe_bad_bytes %" PRIu64 "\n# aux_truncated %" PRIu64 "\n# aux_partial %" PRIu64
	       "\n# aux_collision %" PRIu64 "\n", st->aux_buffers, st->aux_bytes, st->spe_records, st->spe_samples,
	       st->spe_cut, st->spe_bad_bytes, st->aux_truncated, st->aux_partial, st->aux_collision);
	if (ret < 0)
		fprintf(stderr, "pdsamples: %s: %s\n", argv[1], pd_reader__strerror(r));
	pd_reader__delete(r);
	return ret < 0;
}
