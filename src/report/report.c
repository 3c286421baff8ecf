// SPDX-License-Identifier: GPL-2.0
/*
 * Two passes over the input. Pass 1 feeds side-band records (mmap, comm,
 * fork, exit) to the maps timeline; pass 2 keys and counts every sample
 * against the mappings live at its timestamp. Two passes, rather than one
 * ordered queue, because per-CPU buffers are flushed out of order: an MMAP2
 * may sit in the file after samples stamped later than it. Memory stays
 * proportional to side-band records and distinct lines, never to samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/alloc.h"
#include "report/columns.h"
#include "report/latent.h"
#include "report/output.h"
#include "report/report_int.h"
#include "util/htab.h"
#include "util/relay.h"
#include "util/util.h"

static uint64_t kernel_start_for(const char *arch)
{
	static const char *const arch32[] = { "i386", "i486", "i586", "i686", "x86", "arm", "armv6l",
					      "armv7l", "armv7", "armv8l", "mips", "ppc" };

	if (!arch)
		return 1ULL << 63;
	for (size_t i = 0; i < ARRAY_SIZE(arch32); i++)
		if (!strcmp(arch, arch32[i]))
			return 0xc0000000ULL;
	return 1ULL << 63;
}

/* The time a record is ordered by: its timestamp when every event carries
 * one, else its position in the file. */
static uint64_t event_time(const struct report *r, const struct pd_event *ev, uint64_t *last)
{
	if (!r->use_time)
		return ev->seq;
	if (ev->has_sid)
		*last = ev->sid.time;
	else if (ev->kind == PD_FORK || ev->kind == PD_EXIT)
		*last = ev->u.fork.time;
	/* else: an event we cannot place (unknown id): keep it where the
	 * previous one was */
	return *last;
}

static bool decide_use_time(const struct pd_reader *rd)
{
	size_t n = pd_reader__nr_attrs(rd);

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = &pd_reader__attr(rd, i)->attr;

		if (!(a->sample_type & PERF_SAMPLE_TIME) || !a->sample_id_all)
			return false;
	}
	return true;
}

static void stream_error(struct report *r)
{
	r->partial = true;
	snprintf(r->partial_reason, sizeof(r->partial_reason), "%s", pd_reader__strerror(r->reader));
}

static int pass1(struct report *r)
{
	struct pd_event ev;
	uint64_t last = 0, t;
	bool decided = false;
	int ret;

	pd_reader__skip_samples(r->reader, true);
	pd_reader__skim_ahead(r->reader, 0);
	while ((ret = pd_reader__next(r->reader, &ev)) > 0) {
		switch (ev.kind) {
		case PD_MMAP:
		case PD_COMM:
		case PD_FORK:
		case PD_EXIT:
			/* pipe mode: attrs arrive as records before any event */
			if (!decided) {
				r->use_time = decide_use_time(r->reader);
				decided = true;
			}
			r->nr_side_band++;
			t = event_time(r, &ev, &last);
			if (ev.kind == PD_MMAP)
				names__note_mmap(r->names, &ev.u.mmap);
			if (ev.kind == PD_EXIT)
				u64map__put(&r->thread_end, ev.u.fork.tid, t);
			/* a new process (not a thread): it inherits its parent's heap */
			if (ev.kind == PD_FORK && ev.u.fork.pid != ev.u.fork.ppid && r->nr_forks < HEAP_MAX_FORKS) {
				xgrow((void **)&r->forks, &r->alloc_forks, r->nr_forks + 1, sizeof(*r->forks));
				r->forks[r->nr_forks++] = (struct heap_fork){ ev.u.fork.pid, ev.u.fork.ppid,
									      ev.u.fork.time };
			}
			/* a mapping over a freed heap range ends it (heap__new) */
			if (ev.kind == PD_MMAP && r->nr_mmaps < HEAP_MAX_MMAPS && ev.u.mmap.len &&
			    ev.u.mmap.start + ev.u.mmap.len > ev.u.mmap.start) {
				xgrow((void **)&r->mmaps, &r->alloc_mmaps, r->nr_mmaps + 1, sizeof(*r->mmaps));
				r->mmaps[r->nr_mmaps++] = (struct heap_mmap){ ev.u.mmap.pid, ev.u.mmap.start,
									      ev.u.mmap.start + ev.u.mmap.len, t };
			}
			ret = maps__add_event(r->maps, &ev, t);
			if (ret < 0)
				return ret;
			break;
		case PD_LOST:
			r->lost += ev.u.lost.lost;
			break;
		case PD_LOST_SAMPLES:
			r->lost_samples += ev.u.lost.lost;
			break;
		case PD_THROTTLE:
			r->throttles++;
			break;
		default:
			break;
		}
	}
	if (!decided)
		r->use_time = decide_use_time(r->reader);
	if (ret < 0)
		stream_error(r);
	return maps__finalize(r->maps);
}

/* Called after pass 1, when a pipe stream has delivered all its attrs and
 * names. Names are copied: the reader may replace its own while re-reading
 * name records in pass 2. */
static void setup_events(struct report *r)
{
	size_t n = pd_reader__nr_attrs(r->reader);

	r->nr_events = n;
	r->events = xcalloc(n ? n : 1, sizeof(*r->events));
	for (size_t i = 0; i < n; i++) {
		const struct pd_attr *a = pd_reader__attr(r->reader, i);

		r->events[i].name = xstrdup(a->name ? a->name : "?");
		r->events[i].has_addr = a->attr.sample_type & PERF_SAMPLE_ADDR;
		/* perf record -d asks every event for DATA_SRC; the kernel fills
		 * software events' with "not available": an event is known by
		 * its type, not by who recorded it */
		r->events[i].has_data_src = (a->attr.sample_type & PERF_SAMPLE_DATA_SRC) &&
					    a->attr.type != PERF_TYPE_SOFTWARE && a->attr.type != PERF_TYPE_TRACEPOINT &&
					    a->attr.type != PERF_TYPE_BREAKPOINT;
		r->events[i].has_weight = a->attr.sample_type & PERF_SAMPLE_WEIGHT_TYPE;
		r->events[i].has_stack = a->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER);
	}
}

/* ---- allocation events from allocator probes (record --alloc with -p/-a,
 * --alloc-fn; perfdata/alloc.h PD_ALLOC_PROBE_PREFIX) ---- */

/* An allocator probe's event: what its name says, the function's id. */
struct probe_spec {
	struct pd_alloc_probe p;
	uint16_t fn;
};

struct pending_call {                           /* an entry waiting for its return */
	uint16_t fn;
	bool valid;
	uint64_t size, old;
};

/* fn id of a probe's function: the C library's, or a user one (named in
 * r->alloc.names, appended when new). */
static uint16_t probe_fn(struct report *r, const char *fn, size_t len)
{
	char name[64];
	int id;

	snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), fn);
	id = pd_alloc__fn_id(name);
	if (id >= 0)
		return (uint16_t)id;
	for (uint32_t i = 0; i < r->alloc.nr_names; i++)
		if (!strcmp(r->alloc.names[i], name))
			return (uint16_t)(PD_ALLOC_FN_USER + i);
	if (r->alloc.nr_names >= 256)
		return PD_ALLOC_FN_USER;
	r->alloc.names = xrealloc(r->alloc.names, r->alloc.nr_names + 1, sizeof(*r->alloc.names));
	r->alloc.names[r->alloc.nr_names] = xstrdup(name);
	return (uint16_t)(PD_ALLOC_FN_USER + r->alloc.nr_names++);
}

static bool probe_parse(struct report *r, const char *name, struct probe_spec *ps)
{
	if (!pd_alloc_probe__parse(name, &ps->p))
		return false;
	ps->fn = probe_fn(r, ps->p.fn, strlen(ps->p.fn));
	return true;
}

static bool is_aarch64(const struct pd_info *in)
{
	return in->arch && !strcmp(in->arch, "aarch64");
}

/* Argument n of a probe sample, by perf's register numbers (x86_64: DI,
 * SI, DX are 5, 4, 3; aarch64: X0, X1, X2 are 0, 1, 2). */
static bool probe_arg(const struct pd_info *in, const struct pd_sample *s, int n, uint64_t *v)
{
	static const uint8_t x86_64[] = { 5, 4, 3 };

	if (n < 0 || n > 2)
		return false;
	return pd_sample__reg(s, is_aarch64(in) ? (unsigned int)n : x86_64[n], v);
}

static void alloc_push(struct report *r, size_t *alloc, const struct pd_sample *s, uint16_t kind, uint16_t fn,
		       uint64_t addr, uint64_t size, uint64_t site)
{
	if (r->alloc.nr >= PD_MAX_ALLOC_EVENTS)
		return;
	xgrow((void **)&r->alloc.ev, alloc, r->alloc.nr + 1, sizeof(*r->alloc.ev));
	r->alloc.ev[r->alloc.nr++] = (struct pd_alloc_event){ .time = s->time, .addr = addr, .size = size,
		.site = site, .pid = s->pid, .tid = s->tid, .kind = kind, .fn = fn };
}

/* A return probe's stack (record -g): its callers above the call site, as
 * the shim writes them (PD_ALLOC_FRAMES after the allocation). */
static void push_frames(struct report *r, size_t *alloc_ev, const struct pd_sample *s)
{
	struct stack_stats st = { 0 };
	uint64_t ips[64];
	size_t nr;

	if (!s->callchain_nr && !s->regs_abi)
		return;
	nr = names__stack(r->names, r->maps, s, s->time, ips, ARRAY_SIZE(ips), &st);
	/* ips[0] is the site itself */
	for (size_t i = 1; i < nr && r->alloc.nr < PD_MAX_ALLOC_EVENTS;) {
		xgrow((void **)&r->alloc.ev, alloc_ev, r->alloc.nr + 1, sizeof(*r->alloc.ev));
		i += pd_alloc__frames(&r->alloc.ev[r->alloc.nr++], ips + i, nr - i, s->pid, s->tid);
	}
}

static void probe_sample(struct report *r, const struct probe_spec *ps, const struct pd_sample *s,
			 struct u64map *calls, struct pending_call **pend, size_t *nr_pend, size_t *alloc_pend,
			 size_t *alloc_ev)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	struct pending_call *pc = NULL;
	uint64_t idx, a = 0, b = 1;

	r->probe_samples++;
	if (ps->p.role == PD_PROBE_FREE) {
		if (probe_arg(in, s, ps->p.free_a, &a) && a)
			alloc_push(r, alloc_ev, s, PD_ALLOC_FREE, ps->fn, a, 0, s->ip);
		return;
	}
	if (!u64map__get(calls, s->tid, &idx)) {
		xgrow((void **)pend, alloc_pend, *nr_pend + 1, sizeof(**pend));
		idx = (*nr_pend)++;
		(*pend)[idx] = (struct pending_call){ 0 };
		u64map__put(calls, s->tid, idx);
	}
	pc = &(*pend)[idx];
	if (ps->p.role == PD_PROBE_ENTRY) {
		pc->valid = probe_arg(in, s, ps->p.size_a, &a) && (ps->p.size_b < 0 || probe_arg(in, s, ps->p.size_b, &b));
		pc->fn = ps->fn;
		pc->size = a * b;
		pc->old = 0;
		if (ps->p.old_a >= 0)
			probe_arg(in, s, ps->p.old_a, &pc->old);
		return;
	}
	/* the return: its register (AX, X0: both perf's 0) holds the pointer,
	 * its ip the call site */
	if (!pc->valid || pc->fn != ps->fn || !pd_sample__reg(s, 0, &a)) {
		r->probe_unpaired++;
		return;
	}
	pc->valid = false;
	if (pc->old && (a || !pc->size))
		alloc_push(r, alloc_ev, s, PD_ALLOC_FREE, ps->fn, pc->old, 0, s->ip);
	if (a) {
		alloc_push(r, alloc_ev, s, PD_ALLOC_ALLOC, ps->fn, a, pc->size, s->ip);
		push_frames(r, alloc_ev, s);
	}
}

/* A pass over the allocator probes' samples, when the recording has any,
 * into r->alloc beside the C2CSCAN_ALLOC section's events. */
static int collect_allocs(struct report *r)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	struct probe_spec *specs = xcalloc(r->nr_events ? r->nr_events : 1, sizeof(*specs));
	struct pending_call *pend = NULL;
	size_t nr_pend = 0, alloc_pend = 0, alloc_ev = 0;
	struct u64map calls = { 0 };
	struct pd_event ev;
	bool any = false;
	int ret = 0;

	/* the section's user allocators first: they keep their numbers */
	for (uint32_t i = 0; in->alloc && i < in->alloc->nr_names; i++)
		probe_fn(r, in->alloc->names[i], strlen(in->alloc->names[i]));
	for (size_t i = 0; i < r->nr_events; i++)
		any |= probe_parse(r, r->events[i].name, &specs[i]);
	/* without probes the section's events serve as they are */
	r->allocs = in->alloc;
	if (any) {
		if (in->alloc) {
			alloc_ev = in->alloc->nr;
			r->alloc.ev = xmalloc((alloc_ev ? alloc_ev : 1) * sizeof(*r->alloc.ev));
			memcpy(r->alloc.ev, in->alloc->ev, in->alloc->nr * sizeof(*r->alloc.ev));
			r->alloc.nr = in->alloc->nr;
		}
		r->allocs = &r->alloc;
		ret = pd_reader__rewind(r->reader);
		pd_reader__skip_samples(r->reader, false);
		while (ret >= 0 && (ret = pd_reader__next(r->reader, &ev)) > 0) {
			if (ev.kind == PD_SAMPLE && ev.attr_idx >= 0 && (size_t)ev.attr_idx < r->nr_events &&
			    specs[ev.attr_idx].p.role != PD_PROBE_NONE)
				probe_sample(r, &specs[ev.attr_idx], &ev.u.sample, &calls, &pend, &nr_pend, &alloc_pend,
					     &alloc_ev);
		}
		if (ret > 0)
			ret = 0;
	}
	u64map__exit(&calls);
	free(pend);
	free(specs);
	return ret < 0 ? ret : 0;
}

/* Pass 2 keys samples here and counts them on the relay's thread; ev is
 * the whole sample when it has a call chain or stack to unwind. */
static void count_sample(struct report *r, const struct pd_sample_core *s, const struct pd_event *ev,
			 struct relay *rl)
{
	struct report_event *e;
	struct c2c_sample *cs;

	r->nr_samples++;
	if (s->attr_idx < 0 || (size_t)s->attr_idx >= r->nr_events) {
		r->samples_unknown_attr++;
		return;
	}
	e = &r->events[s->attr_idx];
	e->samples++;
	e->period_sum += s->period;
	if (e->has_data_src && datasrc__contended(s->data_src)) {
		e->contended++;
		e->contended_period += s->period;
	}
	if (!e->has_addr) {
		r->samples_no_addr_field++;
		return;
	}
	if (e->has_data_src && datasrc__is_na(s->data_src))
		r->samples_na++;
	cs = relay__slot(rl);
	report_key_sample(r, s, e, cs);
	/* the shim's own code and memory are not the program's: left out,
	 * counted (the slot is taken again by the next sample) */
	if (r->alloc_shim && report__tool_sample(r, cs)) {
		r->samples_tool++;
		return;
	}
	if (cs->key.kind == CL_KERNEL) {
		r->samples_kernel_key++;
	} else if (cs->key.kind == CL_SHARED) {
		r->samples_shared_key++;
	} else {
		r->samples_private_key++;
		r->samples_unmapped += cs->key.unmapped;
	}
	/* samples with a call chain or stack are never of a fixed layout */
	if (e->has_stack && ev)
		report__callchains_sample(r, ev, cs);
	relay__push(rl);
}

/* Samples again (a replay, c2c__set_replay): only what c2c__add had, in
 * the same order, within what c2c wants again, and nothing of the report's
 * counts; false after the last one it wants. */
static bool replay_sample(struct report *r, const struct pd_sample_core *s, struct relay *rl)
{
	const struct report_event *e = report__sample_event(r, s->attr_idx);
	struct c2c_sample *cs;

	if (!e)
		return true;
	if (r->replayed >= r->replay_hi)
		return false;
	/* before, only their number matters (unless the shim's samples are
	 * to be told apart, by their keys) */
	if (!r->alloc_shim && r->replayed < r->replay_lo) {
		r->replayed++;
		return true;
	}
	cs = relay__slot(rl);
	report_key_sample(r, s, e, cs);
	if (r->alloc_shim && report__tool_sample(r, cs))
		return true;
	if (r->replayed++ >= r->replay_lo)
		relay__push(rl);
	return true;
}

/* The counting thread: each batch's lines and data sources found, then
 * the samples counted (reading and keying is the busier thread: the
 * lookups there made 8M samples 6% slower, 20M 18%). */
static void add_samples(void *arg, void *items, size_t nr)
{
	const struct c2c_sample *s = items;

	c2c__resolve(arg, items, nr);
	for (size_t i = 0; i < nr; i++)
		c2c__add(arg, &s[i]);
}

/* Pass 2's samples, to count or to replay: the same loop, so that a
 * replay meets the same samples in the same order. */
static inline bool feed(struct report *r, const struct pd_sample_core *s, const struct pd_event *ev,
			struct relay *rl, bool replay)
{
	if (replay)
		return replay_sample(r, s, rl);
	count_sample(r, s, ev, rl);
	return true;
}

static int each_sample(struct report *r, struct relay *rl, bool replay)
{
	enum { RUN = 64 };
	struct pd_sample_core run[RUN];
	struct pd_event ev;
	int ret;

	ret = pd_reader__rewind(r->reader);
	if (ret < 0)
		return ret;
	pd_reader__skip_samples(r->reader, false);
	for (;;) {
		/* most samples come in runs of one fixed layout */
		size_t n = pd_reader__next_fixed(r->reader, run, RUN);

		for (size_t i = 0; i < n; i++)
			if (!feed(r, &run[i], NULL, rl, replay))
				return 0;
		if (n)
			continue;
		ret = pd_reader__next(r->reader, &ev);
		if (ret <= 0)
			return 0;
		if (ev.kind != PD_SAMPLE)
			continue;
		pd_sample_core__of(&run[0], &ev);
		if (!feed(r, &run[0], &ev, rl, replay))
			return 0;
	}
}

static void replay_samples(void *arg, void *items, size_t nr)
{
	c2c__replay(arg, items, nr);
}

static bool read_ahead(void *arg)
{
	return pd_reader__fill_ahead(arg);
}

/* The relay of a pass over the samples: its thread, waiting for samples,
 * copies the file ahead of the reading (pd_reader__read_ahead). */
static struct relay *samples_relay(struct report *r, relay_fn consume, void *arg)
{
	struct relay *rl = relay__new(sizeof(struct c2c_sample), consume, arg);

	if (relay__threaded(rl)) {
		pd_reader__read_ahead(r->reader, true);
		relay__set_idle(rl, read_ahead, r->reader);
	}
	return rl;
}

/* Consumes what is left, and ends the pass's read-ahead. */
static void samples_relay_finish(struct report *r, struct relay *rl)
{
	relay__finish(rl);
	pd_reader__read_ahead(r->reader, false);
}

/* c2c's replay, read and keyed here and counted on the relay's thread as
 * pass 2 was; the reader's stats stay those of pass 2. */
static void replay(void *arg, struct c2c *c)
{
	struct report *r = arg;
	struct pd_reader_stats keep = *pd_reader__stats(r->reader);
	struct relay *rl = samples_relay(r, replay_samples, c);
	int ret;

	c2c__replay_range(c, &r->replay_lo, &r->replay_hi);
	r->replayed = 0;
	ret = each_sample(r, rl, true);
	samples_relay_finish(r, rl);
	pd_reader__set_stats(r->reader, &keep);
	if (ret < 0 || r->replayed < r->replay_hi) {
		/* the file changed since pass 2, or cannot be read again */
		r->partial = true;
		scnprintf(r->partial_reason, sizeof(r->partial_reason), "rows are short: reading the file again "
			  "for them, %s", ret < 0 ? strerror(-ret) : "it had fewer samples than the first time");
	}
}

/* Reading, decoding and keying the samples on this thread, counting them
 * (c2c__add: nothing else touches r->c2c meanwhile) on another. */
static int pass2(struct report *r)
{
	struct relay *rl = samples_relay(r, add_samples, r->c2c);
	int ret = each_sample(r, rl, false);

	samples_relay_finish(r, rl);
	if (ret < 0)
		return ret;
	/* pass 1 already recorded the stream error, at the same place */
	r->nr_records = pd_reader__stats(r->reader)->records;
	return 0;
}

/* Whether rows can wait for a view that shows their lines (c2c__set_replay):
 * not when every line is shown, or when some samples have no data source
 * (software events: the 'all' display mode shows every line). */
static bool lazy_rows(const struct report *r)
{
	if (r->opts.show_all || (r->opts.mode_set && r->opts.mode == C2C_DISPLAY_ALL))
		return false;
	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].has_addr && !r->events[i].has_data_src)
			return false;
	return true;
}

static enum c2c_display auto_mode(const struct c2c_stats *t)
{
	if (t->tot_hitm || t->st_hitm)
		return C2C_DISPLAY_TOT;
	if (t->tot_peer)
		return C2C_DISPLAY_PEER;
	if (!t->load && !t->store)
		return C2C_DISPLAY_ALL;
	if (t->access)
		return C2C_DISPLAY_ALL;
	return C2C_DISPLAY_TOT;
}

size_t report__detailed_lines(const struct report *r)
{
	size_t max = r->opts.max_lines_set ? r->opts.max_lines : r->mode == C2C_DISPLAY_ALL ? REPORT_ALL_LINES : 0;

	return max && max < r->nr_lines ? max : r->nr_lines;
}

/* The event index of record --emulate's coherence model's samples
 * (record/emurec.h), -1 when the recording has none. */
static ssize_t emulated(const struct report *r)
{
	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].samples && !strcmp(r->events[i].name, PD_EMU_EVENT_NAME))
			return (ssize_t)i;
	return -1;
}

/* What a memory sample stands for (events with a data source): any, a
 * contended one (HITM, store HITM, peer), any other; the mean of all when
 * a kind has none. */
static void periods_setup(struct report *r)
{
	uint64_t samples = 0, period = 0, csamples = 0, cperiod = 0;

	for (size_t i = 0; i < r->nr_events; i++) {
		if (!r->events[i].has_data_src)
			continue;
		samples += r->events[i].samples;
		period += r->events[i].period_sum;
		csamples += r->events[i].contended;
		cperiod += r->events[i].contended_period;
	}
	r->mean_period = samples ? (double)period / (double)samples : 0;
	r->hitm_period = csamples ? (double)cperiod / (double)csamples : r->mean_period;
	r->other_period = samples > csamples && period > cperiod ?
		(double)(period - cperiod) / (double)(samples - csamples) : r->mean_period;
}

/* An emulated recording's notice: the model's line size (the file's, as
 * record --emulate=line=N wrote it) and latencies. */
static void emu_notice_setup(struct report *r)
{
	uint32_t line = pd_reader__info(r->reader)->cacheline_size;
	ssize_t ev = emulated(r);
	const struct perf_event_attr *a;
	const struct report_event *e;
	char model[160] = "", stalls[200] = "", cycles[160] = "", rates[200] = "";
	size_t n = 0;

	if (ev < 0)
		return;
	a = &pd_reader__attr(r->reader, (size_t)ev)->attr;
	e = &r->events[ev];
	/* what a sample stands for: the sampled counts (Loads, Stores, HITM)
	 * are samples taken at two rates (periods_setup's, the emulated event
	 * being the one with a data source) */
	if (e->contended && e->samples > e->contended && e->period_sum > e->contended_period) {
		double cp = r->hitm_period, op = r->other_period;

		r->est_accesses = true;
		if (cp < 1.5)
			scnprintf(rates, sizeof(rates), "; every contended access (HITM, store HITM) is sampled, one "
				  "other in %.0f: Loads and Stores count the accesses the samples stand for", op);
		else
			scnprintf(rates, sizeof(rates), "; one contended access in %.0f is sampled (HITM, store HITM), "
				  "one other in %.0f: Loads and Stores count the accesses the samples stand for, "
				  "HITM the samples", cp, op);
	}
	/* the latencies, from the model's one table of classes */
	for (int c = 0; c < PD_EMU__NR; c++)
		if (pd_emu_label((enum pd_emu_class)c))
			n += scnprintf(cycles + n, sizeof(cycles) - n, "%s%s %u", n ? ", " : "",
				       pd_emu_label((enum pd_emu_class)c), pd_emu_latency((enum pd_emu_class)c));
	/* the model (files from before the lockstep say nothing) */
	if (a->config1 == PD_EMU_MODEL_EXACT)
		scnprintf(model, sizeof(model), ", every access as the threads ran (exact)");
	else if (a->config1)
		scnprintf(model, sizeof(model), ", threads in lockstep windows of %" PRIu64 " accesses (a line comes "
			  "to a thread at most once a window)", (uint64_t)a->config1);
	if (a->config2)
		scnprintf(stalls, sizeof(stalls), "; %" PRIu64 " time%s a thread blocked where the model could not see "
			  "and the others went on: what it shares is counted as the recording machine ran it",
			  (uint64_t)a->config2, a->config2 == 1 ? "" : "s");
	scnprintf(r->emu_notice, sizeof(r->emu_notice),
		  "emulated: a cache-coherence model over every access of a -fsanitize=thread build (record "
		  "--emulate), %u-byte lines, a core per thread%s; HITM is a load of a line another thread holds "
		  "modified; latencies are the model's (%s cycles), not measured%s%s", line ? line : 64, model, cycles,
		  rates, stalls);
}

void report__set_mode(struct report *r, enum c2c_display mode)
{
	r->mode = mode;
	r->nr_lines = c2c__sort(r->c2c, mode, r->opts.show_all, &r->lines);
	report__gain_setup(r);
}

static bool is_amd(const struct pd_info *info)
{
	return (info->cpuid && strstr(info->cpuid, "AuthenticAMD")) ||
	       (info->cpudesc && strstr(info->cpudesc, "AMD"));
}

int report__load(struct report **rp, const struct report_opts *opts, struct report_error *err)
{
	struct report_error none;
	struct pd_reader *rd;
	int ret;

	*rp = NULL;
	err = err ? err : &none;
	*err = (struct report_error){ .kind = REPORT_ERR_FILE };
	ret = pd_reader__open(&rd, opts->input, &err->file);
	if (ret < 0)
		return ret;
	return report__load_reader(rp, rd, opts, err);
}

/* The report of rd; *again when pass 1 read the file's index and pass 2
 * found it wrong (or could not check it): nothing is made then, the reader
 * is left to read again. */
static int load(struct report **rp, struct pd_reader *rd, const struct report_opts *opts, struct report_error *err,
		bool *again)
{
	struct report *r = xcalloc(1, sizeof(*r));
	const struct pd_info *info;
	int ret;

	*rp = NULL;
	r->opts = *opts;
	r->reader = rd;
	info = pd_reader__info(r->reader);
	r->maps = maps__new();
	r->names = names__new(&opts->names, info);
	ret = pass1(r);
	if (ret < 0) {
		*err = (struct report_error){ .kind = REPORT_ERR_MAPS, .errnum = -ret };
		goto fail;
	}
	/* features of a pipe stream are known only now, after pass 1 */
	maps__set_kernel_start(r->maps, kernel_start_for(info->arch));
	r->amd = is_amd(info);
	r->line_size = opts->cl_size ? opts->cl_size : info->cacheline_size ? info->cacheline_size : 64;
	r->line_size_from_file = !opts->cl_size && info->cacheline_size;
	if (r->line_size & (r->line_size - 1) || r->line_size < 8 || r->line_size > 4096) {
		*err = (struct report_error){ .kind = REPORT_ERR_LINE_SIZE, .line_size = r->line_size };
		ret = -EINVAL;
		goto fail;
	}
	if (opts->double_cl)
		r->line_size *= 2;
	r->c2c = c2c__new(r->line_size);
	/* Arm SPE reports peer transfers, never HITM: those are its contention */
	c2c__set_peer_contention(r->c2c, info->auxtrace.type == PD_AUXTRACE_ARM_SPE);
	setup_events(r);
	/* allocations are stamped with the samples' clock: without times,
	 * objects cannot be told apart */
	if (r->use_time && collect_allocs(r) == 0 && r->allocs && (r->allocs->nr || info->alloc)) {
		report__alloc_stacks(r);
		struct heap_side side = { r->forks, r->nr_forks, r->mmaps, r->nr_mmaps };

		r->heap = heap__new(r->allocs->ev, r->allocs->nr, &side);
	}
	/* the shim loaded into the program: its own samples are left out */
	r->alloc_shim = info->alloc != NULL;
	r->tool = xcalloc(1, sizeof(*r->tool));
	report__callchains_start(r);
	if (lazy_rows(r))
		c2c__set_replay(r->c2c, replay, r);
	ret = pass2(r);
	if (ret < 0) {
		*err = (struct report_error){ .kind = REPORT_ERR_REREAD, .errnum = -ret };
		goto fail;
	}
	if (pd_reader__index_unconfirmed(r->reader)) {
		r->reader = NULL;
		report__delete(r);
		*again = true;
		return 0;
	}
	report__callchains_finish(r);
	report__find_latent(r);
	periods_setup(r);
	emu_notice_setup(r);
	report__set_mode(r, opts->mode_set ? opts->mode : auto_mode(c2c__totals(r->c2c)));
	*rp = r;
	return 0;
fail:
	report__delete(r);
	return ret < 0 ? ret : -EINVAL;
}

void report__coalesce_rows(struct report *r)
{
	if (r->opts.coalesce)
		report__coalesce(r, report__detailed_lines(r));
}

int report__load_reader(struct report **rp, struct pd_reader *rd, const struct report_opts *opts,
			struct report_error *err)
{
	struct report_error none;
	bool again = false;
	int ret;

	err = err ? err : &none;
	*err = (struct report_error){ .kind = REPORT_ERR_NONE };
	ret = load(rp, rd, opts, err, &again);

	if (ret < 0 || !again)
		return ret;
	/* every record walked, as for a file without an index */
	pd_reader__drop_index(rd);
	pd_reader__rewind(rd);
	return load(rp, rd, opts, err, &again);
}

void report__delete(struct report *r)
{
	if (!r)
		return;
	report__callchains_free(r);
	report__coalesce_free(r);
	free(r->by_gain);
	free(r->latent);
	stack_tab__delete(r->alloc_stacks);
	free(r->alloc_stack_names);
	free(r->alloc_stack_at);
	strtab__delete(r->strs);
	names__delete(r->names);
	heap__delete(r->heap);
	pd_alloc__exit(&r->alloc);
	c2c__delete(r->c2c);
	maps__delete(r->maps);
	u64map__exit(&r->thread_end);
	pd_reader__delete(r->reader);
	for (size_t i = 0; i < r->nr_events; i++)
		free(r->events[i].name);
	free(r->forks);
	free(r->tool);
	free(r->mmaps);
	free(r->events);
	free(r);
}

const char *report__notice(const struct report *r)
{
	if (r->emu_notice[0])
		return r->emu_notice;
	if (!report__software_only(r))
		return NULL;
	return "software events (page faults) record where each page was first touched: they locate objects "
	       "and code, they cannot show contention (no HITM); record memory events for that (c2cscan check), "
	       "or, without a memory PMU, a -fsanitize=thread build with record --emulate";
}

const char *report__notice_brief(const struct report *r)
{
	if (r->emu_notice[0])       /* an emulated recording's, as report__notice */
		return "emulated: a coherence model over a TSan build";
	if (!report__software_only(r))
		return NULL;
	return "first touches of pages, not contention (no HITM)";
}

const char *report__empty_reason(const struct report *r, char *buf, size_t size)
{
	const struct c2c_stats *t = c2c__totals(r->c2c);
	bool any_addr = false;

	for (size_t i = 0; i < r->nr_events; i++)
		any_addr |= r->events[i].has_addr;
	if (!r->nr_samples) {
		snprintf(buf, size, "no samples in this file (%" PRIu64 " records): nothing to report", r->nr_records);
		return buf;
	}
	if (!any_addr) {
		snprintf(buf, size,
			 "no memory samples: the events in this file do not sample data addresses "
			 "(no PERF_SAMPLE_ADDR); record with 'c2cscan record' or 'perf c2c record'");
		return buf;
	}
	if (!t->load && !t->store && !t->access && r->samples_na && r->samples_na + r->samples_no_addr_field >= r->nr_samples) {
		snprintf(buf, size,
			 "no memory samples: all %" PRIu64 " samples have data source N/A "
			 "(not memory operations, e.g. a cycles event)", r->nr_samples);
		return buf;
	}
	return NULL;
}

