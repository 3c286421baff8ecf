// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the maps timeline on its own. The input is read as a
 * program of side-band events (MMAP/MMAP2 in every form, COMM, FORK, EXIT)
 * over a small set of pids, addresses near each other and a few names that
 * the keying rule treats specially, then lookups after maps__finalize().
 * Going through the reader would spend most inputs on framing; this reaches
 * overlapping mappings, fork loops and reuse of pids directly.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

struct cur {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct cur *c, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n && c->left; i++, c->p++, c->left--)
		v |= (uint64_t)*c->p << (8 * i);
	return v;
}

static const char *const names[] = {
	"", "//anon", "[heap]", "[stack]", "[vdso]", "/dev/shm/seg", "/SYSV00000000 (deleted)",
	"/dev/zero (deleted)", "/anon_hugepage (deleted)", "/memfd:buf (deleted)", "/usr/lib/libc.so.6",
	"/tmp/a.out", "[kernel.kallsyms]_text", "/usr/lib/libc.so.6 (deleted)", "anon_inode:[perf_event]",
	"/dev/shm/seg (deleted)",
};

static uint32_t pick_pid(struct cur *c)
{
	uint8_t b = (uint8_t)take(c, 1);

	if (b == 0xff)
		return UINT32_MAX;
	return b & 15;
}

/* Mostly small page-aligned addresses that overlap; sometimes any value. */
static uint64_t pick_addr(struct cur *c)
{
	uint8_t sel = (uint8_t)take(c, 1);

	if (sel & 0x80)
		return take(c, 8);
	return 0x10000 + (uint64_t)(sel & 0x3f) * 0x1000 + (sel & 0x40 ? take(c, 2) : 0);
}

static uint64_t pick_len(struct cur *c)
{
	uint8_t sel = (uint8_t)take(c, 1);

	if (sel & 0x80)
		return take(c, 8);
	return (uint64_t)(sel & 0x7f) * 0x1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cur c = { data, size };
	struct maps *m = maps__new();
	uint64_t time = 0, seq = 0;
	uint8_t cfg = (uint8_t)take(&c, 1);
	uint32_t line = cfg & 1 ? 128 : 64;
	size_t nq = 0;
	struct { uint32_t pid, tid; uint64_t addr, time; uint8_t cpumode; } q[64];
	char buf[256];

	if (cfg & 2)
		maps__set_kernel_start(m, 0xc0000000);
	while (c.left) {
		struct pd_event ev = { 0 };
		uint8_t op = (uint8_t)take(&c, 1);
		uint8_t t = (uint8_t)take(&c, 1);

		/* time mostly moves forward; ties and steps back happen too */
		time = t == 0xff ? take(&c, 8) : t >= 0xf0 ? time - (t & 15) : time + t;
		ev.seq = seq++;
		switch (op % 6) {
		case 0: {
			struct pd_mmap *mm = &ev.u.mmap;
			uint8_t f = (uint8_t)take(&c, 1);

			ev.kind = PD_MMAP;
			ev.type = f & 1 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
			ev.cpumode = f & 2 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
			mm->pid = mm->tid = pick_pid(&c);
			mm->start = pick_addr(&c);
			mm->len = pick_len(&c);
			mm->pgoff = f & 4 ? take(&c, 8) : 0;
			mm->v2 = f & 1;
			mm->build_id_form = mm->v2 && (f & 8);
			mm->data = f & 16;
			mm->prot = PROT_READ | (f & 32 ? PROT_WRITE : 0) | (f & 64 ? PROT_EXEC : 0);
			mm->flags = f & 128 ? MAP_SHARED : MAP_PRIVATE;
			if (mm->build_id_form) {
				mm->build_id_size = (uint8_t)take(&c, 1) % 21;
				for (int i = 0; i < mm->build_id_size; i++)
					mm->build_id[i] = (uint8_t)take(&c, 1);
			} else if (mm->v2) {
				mm->maj = (uint32_t)take(&c, 1) & 3;
				mm->min = (uint32_t)take(&c, 1) & 3;
				mm->ino = take(&c, 1);
				mm->ino_generation = take(&c, 1) & 1;
			}
			mm->filename = names[take(&c, 1) % (sizeof(names) / sizeof(names[0]))];
			break;
		}
		case 1:
			ev.kind = PD_COMM;
			ev.type = PERF_RECORD_COMM;
			ev.u.comm.pid = pick_pid(&c);
			ev.u.comm.tid = take(&c, 1) & 1 ? pick_pid(&c) : ev.u.comm.pid;
			ev.u.comm.exec = op & 8;
			ev.u.comm.comm = names[take(&c, 1) % (sizeof(names) / sizeof(names[0]))];
			break;
		case 2:
		case 3:
			ev.kind = op % 6 == 2 ? PD_FORK : PD_EXIT;
			ev.type = op % 6 == 2 ? PERF_RECORD_FORK : PERF_RECORD_EXIT;
			ev.u.fork.pid = pick_pid(&c);
			ev.u.fork.ppid = pick_pid(&c);
			ev.u.fork.tid = take(&c, 1) & 1 ? pick_pid(&c) : ev.u.fork.pid;
			ev.u.fork.ptid = ev.u.fork.ppid;
			ev.u.fork.time = time;
			break;
		default:
			if (nq < sizeof(q) / sizeof(q[0])) {
				q[nq].pid = pick_pid(&c);
				q[nq].tid = q[nq].pid;
				q[nq].addr = pick_addr(&c);
				q[nq].time = op & 8 ? take(&c, 8) : time;
				q[nq].cpumode = op & 16 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
				nq++;
			}
			continue;
		}
		if (maps__add_event(m, &ev, time) < 0)
			break;
	}
	maps__finalize(m);
	for (size_t i = 0; i < nq; i++) {
		struct cl_key k;
		const struct map_desc *d;

		d = maps__key(m, q[i].pid, q[i].addr, q[i].time, q[i].cpumode, line, &k);
		if (d)
			sink += strlen(d->name) + d->start;
		sink += cl_key__hash(&k) + cl_key__scnprintf(&k, m, buf, sizeof(buf));
		if (k.kind == CL_SHARED && (k.ident == MAP_ID_NAME || k.ident == MAP_ID_BUILDID))
			sink += strlen(maps__ident_name(m, k.ident_id));
		d = maps__find(m, q[i].pid, q[i].addr, q[i].time);
		if (d)
			sink += d->end;
		sink += strlen(maps__comm(m, q[i].pid, q[i].tid, q[i].time));
	}
	sink += maps__stats(m)->rejected_total;
	maps__delete(m);
	return 0;
}
