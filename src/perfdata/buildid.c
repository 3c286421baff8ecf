// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfdata/buildid.h"
#include "util/util.h"
#include "perfdata/writer.h"

struct noted {
	const char *name;       /* in names */
	uint32_t pid;           /* a process that mapped it: /proc/PID/root */
	bool has_id;            /* the MMAP2 record carried it */
	uint8_t size;
	uint8_t id[20];
};

/* A process and its parent, from a FORK record. */
struct fork {
	uint32_t pid, ppid;
};

struct buildids {
	struct strtab *names;   /* id i + 1 is objs[i] */
	struct noted *objs;
	size_t nr, alloc;
	size_t dropped;
	/* buildids__only_tree(): the root, and the FORK records and the
	 * MMAP records (copies) kept until buildids__write knows its tree */
	uint32_t root;
	struct fork *forks;
	size_t nr_forks, alloc_forks;
	uint8_t **maps;
	size_t nr_maps, alloc_maps;
};

struct buildids *buildids__new(void)
{
	struct buildids *b = xcalloc(1, sizeof(*b));

	b->names = strtab__new();
	return b;
}

void buildids__delete(struct buildids *b)
{
	if (!b)
		return;
	strtab__delete(b->names);
	free(b->objs);
	free(b->forks);
	for (size_t i = 0; i < b->nr_maps; i++)
		free(b->maps[i]);
	free(b->maps);
	free(b);
}

bool buildids__get(const struct buildids *b, size_t i, const char **name, uint32_t *pid, const uint8_t **id,
		   size_t *size)
{
	if (!b || i >= b->nr || !b->objs[i].has_id)
		return false;
	*name = b->objs[i].name;
	*pid = b->objs[i].pid;
	*id = b->objs[i].id;
	*size = b->objs[i].size;
	return true;
}

size_t buildids__nr(const struct buildids *b)
{
	return b->nr;
}

size_t buildids__dropped(const struct buildids *b)
{
	return b->dropped;
}

/* Objects worth a build-id: files that still exist, not devices, pseudo
 * files, memfds or SysV shared memory. */
static bool file_backed(const char *name, size_t len)
{
	if (len < 2 || name[0] != '/' || name[1] == '/')   /* "//anon" */
		return false;
	if (path_is_pseudo_fs(name) || !strncmp(name, "/memfd:", 7) || !strncmp(name, "/SYSV", 5))
		return false;
	return name_len_undeleted(name, len) == len;
}

void buildids__only_tree(struct buildids *b, uint32_t root)
{
	b->root = root;
}

/* Keeps a FORK record's processes, or a copy of an MMAP record, for
 * buildids__write (only_tree). */
static void keep(struct buildids *b, const struct perf_event_header *h, const uint8_t *p)
{
	uint32_t pid, ppid;

	if (h->type == PERF_RECORD_FORK && h->size >= 16) {
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		if (pid == ppid)
			return;         /* a thread */
		if (b->nr_forks >= KEPT_FORKS_MAX) {
			b->dropped++;
			return;
		}
		xgrow((void **)&b->forks, &b->alloc_forks, b->nr_forks + 1, sizeof(*b->forks));
		b->forks[b->nr_forks++] = (struct fork){ pid, ppid };
	} else if ((h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_MMAP) && h->size >= 16) {
		if (b->nr_maps >= KEPT_MAPS_MAX) {
			b->dropped++;
			return;
		}
		xgrow((void **)&b->maps, &b->alloc_maps, b->nr_maps + 1, sizeof(*b->maps));
		b->maps[b->nr_maps] = xmalloc(h->size);
		memcpy(b->maps[b->nr_maps++], p, h->size);
	}
}

static int fork_cmp(const void *pa, const void *pb)
{
	const struct fork *a = pa, *b = pb;

	return (a->ppid > b->ppid) - (a->ppid < b->ppid);
}

static int pid_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

static void note(struct buildids *b, const struct perf_event_header *h, const uint8_t *p);

/* only_tree: the kept MMAP records of the root and the processes it
 * forked, and theirs, noted. The FORK records came from every CPU's
 * buffer, in any order: sorted by parent, the tree is walked from the
 * root, each record taken once (a pid reused cannot make a loop), so a
 * command that forked a hundred thousand processes costs a sort, not a
 * pass over them all for each process. */
static void note_tree(struct buildids *b)
{
	uint32_t *set = xmalloc(sizeof(*set) * (b->nr_forks + 1));
	bool *taken = xcalloc(b->nr_forks + 1, sizeof(*taken));
	size_t n = 1;

	set[0] = b->root;
	if (b->nr_forks)
		qsort(b->forks, b->nr_forks, sizeof(*b->forks), fork_cmp);
	for (size_t q = 0; q < n; q++) {
		size_t lo = 0, hi = b->nr_forks;

		/* (the first record whose parent is set[q]) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (b->forks[mid].ppid < set[q])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < b->nr_forks && b->forks[lo].ppid == set[q]; lo++) {
			if (!taken[lo]) {
				taken[lo] = true;
				set[n++] = b->forks[lo].pid;
			}
		}
	}
	qsort(set, n, sizeof(*set), pid_cmp);
	for (size_t i = 0; i < b->nr_maps; i++) {
		struct perf_event_header h;
		uint32_t pid;

		memcpy(&h, b->maps[i], sizeof(h));
		memcpy(&pid, b->maps[i] + 8, 4);
		if (bsearch(&pid, set, n, sizeof(*set), pid_cmp))
			note(b, &h, b->maps[i]);
		free(b->maps[i]);
	}
	b->nr_maps = b->nr_forks = 0;
	b->root = 0;
	free(taken);
	free(set);
}

void buildids__note(struct buildids *b, const struct perf_event_header *h, const void *rec)
{
	if (!b)
		return;
	if (b->root)
		keep(b, h, rec);
	else
		note(b, h, rec);
}

static void note(struct buildids *b, const struct perf_event_header *h, const uint8_t *p)
{
	size_t name_off, len;
	uint64_t sid;
	uint32_t pid;
	struct noted *o;
	const char *name;

	if (h->type == PERF_RECORD_MMAP2)
		name_off = 72;
	else if (h->type == PERF_RECORD_MMAP)
		name_off = 40;
	else
		return;
	if (h->size <= name_off)
		return;
	name = (const char *)p + name_off;
	len = strnlen(name, h->size - name_off);
	if (len == h->size - name_off || !file_backed(name, len))
		return;
	if (b->nr >= BUILDIDS_MAX) {
		b->dropped++;
		return;
	}
	name = strtab__intern(b->names, name, &sid);
	if (sid <= b->nr)
		return;         /* noted before */
	xgrow((void **)&b->objs, &b->alloc, b->nr + 1, sizeof(*b->objs));
	o = &b->objs[b->nr++];
	memset(o, 0, sizeof(*o));
	o->name = name;
	memcpy(&pid, p + 8, sizeof(pid));
	o->pid = pid;
	/* MMAP2 in build-id form: the kernel read it when the page was mapped */
	if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && p[40] &&
	    p[40] <= 20) {
		o->has_id = true;
		o->size = p[40];
		memcpy(o->id, p + 44, o->size);
	}
}

int buildid__read_file(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	const void *bid = NULL;
	struct stat st;
	ssize_t n = -ENOENT;
	Elf *elf;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		n = dwelf_elf_gnu_build_id(elf, &bid);
		if (n > 20)
			n = 20;
		if (n > 0)
			memcpy(id, bid, n);
		else
			n = -ENOENT;
	}
	elf_end(elf);
	close(fd);
	return (int)n;
}

int buildid__from_notes(const uint8_t *p, size_t len, uint8_t id[20])
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		if (namesz > len || descsz > len)
			break;
		desc_at = name_at + ((namesz + 3) & ~3u);
		next = desc_at + ((descsz + 3) & ~3u);
		if (next > len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_at, "GNU", 4) && descsz &&
		    descsz <= 20) {
			memcpy(id, p + desc_at, descsz);
			return (int)descsz;
		}
		off = next;
	}
	return -ENOENT;
}

static int kernel_build_id(uint8_t id[20])
{
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? buildid__from_notes(buf, (size_t)n, id) : -EIO;
}

size_t buildids__write(struct buildids *b, struct pd_writer *w)
{
	size_t written = 0;
	uint8_t id[20];
	int n;

	if (b->root)
		note_tree(b);
	for (size_t i = 0; i < b->nr; i++) {
		struct noted *o = &b->objs[i];
		char alt[4096 + 64];

		if (o->has_id) {
			n = o->size;
			memcpy(id, o->id, n);
		} else {
			n = buildid__read_file(o->name, id);
			/* in another mount namespace (a container) the path is the process's */
			if (n < 0 && o->pid && o->pid != KERNEL_PID &&
			    snprintf(alt, sizeof(alt), "/proc/%u/root%s", o->pid, o->name) < (int)sizeof(alt))
				n = buildid__read_file(alt, id);
		}
		/* perf writes its machine's pid: -1 on the host */
		if (n > 0 && !pd_writer__add_build_id(w, PERF_RECORD_MISC_USER, -1, id, n, o->name))
			written++;
		if (n > 0 && !o->has_id) {
			/* kept for buildids__get (the build-id cache) */
			o->has_id = true;
			o->size = (uint8_t)n;
			memcpy(o->id, id, (size_t)n);
		}
	}
	n = kernel_build_id(id);
	if (n > 0 && !pd_writer__add_build_id(w, PERF_RECORD_MISC_KERNEL, -1, id, n, "[kernel.kallsyms]"))
		written++;
	return written;
}

char *buildid__cache_path(const char *home, const uint8_t *id, size_t n, const char *file)
{
	char hex[41];

	if (!home || !*home || n < 2 || n > 20)
		return NULL;
	hex_encode(hex, id, n);
	return xasprintf("%s/.debug/.build-id/%.2s/%s/%s", home, hex, hex + 2, file);
}
