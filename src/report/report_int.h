/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct report's fields, for src/report/ only (report.c fills them; stdio,
 * json and columns read them). Other stages use the accessors of report.h.
 */
#ifndef C2CSCAN_REPORT_INT_H
#define C2CSCAN_REPORT_INT_H

#include "perfdata/alloc.h"
#include "report/report.h"
#include "util/htab.h"

struct report {
	struct report_opts opts;
	struct pd_reader *reader;
	struct maps *maps;
	struct c2c *c2c;
	struct heap *heap;          /* record --alloc's objects, or NULL */
	struct latent *latent;      /* latent false sharing (latent.c) */
	size_t nr_latent, alloc_latent;
	struct heap_fork *forks;    /* processes forked (pass 1), for heap__new */
	size_t nr_forks, alloc_forks;
	struct heap_mmap *mmaps;    /* mappings made (pass 1), for heap__new */
	size_t nr_mmaps, alloc_mmaps;
	struct names *names;        /* asked lazily by the renderers (names.h) */
	uint32_t line_size;         /* the keying granularity (2L with --double-cl) */
	bool line_size_from_file;
	char emu_notice[1024];           /* report__notice of an emulated recording */
	bool est_accesses;          /* an emulated recording sampled at two rates: its counts
				     * estimate accesses (report__est) */
	enum c2c_display mode;      /* effective display mode */
	bool use_time;              /* resolution by timestamp (else file order) */
	bool amd;                   /* recorded on AMD: HITM naming differs */
	struct report_event *events;
	struct pd_alloc alloc;      /* with allocator probes: the C2CSCAN_ALLOC section's events and
				   * the probes' together; the user allocators' names always; owned */
	const struct pd_alloc *allocs; /* the recording's allocation events: &alloc, or the
				   * reader's section when there are no probes (not copied) */
	uint64_t probe_samples, probe_unpaired;
	size_t nr_events;
	uint64_t nr_records, nr_samples, nr_side_band;
	uint64_t samples_no_addr_field; /* samples of events without PERF_SAMPLE_ADDR */
	uint64_t samples_na;        /* data_src says nothing (N/A): not memory ops */
	uint64_t samples_unknown_attr;
	uint64_t samples_tool;      /* in c2cscan's allocation shim's code or memory: left out */
	bool alloc_shim;            /* the recording has its allocation events (record --alloc) */
	uint64_t replayed;          /* samples a replay of c2c's met that c2c__add had */
	uint64_t replay_lo, replay_hi;  /* the ones it wants (c2c__replay_range) */
	struct tool_names {         /* tool_object's cache: the last two names */
		const char *name[2];
		bool tool[2];
		int next;
	} *tool;
	uint64_t samples_kernel_key, samples_shared_key, samples_private_key, samples_unmapped;
	uint64_t lost, lost_samples, throttles;
	bool partial;               /* the stream stopped on an error */
	char partial_reason[256];
	const struct c2c_line *const *lines; /* sorted view for mode/show_all */
	size_t nr_lines;
	struct report_cg *cg;       /* callers of the view's rows (callchain.c), or NULL */
	struct stack_tab *alloc_stacks; /* allocation stacks (record --alloc -g): id + 1 in a heap
				   * object's stack; NULL without */
	const char **alloc_stack_names; /* their frames' names: stack i's are [at[i], at[i + 1]) */
	size_t *alloc_stack_at, alloc_stack_alloc;
	uint64_t alloc_wrapped;     /* wrapper frames skipped to find sites */
	uint64_t alloc_stray_frames; /* FRAMES events after no allocation */
	struct strtab *strs;        /* names of stack frames (report__strs) */
	/* the gain model (verdict.c), fixed per view by report__set_mode */
	double mean_period;         /* events a memory sample stands for */
	double hitm_period;         /* ... a contended one (HITM, store HITM, peer) */
	double other_period;        /* ... any other one (periods_setup, at load) */
	double base_latency;        /* mean latency of the recording's loads that were not HITM */
	double total_cycles;        /* all sampled load latency, each kind times its period */
	const struct c2c_line **by_gain; /* --sort gain: the view, re-ordered (owned) */
	struct report_co *co;       /* -c: the detailed lines regrouped (coalesce.c), or NULL */
	struct u64map thread_end;   /* tid -> the time of its EXIT (pass 1): the verdict's reads
				   * after a join */
};

void report__gain_setup(struct report *r);

/* coalesce.c: -c for --stdio. The first nr_lines lines of the view with
 * rows per opts.coalesce (one pass over the file); their model's line of
 * l's key; a row of it as printed (its code address, object and map, and
 * the pid and tid that identify it). */
int report__coalesce(struct report *r, size_t nr_lines);
void report__coalesce_free(struct report *r);
const struct c2c_line *report__coalesced_line(const struct report *r, const struct c2c_line *l);
bool report__coalesced_row(const struct report *r, const struct c2c_row *row, struct c2c_row *shown,
			   uint32_t *pid, uint32_t *tid, const char **dso);
void report__sort_gain(struct report *r);

/* every accessed line (-d all) can be hundreds of thousands: --stdio
 * details the first REPORT_ALL_LINES unless --lines says otherwise */
#define REPORT_ALL_LINES 50
size_t report__detailed_lines(const struct report *r);

struct c2c_sample;
struct pd_event;
/* Keys sample ev of event e into cs as pass 2 counts it (report.c). */
/* A sample in c2cscan's own allocation shim (its code or memory). */
bool report__tool_sample(const struct report *r, const struct c2c_sample *cs);
void report__key_sample(const struct report *r, const struct pd_event *ev, const struct report_event *e,
			struct c2c_sample *cs);
/* Every memory sample from the reader's position on (rewind first), keyed
 * as pass 2 keyed it, to fn (the allocation shim's own left out): 0 at
 * the end, or the stream's error (fn saw what was read before it). */
int report__rekey(struct report *r, void (*fn)(void *arg, struct c2c_sample *cs), void *arg);
/* The event of a sample, if it has data addresses; else NULL. */
const struct report_event *report__sample_event(const struct report *r, int attr_idx);
/* callchain.c: callers per row identity (with call graphs on and stacks in
 * the file; else nothing): start before pass 2, each keyed sample of an
 * event with stacks, finish after pass 2 (names the stacks); and the end. */
void report__callchains_start(struct report *r);
void report__callchains_sample(struct report *r, const struct pd_event *ev, const struct c2c_sample *cs);
void report__callchains_finish(struct report *r);
void report__callchains_free(struct report *r);

/* allocstack.c: allocation sites past their wrappers, allocation stacks
 * kept, PD_ALLOC_FRAMES events out of r->allocs. Before heap__new. */
void report__alloc_stacks(struct report *r);

/* Stacks interned by (pid, addresses), with the time of the first (callchain.c). */
struct stack_tab;
struct stack_tab *stack_tab__new(void);
void stack_tab__delete(struct stack_tab *t);
uint32_t stack_tab__intern(struct stack_tab *t, uint32_t pid, uint64_t time, const uint64_t *ips, uint32_t nr);
size_t stack_tab__nr(const struct stack_tab *t);
/* The names of stack id's frames, innermost first, at most max (an inlined
 * call adds a frame); ret: all are return addresses. Interned in
 * report__strs. */
uint32_t stack_tab__names(struct report *r, const struct stack_tab *t, uint32_t id, bool ret, const char **out,
			  uint32_t max);
struct strtab *report__strs(struct report *r);

/* model.c: the tag of a sample s in the range of the freed object o (the
 * object it is being made into, the allocator's bookkeeping, or o: a use
 * after free); imap the code's mapping, t the sample's time. */
uint32_t report__freed_tag(const struct report *r, const struct pd_sample_core *s, const struct map_desc *imap,
			   uint64_t t, const struct heap_obj *o);

static inline int32_t report_cpu_node(const struct pd_info *info, uint32_t cpu)
{
	if (info->cpu_node && cpu < info->nr_cpu_node)
		return info->cpu_node[cpu];
	return -1;
}

/* Keys sample s of event e and fills cs: what pass 2 counts, and what a
 * re-reading for another grouping of rows counts again. */
static inline void report_key_sample(const struct report *r, const struct pd_sample_core *s, const struct report_event *e,
			      struct c2c_sample *cs)
{
	const struct map_desc *dmap, *imap;
	uint64_t t = r->use_time ? s->time : s->seq;

	/* every field is set below: no clearing first */
	dmap = maps__key(r->maps, s->pid, s->addr, t, s->cpumode, r->line_size, &cs->key);
	if (cs->key.kind == CL_KERNEL && !dmap)
		dmap = maps__find(r->maps, KERNEL_PID, s->addr, t);
	imap = maps__find(r->maps, s->cpumode == PERF_RECORD_MISC_KERNEL ? KERNEL_PID : s->pid, s->ip, t);
	if (!imap && s->cpumode != PERF_RECORD_MISC_KERNEL)
		imap = maps__find(r->maps, KERNEL_PID, s->ip, t);

	cs->data_src = e->has_data_src ? s->data_src : 0;
	cs->no_datasrc = !e->has_data_src;
	cs->addr = s->addr;
	cs->ip = s->ip;
	cs->weight = e->has_weight ? s->weight : 0;
	cs->pid = s->pid;
	cs->tid = s->tid;
	cs->cpu = s->cpu;
	cs->node = report_cpu_node(pd_reader__info(r->reader), s->cpu);
	cs->cpumode = s->cpumode;
	/* kernel memory has no mmap records beyond the text and modules (the
	 * direct map, vmalloc): a kernel data address is mapped by definition */
	cs->mapped = (dmap || cs->key.kind == CL_KERNEL) && imap;
	cs->object = dmap ? dmap->name : NULL;
	cs->code_object = imap ? imap->name : NULL;
	cs->time = t;
	cs->data_map = dmap;
	cs->code_map = imap;
	cs->tag = 0;
	cs->resolved = false;
	/* hashed here, beside the keying, not on the counting thread */
	cs->key_hash = (uint32_t)cl_key__hash(&cs->key);
	if (r->heap && cs->key.kind != CL_KERNEL) {
		/* rows keep apart the objects an address held over time */
		const struct heap_obj *o = heap__find(r->heap, s->pid, s->addr, t);

		cs->tag = !o ? 0 : o->freed ? report__freed_tag(r, s, imap, t, o) : o->key;
	}
}

#endif
