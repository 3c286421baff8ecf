// SPDX-License-Identifier: GPL-2.0
/*
 * Which runtime a -fsanitize=thread build runs with under record --emulate
 * (tests/cli/emulate-libtsan.sh): four threads count into per-thread
 * 24-byte slots of one calloc'd array (false sharing), a few unrelated
 * allocations first; the main thread lets them go with a condition
 * variable it makes and destroys (without libtsan glibc would give the
 * program's unversioned imports its versions from before 2.3.2, and the
 * destroy crashed), and they start together at a barrier. Then the program
 * prints whether libtsan is mapped in it. "tsanmode exec": afterwards it
 * executes itself (no argument), whose line follows; "tsanmode vfork":
 * a vforked child does. Built with -DANNOTATED, the workers also call
 * ThreadSanitizer's annotation interface (__tsan_release/__tsan_acquire),
 * which only libtsan defines.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 2000000

struct slot {
	long hits;
	long misses;
	long last;
};

static struct slot *slots;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go;
static int started;
static pthread_barrier_t together;

#ifdef ANNOTATED
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#endif

static void *worker(void *arg)
{
	struct slot *s = &slots[(long)arg];

	pthread_mutex_lock(&go_lock);
	while (!started)
		pthread_cond_wait(&go, &go_lock);
	pthread_mutex_unlock(&go_lock);
	pthread_barrier_wait(&together);
	for (long i = 0; i < ROUNDS; i++) {
		if (i % 3)
			s->hits++;
		else
			s->misses++;
		s->last = i;
	}
#ifdef ANNOTATED
	__tsan_release(s);
	__tsan_acquire(s);
#endif
	return NULL;
}

/* whether a mapping of the process is libtsan's */
static int libtsan_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, "/libtsan.so") != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	char *name = strdup("tsanmode");
	long *config = calloc(16, sizeof(long)), sum = 0;

	slots = calloc(THREADS, sizeof(*slots));
	if (!name || !config || !slots || pthread_cond_init(&go, NULL) ||
	    pthread_barrier_init(&together, NULL, THREADS))
		return 1;
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	pthread_mutex_lock(&go_lock);
	started = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&go_lock);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		sum += slots[i].hits + slots[i].misses;
	}
	pthread_cond_destroy(&go);
	pthread_barrier_destroy(&together);
	printf("%s %ld libtsan %s\n", name, sum, libtsan_mapped() ? "yes" : "no");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "exec"))
		execl("/proc/self/exe", name, (char *)NULL);
	if (argc > 1 && !strcmp(argv[1], "vfork")) {
		pid_t child = vfork();

		if (!child) {
			execl("/proc/self/exe", name, (char *)NULL);
			_exit(127);
		}
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 1;
	}
	free(config);
	free(slots);
	free(name);
	return 0;
}
