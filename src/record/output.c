// SPDX-License-Identifier: GPL-2.0
/*
 * record: the output file. An old recording becomes FILE.old; some blocks
 * are held back so that a full disk still leaves a readable file; the
 * features are this machine's (perf's CPUID, topology, cache line); what
 * ran before the recording is synthesized (synth.c) through the tracking
 * event's attr; the summary and warnings go to the caller (record_msg).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include "record/buildcache.h"
#include "record/record_int.h"
#include "util/util.h"

#ifndef C2CSCAN_VERSION
#define C2CSCAN_VERSION "0.0.0"
#endif

/*
 * A full disk must still leave a readable file: the features and header
 * are written after the data. An unlinked file in the same directory holds
 * some blocks until a write fails; closing it then gives them back.
 */
#define RESERVE_BYTES (256 << 10)

static int emit_record(void *ctx, const void *rec, size_t size)
{
	struct recorder *rc = ctx;

	if (!rc->werr)
		rc->werr = pd_writer__write(rc->w, rec, size);
	buildids__note(rc->bids, rec, rec);
	return rc->werr;
}

static void read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int read_int(const char *path, int dflt)
{
	char buf[32], *end;
	long v;

	read_text(path, buf, sizeof(buf));
	v = strtol(buf, &end, 10);
	return end == buf ? dflt : (int)v;
}

/* CPUDESC and CPUID as perf writes them (x86: "GenuineIntel,6,85,7"). */
static void set_cpu_strings(struct pd_writer *w)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], vendor[64] = "", model_name[256] = "", midr[64];
	int family = -1, model = -1, stepping = -1;

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		if (line[0] == '\n')
			break;          /* the first CPU is enough */
		v = colon + 1 + (colon[1] == ' ');
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			family = atoi(v);
		else if (!strncmp(line, "model name", 10))
			snprintf(model_name, sizeof(model_name), "%s", v);
		else if (!strncmp(line, "model", 5) && line[5] != ' ')
			model = atoi(v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "stepping", 8))
			stepping = atoi(v);
	}
	if (f)
		fclose(f);
	if (model_name[0])
		pd_writer__set_string(w, PD_FEAT_CPUDESC, model_name);
	if (vendor[0] && family >= 0) {
		snprintf(line, sizeof(line), "%s,%d,%d,%d", vendor, family, model, stepping);
		pd_writer__set_string(w, PD_FEAT_CPUID, line);
	} else {
		read_text("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr, sizeof(midr));
		if (midr[0])
			pd_writer__set_string(w, PD_FEAT_CPUID, midr);
	}
}

void recorder__set_features(struct pd_writer *w, int argc, char **argv)
{
	struct utsname u;
	char host[256], path[128];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), online = sysconf(_SC_NPROCESSORS_ONLN);
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int32_t *node, *core, *socket;
	char **cmd = xcalloc(argc + 2, sizeof(*cmd));
	FILE *f;

	if (ncpu < 1)
		ncpu = 1;
	if (!uname(&u)) {
		pd_writer__set_string(w, PD_FEAT_OSRELEASE, u.release);
		pd_writer__set_string(w, PD_FEAT_ARCH, u.machine);
	}
	if (!gethostname(host, sizeof(host)))
		pd_writer__set_string(w, PD_FEAT_HOSTNAME, host);
	pd_writer__set_string(w, PD_FEAT_VERSION, "c2cscan " C2CSCAN_VERSION);
	pd_writer__set_nrcpus(w, (uint32_t)ncpu, (uint32_t)(online > 0 ? online : ncpu));
	/* perf's CMDLINE starts with the tool's own name */
	cmd[0] = (char *)"c2cscan";
	for (int i = 0; i < argc; i++)
		cmd[i + 1] = argv[i];
	pd_writer__set_cmdline(w, argc + 1, (const char *const *)cmd);
	free(cmd);
	if (line <= 0)
		line = read_int("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64);
	pd_writer__set_cacheline(w, (uint32_t)(line > 0 ? line : 64));
	set_cpu_strings(w);

	node = xcalloc(ncpu, sizeof(*node));
	core = xcalloc(ncpu, sizeof(*core));
	socket = xcalloc(ncpu, sizeof(*socket));
	for (long c = 0; c < ncpu; c++) {
		node[c] = 0;
		for (int n = 0; n < 1024; n++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/node%d", c, n);
			if (!access(path, F_OK)) {
				node[c] = n;
				break;
			}
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/core_id", c);
		core[c] = read_int(path, (int)c);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id", c);
		socket[c] = read_int(path, 0);
	}
	pd_writer__set_topology(w, (uint32_t)ncpu, node, core, socket);
	free(node);
	free(core);
	free(socket);
	f = fopen("/proc/meminfo", "r");
	if (f) {
		unsigned long long kb;

		if (fscanf(f, "MemTotal: %llu kB", &kb) == 1)
			pd_writer__set_total_mem(w, kb);
		fclose(f);
	}
}

static int reserve_space(const char *out)
{
	char dir[4096], *slash;
	struct statvfs st;
	uint64_t size;
	int fd;

	snprintf(dir, sizeof(dir), "%s", out);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (statvfs(dir, &st) < 0)
		return -1;
	/* a small file system: an eighth of what is free (the features take a few KiB) */
	size = (uint64_t)st.f_bavail * st.f_frsize / 8;
	if (size > RESERVE_BYTES)
		size = RESERVE_BYTES;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (size < 4096 || posix_fallocate(fd, 0, (off_t)size)) {
		close(fd);
		return -1;
	}
	return fd;
}

void recorder__release_space(struct recorder *rc)
{
	if (rc->reserve_fd >= 0)
		close(rc->reserve_fd);
	rc->reserve_fd = -1;
}

/* The output file; perf's convention: keep the previous recording as FILE.old. */
int recorder__open_output(struct recorder *rc)
{
	int ret;
	struct stat st;

	/* a previous recording, not a device or a pipe: as root, -o /dev/null
	 * moved /dev/null away and put a regular file in its place */
	snprintf(rc->old, sizeof(rc->old), "%s.old", rc->o.out);
	if (!stat(rc->o.out, &st) && S_ISREG(st.st_mode) && st.st_size && !rename(rc->o.out, rc->old))
		rc->moved_old = true;
	ret = pd_writer__open(&rc->w, rc->o.out);
	if (ret < 0) {
		say(rc, (struct record_msg){ .kind = RM_OUTPUT, .err = ret, .s = { rc->o.out } });
		return 1;
	}
	rc->tmp = xmalloc(1 << 16);
	rc->bids = buildids__new();
	rc->reserve_fd = reserve_space(rc->o.out);
	return 0;
}

/* Kernel map always; processes for -p/-t (mode 1) and -a/-C (mode 2). */
int recorder__synthesize(struct recorder *rc, const pid_t *tids, int nr_tids, int mode)
{
	struct synth s;
	struct rec_evsel *t = &rc->ev[0];
	double t0 = now_s();
	int ret;

	for (int i = 0; i < rc->nr_ev; i++)
		if (rc->ev[i].tracking)
			t = &rc->ev[i];
	synth__init(&s, &t->attr, t->nr_ids ? t->ids[0] : 0, rc->o.synth, emit_record, rc);
	ret = synth__kernel(&s);
	if (ret || !mode) {
		synth__exit(&s);
		return ret;
	}
	if (mode == 2) {
		/* one thread: measured on a 2-CPU VM, a second one did not help
		 * (the ioctl and /proc reads are syscall-bound), see bench-synth */
		ret = synth__all(&s, 1);
	} else if (rc->o.pids) {
		for (int i = 0; i < rc->nr_procs && !ret; i++)
			ret = synth__process(&s, rc->procs[i]);
	}
	for (int i = 0; i < nr_tids && !ret && rc->o.nr_tids && mode == 1; i++) {
		int tgid = synth__tgid(tids[i]);

		if (tgid > 0)
			ret = synth__thread(&s, tgid, tids[i]);
	}
	if (ret == -ESRCH)
		ret = 0;        /* it exited meanwhile: the recording will say so */
	say(rc, (struct record_msg){ .kind = RM_SYNTHESIZED, .n = { s.nr_procs, s.nr_threads, s.nr_maps },
				     .s = { synth__method_name(s.method) }, .x = (now_s() - t0) * 1e3 });
	synth__exit(&s);
	return ret;
}

void recorder__summary(const struct recorder *rc)
{
	uint64_t size = pd_writer__data_size(rc->w);
	const char *names[RECORD_MAX_EVENTS + 1 + PROBES_MAX];
	struct stat st;
	int n = 0;

	for (int i = 0; i < rc->nr_ev; i++) {
		if (rc->ev[i].pe.aux_leader || rc->ev[i].pe.regs_user ||
		    (rc->ev[i].tracking && rc->ev[i].pe.config == PERF_COUNT_SW_DUMMY &&
		     rc->ev[i].pe.type == PERF_TYPE_SOFTWARE))
			continue;
		names[n++] = rc->ev[i].pe.name;
	}
	/* the whole file, the allocation section and features included */
	if (strcmp(rc->o.out, "-") && !stat(rc->o.out, &st) && S_ISREG(st.st_mode))
		size = (uint64_t)st.st_size;
	say(rc, (struct record_msg){ .kind = RM_SUMMARY, .n = { rc->samples, rc->probes ? (uint64_t)rc->probes->nr : 0,
							 rc->emu != NULL, rc->aux_bytes }, .names = names, .nr_names = n,
				     .s = { rc->o.out }, .x = size / 1048576.0 });
}

void recorder__warnings(const struct recorder *rc)
{
	if (rc->lost || rc->lost_samples)
		say(rc, (struct record_msg){ .kind = RM_LOST, .n = { rc->lost + rc->lost_samples } });
	if (rc->throttled)
		say(rc, (struct record_msg){ .kind = RM_THROTTLED, .n = { rc->throttled } });
	for (int i = 0; i < rc->nr_ev; i++)
		if (rc->ev[i].fell_back_user)
			say(rc, (struct record_msg){ .kind = RM_USER_ONLY, .s = { rc->ev[i].pe.name },
						     .n = { (uint64_t)pmu__paranoid() } });
}

int recorder__aux_info(struct recorder *rc)
{
	const struct rec_evsel *e = NULL;
	const struct rec_buf *b = NULL;
	struct pd_time_conv tc;
	uint8_t buf[128];
	ssize_t n;
	int err;

	for (int i = 0; i < rc->nr_ev && !e; i++)
		if (rc->ev[i].pe.aux)
			e = &rc->ev[i];
	for (int i = 0; i < rc->nr_bufs && !b; i++)
		if (rc->bufs[i].has_aux)
			b = &rc->bufs[i];
	if (!e || !b)
		return 0;
	/* the trace's timestamps are the generic timer's: the clock the
	 * kernel converts it with, from a buffer's page */
	aux_ring__time_conv(b->base, &tc);
	n = pd_fmt_time_conv(buf, sizeof(buf), &tc);
	err = n < 0 ? (int)n : pd_writer__write(rc->w, buf, (size_t)n);
	if (err)
		return err;
	/* every buffer is a CPU's: events follow tasks on each CPU */
	n = pd_fmt_auxtrace_info_spe(buf, sizeof(buf), e->attr.type, true);
	return n < 0 ? (int)n : pd_writer__write(rc->w, buf, (size_t)n);
}
