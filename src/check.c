// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan check: can this machine record memory samples, and why not.
 * Everything is probed, nothing is assumed: sysfs for the memory PMUs,
 * perf_event_open for what the kernel lets us open, the PROCMAP_QUERY ioctl
 * on /proc/self/maps (kernels >= 6.11; defined here because libc headers
 * lag the kernel).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "builtin.h"

/* include/uapi/linux/fs.h (6.11+) */
struct procmap_query_probe {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY_PROBE _IOWR('f', 17, struct procmap_query_probe)

static bool sysfs_has(const char *pattern, char *found, size_t size)
{
	glob_t g;
	bool ok = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;

	if (ok)
		snprintf(found, size, "%s", g.gl_pathv[0]);
	globfree(&g);
	return ok;
}

/* Which memory-sampling PMU this machine has, or NULL. */
static const char *memory_pmu(char *path, size_t size)
{
	if (sysfs_has("/sys/bus/event_source/devices/cpu*/events/mem-loads", path, size))
		return "Intel PEBS load latency (mem-loads) + precise stores";
	if (sysfs_has("/sys/bus/event_source/devices/ibs_op", path, size))
		return access("/sys/bus/event_source/devices/ibs_op/caps/ldlat", F_OK) ?
			"AMD IBS op (no load-latency filter)" : "AMD IBS op with load-latency filter";
	if (sysfs_has("/sys/bus/event_source/devices/arm_spe_*", path, size))
		return "Arm SPE";
	return NULL;
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v = dflt;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static uint64_t cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t caps = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return caps;
}

static int procmap_query_works(void)
{
	struct procmap_query_probe q = { .size = sizeof(q), .query_flags = 0x10, /* COVERING_OR_NEXT */
					 .query_addr = (uintptr_t)&procmap_query_works };
	int fd = open("/proc/self/maps", O_RDONLY), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, PROCMAP_QUERY_PROBE, &q) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Opens a software page-fault event sampling data addresses on this process. */
static int sw_sampling_works(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, .disabled = 1,
		.exclude_kernel = 1,
	};
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	char path[512];
	struct utsname u;
	const char *pmu = memory_pmu(path, sizeof(path));
	long paranoid = read_long("/proc/sys/kernel/perf_event_paranoid", 99);
	uint64_t caps = cap_eff();
	bool perfmon = caps & (1ULL << 38), sysadmin = caps & (1ULL << 21);
	int pq = procmap_query_works(), sw = sw_sampling_works();

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: c2cscan check\n\nTells whether this machine can record memory samples, and why not.\n"
		     "Exit status 0 when it can, 1 when it cannot.");
		return 0;
	}
	uname(&u);
	printf("kernel              : %s %s (PROCMAP_QUERY: %s)\n", u.sysname, u.release,
	       pq == 0 ? "yes" : pq == -ENOTTY ? "no, /proc/PID/maps text is parsed instead" : strerror(-pq));
	if (pmu)
		printf("memory PMU          : %s (%s)\n", pmu, path);
	else
		printf("memory PMU          : none (no mem-loads, ibs_op or arm_spe in /sys/bus/event_source/devices):\n"
		       "                      typical of a virtual machine without PMU passthrough\n");
	printf("perf_event_paranoid : %ld%s\n", paranoid,
	       paranoid <= 0 ? " (CPU-wide and kernel sampling allowed)" :
	       paranoid == 1 ? " (own processes, user and kernel)" : " (own processes, user space only, unless privileged)");
	printf("capabilities        : CAP_PERFMON %s, CAP_SYS_ADMIN %s\n", perfmon ? "yes" : "no", sysadmin ? "yes" : "no");
	printf("physical addresses  : %s\n", sysadmin ? "permitted (CAP_SYS_ADMIN)" : "not permitted (needs CAP_SYS_ADMIN)");
	printf("software events     : page-faults with data addresses %s\n",
	       sw == 0 ? "work (c2cscan report -d all ranks them; record them with perf record -e page-faults -d)" :
	       strerror(-sw));
	if (!pmu) {
		printf("verdict             : cannot record memory samples here: no memory PMU\n");
		return 1;
	}
	if (paranoid > 0 && !perfmon && !sysadmin) {
		printf("verdict             : memory PMU present, but sampling it needs CAP_PERFMON or "
		       "perf_event_paranoid <= 0 (sysctl kernel.perf_event_paranoid=0)\n");
		return 1;
	}
	printf("verdict             : can record memory samples\n");
	return 0;
}
