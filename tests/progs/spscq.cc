// SPDX-License-Identifier: GPL-2.0
/*
 * A single-producer single-consumer ring on main's stack, its head and
 * tail std::atomic members of one line (tests/cli/units.sh): under record
 * --emulate their rows must be named by member (ring.head, ring.tail),
 * though the object is on the stack and the accesses are libstdc++'s
 * inlined atomic loads and stores (TSan hooks called with the member's
 * address). Prints the sum the consumer read.
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

struct ring {
	int slot[8];
	std::atomic<unsigned long> head{0};     /* the consumer's */
	std::atomic<unsigned long> tail{0};     /* the producer's */
};

static void produce(ring *r, int n)
{
	for (int i = 1; i <= n; i++) {
		unsigned long t = r->tail.load(std::memory_order_relaxed);

		while (t - r->head.load(std::memory_order_acquire) == 8)
			;
		r->slot[t % 8] = i;
		r->tail.store(t + 1, std::memory_order_release);
	}
}

static void consume(ring *r, int n, long *sum)
{
	for (int i = 0; i < n; i++) {
		unsigned long h = r->head.load(std::memory_order_relaxed);

		while (r->tail.load(std::memory_order_acquire) == h)
			;
		*sum += r->slot[h % 8];
		r->head.store(h + 1, std::memory_order_release);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	std::string *name = new std::string("unrelated objects allocated first");
	std::vector<int> *ids = new std::vector<int>(7, 3);
	/* (a line of its own: main's other locals, such as the sum the
	 * consumer writes at its end, are in no line of the ring's wherever
	 * the stack starts) */
	alignas(64) ring r;
	long sum = 0;
	std::thread p(produce, &r, n), c(consume, &r, n, &sum);

	p.join();
	c.join();
	printf("spscq %ld\n", sum == (long)n * (n + 1) / 2 ? sum : -1);
	delete ids;
	delete name;
	return 0;
}
