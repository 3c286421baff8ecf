// SPDX-License-Identifier: GPL-2.0
/* JIT code names from jit-PID.dump and /tmp/perf-PID.map; see jit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names/jit.h"
#include "util/htab.h"
#include "util/util.h"

struct jit_ent {
	uint64_t start, size;
	uint64_t time;          /* 0: valid from the start (perf map, arch timestamps) */
	uint64_t seq;           /* file order: a later entry wins over an earlier one */
	const char *name;
	uint32_t dbg_first, dbg_nr;
};

struct jit_dbg {
	uint64_t addr;
	const char *file;
	int line;
};

/* One kind (jitdump or perf map) of entries of one process, sorted by start. */
struct jit_set {
	struct jit_ent *ents;
	size_t nr, alloc;
	uint64_t max_size;      /* bounds the backward scan of a lookup */
};

struct jit_proc {
	uint32_t pid;
	struct jit_set dump, map;
	struct jit_dbg *dbg;
	size_t nr_dbg, alloc_dbg;
};

struct jit_index {
	struct jit_proc *procs;
	size_t nr, alloc;
	struct u64map idx;      /* pid -> index in procs */
	struct strtab *strs;
	uint64_t seq;
};

struct jit_index *jit_index__new(void)
{
	struct jit_index *j = xcalloc(1, sizeof(*j));

	j->strs = strtab__new();
	return j;
}

void jit_index__delete(struct jit_index *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nr; i++) {
		free(j->procs[i].dump.ents);
		free(j->procs[i].map.ents);
		free(j->procs[i].dbg);
	}
	free(j->procs);
	u64map__exit(&j->idx);
	strtab__delete(j->strs);
	free(j);
}

static struct jit_proc *proc_find(const struct jit_index *j, uint32_t pid)
{
	uint64_t i;

	return u64map__get(&j->idx, pid, &i) ? &j->procs[i] : NULL;
}

static struct jit_proc *proc_get(struct jit_index *j, uint32_t pid)
{
	struct jit_proc *p = proc_find(j, pid);

	if (p)
		return p;
	xgrow((void **)&j->procs, &j->alloc, j->nr + 1, sizeof(*j->procs));
	memset(&j->procs[j->nr], 0, sizeof(j->procs[j->nr]));
	j->procs[j->nr].pid = pid;
	u64map__put(&j->idx, pid, j->nr);
	return &j->procs[j->nr++];
}

bool jit_index__has_pid(const struct jit_index *j, uint32_t pid)
{
	const struct jit_proc *p = proc_find(j, pid);

	return p && (p->dump.nr || p->map.nr);
}

static struct jit_ent *set_add(struct jit_set *set, uint64_t start, uint64_t size)
{
	struct jit_ent *e;

	xgrow((void **)&set->ents, &set->alloc, set->nr + 1, sizeof(*set->ents));
	e = &set->ents[set->nr++];
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->size = size;
	if (size > set->max_size)
		set->max_size = size;
	return e;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct jit_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void set_sort(struct jit_set *set)
{
	if (set->nr)
		qsort(set->ents, set->nr, sizeof(*set->ents), ent_cmp);
}

/*
 * Entry covering addr that was loaded last at or before time (any time when
 * time is 0). Loads stamped after the sample are code that did not exist
 * yet: the region may be reused by a later function.
 */
static const struct jit_ent *set_find(const struct jit_set *set, uint64_t addr, uint64_t time)
{
	const struct jit_ent *best = NULL;
	size_t lo = 0, hi = set->nr;

	while (lo < hi) {       /* first entry with start > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (set->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct jit_ent *e = &set->ents[i];

		if (addr - e->start >= set->max_size)
			break;
		if (addr - e->start >= e->size)
			continue;
		if (time && e->time > time)
			continue;
		if (!best || e->time > best->time || (e->time == best->time && e->seq > best->seq))
			best = e;
	}
	return best;
}

int jit_index__find(const struct jit_index *j, uint32_t pid, uint64_t addr, uint64_t time,
		    struct jit_sym *out)
{
	const struct jit_proc *p = proc_find(j, pid);
	const struct jit_ent *e;

	memset(out, 0, sizeof(*out));
	if (!p)
		return -ENOENT;
	e = set_find(&p->dump, addr, time);
	if (e) {
		out->from_jitdump = true;
		/* line entries are sorted by address; the last one at or below addr */
		for (uint32_t k = 0; k < e->dbg_nr; k++) {
			const struct jit_dbg *d = &p->dbg[e->dbg_first + k];

			if (d->addr > addr)
				break;
			out->file = d->file;
			out->line = d->line;
		}
	} else {
		e = set_find(&p->map, addr, 0);
	}
	if (!e)
		return -ENOENT;
	out->name = e->name;
	out->start = e->start;
	out->size = e->size;
	return 0;
}

/* ---- jitdump ---- */

struct jd_cursor {
	const uint8_t *p;
	size_t left;
	bool swap;
};

static bool jd_u32(struct jd_cursor *c, uint32_t *v)
{
	if (c->left < 4)
		return false;
	memcpy(v, c->p, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	c->p += 4;
	c->left -= 4;
	return true;
}

static bool jd_u64(struct jd_cursor *c, uint64_t *v)
{
	if (c->left < 8)
		return false;
	memcpy(v, c->p, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	c->p += 8;
	c->left -= 8;
	return true;
}

/* NUL-terminated string inside the cursor, or NULL when it runs past the end. */
static const char *jd_str(struct jd_cursor *c)
{
	const uint8_t *nul = memchr(c->p, 0, c->left);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->left -= (size_t)(nul - c->p) + 1;
	c->p = nul + 1;
	return s;
}

/* Line table of the DEBUG_INFO record waiting for its CODE_LOAD. */
struct jd_pending {
	uint64_t code_addr;
	size_t first, nr;
	bool valid;
};

static void jd_debug_info(struct jit_index *j, struct jit_proc *p, struct jd_cursor *c,
			  struct jd_pending *pend)
{
	uint64_t code_addr, nr;
	const char *prev = NULL;

	pend->valid = false;
	if (!jd_u64(c, &code_addr) || !jd_u64(c, &nr))
		return;
	/* an entry is at least 8 + 4 + 4 + 1 bytes: bounds nr before the loop */
	if (nr > c->left / 17)
		nr = c->left / 17;
	pend->code_addr = code_addr;
	pend->first = p->nr_dbg;
	pend->nr = 0;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t addr;
		uint32_t line, discrim;
		const char *name;
		struct jit_dbg *d;

		if (!jd_u64(c, &addr) || !jd_u32(c, &line) || !jd_u32(c, &discrim) ||
		    !(name = jd_str(c)))
			break;
		/* "\xff" alone repeats the previous entry's file name */
		if ((uint8_t)name[0] == 0xff && !name[1])
			name = prev ? prev : "";
		else
			name = strtab__intern(j->strs, name, NULL);
		prev = name;
		xgrow((void **)&p->dbg, &p->alloc_dbg, p->nr_dbg + 1, sizeof(*p->dbg));
		d = &p->dbg[p->nr_dbg++];
		d->addr = addr;
		d->file = name;
		d->line = (int)line;
		pend->nr++;
	}
	pend->valid = true;
}

static int dbg_cmp(const void *a, const void *b)
{
	const struct jit_dbg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int jd_parse(struct jit_index *j, uint32_t pid, const uint8_t *buf, size_t size)
{
	struct jd_cursor c = { buf, size, false };
	struct jd_pending pend = { 0 };
	uint32_t magic, version, hdr_size, u32;
	uint64_t ts, flags;
	bool arch_ts;
	struct jit_proc *p;
	int n = 0;

	if (!jd_u32(&c, &magic))
		return -EINVAL;
	if (magic == JITDUMP_MAGIC_SWAPPED)
		c.swap = true;
	else if (magic != JITDUMP_MAGIC)
		return -EINVAL;
	if (!jd_u32(&c, &version) || !jd_u32(&c, &hdr_size) || !jd_u32(&c, &u32) ||
	    !jd_u32(&c, &u32) || !jd_u32(&c, &u32) || !jd_u64(&c, &ts) || !jd_u64(&c, &flags))
		return -EINVAL;
	if (hdr_size < 40 || hdr_size > size)
		return -EINVAL;
	/* TSC stamps would need the recording's time conversion: treat as unknown */
	arch_ts = flags & 1;
	c.p = buf + hdr_size;
	c.left = size - hdr_size;
	p = proc_get(j, pid);

	while (c.left >= 16) {
		struct jd_cursor r = c;
		uint32_t id, rsize;
		uint64_t time;

		jd_u32(&r, &id);
		jd_u32(&r, &rsize);
		jd_u64(&r, &time);
		if (rsize < 16 || rsize > c.left)
			break;          /* damaged or cut short: keep what came before */
		r.left = rsize - 16;
		c.p += rsize;
		c.left -= rsize;
		if (arch_ts)
			time = 0;

		if (id == JIT_CODE_LOAD) {
			uint32_t rpid, tid;
			uint64_t vma, code_addr, code_size, code_index;
			const char *name;
			struct jit_ent *e;

			if (!jd_u32(&r, &rpid) || !jd_u32(&r, &tid) || !jd_u64(&r, &vma) ||
			    !jd_u64(&r, &code_addr) || !jd_u64(&r, &code_size) ||
			    !jd_u64(&r, &code_index) || !(name = jd_str(&r)) || !code_size)
				continue;
			e = set_add(&p->dump, code_addr, code_size);
			e->time = time;
			e->seq = ++j->seq;
			e->name = strtab__intern(j->strs, name, NULL);
			if (pend.valid && pend.code_addr == code_addr) {
				e->dbg_first = (uint32_t)pend.first;
				e->dbg_nr = (uint32_t)pend.nr;
				qsort(p->dbg + pend.first, pend.nr, sizeof(*p->dbg), dbg_cmp);
			}
			pend.valid = false;
			n++;
		} else if (id == JIT_CODE_MOVE) {
			uint32_t rpid, tid;
			uint64_t vma, old_addr, new_addr, code_size, code_index;
			const struct jit_ent *from = NULL;
			const char *name;
			struct jit_ent *e;

			if (!jd_u32(&r, &rpid) || !jd_u32(&r, &tid) || !jd_u64(&r, &vma) ||
			    !jd_u64(&r, &old_addr) || !jd_u64(&r, &new_addr) ||
			    !jd_u64(&r, &code_size) || !jd_u64(&r, &code_index) || !code_size)
				continue;
			/* the newest load at the old address names the moved code (unsorted yet) */
			for (size_t i = p->dump.nr; i-- > 0;)
				if (p->dump.ents[i].start == old_addr) {
					from = &p->dump.ents[i];
					break;
				}
			if (!from)
				continue;
			/* line entries are by absolute address: they stay with the old copy */
			name = from->name;
			e = set_add(&p->dump, new_addr, code_size);
			e->time = time;
			e->seq = ++j->seq;
			e->name = name;
			n++;
		} else if (id == JIT_CODE_DEBUG_INFO) {
			jd_debug_info(j, p, &r, &pend);
		} else if (id == JIT_CODE_CLOSE) {
			break;
		}
		/* UNWINDING_INFO and unknown ids: nothing to name */
	}
	set_sort(&p->dump);
	return n;
}

int jit_index__add_jitdump(struct jit_index *j, uint32_t pid, const char *path)
{
	struct stat st;
	void *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (st.st_size < 40) {
		close(fd);
		return -EINVAL;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = buf == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	ret = jd_parse(j, pid, buf, (size_t)st.st_size);
	munmap(buf, (size_t)st.st_size);
	return ret;
}

/* ---- perf map ---- */

int jit_index__add_perf_map(struct jit_index *j, uint32_t pid, const char *path)
{
	FILE *f = fopen(path, "re");
	struct jit_proc *p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0;

	if (!f)
		return -errno;
	p = proc_get(j, pid);
	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t start, size;
		struct jit_ent *e;
		char *end, *name;

		if (line[len - 1] == '\n')
			line[--len] = 0;
		errno = 0;
		start = strtoull(line, &end, 16);
		if (errno || end == line || *end != ' ')
			continue;
		name = end;
		size = strtoull(name, &end, 16);
		if (errno || end == name || *end != ' ' || !size || start + size < start)
			continue;
		name = end + 1;
		e = set_add(&p->map, start, size);
		e->seq = ++j->seq;
		e->name = strtab__intern(j->strs, name, NULL);
		n++;
	}
	free(line);
	fclose(f);
	set_sort(&p->map);
	return n;
}
