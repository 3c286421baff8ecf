// SPDX-License-Identifier: GPL-2.0
/*
 * Hazards of the emulation runtime (tests/cli/emulate-hazards.sh): thread
 * churn, then contention, under a signal that keeps arriving.
 *  - between the start of the ping thread and the pong one, 55 short-lived
 *    threads come and go: with cores handed out round-robin (56 of them)
 *    pong would get ping's core and their ping-pong on one line would not
 *    be contention; cores must be reused as threads end;
 *  - a 100 us SIGALRM timer runs a handler that touches memory the whole
 *    time, also while threads end (after their TSD destructors);
 *  - a pthread key created after the runtime's, whose destructor touches
 *    memory, runs at every thread's end.
 * Prints the ping-pong's totals; exits 0. "churn wide": 60 threads live at
 * once instead (more than the model's cores: record must say so). "churn
 * deep": the ping-pong 1,500 calls deep (past the runtime's 1,024-entry
 * shadow stack: the innermost callers must be the ones kept). "churn
 * big": 96 MiB written once (more lines than the model's table holds:
 * record must say that accesses went unmodelled). "churn forks": six
 * children one after the other write 16 MiB each and end, then the
 * ping-pong (the children's lines must not keep the table full). "churn
 * unmapped": the same from six 16 MiB mappings of this process, each
 * written, then unmapped before the next is made at an address of its own
 * (96 MiB in all, more than the table's lines: those of unmapped memory
 * must not keep it full). "churn full": 96 MiB written and kept, then
 * the ping-pong (lines untouched since must be evicted for its line).
 * "churn remap": a mapping the main thread wrote, unmapped, and new
 * memory mapped at its address and written by another thread (none of it
 * contended: the old lines are forgotten at the unmapping); "churn
 * bigfree": the same with 40 MiB malloc blocks; "churn dontneed": the
 * mapping's pages given back with madvise and written again.
 * "churn sigmaps": shared memory mapped, written and unmapped 5,000
 * times while the 100 us timer's handler touches memory (without
 * libtsan the signal comes at any instruction: inside the runtime's
 * mmap and munmap too, which must not wait there for themselves).
 * "churn jumps": the ping-pong while the main thread writes memory line
 * by line and a 100 us timer's handler leaves by siglongjmp, 2,000 times
 * (without libtsan the signal comes inside the runtime's hooks too: a
 * handler must wait until the hook is done, or it leaves it half done).
 * "churn errno": the ping-pong, each player
 * checking that errno stays what it set (exits 1 if not). "churn race":
 * a data race for ThreadSanitizer's report.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHURN 55
#define ITERS 3000000

struct pair {
	long ping;
	long pong;
};

static struct pair pair __attribute__((aligned(64)));
static volatile long ticks;
static long churned[CHURN];
static pthread_key_t late_key;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void late_destructor(void *p)
{
	long *v = p;

	*v += 1;
	free(v);
}

static void *churn(void *arg)
{
	long i = (long)arg;
	long *v = malloc(sizeof(*v));

	if (v) {
		*v = i;
		pthread_setspecific(late_key, v);
	}
	churned[i] = i * 2;
	return NULL;
}

__attribute__((noinline)) static void bump(long *v)
{
	++*v;
}

static pthread_barrier_t start;

/* one side of the ping-pong: its own counter of the pair */
static void *player(void *arg)
{
	long *v = arg;

	pthread_barrier_wait(&start);
	for (long i = 0; i < ITERS; i++)
		bump(v);
	return NULL;
}

/* one side of the ping-pong that sets errno first and checks, at every
 * round, that the runtime's hooks (whose system calls fail now and then:
 * a futex wait at a window's end) left it alone */
static long errno_lost;

static void *errno_player(void *arg)
{
	long *v = arg;

	pthread_barrier_wait(&start);
	errno = E2BIG;
	for (long i = 0; i < ITERS; i++) {
		bump(v);
		if (errno != E2BIG) {
			__atomic_add_fetch(&errno_lost, 1, __ATOMIC_RELAXED);
			errno = E2BIG;
		}
	}
	return NULL;
}

/* a data race, for ThreadSanitizer to report (the runtime preloaded by
 * hand must leave its reports as they are) */
static long raced;

static void *racer(void *arg)
{
	/* the first writes, the second reads a while later: one report, the
	 * same at every run */
	if (arg) {
		usleep(50000);
		return (void *)raced;
	}
	raced = 1;
	return NULL;
}

/* the innermost caller, under 1,500 frames of deep() */
__attribute__((noinline)) static long bottom(long *v)
{
	for (long i = 0; i < ITERS / 4; i++)
		bump(v);
	return *v;
}

__attribute__((noinline)) static long deep(long *v, int n)
{
	long r;

	if (!n)
		return bottom(v);
	r = deep(v, n - 1);
	__asm__ volatile("" : : "r"(r) : "memory");    /* not a tail call */
	return r + 1;
}

static void *deep_player(void *arg)
{
	pthread_barrier_wait(&start);
	return (void *)deep(arg, 1500);
}

static pthread_barrier_t all;

static void *wide(void *arg)
{
	churned[(long)arg % CHURN] = (long)arg;
	pthread_barrier_wait(&all);
	return NULL;
}

static int run_wide(void)
{
	pthread_t t[60];

	pthread_barrier_init(&all, NULL, 60);
	for (long i = 0; i < 60; i++)
		if (pthread_create(&t[i], NULL, wide, (void *)i))
			return 1;
	for (int i = 0; i < 60; i++)
		pthread_join(t[i], NULL);
	printf("wide\n");
	return 0;
}

/* The pair's two players, run to their end: the totals printed. */
static int ping_pong(void *(*fn)(void *), const char *name)
{
	pthread_t t[2];

	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t[0], NULL, fn, &pair.ping);
	pthread_create(&t[1], NULL, fn, &pair.pong);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("%s %ld %ld\n", name, pair.ping, pair.pong);
	return 0;
}

/* n bytes written once, a byte a line: a byte of them, -1 without memory. */
static int touch(size_t n)
{
	char *m = malloc(n);
	int c;

	if (!m)
		return -1;
	for (size_t i = 0; i < n; i += 64)
		m[i] = (char)i;
	c = (unsigned char)m[n / 2];
	free(m);
	return c;
}

/* Six 16 MiB mappings, one live at a time, each at addresses of its own. */
static int touch_unmapped(void)
{
	size_t n = 16ul << 20;
	char *base = mmap(NULL, 6 * n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED || munmap(base, 6 * n))
		return -1;
	for (int i = 0; i < 6; i++) {
		char *m = mmap(base + i * n, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (m == MAP_FAILED)
			return -1;
		for (size_t k = 0; k < n; k += 64)
			m[k] = (char)k;
		munmap(m, n);
	}
	return 0;
}

/* "churn remap": the main thread writes a mapping of its own and unmaps
 * it, and another thread maps new memory at the same address and writes
 * that: nothing of it is contended (the old lines' states are gone).
 * "churn bigfree": the same with a 40 MiB malloc block (over glibc's
 * largest mmap threshold: mapped and unmapped by the C library itself).
 * "churn dontneed": the mapping kept, its pages given back with
 * madvise(MADV_DONTNEED) (an allocator's purge), then written by the
 * other thread. Prints both addresses and the size. */
enum remap_how { REMAP_MAP, REMAP_MALLOC, REMAP_DONTNEED };
static const char *const remap_names[] = { "remap", "bigfree", "dontneed" };
#define REMAP (4ul << 20)
#define BIGFREE (40ul << 20)
static char *remap_at;
static size_t remap_len;
static enum remap_how remap_how;

/* the memory to write: new (at NULL), or at the old place */
static char *remap_get(char *at)
{
	if (remap_how == REMAP_MALLOC)
		return malloc(remap_len);
	if (at && remap_how == REMAP_DONTNEED)
		return at;
	return mmap(at, remap_len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
}

/* the memory given back: by the first writer, and at the end */
static void remap_put(char *m, int last)
{
	if (remap_how == REMAP_MALLOC)
		free(m);
	else if (remap_how == REMAP_DONTNEED && !last)
		madvise(m, remap_len, MADV_DONTNEED);
	else
		munmap(m, remap_len);
}

static void *remap_writer(void *arg)
{
	char *m;

	pthread_barrier_wait(&start);
	m = remap_get(remap_at);
	if (!m || m == MAP_FAILED)
		return arg;
	for (size_t k = 0; k < remap_len; k += 64)
		m[k] = (char)(k + 1);
	printf("%p ", (void *)m);
	remap_put(m, 1);
	return NULL;
}

static int remap(enum remap_how how)
{
	pthread_t t;
	void *failed;
	char *m;

	remap_how = how;
	remap_len = how == REMAP_MALLOC ? BIGFREE : REMAP;
	m = remap_get(NULL);
	if (!m || m == MAP_FAILED)
		return 1;
	/* (the thread made first: its stack is not mapped where m was) */
	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&t, NULL, remap_writer, m))
		return 1;
	for (size_t k = 0; k < remap_len; k += 64)
		m[k] = (char)k;
	remap_put(m, 0);
	remap_at = m;
	printf("%s %p ", remap_names[how], (void *)m);
	pthread_barrier_wait(&start);
	pthread_join(t, &failed);
	printf("%zu\n", remap_len);
	return failed != NULL;
}

/* "churn jumps": the jump is the main thread's (the players start with
 * SIGALRM blocked) */
#define JUMPS 2000
static sigjmp_buf jump_back;
static volatile long jumped;
static volatile size_t jump_at;

static void on_jump(int sig)
{
	(void)sig;
	jumped++;
	siglongjmp(jump_back, 1);
}

static int run_jumps(void)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	struct sigaction sa;
	sigset_t alrm;
	pthread_t t[2];
	char *buf = malloc(64ul << 20);

	if (!buf)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_jump;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t[0], NULL, player, &pair.ping);
	pthread_create(&t[1], NULL, player, &pair.pong);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	sigsetjmp(jump_back, 1);
	while (jumped < JUMPS) {
		buf[jump_at] += 1;      /* a new line at each access: the runtime's own work */
		jump_at = (jump_at + 64) % (64ul << 20);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("jumps %d ping %ld pong %ld\n", JUMPS, pair.ping, pair.pong);
	free(buf);
	return 0;
}

/* "churn sigmaps" (the handler set): mappings made and unmapped under the
 * timer; prints how many and whether the handler ran. */
static int sigmaps(struct itimerval *it)
{
	long made = 0;

	setitimer(ITIMER_REAL, it, NULL);
	for (int i = 0; i < 5000; i++) {
		char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 1;
		m[(i * 64) % 65536] = 1;
		made += m[(i * 64) % 65536];
		munmap(m, 65536);
	}
	memset(it, 0, sizeof(*it));
	setitimer(ITIMER_REAL, it, NULL);
	printf("sigmaps %ld %s\n", made, ticks ? "ticked" : "no ticks");
	return 0;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	struct sigaction sa;
	pthread_t t[2];
	long sum = 0;

	if (argc > 1 && !strcmp(argv[1], "wide"))
		return run_wide();
	if (argc > 1 && !strcmp(argv[1], "forks")) {
		for (int c = 0; c < 6; c++) {
			pid_t p = fork();

			if (p < 0)
				return 1;
			if (!p)
				_exit(touch(16ul << 20) < 0);
			waitpid(p, NULL, 0);
		}
		return ping_pong(player, "forks");
	}
	if (argc > 1 && !strcmp(argv[1], "race")) {
		pthread_create(&t[0], NULL, racer, NULL);
		pthread_create(&t[1], NULL, racer, &t[1]);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		printf("raced %s\n", raced ? "yes" : "no");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "jumps"))
		return run_jumps();
	if (argc > 1 && !strcmp(argv[1], "errno")) {
		ping_pong(errno_player, "errno");
		printf("errno changed %ld times\n", errno_lost);
		return errno_lost != 0;
	}
	for (int how = REMAP_MAP; how <= REMAP_DONTNEED; how++)
		if (argc > 1 && !strcmp(argv[1], remap_names[how]))
			return remap((enum remap_how)how);
	if (argc > 1 && !strcmp(argv[1], "unmapped"))
		return touch_unmapped() ? 1 : ping_pong(player, "unmapped");
	if (argc > 1 && !strcmp(argv[1], "full")) {
		/* 96 MiB written and kept, then the ping-pong: room for its
		 * line is made by evicting lines untouched since */
		char *m = malloc(96ul << 20);

		if (!m)
			return 1;
		for (size_t i = 0; i < (96ul << 20); i += 64)
			m[i] = (char)i;
		ping_pong(player, "full");
		free(m);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "big")) {
		int c = touch(96ul << 20);

		printf("big %d\n", c);
		return c < 0;
	}
	if (argc > 1 && !strcmp(argv[1], "deep"))
		return ping_pong(deep_player, "deep");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (argc > 1 && !strcmp(argv[1], "sigmaps"))
		return sigmaps(&it);
	pthread_key_create(&late_key, late_destructor);
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t[0], NULL, player, &pair.ping);
	for (long i = 0; i < CHURN; i++) {
		pthread_t c;

		if (pthread_create(&c, NULL, churn, (void *)i))
			return 1;
		pthread_join(c, NULL);
	}
	pthread_create(&t[1], NULL, player, &pair.pong);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < CHURN; i++)
		sum += churned[i];
	printf("ping %ld pong %ld churned %ld\n", pair.ping, pair.pong, sum);
	return 0;
}
