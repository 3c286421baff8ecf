// SPDX-License-Identifier: GPL-2.0
/* The AUX area of a ring buffer, drained as perf writes it (aux.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include "perfdata/writer.h"
#include "record/aux.h"

int aux_ring__map(struct aux_ring *r, int fd, struct perf_event_mmap_page *meta, size_t page, size_t data_pages,
		  size_t pages)
{
	void *p;

	r->meta = meta;
	r->size = pages * page;
	/* the area goes after the data: the kernel reads where from the page */
	meta->aux_offset = (1 + data_pages) * page;
	meta->aux_size = r->size;
	p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)meta->aux_offset);
	if (p == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->base = p;
	return 0;
}

void aux_ring__unmap(struct aux_ring *r)
{
	if (r->base)
		munmap(r->base, r->size);
	r->base = NULL;
}

int aux_ring__drain(struct aux_ring *r, struct pd_writer *w, uint64_t *bytes)
{
	static const uint8_t zeros[8];
	uint64_t head = __atomic_load_n(&r->meta->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->aux_tail, len, pad;
	uint8_t rec[64];
	size_t at, first;
	ssize_t n;
	int err;

	if (!r->base || head <= tail)
		return 0;
	len = head - tail;
	/* more than the area holds: the kernel overwrote the oldest (it says
	 * so in its AUX record); what is there is the last size bytes */
	if (len > r->size) {
		tail = head - r->size;
		len = r->size;
	}
	pad = (8 - (len & 7)) & 7;
	n = pd_fmt_auxtrace(rec, sizeof(rec), len + pad, tail, r->idx, r->tid, r->cpu);
	if (n < 0)
		return (int)n;
	err = pd_writer__write(w, rec, (size_t)n);
	at = (size_t)(tail & (r->size - 1));
	first = r->size - at < len ? r->size - at : (size_t)len;
	if (!err)
		err = pd_writer__write_unchecked(w, r->base + at, first);
	if (!err && len > first)
		err = pd_writer__write_unchecked(w, r->base, (size_t)len - first);
	if (!err && pad)
		err = pd_writer__write_unchecked(w, zeros, (size_t)pad);
	if (err)
		return err;
	*bytes += len;
	__atomic_store_n(&r->meta->aux_tail, head, __ATOMIC_RELEASE);
	return 0;
}

void aux_ring__time_conv(const struct perf_event_mmap_page *meta, struct pd_time_conv *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->present = true;
	tc->shift = meta->time_shift;
	tc->mult = meta->time_mult;
	tc->zero = meta->time_zero;
	tc->cap_zero = meta->cap_user_time_zero;
	tc->cycles = meta->time_cycles;
	tc->mask = meta->time_mask;
	tc->cap_short = meta->cap_user_time_short;
}
