// SPDX-License-Identifier: GPL-2.0
/*
 * Records in perf's layout (writer.h's pd_fmt_*): a sample with every
 * field its attr's sample_type asks, the side-band records (MMAP2, COMM,
 * FORK/EXIT, LOST, LOST_SAMPLES, THROTTLE) with the sample_id trailer
 * their attr's sample_id_all asks, FINISHED_ROUND. Each formats into a
 * caller's buffer and returns the record's size (or the size needed).
 * record, synth, emurec and the test tools build their records here.
 */
#include <errno.h>
#include <string.h>
#include "perfdata/writer.h"
#include "util/util.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* Output cursor: counts past the end so the caller learns the needed size. */
struct cur {
	uint8_t *p;
	size_t len, cap;
};

static void c_put(struct cur *c, const void *src, size_t n)
{
	if (n && c->len <= c->cap && n <= c->cap - c->len)
		memcpy(c->p + c->len, src, n);
	c->len += n;
}

static void c_zero(struct cur *c, size_t n)
{
	if (c->len <= c->cap && n <= c->cap - c->len)
		memset(c->p + c->len, 0, n);
	c->len += n;
}

static void c_u64(struct cur *c, uint64_t v)
{
	c_put(c, &v, sizeof(v));
}

static void c_u32x2(struct cur *c, uint32_t a, uint32_t b)
{
	c_put(c, &a, sizeof(a));
	c_put(c, &b, sizeof(b));
}

/* Kernel layout for names: NUL-terminated, padded with NULs to 8 bytes. */
static void c_name(struct cur *c, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	c_put(c, s ? s : "", n);
	c_zero(c, ((n + 8) & ~(size_t)7) - n);
}

static void c_begin(struct cur *c, void *buf, size_t bufsz)
{
	c->p = buf;
	c->cap = bufsz;
	c->len = 0;
	c_zero(c, sizeof(struct perf_event_header));
}

static ssize_t c_end(struct cur *c, uint32_t type, uint16_t misc)
{
	struct perf_event_header h;

	if (c->len > UINT16_MAX)
		return -E2BIG;
	if (c->len > c->cap)
		return -ENOSPC;
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)c->len;
	memcpy(c->p, &h, sizeof(h));
	return (ssize_t)c->len;
}

/* perf_event.h: struct sample_id, fields in this order when sample_id_all */
static void c_sample_id(struct cur *c, const struct perf_event_attr *attr,
			const struct pd_sample_id *sid)
{
	static const struct pd_sample_id zero;
	uint64_t st;

	if (!attr || !attr->sample_id_all)
		return;
	if (!sid)
		sid = &zero;
	st = attr->sample_type;
	if (st & PERF_SAMPLE_TID)
		c_u32x2(c, sid->pid, sid->tid);
	if (st & PERF_SAMPLE_TIME)
		c_u64(c, sid->time);
	if (st & PERF_SAMPLE_ID)
		c_u64(c, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		c_u64(c, sid->stream_id);
	if (st & PERF_SAMPLE_CPU)
		c_u32x2(c, sid->cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		c_u64(c, sid->id);
}

size_t pd_sample_id_size(const struct perf_event_attr *attr)
{
	struct cur c = { NULL, 0, 0 };

	c_sample_id(&c, attr, NULL);
	return c.len;
}

#define PD_SAMPLE_KNOWN                                                                        \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |              \
	 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW |                        \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |          \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |                  \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |             \
	 PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |                   \
	 PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_WEIGHT_STRUCT)

/* READ: values we do not have are written as zeros; ids are the sample's. */
static void c_read(struct cur *c, uint64_t rf, const struct pd_sample *s)
{
	bool group = rf & PERF_FORMAT_GROUP;

	if (group)
		c_u64(c, 1);            /* nr */
	else
		c_u64(c, s->period);    /* value */
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		c_u64(c, 0);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		c_u64(c, 0);
	if (group)
		c_u64(c, s->period);
	if (rf & PERF_FORMAT_ID)
		c_u64(c, s->id);
	if (rf & PERF_FORMAT_LOST)
		c_u64(c, 0);
}

ssize_t pd_fmt_sample(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		      uint16_t misc, const struct pd_sample *s)
{
	uint64_t st = attr->sample_type;
	struct cur c;

	if (st & ~(uint64_t)PD_SAMPLE_KNOWN)
		return -EOPNOTSUPP;
	if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CALLCHAIN) && s->callchain_nr && !s->callchain)
		return -EINVAL;
	if ((st & PERF_SAMPLE_RAW) && s->raw_size && !s->raw)
		return -EINVAL;
	c_begin(&c, buf, bufsz);
	if (st & PERF_SAMPLE_IDENTIFIER)
		c_u64(&c, s->id);
	if (st & PERF_SAMPLE_IP)
		c_u64(&c, s->ip);
	if (st & PERF_SAMPLE_TID)
		c_u32x2(&c, s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		c_u64(&c, s->time);
	if (st & PERF_SAMPLE_ADDR)
		c_u64(&c, s->addr);
	if (st & PERF_SAMPLE_ID)
		c_u64(&c, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		c_u64(&c, s->stream_id);
	if (st & PERF_SAMPLE_CPU)
		c_u32x2(&c, s->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		c_u64(&c, s->period);
	if (st & PERF_SAMPLE_READ)
		c_read(&c, attr->read_format, s);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (s->callchain_nr > UINT16_MAX)
			return -E2BIG;
		c_u64(&c, s->callchain_nr);
		c_put(&c, s->callchain, s->callchain_nr * sizeof(uint64_t));
	}
	if (st & PERF_SAMPLE_RAW) {
		/* the kernel pads raw data so that u32 size + data ends 8-aligned,
		 * and the size it reports includes the padding */
		uint32_t sz;

		if (s->raw_size > UINT16_MAX)
			return -E2BIG;
		sz = ((s->raw_size + 4 + 7) & ~7u) - 4;
		c_put(&c, &sz, sizeof(sz));
		c_put(&c, s->raw, s->raw_size);
		c_zero(&c, sz - s->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		c_u64(&c, 0);           /* nr */
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			c_u64(&c, 0);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (s->regs_abi && s->nr_regs == __builtin_popcountll(attr->sample_regs_user)) {
			c_u64(&c, s->regs_abi);
			for (unsigned int i = 0; i < s->nr_regs; i++)
				c_u64(&c, s->regs[i]);
		} else {
			c_u64(&c, PERF_SAMPLE_REGS_ABI_NONE);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		/* the kernel copies sample_stack_user bytes, or none */
		if (s->stack_size && s->stack) {
			c_u64(&c, s->stack_size);
			c_put(&c, s->stack, s->stack_size);
			c_u64(&c, s->stack_dyn_size);
		} else {
			c_u64(&c, 0);   /* size 0: no data, no dyn_size */
		}
	}
	if (st & PERF_SAMPLE_WEIGHT)
		c_u64(&c, s->weight);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT)
		c_u64(&c, (s->weight & 0xffffffffULL) | (uint64_t)s->ins_lat << 32 |
			  (uint64_t)s->weight3 << 48);
	if (st & PERF_SAMPLE_DATA_SRC)
		c_u64(&c, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		c_u64(&c, s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		c_u64(&c, PERF_SAMPLE_REGS_ABI_NONE);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		c_u64(&c, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		c_u64(&c, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		c_u64(&c, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		c_u64(&c, s->code_page_size);
	if (st & PERF_SAMPLE_AUX)
		c_u64(&c, 0);           /* no aux data */
	return c_end(&c, PERF_RECORD_SAMPLE, misc);
}

ssize_t pd_fmt_mmap(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    uint16_t misc, const struct pd_mmap *m, const struct pd_sample_id *sid)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u32x2(&c, m->pid, m->tid);
	c_u64(&c, m->start);
	c_u64(&c, m->len);
	c_u64(&c, m->pgoff);
	if (m->data)
		misc |= PERF_RECORD_MISC_MMAP_DATA;
	if (m->v2) {
		if (m->build_id_form) {
			uint8_t id[24] = { 0 };

			if (m->build_id_size > sizeof(m->build_id))
				return -EINVAL;
			id[0] = m->build_id_size;
			memcpy(id + 4, m->build_id, m->build_id_size);
			c_put(&c, id, sizeof(id));
			misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		} else {
			c_u32x2(&c, m->maj, m->min);
			c_u64(&c, m->ino);
			c_u64(&c, m->ino_generation);
			misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
		}
		c_u32x2(&c, m->prot, m->flags);
	}
	c_name(&c, m->filename);
	c_sample_id(&c, attr, sid);
	return c_end(&c, m->v2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP, misc);
}

ssize_t pd_fmt_comm(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    const struct pd_comm *cm, const struct pd_sample_id *sid)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u32x2(&c, cm->pid, cm->tid);
	c_name(&c, cm->comm);
	c_sample_id(&c, attr, sid);
	return c_end(&c, PERF_RECORD_COMM, cm->exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
}

ssize_t pd_fmt_fork(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint32_t type,
		    const struct pd_fork *f, const struct pd_sample_id *sid)
{
	struct cur c;

	if (type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT)
		return -EINVAL;
	c_begin(&c, buf, bufsz);
	c_u32x2(&c, f->pid, f->ppid);
	c_u32x2(&c, f->tid, f->ptid);
	c_u64(&c, f->time);
	c_sample_id(&c, attr, sid);
	return c_end(&c, type, 0);
}

ssize_t pd_fmt_lost(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    const struct pd_lost *l, const struct pd_sample_id *sid)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u64(&c, l->id);
	c_u64(&c, l->lost);
	c_sample_id(&c, attr, sid);
	return c_end(&c, PERF_RECORD_LOST, 0);
}

ssize_t pd_fmt_lost_samples(void *buf, size_t bufsz, const struct perf_event_attr *attr,
			    const struct pd_lost *l, const struct pd_sample_id *sid)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u64(&c, l->lost);
	c_sample_id(&c, attr, sid);
	return c_end(&c, PERF_RECORD_LOST_SAMPLES, 0);
}

ssize_t pd_fmt_throttle(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint32_t type,
			const struct pd_throttle *t, const struct pd_sample_id *sid)
{
	struct cur c;

	if (type != PERF_RECORD_THROTTLE && type != PERF_RECORD_UNTHROTTLE)
		return -EINVAL;
	c_begin(&c, buf, bufsz);
	c_u64(&c, t->time);
	c_u64(&c, t->id);
	c_u64(&c, t->stream_id);
	c_sample_id(&c, attr, sid);
	return c_end(&c, type, 0);
}

ssize_t pd_fmt_finished_round(void *buf, size_t bufsz)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	return c_end(&c, PD_REC_FINISHED_ROUND, 0);
}

ssize_t pd_fmt_aux(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint64_t offset, uint64_t size,
		   uint64_t flags, const struct pd_sample_id *sid)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u64(&c, offset);
	c_u64(&c, size);
	c_u64(&c, flags);
	c_sample_id(&c, attr, sid);
	return c_end(&c, PERF_RECORD_AUX, 0);
}

ssize_t pd_fmt_auxtrace(void *buf, size_t bufsz, uint64_t size, uint64_t offset, uint32_t idx, uint32_t tid,
			uint32_t cpu)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u64(&c, size);
	c_u64(&c, offset);
	c_u64(&c, 0);           /* reference */
	c_u32x2(&c, idx, tid);
	c_u32x2(&c, cpu, 0);
	return c_end(&c, PD_REC_AUXTRACE, 0);
}

ssize_t pd_fmt_auxtrace_info_spe(void *buf, size_t bufsz, uint32_t pmu_type, bool per_cpu)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u32x2(&c, PD_AUXTRACE_ARM_SPE, 0);
	c_u64(&c, pmu_type);
	c_u64(&c, per_cpu);
	return c_end(&c, PD_REC_AUXTRACE_INFO, 0);
}

ssize_t pd_fmt_time_conv(void *buf, size_t bufsz, const struct pd_time_conv *tc)
{
	struct cur c;

	c_begin(&c, buf, bufsz);
	c_u64(&c, tc->shift);
	c_u64(&c, tc->mult);
	c_u64(&c, tc->zero);
	c_u64(&c, tc->cycles);
	c_u64(&c, tc->mask);
	c_u64(&c, (uint64_t)tc->cap_zero | (uint64_t)tc->cap_short << 8);
	return c_end(&c, PD_REC_TIME_CONV, 0);
}
