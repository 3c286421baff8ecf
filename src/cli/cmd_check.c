// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan check: can this machine record memory samples, and why not.
 * Everything is probed, nothing is assumed: sysfs for the memory PMUs
 * (pmu.c), perf_event_open for what the kernel lets us open, the
 * PROCMAP_QUERY ioctl on /proc/self/maps (synth.c). `record` prints the same
 * diagnosis when it cannot open memory events.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cli/cli.h"
#include "record/pmu.h"
#include "record/synth.h"

/* Opens a software page-fault event sampling data addresses on this process. */
static int sw_sampling_works(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, .disabled = 1,
		.exclude_kernel = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: c2cscan check\n\nTells whether this machine can record memory samples, and why not.\n"
		     "Exit status 0 when it can, 1 when it cannot.");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "c2cscan check: unexpected argument '%s' (c2cscan check -h says what it does)\n", argv[1]);
		return 129;
	}
	return mem_diagnosis__fprintf(stdout, synth__query_probe(), sw_sampling_works()) ? 0 : 1;
}
