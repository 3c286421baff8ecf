/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AUX area of a ring buffer (Arm SPE's trace): mapped after the data
 * area of the event's buffer, drained into the output file as perf writes
 * it: a PERF_RECORD_AUXTRACE record (the bytes' size, their offset in the
 * area, the buffer's index, thread and CPU) followed by the bytes, padded
 * to 8. The tracing event's file starts with TIME_CONV (the timestamps'
 * clock, from the buffer's metadata page) and AUXTRACE_INFO. aux.c.
 */
#ifndef C2CSCAN_RECORD_AUX_H
#define C2CSCAN_RECORD_AUX_H

#include <stddef.h>
#include <stdint.h>

struct pd_writer;
struct perf_event_mmap_page;
struct pd_time_conv;

struct aux_ring {
	struct perf_event_mmap_page *meta;  /* the buffer's first page */
	uint8_t *base;                      /* the AUX area, size bytes (a power of two) */
	size_t size;
	uint32_t idx, tid, cpu;             /* what the AUXTRACE records say (tid -1: per CPU) */
};

/* Maps the AUX area of fd's buffer (meta: its mapped first page), pages
 * of page bytes after the data area's data_pages. 0, or a negative errno. */
int aux_ring__map(struct aux_ring *r, int fd, struct perf_event_mmap_page *meta, size_t page, size_t data_pages,
		  size_t pages);
void aux_ring__unmap(struct aux_ring *r);
/* What the kernel wrote since the last drain into w (the tail moves to
 * the head); *bytes counts them. 0, or the writer's negative errno. */
int aux_ring__drain(struct aux_ring *r, struct pd_writer *w, uint64_t *bytes);
/* The clock of the metadata page's timestamps, as TIME_CONV records it. */
void aux_ring__time_conv(const struct perf_event_mmap_page *meta, struct pd_time_conv *tc);

#endif
