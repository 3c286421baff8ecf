// SPDX-License-Identifier: GPL-2.0
/*
 * Map synthesis: PROCMAP_QUERY and /proc/PID/maps text give byte-identical
 * records for a live process holding private, shared-file, anonymous
 * shared, deleted-file and memfd mappings, and those mappings come out with
 * the prot/flags/identity the keying rule needs. Also the sysfs PMU term
 * parser on a fake sysfs tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "record/pmu.h"
#include "record/synth.h"

struct sink {
	uint8_t *buf;
	size_t len, alloc;
	unsigned int nr;
};

static int sink_emit(void *ctx, const void *rec, size_t size)
{
	struct sink *s = ctx;

	if (s->len + size > s->alloc) {
		s->alloc = (s->len + size) * 2;
		s->buf = realloc(s->buf, s->alloc);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, rec, size);
	s->len += size;
	s->nr++;
	return 0;
}

struct want {
	uint64_t addr;
	const char *name_prefix;
	uint32_t flags;
	bool has_ino;
	bool found;
	struct synth_map got;
	char got_name[256];
};

static int find_maps(const struct synth_map *m, void *arg)
{
	struct want *w = arg;

	for (; w->addr; w++) {
		if (w->addr >= m->start && w->addr < m->end) {
			w->found = true;
			w->got = *m;
			snprintf(w->got_name, sizeof(w->got_name), "%s", m->name);
		}
	}
	return 0;
}

/* A child holding every kind of mapping; it sleeps until killed. */
static pid_t spawn(const char *dir, void **addrs)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char path[256];
		int fd, mfd;
		void *a[6];

		close(p[0]);
		snprintf(path, sizeof(path), "%s/file", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 4 * 4096))
			_exit(1);
		a[0] = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);         /* private file */
		a[1] = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);  /* shared file */
		a[2] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		close(fd);
		snprintf(path, sizeof(path), "%s/deleted", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 4096))
			_exit(1);
		a[3] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		unlink(path);
		mfd = memfd_create("c2c-test", 0);
		if (mfd < 0 || ftruncate(mfd, 4096))
			_exit(1);
		a[4] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		a[5] = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (write(p[1], a, sizeof(a)) != sizeof(a))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], addrs, 6 * sizeof(void *)) != (ssize_t)(6 * sizeof(void *))) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

static void synth_records(pid_t pid, enum synth_method m, struct sink *out)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
	};
	struct synth s;

	memset(out, 0, sizeof(*out));
	CHECK(synth__init(&s, &attr, 42, m, sink_emit, out) == 0);
	CHECK(s.method == m);
	CHECK(synth__process(&s, pid) == 0);
	CHECK(s.nr_maps > 5);
	CHECK(s.nr_threads >= 1);    /* 1, or more under TSan (its own thread) */
	synth__exit(&s);
}

static void test_methods_agree(void)
{
	char dir[] = "/tmp/c2c-synth.XXXXXX";
	void *a[6];
	pid_t pid;
	struct want w[] = {
		{ .name_prefix = "/tmp/c2c-synth", .flags = MAP_PRIVATE, .has_ino = true },
		{ .name_prefix = "/tmp/c2c-synth", .flags = MAP_SHARED, .has_ino = true },
		{ .name_prefix = "/dev/zero", .flags = MAP_SHARED, .has_ino = true },
		{ .name_prefix = "/tmp/c2c-synth", .flags = MAP_SHARED, .has_ino = true },
		{ .name_prefix = "/memfd:c2c-test", .flags = MAP_SHARED, .has_ino = true },
		{ .name_prefix = "//anon", .flags = MAP_PRIVATE, .has_ino = false },
		{ 0 },
	};
	struct sink q, t;
	int probe = synth__query_probe();

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	pid = spawn(dir, a);
	CHECK(pid > 0);
	if (pid <= 0)
		goto out;
	for (int i = 0; i < 6; i++)
		w[i].addr = (uint64_t)(uintptr_t)a[i];

	/* the text parser sees each mapping as the keying rule needs it */
	CHECK(synth__maps(pid, SYNTH_TEXT, find_maps, w) == 0);
	for (int i = 0; i < 6; i++) {
		CHECK(w[i].found);
		CHECK(!strncmp(w[i].got_name, w[i].name_prefix, strlen(w[i].name_prefix)));
		CHECK_EQ_U64(w[i].got.flags, w[i].flags);
		CHECK(!w[i].has_ino || w[i].got.ino);
	}
	CHECK_EQ_U64(w[0].got.pgoff, 4096);
	CHECK_EQ_U64(w[0].got.prot, PROT_READ);
	CHECK_EQ_U64(w[5].got.prot, PROT_READ | PROT_WRITE | PROT_EXEC);
	CHECK(strstr(w[3].got_name, "(deleted)") != NULL);
	CHECK(w[0].got.ino == w[1].got.ino && w[0].got.maj == w[1].got.maj);

	synth_records(pid, SYNTH_TEXT, &t);
	/* all of /proc, two threads: the child's records come out whole and in order */
	{
		struct perf_event_attr attr = {
			.size = sizeof(attr), .sample_id_all = 1,
			.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		};
		struct synth s;
		struct sink all = { 0 };

		synth__init(&s, &attr, 42, SYNTH_TEXT, sink_emit, &all);
		CHECK(synth__all(&s, 2) == 0);
		CHECK(s.nr_procs >= 2);
		CHECK(all.nr > t.nr);
		CHECK(memmem(all.buf, all.len, t.buf, t.len) != NULL);
		synth__exit(&s);
		free(all.buf);
	}
	if (probe) {
		printf("PROCMAP_QUERY not available (%s): text parsing checked alone\n", strerror(-probe));
	} else {
		struct want w2[7];

		memcpy(w2, w, sizeof(w2));
		for (int i = 0; i < 6; i++)
			w2[i].found = false;
		CHECK(synth__maps(pid, SYNTH_QUERY, find_maps, w2) == 0);
		for (int i = 0; i < 6; i++) {
			CHECK(w2[i].found);
			CHECK_STR(w2[i].got_name, w[i].got_name);
			CHECK_EQ_U64(w2[i].got.ino, w[i].got.ino);
			CHECK_EQ_U64(w2[i].got.pgoff, w[i].got.pgoff);
			CHECK_EQ_U64(w2[i].got.prot, w[i].got.prot);
			CHECK_EQ_U64(w2[i].got.flags, w[i].got.flags);
			CHECK_EQ_U64(w2[i].got.maj, w[i].got.maj);
			CHECK_EQ_U64(w2[i].got.min, w[i].got.min);
		}
		synth_records(pid, SYNTH_QUERY, &q);
		CHECK_EQ_U64(q.nr, t.nr);
		CHECK_EQ_U64(q.len, t.len);
		CHECK(q.len == t.len && !memcmp(q.buf, t.buf, q.len));
		if (q.len != t.len || memcmp(q.buf, t.buf, q.len < t.len ? q.len : t.len)) {
			for (size_t off = 0; off < q.len && off < t.len; off++) {
				if (q.buf[off] != t.buf[off]) {
					fprintf(stderr, "records differ at byte %zu\n", off);
					break;
				}
			}
		}
		free(q.buf);
	}
	free(t.buf);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* a process that is gone */
	{
		struct perf_event_attr attr = { .size = sizeof(attr) };
		struct synth s;
		struct sink n = { 0 };

		synth__init(&s, &attr, 0, SYNTH_TEXT, sink_emit, &n);
		CHECK(synth__process(&s, pid) == -ESRCH);
		synth__exit(&s);
		free(n.buf);
	}
	CHECK(synth__tgid(getpid()) == getpid());
out:
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/file", dir);
		unlink(path);
		rmdir(dir);
	}
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void test_pmu_terms(void)
{
	char root[] = "/tmp/c2c-pmu.XXXXXX";
	struct pmu_event ev[8];
	struct mem_pmu m;
	bool cpus[PMU_MAX_CPUS];
	char cmd[600];
	int n;

	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		return;
	}
	/* a hybrid Intel machine, as its sysfs says */
	put(root, "cpu_core/type", "4\n");
	put(root, "cpu_core/cpus", "0-3\n");
	put(root, "cpu_core/format/event", "config:0-7\n");
	put(root, "cpu_core/format/umask", "config:8-15\n");
	put(root, "cpu_core/format/ldlat", "config1:0-15\n");
	put(root, "cpu_core/format/frontend", "config1:0-23\n");
	put(root, "cpu_core/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put(root, "cpu_core/events/mem-stores", "event=0xd0,umask=0x82\n");
	put(root, "cpu_core/events/mem-loads-aux", "event=0x03,umask=0x82\n");
	put(root, "cpu_atom/type", "10\n");
	put(root, "cpu_atom/cpus", "4-7\n");
	put(root, "cpu_atom/format/event", "config:0-7\n");
	put(root, "cpu_atom/format/umask", "config:8-15\n");
	put(root, "cpu_atom/format/ldlat", "config1:0-15\n");
	put(root, "cpu_atom/events/mem-loads", "event=0xd0,umask=0x5,ldlat=3\n");
	put(root, "cpu_atom/events/mem-stores", "event=0xd0,umask=0x6\n");
	put(root, "odd/type", "99\n");
	put(root, "odd/format/split", "config:0-3,32-35\n");
	pmu__set_sysfs_root(root);

	pmu__detect(&m);
	CHECK(m.vendor == PMU_INTEL);
	CHECK(m.nr_core == 2);
	CHECK(m.has_aux[0] && !m.has_aux[1]);
	n = pmu__memory_events(ev, 8, 0, false);
	CHECK(n == 5);
	if (n == 5) {
		CHECK(ev[0].aux_leader && !ev[0].memory);
		CHECK_EQ_U64(ev[0].config, 0x8203);
		CHECK_EQ_U64(ev[1].type, 4);
		CHECK_EQ_U64(ev[1].config, 0x1cd);
		CHECK_EQ_U64(ev[1].config1, 30);  /* ldlat=30 overrides the alias's 3 */
		CHECK(ev[1].memory && ev[1].precise == 3);
		CHECK_STR(ev[1].name, "cpu_core/mem-loads,ldlat=30/P");
		CHECK_EQ_U64(ev[2].config, 0x82d0);
		CHECK_EQ_U64(ev[3].type, 10);
		CHECK_STR(ev[4].pmu, "cpu_atom");
	}
	CHECK(pmu__cpus("cpu_atom", cpus, &n) == 0);
	CHECK(cpus[4] && cpus[7] && !cpus[3]);
	CHECK(pmu__parse_event("cpu_core/event=0x3c,umask=1/u", 0, &ev[0]) == 0);
	CHECK_EQ_U64(ev[0].config, 0x13c);
	CHECK(ev[0].exclude_kernel && !ev[0].memory);
	CHECK(pmu__parse_event("odd/split=0xab/", 0, &ev[0]) == 0);
	CHECK_EQ_U64(ev[0].config, 0xb | (0xaULL << 32));
	CHECK(pmu__parse_event("odd/split=0x100/", 0, &ev[0]) == -EINVAL);
	CHECK(pmu__parse_event("odd/nosuch=1/", 0, &ev[0]) == -ENOENT);
	CHECK(pmu__parse_event("nopmu/event=1/", 0, &ev[0]) == -ENODEV);
	CHECK(pmu__parse_event("page-faults:u", 0, &ev[0]) == 0);
	CHECK(ev[0].type == PERF_TYPE_SOFTWARE && ev[0].exclude_kernel);
	CHECK(pmu__parse_event("bogus", 0, &ev[0]) == -EINVAL);
	memset(cpus, 0, sizeof(cpus));
	CHECK(pmu__parse_cpulist("0-2,5", cpus, 8) == 0 && cpus[5] && !cpus[4]);
	CHECK(pmu__parse_cpulist("3-1", cpus, 8) == -EINVAL);
	CHECK(pmu__parse_cpulist("9", cpus, 8) == -EINVAL);

	/* AMD IBS with the ldlat capability */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/cpu_core %s/cpu_atom", root, root);
	CHECK(system(cmd) == 0);
	put(root, "ibs_op/type", "11\n");
	put(root, "ibs_op/caps/ldlat", "1\n");
	put(root, "ibs_op/format/ldlat", "config1:0-11\n");
	pmu__detect(&m);
	CHECK(m.vendor == PMU_AMD_IBS && m.ibs_ldlat);
	n = pmu__memory_events(ev, 8, 256, true);
	CHECK(n == 1 && ev[0].type == 11 && ev[0].config1 == 256 && ev[0].memory);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/ibs_op", root);
	CHECK(system(cmd) == 0);
	/* Arm SPE as a Neoverse N1's sysfs says it (its format files) */
	put(root, "arm_spe_0/type", "12\n");
	put(root, "arm_spe_0/format/ts_enable", "config:0\n");
	put(root, "arm_spe_0/format/pa_enable", "config:1\n");
	put(root, "arm_spe_0/format/pct_enable", "config:2\n");
	put(root, "arm_spe_0/format/jitter", "config:16\n");
	put(root, "arm_spe_0/format/branch_filter", "config:32\n");
	put(root, "arm_spe_0/format/load_filter", "config:33\n");
	put(root, "arm_spe_0/format/store_filter", "config:34\n");
	put(root, "arm_spe_0/format/event_filter", "config1:0-63\n");
	put(root, "arm_spe_0/format/min_latency", "config2:0-11\n");
	put(root, "arm_spe_0/caps/min_interval", "256\n");
	pmu__detect(&m);
	CHECK(m.vendor == PMU_ARM_SPE);
	CHECK(pmu__memory_events(ev, 8, 40, true) == 1);
	CHECK(ev[0].aux && !ev[0].memory && ev[0].type == 12);
	/* ts, loads, stores (pa_enable only with the privilege to see them) */
	CHECK_EQ_U64(ev[0].config & ~2ULL, 1 | 1ULL << 33 | 1ULL << 34);
	CHECK_EQ_U64(ev[0].config2, 40);
	CHECK(ev[0].has_period && ev[0].period == 256);
	CHECK(pmu__parse_event("arm_spe", 0, &ev[0]) == 0);
	CHECK(ev[0].aux && ev[0].config2 == 30);
	CHECK(pmu__parse_event("arm_spe_0/load_filter=1,period=4096/", 0, &ev[0]) == 0);
	CHECK(ev[0].aux && ev[0].config == 1ULL << 33 && ev[0].period == 4096);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/arm_spe_0", root);
	CHECK(system(cmd) == 0);
	pmu__detect(&m);
	CHECK(m.vendor == PMU_NONE);
	CHECK(pmu__memory_events(ev, 8, 0, false) == -ENODEV);

	pmu__set_sysfs_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	test_methods_agree();
	test_pmu_terms();
	return test_done("test_synth");
}
