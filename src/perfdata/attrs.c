// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader (reader.c): the attrs of the input, whichever record
 * or section brings them (the file's attr section, PERF_RECORD_HEADER_ATTR
 * in pipe mode, records.c), their sample ids, their names (from the
 * EVENT_DESC feature, features.c, else made from the attr) and the sample
 * layout they share. Below reader.c, records.c and features.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/reader_int.h"
#include "util/util.h"

/* ---- id -> attr index ------------------------------------------------- */

int32_t reader_attr_index(const struct u64map *m, uint64_t id)
{
	uint64_t idx;

	return u64map__get(m, id, &idx) ? (int32_t)idx : -1;
}

void reader_put_id(struct pd_reader *r, uint64_t id, uint64_t idx)
{
	struct id_hit *hit = reader_id_slot(r, id);

	u64map__put(&r->ids, id, idx);
	if (hit->id == id)
		hit->id = 0;
}

/* ---- attr names ------------------------------------------------------- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

static const char *const cache_ops[] = { "load", "store", "prefetch" };

static char *synth_name(const struct perf_event_attr *a)
{
	char buf[96];
	/* hybrid systems put the PMU type in config[63:32] of HW events */
	uint64_t low = a->config & 0xffffffffULL;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (low < ARRAY_SIZE(hw_names))
			return xstrdup(hw_names[low]);
		snprintf(buf, sizeof(buf), "hw/0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < ARRAY_SIZE(sw_names))
			return xstrdup(sw_names[a->config]);
		snprintf(buf, sizeof(buf), "sw/0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned int c = low & 0xff, op = (low >> 8) & 0xff, res = (low >> 16) & 0xff;

		if (c < ARRAY_SIZE(cache_names) && op < ARRAY_SIZE(cache_ops) && res <= 1) {
			snprintf(buf, sizeof(buf), "%s-%s%s", cache_names[c], cache_ops[op],
				 res ? "-misses" : "s");
			break;
		}
		snprintf(buf, sizeof(buf), "hw-cache/0x%llx/", (unsigned long long)a->config);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, sizeof(buf), "cpu/raw 0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, sizeof(buf), "tracepoint %llu", (unsigned long long)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, sizeof(buf), "mem:0x%llx", (unsigned long long)a->bp_addr);
		break;
	default:
		snprintf(buf, sizeof(buf), "pmu %u/0x%llx/", a->type, (unsigned long long)a->config);
		break;
	}
	return xstrdup(buf);
}

void reader_set_name(struct rattr *ra, const char *name, enum name_prio prio)
{
	if (!name || !*name || ra->name_prio > prio)
		return;
	free(ra->a.name);
	ra->a.name = xstrdup(name);
	ra->name_prio = prio;
}

/* EVENT_DESC names: by id where the ids are known, else by position. */
void reader_apply_desc_names(struct pd_reader *r)
{
	for (size_t i = 0; i < r->nr_descs; i++) {
		const struct desc_name *d = &r->descs[i];
		int32_t idx = -1;

		for (size_t k = 0; k < d->nr_ids && idx < 0; k++)
			idx = reader_attr_index(&r->ids, d->ids[k]);
		if (idx < 0 && i < r->nr_attrs)
			idx = (int32_t)i;
		if (idx >= 0 && (size_t)idx < r->nr_attrs)
			reader_set_name(r->attrs[idx], d->name, NAME_DESC);
	}
	r->names_stale = false;
}

/* ---- attrs ------------------------------------------------------------ */

static uint32_t sid_size_of(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;
	uint32_t n = 0;

	if (!a->sample_id_all)
		return 0;
	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

void reader_setup_layout(struct pd_reader *r)
{
	const struct perf_event_attr *a = &r->attrs[0]->a.attr;
	uint64_t t = a->sample_type;

	r->sample_id_off = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		r->sample_id_off = 0;
	} else if (t & PERF_SAMPLE_ID) {
		int n = 0;

		n += !!(t & PERF_SAMPLE_IP);
		n += !!(t & PERF_SAMPLE_TID);
		n += !!(t & PERF_SAMPLE_TIME);
		n += !!(t & PERF_SAMPLE_ADDR);
		r->sample_id_off = n * 8;
	}
	r->sid_all = a->sample_id_all;
	r->sid_id_from_end = 0;
	if (r->sid_all) {
		if (t & PERF_SAMPLE_IDENTIFIER)
			r->sid_id_from_end = 8;
		else if (t & PERF_SAMPLE_ID)
			r->sid_id_from_end = 8 * (1 + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU));
	}
	r->layout_ready = true;
}

/* Takes a copy of min(size, sizeof) bytes of the attr; ids are copied too. */
struct rattr *reader_add_attr(struct pd_reader *r, const uint8_t *p, uint32_t size,
			      const uint8_t *ids, size_t nr_ids, uint32_t file_attr_size)
{
	struct rattr *ra = xcalloc(1, sizeof(*ra));
	size_t idx = r->nr_attrs;

	memcpy(&ra->a.attr, p, size < sizeof(ra->a.attr) ? size : sizeof(ra->a.attr));
	ra->a.file_attr_size = file_attr_size;
	ra->a.sample_id_size = sid_size_of(&ra->a.attr);
	if (nr_ids) {
		ra->a.ids = xmalloc(nr_ids * sizeof(uint64_t));
		memcpy(ra->a.ids, ids, nr_ids * sizeof(uint64_t));
		ra->a.nr_ids = nr_ids;
		for (size_t i = 0; i < nr_ids; i++)
			reader_put_id(r, ra->a.ids[i], idx);
		r->total_ids += nr_ids;
	}
	ra->a.name = synth_name(&ra->a.attr);
	ra->name_prio = NAME_SYNTH;
	xgrow((void **)&r->attrs, &r->alloc_attrs, idx + 1, sizeof(*r->attrs));
	r->attrs[idx] = ra;
	r->nr_attrs++;
	if (idx == 0)
		reader_setup_layout(r);
	r->names_stale = true;
	return ra;
}
