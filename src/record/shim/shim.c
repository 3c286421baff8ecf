// SPDX-License-Identifier: GPL-2.0
/*
 * libc2cscan-alloc.so: preloaded by `c2cscan record --alloc` into the command
 * it launches. Every allocation and free of the C library's allocator and of
 * C++'s operator new/delete (all variants) becomes an allocation event
 * (perfdata/perf_data.h) with the caller's return address as its site.
 *
 * Cost is the point (a workload allocating millions of times must not crawl):
 * events are packed (perfdata/alloc_pack.h: 6-8 bytes each instead of 48)
 * into a per-thread buffer with no system call, stamped with
 * CLOCK_MONOTONIC through the vDSO (the recording's samples use the same
 * clock: use_clockid), and a full buffer is appended as one block with one
 * write(2) to $C2CSCAN_ALLOC_DIR/alloc-PID.bin, which record reads at the
 * end. The
 * file is opened and written by system calls, not libc's functions: in a
 * -fsanitize=thread program those are libtsan's interceptors, which saw
 * the shim's lock-free handover of the descriptor as a data race.
 *
 * The real allocator is the next definition (dlsym RTLD_NEXT), so a program
 * linked with jemalloc or tcmalloc keeps it. dlsym itself may allocate:
 * those few early requests are served from a static arena. A thread-local
 * depth keeps the shim's own calls (and an allocator calling itself, as
 * realloc may) out of the events. What is lost: a process's buffered events
 * when it ends by _exit or a signal, or execs (the exec'd image writes its
 * own from then on); record says how many processes wrote nothing.
 *
 * Built as a shared object apart from libc2cscan.a; includes nothing of the
 * project but the record format.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/alloc_pack.h"
#include "record/boot_alloc.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define BUF_BYTES (64 * 1024 - 64)      /* a thread's packed events (~9000) */
#define STACK_FRAMES 16                 /* callers kept above the site (record -g) */

struct tbuf {
	atomic_flag lock;               /* the owner appends, exit and fork flush */
	bool in_use;
	uint32_t used;                  /* bytes of data */
	struct tbuf *next;              /* every buffer ever made, for the flush at exit */
	struct pd_alloc_packer k;
	struct pd_alloc_block head;     /* written with data, right after it */
	uint8_t data[BUF_BYTES];
};

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static void (*real_free)(void *);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

static bool active;                     /* C2CSCAN_ALLOC_DIR was set and the buffers can be made */
static bool stacks;                     /* C2CSCAN_ALLOC_STACK: allocation stacks (record -g) */
static bool resolving;
static char out_dir[512];
static int out_fd = -1;
static uint32_t my_pid;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *bufs;
static pthread_key_t tkey;

static TLS struct tbuf *my_buf;
static TLS int depth;


static void resolve(void)
{
	resolving = true;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_reallocarray = dlsym(RTLD_NEXT, "reallocarray");
	real_free = dlsym(RTLD_NEXT, "free");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	resolving = false;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void lock(struct tbuf *b)
{
	while (atomic_flag_test_and_set_explicit(&b->lock, memory_order_acquire))
		;
}

static void unlock(struct tbuf *b)
{
	atomic_flag_clear_explicit(&b->lock, memory_order_release);
}

/* No events: a block starts afresh. */
static void buf_empty(struct tbuf *b)
{
	b->head.nr = 0;
	b->used = 0;
	b->k = (struct pd_alloc_packer){ { { 0 } } };
}

static int out_open(void)
{
	char path[600];

	if (out_fd < 0) {
		snprintf(path, sizeof(path), "%s/alloc-%u.bin", out_dir, my_pid);
		out_fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	}
	return out_fd;
}

/* Appends the buffer's events as a block (held locked). A failed write
 * loses them: the recording goes on without. */
static void flush_locked(struct tbuf *b)
{
	const char *p = (const char *)&b->head;
	size_t left = sizeof(b->head) + b->used;
	int fd = b->head.nr ? out_open() : -1;

	b->head.magic = PD_ALLOC_BLOCK_MAGIC;
	b->head.bytes = b->used;
	b->head.pid = my_pid;
	while (fd >= 0 && left) {
		ssize_t w = syscall(SYS_write, fd, p, left);

		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	buf_empty(b);
}

static void thread_done(void *arg)
{
	struct tbuf *b = arg;

	lock(b);
	flush_locked(b);
	b->in_use = false;
	unlock(b);
	my_buf = NULL;
}

/* The calling thread's buffer: a free one of an ended thread, or a new one
 * (mmap: no allocator call). */
static struct tbuf *tbuf_get(void)
{
	struct tbuf *b;

	pthread_mutex_lock(&reg_lock);
	for (b = bufs; b && b->in_use; b = b->next)
		;
	if (!b) {
		b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED) {
			pthread_mutex_unlock(&reg_lock);
			return NULL;
		}
		atomic_flag_clear(&b->lock);
		b->next = bufs;
		bufs = b;
	}
	b->in_use = true;
	buf_empty(b);
	b->head.tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&reg_lock);
	pthread_setspecific(tkey, b);
	return b;
}

/* Packs an event into the buffer (held locked), a full one written first. */
static void put(struct tbuf *b, uint16_t kind, uint16_t fn, const uint64_t w[4])
{
	if (b->used > sizeof(b->data) - PD_ALLOC_PACKED_MAX)
		flush_locked(b);
	b->used = (uint32_t)(pd_alloc__pack(b->data + b->used, &b->k, kind, fn, w) - b->data);
	b->head.nr++;
}

/* The callers above site (the libgcc unwinder, through backtrace(3)):
 * the frames after site's in this thread's stack, at most STACK_FRAMES. */
static int callers_of(const void *site, uint64_t *out)
{
	void *bt[STACK_FRAMES + 8];
	int n = backtrace(bt, STACK_FRAMES + 8), i = 0, k = 0;

	while (i < n && bt[i] != site)
		i++;
	for (i++; i < n && k < STACK_FRAMES; i++)
		out[k++] = (uintptr_t)bt[i];
	return k;
}

static void emit(uint16_t kind, uint16_t fn, const void *addr, size_t size, const void *site)
{
	uint64_t up[STACK_FRAMES];
	struct pd_alloc_event f;
	struct tbuf *b;
	int nup = 0;

	if (!active || depth)
		return;
	depth++;
	if (stacks && kind == PD_ALLOC_ALLOC)
		nup = callers_of(site, up);
	b = my_buf ? my_buf : (my_buf = tbuf_get());
	if (b) {
		lock(b);
		put(b, kind, fn, (uint64_t[4]){ now_ns(), (uintptr_t)addr, size, (uintptr_t)site });
		/* PD_ALLOC_FRAMES: the callers, right after their allocation */
		for (int i = 0; i < nup;) {
			i += pd_alloc__frames(&f, up + i, (size_t)(nup - i), my_pid, b->head.tid);
			put(b, f.kind, f.fn, (uint64_t[4]){ f.time, f.addr, f.size, f.site });
		}
		unlock(b);
	}
	depth--;
}

static void flush_all(void)
{
	pthread_mutex_lock(&reg_lock);
	for (struct tbuf *b = bufs; b; b = b->next) {
		lock(b);
		flush_locked(b);
		unlock(b);
	}
	pthread_mutex_unlock(&reg_lock);
}

/* The child of a fork is another process: its own file; what the parent
 * had buffered is the parent's to write; the other threads are gone. */
static void after_fork_child(void)
{
	my_pid = (uint32_t)getpid();
	if (out_fd >= 0)
		syscall(SYS_close, out_fd);
	out_fd = -1;
	pthread_mutex_init(&reg_lock, NULL);
	for (struct tbuf *b = bufs; b; b = b->next) {
		atomic_flag_clear(&b->lock);
		buf_empty(b);
		b->in_use = b == my_buf;
	}
	if (my_buf)
		my_buf->head.tid = (uint32_t)syscall(SYS_gettid);
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *dir = getenv("C2CSCAN_ALLOC_DIR");

	if (!real_malloc)
		resolve();
	if (!dir || !*dir || strlen(dir) >= sizeof(out_dir) || pthread_key_create(&tkey, thread_done))
		return;
	strcpy(out_dir, dir);
	my_pid = (uint32_t)getpid();
	if (getenv("C2CSCAN_ALLOC_STACK")) {
		void *warm[2];

		/* the first backtrace loads libgcc's unwinder: now, not in a malloc */
		depth++;
		backtrace(warm, 2);
		depth--;
		stacks = true;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	active = true;
}

__attribute__((destructor)) static void shim_fini(void)
{
	if (active)
		flush_all();
}

/* ---- the C library's allocator ---- */

#define ENSURE(...)                                                       \
	do {                                                              \
		if (!real_malloc) {                                       \
			if (resolving)                                    \
				return __VA_ARGS__;                       \
			resolve();                                        \
		}                                                         \
	} while (0)

#define CALL(expr)                                                        \
	({                                                                \
		__typeof__(expr) _r;                                      \
		depth++;                                                  \
		_r = (expr);                                              \
		depth--;                                                  \
		_r;                                                       \
	})

/* What an allocator call did: old (a realloc's) freed when it moved or n is
 * 0, p (n bytes) allocated when not NULL. Returns p. */
static void *allocated(void *old, void *p, size_t n, uint16_t fn, const void *site)
{
	if (old && (p || !n))
		emit(PD_ALLOC_FREE, fn, old, 0, site);
	if (p)
		emit(PD_ALLOC_ALLOC, fn, p, n, site);
	return p;
}

EXPORT void *malloc(size_t n)
{
	ENSURE(boot_alloc(n));
	return allocated(NULL, CALL(real_malloc(n)), n, PD_ALLOC_FN_MALLOC, __builtin_return_address(0));
}

EXPORT void *calloc(size_t nmemb, size_t n)
{
	/* dlsym's calloc: zeroed static memory */
	ENSURE(nmemb && n > SIZE_MAX / nmemb ? NULL : boot_alloc(nmemb * n));
	return allocated(NULL, CALL(real_calloc(nmemb, n)), nmemb * n, PD_ALLOC_FN_CALLOC,
			 __builtin_return_address(0));
}

EXPORT void *realloc(void *old, size_t n)
{
	ENSURE(NULL);
	if (in_boot(old)) {
		void *p = malloc(n);

		if (p)
			memcpy(p, old, n < sizeof(boot) ? n : sizeof(boot));
		return p;
	}
	return allocated(old, CALL(real_realloc(old, n)), n, PD_ALLOC_FN_REALLOC, __builtin_return_address(0));
}

EXPORT void *reallocarray(void *old, size_t nmemb, size_t n)
{
	void *p;

	ENSURE(NULL);
	if (!real_reallocarray || in_boot(old))
		return nmemb && n > SIZE_MAX / nmemb ? NULL : realloc(old, nmemb * n);
	p = CALL(real_reallocarray(old, nmemb, n));
	return allocated(old, p, nmemb * n, PD_ALLOC_FN_REALLOCARRAY, __builtin_return_address(0));
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	ENSURE();
	emit(PD_ALLOC_FREE, PD_ALLOC_FN_FREE, p, 0, __builtin_return_address(0));
	depth++;
	real_free(p);
	depth--;
}

EXPORT void *memalign(size_t align, size_t n)
{
	ENSURE(NULL);
	return allocated(NULL, CALL(real_memalign(align, n)), n, PD_ALLOC_FN_MEMALIGN, __builtin_return_address(0));
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	ENSURE(NULL);
	return allocated(NULL, CALL(real_aligned_alloc(align, n)), n, PD_ALLOC_FN_ALIGNED_ALLOC,
			 __builtin_return_address(0));
}

EXPORT void *valloc(size_t n)
{
	ENSURE(NULL);
	return allocated(NULL, CALL(real_valloc(n)), n, PD_ALLOC_FN_VALLOC, __builtin_return_address(0));
}

EXPORT void *pvalloc(size_t n)
{
	ENSURE(NULL);
	return allocated(NULL, CALL(real_pvalloc(n)), n, PD_ALLOC_FN_PVALLOC, __builtin_return_address(0));
}

EXPORT int posix_memalign(void **pp, size_t align, size_t n)
{
	int r;

	ENSURE(12 /* ENOMEM */);
	r = CALL(real_posix_memalign(pp, align, n));
	if (!r)
		emit(PD_ALLOC_ALLOC, PD_ALLOC_FN_POSIX_MEMALIGN, *pp, n, __builtin_return_address(0));
	return r;
}

/* ---- C++ operator new and delete (Itanium ABI names) ----
 * Served by the real malloc/memalign, which libstdc++'s own operator new
 * does too; when it fails, the real operator new runs (new handler, then
 * bad_alloc), unrecorded. */

static void *real_cxx(const char *name, size_t n, size_t align, bool aligned)
{
	void *(*f)(size_t, ...) = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return aligned ? f(n, align) : f(n);
}

static void *cxx_new(size_t n, size_t align, uint16_t fn, const char *name, bool nothrow, const void *site)
{
	void *p;

	ENSURE(NULL);
	if (!n)
		n = 1;
	p = CALL(align ? real_memalign(align, n) : real_malloc(n));
	if (!p) {
		if (nothrow)
			return NULL;
		return real_cxx(name, n, align, align != 0);
	}
	return allocated(NULL, p, n, fn, site);
}

static void cxx_delete(void *p, uint16_t fn, const void *site)
{
	if (!p || in_boot(p))
		return;
	ENSURE();
	emit(PD_ALLOC_FREE, fn, p, 0, site);
	depth++;
	real_free(p);
	depth--;
}

#define RA __builtin_return_address(0)
EXPORT void *_Znwm(size_t n) { return cxx_new(n, 0, PD_ALLOC_FN_NEW, "_Znwm", false, RA); }
EXPORT void *_Znam(size_t n) { return cxx_new(n, 0, PD_ALLOC_FN_NEW_ARRAY, "_Znam", false, RA); }
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt)
{
	return cxx_new(n, 0, PD_ALLOC_FN_NEW, NULL, true, RA);
}
EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt)
{
	return cxx_new(n, 0, PD_ALLOC_FN_NEW_ARRAY, NULL, true, RA);
}
EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al)
{
	return cxx_new(n, al, PD_ALLOC_FN_NEW, "_ZnwmSt11align_val_t", false, RA);
}
EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al)
{
	return cxx_new(n, al, PD_ALLOC_FN_NEW_ARRAY, "_ZnamSt11align_val_t", false, RA);
}
EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new(n, al, PD_ALLOC_FN_NEW, NULL, true, RA);
}
EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new(n, al, PD_ALLOC_FN_NEW_ARRAY, NULL, true, RA);
}
EXPORT void _ZdlPv(void *p) { cxx_delete(p, PD_ALLOC_FN_DELETE, RA); }
EXPORT void _ZdaPv(void *p) { cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA); }
EXPORT void _ZdlPvm(void *p, size_t n) { cxx_delete(p, PD_ALLOC_FN_DELETE, RA); }
EXPORT void _ZdaPvm(void *p, size_t n) { cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA); }
EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { cxx_delete(p, PD_ALLOC_FN_DELETE, RA); }
EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA); }
EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(p, PD_ALLOC_FN_DELETE, RA); }
EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA); }
EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(p, PD_ALLOC_FN_DELETE, RA); }
EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA); }
EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(p, PD_ALLOC_FN_DELETE, RA);
}
EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(p, PD_ALLOC_FN_DELETE_ARRAY, RA);
}
