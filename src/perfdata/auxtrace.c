// SPDX-License-Identifier: GPL-2.0
/*
 * AUX traces in the stream (reader.c): PERF_RECORD_AUXTRACE_INFO says what
 * they are, each PERF_RECORD_AUXTRACE carries a buffer of one queue (a CPU
 * or a thread) after its header, PERF_RECORD_AUX says what the kernel lost,
 * PERF_RECORD_TIME_CONV how its timestamps become the recording's clock.
 * Arm SPE buffers are decoded here (spe.c) into memory samples of an attr
 * of their own, named "memory" as perf names the samples it synthesizes
 * from them: each load or store record one PD_SAMPLE with its instruction,
 * data address, physical address, latency (the weight), data_src, CPU,
 * time, and thread (the record's context packet, else the buffer's
 * thread), its process from the COMM, FORK and MMAP records read so far.
 * Samples come one per call of the reader, the buffer's decoding kept
 * between calls; a pass that skips samples skips the buffers whole.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/reader_int.h"
#include "perfdata/spe.h"
#include "util/util.h"

#define AUX_INFO_HEAD 16        /* header, type, reserved */
#define AUXTRACE_HEAD 48        /* header, size, offset, reference, idx, tid, cpu, reserved */
#define SPE_V2_CPU_WORDS 6      /* magic, cpu, nr params, midr, pmu type, min interval */
#define SPE_QUEUES_MAX 65536

struct aux_queue {
	uint32_t idx;
	uint64_t last_ts;               /* the last record's timestamp: for one without */
	struct pd_spe_decoder dec;
};

/* What ran on a CPU from when: its context switch records, in time order. */
struct cpu_run {
	uint64_t time;
	uint32_t pid, tid;
};

struct cpu_runs {
	struct cpu_run *v;
	size_t nr, alloc;
};

struct aux_state {
	bool spe;
	int attr_idx;                   /* the synthesized "memory" attr, -1 none yet */
	bool neoverse;
	struct aux_queue *queues;
	size_t nr_queues, alloc_queues;
	struct u64map qidx;             /* a queue's idx -> its index in queues */
	/* the buffer being decoded */
	const uint8_t *buf;
	size_t len, pos;
	struct aux_queue *q;
	uint32_t tid, cpu;
	struct u64map tidpid;           /* tid -> pid: kept across passes */
	struct cpu_runs *runs;          /* per CPU, kept across passes */
	size_t nr_runs;
};

static struct aux_state *state(struct pd_reader *r)
{
	if (!r->aux) {
		r->aux = xcalloc(1, sizeof(*r->aux));
		r->aux->attr_idx = -1;
	}
	return r->aux;
}

void reader_aux_free(struct pd_reader *r)
{
	if (!r->aux)
		return;
	free(r->aux->queues);
	u64map__exit(&r->aux->qidx);
	u64map__exit(&r->aux->tidpid);
	for (size_t i = 0; i < r->aux->nr_runs; i++)
		free(r->aux->runs[i].v);
	free(r->aux->runs);
	free(r->aux);
	r->aux = NULL;
}

/* A queue as at the start of a pass: no record begun, no time yet. */
static void queue_start(struct aux_queue *q)
{
	pd_spe_decoder__init(&q->dec);
	q->last_ts = 0;
}

void reader_aux_rewind(struct pd_reader *r)
{
	if (!r->aux)
		return;
	r->aux->len = r->aux->pos = 0;
	r->aux->buf = NULL;
	for (size_t i = 0; i < r->aux->nr_queues; i++)
		queue_start(&r->aux->queues[i]);
}

/* The side-band is kept for AUX traces only (a system-wide recording has
 * many threads and switches); a later pass knows of the traces when their
 * AUXTRACE_INFO came after some of it. */
void reader_aux_note_thread(struct pd_reader *r, uint32_t pid, uint32_t tid)
{
	if (pid != UINT32_MAX && tid != UINT32_MAX && r->info.auxtrace.type == PD_AUXTRACE_ARM_SPE)
		u64map__put(&state(r)->tidpid, tid, pid);
}

#define CPUS_MAX 65536

void reader_aux_note_switch(struct pd_reader *r, uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid)
{
	struct aux_state *a;
	struct cpu_runs *c;

	if (cpu >= CPUS_MAX || tid == UINT32_MAX || r->info.auxtrace.type != PD_AUXTRACE_ARM_SPE)
		return;
	a = state(r);
	if (cpu >= a->nr_runs) {
		size_t n = cpu + 1;

		a->runs = xrealloc(a->runs, n, sizeof(*a->runs));
		memset(a->runs + a->nr_runs, 0, (n - a->nr_runs) * sizeof(*a->runs));
		a->nr_runs = n;
	}
	c = &a->runs[cpu];
	/* a CPU's records come in time order; a second pass sees them again */
	if (c->nr && time <= c->v[c->nr - 1].time)
		return;
	xgrow((void **)&c->v, &c->alloc, c->nr + 1, sizeof(*c->v));
	c->v[c->nr++] = (struct cpu_run){ time, pid, tid };
}

/* What ran on cpu at time (the last switch at or before it), or NULL. */
static const struct cpu_run *run_at(const struct aux_state *a, uint32_t cpu, uint64_t time)
{
	const struct cpu_runs *c = cpu < a->nr_runs ? &a->runs[cpu] : NULL;
	size_t lo = 0, hi = c ? c->nr : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->v[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &c->v[lo - 1] : NULL;
}

/* The attr of the samples the traces make: perf's synthesized one. */
static void add_memory_attr(struct pd_reader *r, struct aux_state *a)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT |
			       PERF_SAMPLE_PHYS_ADDR,
		.sample_period = 1, .sample_id_all = 1,
	};
	struct rattr *ra;

	if (a->attr_idx >= 0 || r->nr_attrs >= PD_MAX_ATTRS)
		return;
	/* a pipe's stream may bring its first attr later: it makes the layout */
	if (!r->nr_attrs)
		return;
	a->attr_idx = (int)r->nr_attrs;
	ra = reader_add_attr(r, (const uint8_t *)&attr, sizeof(attr), NULL, 0, sizeof(attr));
	reader_set_name(ra, "memory", NAME_DESC);
}

bool reader_aux_info(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	struct pd_auxtrace_info *in = &r->info.auxtrace;
	uint64_t nr, cpus;

	if (size < AUX_INFO_HEAD + 16)
		return false;
	if (in->type)
		return true;    /* the second pass, or a second record: the first counts */
	in->type = ld32(rec + 8);
	if (in->type != PD_AUXTRACE_ARM_SPE)
		return true;
	nr = (size - AUX_INFO_HEAD) / 8;
	/* perf < 6.10: PMU type, per-CPU mmaps; since: header version and
	 * size, PMU type, CPUs, then each CPU's metadata */
	if (nr == 2) {
		in->version = 1;
		in->pmu_type = (uint32_t)ld64(rec + AUX_INFO_HEAD);
		in->per_cpu = ld64(rec + AUX_INFO_HEAD + 8) != 0;
	} else if (nr >= 4) {
		uint64_t hsize = ld64(rec + AUX_INFO_HEAD + 8);

		in->version = 2;
		in->pmu_type = (uint32_t)ld64(rec + AUX_INFO_HEAD + 16);
		cpus = ld64(rec + AUX_INFO_HEAD + 24);
		in->per_cpu = cpus > 0;
		if (hsize >= 4 && hsize < nr && nr - hsize >= SPE_V2_CPU_WORDS && cpus)
			in->midr = ld64(rec + AUX_INFO_HEAD + 8 * (hsize + 3));
	} else {
		return false;
	}
	state(r)->spe = true;
	add_memory_attr(r, r->aux);
	return true;
}

bool reader_time_conv(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	struct pd_time_conv *tc = &r->info.time_conv;

	if (size < 32)
		return false;
	tc->present = true;
	tc->shift = ld64(rec + 8);
	tc->mult = ld64(rec + 16);
	tc->zero = ld64(rec + 24);
	if (size >= 56) {
		tc->cycles = ld64(rec + 32);
		tc->mask = ld64(rec + 40);
		tc->cap_zero = rec[48];
		tc->cap_short = rec[49];
	}
	return true;
}

void reader_aux_record(struct pd_reader *r, uint64_t flags)
{
	r->stats.aux_truncated += !!(flags & 0x01);
	r->stats.aux_partial += !!(flags & 0x04);
	r->stats.aux_collision += !!(flags & 0x08);
}

static struct aux_queue *queue_of(struct aux_state *a, uint32_t idx)
{
	uint64_t i;

	if (u64map__get(&a->qidx, idx, &i))
		return &a->queues[i];
	if (a->nr_queues >= SPE_QUEUES_MAX)
		return NULL;
	xgrow((void **)&a->queues, &a->alloc_queues, a->nr_queues + 1, sizeof(*a->queues));
	a->queues[a->nr_queues].idx = idx;
	queue_start(&a->queues[a->nr_queues]);
	u64map__put(&a->qidx, idx, a->nr_queues);
	return &a->queues[a->nr_queues++];
}

void reader_aux_buffer(struct pd_reader *r, const uint8_t *rec, const uint8_t *data, uint64_t len)
{
	struct aux_state *a = state(r);

	r->stats.aux_buffers++;
	r->stats.aux_bytes += len;
	if (!a->spe) {
		r->stats.aux_unknown++;
		return;
	}
	if (r->skip_samples || a->attr_idx < 0)
		return;
	/* the cores, from the CPUID feature (in a pipe, it may come after
	 * AUXTRACE_INFO) unless the info said */
	if (!r->info.auxtrace.midr && r->info.cpuid)
		r->info.auxtrace.midr = strtoull(r->info.cpuid, NULL, 16);
	a->neoverse = pd_spe_neoverse(r->info.auxtrace.midr);
	a->q = queue_of(a, ld32(rec + 32));
	if (!a->q)
		return;
	a->buf = data;
	a->len = (size_t)len;
	a->pos = 0;
	a->tid = ld32(rec + 36);
	a->cpu = ld32(rec + 40);
}

bool reader_aux_pending(const struct pd_reader *r)
{
	return r->aux && r->aux->pos < r->aux->len;
}

/* The record's thread and process: its context packet's tid, else the
 * buffer's (per-thread queues), else what the CPU's context switches say
 * ran at the record's time (per-CPU queues of a kernel that does not put
 * the pid in CONTEXTIDR: perf c2c records switch events for them); the
 * process the side-band said, else the thread taken for its own process
 * (-1, as perf prints it, would be the kernel's here); nothing known: 0,
 * whose memory no mapping covers. */
static void thread_of(struct aux_state *a, const struct pd_spe_record *rec, uint64_t time, struct pd_sample *s)
{
	const struct cpu_run *run;
	uint64_t pid;

	s->tid = rec->context != UINT64_MAX ? (uint32_t)rec->context : a->tid;
	if (s->tid == UINT32_MAX && (run = run_at(a, a->cpu, time))) {
		s->tid = run->tid;
		s->pid = run->pid;
		return;
	}
	if (s->tid == UINT32_MAX)
		s->tid = 0;
	s->pid = u64map__get(&a->tidpid, s->tid, &pid) ? (uint32_t)pid : s->tid;
}

int reader_aux_next(struct pd_reader *r, struct pd_event *ev)
{
	struct aux_state *a = r->aux;
	struct pd_spe_stats st = { 0 };
	struct pd_spe_record rec;
	int got = 0;

	while (!got && a->pos < a->len && pd_spe_decoder__next(&a->q->dec, a->buf, a->len, &a->pos, &rec, &st)) {
		uint64_t src = pd_spe_data_src(&rec, a->neoverse);
		struct pd_sample *s = &ev->u.sample;

		if (!src)
			continue;
		zero_mem(ev, sizeof(*ev));
		ev->kind = PD_SAMPLE;
		ev->type = PERF_RECORD_SAMPLE;
		ev->seq = r->seq;
		ev->attr_idx = a->attr_idx;
		/* kernel addresses have their top bits set on arm64 */
		ev->cpumode = rec.ip >= 0xffff000000000000ULL ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		ev->misc = ev->cpumode;
		ev->has_sid = true;
		s->ip = rec.ip;
		/* a record without a timestamp (ended by an end packet, or cut)
		 * happened after the queue's last one: its time places it among
		 * the mappings (perf prints 0) */
		if (rec.timestamp)
			a->q->last_ts = rec.timestamp;
		s->time = pd_time_conv__perf_time(&r->info.time_conv, a->q->last_ts);
		thread_of(a, &rec, s->time, s);
		s->addr = rec.vaddr;
		s->phys_addr = rec.paddr;
		s->cpu = a->cpu;
		s->period = 1;
		s->weight = rec.latency;
		s->data_src = src;
		ev->sid = (struct pd_sample_id){ .pid = s->pid, .tid = s->tid, .time = s->time, .cpu = s->cpu };
		r->stats.spe_samples++;
		r->stats.records++;
		r->stats.by_kind[PD_SAMPLE]++;
		got = 1;
	}
	r->stats.spe_records += st.records;
	r->stats.spe_cut += st.cut;
	r->stats.spe_bad_bytes += st.bad;
	if (a->pos >= a->len)
		a->len = a->pos = 0;
	return got;
}
