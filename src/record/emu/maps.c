// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate's keys of the program's memory (part of
 * libc2cscan-emu.so): which pages are MAP_SHARED, whose lines are keyed by
 * the file (device, inode, offset) so that processes sharing a page share
 * its lines; every other page is private, keyed by the pid and its address
 * (emu.c).
 *
 * Only the shared mappings are kept (a process has a handful; the private
 * ones need no entry): a table sorted by address, written under maps_lock
 * and read without a lock (a sequence count: a reader that saw it move
 * reads again), so that a thread's first access to a page never waits for
 * another thread.
 *
 * The program's mmap, munmap and mremap (interposed here, with madvise,
 * which only tells the model to forget lines) edit it: an
 * unmapping or a private mapping removes what it covers, a shared mapping
 * is asked of the kernel (PROCMAP_QUERY, Linux 6.11; else its line of
 * /proc/self/maps) for the device and inode /proc/PID/maps gives, which
 * is what the report keys by. The generation (emu_maps_gen) moves only when
 * the table changes: private mappings, however many, leave every thread's
 * cached page keys valid, and a process that maps 100,000 regions and
 * touches each costs in proportion (it used to read its maps again at each).
 *
 * Shared mappings made behind the runtime's back (the C library's own, as
 * sem_open's, the loader's) are found by reading /proc/self/maps whole when
 * a page no shared mapping holds is keyed: at most every REREAD_NS, and
 * never more than 1/REREAD_SHARE of the time (100,000 mappings take some
 * 20 ms to read). The table is built aside and swapped in; a table readers
 * may still be in is never unmapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "record/emu/emu.h"
#include "record/procmap.h"

#define TABLE_MIN 64                    /* shared mappings a table starts with */
#define TABLE_MAX (1u << 22)            /* ... holds at most (more: the rest private) */
#define REREAD_NS 10000000ull           /* a page in no shared mapping: maps read again at most this often */
#define REREAD_SHARE 50                 /* ... and at most 1/50 of the time */
#define MAPS_LINE_MAX 256               /* a /proc/self/maps line longer is skipped */

/* A shared mapping: its lines keyed by space (EMU_SHARED | device | inode)
 * and their offset in the file. */
struct range {
	uint64_t start, end, space, off;
};

struct table {
	uint32_t cap, n;
	struct range r[];
};

uint32_t emu_maps_gen;
/* the table readers use, and the one a read of the maps is built in */
static struct table *tab, *spare;
static uint32_t seq, maps_lock;
static uint64_t read_ns, read_cost_ns;  /* when the maps were last read, and what that took */
/* PROCMAP_QUERY: unknown yet, no, yes (C2CSCAN_EMU_MAPS_TEXT: no, to
 * test the way of kernels before 6.11) */
static int query_works = -1;

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*libc_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, void *);
static int (*real_madvise)(void *, size_t, int);

static uint64_t shared_space(uint32_t maj, uint32_t min, uint64_t ino)
{
	return EMU_SHARED | (uint64_t)(maj & 0xfff) << 51 | (uint64_t)(min & 0xfffff) << 31 | (ino & 0x7fffffff);
}

/* A table of room for cap ranges (system calls: not the program's mappings). */
static struct table *table_new(uint32_t cap)
{
	struct table *t = emu_sys_mmap(sizeof(*t) + (size_t)cap * sizeof(struct range), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->cap = cap;
	return t;
}

/* t with room for one more range: a copy twice its size when full (t is
 * kept mapped: a reader may be in it), NULL when none can be had. */
static struct table *table_room(struct table *t)
{
	struct table *u;

	if (t->n < t->cap)
		return t;
	if (t->cap * 2 > TABLE_MAX || !(u = table_new(t->cap * 2)))
		return NULL;
	emu_copy(u->r, t->r, t->n * sizeof(*t->r));
	u->n = t->n;
	return u;
}

/* ---- writers: under maps_lock, between write_begin and write_end, with
 * signals held off (the program's mmap and munmap are writers: a handler
 * that ran meanwhile in the same thread would spin for ever on the lock,
 * or in a lookup on the odd sequence) ---- */

static void write_begin(sigset_t *was)
{
	emu_lock_quiet(&maps_lock, was);
	__atomic_store_n(&seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(bool changed, const sigset_t *was)
{
	if (changed)
		__atomic_add_fetch(&emu_maps_gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);
	emu_unlock_quiet(&maps_lock, was);
}

/* [start, end) no longer shared (unmapped, or mapped again privately):
 * whether the table changed. A range it splits in two needs one more. */
static bool table_cut(uint64_t start, uint64_t end)
{
	bool changed = false;

	for (uint32_t i = 0; i < tab->n; i++) {
		struct range *r = &tab->r[i];

		if (r->end <= start || r->start >= end)
			continue;
		changed = true;
		if (r->start < start && r->end > end) {
			struct table *t = table_room(tab);
			struct range right = { end, r->end, r->space, r->off + (end - r->start) };

			if (!t)
				return true;    /* no room: the right part is keyed private */
			tab = t;
			r = &tab->r[i];
			r->end = start;
			emu_copy(&tab->r[i + 2], &tab->r[i + 1], (tab->n - i - 1) * sizeof(*r));
			tab->r[i + 1] = right;
			tab->n++;
			return true;
		}
		if (r->start < start) {
			r->end = start;
		} else if (r->end > end) {
			r->off += end - r->start;
			r->start = end;
		} else {
			emu_copy(r, r + 1, (tab->n - i - 1) * sizeof(*r));
			tab->n--;
			i--;
		}
	}
	return changed;
}

/* A shared mapping: in the table, in address order, over whatever it covered. */
static bool table_put(struct range x)
{
	uint32_t i = 0;
	struct table *t;

	table_cut(x.start, x.end);
	if (!(t = table_room(tab)))
		return true;
	tab = t;
	while (i < tab->n && tab->r[i].start < x.start)
		i++;
	emu_copy(&tab->r[i + 1], &tab->r[i], (tab->n - i) * sizeof(x));
	tab->r[i] = x;
	tab->n++;
	return true;
}

/* ---- the kernel's word on a mapping ---- */

/* One line of /proc/self/maps: the mapping, false when it does not parse. */
static bool maps_line(const char *line, struct range *r, bool *shared, bool *readable)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &off, &maj, &min, &ino) != 7)
		return false;
	*r = (struct range){ start, end, shared_space(maj, min, ino), off };
	*shared = perms[3] == 's';
	*readable = perms[0] == 'r';
	return true;
}

/* Each line of /proc/self/maps to fn, until it returns true (system calls
 * and a static buffer: no allocation here; callers hold maps_lock). */
static void maps_each(bool (*fn)(const char *line, void *arg), void *arg)
{
	static char buf[1 << 16];
	size_t keep = 0;
	int fd = emu_sys_open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		return;
	for (;;) {
		ssize_t got = syscall(SYS_read, fd, buf + keep, sizeof(buf) - 1 - keep);
		size_t have = keep + (got > 0 ? (size_t)got : 0);
		char *line = buf, *nl;

		buf[have] = 0;
		for (; (nl = memchr(line, '\n', (size_t)(buf + have - line))); line = nl + 1) {
			*nl = 0;
			if (fn(line, arg))
				goto out;
		}
		if (got <= 0) {
			fn(line, arg);          /* a last line without its newline */
			break;
		}
		keep = (size_t)(buf + have - line);
		if (keep >= MAPS_LINE_MAX)
			keep = 0;
		emu_copy(buf, line, keep);
	}
out:
	syscall(SYS_close, fd);
}

struct vma {
	struct range r;
	bool shared, readable, found;
	uint64_t at;
};

static bool vma_line(const char *line, void *arg)
{
	struct vma *v = arg;

	if (!maps_line(line, &v->r, &v->shared, &v->readable) || v->at < v->r.start || v->at >= v->r.end)
		return false;
	v->found = true;
	return true;
}

/* The mapping that holds a, as the kernel has it: PROCMAP_QUERY, else
 * the maps text. false when nothing maps a. Callers hold maps_lock. */
static bool vma_at(uint64_t a, struct vma *v)
{
	emu_zero(v, sizeof(*v));
	v->at = a;
	if (query_works < 0 && getenv("C2CSCAN_EMU_MAPS_TEXT"))
		query_works = 0;
	if (query_works) {
		struct c2c_procmap_query q = { .size = sizeof(q), .query_addr = a };
		int fd = emu_sys_open("/proc/self/maps", O_RDONLY);
		long ret = fd < 0 ? -1 : syscall(SYS_ioctl, fd, C2C_PROCMAP_QUERY, &q);
		int err = errno;

		if (fd >= 0)
			syscall(SYS_close, fd);
		if (!ret) {
			query_works = 1;
			v->r = (struct range){ q.vma_start, q.vma_end, shared_space(q.dev_major, q.dev_minor, q.inode),
					       q.vma_offset };
			v->shared = q.vma_flags & C2C_PMQ_SHARED;
			v->readable = q.vma_flags & C2C_PMQ_READABLE;
			return true;
		}
		if (fd >= 0 && err == ENOENT)
			return false;
		if (fd >= 0)
			query_works = 0;        /* an older kernel: the text from now on */
	}
	maps_each(vma_line, v);
	return v->found;
}

/* The mappings at [a, a + len) are new (mmap, mremap): the table edited
 * to what the kernel says of them. */
static void learn(uint64_t a, uint64_t len)
{
	bool changed = false;
	struct vma v;
	sigset_t was;

	write_begin(&was);
	for (uint64_t at = a; at < a + len; at = v.r.end) {
		if (!vma_at(at, &v) || v.r.end <= at) {
			changed |= table_cut(at, a + len);
			break;
		}
		changed |= v.shared ? table_put(v.r) : table_cut(v.r.start, v.r.end);
	}
	write_end(changed, &was);
}

static bool same_table(const struct table *a, const struct table *b)
{
	return a->n == b->n && !memcmp(a->r, b->r, a->n * sizeof(*a->r));
}

/* The runtime's own files (its sample chunks, the model), which the
 * program never touches: left out, so that a chunk mapped or unmapped
 * does not change the table (and every thread's page keys with it). */
static char own_dir[512], own_model[512];

void emu_maps__own(const char *dir, const char *model)
{
	snprintf(own_dir, sizeof(own_dir), "%s/", dir ? dir : "");
	snprintf(own_model, sizeof(own_model), "%s", model ? model : "");
}

static bool own_file(const char *line)
{
	const char *path = strchr(line, '/');

	return path && ((own_dir[1] && !strncmp(path, own_dir, strlen(own_dir))) ||
			(own_model[0] && !strcmp(path, own_model)));
}

static bool read_line(const char *line, void *arg)
{
	struct table **t = arg;
	struct range r;
	bool shared, readable;

	if (!*t || !maps_line(line, &r, &shared, &readable) || !shared || own_file(line))
		return false;
	*t = table_room(*t);
	if (*t)
		(*t)->r[(*t)->n++] = r;
	return false;
}

/* The table from /proc/self/maps whole, built aside (readers go on in the
 * old one) and swapped in; maps_lock held. */
static void maps_read(uint64_t now)
{
	struct table *t = spare && spare->cap >= tab->cap ? spare : table_new(tab->cap);
	bool changed;

	if (!t)
		return;
	t->n = 0;
	maps_each(read_line, &t);
	if (!t)                                 /* no room: the old table stays */
		return;
	read_ns = now;
	read_cost_ns = emu_now_ns() - now;
	changed = !same_table(t, tab);
	if (changed) {
		__atomic_store_n(&seq, seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		spare = tab;
		__atomic_store_n(&tab, t, __ATOMIC_RELEASE);
		__atomic_add_fetch(&emu_maps_gen, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);
	} else {
		spare = t;
	}
}

/* ---- readers ---- */

/* The shared mapping holding a, into *out: false when none. */
static bool lookup(uint64_t a, struct range *out)
{
	for (uint32_t spins = 0;; spins++) {
		uint32_t s = __atomic_load_n(&seq, __ATOMIC_ACQUIRE), lo = 0, hi;
		const struct table *t;
		bool found = false;

		if (s & 1) {
			if (spins % 64 == 63)
				sched_yield();
			continue;
		}
		t = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
		hi = t ? __atomic_load_n(&t->n, __ATOMIC_RELAXED) : 0;
		if (t && hi > t->cap)
			hi = t->cap;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			struct range r;

			memcpy(&r, &t->r[mid], sizeof(r));
			if (a < r.start) {
				hi = mid;
			} else if (a >= r.end) {
				lo = mid + 1;
			} else {
				*out = r;
				found = true;
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&seq, __ATOMIC_RELAXED) == s)
			return found;
	}
}

/* The maps read again if it is time (a page no shared mapping known
 * holds): by one thread, the others go on. */
static void maybe_read(void)
{
	uint64_t now = emu_now_ns(), wait = read_cost_ns * REREAD_SHARE;
	sigset_t was;

	if (now - __atomic_load_n(&read_ns, __ATOMIC_RELAXED) < (wait > REREAD_NS ? wait : REREAD_NS))
		return;
	/* (signals held off: as emu_lock_quiet, but not waiting) */
	emu_signals_off(&was);
	if (!__atomic_exchange_n(&maps_lock, 1, __ATOMIC_ACQUIRE)) {
		if (!tab)
			tab = table_new(TABLE_MIN);
		if (tab)
			maps_read(now);
		emu_unlock(&maps_lock);
	}
	emu_signals_back(&was);
}

uint64_t emu_maps__key(uint64_t a, uint64_t *off)
{
	struct range r;

	if (!lookup(a, &r)) {
		maybe_read();
		if (!lookup(a, &r)) {
			*off = a;
			return 0;
		}
	}
	*off = a - r.start + r.off;
	return r.space;
}

bool emu_maps__readable(uint64_t a)
{
	struct vma v;
	sigset_t was;
	bool r;

	emu_lock_quiet(&maps_lock, &was);
	r = vma_at(a, &v) && v.readable;
	emu_unlock_quiet(&maps_lock, &was);
	return r;
}

void emu_maps__forked(void)
{
	maps_lock = 0;
	if (seq & 1)
		seq++;
}

/* ---- the program's calls ----
 * Ours bind ahead of libtsan's and libc's; in a Clang build the
 * executable's interceptors are patched to these. The C library's own
 * mappings (thread stacks, malloc's arenas) are private and need no
 * telling. */

EXPORT void *mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	void *m;

	if (!real_mmap)
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))emu_next("mmap", (void *)mmap);
	if (!real_mmap) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	/* Under record, a mapping the kernel places goes to the C library's
	 * mmap, past libtsan's interceptor: all that does besides is reset
	 * ThreadSanitizer's shadow of the range (writes, or madvise, over four
	 * times its size), which nothing reads here (the access hooks are the
	 * runtime's; record has libtsan ignore its interceptors' accesses).
	 * A mapping at an address the program asks for (MAP_FIXED, a hint)
	 * still goes through it: it keeps those out of libtsan's own memory.
	 * (A Clang build's executable calls this in place of its interceptor,
	 * so it never had the reset.) */
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
		emu_forget((uintptr_t)a, len);  /* whatever was mapped there goes */
	if (tab && !a && !(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))) {
		if (!libc_mmap)
			libc_mmap = (void *(*)(void *, size_t, int, int, int, off_t))emu_libc("mmap");
		m = (libc_mmap ? libc_mmap : real_mmap)(a, len, prot, flags, fd, off);
	} else {
		m = real_mmap(a, len, prot, flags, fd, off);
	}
	if (m != MAP_FAILED && tab) {
		/* MAP_SHARED_VALIDATE is MAP_SHARED | MAP_PRIVATE: the type
		 * compared whole, or every private mapping is asked about */
		int type = flags & MAP_TYPE;

		if (type == MAP_SHARED || type == MAP_SHARED_VALIDATE) {
			learn((uintptr_t)m, len);
		} else {
			sigset_t was;

			write_begin(&was);
			write_end(table_cut((uintptr_t)m, (uintptr_t)m + len), &was);
		}
	}
	return m;
}

EXPORT void *mmap64(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(a, len, prot, flags, fd, off);
}

EXPORT int munmap(void *a, size_t len)
{
	int r;

	if (!real_munmap)
		real_munmap = (int (*)(void *, size_t))emu_next("munmap", (void *)munmap);
	if (!real_munmap) {
		errno = ENOSYS;
		return -1;
	}
	emu_forget((uintptr_t)a, len);
	r = real_munmap(a, len);
	if (!r && tab) {
		sigset_t was;

		write_begin(&was);
		write_end(table_cut((uintptr_t)a, (uintptr_t)a + len), &was);
	}
	return r;
}

/* MADV_DONTNEED and MADV_REMOVE give private memory new zeroed pages at
 * the next touch (an allocator's purge: jemalloc's, tcmalloc's): its
 * lines are forgotten, as at an unmapping. (MADV_FREE may keep the old
 * pages: not.) */
EXPORT int madvise(void *a, size_t len, int advice)
{
	if (!real_madvise)
		real_madvise = (int (*)(void *, size_t, int))emu_next("madvise", (void *)madvise);
	if (!real_madvise) {
		errno = ENOSYS;
		return -1;
	}
	if (advice == MADV_DONTNEED || advice == MADV_REMOVE)
		emu_forget((uintptr_t)a, len);
	return real_madvise(a, len, advice);
}

EXPORT void *mremap(void *a, size_t len, size_t new_len, int flags, ...)
{
	void *to = NULL, *m;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	if (!real_mremap)
		real_mremap = (void *(*)(void *, size_t, size_t, int, void *))emu_next("mremap", (void *)mremap);
	if (!real_mremap) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	/* (what a shrinking unmaps goes, and what a move to a fixed place
	 * maps over; a move's old place is not looked at: a buffer grown call
	 * by call would pay its size each time, and its old lines are reused
	 * as unmapped memory's) */
	if (new_len < len) {
		uintptr_t keep = ((uintptr_t)a + new_len + 4095) & ~(uintptr_t)4095;

		if (keep < (uintptr_t)a + len)
			emu_forget(keep, (uintptr_t)a + len - keep);
	}
	if (flags & MREMAP_FIXED)
		emu_forget((uintptr_t)to, new_len);
	m = real_mremap(a, len, new_len, flags, to);
	if (m != MAP_FAILED && tab) {
		learn((uintptr_t)a, len);       /* gone, or kept (MREMAP_DONTUNMAP) */
		learn((uintptr_t)m, new_len);
	}
	return m;
}
