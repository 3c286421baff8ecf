// SPDX-License-Identifier: GPL-2.0
/*
 * Memory PMUs from sysfs. A PMU directory holds "type" (the attr.type to
 * use), format/TERM files ("config:0-7", "config1:0-15", "config:0-7,32-35":
 * where a term's value bits go) and events/NAME files ("event=0xcd,umask=0x1,
 * ldlat=3": terms of an alias). The layout is the kernel's sysfs ABI
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-*).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/allocrec.h"
#include "record/pmu.h"
#include "util/util.h"

static const char *sysfs_root = "/sys/bus/event_source/devices";

const char *pmu__sysfs_root(void)
{
	return sysfs_root;
}

void pmu__set_sysfs_root(const char *root)
{
	sysfs_root = root ? root : "/sys/bus/event_source/devices";
}

/* Reads a small sysfs file, without its trailing newline. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return 0;
}

static int pmu_file(const char *pmu, const char *file, char *buf, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", sysfs_root, pmu, file);
	return read_small(path, buf, size);
}

static bool pmu_has(const char *pmu, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", sysfs_root, pmu, file);
	return access(path, F_OK) == 0;
}

int pmu__type(const char *pmu)
{
	char buf[32], *end;
	long t;

	if (pmu_file(pmu, "type", buf, sizeof(buf)))
		return -ENOENT;
	t = strtol(buf, &end, 10);
	if (end == buf || *end || t < 0 || t > INT32_MAX)
		return -EINVAL;
	return (int)t;
}

int pmu__parse_cpulist(const char *s, bool *set, int max)
{
	const char *p = s;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -EINVAL;
			p = end;
		}
		if (b >= max)
			return -EINVAL;
		for (long c = a; c <= b; c++)
			set[c] = true;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
		else
			break;
	}
	return 0;
}

int pmu__cpus(const char *pmu, bool *set, int *nr)
{
	char buf[4096];
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	memset(set, 0, PMU_MAX_CPUS * sizeof(*set));
	*nr = n > 0 && n < PMU_MAX_CPUS ? (int)n : 1;
	if (pmu && *pmu && !pmu_file(pmu, "cpus", buf, sizeof(buf))) {
		err = pmu__parse_cpulist(buf, set, PMU_MAX_CPUS);
		return err;
	}
	for (int c = 0; c < *nr; c++)
		set[c] = true;
	return 0;
}

/* Puts value into the bits a format file names; -EINVAL when it does not fit. */
static int apply_format(const char *fmt, uint64_t value, struct pmu_event *ev)
{
	uint64_t *field;
	const char *p;
	int used = 0;

	if (!strncmp(fmt, "config2:", 8))
		field = &ev->config2, p = fmt + 8;
	else if (!strncmp(fmt, "config1:", 8))
		field = &ev->config1, p = fmt + 8;
	else if (!strncmp(fmt, "config:", 7))
		field = &ev->config, p = fmt + 7;
	else
		return -EINVAL;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -EINVAL;
			p = end;
		}
		for (long b = lo; b <= hi; b++, used++)
			if (used < 64 && (value >> used) & 1)
				*field |= 1ULL << b;
			else
				*field &= ~(1ULL << b);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	if (used < 64 && value >> used)
		return -EINVAL;
	return 0;
}

static int apply_terms(const char *pmu, const char *terms, unsigned int depth, struct pmu_event *ev);

/* One "name[=value]" term: format term, event alias, or config*. */
static int apply_term(const char *pmu, const char *term, unsigned int depth, struct pmu_event *ev)
{
	char name[64], fmt[256], alias[512], file[96];
	const char *eq = strchr(term, '=');
	size_t len = eq ? (size_t)(eq - term) : strlen(term);
	uint64_t value = 1;

	if (!len || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, term, len);
	name[len] = 0;
	if (eq) {
		char *end;

		errno = 0;
		value = strtoull(eq + 1, &end, 0);
		if (end == eq + 1 || *end || errno)
			return -EINVAL;
	}
	if (!strcmp(name, "config"))
		return ev->config = value, 0;
	if (!strcmp(name, "config1"))
		return ev->config1 = value, 0;
	if (!strcmp(name, "config2"))
		return ev->config2 = value, 0;
	if (!strcmp(name, "period")) {
		ev->has_period = true;
		ev->period = value;
		return 0;
	}
	snprintf(file, sizeof(file), "format/%s", name);
	if (!pmu_file(pmu, file, fmt, sizeof(fmt)))
		return apply_format(fmt, value, ev);
	snprintf(file, sizeof(file), "events/%s", name);
	if (!eq && depth < 2 && !pmu_file(pmu, file, alias, sizeof(alias)))
		return apply_terms(pmu, alias, depth + 1, ev);
	return -ENOENT;
}

static int apply_terms(const char *pmu, const char *terms, unsigned int depth, struct pmu_event *ev)
{
	char buf[512], *save = NULL, *t;
	int err = 0;

	if (strlen(terms) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, terms);
	for (t = strtok_r(buf, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		if (*t)
			err = apply_term(pmu, t, depth, ev);
	}
	return err;
}

/* PMU/terms/modifiers */
static int parse_pmu_spec(const char *spec, unsigned int ldlat, struct pmu_event *ev)
{
	const char *s1 = strchr(spec, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	char pmu[32], terms[512];
	int type, err;

	if (!s1 || !s2 || s1 == spec || (size_t)(s1 - spec) >= sizeof(pmu) ||
	    (size_t)(s2 - s1 - 1) >= sizeof(terms))
		return -EINVAL;
	memcpy(pmu, spec, s1 - spec);
	pmu[s1 - spec] = 0;
	memcpy(terms, s1 + 1, s2 - s1 - 1);
	terms[s2 - s1 - 1] = 0;
	type = pmu__type(pmu);
	if (type < 0)
		return -ENODEV;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	ev->type = (uint32_t)type;
	err = apply_terms(pmu, terms, 0, ev);
	if (err)
		return err;
	for (const char *m = s2 + 1; *m; m++) {
		switch (*m) {
		case 'u':
			ev->exclude_kernel = true;
			break;
		case 'k':
			ev->exclude_user = true;
			break;
		case 'p':
			ev->precise++;
			break;
		case 'P':
			ev->precise = 3;
			break;
		case 'S':
			break;
		default:
			return -EINVAL;
		}
	}
	if (ev->precise > 3)
		ev->precise = 3;
	/* what makes a sample carry a data source */
	if (!strncmp(pmu, "arm_spe", 7)) {
		char v[32];

		/* its samples are its trace's records; one operation in the
		 * period is traced (-c, else the PMU's smallest interval) */
		ev->aux = true;
		if (!ev->has_period) {
			ev->has_period = true;
			ev->period = pmu_file(pmu, "caps/min_interval", v, sizeof(v)) ? 1024 : strtoull(v, NULL, 0);
			if (!ev->period)
				ev->period = 1024;
		}
	} else if (!strcmp(pmu, "ibs_op")) {
		ev->memory = true;
		ev->per_cpu_only = true;
	} else if (strstr(terms, "mem-loads") || strstr(terms, "mem-stores")) {
		ev->memory = true;
		ev->aux_leader = strstr(terms, "mem-loads-aux") != NULL;
		if (ev->aux_leader)
			ev->memory = false;
	}
	(void)ldlat;
	return 0;
}

/* perf c2c's SPE event: loads and stores, timestamps, physical addresses
 * where permitted, a latency floor (-l, default 30 cycles). */
static int spe_event(const char *pmu, unsigned int ldlat, struct pmu_event *ev)
{
	char spec[160];
	bool pa = pmu__cap_perfmon() || pmu__cap_sys_admin();

	snprintf(spec, sizeof(spec), "%s/ts_enable=1,%sload_filter=1,store_filter=1,min_latency=%u/", pmu,
		 pa ? "pa_enable=1," : "", ldlat ? ldlat : 30);
	return parse_pmu_spec(spec, ldlat, ev);
}

/* First Intel core PMU with events/NAME. */
static const char *core_pmu_with(const char *event)
{
	static const char *const cores[] = { "cpu", "cpu_core", "cpu_atom" };
	char file[64];

	snprintf(file, sizeof(file), "events/%s", event);
	for (size_t i = 0; i < ARRAY_SIZE(cores); i++)
		if (pmu_has(cores[i], file))
			return cores[i];
	return NULL;
}

static int intel_event(const char *pmu, const char *what, unsigned int ldlat, struct pmu_event *ev)
{
	char spec[96];

	if (!strcmp(what, "mem-loads"))
		snprintf(spec, sizeof(spec), "%s/mem-loads,ldlat=%u/P", pmu, ldlat ? ldlat : 30);
	else
		snprintf(spec, sizeof(spec), "%s/%s/P", pmu, what);
	return parse_pmu_spec(spec, ldlat, ev);
}

int pmu__parse_event(const char *spec, unsigned int ldlat, struct pmu_event *ev)
{
	static const struct { const char *name; uint64_t config; } sw[] = {
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	};
	const char *pmu;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < ARRAY_SIZE(sw); i++) {
		size_t n = strlen(sw[i].name);

		if (!strncmp(spec, sw[i].name, n) && (!spec[n] || spec[n] == ':')) {
			snprintf(ev->name, sizeof(ev->name), "%s", spec);
			ev->type = PERF_TYPE_SOFTWARE;
			ev->config = sw[i].config;
			for (const char *m = spec[n] ? spec + n + 1 : ""; *m; m++) {
				if (*m == 'u')
					ev->exclude_kernel = true;
				else if (*m == 'k')
					ev->exclude_user = true;
				else
					return -EINVAL;
			}
			return 0;
		}
	}
	if (!strcmp(spec, "mem-loads") || !strcmp(spec, "mem-stores")) {
		pmu = core_pmu_with(spec);
		if (!pmu)
			return -ENODEV;
		return intel_event(pmu, spec, ldlat, ev);
	}
	if (!strcmp(spec, "ibs_op") || !strcmp(spec, "ibs_op//")) {
		char s[64];

		if (ldlat)
			snprintf(s, sizeof(s), "ibs_op/ldlat=%u/", ldlat);
		else
			snprintf(s, sizeof(s), "ibs_op//");
		return parse_pmu_spec(s, ldlat, ev);
	}
	if (!strcmp(spec, "arm_spe") || !strcmp(spec, "arm_spe//")) {
		struct mem_pmu m;

		pmu__detect(&m);
		return m.spe[0] ? spe_event(m.spe, ldlat, ev) : -ENODEV;
	}
	if (strchr(spec, '/'))
		return parse_pmu_spec(spec, ldlat, ev);
	return -EINVAL;
}

static bool first_spe(char *name, size_t size)
{
	DIR *d = opendir(sysfs_root);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (!strncmp(de->d_name, "arm_spe", 7)) {
			snprintf(name, size, "%.*s", (int)size - 1, de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

void pmu__detect(struct mem_pmu *m)
{
	static const char *const cores[] = { "cpu", "cpu_core", "cpu_atom" };

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < ARRAY_SIZE(cores) && m->nr_core < 2; i++) {
		if (!pmu_has(cores[i], "events/mem-loads"))
			continue;
		snprintf(m->core[m->nr_core], sizeof(m->core[0]), "%s", cores[i]);
		m->has_aux[m->nr_core] = pmu_has(cores[i], "events/mem-loads-aux");
		m->has_stores[m->nr_core] = pmu_has(cores[i], "events/mem-stores");
		m->nr_core++;
	}
	if (m->nr_core) {
		m->vendor = PMU_INTEL;
		return;
	}
	if (pmu_has("ibs_op", "type")) {
		m->vendor = PMU_AMD_IBS;
		m->ibs_ldlat = pmu_has("ibs_op", "caps/ldlat") || pmu_has("ibs_op", "format/ldlat");
		return;
	}
	if (first_spe(m->spe, sizeof(m->spe)))
		m->vendor = PMU_ARM_SPE;
}

int pmu__memory_events(struct pmu_event *evs, int max, unsigned int ldlat, bool ldlat_given)
{
	struct mem_pmu m;
	int n = 0, err;

	pmu__detect(&m);
	switch (m.vendor) {
	case PMU_NONE:
		return -ENODEV;
	case PMU_ARM_SPE:
		if (max < 1)
			return -ENOSPC;
		err = spe_event(m.spe, ldlat, &evs[0]);
		return err ? err : 1;
	case PMU_AMD_IBS:
		if (max < 1)
			return -ENOSPC;
		/* AMD's ldlat filter has its own range (128..2048): only on request */
		err = pmu__parse_event("ibs_op", ldlat_given && m.ibs_ldlat ? ldlat : 0, &evs[0]);
		return err ? err : 1;
	case PMU_INTEL:
		break;
	}
	for (int i = 0; i < m.nr_core; i++) {
		if (n + 3 > max)
			return -ENOSPC;
		if (m.has_aux[i]) {
			err = intel_event(m.core[i], "mem-loads-aux", 0, &evs[n]);
			if (err)
				return err;
			n++;
		}
		err = intel_event(m.core[i], "mem-loads", ldlat, &evs[n]);
		if (err)
			return err;
		n++;
		if (m.has_stores[i]) {
			err = intel_event(m.core[i], "mem-stores", 0, &evs[n]);
			if (err)
				return err;
			n++;
		}
	}
	return n;
}

long pmu__paranoid(void)
{
	char buf[32];

	if (read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return 2;
	return strtol(buf, NULL, 10);
}

uint64_t pmu__cap_eff(void)
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

bool pmu__cap_perfmon(void)
{
	return pmu__cap_eff() & (1ULL << 38);
}

bool pmu__cap_sys_admin(void)
{
	return pmu__cap_eff() & (1ULL << 21);
}
