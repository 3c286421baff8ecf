/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A relay: one producer fills fixed-size items in batches, one consumer
 * thread takes them in the same order. Reading and keying a recording's
 * samples runs beside counting them, on a machine with a second CPU, once
 * a few batches have come (a small input never starts the thread); until
 * then, on one CPU, or when no thread can be made, the consumer runs in
 * the producer's thread each time a batch is full. Either way the consumer
 * sees every item once, in order, and nothing of the producer's state; the
 * batch is its to change while it has it.
 *
 *	struct relay *rl = relay__new(sizeof(struct item), consume, arg);
 *	while (...) {
 *		struct item *it = relay__slot(rl);
 *		fill(it);
 *		relay__push(rl);
 *	}
 *	relay__finish(rl);      // hands over the rest, waits, frees
 */
#ifndef C2CSCAN_RELAY_H
#define C2CSCAN_RELAY_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*relay_fn)(void *arg, void *items, size_t nr);

struct relay;

struct relay *relay__new(size_t item_size, relay_fn consume, void *arg);
/* The next item to fill; it counts once relay__push says so. */
void *relay__slot(struct relay *rl);
void relay__push(struct relay *rl);
/* Consumes what is left, ends the thread and frees rl (NULL: nothing). */
void relay__finish(struct relay *rl);
/* Work for the consumer's thread while no batch waits for it: fn is called
 * again while it says it did something (and no batch came). Before the
 * first item. */
void relay__set_idle(struct relay *rl, bool (*fn)(void *arg), void *arg);
/* Whether the consumer runs on a thread of its own, or will once enough
 * items came. */
int relay__threaded(const struct relay *rl);

#endif
