// SPDX-License-Identifier: GPL-2.0
/*
 * Reading ahead: the next window of a pass over a file's samples, copied
 * by another thread when it has nothing else to do (pd_reader__read_ahead:
 * the counting thread, waiting for samples).
 *
 * Four buffers: the window the reader is in, the one before (a record it
 * was handed may still be read), and the next two. Window k+1 starts stride
 * bytes after window k and holds slack bytes more, so that the record the
 * reader wants when it leaves window k (it starts less than a record's
 * greatest size before k's end) lies whole in it. What was not read ahead
 * (the first window, a jump, a short read) the reader reads itself.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "perfdata/reader_int.h"
#include "util/util.h"

enum { A_FREE, A_WANT, A_FILLING, A_READY };

#define NBUF 4                  /* the reader's, the one before, two ahead */
#define AHEAD 2

struct ahead {
	int fd;
	uint64_t end;                   /* of the file: no window goes past it */
	size_t stride, size;            /* between windows' starts, of a buffer */
	uint8_t *buf[NBUF];
	uint64_t off[NBUF], len[NBUF];  /* planned, then read */
	int state[NBUF];
	int cur, prev;                  /* the reader's, the one before; -1: none */
	pthread_mutex_t lock;
	pthread_cond_t ready;
};

struct ahead *ahead__new(int fd, uint64_t end, size_t stride, size_t slack)
{
	struct ahead *a = xcalloc(1, sizeof(*a));

	a->fd = fd;
	a->end = end;
	a->stride = stride;
	a->size = stride + slack;
	for (int i = 0; i < NBUF; i++)
		a->buf[i] = xmalloc(a->size);
	a->cur = a->prev = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->ready, NULL);
	return a;
}

void ahead__delete(struct ahead *a)
{
	if (!a)
		return;
	/* a fill under way ends first */
	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < NBUF; i++)
		while (a->state[i] == A_FILLING)
			pthread_cond_wait(&a->ready, &a->lock);
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->ready);
	for (int i = 0; i < NBUF; i++)
		free(a->buf[i]);
	free(a);
}

/* Fills buffer i (A_FILLING, the caller's) without the lock held. */
static void fill(struct ahead *a, int i)
{
	uint64_t len = a->len[i];

	pthread_mutex_unlock(&a->lock);
	len = pread_full(a->fd, a->buf[i], len, a->off[i]);
	pthread_mutex_lock(&a->lock);
	a->len[i] = len;
	a->state[i] = A_READY;
	pthread_cond_broadcast(&a->ready);
}

bool ahead__fill_one(struct ahead *a)
{
	bool did = false;

	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < NBUF; i++) {
		if (a->state[i] == A_WANT) {
			a->state[i] = A_FILLING;
			fill(a, i);
			did = true;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return did;
}

static bool covers(const struct ahead *a, int i, uint64_t off, uint64_t need)
{
	return a->off[i] <= off && off + need <= a->off[i] + a->len[i];
}

/* A buffer that is neither the reader's nor the one before, nor being
 * filled, nor planned for a window from `keep` on (-1: none). */
static int spare(const struct ahead *a, uint64_t keep)
{
	for (int i = 0; i < NBUF; i++)
		if (i != a->cur && i != a->prev && a->state[i] != A_FILLING &&
		    (a->state[i] == A_FREE || a->off[i] < keep))
			return i;
	return -1;
}

/* Buffer i to hold the window from off (state: A_WANT, or A_FILLING when
 * the caller fills it). */
static void plan(struct ahead *a, int i, uint64_t off, int state)
{
	a->off[i] = off;
	a->len[i] = a->end - off < a->size ? a->end - off : a->size;
	a->state[i] = state;
}

/* Whether window off is planned or read in some buffer. */
static bool planned(const struct ahead *a, uint64_t off)
{
	for (int i = 0; i < NBUF; i++)
		if (a->state[i] != A_FREE && a->off[i] == off)
			return true;
	return false;
}

const uint8_t *ahead__at(struct ahead *a, uint64_t off, uint64_t need, uint64_t *win_off, uint64_t *win_len)
{
	int i, s;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < NBUF; i++) {
		if (a->state[i] == A_FREE || i == a->cur || !covers(a, i, off, need))
			continue;
		/* planned and not filled yet: fill it here, or wait */
		if (a->state[i] == A_WANT) {
			a->state[i] = A_FILLING;
			fill(a, i);
		}
		while (a->state[i] == A_FILLING)
			pthread_cond_wait(&a->ready, &a->lock);
		if (covers(a, i, off, need))
			break;
	}
	if (i == NBUF) {
		/* not planned, or read short: read here */
		while ((i = spare(a, UINT64_MAX)) < 0)
			pthread_cond_wait(&a->ready, &a->lock);
		plan(a, i, off, A_FILLING);
		fill(a, i);
		if (!covers(a, i, off, need)) {
			a->state[i] = A_FREE;
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
	}
	if (a->cur != i) {
		a->prev = a->cur;
		a->cur = i;
	}
	/* the next windows, wanted in the other buffers */
	for (int k = 1; k <= AHEAD; k++) {
		uint64_t next = a->off[i] + k * a->stride;

		if (next >= a->end || planned(a, next) || (s = spare(a, a->off[i] + a->stride)) < 0)
			continue;
		plan(a, s, next, A_WANT);
	}
	*win_off = a->off[i];
	*win_len = a->len[i];
	pthread_mutex_unlock(&a->lock);
	return a->buf[i] + (off - a->off[i]);
}
