// SPDX-License-Identifier: GPL-2.0
/*
 * What the thread pointer points at, as a C library sees it
 * (tests/unit/test_symbols.c, test_dthread), built -O2 -g at test time
 * with dasm.S: a thread descriptor laid out as glibc's (struct pthread,
 * its header tcbhead_t on x86-64 with the stack protector's canary at
 * 0x28 and the descriptor's own address at 0x10; on aarch64 tcbhead_t at
 * the thread pointer and struct pthread just below it). Built -shared
 * -fPIC -DSHARED too: dt_global's variable is read through a .got slot,
 * dt_peer's through one the dynamic linker fills with another object's
 * variable, only declared here.
 */
#include <stdint.h>

#ifdef __x86_64__
typedef struct {
	void *tcb;
	void *dtv;
	void *self;
	int multiple_threads;
	int gscope_flag;
	uintptr_t sysinfo;
	uintptr_t stack_guard;
	uintptr_t pointer_guard;
} tcbhead_t;
#else
typedef struct {
	void *dtv;
	void *private;
} tcbhead_t;
#endif

struct pthread {
#ifdef __x86_64__
	tcbhead_t header;
#endif
	void *list[2];
	int tid;
	int flags;
	int cancelhandling;
};

int dt_counter = 3;
#ifdef SHARED
extern struct pthread peer;
#else
struct pthread peer;
#endif

#ifdef __x86_64__
/* glibc's THREAD_SELF: the descriptor's address from its header */
#define THREAD_SELF \
	({ struct pthread *self_; __asm__("mov %%fs:0x10, %0" : "=r"(self_)); self_; })
#else
#define THREAD_SELF ((struct pthread *)__builtin_thread_pointer() - 1)
#endif

int __attribute__((noinline)) dt_tid(void)
{
	return THREAD_SELF->tid;
}

void __attribute__((noinline)) dt_cancel(int v)
{
	THREAD_SELF->cancelhandling |= v;
}

#ifdef __x86_64__
/* a member read straight through %fs, as glibc's THREAD_GETMEM does */
int __attribute__((noinline)) dt_threads(void)
{
	int v;

	__asm__ volatile("movl %%fs:0x18, %0" : "=r"(v));
	return v;
}
#else
void *__attribute__((noinline)) dt_threads(void)
{
	return ((tcbhead_t *)__builtin_thread_pointer())->private;
}
#endif

/* a local array: the stack protector reads its canary (x86-64: %fs:0x28) */
int __attribute__((noinline)) dt_guarded(int i)
{
	volatile char buf[64];

	buf[i & 63] = 1;
	return buf[(i + 1) & 63];
}

int __attribute__((noinline)) dt_global(void)
{
	return dt_counter;
}

int __attribute__((noinline)) dt_peer(void)
{
	return peer.tid;
}

/* a callback's void *arg, typed by the cast an inlined helper makes; gcc
 * ends the helper's range (and its parameter's) before its last load */
struct job {
	long id;
	int hits;
};

void __attribute__((noipa)) dt_work(long v)
{
	__asm__ volatile("" : : "r"(v));
}

static inline int job_hits(struct job *j)
{
	dt_work(1);
	return j->hits;
}

int __attribute__((noinline)) dt_callback(void *arg)
{
	dt_work(2);
	return job_hits(arg);
}

/* one pointer reached two ways, a parameter and a load: a join, not an
 * array walk */
int __attribute__((noinline)) dt_join(struct job *j, struct job **alt)
{
	return (dt_counter ? *alt : j)->hits;
}

long dt_asm(long *p);

int main(void)
{
	long x[2] = { 1, 2 };

	return (int)dt_asm(x) + dt_global() + dt_peer() + dt_callback(&(struct job){ 1, 2 }) +
	       dt_join(&(struct job){ 1, 2 }, &(struct job *){ 0 });
}
