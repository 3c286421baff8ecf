/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory-sampling PMUs from sysfs (/sys/bus/event_source/devices): which
 * one this machine has (Intel PEBS mem-loads/mem-stores on cpu, cpu_core,
 * cpu_atom; AMD ibs_op; Arm arm_spe_*), and perf-style event specs turned
 * into perf_event_attr fields through the PMU's format/ and events/ files.
 *
 * Functions return 0 or a negative errno and never print, except the
 * *__fprintf diagnosis that `check` and `record` share.
 */
#ifndef C2CSCAN_PMU_H
#define C2CSCAN_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PMU_MAX_CPUS 4096

/* One event to open: an attr template plus what record needs to know. */
struct pmu_event {
	char name[96];          /* for EVENT_DESC: "cpu/mem-loads,ldlat=30/P", "page-faults" */
	char pmu[32];           /* sysfs PMU name, "" for software events */
	uint32_t type;
	uint64_t config, config1, config2;
	int precise;            /* precise_ip wanted (the open lowers it if refused) */
	bool memory;            /* samples carry a data source (DATA_SRC, WEIGHT) */
	bool aux_leader;        /* Intel mem-loads-aux: leader of the next event, counts only */
	bool per_cpu_only;      /* AMD IBS: cannot follow a task on older kernels */
	bool exclude_user, exclude_kernel; /* from :u / :k modifiers */
	bool has_period;        /* period= term given */
	uint64_t period;
	uint64_t regs_user;     /* sample these user registers (record --alloc's probes) */
	bool aux;               /* Arm SPE: an AUX-area trace, decoded into loads and stores by report */
};

enum pmu_vendor { PMU_NONE, PMU_INTEL, PMU_AMD_IBS, PMU_ARM_SPE };

/* What the machine has, for check and for the default event choice. */
struct mem_pmu {
	enum pmu_vendor vendor;
	int nr_core;            /* Intel: PMUs with mem-loads (cpu, or cpu_core + cpu_atom) */
	char core[2][32];
	bool has_aux[2];        /* mem-loads-aux in events/ */
	bool has_stores[2];
	bool ibs_ldlat;         /* AMD: caps/ldlat */
	char spe[32];           /* Arm: first arm_spe_* PMU */
};

/* Tests point this at a fake tree; NULL restores /sys/bus/event_source/devices. */
void pmu__set_sysfs_root(const char *root);
/* Where the PMUs are looked for (sysfs, or the tests' tree). */
const char *pmu__sysfs_root(void);

/* sysfs type number of a PMU, or -ENOENT. */
int pmu__type(const char *pmu);
void pmu__detect(struct mem_pmu *m);
/* The CPUs a PMU covers (its "cpus" file; absent: all). set[PMU_MAX_CPUS]. */
int pmu__cpus(const char *pmu, bool *set, int *nr);

/* "0-3,8,10-11" into set[max]; -EINVAL on a malformed list or cpu >= max. */
int pmu__parse_cpulist(const char *s, bool *set, int max);

/*
 * One event by name: page-faults (faults), minor-faults, major-faults,
 * mem-loads, mem-stores (on the first core PMU that has them), ibs_op, or
 * PMU/term=value,.../modifiers with terms from the PMU's format/ directory,
 * event aliases from its events/ directory and config/config1/config2.
 * ldlat (Intel: default 30 when 0) goes where the PMU's ldlat term says.
 * An arm_spe_* PMU is an AUX-area trace (ev->aux), which the report
 * decodes into loads and stores (perfdata/spe.c).
 */
int pmu__parse_event(const char *spec, unsigned int ldlat, struct pmu_event *ev);

/*
 * The default memory events of this machine: Intel: per core PMU
 * [mem-loads-aux leader,] mem-loads (ldlat) and mem-stores; AMD: ibs_op.
 * Returns how many were filled (<= max), or a negative errno:
 * -ENODEV (no memory PMU). Arm: the SPE event perf c2c uses (loads and
 * stores, timestamps), an AUX-area trace.
 */
int pmu__memory_events(struct pmu_event *evs, int max, unsigned int ldlat, bool ldlat_given);

/* Probes shared by check and record. */
long pmu__paranoid(void);
uint64_t pmu__cap_eff(void);
bool pmu__cap_perfmon(void);
bool pmu__cap_sys_admin(void);

#endif
