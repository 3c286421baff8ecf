// SPDX-License-Identifier: GPL-2.0
/*
 * Synthesis of side-band records for processes that were running before
 * the recording started: the kernel only reports mmaps, comms and forks
 * that happen while an event is enabled.
 *
 * Maps come from the PROCMAP_QUERY ioctl (fs/proc/task_mmu.c, Linux 6.11)
 * when it works: one ioctl per mapping, no text to format and parse. Else
 * the text of /proc/PID/maps ("start-end rwxp offset maj:min inode name").
 * Both use the kernel's get_vma_name(), so names agree, with two text
 * quirks undone here: "[vsyscall]" (the gate area, not a VMA of the mm, which
 * the ioctl does not return) is skipped, and "\012" is how the text escapes a
 * newline in a file name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record/procmap.h"
#include "record/synth.h"
#include "util/util.h"
#include "perfdata/writer.h"

#define SYNTH_NAME_MAX 4096
#define SYNTH_REC_MAX (SYNTH_NAME_MAX + 256)

const char *synth__method_name(enum synth_method m)
{
	switch (m) {
	case SYNTH_QUERY:
		return "PROCMAP_QUERY";
	case SYNTH_TEXT:
		return "/proc/PID/maps text";
	default:
		return "auto";
	}
}

int synth__query_probe(void)
{
	struct c2c_procmap_query q = {
		.size = sizeof(q), .query_flags = C2C_PMQ_COVERING_OR_NEXT,
	};
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, C2C_PROCMAP_QUERY, &q) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int open_maps(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void fill_prot(struct synth_map *m, bool r, bool w, bool x, bool shared)
{
	m->prot = (r ? PROT_READ : 0) | (w ? PROT_WRITE : 0) | (x ? PROT_EXEC : 0);
	m->flags = shared ? MAP_SHARED : MAP_PRIVATE;
}

/* Anonymous memory the kernel's MMAP2 calls "//anon" (perf_event_mmap_event). */
static const char *kernel_name(const char *name)
{
	if (!*name || !strncmp(name, "[anon:", 6))
		return "//anon";
	return name;
}

static int maps_query(int fd, synth_map_fn fn, void *arg)
{
	char *name = xmalloc(SYNTH_NAME_MAX);
	struct c2c_procmap_query q;
	uint64_t addr = 0;
	int ret = 0;

	for (;;) {
		struct synth_map m;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = C2C_PMQ_COVERING_OR_NEXT;
		q.query_addr = addr;
		q.vma_name_addr = (uintptr_t)name;
		q.vma_name_size = SYNTH_NAME_MAX;
		if (ioctl(fd, C2C_PROCMAP_QUERY, &q) < 0) {
			ret = errno == ENOENT ? 0 : -errno;
			break;
		}
		if (!q.vma_name_size || q.vma_name_size > SYNTH_NAME_MAX)
			name[0] = 0;
		else
			name[q.vma_name_size - 1] = 0;
		m.start = q.vma_start;
		m.end = q.vma_end;
		m.pgoff = q.vma_offset;
		m.ino = q.inode;
		m.maj = q.dev_major;
		m.min = q.dev_minor;
		fill_prot(&m, q.vma_flags & C2C_PMQ_READABLE, q.vma_flags & C2C_PMQ_WRITABLE,
			  q.vma_flags & C2C_PMQ_EXECUTABLE, q.vma_flags & C2C_PMQ_SHARED);
		m.name = kernel_name(name);
		ret = fn(&m, arg);
		if (ret)
			break;
		if (q.vma_end <= addr)
			break;          /* no progress: never loop forever */
		addr = q.vma_end;
	}
	free(name);
	return ret;
}

static bool hex(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;

	for (;; p++, n++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n >= 16)
			return false;
		x = x << 4 | d;
	}
	*pp = p;
	*v = x;
	return n > 0;
}

static bool dec(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		x = x * 10 + (uint64_t)(*p++ - '0');
	*pp = p;
	*v = x;
	return true;
}

/* Undoes seq_file's escaping of '\n' as "\012" in paths. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == '0' && s[2] == '1' && s[3] == '2') {
			*d++ = '\n';
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* One line, NUL-terminated, without its newline. */
static int parse_line(char *line, struct synth_map *m)
{
	const char *p = line;
	uint64_t maj, min;
	char perm[4];

	if (!hex(&p, &m->start) || *p++ != '-' || !hex(&p, &m->end) || *p++ != ' ')
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		if (!*p)
			return -EINVAL;
		perm[i] = *p++;
	}
	if (*p++ != ' ' || !hex(&p, &m->pgoff) || *p++ != ' ' || !hex(&p, &maj) || *p++ != ':' ||
	    !hex(&p, &min) || *p++ != ' ' || !dec(&p, &m->ino))
		return -EINVAL;
	while (*p == ' ')
		p++;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	fill_prot(m, perm[0] == 'r', perm[1] == 'w', perm[2] == 'x', perm[3] == 's');
	unescape((char *)p);
	m->name = kernel_name(p);
	return 0;
}

static int read_all(int fd, char **buf, size_t *alloc, size_t *len)
{
	*len = 0;
	for (;;) {
		ssize_t n;

		if (*alloc - *len < 4096)
			xgrow((void **)buf, alloc, *len + 8192, 1);
		n = read(fd, *buf + *len, *alloc - *len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = 0;
	return 0;
}

static int maps_text(int fd, char **buf, size_t *alloc, synth_map_fn fn, void *arg)
{
	size_t len;
	char *line, *nl;
	int ret = read_all(fd, buf, alloc, &len);

	if (ret)
		return ret;
	for (line = *buf; line < *buf + len; line = nl + 1) {
		struct synth_map m;

		nl = strchr(line, '\n');
		if (!nl)
			nl = *buf + len;
		*nl = 0;
		if (parse_line(line, &m))
			continue;
		/* the gate area: not a VMA of the process (the ioctl skips it too) */
		if (!strcmp(m.name, "[vsyscall]"))
			continue;
		ret = fn(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int synth_maps_buf(pid_t pid, enum synth_method method, char **buf, size_t *alloc,
			  synth_map_fn fn, void *arg)
{
	int fd = open_maps(pid), ret;

	if (fd < 0)
		return fd;
	if (method == SYNTH_AUTO)
		method = synth__query_probe() ? SYNTH_TEXT : SYNTH_QUERY;
	if (method == SYNTH_QUERY)
		ret = maps_query(fd, fn, arg);
	else
		ret = maps_text(fd, buf, alloc, fn, arg);
	close(fd);
	return ret;
}

int synth__maps(pid_t pid, enum synth_method method, synth_map_fn fn, void *arg)
{
	char *buf = NULL;
	size_t alloc = 0;
	int ret = synth_maps_buf(pid, method, &buf, &alloc, fn, arg);

	free(buf);
	return ret;
}

/* ---- records --------------------------------------------------------------- */

int synth__init(struct synth *s, const struct perf_event_attr *attr, uint64_t id,
		enum synth_method method, int (*emit)(void *ctx, const void *rec, size_t size), void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->attr = *attr;
	s->id = id;
	if (method == SYNTH_AUTO)
		method = synth__query_probe() ? SYNTH_TEXT : SYNTH_QUERY;
	s->method = method;
	s->emit = emit;
	s->ctx = ctx;
	s->rec = xmalloc(SYNTH_REC_MAX);
	return 0;
}

void synth__exit(struct synth *s)
{
	free(s->rec);
	free(s->text);
	s->rec = NULL;
	s->text = NULL;
}

struct map_ctx {
	struct synth *s;
	pid_t pid;
	int err;
};

static void fill_sid(const struct synth *s, struct pd_sample_id *sid, pid_t pid, pid_t tid)
{
	/* time 0: these describe the state before the first sample */
	memset(sid, 0, sizeof(*sid));
	sid->pid = (uint32_t)pid;
	sid->tid = (uint32_t)tid;
	sid->id = s->id;
	sid->stream_id = s->id;
}

static int emit_map(const struct synth_map *sm, void *arg)
{
	struct map_ctx *mc = arg;
	struct synth *s = mc->s;
	struct pd_sample_id sid;
	struct pd_mmap m = {
		.pid = (uint32_t)mc->pid, .tid = (uint32_t)mc->pid,
		.start = sm->start, .len = sm->end - sm->start, .pgoff = sm->pgoff,
		.v2 = true, .data = !(sm->prot & PROT_EXEC),
		.maj = sm->maj, .min = sm->min, .ino = sm->ino,
		.prot = sm->prot, .flags = sm->flags, .filename = sm->name,
	};
	ssize_t n;

	fill_sid(s, &sid, mc->pid, mc->pid);
	n = pd_fmt_mmap(s->rec, SYNTH_REC_MAX, &s->attr, PERF_RECORD_MISC_USER, &m, &sid);
	if (n < 0)
		return 0;       /* a name too long for a record: skip the mapping */
	s->nr_maps++;
	return s->emit(s->ctx, s->rec, (size_t)n);
}

static int read_comm(pid_t pid, pid_t tid, char *comm, size_t size)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, comm, size - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ESRCH;
	if (comm[n - 1] == '\n')
		n--;
	comm[n] = 0;
	return 0;
}

static int emit_thread(struct synth *s, pid_t pid, pid_t tid)
{
	struct pd_sample_id sid;
	char comm[64];
	ssize_t n;
	int ret;

	if (read_comm(pid, tid, comm, sizeof(comm)))
		return 0;       /* the thread is gone: nothing to say about it */
	fill_sid(s, &sid, pid, tid);
	if (tid != pid) {
		struct pd_fork f = { .pid = (uint32_t)pid, .ppid = (uint32_t)pid,
				     .tid = (uint32_t)tid, .ptid = (uint32_t)pid };

		n = pd_fmt_fork(s->rec, SYNTH_REC_MAX, &s->attr, PERF_RECORD_FORK, &f, &sid);
		if (n < 0)
			return (int)n;
		ret = s->emit(s->ctx, s->rec, (size_t)n);
		if (ret)
			return ret;
	}
	{
		struct pd_comm c = { .pid = (uint32_t)pid, .tid = (uint32_t)tid, .comm = comm };

		n = pd_fmt_comm(s->rec, SYNTH_REC_MAX, &s->attr, &c, &sid);
	}
	if (n < 0)
		return (int)n;
	s->nr_threads++;
	return s->emit(s->ctx, s->rec, (size_t)n);
}

static int emit_maps(struct synth *s, pid_t pid)
{
	struct map_ctx mc = { .s = s, .pid = pid };
	int ret = synth_maps_buf(pid, s->method, &s->text, &s->text_alloc, emit_map, &mc);

	/* a process that exits meanwhile, or a kernel thread's empty maps */
	if (ret == -ESRCH || ret == -ENOENT || ret == -EACCES || ret == -EPERM)
		return 0;
	return ret;
}

int synth__process(struct synth *s, pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	/* the main thread first: it names the process */
	ret = emit_thread(s, pid, pid);
	while (!ret && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || tid == pid)
			continue;
		ret = emit_thread(s, pid, (pid_t)tid);
	}
	closedir(d);
	if (!ret)
		ret = emit_maps(s, pid);
	s->nr_procs++;
	return ret;
}

int synth__thread(struct synth *s, pid_t tgid, pid_t tid)
{
	int ret;

	if (tid != tgid) {
		ret = emit_thread(s, tgid, tgid);
		if (ret)
			return ret;
	}
	ret = emit_thread(s, tgid, tid);
	if (!ret)
		ret = emit_maps(s, tgid);
	s->nr_procs++;
	return ret;
}

/* A worker's share of /proc: records go to memory, the caller writes them
 * in pid order afterwards (the writer is not thread-safe). */
struct synth_worker {
	struct synth s;
	const pid_t *pids;
	size_t nr;
	uint8_t *buf;
	size_t len, alloc;
	int err;
	bool started;
	pthread_t thread;
};

static int buffer_emit(void *ctx, const void *rec, size_t size)
{
	struct synth_worker *wk = ctx;

	xgrow((void **)&wk->buf, &wk->alloc, wk->len + size, 1);
	memcpy(wk->buf + wk->len, rec, size);
	wk->len += size;
	return 0;
}

static void *synth_worker(void *arg)
{
	struct synth_worker *wk = arg;

	for (size_t i = 0; i < wk->nr && !wk->err; i++) {
		int ret = synth__process(&wk->s, wk->pids[i]);

		if (ret == -ESRCH || ret == -ENOENT)
			wk->s.nr_gone++;
		else
			wk->err = ret;
	}
	return NULL;
}

static int list_pids(pid_t **pids, size_t *nr)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t alloc = 0;

	*pids = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || pid <= 0)
			continue;
		xgrow((void **)pids, &alloc, *nr + 1, sizeof(**pids));
		(*pids)[(*nr)++] = (pid_t)pid;
	}
	closedir(d);
	return 0;
}

int synth__all(struct synth *s, int nr_threads)
{
	struct synth_worker *wk;
	pid_t *pids;
	size_t nr, per;
	int ret = list_pids(&pids, &nr);

	if (ret)
		return ret;
	/* a thread costs more than a few processes' maps */
	if (nr_threads > (int)(nr / 64))
		nr_threads = (int)(nr / 64);
	if (nr_threads < 1)
		nr_threads = 1;
	wk = xcalloc((size_t)nr_threads, sizeof(*wk));
	per = (nr + (size_t)nr_threads - 1) / (size_t)nr_threads;
	for (int t = 0; t < nr_threads; t++) {
		size_t first = (size_t)t * per;

		synth__init(&wk[t].s, &s->attr, s->id, s->method, buffer_emit, &wk[t]);
		wk[t].pids = pids + (first < nr ? first : nr);
		wk[t].nr = first < nr ? (nr - first < per ? nr - first : per) : 0;
		if (t && !pthread_create(&wk[t].thread, NULL, synth_worker, &wk[t]))
			wk[t].started = true;
	}
	for (int t = 0; t < nr_threads; t++)
		if (!wk[t].started)
			synth_worker(&wk[t]);   /* the caller's share, or a thread that did not start */
	for (int t = 0; t < nr_threads; t++) {
		size_t off = 0;

		if (wk[t].started)
			pthread_join(wk[t].thread, NULL);
		if (!ret)
			ret = wk[t].err;
		while (!ret && off + sizeof(struct perf_event_header) <= wk[t].len) {
			struct perf_event_header h;

			memcpy(&h, wk[t].buf + off, sizeof(h));
			ret = s->emit(s->ctx, wk[t].buf + off, h.size);
			off += h.size;
		}
		s->nr_procs += wk[t].s.nr_procs;
		s->nr_threads += wk[t].s.nr_threads;
		s->nr_maps += wk[t].s.nr_maps;
		s->nr_gone += wk[t].s.nr_gone;
		synth__exit(&wk[t].s);
		free(wk[t].buf);
	}
	free(wk);
	free(pids);
	return ret;
}

int synth__tgid(pid_t tid)
{
	char path[64], buf[1024];
	int fd;
	ssize_t n;
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = 0;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EINVAL;
	return (int)strtol(p + 6, NULL, 10);
}

/* _text from the first lines of /proc/kallsyms: the kernel lists its text
 * first, so the whole (multi-megabyte) file is never read. */
static uint64_t kernel_text(void)
{
	char buf[8192];
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	const char *p;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (p = buf; (p = strstr(p, " T _text\n")); p++) {
		const char *line = p;
		uint64_t addr;

		while (line > buf && line[-1] != '\n')
			line--;
		if (hex(&line, &addr) && line == p)
			return addr;
	}
	return 0;
}

int synth__kernel(struct synth *s)
{
	uint64_t text = kernel_text();
	struct pd_sample_id sid;
	struct pd_mmap m;
	ssize_t n;

	if (!text)
		return 0;
	memset(&m, 0, sizeof(m));
	m.pid = KERNEL_PID;
	m.tid = 0;
	m.start = text;
	m.len = ~0ULL - text;
	m.pgoff = text;
	m.filename = "[kernel.kallsyms]_text";
	fill_sid(s, &sid, -1, 0);
	n = pd_fmt_mmap(s->rec, SYNTH_REC_MAX, &s->attr, PERF_RECORD_MISC_KERNEL, &m, &sid);
	if (n < 0)
		return (int)n;
	return s->emit(s->ctx, s->rec, (size_t)n);
}
