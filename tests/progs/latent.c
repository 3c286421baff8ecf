// SPDX-License-Identifier: GPL-2.0
/*
 * Latent false sharing, shaped like real code: a network interface's
 * counters, the receive thread's and the send thread's in one struct,
 * where the receive counters end at byte 56 and the send counters start at
 * byte 64. Today each group has a line of its own (the struct is 128-byte
 * aligned) and nothing contends; any other start of the struct (another
 * member before them, another compiler's layout) or 128-byte lines put
 * rx_dropped and tx_packets on one line. Beside them, two workers each
 * with a 256-byte-aligned slot of its own (no latent pair), a few
 * unrelated allocations first, and a lock main takes to read the totals.
 * tests/cli/latent.sh records it with --emulate and asserts the report
 * names the pair (and only it) in every output, and that report --patch
 * --patch-latent's change removes it; built with -DPADDED (a line of
 * padding between the groups) it has none.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 300000

struct if_stats {
	long rx_packets;
	long rx_bytes;
	long rx_errors;
	long rx_crc;
	long rx_frame;
	long rx_fifo;
	long rx_missed;
	long rx_dropped;
#ifdef PADDED
	char pad[64];           /* the fix: a line between the groups at any start */
#endif
	long tx_packets;
	long tx_bytes;
	long tx_errors;
	long tx_aborted;
	long tx_carrier;
	long tx_fifo;
	long tx_window;
	long tx_dropped;
} __attribute__((aligned(128)));

struct worker {
	long jobs;
	char name[24];
} __attribute__((aligned(256)));

static struct if_stats eth0;
static struct worker workers[2];
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

/* A packet's length (the work a driver does per packet: not inlined, so
 * nothing known of it: the counters are updated in memory once a packet,
 * as in a driver). */
static __attribute__((noipa)) long packet(long i)
{
	return 64 + (i * 2654435761u & 1023);
}

static void *rx(void *arg)
{
	struct if_stats *s = arg;

	for (long i = 0; i < ROUNDS; i++) {
		long len = packet(i);

		s->rx_packets++;
		s->rx_bytes += len;
		if (len > 1000)
			s->rx_missed++;
		s->rx_dropped += len < 70;
	}
	return NULL;
}

static void *tx(void *arg)
{
	struct if_stats *s = arg;

	for (long i = 0; i < ROUNDS; i++) {
		long len = packet(i + 7);

		s->tx_packets++;
		s->tx_bytes += len;
		if (len > 1080)
			s->tx_errors++;
	}
	return NULL;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (long i = 0; i < ROUNDS; i++)
		w->jobs += packet(i) & 3;
	pthread_mutex_lock(&totals_lock);
	total += w->jobs;
	pthread_mutex_unlock(&totals_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	char *config = malloc(200), *names = calloc(16, 32);

	snprintf(config, 200, "mtu=1500");
	for (int i = 0; i < 2; i++)
		snprintf(workers[i].name, sizeof(workers[i].name), "worker%d", i);
	pthread_create(&t[0], NULL, rx, &eth0);
	pthread_create(&t[1], NULL, tx, &eth0);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[2 + i], NULL, work, &workers[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%s rx %ld tx %ld dropped %ld jobs %ld\n", config, eth0.rx_packets, eth0.tx_packets, eth0.rx_dropped,
	       total);
	free(config);
	free(names);
	return 0;
}
