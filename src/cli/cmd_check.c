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
#include <sys/utsname.h>
#include <unistd.h>
#include "cli/cli.h"
#include "record/allocrec.h"
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

bool cli__mem_diagnosis(FILE *fp, int pq, int sw)
{
	struct mem_pmu m;
	struct utsname u;
	long paranoid = pmu__paranoid();
	bool perfmon = pmu__cap_perfmon(), sysadmin = pmu__cap_sys_admin(), emu;
	char lib[4096];

	pmu__detect(&m);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(fp, "kernel              : %s %s (PROCMAP_QUERY: %s)\n", u.sysname, u.release,
		pq == 0 ? "yes, maps of running processes are read with it" :
		pq == -ENOTTY || pq == -EINVAL ? "no (kernel < 6.11), /proc/PID/maps text is parsed instead" :
		strerror(-pq));
	switch (m.vendor) {
	case PMU_INTEL:
		fprintf(fp, "memory PMU          : Intel PEBS load latency (mem-loads%s) + precise stores on %s%s%s\n",
			m.has_aux[0] ? ", with the mem-loads-aux group" : "", m.core[0],
			m.nr_core > 1 ? " and " : "", m.nr_core > 1 ? m.core[1] : "");
		break;
	case PMU_AMD_IBS:
		fprintf(fp, "memory PMU          : AMD IBS op (ibs_op)%s\n",
			m.ibs_ldlat ? " with load-latency filter" : " (no load-latency filter)");
		break;
	case PMU_ARM_SPE:
		fprintf(fp, "memory PMU          : Arm SPE (%s): loads and stores traced with their data source and "
			"latency (c2cscan record, as perf c2c record: loads, stores, latency 30 cycles and above; "
			"-l N); report decodes the trace\n", m.spe);
		break;
	case PMU_NONE:
		fprintf(fp, "memory PMU          : none (no mem-loads, ibs_op or arm_spe in %s):\n"
			"                      typical of a virtual machine without PMU passthrough\n", pmu__sysfs_root());
		break;
	}
	fprintf(fp, "perf_event_paranoid : %ld%s\n", paranoid,
		paranoid <= -1 ? " (no restrictions)" :
		paranoid == 0 ? " (CPU-wide and kernel sampling allowed)" :
		paranoid == 1 ? " (own processes, user and kernel)" :
		" (own processes, user space only, unless privileged)");
	fprintf(fp, "capabilities        : CAP_PERFMON %s, CAP_SYS_ADMIN %s\n", perfmon ? "yes" : "no",
		sysadmin ? "yes" : "no");
	fprintf(fp, "physical addresses  : %s\n", sysadmin || perfmon || paranoid < 2 ?
		"permitted (PERF_SAMPLE_PHYS_ADDR is recorded with memory events)" :
		"not permitted (needs CAP_PERFMON/CAP_SYS_ADMIN or perf_event_paranoid < 2)");
	fprintf(fp, "software events     : page-faults with data addresses %s\n",
		sw == 0 ? "work (c2cscan record -e page-faults; c2cscan report -d all)" : strerror(-sw));
	emu = !record_lib__find("libc2cscan-emu.so", "C2CSCAN_EMU_LIB", lib, sizeof(lib));
	fprintf(fp, "emulation           : %s%s\n", emu ? "available (c2cscan record --emulate; " :
		"not available: libc2cscan-emu.so not found beside c2cscan", emu ?
		"a -fsanitize=thread build's accesses through a coherence model, HITM on any machine)" : "");
	if (m.vendor == PMU_NONE) {
		fprintf(fp, "verdict             : cannot record memory samples here: no memory PMU (c2cscan record "
			"--emulate models a -fsanitize=thread build's contention; -e page-faults records "
			"first-touch addresses)\n");
		return false;
	}
	if (paranoid > 0 && !perfmon && !sysadmin) {
		fprintf(fp, "verdict             : memory PMU present, but sampling it needs CAP_PERFMON or "
			"perf_event_paranoid <= 0 (sysctl kernel.perf_event_paranoid=0)\n");
		return false;
	}
	fprintf(fp, "verdict             : can record memory samples\n");
	return true;
}

static const struct cli_opt check_opts[] = { CLI_OPT_HELP, CLI_OPT_END };

static const struct cli_cmd check_cmd = {
	.name = "check",
	.head = "usage: c2cscan check\n\nTells whether this machine can record memory samples, and why not.\n"
		"Exit status 0 when it can, 1 when it cannot.\n\n",
	.column = 27,
	.opts = check_opts,
};

int cmd_check(int argc, char **argv)
{
	struct cli_parser p;
	int c;

	if (!cli__parser_init(&p, &check_cmd, argc, argv))
		return 0;
	while ((c = cli__next(&p)) != -1)
		return c == 'h' ? cli__help(&check_cmd, stdout) : cli__bad_option(&p, c);
	if (optind < argc)
		return cli__usage_error("check", "unexpected argument '%s'", argv[optind]);
	return cli__mem_diagnosis(stdout, synth__query_probe(), sw_sampling_works()) ? 0 : 1;
}
