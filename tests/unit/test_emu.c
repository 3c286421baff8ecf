// SPDX-License-Identifier: GPL-2.0
/*
 * The coherence model of libc2cscan-emu.so on scripted accesses: three
 * threads call its ThreadSanitizer hooks in a fixed order (each waits for
 * its turn), every access sampled (periods 1), and the classes it wrote
 * must be exactly those of the protocol: the first store an L1 store, a
 * load of another core's modified line a HITM, a store to a line others
 * hold copies of a store miss, a store taking another core's modified line
 * a store HITM, a load of a copy another core read an LLC hit, an atomic
 * read-modify-write a locked load and a locked store; an access across two
 * lines touches both. Then two threads take turns writing one line: every
 * write but the first a store HITM. That is the exact model
 * (--emulate=exact); the default one (lockstep windows, pace.c) runs in a
 * child on a script of its own: a thread keeps a line for the rest of its
 * window, and a line another core wrote in the window before comes to it
 * as a transfer whatever the state says. The same script again with one
 * access in 7 sampled, so that the hook's gate (the lines a thread keeps,
 * counted without a call) carries the loads, and then loops over four
 * lines (the gate's) and five, and each word of a page loaded and stored
 * in turn (a run taken for reading, lines taken for writing), and a word
 * in each of 16 pages (the lines kept at their places): the classes
 * are the same, and the samples stand for every access. Last, the lines a
 * thread takes with one of its own (take_ahead): taken for the window
 * until another thread has them, where the taking stops; and a write to
 * a line its writer had alone, which the next thread to take the line
 * finds in its window after.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perfdata/perf_data.h"
#include "record/emu/emu.h"
#include "test.h"

static void (*rd8)(void *), (*wr8)(void *), (*uwr8)(void *);
static uint64_t (*fadd64)(volatile uint64_t *, uint64_t, int);
static _Alignas(64) uint64_t mem[32];   /* lines 0..3 */
#define GATE_LOOP 70000
static _Alignas(64) uint64_t gate_mem[5 * 8];   /* five lines of their own */
static _Alignas(4096) uint64_t round_mem[512];  /* a page the gate's stores go round */
static _Alignas(4096) uint64_t page_mem[512];   /* a page for take_ahead's script */
#define SPREAD 16
static _Alignas(4096) uint64_t spread_mem[SPREAD * 512];        /* a line in each of 16 pages */
static int turn;

struct step {
	int thread;
	char op;        /* r w u (unaligned write) a (fetch_add) p (EMU_WIN reads: a window's end);
			 * g, h: GATE_LOOP reads over four, five lines of gate_mem; k:
			 * GATE_LOOP / 2 loads and stores of each word going round
			 * round_mem; m: GATE_LOOP / 2 loads and stores going round
			 * the first lines of spread_mem's pages; S: a store to each of
			 * page_mem's lines 0-7; s, l: a store to, a load of page_mem's
			 * line word */
	int word;
};

/* The script: (thread, operation, word of mem). */
static const struct step script[] = {
	{ 0, 'w', 0 },  /* ST_L1: nobody has the line */
	{ 1, 'r', 1 },  /* HITM: 0 holds it modified */
	{ 1, 'w', 1 },  /* ST_MISS: 0 has a copy */
	{ 0, 'w', 0 },  /* ST_HITM: 1 holds it modified */
	{ 0, 'r', 0 },  /* L1 */
	{ 1, 'r', 1 },  /* HITM */
	{ 2, 'r', 2 },  /* LLC: 0 and 1 have copies */
	{ 0, 'a', 0 },  /* locked LLC load (its copy is there, others too): ST_MISS store */
	{ 1, 'a', 1 },  /* locked HITM load, ST_HITM store */
	{ 2, 'u', 7 },  /* across lines 0 and 1 (bytes 60..67): line 0 ST_HITM */
	{ 2, 'w', 8 },  /* line 1: the unaligned write took it: ST_L1 */
};

static void do_step(const struct step *s)
{
	void *a = &mem[s->word];

	switch (s->op) {
	case 'r':
		rd8(a);
		break;
	case 'w':
		wr8(a);
		break;
	case 'u':
		uwr8((char *)a + 4);
		break;
	case 'a':
		fadd64((volatile uint64_t *)a, 1, 5);
		break;
	case 'p':
		for (unsigned int k = 0; k < EMU_WIN; k++)
			rd8(a);
		break;
	case 'g':
	case 'h':
		for (unsigned int k = 0; k < GATE_LOOP; k++)
			rd8(&gate_mem[k % (s->op == 'g' ? 4 : 5) * 8]);
		break;
	case 'k':
		for (unsigned int k = 0; k < GATE_LOOP / 2; k++) {
			rd8(&round_mem[k % 512]);
			wr8(&round_mem[k % 512]);
		}
		break;
	case 'm':
		for (unsigned int k = 0; k < GATE_LOOP / 2; k++) {
			rd8(&spread_mem[k % SPREAD * 512]);
			wr8(&spread_mem[k % SPREAD * 512]);
		}
		break;
	case 'S':
		for (int l = 0; l < 8; l++)
			wr8(&page_mem[l * 8]);
		break;
	case 's':
		wr8(&page_mem[s->word * 8]);
		break;
	case 'l':
		rd8(&page_mem[s->word * 8]);
		break;
	}
}

/* The script the threads run (run_script()), its steps in turn. */
static const struct step *steps;
static size_t nr_steps;

static void *run(void *arg)
{
	int me = (int)(intptr_t)arg;

	for (size_t i = 0; i < nr_steps; i++) {
		if (steps[i].thread != me)
			continue;
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != (int)i)
			;
		do_step(&steps[i]);
		__atomic_store_n(&turn, (int)i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* n threads running fn, ended. */
static void threads(int n, void *(*fn)(void *))
{
	pthread_t t[3];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* The script s (n steps) run by its threads, in turn from the first. */
static void run_script(const struct step *s, size_t n, int nr_threads)
{
	steps = s;
	nr_steps = n;
	turn = 0;
	threads(nr_threads, run);
}

/* Two threads take turns writing word 16 (line 2): every write after the
 * first is a store HITM. */
#define PINGS 20000
static void *ping(void *arg)
{
	int me = (int)(intptr_t)arg;

	for (int i = me; i < PINGS; i += 2) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != i)
			;
		wr8(&mem[16]);
		__atomic_store_n(&turn, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

#define PAGE_SAMPLES 32

struct got {
	unsigned int cls[PD_EMU__NR], locked;
	struct page_sample {            /* page_mem's samples */
		uint64_t time;
		unsigned int line, cls;
	} page[PAGE_SAMPLES];
	unsigned int nr_page;
	unsigned int ping_samples, ping_hitm;
	uint64_t ping_period;
	uint64_t gate_period;           /* the accesses gate_mem's samples stand for */
};

static void read_samples(const char *path, struct got *g)
{
	uint8_t *chunk = malloc(PD_EMU_CHUNK);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	CHECK(fd >= 0 && chunk);
	while (fd >= 0 && chunk && (n = read(fd, chunk, PD_EMU_CHUNK)) > 0) {
		for (size_t at = 0; at + sizeof(struct pd_emu_sample) <= (size_t)n;) {
			struct pd_emu_sample e;

			memcpy(&e, chunk + at, sizeof(e));
			if (!e.time)
				break;
			at += pd_emu_sample_len(&e);
			if (e.addr >= (uintptr_t)page_mem && e.addr < (uintptr_t)&page_mem[512]) {
				if (g->nr_page < PAGE_SAMPLES)
					g->page[g->nr_page++] = (struct page_sample){
						e.time, (unsigned int)((e.addr - (uintptr_t)page_mem) / 64), e.cls
					};
				continue;
			}
			if ((e.addr >= (uintptr_t)gate_mem && e.addr < (uintptr_t)&gate_mem[5 * 8]) ||
			    (e.addr >= (uintptr_t)round_mem && e.addr < (uintptr_t)&round_mem[512]) ||
			    (e.addr >= (uintptr_t)spread_mem && e.addr < (uintptr_t)&spread_mem[SPREAD * 512])) {
				g->gate_period += e.period;
				continue;
			}
			if (e.addr >= (uintptr_t)&mem[16] && e.addr < (uintptr_t)&mem[24]) {
				g->ping_samples++;
				g->ping_hitm += e.cls == PD_EMU_ST_HITM;
				g->ping_period += e.period;
				continue;
			}
			if (e.addr < (uintptr_t)mem || e.addr >= (uintptr_t)&mem[16] || e.cls >= PD_EMU__NR)
				continue;
			g->cls[e.cls]++;
			g->locked += e.locked;
		}
	}
	if (fd >= 0)
		close(fd);
	free(chunk);
}

/* The runtime (B/libc2cscan-emu.so beside B/tests/test_emu) loaded over a
 * model file in a new directory (dir), every access sampled; the hooks
 * found. False when it cannot be. */
static bool load_runtime(char *dir, char *path, size_t size, const char *period)
{
	char lib[PATH_MAX], *slash;
	ssize_t len = readlink("/proc/self/exe", lib, sizeof(lib) - 64);
	void *h;
	int fd;

	CHECK(len > 0);
	if (len <= 0)
		return false;
	lib[len] = 0;
	slash = strrchr(lib, '/');
	*slash = 0;
	slash = strrchr(lib, '/');
	strcpy(slash ? slash + 1 : lib, "libc2cscan-emu.so");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, size, "%s/model", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	close(fd);
	setenv("C2CSCAN_EMU_DIR", dir, 1);
	setenv("C2CSCAN_EMU_MODEL", path, 1);
	setenv("C2CSCAN_EMU_PERIOD", period, 1);
	setenv("C2CSCAN_EMU_HITM_PERIOD", "1", 1);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return false;
	}
	rd8 = (void (*)(void *))dlsym(h, "__tsan_read8");
	wr8 = (void (*)(void *))dlsym(h, "__tsan_write8");
	uwr8 = (void (*)(void *))dlsym(h, "__tsan_unaligned_write8");
	fadd64 = (uint64_t(*)(volatile uint64_t *, uint64_t, int))dlsym(h, "__tsan_atomic64_fetch_add");
	CHECK(rd8 && wr8 && uwr8 && fadd64);
	return rd8 && wr8 && uwr8 && fadd64;
}

/* The default model's script: (thread, operation, word); 'p' is EMU_WIN
 * reads of a line of thread 0's own, to its window's end (thread 1 is
 * not in step before its own first window ends: no wait). */
static const struct step windowed_script[] = {
	{ 0, 'w', 0 },  /* ST_L1: nobody has the line */
	{ 1, 'w', 1 },  /* ST_HITM: the line comes to 1 in its window */
	{ 0, 'w', 0 },  /* ST_L1: 0 keeps it for the rest of its window */
	{ 1, 'r', 1 },  /* L1: and 1 too */
	{ 0, 'p', 16 }, /* 0's next window */
	{ 0, 'r', 0 },  /* HITM: 1 wrote it last (it comes to 0 in this window) */
	{ 0, 'w', 0 },  /* ST_MISS: the load's coming, not another (1 wrote it in the
			 * window before, but the line came once: a store HITM here
			 * would count it twice, or once had the store come first) */
	{ 1, 'w', 1 },  /* ST_L1: still 1's window */
};

/* The samples the process wrote into dir, read into g; dir removed. */
static void collect(const char *dir, struct got *g)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/emu-%d", dir, (int)getpid());
	read_samples(path, g);
	unlink(path);
	snprintf(path, sizeof(path), "%s/model", dir);
	unlink(path);
	rmdir(dir);
}

/* The default model's script, then the gate's loops (thread 0). */
static const struct step gated_script[] = {
	{ 0, 'w', 0 }, { 1, 'w', 1 }, { 0, 'w', 0 }, { 1, 'r', 1 }, { 0, 'p', 16 },
	{ 0, 'r', 0 }, { 0, 'w', 0 }, { 1, 'w', 1 }, { 0, 'g', 0 }, { 0, 'h', 0 }, { 0, 'k', 0 },
	{ 0, 'm', 0 },
};

/* take_ahead: thread 0's lines 0-7 of a page, its own; in its next
 * window line 0, then line 1, which comes after the gate's run of line 0
 * (memory gone through in order), and takes lines 2-7 with it; thread 1
 * reads line 3 (a HITM: 0 holds it modified) and writes line 5 (a store
 * HITM); 0's store to line 3 is then a hit (taken for the window). In 0's
 * window after, the taking from line 1 stops at line 3 (1 has a copy: 0's
 * store is a miss) and line 5 is 1's (a store HITM). */
static const struct step take_script[] = {
	{ 0, 'S', 0 }, { 0, 'p', 16 }, { 0, 's', 0 }, { 0, 's', 1 }, { 1, 'l', 3 }, { 0, 's', 3 },
	{ 1, 's', 5 }, { 0, 'p', 16 }, { 0, 's', 0 }, { 0, 's', 1 }, { 0, 's', 3 }, { 0, 's', 5 },
	{ 0, 's', 2 },
};
static const struct page_sample take_expect[] = {
	{ 0, 0, PD_EMU_ST_L1 }, { 0, 1, PD_EMU_ST_L1 }, { 0, 2, PD_EMU_ST_L1 }, { 0, 3, PD_EMU_ST_L1 },
	{ 0, 4, PD_EMU_ST_L1 }, { 0, 5, PD_EMU_ST_L1 }, { 0, 6, PD_EMU_ST_L1 }, { 0, 7, PD_EMU_ST_L1 },
	{ 0, 0, PD_EMU_ST_L1 }, { 0, 1, PD_EMU_ST_L1 }, { 0, 3, PD_EMU_HITM }, { 0, 3, PD_EMU_ST_L1 },
	{ 0, 5, PD_EMU_ST_HITM }, { 0, 0, PD_EMU_ST_L1 }, { 0, 1, PD_EMU_ST_L1 }, { 0, 3, PD_EMU_ST_MISS },
	{ 0, 5, PD_EMU_ST_HITM }, { 0, 2, PD_EMU_ST_L1 },
};

/* A write to a line its writer has alone counts for the next thread to
 * take it: thread 0 writes line 10 of page_mem, and again in its next
 * window (the line its alone, a hit); thread 1, starting in that window,
 * takes it (a store HITM); in thread 1's next window its store finds the
 * state its own but 0's write in the window before: a store HITM (the
 * threads' accesses interleave within a window). */
static const struct step mark_script[] = {
	{ 0, 's', 10 }, { 0, 'p', 16 }, { 0, 's', 10 }, { 1, 's', 10 }, { 0, 'p', 16 }, { 1, 'p', 16 }, { 1, 's', 10 },
};
static const struct page_sample mark_expect[] = {
	{ 0, 10, PD_EMU_ST_L1 }, { 0, 10, PD_EMU_ST_L1 }, { 0, 10, PD_EMU_ST_HITM }, { 0, 10, PD_EMU_ST_HITM },
};

/* A line a thread's gate keeps from window to window is let go of when
 * another thread takes it, and a contended one is stepped again in the
 * next window (only contended accesses are sampled here): thread 0 writes
 * line 20 of page_mem in a window and the next (its own: a hit either
 * time); thread 1 takes it (a store HITM) and 0's next store, in the same
 * window, is a hit; in 0's next window the line is 1's (a store HITM).
 * Thread 0 writes line 21, thread 2 takes it (a store HITM), 0 writes it
 * again (held for its window: a hit); in 2's next window its store is a
 * store HITM again (0 wrote in the window before), not a hit of its
 * gate's. */
static const struct step keep_script[] = {
	{ 0, 's', 20 }, { 0, 'p', 16 }, { 0, 's', 20 }, { 1, 's', 20 }, { 0, 's', 20 }, { 0, 'p', 16 }, { 0, 's', 20 },
	{ 0, 's', 21 }, { 2, 's', 21 }, { 0, 's', 21 }, { 2, 'p', 16 }, { 2, 's', 21 },
};
static const struct page_sample keep_expect[] = {
	{ 0, 20, PD_EMU_ST_HITM }, { 0, 20, PD_EMU_ST_HITM }, { 0, 21, PD_EMU_ST_HITM }, { 0, 21, PD_EMU_ST_HITM },
};

static int by_time(const void *a, const void *b)
{
	const struct page_sample *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/* A script's page_mem samples, in time order, are expect's (n). */
static void check_page(struct got *g, const struct page_sample *expect, size_t n, const char *what)
{
	qsort(g->page, g->nr_page, sizeof(g->page[0]), by_time);
	CHECK_EQ_U64(g->nr_page, n);
	for (size_t i = 0; i < n && i < g->nr_page; i++) {
		if (g->page[i].line == expect[i].line && g->page[i].cls == expect[i].cls)
			continue;
		fprintf(stderr, "%s: sample %zu: line %u class %u, expected line %u class %u\n", what, i,
			g->page[i].line, g->page[i].cls, expect[i].line, expect[i].cls);
		CHECK(0);
	}
}

enum run { WINDOWED, GATED, TAKE, MARK, KEEP };

/* The scripts whose page_mem samples are checked one by one. */
#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct page_run {
	enum run run;
	const struct step *script;
	size_t nr_script;
	int threads;
	const struct page_sample *expect;
	size_t nr_expect;
	const char *what, *title;
} page_runs[] = {
	{ TAKE, take_script, N(take_script), 2, take_expect, N(take_expect), "take_ahead",
	  "test_emu (default model, lines taken ahead)" },
	{ MARK, mark_script, N(mark_script), 2, mark_expect, N(mark_expect), "a write had alone",
	  "test_emu (default model, a write had alone)" },
	{ KEEP, keep_script, N(keep_script), 3, keep_expect, N(keep_expect), "lines kept",
	  "test_emu (default model, lines kept from window to window)" },
};
#undef N

/* The default model, in a child (every access sampled, or one in 7 with
 * the gate's loops; or take_ahead's script): its exit status is its
 * failures. */
static int windowed(enum run run)
{
	bool gated = run == GATED;
	char dir[] = "/tmp/c2cscan-test-emu-XXXXXX", path[PATH_MAX + 32];
	struct got g = { 0 };

	unsetenv("C2CSCAN_EMU_EXACT");
	if (!load_runtime(dir, path, sizeof(path), gated ? "7" : run == KEEP ? "1000000" : "1"))
		return test_done("test_emu (default model)");
	for (size_t i = 0; i < sizeof(page_runs) / sizeof(page_runs[0]); i++) {
		const struct page_run *r = &page_runs[i];

		if (r->run != run)
			continue;
		run_script(r->script, r->nr_script, r->threads);
		collect(dir, &g);
		check_page(&g, r->expect, r->nr_expect, r->what);
		return test_done(r->title);
	}
	if (gated)
		run_script(gated_script, sizeof(gated_script) / sizeof(gated_script[0]), 2);
	else
		run_script(windowed_script, sizeof(windowed_script) / sizeof(windowed_script[0]), 2);
	collect(dir, &g);
	/* (contended accesses are every one sampled either way) */
	CHECK_EQ_U64(g.cls[PD_EMU_ST_HITM], 1);
	CHECK_EQ_U64(g.cls[PD_EMU_HITM], 1);
	if (!gated) {
		CHECK_EQ_U64(g.cls[PD_EMU_ST_MISS], 1);
		CHECK_EQ_U64(g.cls[PD_EMU_ST_L1], 3);
		CHECK_EQ_U64(g.cls[PD_EMU_L1], 1);
	} else {
		/* one sample every 7 accesses of the loops: what they stand for
		 * is every access, within a period */
		CHECK(g.gate_period + 7 >= 4 * GATE_LOOP && g.gate_period <= 4 * GATE_LOOP + 7);
		if (g.gate_period + 7 < 4 * GATE_LOOP || g.gate_period > 4 * GATE_LOOP + 7)
			fprintf(stderr, "gate loops: samples stand for %llu accesses of %u\n",
				(unsigned long long)g.gate_period, 4 * GATE_LOOP);
	}
	return test_done(gated ? "test_emu (default model, the gate)" : "test_emu (default model)");
}

/* windowed(run) in a child: whether it passed. */
static bool in_child(enum run run)
{
	pid_t child;
	int status = -1;

	fflush(stdout);
	child = fork();
	if (!child) {
		int failed = windowed(run);

		fflush(stdout);
		_exit(failed);
	}
	return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	char dir[] = "/tmp/c2cscan-test-emu-XXXXXX", path[PATH_MAX + 32];
	struct got g = { 0 };

	CHECK(in_child(WINDOWED));
	CHECK(in_child(GATED));
	CHECK(in_child(TAKE));
	CHECK(in_child(MARK));
	CHECK(in_child(KEEP));
	setenv("C2CSCAN_EMU_EXACT", "1", 1);
	if (!load_runtime(dir, path, sizeof(path), "1"))
		return test_done("test_emu");
	run_script(script, sizeof(script) / sizeof(script[0]), 3);
	/* the atomics were performed */
	CHECK_EQ_U64(mem[0], 1);
	CHECK_EQ_U64(mem[1], 1);
	turn = 0;
	threads(2, ping);
	collect(dir, &g);
	CHECK_EQ_U64(g.cls[PD_EMU_ST_L1], 2);
	CHECK_EQ_U64(g.cls[PD_EMU_HITM], 3);
	CHECK_EQ_U64(g.cls[PD_EMU_ST_MISS], 2);
	CHECK_EQ_U64(g.cls[PD_EMU_ST_HITM], 3);
	CHECK_EQ_U64(g.cls[PD_EMU_L1], 1);
	CHECK_EQ_U64(g.cls[PD_EMU_LLC], 2);
	CHECK_EQ_U64(g.locked, 4);
	/* the first write, then PINGS - 1 store HITMs, every one sampled */
	CHECK_EQ_U64(g.ping_samples, PINGS);
	CHECK_EQ_U64(g.ping_hitm, PINGS - 1);
	CHECK_EQ_U64(g.ping_period, PINGS);
	return test_done("test_emu");
}
