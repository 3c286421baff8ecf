// SPDX-License-Identifier: GPL-2.0
/*
 * The relay: a ring of RELAY_BATCHES batches of RELAY_ITEMS items. The
 * producer fills the batch at `filled`, the consumer works on the one at
 * `taken`; a mutex and two conditions hand batches over, once per batch
 * (a few thousand times for millions of items), so the lock costs nothing
 * beside the items. A batch is small enough to still be in the shared
 * cache when the consumer reads it.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "util/relay.h"
#include "util/util.h"

#define RELAY_ITEMS 512
/* batches in the ring: the consumer falls behind for a while now and then
 * (fresh memory, a burst of new rows) while keeping up on the whole; with 8
 * the producer then waited (the 2M-sample report's pass over the samples:
 * 16 waits, 137 ms; 32 batches: 5 waits, 125 ms) */
#define RELAY_BATCHES 32
/* batches consumed on the producer's thread before the consumer's thread
 * starts: a small input is over before a thread would pay for itself (its
 * start, and every later munmap's TLB shootdown on the second CPU) */
#define RELAY_LAZY 4

struct relay {
	size_t item_size;
	relay_fn consume;
	void *arg;
	unsigned char *ring;            /* RELAY_BATCHES x RELAY_ITEMS items (one batch until threaded) */
	size_t nr[RELAY_BATCHES];       /* items in each handed-over batch */
	size_t fill;                    /* items in the batch being filled */
	unsigned long filled, taken;    /* batches handed over, consumed */
	/* a side that waits is woken once the other has made half the ring
	 * ready (or at the end), not at each batch: a wake-up costs more
	 * than a batch in a VM */
	bool consumer_waits, producer_waits;
	bool done, threaded;
	bool want_thread;               /* once RELAY_LAZY batches were consumed inline */
	unsigned int inline_batches;
	bool (*idle)(void *arg);        /* relay__set_idle */
	void *idle_arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
};

static unsigned char *batch(const struct relay *rl, unsigned long i)
{
	return rl->ring + (i % RELAY_BATCHES) * RELAY_ITEMS * rl->item_size;
}

static void *consumer(void *p)
{
	struct relay *rl = p;

	pthread_mutex_lock(&rl->lock);
	for (;;) {
		unsigned long i;
		bool idled = false;

		while (rl->taken == rl->filled && !rl->done) {
			/* the idle work, once per wait, with the lock released:
			 * whatever the producer did meanwhile (a batch, the end)
			 * is looked at again under the lock before waiting (it
			 * signalled no one: waiting then, the consumer missed the
			 * end and the report hung in relay__finish) */
			if (rl->idle && !idled) {
				pthread_mutex_unlock(&rl->lock);
				idled = !rl->idle(rl->idle_arg);
				pthread_mutex_lock(&rl->lock);
				continue;
			}
			rl->consumer_waits = true;
			pthread_cond_wait(&rl->more, &rl->lock);
			idled = false;
		}
		if (rl->taken == rl->filled)
			break;
		i = rl->taken;
		pthread_mutex_unlock(&rl->lock);
		rl->consume(rl->arg, batch(rl, i), rl->nr[i % RELAY_BATCHES]);
		pthread_mutex_lock(&rl->lock);
		rl->taken++;
		if (rl->producer_waits && rl->filled - rl->taken <= RELAY_BATCHES / 2) {
			rl->producer_waits = false;
			pthread_cond_signal(&rl->room);
		}
	}
	pthread_mutex_unlock(&rl->lock);
	return NULL;
}

struct relay *relay__new(size_t item_size, relay_fn consume, void *arg)
{
	struct relay *rl = xcalloc(1, sizeof(*rl));

	rl->item_size = item_size;
	rl->consume = consume;
	rl->arg = arg;
	rl->ring = xmalloc(RELAY_ITEMS * item_size);
	pthread_mutex_init(&rl->lock, NULL);
	pthread_cond_init(&rl->more, NULL);
	pthread_cond_init(&rl->room, NULL);
	/* a second thread only helps where a second CPU runs it */
	rl->want_thread = threads_wanted();
	return rl;
}

void relay__set_idle(struct relay *rl, bool (*fn)(void *arg), void *arg)
{
	rl->idle = fn;
	rl->idle_arg = arg;
}

int relay__threaded(const struct relay *rl)
{
	return rl->threaded || rl->want_thread;
}

/* After RELAY_LAZY batches consumed inline (the ring is empty): the whole
 * ring, and the consumer's thread. */
static void start_thread(struct relay *rl)
{
	rl->want_thread = false;
	free(rl->ring);
	rl->ring = xmalloc(RELAY_BATCHES * RELAY_ITEMS * rl->item_size);
	rl->threaded = !pthread_create(&rl->thread, NULL, consumer, rl);
}

void *relay__slot(struct relay *rl)
{
	return batch(rl, rl->filled) + rl->fill * rl->item_size;
}

/* Hands the batch being filled to the consumer. */
static void hand_over(struct relay *rl)
{
	if (!rl->threaded) {
		rl->consume(rl->arg, rl->ring, rl->fill);
		rl->fill = 0;
		if (rl->want_thread && ++rl->inline_batches == RELAY_LAZY)
			start_thread(rl);
		return;
	}
	pthread_mutex_lock(&rl->lock);
	rl->nr[rl->filled % RELAY_BATCHES] = rl->fill;
	rl->filled++;
	if (rl->consumer_waits && rl->filled - rl->taken >= RELAY_BATCHES / 2) {
		rl->consumer_waits = false;
		pthread_cond_signal(&rl->more);
	}
	if (rl->filled - rl->taken == RELAY_BATCHES) {
		while (rl->filled - rl->taken > RELAY_BATCHES / 2) {
			rl->producer_waits = true;
			pthread_cond_wait(&rl->room, &rl->lock);
		}
	}
	pthread_mutex_unlock(&rl->lock);
	rl->fill = 0;
}

void relay__push(struct relay *rl)
{
	if (++rl->fill == RELAY_ITEMS)
		hand_over(rl);
}

void relay__finish(struct relay *rl)
{
	if (!rl)
		return;
	if (rl->fill)
		hand_over(rl);
	if (rl->threaded) {
		pthread_mutex_lock(&rl->lock);
		rl->done = true;
		rl->consumer_waits = false;
		pthread_cond_signal(&rl->more);
		pthread_mutex_unlock(&rl->lock);
		pthread_join(rl->thread, NULL);
	}
	pthread_cond_destroy(&rl->more);
	pthread_cond_destroy(&rl->room);
	pthread_mutex_destroy(&rl->lock);
	free(rl->ring);
	free(rl);
}
