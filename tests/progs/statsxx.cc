// SPDX-License-Identifier: GPL-2.0
/*
 * report --patch in C++ (tests/cli/patch.sh): a receiver and a sender
 * thread count into their own members of one global struct (rx, tx), a
 * few unrelated allocations first, from a common start (a barrier);
 * prints the totals. The patch aligns tx with alignas(64). (pthreads, not
 * std::thread: the test compiles it four times.)
 */
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct stats {
	long rx;                /* the receiver's */
	long tx;                /* the sender's */
	long drops;
};

struct host {
	char name[40];
	int port;
};

stats net;
static pthread_barrier_t start;
static long rounds = 400000;

__attribute__((noinline)) static void received(long n)
{
	net.rx += n;
}

__attribute__((noinline)) static void sent(long n)
{
	net.tx += n;
}

static void *receiver(void *)
{
	pthread_barrier_wait(&start);
	for (long i = 0; i < rounds; i++)
		received(1);
	return nullptr;
}

static void *sender(void *)
{
	pthread_barrier_wait(&start);
	for (long i = 0; i < rounds; i++)
		sent(2);
	return nullptr;
}

int main(int argc, char **argv)
{
	host *h = new host();
	int *ports = new int[3]{ 80, 443, 8080 };
	pthread_t a, b;

	if (argc > 1)
		rounds = atol(argv[1]);
	strcpy(h->name, "an unrelated object first");
	pthread_barrier_init(&start, nullptr, 2);
	pthread_create(&a, nullptr, receiver, nullptr);
	pthread_create(&b, nullptr, sender, nullptr);
	pthread_join(a, nullptr);
	pthread_join(b, nullptr);
	printf("rx %ld tx %ld drops %ld\n", net.rx, net.tx, net.drops);
	delete[] ports;
	delete h;
	return 0;
}
