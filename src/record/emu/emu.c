// SPDX-License-Identifier: GPL-2.0
/*
 * libc2cscan-emu.so: what record --emulate preloads into a program built
 * with -fsanitize=thread. It defines the compilers' ThreadSanitizer access
 * hooks (__tsan_read8, __tsan_write4, the atomics, ...), so the program's
 * calls bind to these ahead of libtsan's, and runs a cache-coherence model
 * over every access: each thread is a core with its own cache; per line,
 * which thread holds it modified and which threads hold copies. A load that
 * finds the line modified by another thread is a HITM; a store that takes
 * it from another thread's modified copy a store HITM; a store to a line
 * others hold copies of a miss (it invalidates them); a load of a line
 * another thread read an LLC hit; the rest L1 hits. Atomics are performed
 * for real (sequentially consistent, at least as strong as asked) and are
 * locked loads and stores.
 *
 * In a GCC build record preloads, after this library, a stand-in named
 * libtsan.so.N when the program needs nothing else of libtsan (emurec.c,
 * src/record/standin/): libtsan is not loaded and the C library's
 * functions are the program's own. Otherwise libtsan stays loaded and
 * initialized (__tsan_init forwards to it): its interceptors (malloc,
 * pthread_*) keep working, only the per-access hooks are ours, and a hook
 * we do not define stays libtsan's.
 *
 * Samples: one access in C2CSCAN_EMU_PERIOD per thread (a countdown); of
 * HITMs and store HITMs one in C2CSCAN_EMU_HITM_PERIOD per thread, a rate
 * of their own (rare contention is not drowned by the other accesses'),
 * the same for every line, so that sample counts stay proportional to
 * what the model counted (countdowns start at a thread's own phase);
 * each with its time (CLOCK_MONOTONIC, the recording's clock), the
 * access's address and the hook's return address (with the code around
 * it in the thread's first sample of it: record finds the access's own
 * instruction there, record/emuip.c), tid, the thread's core, the class, its latency,
 * the accesses it stands for and, with C2CSCAN_EMU_FRAMES, the call chain
 * of the shadow stack that __tsan_func_entry/exit keep. They are written,
 * as struct pd_emu_sample records (perfdata/perf_data.h), to
 * $C2CSCAN_EMU_DIR/emu-PID, which record turns into samples of its file.
 * Run without record (no C2CSCAN_EMU_DIR) it says so once and models nothing.
 *
 * Never sanitized, no libc allocation on the hooks' path (the line table is
 * mapped), no dependency on the rest of c2cscan.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/perf_data.h"
#include "record/emu/emu.h"
#include "record/emu/proto.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define TABLE_BITS 20                   /* lines modelled at once */
#define TABLE_SIZE (1u << TABLE_BITS)
#define PROBES 32
#define STRIPES 1024
#define REGION (TABLE_SIZE / STRIPES)   /* a stripe's entries: 16 pages of the table */
#define MAX_CORES PD_EMU_CORES           /* sharers: bits 0-55 of a line's state */
#define STACK 1024                      /* shadow stack entries kept, the innermost (a ring) */
#define PAGES 256                       /* a thread's cache of page keys */
#define SEEN 256                        /* return addresses a thread remembers having sent the code of */
#define HELD 4096                       /* lines a thread remembers taking in its window (pace.c) */
#define HELD_WAYS 8                     /* ... in sets of this many */
#define HELD_SET_BITS 9
#define HELD_EXCL 0x80000000u           /* ... taken for writing */
#define HELD_ONE 0x40000000u            /* ... contended: kept in the gate for the window only */
#define WAIT_LINES 32                   /* lines a lock waiter goes on writing (emu_lock_wait) */
#define FAST_NONE (1ull << 63)          /* a gate's line that no access is in (not canonical) */
#define GATE 4                          /* runs of lines the hook's gate keeps (in_gate() spells them out) */
#define TAKE_AHEAD 63                   /* lines a thread takes with one of its own (take_ahead) */
#define KEPT 16384                      /* the gate's direct-mapped lines (in_kept) */
#define KEPT_NONE 0                     /* a kept place empty (no access is within 64 bytes of 0) */
#define FILLED 2048                     /* kept places gate_clear() empties one by one */
#define ONE_WIN 64                      /* contended lines the gate lets go of singly at a window's end */

/*
 * A line's state: owner + 1 holds it modified (0: nobody), sharers the
 * cores that hold copies. Keyed as the report keys lines: private memory
 * by (pid, line address), MAP_SHARED memory (files, /dev/shm, anonymous
 * shared) by (device, inode, line of the file), so that processes sharing
 * a page share its lines.
 */
struct line_key {                /* written once: read without stalls */
	uint64_t space;                 /* pid, or EMU_SHARED | device | inode */
	uint64_t tag;                   /* line number + 1; 0 empty (set last, once) */
};

struct line {                    /* written at every change of the line's state */
	uint64_t state;                 /* sharers (bits 0-55) | owner + 1 (bits 56-62) */
	/* the default model (pace.c): the cores that wrote the line in a
	 * window, window w's at w % 2: its number's low 8 bits (bits 56-63)
	 * | the cores (bits 0-55) */
	uint64_t wrote[2];
	uint32_t seen;                  /* the default model: the window (+ 1) a thread last took it in,
					 * renewed every SEEN_STEP windows at most (renew_age) */
	uint32_t waiting;               /* the default model: threads waiting to take a lock that go on
					 * taking the line meanwhile (its word's, or one they wrote just
					 * before: emu_lock_wait) */
};

/* A line's key and state in one cache line: a line met for the first
 * time costs one miss (and one page of the table) instead of two, and
 * the model's own state never shares a line with another's. */
struct entry {
	struct line_key key;
	struct line line;
	uint8_t pad[64 - sizeof(struct line_key) - sizeof(struct line)];
} __attribute__((aligned(64)));


struct revoke {                  /* a core's, a cache line of its own */
	uint32_t pending;               /* another core took a line from it: its gate's lines go at its
					 * next window (gate_next_window) */
} __attribute__((aligned(64)));

/* The model, in the file record made (in /dev/shm, else its directory)
 * that every process of the recording maps (MAP_SHARED): cores, locks and
 * lines are the same for a forked child and an exec'd program. */
struct model {
	struct pd_emu_model_head head;  /* cores (record reads cores_shared after the run) */
	struct pace pace;               /* the lockstep's slots (pace.c) */
	struct revoke revoked[MAX_CORES];
	uint8_t pad[12288 - sizeof(struct pd_emu_model_head) - sizeof(struct pace) -
		    MAX_CORES * sizeof(struct revoke)];
	uint32_t stripes[STRIPES];      /* the entries start at 16 KiB */
	struct entry e[TABLE_SIZE];
};

/* What a page's lines are keyed by: space, and the line number of its
 * first byte (the file's line for shared memory). */
struct page_key {
	uint64_t page;                  /* address >> 12, + 1; 0 empty */
	uint64_t space;
	uint64_t line0;
	uint32_t gen;                   /* maps_gen it was made in */
};

struct core {
	/* what the hook's gate looks at (access_), the latest run's in the
	 * state's first cache line (spread over three lines, the gate cost
	 * a loop of a[i]++ 1.3 ns an access over the call's own) */
	int32_t fast_left;
	uint32_t fast_gen;              /* the maps are of generation fast_gen */
	uint64_t fast_span[GATE];
	uint64_t fast_base[GATE][2];
	int idx, on;                    /* on: the hooks model this thread */
	int busy;                       /* in the runtime: a handler's accesses then are not modelled,
					 * and without libtsan its signal waits (signals.c) */
	uint64_t deferred;              /* signals relay() held back meanwhile (bit sig - 1) */
	uint32_t tid;
	uint32_t countdown, hitm_countdown;
	struct emu_out out;             /* where its samples go (out.c) */
	uint32_t depth;                 /* of the shadow stack: calls not yet returned */
	uint32_t floor;                 /* frames below it were overwritten (a chain deeper than STACK) */
	uint64_t last_space, last_la;   /* the line of the thread's last access */
	struct line *last;
	uint32_t waits_on[WAIT_LINES];  /* while it waits to take a lock: the lines it marked (their
					 * table index + 1; emu_lock_wait) */
	uint32_t nr_waits_on;
	bool paced;                     /* in the lockstep (a core of its own, the default model) */
	bool fast_excl;                 /* the line of its last access and the fast_lines - 1 after it */
	uint64_t fast_line;             /* it took with it (take_ahead), kept for window fast_win */
	uint32_t fast_lines;            /* (address >> line_shift; for writing: fast_excl) while */
	uint32_t fast_win;              /* (and fast_gen) */
	/* the hook's gate (access_): an access within one of the GATE runs of
	 * lines the thread's last modelled accesses kept (from window to
	 * window while no other core takes them: gate_next_window; the
	 * latest first), fast_span[i] bytes from fast_base[i][0] for a
	 * load, from fast_base[i][1] for a store (the lines kept for
	 * writing), the maps of generation fast_gen, is a hit while
	 * fast_left > 0; it opens with fast_budget, the accesses before a
	 * sample is due or the window ends, and fast_close() counts what went
	 * through (at the state's start) */
	uint32_t gate_gen;              /* the maps' generation its lines were kept in (its window is the
					 * thread's: every change of it goes through gate_next_window) */
	/* the kept places of contended lines (gate_next_window lets go of
	 * them, and of the runs, at the window's end; more than ONE_WIN: of
	 * all) */
	uint16_t one_win[ONE_WIN];
	uint32_t nr_one_win;
	bool fast_one;                  /* the line of its last step was contended */
	int32_t fast_budget;
	uint32_t clock;                 /* its accesses, modulo the window */
	uint32_t unmodelled;            /* accesses to lines the table had no room for, not yet in the head */
	uint32_t reuse_skip;            /* misses before reuse() looks at unmapped memory again */
	uint32_t evict_skip;            /* evictions before reuse() asks whether the victim is mapped */
	uint32_t evicted;               /* lines evicted for room, not yet in the head */
	uint32_t win;                   /* its window */
	struct held {                   /* a line it took in a window: kept for the rest of it */
		uint32_t line;          /* table index + 1 | HELD_EXCL | HELD_ONE; 0 none */
		uint32_t win;
	} held[HELD];
	struct held wrote_recently[WAIT_LINES]; /* the last lines it took for writing (index + 1), a ring */
	uint32_t nr_wrote;
	bool in_sync;                   /* modelling a lock function's access (emu_access): its
					 * object's line is no data a lock guards (not in wrote_recently) */
	uint64_t stack[STACK];          /* their return addresses: frame d at d % STACK */
	uint64_t seen[SEEN];            /* return addresses whose code the thread's samples carried */
	struct page_key pages[PAGES];
	uint16_t filled[FILLED];        /* the places of kept filled since the gate was emptied (more
					 * than FILLED: all are emptied) */
	uint32_t nr_filled;
	/* ... or within a line the thread's modelled accesses kept the same
	 * way in the same generation, at its place among KEPT (kept_at()):
	 * its base for a load, for a store when kept for writing (a loop over
	 * more lines than the runs, in pages of their own: objects, buckets).
	 * Last: a state reused is zeroed up to here, and kept emptied by
	 * filled (256 KiB written at every thread's start otherwise) */
	uint64_t kept[KEPT][2];
};

static struct model *model;

static inline struct line *line_at(uint64_t at)
{
	return &model->e[at].line;
}

/* The table index of a line's entry. */
static inline uint32_t index_of(const struct line *x)
{
	return (uint32_t)(((const char *)x - (const char *)model->e) / sizeof(struct entry));
}
static int enabled, keyed;
static int windowed = 1;                /* the default model (pace.c); 0: --emulate=exact */
/* the process has ThreadSanitizer's hooks (its __tsan_init called ours, or
 * a Clang executable's were redirected): the lock functions, which any
 * program calls, are modelled only then */
static int hooked;
static uint32_t frames;                 /* call-chain entries a sample takes (record -g), 0 none */
static uint32_t period = 4001, hitm_period = 31;
static unsigned int line_shift = 6;     /* C2CSCAN_EMU_LINE: 64-byte lines by default */
static pthread_key_t key;
/* initial-exec: the library is preloaded (or dlopen'ed into the static
 * TLS surplus): no __tls_get_addr call on every access */
static __thread __attribute__((tls_model("initial-exec"))) struct core *self;
/* the process's */
static uint32_t pid;

EXPORT void __tsan_init(void);

/* A free core for a new thread: the lowest one no live thread holds (cores
 * are reused as threads end), else one shared round-robin, counted. */
static int core_take(bool *own)
{
	uint64_t busy = __atomic_load_n(&model->head.cores_busy, __ATOMIC_RELAXED);

	*own = true;
	while (~busy & ((1ull << MAX_CORES) - 1)) {
		int i = __builtin_ctzll(~busy);

		if (__atomic_compare_exchange_n(&model->head.cores_busy, &busy, busy | 1ull << i, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return i;
	}
	*own = false;
	__atomic_fetch_add(&model->head.cores_shared, 1, __ATOMIC_RELAXED);
	return (int)(__atomic_fetch_add(&model->head.next_core, 1, __ATOMIC_RELAXED) % MAX_CORES);
}

/* The hook's gate shut, the accesses it let through counted (into the
 * sample countdown and the window's clock). (A signal handler's hook
 * between the gate's look and its count can leave fast_left at -1: that
 * one access is not counted, and the countdown never passes zero.) */
static inline void fast_close(struct core *c)
{
	int32_t left = c->fast_left, used;

	c->fast_left = 0;
	used = c->fast_budget - (left > 0 ? left : 0);
	c->fast_budget = 0;
	c->countdown -= (uint32_t)used;
	c->clock += (uint32_t)used;
}

/* The gate's runs emptied ... */
static inline void runs_clear(struct core *c)
{
	for (int i = 0; i < GATE; i++) {
		c->fast_base[i][0] = c->fast_base[i][1] = FAST_NONE;
		c->fast_span[i] = 1u << line_shift;     /* (0 would take every address) */
	}
}

/* The kept places a log holds (filled, one_win) emptied. */
static inline void kept_empty(struct core *c, const uint16_t *places, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		c->kept[places[i]][0] = c->kept[places[i]][1] = KEPT_NONE;
}

/* A kept place into a log of cap places; *nr counts past cap (the log
 * then no longer holds them all). */
static inline void kept_log(uint16_t *places, uint32_t *nr, uint32_t cap, uint32_t place)
{
	if ((*nr)++ < cap)
		places[*nr - 1] = (uint16_t)place;
}

/* ... and its kept lines: a new window, new maps. */
static inline void gate_clear(struct core *c)
{
	runs_clear(c);
	if (c->nr_filled > FILLED)
		emu_zero(c->kept, sizeof(c->kept));
	else
		kept_empty(c, c->filled, c->nr_filled);
	c->nr_filled = 0;
}

/* The default model: the cores in lost (bits) lost lines their gates may
 * keep: they let go of them all at their next window (gate_next_window). */
static void revoke_gates(uint64_t lost)
{
	while (lost) {
		uint32_t *p = &model->revoked[__builtin_ctzll(lost)].pending;

		lost &= lost - 1;
		if (!__atomic_load_n(p, __ATOMIC_RELAXED))
			__atomic_store_n(p, 1, __ATOMIC_RELEASE);
	}
}

/* c goes on to window win (every change of its window after its start
 * comes through here). The lines its gate keeps that were
 * its own (no other core had or wrote them, no lock's waiter takes them)
 * stay in it from window to window, as a core keeps lines in its cache
 * until another core takes them: when one was taken (revoke_gates()), the
 * gate lets go of them all, and the thread's next access to each is a
 * model step again. (Kept for one window only, a thread going at random
 * through 64 KiB of its own stepped each line at its first load and its
 * first store of every window: 13.6% of its accesses.) A contended line
 * is kept for its window only, as before: each thread that goes on
 * taking it is counted once a window. A core that takes a line from a
 * gate in window w counts as the state says then; the gate's holder
 * steps it again in window w + 1 and counts as the window before's
 * writes say (other_wrote): once for the taking, whichever came first. */
static void gate_next_window(struct core *c, uint32_t win)
{
	uint32_t *p = &model->revoked[c->idx].pending;

	c->win = win;
	/* (the line of the last access, and those taken with it, go on into
	 * the window unless let go of: the gate opens on them again) */
	c->fast_win = c->win;
	if (c->nr_one_win > ONE_WIN ||
	    (__atomic_load_n(p, __ATOMIC_RELAXED) && __atomic_exchange_n(p, 0, __ATOMIC_ACQ_REL))) {
		gate_clear(c);
		c->fast_win = c->win - 1;
	} else if (c->nr_one_win) {
		runs_clear(c);
		kept_empty(c, c->one_win, c->nr_one_win);
		c->fast_win = c->win - 1;
	}
	c->nr_one_win = 0;
}

/* The place of the line at address a among the kept ones: its number's
 * low bits (the lines of any KEPT in a row, 1 MiB of memory, do not share
 * places; mixed with the page's number, 1.4% of the lines of a 1 MiB
 * table did, and a thread updating it at random took 2.8% of its
 * accesses through the model's steps). */
static inline uint32_t kept_at(uint64_t a)
{
	return (uint32_t)(a >> line_shift) & (KEPT - 1);
}

/* The gate opened on the lines of the access just modelled (its line and
 * those it took with it), kept (for this window only when the line was
 * contended: one_win), in front of the runs before it that are of this
 * generation too (a loop over a few
 * lines: arrays read and written, a lock's word and its mutex's): the
 * accesses until a sample is due or the window ends. A run that ends
 * where these lines start, taken the same way, grows by them: a loop that
 * stores through memory it takes line by line (not its own yet, or not
 * written lately) keeps one run, and the runs of the arrays it reads stay
 * in the gate (pushed out, they were taken again at their next access). */
static inline void fast_open(struct core *c)
{
	uint32_t budget = c->countdown - 1, to_end = EMU_WIN - 1 - c->clock;
	uint64_t line = c->fast_line << line_shift, base = line, span = (uint64_t)c->fast_lines << line_shift;
	uint64_t *kept;
	uint32_t place;
	int at = GATE - 1;

	if (!c->paced || c->fast_win != c->win || !c->countdown || c->clock >= EMU_WIN)
		return;
	if (c->gate_gen != c->fast_gen)
		gate_clear(c);
	/* (the place of the run it grows, or of one it covers, else the
	 * oldest's, made the front: a line taken for writing does not push
	 * out the longer run it was read in) */
	for (int i = 0; i < GATE; i++) {
		bool same = (c->fast_base[i][1] != FAST_NONE) == c->fast_excl;

		if (same && c->fast_base[i][0] + c->fast_span[i] == base) {
			base = c->fast_base[i][0];
			span += c->fast_span[i];
			at = i;
			break;
		}
		if (c->fast_base[i][0] == base && (same || c->fast_excl) && c->fast_span[i] <= span) {
			at = i;
			break;
		}
	}
	for (int i = at; i > 0; i--) {
		c->fast_base[i][0] = c->fast_base[i - 1][0];
		c->fast_base[i][1] = c->fast_base[i - 1][1];
		c->fast_span[i] = c->fast_span[i - 1];
	}
	c->fast_base[0][0] = base;
	c->fast_base[0][1] = c->fast_excl ? base : FAST_NONE;
	c->fast_span[0] = span;
	/* (the lines each kept at their places too: the hook looks there
	 * first, one look whatever the runs) */
	for (uint32_t i = 0; i < c->fast_lines; i++) {
		uint64_t a = line + ((uint64_t)i << line_shift);

		place = kept_at(a);
		kept = c->kept[place];
		if (kept[0] == KEPT_NONE)
			kept_log(c->filled, &c->nr_filled, FILLED, place);
		kept[0] = a;
		kept[1] = c->fast_excl ? a : KEPT_NONE;
	}
	if (c->fast_one)
		kept_log(c->one_win, &c->nr_one_win, ONE_WIN, kept_at(line));
	c->gate_gen = c->fast_gen;
	c->fast_budget = c->fast_left = (int32_t)(budget < to_end ? budget : to_end);
}

/* c (its tid set, its held table empty: a new state is zero, a fork
 * child's is emptied) gets a core, and joins the lockstep when the core is
 * its own (a thread sharing one is not waited for). */
static void core_start(struct core *c)
{
	bool own;

	c->idx = core_take(&own);
	c->paced = own && windowed && enabled;
	c->clock = 0;
	c->win = c->paced ? pace__join(c->idx, c->tid) : 0;
	c->fast_win = c->win - 1;       /* (a forked child's copy of its parent's: not its own) */
	c->fast_left = c->fast_budget = 0;
	gate_clear(c);
	c->nr_one_win = 0;
	if (c->paced)
		__atomic_store_n(&model->revoked[c->idx].pending, 0, __ATOMIC_RELEASE);
}

static void core_give_back(int idx)
{
	__atomic_fetch_and(&model->head.cores_busy, ~(1ull << idx), __ATOMIC_RELEASE);
}

/* The thread's count of accesses not modelled into the model's head. */
static void unmodelled_flush(struct core *c)
{
	if (c->unmodelled)
		__atomic_add_fetch(&model->head.unmodelled, c->unmodelled, __ATOMIC_RELAXED);
	if (c->evicted)
		__atomic_add_fetch(&model->head.evicted, c->evicted, __ATOMIC_RELAXED);
	c->unmodelled = c->evicted = 0;
}

/* Thread states of ended threads, for new ones: a state is reused only once
 * its thread is gone from the kernel's tables, so whatever of the thread
 * still runs after its TSD destructor (a signal handler, another key's
 * destructor) finds it mapped and off, never freed memory. */
#define RETIRED 64
static struct core *retired[RETIRED];
static uint32_t retired_lock;

static void thread_gone(void *p)
{
	struct core *c = p;

	/* its last accesses (handlers, later destructors) are not modelled */
	fast_close(c);
	c->on = 0;
	unmodelled_flush(c);
	emu_out__close(&c->out);
	if (c->paced)
		pace__leave(c->idx);
	c->paced = false;
	core_give_back(c->idx);
	/* no room: it stays mapped (a few KiB), never unmapped under the thread */
	emu_lock(&retired_lock);
	for (int i = 0; i < RETIRED; i++) {
		if (!retired[i]) {
			retired[i] = c;
			break;
		}
	}
	emu_unlock(&retired_lock);
}

/* A retired state whose thread no longer exists, or a new one. */
static struct core *core_alloc(void)
{
	struct core *c = NULL;

	emu_lock(&retired_lock);
	for (int i = 0; i < RETIRED && !c; i++) {
		if (retired[i] && syscall(SYS_tgkill, (int)pid, (int)retired[i]->tid, 0) < 0 && errno == ESRCH) {
			c = retired[i];
			retired[i] = NULL;
		}
	}
	emu_unlock(&retired_lock);
	if (c) {
		gate_clear(c);
		emu_zero(c, offsetof(struct core, filled));
		return c;
	}
	c = emu_sys_mmap(sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return c == MAP_FAILED ? NULL : c;
}

/* The process's file exists from its first hook on, empty until a sample:
 * record tells a modelled process that sampled nothing (a short run) from
 * a program without hooks (preloaded all the same). */
static uint32_t marked;                 /* the pid whose file was made */

static void mark_modelled(void)
{
	if (__atomic_exchange_n(&marked, pid, __ATOMIC_RELAXED) != pid)
		emu_out__mark();
}

static struct core *core_new(void)
{
	struct core *c = core_alloc();

	if (!c)
		return NULL;
	c->tid = (uint32_t)gettid();
	core_start(c);
	if (enabled)
		mark_modelled();
	/* each thread at a phase of its own: threads started together do not
	 * sample in step */
	c->countdown = 1 + (uint32_t)((c->tid * 2654435761u) % period);
	c->hitm_countdown = 1 + (uint32_t)((c->tid * 2246822519u) % hitm_period);
	c->on = enabled;
	if (keyed)
		pthread_setspecific(key, c);
	return c;
}

/* The thread's core, made at its first hook with signals held off (a
 * handler's hook would make a second core for the thread: without libtsan
 * a signal is the kernel's to deliver at any instruction). */
static __attribute__((noinline)) struct core *core_first(void)
{
	sigset_t was;

	emu_signals_off(&was);
	if (!self)
		self = core_new();
	emu_signals_back(&was);
	return self;
}

static inline struct core *me(void)
{
	if (LIKELY(self != NULL))
		return self;
	return core_first();
}

/* The thread leaves the runtime: the signals relay() held back meanwhile
 * are let through (a handler then runs here, where nothing is half
 * done, and may leave by longjmp). */
static inline void busy_end(struct core *c)
{
	uint64_t d;

	__atomic_store_n(&c->busy, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	d = c->deferred;
	if (UNLIKELY(d)) {
		c->deferred = 0;
		emu_signals__release(d);
	}
}

bool emu_running(void)
{
	return enabled;
}

bool emu_busy_now(void)
{
	struct core *c = self;

	return c && __atomic_load_n(&c->busy, __ATOMIC_RELAXED);
}

void emu_defer(int sig)
{
	struct core *c = self;

	if (c)
		c->deferred |= 1ull << (sig - 1);
}

/* A sample, and its call chain from the shadow stack: the callers' return
 * addresses, innermost first. The first sample of a return address the
 * thread writes carries the code around it, from which record finds the
 * access's instruction (size bytes, a store or a load; size 0: the call
 * is the access). */
static void sample(struct core *c, uint64_t addr, uint64_t ret, uint32_t size, enum pd_emu_class cls,
		   bool locked, uint32_t per)
{
	uint32_t kept = c->depth - c->floor;    /* the frames the ring still holds, <= STACK */
	uint32_t nr = kept < frames ? kept : frames;
	uint64_t *seen = &c->seen[((ret * 0x9e3779b97f4a7c15ull) >> 32) % SEEN];
	bool code = size != PD_EMU_AT_RET && *seen != ret;
	struct pd_emu_sample s = {
		.time = emu_now_ns(), .ret = ret, .addr = addr, .pid = pid, .tid = c->tid,
		.cpu = (uint16_t)c->idx, .cls = (uint8_t)cls, .nr_frames = (uint16_t)nr,
		.locked = (uint8_t)((locked ? PD_EMU_LOCKED : 0) | (frames && c->depth > nr ? PD_EMU_CUT : 0)),
		.size = (uint8_t)(size <= 16 || size == PD_EMU_AT_RET ? size : 0), .store = cls >= PD_EMU_ST_L1,
		.weight = (uint16_t)pd_emu_latency(cls), .period = per,
	};
	size_t len;
	uint8_t *p;

	if (code) {
		s.code_before = (uint8_t)((ret & 4095) < PD_EMU_CODE_BEFORE ? (ret & 4095) : PD_EMU_CODE_BEFORE);
		s.code_after = (uint8_t)emu_out__code_bytes(ret, PD_EMU_CODE_AFTER);
	}
	len = pd_emu_sample_len(&s);
	p = emu_out__room(&c->out, len);
	if (!p)
		return;
	memcpy(p, &s, sizeof(s));
	p += sizeof(s);
	for (uint32_t i = 0; i < nr; i++, p += sizeof(uint64_t))
		memcpy(p, &c->stack[(c->depth - 1 - i) % STACK], sizeof(uint64_t));
	if (code) {
		emu_copy(p, (const void *)(uintptr_t)(ret - s.code_before), s.code_before + s.code_after);
		*seen = ret;
	}
}

/* How the line at addr is keyed: the page's entry in c's cache, made by
 * maps.c (again when the shared mappings changed since). */
static const struct page_key *page_key(struct core *c, uint64_t addr)
{
	uint64_t page = addr >> 12, off;
	struct page_key *k = &c->pages[page % PAGES];
	uint32_t gen = emu_maps__gen();

	if (LIKELY(k->page == page + 1 && k->gen == gen))
		return k;
	k->space = emu_maps__key(page << 12, &off);
	if (!k->space)
		k->space = pid;
	k->page = page + 1;
	k->gen = gen;
	k->line0 = off >> line_shift;
	return k;
}

/* The line number of addr in its page's key (a page's lines are numbered
 * from line0). */
static inline uint64_t line_in(const struct page_key *k, uint64_t addr)
{
	return k->line0 + ((addr & 4095) >> line_shift);
}

#define TOMB UINT64_MAX                 /* a tag being rewritten: probe on */
#define FREED_SPACE (EMU_SHARED - 1)    /* an entry's space once its memory was unmapped (emu_forget):
					 * no process's, free for any line (under TOMB) */

/* Whether the private lines of space (a pid) belong to a process that has
 * ended: their entries can be reused. A thread remembers the last answers. */
static bool space_dead(uint64_t space)
{
	static __thread __attribute__((tls_model("initial-exec"))) uint64_t dead, live;

	if (space == FREED_SPACE)
		return true;
	if (space & EMU_SHARED || space == pid || space == live)
		return false;
	if (space == dead)
		return true;
	if (kill((pid_t)space, 0) < 0 && errno == ESRCH) {
		dead = space;
		return true;
	}
	live = space;
	return false;
}

/* Where line la of space probes first: a stripe owns a region of the
 * table (its lines probe only there); the 64 lines of a block of memory
 * (a 4 KiB page of 64-byte lines) are hashed together, to one 4 KiB page
 * of the table, each at its own place in it: a program that works
 * through memory meets its lines' entries a page at a time. Hashed line
 * by line, each new line cost a TLB miss (a page walk, nested under a
 * hypervisor) and a cache miss: two threads computing over three arrays
 * each (scripts/workloads/stream.c, 10000 rounds) took 1.07 s, hashed by
 * blocks 0.83 s. */
static inline uint64_t line_hash(uint64_t space, uint64_t la)
{
	uint64_t h = (((la >> 6) ^ space * 0xff51afd7ed558ccdull) * 0x9e3779b97f4a7c15ull) >> (64 - TABLE_BITS);

	return (h & ~63ull) | (la & 63);
}

/* The i-th place line h probes in its region: each probe in another page
 * of the region and at the next place in it (a block whose page another
 * block has goes to the next page whole; lines of many sparse blocks at
 * the same place in their pages find room too). */
static inline uint64_t probe_at(uint64_t region, uint64_t h, uint32_t i)
{
	return region + ((h + i * 65) & (REGION - 1));
}

/* Entry at made line la of space's, its state new (the TOMB protocol:
 * readers that saw the old tag with the new space take no match). */
static void let_go(uint64_t at, uint64_t space)
{
	struct line_key *y = &model->e[at].key;

	/* (the default model: the gates that keep the line it was let go of
	 * it) */
	if (windowed && y->tag)
		revoke_gates(proto_holders(__atomic_load_n(&line_at(at)->state, __ATOMIC_RELAXED)));
	__atomic_store_n(&y->tag, TOMB, __ATOMIC_RELEASE);
	__atomic_store_n(&y->space, space, __ATOMIC_RELEASE);
	emu_zero(line_at(at), sizeof(struct line));
}

static struct line *take_entry(uint64_t at, uint64_t space, uint64_t la)
{
	let_go(at, space);
	__atomic_store_n(&model->e[at].key.tag, la + 1, __ATOMIC_RELEASE);
	return line_at(at);
}

/* Whether line la of this process's private memory is no longer mapped
 * (unmapped, a heap trimmed, by whatever code: the kernel's word). */
static bool line_unmapped(uint64_t space, uint64_t la)
{
	unsigned char v;

	return space == pid && syscall(SYS_mincore, (la << line_shift) & ~4095ull, 4096, &v) < 0 && errno == ENOMEM;
}

/* The default model: c takes x in its window, the line's age for
 * eviction (its seen) renewed, every SEEN_STEP windows at most (a line
 * taken window after window is not written for it each time; reuse()
 * allows for the step). */
#define SEEN_STEP 8

static inline void renew_age(struct line *x, const struct core *c)
{
	uint32_t was = __atomic_load_n(&x->seen, __ATOMIC_RELAXED);

	if (!was || (int32_t)(c->win + 1 - was) >= SEEN_STEP)
		__atomic_store_n(&x->seen, c->win + 1, __ATOMIC_RELAXED);
}

/* Under the stripe's lock, the probes all taken: the first entry of a
 * process that has ended (its private lines: nobody looks them up any
 * more) or of this process's memory it no longer maps, made the line's,
 * its state new; NULL when none. A forked workload's children, or a
 * program that works through more memory than the table holds a buffer
 * at a time, would otherwise fill the table for good. (A thread holding
 * the old line for its window takes the new one as held until the
 * window ends.) After a look that found nothing to reuse, the thread
 * looks only at ended processes for its next REUSE_SKIP misses: a table
 * full of live lines costs no system call per access. */
#define REUSE_SKIP 64

static struct line *reuse(struct core *c, uint64_t region, uint64_t h, uint64_t space, uint64_t la)
{
	bool unmapped = !c->reuse_skip;
	uint64_t oldest = UINT64_MAX;
	uint32_t oldest_age = PD_EMU_EVICT_AGE + SEEN_STEP;

	for (uint32_t i = 0; i < PROBES; i++) {
		uint64_t at = probe_at(region, h, i);
		struct line_key *y = &model->e[at].key;
		uint32_t seen = __atomic_load_n(&line_at(at)->seen, __ATOMIC_RELAXED);

		/* (the default model: the line untouched longest, for eviction;
		 * not one a lock's waiter goes on taking) */
		if (c->paced && seen && (int32_t)(c->win + 1 - seen) > (int32_t)oldest_age &&
		    !__atomic_load_n(&line_at(at)->waiting, __ATOMIC_RELAXED)) {
			oldest = at;
			oldest_age = c->win + 1 - seen;
		}
		if (!space_dead(y->space) && !(unmapped && line_unmapped(y->space, y->tag - 1)))
			continue;
		return take_entry(at, space, la);
	}
	c->reuse_skip = unmapped ? REUSE_SKIP : c->reuse_skip - 1;
	/* full of live lines: the one no thread took for PD_EMU_EVICT_AGE
	 * windows (a cache would have let it go too; its next access is a
	 * miss), counted; but not when it was of memory this process no
	 * longer maps (not looked at above while skipping: a region filled
	 * by one mapping's blocks found no unmapped entry once, and the
	 * misses after it took the unmapped mappings' lines as evictions).
	 * After a victim found mapped, the next REUSE_SKIP are not looked at
	 * either. */
	if (oldest == UINT64_MAX)
		return NULL;
	if (!unmapped && !c->evict_skip) {
		const struct line_key *y = &model->e[oldest].key;

		if (line_unmapped(y->space, y->tag - 1))
			return take_entry(oldest, space, la);
		c->evict_skip = REUSE_SKIP;
	} else if (c->evict_skip) {
		c->evict_skip--;
	}
	c->evicted++;
	return take_entry(oldest, space, la);
}

/* Whether y, whose tag was read as tag, is line la of space (the tag read
 * again: an entry being reused gets TOMB, its space, then its tag; seeing
 * the old tag with the new space is no match). */
static inline bool key_is(const struct line_key *y, uint64_t tag, uint64_t space, uint64_t la)
{
	return tag == la + 1 && y->space == space && __atomic_load_n(&y->tag, __ATOMIC_ACQUIRE) == tag;
}

/* The line's entry: found without a lock, made under its stripe's lock
 * (its tag written last). NULL when the probes found no room: none empty,
 * and no entry of an ended process or of unmapped memory to reuse. */
static struct line *line_of(struct core *c, uint64_t space, uint64_t la)
{
	uint64_t h = line_hash(space, la), region = h & ~(uint64_t)(REGION - 1);
	uint32_t *l = &model->stripes[h / REGION];
	struct line *x = NULL;
	uint64_t freed = UINT64_MAX;    /* (locked) the first probe whose memory was unmapped */

	for (int locked = 0; locked < 2; locked++) {
		if (locked)
			emu_lock(l);
		for (uint32_t i = 0; i < PROBES; i++) {
			uint64_t at = probe_at(region, h, i);
			struct line_key *y = &model->e[at].key;
			uint64_t tag = __atomic_load_n(&y->tag, __ATOMIC_ACQUIRE);

			if (key_is(y, tag, space, la)) {
				x = line_at(at);
				break;
			}
			/* (an entry emu_forget let go of is taken before an empty
			 * one further on: memory unmapped and mapped again, as
			 * a buffer at a time, keeps its lines' probes short) */
			if (locked && tag == TOMB && freed == UINT64_MAX && y->space == FREED_SPACE)
				freed = at;
			if (!tag) {
				if (locked && freed != UINT64_MAX) {
					x = take_entry(freed, space, la);
				} else if (locked) {
					y->space = space;
					__atomic_store_n(&y->tag, la + 1, __ATOMIC_RELEASE);
					x = line_at(at);
				}
				break;
			}
		}
		if (!x && locked)
			x = freed != UINT64_MAX ? take_entry(freed, space, la) : reuse(c, region, h, space, la);
		if (x || locked) {
			if (locked)
				emu_unlock(l);
			return x;
		}
	}
	return NULL;
}

/* One emu_forget's work, bounded: mincore calls (FORGET_CALLS, into v,
 * FORGET_CHUNK pages a call) and entries looked at (FORGET_PROBES, some
 * 10 ms: a resident range far larger than the table, in a full table,
 * would otherwise cost 32 looks for each of its lines). What is left
 * past the bounds keeps its entries until they are reused as unmapped
 * memory's. */
#define FORGET_CHUNK 4096
#define FORGET_CALLS 1024
#define FORGET_PROBES (1u << 22)

struct forget {
	uint32_t calls, probes;
	unsigned char v[FORGET_CHUNK];
};

/* The lines of the private page at page (its address) forgotten; a
 * line's probes end at its entry or at an empty one. (A block of 64
 * lines probes in one stripe's region: a page of 64-byte lines takes one
 * lock; of 16-byte lines, four.) */
static void forget_page(struct forget *f, uint64_t page)
{
	uint64_t la0 = page >> line_shift, n = line_shift < 12 ? 4096 >> line_shift : 1;
	uint32_t *l = NULL;

	for (uint64_t la = la0; la < la0 + n && f->probes; la++) {
		uint64_t h = line_hash(pid, la), region = h & ~(uint64_t)(REGION - 1);
		uint32_t *lh = &model->stripes[h / REGION];

		if (lh != l) {
			if (l)
				emu_unlock(l);
			emu_lock(lh);
			l = lh;
		}
		for (uint32_t i = 0; i < PROBES && f->probes; i++, f->probes--) {
			uint64_t at = probe_at(region, h, i);
			struct line_key *y = &model->e[at].key;
			uint64_t tag = __atomic_load_n(&y->tag, __ATOMIC_ACQUIRE);

			if (!tag)
				break;
			if (key_is(y, tag, pid, la)) {
				let_go(at, FREED_SPACE);
				break;
			}
		}
	}
	if (l)
		emu_unlock(l);
}

/* The resident pages of n pages from a forgotten (mincore: a page the
 * kernel never gave the process has no lines); a range that is not all
 * mapped is looked at by halves. */
static void forget_pages(struct forget *f, uint64_t a, uint64_t n)
{
	if (!f->calls || !f->probes)
		return;
	f->calls--;
	if (!syscall(SYS_mincore, a, n << 12, f->v)) {
		for (uint64_t i = 0; i < n && f->probes; i++)
			if (f->v[i] & 1)
				forget_page(f, a + (i << 12));
	} else if (errno == ENOMEM && n > 1) {
		forget_pages(f, a, n / 2);
		forget_pages(f, a + (n / 2 << 12), n - n / 2);
	}
}

/* The program is about to unmap [a, a + len) or map over it (maps.c; a
 * range mremap moves is not looked at: its old lines are reused as
 * unmapped memory's): its private lines are forgotten. Memory mapped
 * there later is new, as the kernel's new pages are (zeroed by the core
 * that faults them in): kept, its lines went on with the old ones'
 * states, and a thread's first store to a buffer or thread stack mapped
 * where another thread's memory had been counted as a store HITM; and
 * the old lines' entries kept the table full (a thread stack mapped over
 * them made them look live: lines of memory in use were evicted for
 * room). Also called for a block the C library's malloc mapped for
 * itself, at its free (heap.c). A thread stack the C library unmaps is
 * not seen. */
void emu_forget(uint64_t a, uint64_t len)
{
	struct core *c = self;
	uint64_t end = (a + len + 4095) & ~4095ull;
	struct forget f;                /* (4 KiB of the caller's stack) */
	int errno_was = errno;
	sigset_t was;

	if (!model || !enabled || !len || end < a || (c && c->busy))
		return;
	f.calls = FORGET_CALLS;
	f.probes = FORGET_PROBES;
	/* a signal handler's accesses meanwhile are not modelled (they could
	 * wait for a stripe's lock held here): busy, or in a thread the
	 * model has no state for, no signal */
	if (c) {
		c->busy = 1;
		c->last = NULL;
	} else {
		emu_signals_off(&was);
	}
	for (a &= ~4095ull; a < end && f.calls && f.probes; a += FORGET_CHUNK << 12)
		forget_pages(&f, a, end - a < FORGET_CHUNK << 12 ? (end - a) >> 12 : FORGET_CHUNK);
	if (c)
		busy_end(c);
	else
		emu_signals_back(&was);
	errno = errno_was;
}

/* The default model (pace.c): a line c accessed in its window stays c's
 * for the rest of it (a line coming to c counts once a window). The
 * thread's table of such lines (HELD_WAYS entries a set: lines that share
 * one are all kept; a direct-mapped table let two hot lines evict each
 * other, and their counts went uncapped). at: the line's index in the
 * table. held_look() finds the line's entry of c's window and room for
 * one; held() says whether it keeps the access a hit (a load needs the
 * line taken at all in the window, a store taken for writing); hold()
 * records that the line came. */
static struct held *held_set(struct core *c, uint32_t at)
{
	_Static_assert(HELD == HELD_WAYS << HELD_SET_BITS, "the held table's sets");
	/* (a table block's lines in consecutive sets, from a place hashed by
	 * the block: memory worked through in order meets its sets in order) */
	uint32_t set = (((at >> 6) * 0x9e3779b1u) >> (32 - HELD_SET_BITS)) + (at & 63);

	return &c->held[(set & ((1u << HELD_SET_BITS) - 1)) * HELD_WAYS];
}

/* One look at the line's set: its entry of c's window (NULL none), and
 * the first entry free for it (of an earlier window, or never used). */
struct held_look {
	struct held *set, *own, *room;
};

static struct held_look held_look(struct core *c, uint32_t at)
{
	struct held_look l = { held_set(c, at), NULL, NULL };

	for (int i = 0; i < HELD_WAYS; i++) {
		struct held *h = &l.set[i];

		if (h->win != c->win || !h->line) {
			if (!l.room)
				l.room = h;
		} else if ((h->line & ~(HELD_EXCL | HELD_ONE)) == at + 1) {
			l.own = h;
			break;
		}
	}
	return l;
}

static bool held(const struct held_look *l, bool store)
{
	return l->own && (!store || (l->own->line & HELD_EXCL));
}

static void hold(struct core *c, const struct held_look *l, uint32_t at, bool store, bool one)
{
	struct held *h = l->own ? l->own : l->room;
	bool was_excl = l->own && (l->own->line & HELD_EXCL), excl = store || was_excl;
	uint32_t was_one = l->own ? l->own->line & HELD_ONE : 0;

	/* its own entry of this window (a load's, now a store's), an entry of
	 * an earlier window, else the first */
	if (!h) {
		/* a line of this window let go for room: not the gate's runs'
		 * either (the lines kept at their places stay: each was taken in
		 * this window; emptying them at every such loss cost a program
		 * going at random through more lines than the table holds more
		 * than the model) */
		h = &l->set[0];
		runs_clear(c);
	}
	/* taken for writing now: one of the lines a lock's waiter goes on
	 * taking (emu_lock_wait) */
	if (store && !was_excl && !c->in_sync)
		c->wrote_recently[c->nr_wrote++ % WAIT_LINES] = (struct held){ at + 1, c->win };
	h->line = (at + 1) | (excl ? HELD_EXCL : 0) | (one ? HELD_ONE : was_one);
	h->win = c->win;
}

/* Another core wrote x in c's window or the one before. */
static inline bool other_wrote(struct line *x, const struct core *c)
{
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t w = c->win - k;

		if (proto_other_wrote_in(__atomic_load_n(&x->wrote[w & 1], __ATOMIC_ACQUIRE), w, (uint32_t)c->idx))
			return true;
	}
	return false;
}

/* c wrote x in its window: its bit in the window's cores (proto_wrote). */
static inline void wrote(struct line *x, const struct core *c)
{
	uint64_t *slot = &x->wrote[c->win & 1], m = __atomic_load_n(slot, __ATOMIC_RELAXED), to;

	do {
		to = proto_wrote(m, c->win, (uint32_t)c->idx);
		if (to == m)
			return;
	} while (!__atomic_compare_exchange_n(slot, &m, to, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
}

/* The model's step for one line: the class of c's access, the line's new
 * state swapped in by compare-and-swap (no lock: the contended lines are
 * the program's hottest). */
static enum pd_emu_class step(struct core *c, uint64_t space, uint64_t la, bool store, bool *one)
{
	struct line *x = c->last && c->last_la == la && c->last_space == space ? c->last : line_of(c, space, la);
	struct held_look look = { NULL, NULL, NULL };
	uint64_t st, to;
	uint32_t at;
	enum pd_emu_class cls;

	/* the stripe's region is full: not modelled (an L1 hit), counted (the
	 * model's head, a thousand at a time: record says so) */
	*one = false;
	if (!x) {
		if (++c->unmodelled == 1024)
			unmodelled_flush(c);
		/* (no state says who has it: taken again in the next window,
		 * when an entry may have room) */
		*one = true;
		return store ? PD_EMU_ST_L1 : PD_EMU_L1;
	}
	c->last = x;
	c->last_la = la;
	c->last_space = space;
	/* the default model: a line the thread has for its window is a hit,
	 * and nothing shared is touched (on false sharing the model's own
	 * state would bounce between the cores at every access) */
	at = index_of(x);
	if (c->paced) {
		look = held_look(c, at);
		if (held(&look, store)) {
			*one = look.own->line & HELD_ONE;
			return store ? PD_EMU_ST_L1 : PD_EMU_L1;
		}
	}
	if (c->paced)
		renew_age(x, c);
	st = __atomic_load_n(&x->state, __ATOMIC_RELAXED);
	do {
		cls = proto_access(st, (uint32_t)c->idx, store, &to);
		/* the line as this core left it: nothing to write (the common
		 * case of private data) */
		if (to == st)
			break;
	} while (!__atomic_compare_exchange_n(&x->state, &st, to, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	/* the default model: the cores it took the line from, or its right
	 * to write, let go of their gates' lines at their next window */
	if (windowed && to != st)
		revoke_gates(proto_lost(st, (uint32_t)c->idx, store));
	/* the default model: the state holds only each core's first access of
	 * a window, so which core wrote last is not which wrote in the window:
	 * another core that wrote the line in this window or the last took it
	 * from this one in between (the threads' accesses interleave within a
	 * window), whatever order their first accesses came in */
	if (c->paced) {
		/* a thread waiting for a lock in the line would take it in the
		 * window on a core of its own: it comes from there */
		if (other_wrote(x, c) || __atomic_load_n(&x->waiting, __ATOMIC_RELAXED))
			cls = proto_other_wrote(cls);
		/* a store to a line that already came from another core in
		 * this window, for a load before it: the same coming, counted
		 * once a window (as a HITM and a store HITM it came twice or
		 * once as the window's first accesses fell: the order the
		 * model must not depend on); the store takes the copies the
		 * load left others, a store miss, as hardware has it after a
		 * HITM */
		if (store && look.own && (look.own->line & HELD_ONE) && cls == PD_EMU_ST_HITM)
			cls = PD_EMU_ST_MISS;
		/* (a line that came from another core, or went from one, is
		 * stepped again in the next window: gate_next_window) */
		*one = cls == PD_EMU_HITM || cls == PD_EMU_ST_HITM || cls == PD_EMU_ST_MISS;
		hold(c, &look, at, store, *one);
		if (store)
			wrote(x, c);
	}
	return cls;
}

/* A read-modify-write (an atomic exchange, fetch_add, compare-exchange)
 * takes the line as a store does, and is sampled as the locked load it
 * starts with, as Intel's load events report a locked instruction. */
#define RMW 2

/* The default model: after c took line la of page k for its window by a
 * plain access that found the line its own, the lines after it in the
 * page that are c's own too (no other core has or wrote them in this
 * window or the last, no lock waiter takes them; for writing: c has them
 * modified) are taken with it, up to TAKE_AHEAD of them: as if c's next
 * accesses, which go through its memory in order, had come (a program
 * working through arrays of its own pays for one model step a page
 * instead of one a line). Their states are as they were (a hit leaves
 * them so); they are not in the held table (a later step finds them c's
 * all the same). Another core's access to one of them in this window is
 * counted as the state says, and c's as the hits of a line taken for the
 * window; a line taken for writing that c does not write in the window
 * (its loop ended first) counts as written in it, so another core that
 * took a copy in the window has it come from c once more in the next.
 * Returns how many were taken. */
static uint32_t take_ahead(struct core *c, const struct page_key *k, uint64_t la, bool store)
{
	uint32_t n = 0, left = (uint32_t)((4096u >> line_shift) - 1 - (la - k->line0));

	while (n < TAKE_AHEAD && n < left) {
		uint64_t l = la + n + 1, h = line_hash(k->space, l), st, to;
		struct entry *e = &model->e[probe_at(h & ~(uint64_t)(REGION - 1), h, 0)];

		/* (its entry where it probes first: lines displaced by others
		 * are left to their own access) */
		if (!key_is(&e->key, __atomic_load_n(&e->key.tag, __ATOMIC_ACQUIRE), k->space, l))
			break;
		st = __atomic_load_n(&e->line.state, __ATOMIC_RELAXED);
		if (proto_access(st, (uint32_t)c->idx, store, &to) != (store ? PD_EMU_ST_L1 : PD_EMU_L1) || to != st ||
		    __atomic_load_n(&e->line.waiting, __ATOMIC_RELAXED) || other_wrote(&e->line, c))
			break;
		renew_age(&e->line, c);
		if (store)
			wrote(&e->line, c);
		n++;
	}
	return n;
}

/* Whether the line at addr comes right after one of the gate's runs of
 * this generation: the thread goes through memory in order.
 * (Taking ahead at every access, a thread reading and writing words at
 * random in 64 KiB of its own took the rest of each line's page twice:
 * 198 ns an access against TSan's 4.7.) */
static inline bool after_run(const struct core *c, uint64_t addr)
{
	uint64_t base = (addr >> line_shift) << line_shift;

	if (c->gate_gen != c->fast_gen)
		return false;
	for (int i = 0; i < GATE; i++)
		if (c->fast_base[i][0] != FAST_NONE && c->fast_base[i][0] + c->fast_span[i] == base)
			return true;
	return false;
}

/* The default model's hit on the lines of c's last access, kept for its
 * window: within them, for writing when it stores, the mappings of the
 * generation the line was keyed in. */
static inline bool fast_hit(const struct core *c, uint64_t addr, uint64_t size, int store)
{
	return c->paced && (addr >> line_shift) - c->fast_line < c->fast_lines &&
	       ((addr + size - 1) >> line_shift) - c->fast_line < c->fast_lines && c->fast_win == c->win &&
	       (!store || c->fast_excl) && c->fast_gen == emu_maps__gen();
}

static void model_access(uint64_t addr, uint64_t size, int store, bool locked, uint64_t ip, uint32_t find)
{
	static const enum pd_emu_class as_load[PD_EMU__NR] = {
		[PD_EMU_ST_L1] = PD_EMU_L1, [PD_EMU_ST_MISS] = PD_EMU_LLC, [PD_EMU_ST_HITM] = PD_EMU_HITM,
	};
	const struct page_key *k;
	struct core *c;
	enum pd_emu_class cls, st;
	bool hitm;

	/* not run by record: no model, nothing kept per thread */
	if (!enabled)
		return;
	c = me();
	if (!c)
		return;
	fast_close(c);
	if (!c->on || !size || c->busy)
		return;
	c->busy = 1;
	/* the default model, a line the thread has for its window again (a
	 * loop on it, when a sample is due or the window ends): a hit, with no
	 * look at the mappings or the table */
	if (fast_hit(c, addr, size, store)) {
		cls = st = store ? PD_EMU_ST_L1 : PD_EMU_L1;
	} else {
		bool across = ((addr + size - 1) >> line_shift) != (addr >> line_shift);
		uint64_t la;

		k = page_key(c, addr);
		la = line_in(k, addr);
		cls = st = step(c, k->space, la, store, &c->fast_one);
		if (c->paced) {
			/* step took the line for the window (for writing after a
			 * store, or when it was among those taken so) */
			c->fast_excl = store || ((addr >> line_shift) - c->fast_line < c->fast_lines &&
						 c->fast_win == c->win && c->fast_excl);
			c->fast_line = addr >> line_shift;
			c->fast_win = c->win;
			c->fast_gen = k->gen;
			c->fast_lines = 1;
			/* a plain access to a line that was the thread's own, the
			 * next after a run of the gate's (memory gone through in
			 * order) */
			if (!across && store != RMW && !c->in_sync && (cls == PD_EMU_L1 || cls == PD_EMU_ST_L1) &&
			    after_run(c, addr))
				c->fast_lines += take_ahead(c, k, la, c->fast_excl);
		}
		/* an access across lines touches the next one too */
		if (across) {
			uint64_t last = addr + size - 1;
			bool one;

			k = page_key(c, last);
			step(c, k->space, line_in(k, last), store, &one);
		}
	}
	if (store == RMW)
		cls = as_load[cls];
	hitm = cls == PD_EMU_HITM || cls == PD_EMU_ST_HITM;
	/* HITMs at a rate of their own, other accesses one in period */
	if (hitm ? !--c->hitm_countdown : !--c->countdown) {
		uint32_t p = hitm ? hitm_period : period;

		if (hitm)
			c->hitm_countdown = hitm_period;
		else
			c->countdown = period;
		sample(c, addr, ip, find, cls, locked, p);
		/* its store too, as a store event samples a locked instruction */
		if (store == RMW)
			sample(c, addr, ip, 0, st, locked, p);
	}
	/* the default model: windows in lockstep with the other threads */
	if (c->paced && ++c->clock >= EMU_WIN) {
		c->clock = 0;
		gate_next_window(c, pace__window_end(c->idx, c->win));
	}
	fast_open(c);
	busy_end(c);
}

/* The access modelled; errno is the program's still (a hook can run
 * between its failing call and its look at errno, and the model makes
 * system calls). */
static __attribute__((noinline)) void access_slow(uint64_t addr, uint64_t size, int store, bool locked, uint64_t ip,
						  uint32_t find)
{
	int err = errno;

	model_access(addr, size, store, locked, ip, find);
	errno = err;
}

static inline bool in_gate(const struct core *c, uint64_t addr, uint64_t size, int st)
{
	_Static_assert(GATE == 4, "in_gate() looks at the gate's four runs");
	/* (the latest run first, alone: a loop on one pays for no more; a
	 * span is at least a line, more than any hook's size) */
	if (LIKELY(addr - c->fast_base[0][st] <= c->fast_span[0] - size))
		return true;
	return addr - c->fast_base[1][st] <= c->fast_span[1] - size ||
	       addr - c->fast_base[2][st] <= c->fast_span[2] - size ||
	       addr - c->fast_base[3][st] <= c->fast_span[3] - size;
}

/* Whether the access is within a line kept at its place (gate_clear()
 * emptied them when the window or the maps changed). */
static inline bool in_kept(const struct core *c, uint64_t addr, uint64_t size, int st)
{
	return addr - c->kept[kept_at(addr)][st] <= (1u << line_shift) - size;
}

/* Every access: the default model's loop on one line (the line of the
 * thread's last access, kept for its window, no sample due, the window not
 * ending) is counted here, in the hook, with no call and nothing shared
 * touched; the rest in access_slow. */
static inline void access_(uint64_t addr, uint64_t size, int store, bool locked, uint64_t ip, uint32_t find)
{
	struct core *c = self;

	if (LIKELY(c != NULL) && (in_kept(c, addr, size, store != 0) || in_gate(c, addr, size, store != 0)) &&
	    c->fast_left > 0 &&
	    c->fast_gen == emu_maps__gen()) {
		c->fast_left--;
		return;
	}
	access_slow(addr, size, store, locked, ip, find);
}

#define RA ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* Marks line at + 1 (a table index + 1) as one c goes on taking while it
 * waits, once. */
static void wait_mark(struct core *c, uint32_t at1)
{
	for (uint32_t i = 0; i < c->nr_waits_on; i++)
		if (c->waits_on[i] == at1)
			return;
	if (c->nr_waits_on == WAIT_LINES)
		return;
	c->waits_on[c->nr_waits_on++] = at1;
	__atomic_add_fetch(&line_at(at1 - 1)->waiting, 1, __ATOMIC_RELAXED);
	/* (the gates that keep it step it again from their next window) */
	revoke_gates(proto_holders(__atomic_load_n(&line_at(at1 - 1)->state, __ATOMIC_RELAXED)) & ~(1ull << c->idx));
}

/* One less waiter on the line, never below none (an entry reused under a
 * waiter starts again at none). */
static void wait_unmark(uint32_t at1)
{
	uint32_t *w = &line_at(at1 - 1)->waiting, n = __atomic_load_n(w, __ATOMIC_RELAXED);

	while (n && !__atomic_compare_exchange_n(w, &n, n - 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void emu_lock_wait(const void *lock, bool begin)
{
	struct core *c;
	const struct page_key *k;
	struct line *x;
	uint64_t a = (uint64_t)(uintptr_t)lock;

	if (!enabled || !windowed)
		return;
	c = me();
	if (!c || !c->on || c->busy || !c->paced)
		return;
	fast_close(c);
	c->busy = 1;
	if (begin && !c->nr_waits_on) {
		/* the lock's line, and the lines the thread wrote in this window
		 * and the last (its loop's, the data the lock guards among them) */
		k = page_key(c, a);
		x = line_of(c, k->space, line_in(k, a));
		if (x)
			wait_mark(c, index_of(x) + 1);
		for (uint32_t i = 0; i < WAIT_LINES; i++)
			if (c->wrote_recently[i].line && c->win - c->wrote_recently[i].win < 2)
				wait_mark(c, c->wrote_recently[i].line);
	} else if (!begin) {
		for (uint32_t i = 0; i < c->nr_waits_on; i++)
			wait_unmark(c->waits_on[i]);
		c->nr_waits_on = 0;
	}
	busy_end(c);
}

/* The calling thread's core, made now if it has none, in a process the
 * lockstep models (record's, with ThreadSanitizer's hooks); NULL else. A
 * thread's first call into the runtime may be a wait or a creation: its
 * core then, so that a creator's announcement of it is answered. */
static struct core *paced_me(void)
{
	return enabled && windowed && __atomic_load_n(&hooked, __ATOMIC_RELAXED) ? me() : NULL;
}

/* (each in the runtime, busy: a handler that came meanwhile waits, and
 * one that calls a wait itself is not followed) */
void emu_away(void)
{
	struct core *c = paced_me();

	if (c && c->paced && !c->busy) {
		c->busy = 1;
		pace__away(c->idx);
		busy_end(c);
	}
}

bool emu_creating(void)
{
	struct core *c = paced_me();

	if (!c || !c->paced || !c->on || c->busy)
		return false;
	c->busy = 1;
	pace__coming(c->win);
	busy_end(c);
	return true;
}

void emu_created(bool made)
{
	struct core *c = self;

	if (c)
		c->busy++;
	pace__created(made);
	if (c && !--c->busy)
		busy_end(c);
}

void emu_back(void)
{
	struct core *c = self;

	if (c && c->paced && !c->busy) {
		c->busy = 1;
		fast_close(c);
		gate_next_window(c, pace__back(c->idx, c->win));
		busy_end(c);
	}
}

void emu_meet(const void *obj, uint32_t count)
{
	struct core *c = paced_me();

	if (c && !c->busy) {
		c->busy = 1;
		pace__meet(obj, count);
		busy_end(c);
	}
}

uint32_t emu_arrive(const void *obj)
{
	struct core *c = self;
	uint32_t token = 0;

	if (c && c->paced && !c->busy) {
		c->busy = 1;
		token = pace__arrive(obj, c->idx, c->win);
		busy_end(c);
	}
	emu_away();
	return token;
}

void emu_depart(const void *obj, uint32_t token)
{
	struct core *c = self;

	if (c && c->paced && !c->busy) {
		c->busy = 1;
		fast_close(c);
		gate_next_window(c, pace__back(c->idx, token ? pace__depart(obj, c->idx, token - 1, c->win) : c->win));
		busy_end(c);
	}
}

void emu_access(const void *addr, uint32_t size, enum emu_kind kind, uint64_t ret)
{
	struct core *c;

	if (!__atomic_load_n(&hooked, __ATOMIC_RELAXED))
		return;
	/* (made now when this is the thread's first access: a worker's
	 * first is often its start barrier's) */
	c = enabled ? me() : self;
	/* RMW is access_'s own value of store: a read-modify-write */
	_Static_assert(EMU_RMW == RMW, "emu_kind and access_'s store");
	/* (a barrier passed, a lock taken: not the data a later lock wait
	 * goes on taking; the lock's own line is marked by emu_lock_wait) */
	if (c)
		c->in_sync = true;
	access_((uintptr_t)addr, size, (int)kind, kind == EMU_RMW, ret, 0);
	if (c)
		c->in_sync = false;
}

/* A forked child: its own pid, sample file and private lines (its pages
 * are copies now); the parent's chunk is the parent's. The model is shared
 * still, and so are the shared mappings. */
static void at_fork_child(void)
{
	pid = (uint32_t)getpid();
	retired_lock = 0;
	emu_out__forked(pid);
	emu_maps__forked();
	emu_heap__forked();
	/* the parent's other threads are not in the child: their states are
	 * the child's to reuse (their tids, the parent's, are live: left) */
	if (self) {
		emu_out__drop(&self->out);
		self->tid = (uint32_t)gettid();
		/* the parent's thread keeps its core; the child's is another */
		emu_zero(self->held, sizeof(self->held));
		core_start(self);
		emu_zero(self->pages, sizeof(self->pages));
		self->last = NULL;
	}
}

static uint32_t env_u32(const char *name, uint32_t def)
{
	const char *v = getenv(name);
	unsigned long x = v ? strtoul(v, NULL, 0) : 0;

	return x && x < (1ul << 30) ? (uint32_t)x : def;
}

#if UINTPTR_MAX > 0xffffffffu
#define EMU_ZONE 0x7c0000000000ull      /* 124 TiB: under 47-bit addresses, far below the mmap base */
#else
#define EMU_ZONE 0                      /* (no zone: the kernel's placement) */
#endif

uintptr_t emu_zone(size_t len)
{
	static uintptr_t next = EMU_ZONE;

	if (!EMU_ZONE)
		return 0;
	return __atomic_fetch_add(&next, (len + 0xffff) & ~(uintptr_t)0xffff, __ATOMIC_RELAXED);
}

/* The model: record's file (C2CSCAN_EMU_MODEL, sized here by whoever maps
 * it first), else this process's alone. */
static bool model_map(const char *path)
{
	int fd = path && *path ? emu_sys_open(path, O_RDWR) : -1;
	struct stat st;
	void *m = MAP_FAILED;

	if (fd >= 0) {
		if (!fstat(fd, &st) && ((uint64_t)st.st_size >= sizeof(*model) || !ftruncate(fd, sizeof(*model))))
			m = emu_sys_mmap(sizeof(*model), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		syscall(SYS_close, fd);
	}
	if (m == MAP_FAILED) {
		fprintf(stderr, "c2cscan emu: no shared model (%s): processes are modelled apart\n",
			path && *path ? path : "C2CSCAN_EMU_MODEL unset");
		m = emu_sys_mmap(sizeof(*model), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
	}
	if (m == MAP_FAILED)
		return false;
	model = m;
	return true;
}

static void emu_start(void)
{
	const char *d = getenv("C2CSCAN_EMU_DIR");
	uint32_t line;

	if (enabled || !d || !*d)
		return;
	if (!keyed++) {
		pthread_key_create(&key, thread_gone);
		pthread_atfork(NULL, NULL, at_fork_child);
	}
	emu_maps__own(d, getenv("C2CSCAN_EMU_MODEL"));
	period = env_u32("C2CSCAN_EMU_PERIOD", period);
	/* the default model counts a line's coming at most once a window:
	 * every such HITM is sampled */
	windowed = !env_u32("C2CSCAN_EMU_EXACT", 0);
	hitm_period = env_u32("C2CSCAN_EMU_HITM_PERIOD", windowed ? 1 : hitm_period);
	frames = env_u32("C2CSCAN_EMU_FRAMES", 0);
	line = env_u32("C2CSCAN_EMU_LINE", 64);
	if (line >= 16 && line <= 4096 && !(line & (line - 1)))
		line_shift = (unsigned int)__builtin_ctz(line);
	if (frames > PD_EMU_MAX_FRAMES)
		frames = PD_EMU_MAX_FRAMES;
	pid = (uint32_t)getpid();
	emu_out__start(d, pid);
	if (!model_map(getenv("C2CSCAN_EMU_MODEL")))
		return;
	if (windowed)
		pace__start(&model->pace, &model->head.stalls);
	enabled = 1;
	emu_heap__start();
	if (emu_jumps__redirect() > 0)
		__atomic_store_n(&hooked, 1, __ATOMIC_RELAXED);
	/* which allocator the layout is (the first process's says) */
	if (emu_heap__allocator() && !model->head.allocator[0])
		snprintf(model->head.allocator, sizeof(model->head.allocator), "%s", emu_heap__allocator());
}

/* libc2cscan-libtsan.so.N (src/record/standin/) out of LD_PRELOAD: record
 * asked the dynamic linker about the program it runs, not about those it
 * executes, which load libtsan (LD_PRELOAD's entries are separated by
 * colons or spaces). */
static void standin_out_of_env(void)
{
	static const char standin[] = "libc2cscan-libtsan.so.";
	const size_t len = sizeof(standin) - 1;
	const char *pre = getenv("LD_PRELOAD");
	char *keep, *w;

	if (!pre || !strstr(pre, standin))
		return;
	keep = malloc(strlen(pre) + 1);
	if (!keep)
		return;
	w = keep;
	for (const char *p = pre; *p;) {
		size_t n = strcspn(p, ": ");
		const char *base = memrchr(p, '/', n);

		base = base ? base + 1 : p;
		if (n && ((size_t)(p + n - base) < len || strncmp(base, standin, len))) {
			if (w != keep)
				*w++ = ':';
			memcpy(w, p, n);
			w += n;
		}
		p += n + (p[n] != '\0');
	}
	*w = '\0';
	setenv("LD_PRELOAD", keep, 1);
	free(keep);
}

bool emu_libtsan_left_out(void)
{
	return dlsym(RTLD_DEFAULT, "c2cscan_libtsan_standin") && !dlsym(RTLD_NEXT, "__tsan_init");
}

/* At load: the model starts when record runs the program; else, preloaded
 * by hand, ThreadSanitizer gets its hooks back. (__tsan_init, from a GCC
 * executable's preinit array, runs before the C library has the
 * environment: only here is its absence known.) */
__attribute__((constructor)) static void emu_load(void)
{
	standin_out_of_env();
	emu_start();
	if (!enabled && !getenv("C2CSCAN_EMU_DIR")) {
		pid = (uint32_t)getpid();
		emu_jumps__forward();
	}
}

/* Whether ThreadSanitizer's runtime is in the process: libtsan after this
 * library (GCC), or the executable's own (Clang). */
static bool tsan_program(void)
{
	void *next = dlsym(RTLD_NEXT, "__tsan_init"), *prog = emu_loaded(NULL);
	void *exe = prog ? dlsym(prog, "__tsan_init") : NULL;

	emu_release(prog);
	return (next && next != (void *)__tsan_init) || (exe && exe != (void *)__tsan_init);
}

/* Run without record: said once, at the end (the hooks may run before the
 * constructors, the environment read again by each). */
__attribute__((destructor)) static void emu_end(void)
{
	/* the exiting thread is not waited for (the process's others end
	 * with it: waiters elsewhere find them gone) */
	if (self && self->paced) {
		self->paced = false;
		pace__leave(self->idx);
	}
	if (self && model)
		unmodelled_flush(self);
	/* (only in a ThreadSanitizer program: not in the symbolizer a
	 * Clang build's runtime starts, which inherits the preload; not in a
	 * child forked without fork handlers, whose pid is not the one the
	 * constructor saw) */
	if (!enabled && pid == (uint32_t)getpid() && tsan_program())
		fprintf(stderr, "c2cscan emu: not run by 'c2cscan record --emulate' (no C2CSCAN_EMU_DIR): "
			"accesses were not modelled\n");
}

/* ---- the ABI ---- */

EXPORT void __tsan_init(void)
{
	static int done;
	void (*real)(void);

	__atomic_store_n(&hooked, 1, __ATOMIC_RELAXED);
	if (done++)
		return;
	emu_start();
	/* libtsan's own runtime, for its interceptors */
	real = (void (*)(void))dlsym(RTLD_NEXT, "__tsan_init");
	if (real)
		real();
}

/* The shadow stack (record -g): pc is the instrumented function's return
 * address, in its caller. A longjmp or an exception that skips func_exit
 * leaves entries behind until the thread returns past them: the chain
 * then holds stale callers, never a crash. */
EXPORT void __tsan_func_entry(void *pc)
{
	struct core *c;

	if (!frames)
		return;
	c = me();
	if (!c)
		return;
	/* a ring: deeper than STACK, the innermost frames are kept and the
	 * outermost overwritten (gone for good: floor says from where on the
	 * entries are the frames') */
	c->stack[c->depth % STACK] = (uintptr_t)pc;
	c->depth++;
	if (c->depth - c->floor > STACK)
		c->floor = c->depth - STACK;
}

EXPORT void __tsan_func_exit(void)
{
	struct core *c;

	if (!frames)
		return;
	c = self;
	if (c && c->depth) {
		c->depth--;
		if (c->floor > c->depth)
			c->floor = c->depth;    /* below it, new frames again */
	}
}

EXPORT void __tsan_ignore_thread_begin(void)
{
	struct core *c = me();

	if (c) {
		fast_close(c);
		c->on = 0;
	}
}

EXPORT void __tsan_ignore_thread_end(void)
{
	struct core *c = me();

	if (c)
		c->on = enabled;
}

/* Every hook we define, by name (for jumps.c): the table, emu_hooks[],
 * comes after their definitions. */

#define RW(n)                                                                                     \
	EXPORT void __tsan_read##n(void *a) { access_((uintptr_t)a, n, false, false, RA, n); }          \
	EXPORT void __tsan_write##n(void *a) { access_((uintptr_t)a, n, true, false, RA, n); }          \
	EXPORT void __tsan_unaligned_read##n(void *a) { access_((uintptr_t)a, n, false, false, RA, n); } \
	EXPORT void __tsan_unaligned_write##n(void *a) { access_((uintptr_t)a, n, true, false, RA, n); } \
	EXPORT void __tsan_volatile_read##n(void *a) { access_((uintptr_t)a, n, false, false, RA, n); }  \
	EXPORT void __tsan_volatile_write##n(void *a) { access_((uintptr_t)a, n, true, false, RA, n); }  \
	EXPORT void __tsan_read##n##_pc(void *a, void *pc) { access_((uintptr_t)a, n, false, false, (uintptr_t)pc, PD_EMU_AT_RET); } \
	EXPORT void __tsan_write##n##_pc(void *a, void *pc) { access_((uintptr_t)a, n, true, false, (uintptr_t)pc, PD_EMU_AT_RET); }
RW(1) RW(2) RW(4) RW(8) RW(16)

/* A range: one access to each of the model's lines it covers. */
static void access_range(uint64_t a, uint64_t size, bool store, uint64_t ip)
{
	uint64_t line = 1ull << line_shift;

	for (uint64_t p = a & ~(line - 1); p < a + size; p += line)
		access_(p < a ? a : p, 1, store, false, ip, 0);
}

EXPORT void __tsan_read_range(void *a, unsigned long size)
{
	access_range((uintptr_t)a, size, false, RA);
}

EXPORT void __tsan_write_range(void *a, unsigned long size)
{
	access_range((uintptr_t)a, size, true, RA);
}

EXPORT void __tsan_vptr_update(void **vp, void *v)
{
	access_((uintptr_t)vp, sizeof(void *), true, false, RA, sizeof(void *));
}

EXPORT void __tsan_vptr_read(void **vp)
{
	access_((uintptr_t)vp, sizeof(void *), false, false, RA, sizeof(void *));
}

/* Atomics: done for real, sequentially consistent (at least what was
 * asked: mo is the C11 order); a load is a locked load, anything that
 * writes a locked store. */
#define SC __ATOMIC_SEQ_CST
#define FETCH(bits, T, op)                                                                           \
	EXPORT T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo)                                 \
	{ access_((uintptr_t)a, sizeof(T), RMW, true, RA, 0); return __atomic_##op(a, v, SC); }
#define CAS(bits, T, kind)                                                                           \
	EXPORT int __tsan_atomic##bits##_compare_exchange_##kind(volatile T *a, T *c, T v, int mo, int fmo) \
	{ access_((uintptr_t)a, sizeof(T), RMW, true, RA, 0);                                              \
	  return __atomic_compare_exchange_n(a, c, v, false, SC, SC); }
#define ATOMICS(bits, T)                                                                             \
	EXPORT T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                \
	{ access_((uintptr_t)a, sizeof(T), false, true, RA, 0); return __atomic_load_n(a, SC); }            \
	EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                             \
	{ access_((uintptr_t)a, sizeof(T), true, true, RA, 0); __atomic_store_n(a, v, SC); }               \
	EXPORT T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                             \
	{ access_((uintptr_t)a, sizeof(T), RMW, true, RA, 0); return __atomic_exchange_n(a, v, SC); }      \
	FETCH(bits, T, fetch_add) FETCH(bits, T, fetch_sub) FETCH(bits, T, fetch_and)                    \
	FETCH(bits, T, fetch_or) FETCH(bits, T, fetch_xor) FETCH(bits, T, fetch_nand)                    \
	CAS(bits, T, strong) CAS(bits, T, weak)                                                          \
	EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)     \
	{ access_((uintptr_t)a, sizeof(T), RMW, true, RA, 0);                                              \
	  __atomic_compare_exchange_n(a, &c, v, false, SC, SC); return c; }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
/* 128-bit atomics stay libtsan's (they need libatomic or cmpxchg16b) */

EXPORT void __tsan_atomic_thread_fence(int mo)
{
	__atomic_thread_fence(SC);
}

EXPORT void __tsan_atomic_signal_fence(int mo)
{
	__atomic_signal_fence(SC);
}

static void *libc_handle(void)
{
	static void *libc;
	void *h = __atomic_load_n(&libc, __ATOMIC_ACQUIRE);

	/* (kept: the C library is never unloaded; two threads that both
	 * look it up hold it twice) */
	if (!h) {
		h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		__atomic_store_n(&libc, h, __ATOMIC_RELEASE);
	}
	return h;
}

void *emu_libc(const char *name)
{
	void *libc = libc_handle();

	return libc ? dlsym(libc, name) : NULL;
}

/* The next definition of name: the C library's, or libtsan's interceptor
 * before it (GCC); never this library's own (dlopen'ed, RTLD_NEXT may
 * come round to it). */
void *emu_next(const char *name, void *own)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f && f != own)
		return f;
	f = emu_libc(name);
	return f != own ? f : NULL;
}

/* The C library's dlopen and dlclose (before glibc 2.34 in libdl, not
 * looked for: libtsan's then) */
static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

static void real_dl(void)
{
	void *o, *c;

	if (__atomic_load_n(&real_dlclose, __ATOMIC_ACQUIRE))
		return;
	o = emu_libc("dlopen");
	c = emu_libc("dlclose");
	if (!o || !c) {
		o = (void *)dlopen;
		c = (void *)dlclose;
	}
	__atomic_store_n(&real_dlopen, (void *(*)(const char *, int))o, __ATOMIC_RELAXED);
	__atomic_store_n(&real_dlclose, (int (*)(void *))c, __ATOMIC_RELEASE);
}

void *emu_loaded(const char *path)
{
	real_dl();
	return __atomic_load_n(&real_dlopen, __ATOMIC_RELAXED)(path, RTLD_NOW | RTLD_NOLOAD);
}

void emu_release(void *h)
{
	if (h)
		__atomic_load_n(&real_dlclose, __ATOMIC_ACQUIRE)(h);
}

#define H(name) { #name, (void *)name },
#define H_RW(n)                                                                                   \
	H(__tsan_read##n) H(__tsan_write##n) H(__tsan_unaligned_read##n) H(__tsan_unaligned_write##n) \
	H(__tsan_volatile_read##n) H(__tsan_volatile_write##n) H(__tsan_read##n##_pc) H(__tsan_write##n##_pc)
#define H_ATOMICS(b)                                                                              \
	H(__tsan_atomic##b##_load) H(__tsan_atomic##b##_store) H(__tsan_atomic##b##_exchange)          \
	H(__tsan_atomic##b##_fetch_add) H(__tsan_atomic##b##_fetch_sub) H(__tsan_atomic##b##_fetch_and) \
	H(__tsan_atomic##b##_fetch_or) H(__tsan_atomic##b##_fetch_xor) H(__tsan_atomic##b##_fetch_nand) \
	H(__tsan_atomic##b##_compare_exchange_strong) H(__tsan_atomic##b##_compare_exchange_weak)      \
	H(__tsan_atomic##b##_compare_exchange_val)

const struct emu_fn emu_hooks[] = {
	H_RW(1) H_RW(2) H_RW(4) H_RW(8) H_RW(16)
	H(__tsan_read_range) H(__tsan_write_range) H(__tsan_vptr_update) H(__tsan_vptr_read)
	H(__tsan_func_entry) H(__tsan_func_exit) H(__tsan_ignore_thread_begin) H(__tsan_ignore_thread_end)
	H_ATOMICS(8) H_ATOMICS(16) H_ATOMICS(32) H_ATOMICS(64)
	H(__tsan_atomic_thread_fence)
	/* __tsan_atomic_signal_fence: a compiler barrier, nothing to model */
	H(mmap) H(mmap64) H(munmap) H(mremap) H(madvise)
};
const size_t emu_nhooks = sizeof(emu_hooks) / sizeof(emu_hooks[0]);
