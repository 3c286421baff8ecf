// SPDX-License-Identifier: GPL-2.0
/*
 * The report stage on scripted rows: each case is a scenario
 * (tests/tools/mkperf's text) of one line, written to a recording by
 * mkperf (beside this binary: ../tools/mkperf) and loaded without symbols.
 * The verdict (report/verdict.c): the units are byte ranges (no types
 * without DWARF): which threads write and read which bytes, and when,
 * decide false sharing, true sharing, a handover after a join, a writer
 * not sampled. Latent false sharing (latent.c): adjacent lines of one
 * thread each. The layout (layout.c): the line's bytes by who touched
 * them. The columns (columns.c): the values the tables print, typed. The
 * diff (diff.c): two recordings' lines matched by name, and what a fix did.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/columns.h"
#include "report/diff.h"
#include "report/latent.h"
#include "report/layout.h"
#include "report/report.h"
#include "report/verdict.h"
#include "test.h"

static char mkperf[PATH_MAX], dir[] = "/tmp/test_report.XXXXXX";

/* The head of every case: one process, two threads, a heap line at
 * 0x2000040; the samples follow. */
static const char head[] =
	"attr name=cpu/mem-loads,ldlat=30/P type=raw config=0x1cd ldlat=30 precise=3 id=1\n"
	"attr name=cpu/mem-stores/P type=raw config=0x82d0 precise=3 id=2\n"
	"feature hostname=fixture nrcpus=4 numa=0-1:2-3\n"
	"kernel_mmap\n"
	"comm  pid=13001 time=1000 comm=counters exec\n"
	"mmap2 pid=13001 time=1001 start=0x400000 len=0x2000 maj=8 min=1 ino=1301 gen=1 prot=r-x "
	"flags=private name=/nonexistent/counters\n"
	"mmap2 pid=13001 time=1002 start=0x2000000 len=0x21000 prot=rw flags=private name=[heap]\n"
	"fork  pid=13001 tid=13011 time=1003\n"
	"round\n";

/* A store sample line: thread tid writes addr n times at time t. */
#define ST(tid, t, addr, n)                                                                         \
	"sample attr=2 pid=13001 tid=" #tid " cpu=0 time=" #t " addr=" #addr " ip=0x401108 src=st_l1hit " \
	"repeat=" #n "\n"
/* A load sample line: a HITM (src=lcl_hitm) or an L1 hit (src=l1). */
#define LD(tid, t, addr, src, n)                                                                    \
	"sample attr=1 pid=13001 tid=" #tid " cpu=1 time=" #t " addr=" #addr " ip=0x401200 src=" #src \
	" weight=170 repeat=" #n "\n"

/* The recording of a scenario's samples (after head), loaded: NULL when
 * it cannot be made. */
static struct report *load(const char *name, const char *samples)
{
	char scn[PATH_MAX + 64], data[PATH_MAX + 64], cmd[4 * PATH_MAX];
	/* every line in the view, with HITM or without */
	struct report_opts o = { .mode = C2C_DISPLAY_ALL, .mode_set = true, .names.disabled = true };
	struct report *r = NULL;
	FILE *f;

	snprintf(scn, sizeof(scn), "%s/%s.scn", dir, name);
	snprintf(data, sizeof(data), "%s/%s.data", dir, name);
	f = fopen(scn, "w");
	if (!f)
		return NULL;
	fprintf(f, "%s%sround\n", head, samples);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", mkperf, scn, data);
	if (system(cmd)) {
		fprintf(stderr, "%s: mkperf failed\n", name);
		return NULL;
	}
	o.input = data;
	if (report__load(&r, &o, NULL)) {
		fprintf(stderr, "%s: cannot load %s\n", name, data);
		return NULL;
	}
	if (!report__nr_lines(r)) {
		report__delete(r);
		return NULL;
	}
	return r;
}

/* The verdict of the line the scenario's samples fall in (the view's
 * first), -1 when it cannot be made; *units: its units' count. */
static uint64_t left = UINT64_MAX;      /* the last verdict's prediction, UINT64_MAX none */

static int judge(const char *name, const char *samples, size_t *units)
{
	struct report *r = load(name, samples);
	struct line_verdict v;
	int kind;

	if (!r)
		return -1;
	report__verdict(r, report__lines(r)[0], &v);
	kind = (int)v.kind;
	*units = v.nr_units;
	left = v.predicted ? v.left : UINT64_MAX;
	printf("%s: %s (%s)%s%s\n", name, verdict__word(v.kind), v.why, v.advice[0] ? "; " : "", v.advice);
	line_verdict__exit(&v);
	report__delete(r);
	return kind;
}

/* Two threads, each writing and missing on its own 8 bytes of one line. */
#define FALSE_SHARING                                                                                  \
	ST(13001, 2000, 0x2000040, 3) LD(13001, 2010, 0x2000040, lcl_hitm, 4)                          \
	ST(13011, 2020, 0x2000048, 3) LD(13011, 2030, 0x2000048, lcl_hitm, 4)

/* The line's bytes: with no object known, one run of the whole line;
 * with two heap objects (record --alloc), a run each, with their threads'
 * accesses. */
static void test_layout(void)
{
	struct report *r = load("layout", FALSE_SHARING);
	struct layout_entry *e = NULL;
	size_t nr;

	CHECK(r != NULL);
	if (!r)
		return;
	nr = report__layout(r, report__lines(r)[0], &e);
	CHECK_EQ_U64(nr, 1);
	if (nr == 1) {
		CHECK(e[0].kind == LAYOUT_NONE && e[0].offset == 0 && e[0].size == 64);
		CHECK(e[0].writers.nr == 2 && e[0].loads == 8 && e[0].stores == 6 && e[0].hitm == 8);
	}
	layout__free(e, nr);
	report__delete(r);

	r = load("layout-heap", "alloc pid=13001 tid=13001 time=1500 addr=0x2000040 size=8 site=0x401050\n"
				"alloc pid=13001 tid=13011 time=1501 addr=0x2000048 size=8 site=0x401070\n"
				FALSE_SHARING);
	CHECK(r != NULL);
	if (!r)
		return;
	nr = report__layout(r, report__lines(r)[0], &e);
	for (size_t i = 0; i < nr; i++)
		printf("layout: %s %s +%u %u: %" PRIu64 " loads %" PRIu64 " stores %u hitm, %u writers\n",
		       layout__kind_name(e[i].kind), e[i].member, e[i].offset, e[i].size, e[i].loads, e[i].stores,
		       e[i].hitm, e[i].writers.nr);
	CHECK(nr >= 2);
	if (nr >= 2) {
		CHECK(e[0].kind == LAYOUT_HEAP && e[1].kind == LAYOUT_HEAP);
		CHECK(e[0].offset == 0 && e[0].size == 8 && e[1].offset == 8 && e[1].size == 8);
		CHECK(e[0].writers.nr == 1 && e[1].writers.nr == 1);
		CHECK(u32set__has(&e[0].writers, 13001) && u32set__has(&e[1].writers, 13011));
		CHECK(e[0].hitm == 4 && e[1].hitm == 4 && e[0].stores == 3 && e[1].loads == 4);
	}
	layout__free(e, nr);
	report__delete(r);
}

/* Latent false sharing from every line's stores: adjacent lines, each one
 * thread's, written often enough, near across the boundary or one 128-byte
 * block. */
static size_t latent_of(const char *name, const char *samples, struct latent *first)
{
	struct report *r = load(name, samples);
	const struct latent *l;
	size_t n;

	if (!r)
		return SIZE_MAX;
	n = report__latent(r, &l);
	if (n)
		*first = l[0];
	report__delete(r);
	return n;
}

static void test_latent(void)
{
	struct latent l = { 0 };

	/* 13001's last bytes of one line, 13011's first of the next: 8 apart */
	CHECK_EQ_U64(latent_of("latent", ST(13001, 2000, 0x2000078, 6) ST(13011, 2010, 0x2000080, 6), &l), 1);
	CHECK(l.near && !l.pair && l.apart == 8 && l.tid_a == 13001 && l.tid_b == 13011);
	CHECK(l.addr_a == 0x2000078 && l.addr_b == 0x2000080 && l.stores_a == 6 && l.stores_b == 6);
	/* a line apart, in one 128-byte block: the pair only */
	CHECK_EQ_U64(latent_of("pair", ST(13001, 2000, 0x2000080, 6) ST(13011, 2010, 0x20000c0, 6), &l), 1);
	CHECK(!l.near && l.pair && l.apart == 64);
	/* a line apart across a block's boundary: nothing */
	CHECK_EQ_U64(latent_of("apart", ST(13001, 2000, 0x2000040, 6) ST(13011, 2010, 0x2000080, 6), &l), 0);
	/* one thread on both lines: nothing */
	CHECK_EQ_U64(latent_of("one", ST(13001, 2000, 0x2000078, 6) ST(13001, 2010, 0x2000080, 6), &l), 0);
	/* the next line written by both: shared today, not latent */
	CHECK_EQ_U64(latent_of("both", ST(13001, 2000, 0x2000078, 6) ST(13011, 2010, 0x2000080, 6)
				       ST(13001, 2020, 0x20000a0, 6), &l), 0);
	/* a store or two a side: a sample's accident */
	CHECK_EQ_U64(latent_of("few", ST(13001, 2000, 0x2000078, 6) ST(13011, 2010, 0x2000080, 2), &l), 0);
	/* loads do not make it */
	CHECK_EQ_U64(latent_of("loads", ST(13001, 2000, 0x2000078, 6) LD(13011, 2010, 0x2000080, l1, 9), &l), 0);
}

/* The line table's values: typed, formatted by type, ordered by value. */
static void test_columns(void)
{
	struct report *r = load("columns", FALSE_SHARING);
	struct col_value a = { .type = COL_COUNT, .u = 12 }, b = { .type = COL_COUNT, .u = 9 };
	struct col_value p = { .type = COL_PERCENT, .decimals = 2, .pct = 12.345 };
	struct col_value h = { .type = COL_HEX, .u = 0x1c0 }, t = { .type = COL_TEXT };
	char buf[64];
	size_t nr = 0;
	bool seen_hitm = false;

	CHECK(col_value__scnprintf(&a, buf, sizeof(buf)) == 2 && !strcmp(buf, "12"));
	col_value__scnprintf(&p, buf, sizeof(buf));
	CHECK_STR(buf, "12.35%");
	col_value__scnprintf(&h, buf, sizeof(buf));
	CHECK_STR(buf, "0x1c0");
	CHECK(col_value__cmp(&a, &b) > 0 && col_value__cmp(&b, &a) < 0 && !col_value__cmp(&a, &a));
	CHECK(col_value__cmp(&a, &t) < 0);              /* numbers before text */
	CHECK(r != NULL);
	if (!r)
		return;
	/* every column of the table yields a cell; the HITM ones count the
	 * scenario's eight HITM loads, Tids its two threads */
	for (const struct line_column *c = line_columns(r, &nr), *end = c + nr; c < end; c++) {
		size_t n = line_column__cell(c, r, report__lines(r)[0], 8, buf, sizeof(buf));

		CHECK(n == strlen(buf));
		if (!strcmp(c->name, "TotHitm") || !strcmp(c->name, "LclHitm") || !strcmp(c->name, "Tids")) {
			seen_hitm = true;
			CHECK_STR(buf, c->name[0] == 'T' && c->name[1] == 'i' ? "2" : "8");
		}
	}
	CHECK(nr > 5);
	CHECK(seen_hitm);
	report__delete(r);
}

/* The same line before a fix (false sharing) and after it (each thread's
 * counter on a line of its own): matched by name, its findings gone. */
static void test_diff(void)
{
	struct report *before = load("before", FALSE_SHARING);
	struct report *after = load("after", ST(13001, 2000, 0x2000040, 3) LD(13001, 2010, 0x2000040, l1, 4)
					     ST(13011, 2020, 0x2000080, 3) LD(13011, 2030, 0x2000080, l1, 4));
	struct report_diff d;

	CHECK(before && after);
	if (!before || !after) {
		report__delete(before);
		report__delete(after);
		return;
	}
	report__set_mode(after, report__mode(before));
	report_diff__build(before, after, &d);
	for (size_t i = 0; i < d.nr; i++)
		printf("diff: %s: %s\n", d.e[i].name, diff_status__word(diff_entry__status(&d.e[i])));
	CHECK_EQ_U64(d.findings_before, 1);
	CHECK_EQ_U64(d.findings_after, 0);
	CHECK(d.all_gone);
	CHECK(d.nr >= 1 && d.e[0].in_before);
	CHECK(d.nr >= 1 && d.e[0].before.tot_hitm == 8 && d.e[0].after.tot_hitm == 0);
	/* a fix that leaves nothing was predicted to leave nothing */
	CHECK(d.nr >= 1 && d.e[0].predicted && d.e[0].predicted_left == 0);
	report_diff__exit(&d);
	report__delete(before);
	report__delete(after);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	size_t units = 0;
	int kind;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	(void)argv;
	if (n <= 0)
		return 1;
	self[n] = '\0';
	snprintf(mkperf, sizeof(mkperf), "%s/../tools/mkperf", dirname(self));
	if (access(mkperf, X_OK)) {
		printf("test_report: skipped: no %s\n", mkperf);
		return 77;
	}
	if (!mkdtemp(dir))
		return 1;

	/* two threads, each writing and missing on its own bytes: false
	 * sharing, two units */
	CHECK_EQ_U64(judge("false", FALSE_SHARING, &units), VERDICT_FALSE);
	CHECK_EQ_U64(units, 2);
	/* the fix gives each thread's counter a line: nothing left */
	CHECK_EQ_U64(left, 0);
	/* both write and miss on the same bytes: true sharing */
	CHECK_EQ_U64(judge("true", ST(13001, 2000, 0x2000040, 3) LD(13001, 2010, 0x2000040, lcl_hitm, 4)
				  ST(13011, 2020, 0x2000040, 3) LD(13011, 2030, 0x2000040, lcl_hitm, 4),
			   &units),
		     VERDICT_TRUE);
	CHECK_EQ_U64(units, 1);
	CHECK_EQ_U64(left, UINT64_MAX); /* no layout fix to predict */
	/* false sharing with a sliver of true (one HITM in forty on shared
	 * bytes): false sharing, not mixed */
	CHECK_EQ_U64(judge("minor", ST(13001, 2000, 0x2000040, 20) LD(13001, 2010, 0x2000040, lcl_hitm, 20)
				   ST(13011, 2020, 0x2000048, 20) LD(13011, 2030, 0x2000048, lcl_hitm, 20)
				   ST(13011, 2040, 0x2000050, 1) LD(13001, 2050, 0x2000050, lcl_hitm, 1),
			   &units),
		     VERDICT_FALSE);
	/* the fix leaves the shared bytes' one HITM */
	CHECK_EQ_U64(left, 1);
	/* one writer, then a reader after it finished (a join): the data is
	 * handed over, not falsely shared */
	kind = judge("handover", ST(13011, 2000, 0x2000040, 30) LD(13011, 2010, 0x2000040, l1, 30)
					 LD(13001, 5000, 0x2000040, lcl_hitm, 1),
		     &units);
	CHECK(kind >= 0 && kind != VERDICT_FALSE);
	/* HITM on a line only one thread was sampled on: the writer was not
	 * sampled, said as such, never "no sharing" */
	CHECK_EQ_U64(judge("unsampled", LD(13001, 2010, 0x2000040, lcl_hitm, 6), &units), VERDICT_UNSAMPLED);
	/* one thread alone, no HITM: no sharing */
	CHECK_EQ_U64(judge("alone", ST(13001, 2000, 0x2000040, 3) LD(13001, 2010, 0x2000040, l1, 4), &units),
		     VERDICT_NONE);

	test_layout();
	test_latent();
	test_columns();
	test_diff();

	snprintf(self, sizeof(self), "rm -rf '%s'", dir);
	if (system(self))
		fprintf(stderr, "could not remove %s\n", dir);
	return test_done("test_report");
}
