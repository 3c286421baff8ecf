// SPDX-License-Identifier: GPL-2.0
/*
 * typecov [-v] [-r REASON] FILE...: type every instruction with a memory
 * operand (stack pushes and pops excluded) of each object file, as report
 * types a sampled row's instruction (src/names/dtype.c), and print the
 * share typed and what failed by reason. -v lists every instruction with
 * its type and member; -r lists those that failed for REASON (a number).
 * For scripts/bench-types.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "names/symbols.h"

struct opts {
	bool verbose;
	int reason;
	uint64_t with_member;
};

static void each(void *arg, uint64_t vaddr, enum dtype_reason r, const struct data_loc *d)
{
	struct opts *o = arg;

	o->with_member += r == DT_OK && d->member[0];
	if (o->verbose && r == DT_OK)
		printf("  %#" PRIx64 "  %-28s %s  (%s)\n", vaddr, d->type, d->member,
		       type_source__name((enum type_source)d->type_source));
	else if ((o->verbose && r) || (o->reason >= 0 && (int)r == o->reason))
		printf("  %#" PRIx64 "  - %s\n", vaddr, dtype_reason__name(r));
}

int main(int argc, char **argv)
{
	struct opts o = { .reason = -1 };
	const char *symfs = NULL;
	int c, status = 0;

	while ((c = getopt(argc, argv, "vr:s:")) != -1) {
		if (c == 'v')
			o.verbose = true;
		else if (c == 's')
			symfs = optarg;     /* FILE and its DWARF under this root */
		else if (c == 'r')
			o.reason = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: typecov [-v] [-r REASON] [-s SYMFS] FILE...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct symbols_opts so = { .no_debuginfod = true, .symfs = symfs };
		struct symbols *s = symbols__new(&so);
		uint64_t counts[DT_NR] = { 0 }, total = 0;
		int rc;

		o.with_member = 0;
		rc = symbols__type_all(s, argv[i], counts, each, &o);

		if (rc) {
			fprintf(stderr, "typecov: %s: %s\n", argv[i], strerror(-rc));
			status = 1;
			symbols__delete(s);
			continue;
		}
		for (int r = 0; r < DT_NR; r++)
			total += counts[r];
		printf("%s: %" PRIu64 " memory-access instructions, %" PRIu64 " typed (%.1f%%), %" PRIu64
		       " with a member or variable (%.1f%%)\n", argv[i], total, counts[DT_OK],
		       total ? 100.0 * (double)counts[DT_OK] / (double)total : 0.0, o.with_member,
		       total ? 100.0 * (double)o.with_member / (double)total : 0.0);
		if (counts[DT_ASM] || counts[DT_GOT]) {
			/* what compiled source can type: assembly and the
			 * linker's slots have no source types to find */
			uint64_t src = total - counts[DT_ASM] - counts[DT_GOT];

			printf("  compiled source (assembly and .got slots apart): %" PRIu64 ", %.1f%% typed, "
			       "%.1f%% with a member or variable\n", src,
			       src ? 100.0 * (double)counts[DT_OK] / (double)src : 0.0,
			       src ? 100.0 * (double)o.with_member / (double)src : 0.0);
		}
		for (int r = 1; r < DT_NR; r++)
			if (counts[r])
				printf("  %8" PRIu64 " %5.1f%%  [%d] %s\n", counts[r],
				       100.0 * (double)counts[r] / (double)total, r, dtype_reason__name((enum dtype_reason)r));
		symbols__delete(s);
	}
	return status;
}
