// SPDX-License-Identifier: GPL-2.0
/*
 * One record of the data section into a struct pd_event: samples by their
 * attr's sample_type, side-band records with their sample_id trailer, and
 * the records perf writes about the stream itself (attrs, ids, event names,
 * features, build-ids in pipe mode), absorbed into the reader's state. Every
 * length is checked against the record's size before it is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/reader_int.h"
#include "util/util.h"

static int attr_of_id(struct pd_reader *r, uint64_t id)
{
	struct id_hit *hit = reader_id_slot(r, id);
	int32_t idx;

	/* perf gives id 0 (synthesized records with a zeroed trailer) to the
	 * first event */
	if (!id)
		return 0;
	if (hit->id == id) {
		idx = hit->idx;
	} else {
		idx = reader_attr_index(&r->ids, id);
		*hit = (struct id_hit){ id, idx };
	}
	if (idx < 0 || (size_t)idx >= r->nr_attrs)
		return -1;
	return idx;
}

/* sample_id_all trailer of a kernel non-sample record; fixed = bytes of the
 * record before any variable part, so the trailer cannot overlap it. */
static void parse_trailer(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size,
			  uint32_t fixed)
{
	const struct pd_attr *a;
	const uint8_t *p;
	uint64_t t;

	if (!r->nr_attrs)
		return;
	if (r->nr_attrs == 1) {
		ev->attr_idx = 0;
	} else if (r->sid_id_from_end && size >= fixed + (uint32_t)r->sid_id_from_end) {
		ev->attr_idx = attr_of_id(r, ld64(rec + size - r->sid_id_from_end));
		if (ev->attr_idx < 0)
			r->stats.unknown_ids++;
	} else {
		ev->attr_idx = r->sid_id_from_end ? -1 : 0;
	}
	a = &r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a;
	if (!a->sample_id_size || size < fixed + a->sample_id_size)
		return;
	p = rec + size - a->sample_id_size;
	t = a->attr.sample_type;
	if (t & PERF_SAMPLE_TID) {
		ev->sid.pid = ld32(p);
		ev->sid.tid = ld32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		ev->sid.time = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		ev->sid.id = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		ev->sid.stream_id = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		ev->sid.cpu = ld32(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		ev->sid.id = ld64(p);
	ev->has_sid = true;
}

/* Bytes before the trailer, or -1 when the trailer does not fit. */
static int64_t body_end(const struct pd_reader *r, const struct pd_event *ev, uint32_t size, uint32_t fixed)
{
	uint32_t tsz = 0;

	if (r->nr_attrs)
		tsz = r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a.sample_id_size;
	if (size < fixed + tsz)
		return -1;
	return size - tsz;
}

/* A NUL-terminated string at rec[off..end), or NULL. */
static const char *str_in(const uint8_t *rec, uint32_t off, int64_t end)
{
	if (end <= (int64_t)off)
		return NULL;
	if (!memchr(rec + off, '\0', end - off))
		return NULL;
	return (const char *)rec + off;
}

struct scur {
	const uint8_t *p, *end;
};

static inline bool s_u64(struct scur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return false;
	*v = ld64(c->p);
	c->p += 8;
	return true;
}

static inline bool s_skip(struct scur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

static const uint64_t *aligned_u64s(struct pd_reader *r, const uint8_t *p, uint64_t nr)
{
	if (!((uintptr_t)p & 7) || !nr)
		return (const uint64_t *)(const void *)p;
	if (nr > r->scratch_cap) {
		free(r->scratch);
		/* records are at most 64 KiB: this stays small */
		r->scratch_cap = nr < 8192 ? 8192 : nr;
		r->scratch = xmalloc(r->scratch_cap * sizeof(uint64_t));
	}
	memcpy(r->scratch, p, nr * 8);
	return r->scratch;
}

/* The attr of a sample: by its id when several attrs need telling apart
 * (*idx -1: an id no attr has); false without attrs or when the record is
 * too short to hold the id. */
static bool sample_attr_idx(struct pd_reader *r, const uint8_t *rec, uint32_t size, int *idx)
{
	if (!r->nr_attrs)
		return false;
	if (r->nr_attrs == 1 || r->sample_id_off < 0) {
		*idx = 0;
		return true;
	}
	if (size < 8 + (uint32_t)r->sample_id_off + 8)
		return false;
	*idx = attr_of_id(r, ld64(rec + 8 + r->sample_id_off));
	return true;
}

/* The same into ev, counting an unknown id (-1). */
static bool sample_attr(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	if (!sample_attr_idx(r, rec, size, &ev->attr_idx))
		return false;
	if (ev->attr_idx < 0)
		r->stats.unknown_ids++;
	return true;
}

/* PERF_SAMPLE_READ: skipped, its size from the read_format. */
static bool skip_read(struct scur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return s_skip(c, (per + hdr) * 8);
	if (!s_u64(c, &nr) || !s_skip(c, hdr * 8))
		return false;
	return nr <= (uint64_t)(c->end - c->p) / (per * 8) && s_skip(c, nr * per * 8);
}

static bool take_callchain(struct pd_reader *r, struct scur *c, struct pd_sample *s)
{
	uint64_t nr;

	if (!s_u64(c, &nr) || nr > (uint64_t)(c->end - c->p) / 8)
		return false;
	s->callchain_nr = nr;
	s->callchain = aligned_u64s(r, c->p, nr);
	c->p += nr * 8;
	return true;
}

static bool take_raw(struct scur *c, struct pd_sample *s)
{
	uint32_t rsz;
	uint64_t adv;

	if (c->end - c->p < 4)
		return false;
	rsz = ld32(c->p);
	/* the kernel pads u32 + data to 8 bytes and counts the pad in size */
	adv = (4ULL + rsz + 7) & ~7ULL;
	if (adv > (uint64_t)(c->end - c->p))
		return false;
	s->raw_size = rsz;
	s->raw = c->p + 4;
	c->p += adv;
	return true;
}

static bool skip_branch_stack(struct scur *c, uint64_t branch_sample_type)
{
	uint64_t nr, per = branch_sample_type & PD_BRANCH_COUNTERS ? 4 : 3;

	if (!s_u64(c, &nr))
		return false;
	if (branch_sample_type & PD_BRANCH_HW_INDEX && !s_skip(c, 8))
		return false;
	if (nr > (uint64_t)(c->end - c->p) / (per * 8))
		return false;
	c->p += nr * per * 8;
	return true;
}

/* REGS_USER, REGS_INTR: an abi word, then the mask's registers unless abi is 0. */
static bool skip_regs(struct scur *c, uint64_t mask)
{
	uint64_t abi;

	if (!s_u64(c, &abi))
		return false;
	return !abi || s_skip(c, 8ULL * __builtin_popcountll(mask));
}

/* REGS_USER: the abi, then the mask's registers (none when abi is 0). */
static bool take_regs(struct pd_reader *r, struct scur *c, uint64_t mask, struct pd_sample *s)
{
	uint32_t n = (uint32_t)__builtin_popcountll(mask);

	if (!s_u64(c, &s->regs_abi))
		return false;
	if (!s->regs_abi)
		return true;
	if (n > (uint64_t)(c->end - c->p) / 8)
		return false;
	s->regs_mask = mask;
	s->nr_regs = n;
	if ((uintptr_t)c->p & 7) {
		memcpy(r->regs, c->p, n * 8ULL);
		s->regs = r->regs;
	} else {
		s->regs = (const uint64_t *)(const void *)c->p;
	}
	c->p += n * 8ULL;
	return true;
}

/* STACK_USER: size, the copy, and the dynamic size when the copy is not
 * empty. A dynamic size beyond the copy is cut to it and counted. */
static bool take_stack_user(struct pd_reader *r, struct scur *c, struct pd_sample *s)
{
	uint64_t sz, dyn;

	if (!s_u64(c, &sz) || sz > (uint64_t)(c->end - c->p))
		return false;
	if (!sz)
		return true;
	s->stack = c->p;
	c->p += sz;
	if (!s_u64(c, &dyn))
		return false;
	if (dyn > sz) {
		r->stats.stack_dyn_clipped++;
		dyn = sz;
	}
	s->stack_size = sz;
	s->stack_dyn_size = dyn;
	return true;
}

static bool take_weight(struct scur *c, uint64_t t, struct pd_sample *s)
{
	uint64_t v;

	if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (!s_u64(c, &v))
			return false;
		s->weight = (uint32_t)v;
		s->ins_lat = (uint16_t)(v >> 32);
		s->weight3 = (uint16_t)(v >> 48);
		return true;
	}
	return !(t & PERF_SAMPLE_WEIGHT) || s_u64(c, &s->weight);
}

/* The offsets of a's sample fields when all of them have a fixed size:
 * the sizes parse_sample reads, in its order. */
static void layout__find(struct sample_layout *l, const struct perf_event_attr *a)
{
	static const struct {
		uint64_t bit;
		enum sample_field f;
	} order[] = {
		{ PERF_SAMPLE_IDENTIFIER, SF_IDENTIFIER }, { PERF_SAMPLE_IP, SF_IP }, { PERF_SAMPLE_TID, SF_TID },
		{ PERF_SAMPLE_TIME, SF_TIME }, { PERF_SAMPLE_ADDR, SF_ADDR }, { PERF_SAMPLE_ID, SF_ID },
		{ PERF_SAMPLE_STREAM_ID, SF_STREAM_ID }, { PERF_SAMPLE_CPU, SF_CPU }, { PERF_SAMPLE_PERIOD, SF_PERIOD },
		{ PERF_SAMPLE_READ, SF__NR }, { PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, SF_WEIGHT },
		{ PERF_SAMPLE_DATA_SRC, SF_DATA_SRC }, { PERF_SAMPLE_TRANSACTION, SF_TRANSACTION },
		{ PERF_SAMPLE_PHYS_ADDR, SF_PHYS_ADDR }, { PERF_SAMPLE_CGROUP, SF_CGROUP },
		{ PERF_SAMPLE_DATA_PAGE_SIZE, SF_DATA_PAGE_SIZE }, { PERF_SAMPLE_CODE_PAGE_SIZE, SF_CODE_PAGE_SIZE },
	};
	const uint64_t variable = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
				  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |
				  PERF_SAMPLE_AUX;
	uint64_t t = a->sample_type, rf = a->read_format;
	uint32_t off = 0;

	l->checked = true;
	l->fixed = !(t & variable) && !(t & PERF_SAMPLE_READ && rf & PERF_FORMAT_GROUP);
	l->weight_struct = t & PERF_SAMPLE_WEIGHT_STRUCT;
	for (unsigned int i = 0; i < SF__NR; i++)
		l->off[i] = -1;
	for (unsigned int i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(t & order[i].bit))
			continue;
		if (order[i].f == SF__NR) {
			/* a READ without GROUP: the value and what read_format adds */
			off += 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST) +
				    !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
			continue;
		}
		l->off[order[i].f] = (int16_t)off;
		off += 8;
	}
	l->size = off;
}

static inline uint64_t field(const uint8_t *body, const struct sample_layout *l, enum sample_field f)
{
	return l->off[f] >= 0 ? ld64(body + l->off[f]) : 0;
}

/* The layout of sample rec (its attr's index in *idx) when every field of
 * it has a fixed size and rec holds them all, else NULL. */
static inline const struct sample_layout *fixed_layout(struct pd_reader *r, const uint8_t *rec, uint32_t size,
							int *idx)
{
	struct sample_layout *l;

	if (!sample_attr_idx(r, rec, size, idx) || *idx < 0)
		return NULL;
	l = &r->attrs[*idx]->layout;
	if (!l->checked)
		layout__find(l, &r->attrs[*idx]->a.attr);
	return l->fixed && size - 8 >= l->size ? l : NULL;
}

/* A sample whose attr has only fixed-size fields, read from their offsets;
 * false when it is not one (or is too short: parse_sample then says so).
 * The event is filled whole, as reader_decode's clearing would leave it. */
static bool fixed_sample(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	const struct sample_layout *l;
	const uint8_t *b = rec + 8;
	struct pd_sample *s = &ev->u.sample;
	uint64_t tid, w;
	int idx;

	/* parse_sample counts what is wrong with the attr */
	l = fixed_layout(r, rec, size, &idx);
	if (!l)
		return false;
	tid = field(b, l, SF_TID);
	w = field(b, l, SF_WEIGHT);
	if (l->weight_struct)
		*s = (struct pd_sample){ .weight = (uint32_t)w, .ins_lat = (uint16_t)(w >> 32),
					 .weight3 = (uint16_t)(w >> 48) };
	else
		*s = (struct pd_sample){ .weight = w };
	s->id = l->off[SF_ID] >= 0 ? ld64(b + l->off[SF_ID]) : field(b, l, SF_IDENTIFIER);
	s->ip = field(b, l, SF_IP);
	s->pid = (uint32_t)tid;
	s->tid = (uint32_t)(tid >> 32);
	s->time = field(b, l, SF_TIME);
	s->addr = field(b, l, SF_ADDR);
	s->stream_id = field(b, l, SF_STREAM_ID);
	s->cpu = (uint32_t)field(b, l, SF_CPU);
	s->period = field(b, l, SF_PERIOD);
	s->data_src = field(b, l, SF_DATA_SRC);
	s->transaction = field(b, l, SF_TRANSACTION);
	s->phys_addr = field(b, l, SF_PHYS_ADDR);
	s->cgroup = field(b, l, SF_CGROUP);
	s->data_page_size = field(b, l, SF_DATA_PAGE_SIZE);
	s->code_page_size = field(b, l, SF_CODE_PAGE_SIZE);
	ev->attr_idx = idx;
	ev->kind = PD_SAMPLE;
	ev->has_sid = true;
	ev->sid = (struct pd_sample_id){ .pid = s->pid, .tid = s->tid, .time = s->time, .id = s->id,
					 .stream_id = s->stream_id, .cpu = s->cpu };
	return true;
}

size_t reader_fixed_run(struct pd_reader *r, const uint8_t *p, uint64_t base, uint64_t *off, uint64_t start_end,
			uint64_t end, struct pd_sample_core *out, size_t max)
{
	uint64_t o = *off;
	size_t n = 0;

	while (n < max && o < start_end && end - o >= 8) {
		const uint8_t *rec = p + (o - base), *b = rec + 8;
		uint32_t size = ld16(rec + 6);
		const struct sample_layout *l;
		struct pd_sample_core *c = &out[n];
		uint64_t tid, w;
		int idx;

		if (ld32(rec) != PERF_RECORD_SAMPLE || size < 8 || size > end - o)
			break;
		l = fixed_layout(r, rec, size, &idx);
		if (!l)
			break;
		tid = field(b, l, SF_TID);
		w = field(b, l, SF_WEIGHT);
		c->seq = r->seq++;
		c->ip = field(b, l, SF_IP);
		c->addr = field(b, l, SF_ADDR);
		c->time = field(b, l, SF_TIME);
		c->period = field(b, l, SF_PERIOD);
		c->weight = l->weight_struct ? (uint32_t)w : w;
		c->data_src = field(b, l, SF_DATA_SRC);
		c->pid = (uint32_t)tid;
		c->tid = (uint32_t)(tid >> 32);
		c->cpu = (uint32_t)field(b, l, SF_CPU);
		c->attr_idx = idx;
		c->cpumode = ld16(rec + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
		o += size;
		n++;
	}
	r->stats.records += n;
	r->stats.by_kind[PD_SAMPLE] += n;
	*off = o;
	return n;
}

/* The fields of a sample, in the order sample_type lays them out
 * (perf_event_open(2), "overflow" records). */
static bool parse_sample(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_sample *s = &ev->u.sample;
	const struct perf_event_attr *a;
	struct scur c = { rec + 8, rec + size };
	uint64_t t, v;

	if (!sample_attr(r, ev, rec, size))
		return false;
	a = &r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a.attr;
	t = a->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER && !s_u64(&c, &s->id))
		return false;
	if (t & PERF_SAMPLE_IP && !s_u64(&c, &s->ip))
		return false;
	if (t & PERF_SAMPLE_TID) {
		if (!s_u64(&c, &v))
			return false;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME && !s_u64(&c, &s->time))
		return false;
	if (t & PERF_SAMPLE_ADDR && !s_u64(&c, &s->addr))
		return false;
	if (t & PERF_SAMPLE_ID && !s_u64(&c, &s->id))
		return false;
	if (t & PERF_SAMPLE_STREAM_ID && !s_u64(&c, &s->stream_id))
		return false;
	if (t & PERF_SAMPLE_CPU) {
		if (!s_u64(&c, &v))
			return false;
		s->cpu = (uint32_t)v;
	}
	if (t & PERF_SAMPLE_PERIOD && !s_u64(&c, &s->period))
		return false;
	if (t & PERF_SAMPLE_READ && !skip_read(&c, a->read_format))
		return false;
	if (t & PERF_SAMPLE_CALLCHAIN && !take_callchain(r, &c, s))
		return false;
	if (t & PERF_SAMPLE_RAW && !take_raw(&c, s))
		return false;
	if (t & PERF_SAMPLE_BRANCH_STACK && !skip_branch_stack(&c, a->branch_sample_type))
		return false;
	if (t & PERF_SAMPLE_REGS_USER && !take_regs(r, &c, a->sample_regs_user, s))
		return false;
	if (t & PERF_SAMPLE_STACK_USER && !take_stack_user(r, &c, s))
		return false;
	if (!take_weight(&c, t, s))
		return false;
	if (t & PERF_SAMPLE_DATA_SRC && !s_u64(&c, &s->data_src))
		return false;
	if (t & PERF_SAMPLE_TRANSACTION && !s_u64(&c, &s->transaction))
		return false;
	if (t & PERF_SAMPLE_REGS_INTR && !skip_regs(&c, a->sample_regs_intr))
		return false;
	if (t & PERF_SAMPLE_PHYS_ADDR && !s_u64(&c, &s->phys_addr))
		return false;
	if (t & PERF_SAMPLE_CGROUP && !s_u64(&c, &s->cgroup))
		return false;
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE && !s_u64(&c, &s->data_page_size))
		return false;
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE && !s_u64(&c, &s->code_page_size))
		return false;
	if (t & PERF_SAMPLE_AUX && (!s_u64(&c, &s->aux_size) || !s_skip(&c, s->aux_size)))
		return false;

	ev->has_sid = true;
	ev->sid.pid = s->pid;
	ev->sid.tid = s->tid;
	ev->sid.time = s->time;
	ev->sid.id = s->id;
	ev->sid.stream_id = s->stream_id;
	ev->sid.cpu = s->cpu;
	return true;
}

static void handle_attr_record(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	uint32_t asz;
	uint64_t nr_ids;

	/* already known from an earlier pass over the same stream */
	if (r->nr_header_attrs + r->stream_attrs_seen++ < r->nr_attrs)
		return;
	if (size < 8 + PERF_ATTR_SIZE_VER0 || r->nr_attrs >= PD_MAX_ATTRS) {
		r->stats.bad_records++;
		return;
	}
	asz = ld32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8) {
		r->stats.bad_records++;
		return;
	}
	nr_ids = (size - 8 - asz) / 8;
	if (r->total_ids + nr_ids > PD_MAX_IDS) {
		r->stats.bad_records++;
		return;
	}
	reader_add_attr(r, rec + 8, asz, rec + 8 + asz, nr_ids, asz);
}

static void handle_id_index(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	uint64_t nr;

	if (size < 16) {
		r->stats.bad_records++;
		return;
	}
	nr = ld64(rec + 8);
	/* entries: id, idx, cpu, tid; newer perf appends more after them */
	if (nr > (size - 16) / 32) {
		r->stats.bad_records++;
		return;
	}
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *e = rec + 16 + i * 32;
		uint64_t idx = ld64(e + 8);

		if (idx < PD_MAX_ATTRS && reader_attr_index(&r->ids, ld64(e)) < 0 && r->ids.nr < PD_MAX_IDS) {
			reader_put_id(r, ld64(e), idx);
		}
	}
	r->names_stale = nr > 0;
}

static void handle_event_update(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	const char *name;
	int idx;

	if (size < 24 || ld64(rec + 8) != PD_EVENT_UPDATE_NAME)
		return;
	name = str_in(rec, 24, size);
	idx = attr_of_id(r, ld64(rec + 16));
	if (name && idx >= 0 && (size_t)idx < r->nr_attrs)
		reader_set_name(r->attrs[idx], name, NAME_UPDATE);
}

/* One complete record at rec (size checked >= 8 and within its buffer).
 * 1 = ev filled, 0 = consumed or skipped, < 0 = fatal. */
static bool decode_mmap(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_mmap *m = &ev->u.mmap;
	uint32_t fixed = ev->type == PERF_RECORD_MMAP ? 40 : 72;

	if (size < fixed)
		return false;
	parse_trailer(r, ev, rec, size, fixed);
	m->filename = str_in(rec, fixed, body_end(r, ev, size, fixed));
	if (!m->filename)
		return false;
	m->pid = ld32(rec + 8);
	m->tid = ld32(rec + 12);
	m->start = ld64(rec + 16);
	m->len = ld64(rec + 24);
	m->pgoff = ld64(rec + 32);
	m->data = ev->misc & PERF_RECORD_MISC_MMAP_DATA;
	if (ev->type == PERF_RECORD_MMAP2) {
		m->v2 = true;
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];

			m->build_id_form = true;
			m->build_id_size = n > 20 ? 20 : n;
			memcpy(m->build_id, rec + 44, m->build_id_size);
		} else {
			m->maj = ld32(rec + 40);
			m->min = ld32(rec + 44);
			m->ino = ld64(rec + 48);
			m->ino_generation = ld64(rec + 56);
		}
		m->prot = ld32(rec + 64);
		m->flags = ld32(rec + 68);
	}
	ev->kind = PD_MMAP;
	return true;
}

static bool decode_comm(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_comm *cm = &ev->u.comm;

	if (size < 16)
		return false;
	parse_trailer(r, ev, rec, size, 16);
	cm->comm = str_in(rec, 16, body_end(r, ev, size, 16));
	if (!cm->comm)
		return false;
	cm->pid = ld32(rec + 8);
	cm->tid = ld32(rec + 12);
	cm->exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;
	ev->kind = PD_COMM;
	return true;
}

static bool decode_fork(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_fork *f = &ev->u.fork;

	if (size < 32)
		return false;
	parse_trailer(r, ev, rec, size, 32);
	f->pid = ld32(rec + 8);
	f->ppid = ld32(rec + 12);
	f->tid = ld32(rec + 16);
	f->ptid = ld32(rec + 20);
	f->time = ld64(rec + 24);
	ev->kind = ev->type == PERF_RECORD_FORK ? PD_FORK : PD_EXIT;
	return true;
}

/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE */
static bool decode_loss(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	uint32_t fixed = ev->type == PERF_RECORD_LOST ? 24 : ev->type == PERF_RECORD_LOST_SAMPLES ? 16 : 32;

	if (size < fixed)
		return false;
	parse_trailer(r, ev, rec, size, fixed);
	switch (ev->type) {
	case PERF_RECORD_LOST:
		ev->u.lost.id = ld64(rec + 8);
		ev->u.lost.lost = ld64(rec + 16);
		ev->kind = PD_LOST;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		ev->u.lost.id = 0;
		ev->u.lost.lost = ld64(rec + 8);
		ev->kind = PD_LOST_SAMPLES;
		break;
	default:
		ev->u.throttle.time = ld64(rec + 8);
		ev->u.throttle.id = ld64(rec + 16);
		ev->u.throttle.stream_id = ld64(rec + 24);
		ev->kind = ev->type == PERF_RECORD_THROTTLE ? PD_THROTTLE : PD_UNTHROTTLE;
	}
	return true;
}

/* The records perf writes into the stream about the stream (pipe mode's
 * header, and what both modes carry): read into the reader's state, never
 * yielded. False when type is not one of them. */
static bool absorb_stream_header(struct pd_reader *r, uint32_t type, const uint8_t *rec, uint32_t size)
{
	switch (type) {
	case PD_REC_HEADER_ATTR:
		handle_attr_record(r, rec, size);
		return true;
	case PD_REC_HEADER_FEATURE:
		if (size < 16) {
			r->stats.bad_records++;
			return true;
		}
		/* a feature seen in an earlier pass is already in info */
		if (!reader_feat_present(r, ld64(rec + 8)) && ld64(rec + 8) < PD_FEAT_MAX)
			reader_parse_feature(r, (unsigned int)ld64(rec + 8), rec + 16, size - 16);
		return true;
	case PD_REC_ID_INDEX:
		handle_id_index(r, rec, size);
		return true;
	case PD_REC_EVENT_UPDATE:
		handle_event_update(r, rec, size);
		return true;
	case PD_REC_HEADER_BUILD_ID:
		/* pipe mode; read in the first pass only */
		if (!r->build_ids_done)
			reader_add_build_id(r, rec, size);
		return true;
	case PD_REC_HEADER_EVENT_TYPE:
	case PD_REC_HEADER_TRACING_DATA:
	case PD_REC_AUXTRACE:
		return true;
	default:
		return false;
	}
}

/* The record header's part of ev. Every record takes a number, yielded or
 * not, so that the numbers agree between a pass that skips samples and one
 * that does not. */
static void set_header(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size, uint64_t off)
{
	uint16_t misc = ld16(rec + 4);

	ev->seq = r->seq++;
	ev->type = ld32(rec);
	ev->misc = misc;
	ev->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	ev->size = size;
	ev->offset = off;
}

/* A context switch: which task runs, for the AUX traces' samples. A
 * CPU-wide switch names the task coming in (out: next) or going out (in:
 * prev); a task's own names itself (trailer). false: too short. */
static bool decode_switch(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	bool wide = ld32(rec) == PERF_RECORD_SWITCH_CPU_WIDE, out = ld16(rec + 4) & PERF_RECORD_MISC_SWITCH_OUT;

	if (size < (wide ? 16u : 8u))
		return false;
	parse_trailer(r, ev, rec, size, wide ? 16 : 8);
	ev->kind = PD_OTHER;
	r->stats.other_types++;
	if (!ev->has_sid)
		return true;
	if (wide && out)
		reader_aux_note_switch(r, ev->sid.cpu, ev->sid.time, ld32(rec + 8), ld32(rec + 12));
	else if (!wide && !out)
		reader_aux_note_switch(r, ev->sid.cpu, ev->sid.time, ev->sid.pid, ev->sid.tid);
	return true;
}

/* An AUX record (aux_offset, aux_size, flags, then the trailer): where the
 * next AUXTRACE buffer's data came from. false: too short. */
static bool decode_aux(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	if (size < 32)
		return false;
	reader_aux_record(r, ld64(rec + 24));
	parse_trailer(r, ev, rec, size, 32);
	ev->kind = PD_OTHER;
	return true;
}

/* One record into ev: 1 = yield it, 0 = consumed or skipped (counted). */
int reader_decode(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size, uint64_t off)
{
	uint32_t type = ld32(rec);
	bool ok = true;

	if (type == PERF_RECORD_SAMPLE && fixed_sample(r, ev, rec, size)) {
		set_header(r, ev, rec, size, off);
		r->stats.records++;
		r->stats.by_kind[PD_SAMPLE]++;
		return 1;
	}
	zero_mem(ev, sizeof(*ev));
	set_header(r, ev, rec, size, off);
	ev->attr_idx = -1;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		ok = parse_sample(r, ev, rec, size);
		ev->kind = PD_SAMPLE;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		ok = decode_mmap(r, ev, rec, size);
		break;
	case PERF_RECORD_COMM:
		ok = decode_comm(r, ev, rec, size);
		if (ok)
			reader_aux_note_thread(r, ev->u.comm.pid, ev->u.comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ok = decode_fork(r, ev, rec, size);
		if (ok && ev->type == PERF_RECORD_FORK)
			reader_aux_note_thread(r, ev->u.fork.pid, ev->u.fork.tid);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ok = decode_loss(r, ev, rec, size);
		break;
	case PD_REC_FINISHED_ROUND:
		ev->kind = PD_FINISHED_ROUND;
		break;
	case PD_REC_FINISHED_INIT:
		ev->kind = PD_FINISHED_INIT;
		break;
	case PD_REC_AUXTRACE_INFO:
	case PD_REC_TIME_CONV:
		/* yielded as records of other types, as before they were read:
		 * counted among the types not used unless they serve AUX
		 * traces decoded here (a later pass knows of them) */
		ok = type == PD_REC_TIME_CONV ? reader_time_conv(r, rec, size) : reader_aux_info(r, rec, size);
		ev->kind = PD_OTHER;
		if (r->info.auxtrace.type != PD_AUXTRACE_ARM_SPE)
			r->stats.other_types++;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		ok = decode_switch(r, ev, rec, size);
		break;
	case PERF_RECORD_AUX:
		ok = decode_aux(r, ev, rec, size);
		break;
	default:
		if (absorb_stream_header(r, type, rec, size))
			return 0;
		/* kernel records carry the trailer; perf's own (>= 64) do not */
		if (type < PD_REC_HEADER_ATTR)
			parse_trailer(r, ev, rec, size, 8);
		ev->kind = PD_OTHER;
		r->stats.other_types++;
		break;
	}
	if (!ok) {
		r->stats.bad_records++;
		return 0;
	}
	r->stats.records++;
	r->stats.by_kind[ev->kind]++;
	return 1;
}

/* Expands one compressed chunk after what is left of a partial record. */
