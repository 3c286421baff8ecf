// SPDX-License-Identifier: GPL-2.0
/*
 * record: the ring buffers drained into the file after each poll, a
 * FINISHED_ROUND after each pass that wrote something, until the command
 * ends, the processes are gone, the duration passes, a signal comes or a
 * write fails; the records counted (samples, lost, throttled) and new
 * threads of -p's processes noted for their allocator probes.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "record/buildcache.h"
#include "record/record_int.h"
#include "util/util.h"

/* A FORK of a new thread in a recorded process: its allocator probes are
 * opened after this drain (uprobe events cannot be inherited). */
static void note_new_thread(struct recorder *rc, const struct perf_event_header *h, const uint8_t *rec)
{
	uint32_t pid, ppid, tid;

	if (h->type != PERF_RECORD_FORK || h->size < 24 || !rc->probes || !rc->task_mode)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&ppid, rec + 12, 4);
	memcpy(&tid, rec + 16, 4);
	if (pid != ppid || tid == pid)
		return;
	if (rc->nr_new_tids == rc->alloc_new_tids) {
		rc->alloc_new_tids = rc->alloc_new_tids ? 2 * rc->alloc_new_tids : 16;
		rc->new_tids = xrealloc(rc->new_tids, rc->alloc_new_tids, sizeof(*rc->new_tids));
	}
	rc->new_tids[rc->nr_new_tids++] = (pid_t)tid;
}

static void count_record(struct recorder *rc, const struct perf_event_header *h, const uint8_t *rec)
{
	uint64_t v;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		rc->samples++;
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			memcpy(&v, rec + 16, sizeof(v));
			rc->lost += v;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			memcpy(&v, rec + 8, sizeof(v));
			rc->lost_samples += v;
		}
		break;
	case PERF_RECORD_THROTTLE:
		rc->throttled++;
		break;
	}
}

/* Copies every complete record out of one ring buffer into the file. */
static void drain(struct recorder *rc, struct rec_buf *b)
{
	struct perf_event_mmap_page *meta = b->base;
	uint8_t *data = (uint8_t *)b->base + rc->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % b->size;
		const uint8_t *rec;

		if (off + sizeof(h) <= b->size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = b->size - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= b->size) {
			rec = data + off;
		} else {
			size_t first = b->size - off;

			memcpy(rc->tmp, data + off, first);
			memcpy(rc->tmp + first, data, h.size - first);
			rec = rc->tmp;
		}
		count_record(rc, &h, rec);
		note_new_thread(rc, &h, rec);
		buildids__note(rc->bids, &h, rec);
		if (!rc->werr)
			rc->werr = pd_writer__write(rc->w, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct recorder *rc)
{
	char buf[16];
	ssize_t n;
	uint64_t before = pd_writer__data_size(rc->w);

	for (int i = 0; i < rc->nr_bufs; i++) {
		drain(rc, &rc->bufs[i]);
		/* the trace after the records: the kernel's AUX record says
		 * what it wrote before it is there to take */
		if (rc->bufs[i].has_aux && !rc->werr)
			rc->werr = aux_ring__drain(&rc->bufs[i].aux, rc->w, &rc->aux_bytes);
	}
	if (pd_writer__data_size(rc->w) == before)
		return;         /* an empty round says nothing */
	n = pd_fmt_finished_round(buf, sizeof(buf));
	if (n > 0 && !rc->werr)
		rc->werr = pd_writer__write(rc->w, buf, n);
}

/* Drain the buffers until the command ends, the processes are gone, the
 * duration passes, a signal comes or a write fails. */
void recorder__drain_loop(struct recorder *rc)
{
	struct pollfd *pfd = xcalloc(rc->nr_bufs ? rc->nr_bufs : 1, sizeof(*pfd));
	double t0 = now_s();

	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		int n = 0;

		for (int i = 0; i < rc->nr_bufs; i++)
			if (!rc->bufs[i].hup)
				pfd[n++] = (struct pollfd){ .fd = rc->bufs[i].fd, .events = POLLIN };
		if (ppoll(pfd, n, &tick, &rc->sigorig) > 0) {
			for (int i = 0, j = 0; i < rc->nr_bufs && j < n; i++) {
				if (rc->bufs[i].hup)
					continue;
				if (pfd[j++].revents & (POLLHUP | POLLERR))
					rc->bufs[i].hup = true;
			}
		}
		drain_all(rc);
		recorder__follow_new_threads(rc);
		if (rc->o.duration > 0 && !stop_requested && now_s() - t0 >= rc->o.duration) {
			stop_requested = SIGTERM;
			rc->duration_over = true;
		}
		if (stop_requested && rc->child > 0) {
			/* SIGTERM, not the signal we got: a command started in
			 * the background of a script ignores SIGINT */
			kill(rc->child, SIGTERM);
		}
		if (rc->child > 0) {
			pid_t w = waitpid(rc->child, &rc->status, WNOHANG);

			if (w == rc->child || (w < 0 && errno == ECHILD))
				break;
		} else if (stop_requested) {
			break;
		}
		if (rc->task_mode && !recorder__procs_alive(rc))
			break;
		if (rc->werr) {
			if (rc->child > 0)
				kill(rc->child, SIGTERM);
			break;
		}
	}
	free(pfd);
	recorder__set_enable(rc, false);
	drain_all(rc);
}
