// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict (report/verdict.c) on scripted rows: each case is a scenario
 * (tests/tools/mkperf's text) of one line, written to a recording by
 * mkperf (beside this binary: ../tools/mkperf), loaded without symbols, and
 * judged. The units are byte ranges (no types without DWARF): which
 * threads write and read which bytes, and when, decide false sharing,
 * true sharing, a handover after a join, a writer not sampled.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/report.h"
#include "report/verdict.h"
#include "test.h"

static char mkperf[PATH_MAX], dir[] = "/tmp/test_verdict.XXXXXX";

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

/* The verdict of the line the scenario's samples fall in (the view's
 * first), -1 when it cannot be made; *units: its units' count. */
static uint64_t left = UINT64_MAX;      /* the last verdict's prediction, UINT64_MAX none */

static int judge(const char *name, const char *samples, size_t *units)
{
	char scn[PATH_MAX + 64], data[PATH_MAX + 64], cmd[4 * PATH_MAX];
	/* every line in the view, with HITM or without */
	struct report_opts o = { .mode = C2C_DISPLAY_ALL, .mode_set = true, .names.disabled = true };
	struct report *r = NULL;
	struct line_verdict v;
	FILE *f;
	int kind;

	snprintf(scn, sizeof(scn), "%s/%s.scn", dir, name);
	snprintf(data, sizeof(data), "%s/%s.data", dir, name);
	f = fopen(scn, "w");
	if (!f)
		return -1;
	fprintf(f, "%s%sround\n", head, samples);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", mkperf, scn, data);
	if (system(cmd)) {
		fprintf(stderr, "%s: mkperf failed\n", name);
		return -1;
	}
	o.input = data;
	if (report__load(&r, &o, NULL)) {
		fprintf(stderr, "%s: cannot load %s\n", name, data);
		return -1;
	}
	if (!report__nr_lines(r)) {
		report__delete(r);
		return -1;
	}
	report__verdict(r, report__lines(r)[0], &v);
	kind = (int)v.kind;
	*units = v.nr_units;
	left = v.predicted ? v.left : UINT64_MAX;
	printf("%s: %s (%s)%s%s\n", name, verdict__word(v.kind), v.why, v.advice[0] ? "; " : "", v.advice);
	line_verdict__exit(&v);
	report__delete(r);
	return kind;
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
		printf("test_verdict: skipped: no %s\n", mkperf);
		return 77;
	}
	if (!mkdtemp(dir))
		return 1;

	/* two threads, each writing and missing on its own bytes: false
	 * sharing, two units */
	CHECK_EQ_U64(judge("false", ST(13001, 2000, 0x2000040, 3) LD(13001, 2010, 0x2000040, lcl_hitm, 4)
				   ST(13011, 2020, 0x2000048, 3) LD(13011, 2030, 0x2000048, lcl_hitm, 4),
			   &units),
		     VERDICT_FALSE);
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

	snprintf(self, sizeof(self), "rm -rf '%s'", dir);
	if (system(self))
		fprintf(stderr, "could not remove %s\n", dir);
	return test_done("test_verdict");
}
