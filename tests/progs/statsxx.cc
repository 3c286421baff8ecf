// SPDX-License-Identifier: GPL-2.0
/*
 * report --patch in C++ (tests/cli/patch.sh): a receiver and a sender
 * thread count into their own members of one global struct (rx, tx), a
 * few unrelated allocations first, from a common start (a barrier);
 * prints the totals. The patch aligns tx with alignas(64).
 */
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

struct stats {
	long rx;                /* the receiver's */
	long tx;                /* the sender's */
	long drops;
};

stats net;
static pthread_barrier_t start;

__attribute__((noinline)) static void received(long n)
{
	net.rx += n;
}

__attribute__((noinline)) static void sent(long n)
{
	net.tx += n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400000;
	std::string *host = new std::string("an unrelated object on the heap first");
	std::vector<int> *ports = new std::vector<int>(3, 80);
	pthread_barrier_init(&start, nullptr, 2);
	std::thread a([rounds] {
		pthread_barrier_wait(&start);
		for (long i = 0; i < rounds; i++)
			received(1);
	});
	std::thread b([rounds] {
		pthread_barrier_wait(&start);
		for (long i = 0; i < rounds; i++)
			sent(2);
	});

	a.join();
	b.join();
	printf("rx %ld tx %ld drops %ld\n", net.rx, net.tx, net.drops);
	delete ports;
	delete host;
	return 0;
}
