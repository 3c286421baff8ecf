// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate: the program's heap is its production allocator's, not
 * libtsan's. libtsan's malloc aligns otherwise than glibc's (a 4 x 64-byte
 * array starts on a line under TSan, 16, 32 or 48 bytes past one under
 * glibc), so under it the emulation hid false sharing the production build
 * has and invented some it has not. Part of libc2cscan-emu.so.
 *
 * The production allocator is the first object in link order, past this
 * runtime, record --alloc's shim and whatever defines ThreadSanitizer's
 * runtime (libtsan; a Clang executable), that defines malloc itself: the C
 * library's, or jemalloc, tcmalloc, mimalloc linked ahead of it. The
 * malloc family, the aligned allocators, malloc_usable_size and every
 * operator new and delete go there while the model runs. Memory libtsan's
 * own interceptors allocated for the program (strdup, getline, asprintf,
 * realpath, ...) or that was allocated before the model started is
 * libtsan's: __sanitizer_get_ownership says so, and it goes back to
 * libtsan (free, realloc, malloc_usable_size).
 *
 * Without libtsan (record preloaded its stand-in, libc2cscan-libtsan.so.N),
 * what is not the program's (the runtime's own calls: the dynamic linker's
 * look-ups, the environment; a call before the model started) comes from
 * a heap of the runtime's own (own_*), mapped apart, where libtsan's would
 * have served it: the production heap sees the program's calls alone, as
 * in the bare build.
 *
 * Without the model (not run by record) every call is the next
 * definition's, libtsan's, as in a plain TSan run. A Clang build's
 * allocator is in its executable, ahead of any preloaded library: while
 * the model runs, emu.c writes a jump to this file's function over each of
 * the executable's (emu_heap_fns), and what ThreadSanitizer's allocator
 * already holds goes back through the entry points left as they are: its
 * cfree, and the sanitizer interface's ownership and size.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record/emu/emu.h"
#include "record/boot_alloc.h"

struct allocator {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
	size_t (*usable)(void *);
};

/* prod: the production allocator (resolved when the model starts); next:
 * the next definitions (libtsan's interceptors) */
static struct allocator prod, next;
static bool use_prod;
static bool prod_glibc;                 /* prod is the C library's malloc */
/* the runtime's own calls (dlopen, dladdr while resolving) allocate from
 * libtsan's heap: the program's stays as the production build has it */
static __thread __attribute__((tls_model("initial-exec"))) int in_runtime;
static void *libc_strdup, *next_strdup, *libc_strndup, *next_strndup, *libc_getdelim, *next_getdelim,
	*libc_vasprintf, *next_vasprintf, *libc_realpath, *next_realpath;
static int (*owned_by_tsan)(const volatile void *);
/* a Clang build's: the executable's allocator jumps here (emu_heap__program) */
static bool taken;
static size_t (*tsan_size)(const volatile void *);
static char prod_name[256];
static int resolving;

/* ---- the runtime's own heap, without libtsan: blocks of 2^k bytes (k
 * from 4), each class a free list, carved from one mapping reserved at the
 * first call (MAP_NORESERVE: pages as they are written); nothing is given
 * back to the kernel. What it cannot hold is NULL (the runtime's calls are
 * a few kilobytes). ---- */
#define OWN_SPAN (64ull << 20)
#define OWN_CLASSES 27                  /* blocks up to 2^26 bytes: the span */
#define OWN_MAGIC 0xc2c5ca11ull

struct own_head {
	uint32_t cls;
	uint32_t magic;
	uint64_t back;                  /* the block's start: payload minus back (memalign) */
};

static char *own_base;
static uint64_t own_used;
static uint32_t own_lock;
static void *own_free[OWN_CLASSES];

static bool own_owns(const void *p)
{
	return own_base && (const char *)p >= own_base && (const char *)p < own_base + OWN_SPAN;
}

/* (in the place of libtsan's ownership test: memory not the program's) */
static int own_is(const volatile void *p)
{
	return own_owns((const void *)p);
}

/* A block of at least n bytes past a header, its payload aligned to
 * align (16 or more, a power of two). */
static void *own_alloc(size_t n, size_t align)
{
	size_t need = n + sizeof(struct own_head) + (align > 16 ? align : 0);
	uint32_t cls = 4;
	char *b = NULL, *pay;
	struct own_head h;
	sigset_t was;

	if (n > (1ull << (OWN_CLASSES - 1)))
		return NULL;
	while ((1ull << cls) < need)
		cls++;
	if (cls >= OWN_CLASSES)
		return NULL;
	emu_lock_quiet(&own_lock, &was);
	if (!own_base) {
		void *m = emu_sys_mmap(OWN_SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				       -1, 0);

		own_base = m == MAP_FAILED ? NULL : m;
	}
	if (own_free[cls]) {
		b = own_free[cls];
		memcpy(&own_free[cls], b, sizeof(void *));
	} else if (own_base && own_used + (1ull << cls) <= OWN_SPAN) {
		b = own_base + own_used;
		own_used += 1ull << cls;
	}
	emu_unlock_quiet(&own_lock, &was);
	if (!b)
		return NULL;
	pay = b + sizeof(h);
	if (align > 16)
		pay = (char *)(((uintptr_t)pay + align - 1) & ~(uintptr_t)(align - 1));
	h = (struct own_head){ .cls = cls, .magic = OWN_MAGIC, .back = (uint64_t)(pay - b) };
	memcpy(pay - sizeof(h), &h, sizeof(h));
	return pay;
}

static struct own_head own_head_of(const void *p)
{
	struct own_head h;

	memcpy(&h, (const char *)p - sizeof(h), sizeof(h));
	return h;
}

static void own_release(void *p)
{
	struct own_head h = own_head_of(p);
	char *b = (char *)p - h.back;
	sigset_t was;

	if (h.magic != OWN_MAGIC || h.cls >= OWN_CLASSES || !own_owns(b))
		return;         /* (not a block of this heap's: left alone) */
	emu_lock_quiet(&own_lock, &was);
	memcpy(b, &own_free[h.cls], sizeof(void *));
	own_free[h.cls] = b;
	emu_unlock_quiet(&own_lock, &was);
}

void emu_heap__forked(void)
{
	own_lock = 0;
}

static size_t own_usable(void *p)
{
	struct own_head h = own_head_of(p);

	return h.magic == OWN_MAGIC && h.cls < OWN_CLASSES ? (1ull << h.cls) - h.back : 0;
}

static void *own_malloc(size_t n)
{
	return own_alloc(n, 16);
}

static void *own_calloc(size_t nmemb, size_t n)
{
	void *p = nmemb && n > SIZE_MAX / nmemb ? NULL : own_alloc(nmemb * n, 16);

	if (p)
		emu_zero(p, nmemb * n);
	return p;
}

static void *own_memalign(size_t align, size_t n)
{
	return align & (align - 1) ? NULL : own_alloc(n, align < 16 ? 16 : align);
}

static void *own_realloc(void *p, size_t n)
{
	size_t have = p ? own_usable(p) : 0;
	void *q;

	if (p && n <= have)
		return p;
	q = own_alloc(n, 16);
	if (q && p) {
		emu_copy(q, p, have);
		own_release(p);
	}
	return q;
}

/* (into a copy first: until next.malloc is set, the look-ups' own calls
 * get static memory, boot_alloc, not the allocator being looked up) */
static void resolve_next(void)
{
	struct allocator n;
	int (*owner)(const volatile void *);

	resolving = 1;
	n.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	n.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	n.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	n.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	n.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	n.usable = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
	owner = (int (*)(const volatile void *))dlsym(RTLD_NEXT, "__sanitizer_get_ownership");
	if (!owner && emu_libtsan_left_out()) {
		n = (struct allocator){ own_malloc, own_calloc, own_realloc, own_release, own_memalign, own_usable };
		owner = own_is;
	}
	owned_by_tsan = owner;
	next = n;
	resolving = 0;
}

/* The first object in link order that defines name itself and is neither
 * this runtime, the allocation shim nor a ThreadSanitizer runtime. */
struct find {
	const char *name;
	void *sym;
	const char *path;
};

/* sym, found through the object at path, is that object's own definition,
 * not one of its dependencies' */
static bool own(const char *path, const void *sym)
{
	Dl_info di;

	return sym && dladdr(sym, &di) && di.dli_fname && !strcmp(di.dli_fname, path);
}

/* Whether the object at path is this runtime (by its address: it may be
 * named otherwise, C2CSCAN_EMU_LIB) or record --alloc's shim. */
static bool ours(const char *path)
{
	static const char *self;
	Dl_info di;

	if (!self && dladdr((void *)emu_heap__start, &di) && di.dli_fname)
		self = di.dli_fname;
	return (self && !strcmp(path, self)) || strstr(path, "libc2cscan-alloc");
}

static int find_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	const char *path = info->dlpi_name;
	void *h, *s;

	(void)size;
	/* (the executable, unnamed, is never it: its handle searches the
	 * whole scope) */
	if (!path || !*path || ours(path))
		return 0;
	h = emu_loaded(path);
	if (!h)
		return 0;
	s = dlsym(h, f->name);
	if (own(path, s) && !own(path, dlsym(h, "__tsan_init"))) {
		f->sym = s;
		f->path = path;
	}
	emu_release(h);
	return f->sym != NULL;
}

static void *find_def(const char *name, const char **path)
{
	struct find f = { name, NULL, NULL };

	in_runtime++;
	dl_iterate_phdr(find_one, &f);
	in_runtime--;
	if (path)
		*path = f.path;
	return f.sym;
}

/* The program's malloc is found ahead of this runtime's (a Clang build's
 * executable defines the sanitizer's): its heap stays libtsan's. */
static bool program_allocator(void)
{
	/* the program's scope, the executable first (RTLD_DEFAULT would search
	 * this library first: it is linked -Bsymbolic) */
	void *prog = emu_loaded(NULL), *g = prog ? dlsym(prog, "malloc") : NULL;
	Dl_info di;
	bool theirs = g && dladdr(g, &di) && (!di.dli_fname || !ours(di.dli_fname));

	emu_release(prog);
	return theirs;
}

void emu_heap__start(void)
{
	static int started;
	const char *path = NULL;

	if (started++)
		return;
	if (!next.malloc)
		resolve_next();
	resolving = 1;
	prod.malloc = (void *(*)(size_t))find_def("malloc", &path);
	prod.calloc = (void *(*)(size_t, size_t))find_def("calloc", NULL);
	prod.realloc = (void *(*)(void *, size_t))find_def("realloc", NULL);
	prod.free = (void (*)(void *))find_def("free", NULL);
	prod.memalign = (void *(*)(size_t, size_t))find_def("memalign", NULL);
	prod.usable = (size_t (*)(void *))find_def("malloc_usable_size", NULL);
	libc_strdup = find_def("strdup", NULL);
	libc_strndup = find_def("strndup", NULL);
	libc_getdelim = find_def("getdelim", NULL);
	libc_vasprintf = find_def("vasprintf", NULL);
	libc_realpath = find_def("realpath", NULL);
	prod_glibc = prod.malloc && prod.malloc == (void *(*)(size_t))emu_libc("malloc");
	resolving = 0;
	if (path) {
		const char *base = strrchr(path, '/');

		strncpy(prod_name, base ? base + 1 : path, sizeof(prod_name) - 1);
	}
	use_prod = prod.malloc && prod.calloc && prod.realloc && prod.free && prod.memalign && owned_by_tsan;
}

const char *emu_heap__allocator(void)
{
	static int checked;

	/* asked once the constructors run (earlier, the global scope may not
	 * show the executable's definitions yet) */
	if (use_prod && !taken && !checked++ && program_allocator())
		prod_name[0] = '\0';
	return use_prod && prod_name[0] ? prod_name : NULL;
}

/* The first call: the next definitions, and under record (its
 * environment) the production allocator at once, before the model starts:
 * what libraries' constructors allocate (libstdc++'s exception pool) is on
 * the production heap as in the bare build. */
static void first_call(void)
{
	const char *d;

	resolve_next();
	d = getenv("C2CSCAN_EMU_DIR");
	if (d && *d)
		emu_heap__start();
}

#define ENSURE(...)                                                       \
	do {                                                              \
		if (!next.malloc) {                                       \
			if (resolving)                                    \
				return __VA_ARGS__;                       \
			first_call();                                     \
		}                                                         \
	} while (0)

/* memory this allocator did not make: libtsan's (its interceptors', or
 * allocated before the model ran) */
static bool tsan_owns(const void *p)
{
	return !use_prod || (owned_by_tsan && owned_by_tsan(p));
}

/* the program's calls, while the model runs */
static inline bool prod_call(void)
{
	return use_prod && !in_runtime;
}

EXPORT void *malloc(size_t n)
{
	ENSURE(boot_alloc(n));
	return prod_call() ? prod.malloc(n) : next.malloc(n);
}

EXPORT void *calloc(size_t nmemb, size_t n)
{
	/* dlsym's calloc: zeroed static memory */
	ENSURE(nmemb && n > SIZE_MAX / nmemb ? NULL : boot_alloc(nmemb * n));
	return prod_call() ? prod.calloc(nmemb, n) : next.calloc(nmemb, n);
}

/* A block the C library's malloc mapped for itself (over its mmap
 * threshold, which stops growing at 32 MiB) goes back to the kernel when
 * freed, out of the program's sight: the model forgets its lines first,
 * as it does those of the program's own unmappings (emu_forget), or the
 * next block mapped at its address (the next such frame, another
 * thread's) took them on with their owners. Its chunk's size word, just
 * before it, has IS_MMAPPED (2) set and counts the two header words. (Not
 * at realloc: glibc grows such a block in place or moves it with mremap
 * at little cost, and forgetting a growing buffer's lines at each call
 * would cost in proportion to its size; a block moved away leaves its
 * old lines to be reused as unmapped memory's.) */
static void forget_mapped(void *p)
{
	size_t w;

	if (!prod_glibc)
		return;
	memcpy(&w, (const char *)p - sizeof(w), sizeof(w));
	if ((w & 2) && w > 2 * sizeof(w))
		emu_forget((uintptr_t)p, (w & ~(size_t)7) - 2 * sizeof(w));
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	ENSURE();
	if (tsan_owns(p)) {
		next.free(p);
	} else {
		forget_mapped(p);
		prod.free(p);
	}
}

static size_t usable(void *p)
{
	if (tsan_owns(p))
		return next.usable ? next.usable(p) : 0;
	return prod.usable ? prod.usable(p) : 0;
}

EXPORT void *realloc(void *p, size_t n)
{
	void *q;
	size_t have;

	ENSURE(NULL);
	if (!p)
		return malloc(n);
	if (in_boot(p) || (use_prod && tsan_owns(p))) {
		/* into the production heap: what it held, copied */
		have = in_boot(p) ? (size_t)(boot + sizeof(boot) - (char *)p) : usable(p);
		q = malloc(n ? n : 1);
		if (!q)
			return NULL;
		emu_copy(q, p, have < n ? have : n);
		free(p);
		return q;
	}
	return use_prod ? prod.realloc(p, n) : next.realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t nmemb, size_t n)
{
	if (nmemb && n > SIZE_MAX / nmemb) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, nmemb * n);
}

EXPORT void *memalign(size_t align, size_t n)
{
	ENSURE(NULL);
	return prod_call() ? prod.memalign(align, n) : next.memalign(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *valloc(size_t n)
{
	return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return memalign(page, (n + page - 1) & ~(page - 1));
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p || in_boot(p))
		return 0;
	ENSURE(0);
	return usable(p);
}

/*
 * C++: libtsan intercepts every operator new and delete into its own
 * allocator; here they are the production heap's, as libstdc++'s would be
 * (which call malloc). A failed new throws as libstdc++'s does: through
 * its own operator new when it is loaded, else abort (nothing to throw
 * with from C).
 */
static void *new_fail(size_t n, bool nothrow)
{
	static void *(*libstdcxx_new)(size_t);

	if (nothrow)
		return NULL;
	if (!libstdcxx_new)
		libstdcxx_new = (void *(*)(size_t))find_def("_Znwm", NULL);
	if (libstdcxx_new)
		return libstdcxx_new(n);        /* calls malloc, fails again, throws */
	abort();
}

static void *new_aligned(size_t n, size_t align, bool nothrow)
{
	void *p = memalign(align, n ? n : 1);

	return p ? p : new_fail(n, nothrow);
}

static void *new_plain(size_t n, bool nothrow)
{
	void *p = malloc(n ? n : 1);

	return p ? p : new_fail(n, nothrow);
}

EXPORT void *_Znwm(size_t n) { return new_plain(n, false); }
EXPORT void *_Znam(size_t n) { return new_plain(n, false); }
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_plain(n, true); }
EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_plain(n, true); }
EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t a) { return new_aligned(n, a, false); }
EXPORT void *_ZnamSt11align_val_t(size_t n, size_t a) { return new_aligned(n, a, false); }
EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void *t)
{
	(void)t;
	return new_aligned(n, a, true);
}
EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void *t)
{
	(void)t;
	return new_aligned(n, a, true);
}

EXPORT void _ZdlPv(void *p) { free(p); }
EXPORT void _ZdaPv(void *p) { free(p); }
EXPORT void _ZdlPvm(void *p, size_t n) { (void)n; free(p); }
EXPORT void _ZdaPvm(void *p, size_t n) { (void)n; free(p); }
EXPORT void _ZdlPvSt11align_val_t(void *p, size_t a) { (void)a; free(p); }
EXPORT void _ZdaPvSt11align_val_t(void *p, size_t a) { (void)a; free(p); }
EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t a) { (void)n; (void)a; free(p); }
EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t a) { (void)n; (void)a; free(p); }
EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *t) { (void)t; free(p); }
EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *t) { (void)t; free(p); }
EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t a, const void *t) { (void)a; (void)t; free(p); }
EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t a, const void *t) { (void)a; (void)t; free(p); }

/*
 * libtsan's interceptors of the C library functions that allocate for the
 * program allocate from libtsan's heap, which shifts everything the
 * program allocates after them. While the model runs they are the C
 * library's own, which allocate with malloc: the production heap, in the
 * production build's order.
 */
#define LIBC_FN(name) ((__typeof__(&name))libc_fn(#name, libc_##name, &next_##name))

/* mine: resolved when the model started (emu_heap__start), NULL when no
 * object past libtsan defines it: then libtsan's, as without the model */
static void *libc_fn(const char *name, void *mine, void **nxt)
{
	if (use_prod && mine)
		return mine;
	if (!*nxt)
		*nxt = dlsym(RTLD_NEXT, name);
	return *nxt;
}

EXPORT char *strdup(const char *s)
{
	return LIBC_FN(strdup)(s);
}

EXPORT char *strndup(const char *s, size_t n)
{
	return LIBC_FN(strndup)(s, n);
}

EXPORT ssize_t getdelim(char **line, size_t *n, int delim, FILE *fp)
{
	return LIBC_FN(getdelim)(line, n, delim, fp);
}

EXPORT ssize_t getline(char **line, size_t *n, FILE *fp)
{
	return getdelim(line, n, '\n', fp);
}

EXPORT int vasprintf(char **out, const char *fmt, va_list ap)
{
	return LIBC_FN(vasprintf)(out, fmt, ap);
}

EXPORT int asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}

EXPORT char *realpath(const char *path, char *resolved)
{
	return LIBC_FN(realpath)(path, resolved);
}

/* ---- a Clang build: the executable's allocator ---- */

static size_t tsan_usable(void *p)
{
	return tsan_size(p);
}

bool emu_heap__program(void *prog, const void *exe)
{
	void (*cf)(void *) = (void (*)(void *))emu_exe_sym(prog, exe, "cfree");
	int (*owner)(const volatile void *) = (int (*)(const volatile void *))emu_exe_sym(prog, exe,
										      "__sanitizer_get_ownership");

	tsan_size = (size_t (*)(const volatile void *))emu_exe_sym(prog, exe, "__sanitizer_get_allocated_size");
	if (!cf || !owner || !tsan_size || !prod.malloc || !prod.calloc || !prod.realloc || !prod.free ||
	    !prod.memalign)
		return false;
	/* the runtime's own calls (in_runtime) go to the production heap
	 * too: the executable's malloc is about to jump here */
	next.malloc = prod.malloc;
	next.calloc = prod.calloc;
	next.realloc = prod.realloc;
	next.memalign = prod.memalign;
	next.free = cf;
	next.usable = tsan_usable;
	owned_by_tsan = owner;
	taken = use_prod = true;
	return true;
}

#define F(name) { #name, (void *)name },
const struct emu_fn emu_heap_fns[] = {
	F(malloc) F(calloc) F(realloc) F(free) F(reallocarray) F(memalign) F(aligned_alloc) F(posix_memalign)
	F(valloc) F(pvalloc) F(malloc_usable_size)
	F(_Znwm) F(_Znam) F(_ZnwmRKSt9nothrow_t) F(_ZnamRKSt9nothrow_t) F(_ZnwmSt11align_val_t)
	F(_ZnamSt11align_val_t) F(_ZnwmSt11align_val_tRKSt9nothrow_t) F(_ZnamSt11align_val_tRKSt9nothrow_t)
	F(_ZdlPv) F(_ZdaPv) F(_ZdlPvm) F(_ZdaPvm) F(_ZdlPvSt11align_val_t) F(_ZdaPvSt11align_val_t)
	F(_ZdlPvmSt11align_val_t) F(_ZdaPvmSt11align_val_t) F(_ZdlPvRKSt9nothrow_t) F(_ZdaPvRKSt9nothrow_t)
	F(_ZdlPvSt11align_val_tRKSt9nothrow_t) F(_ZdaPvSt11align_val_tRKSt9nothrow_t)
	F(strdup) F(strndup) F(getdelim) F(getline) F(vasprintf) F(asprintf) F(realpath)
};
const size_t emu_heap_nfns = sizeof(emu_heap_fns) / sizeof(emu_heap_fns[0]);
