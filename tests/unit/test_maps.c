// SPDX-License-Identifier: GPL-2.0
/* Maps timeline and keying rule: hand-built side-band events. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "test.h"
#include "maps/maps.h"

#define L 64
#define KPID ((uint32_t)-1)
#define UMODE PERF_RECORD_MISC_USER
#define KMODE PERF_RECORD_MISC_KERNEL

static uint64_t seq;

static void add(struct maps *m, const struct pd_event *ev, uint64_t time)
{
	CHECK(maps__add_event(m, ev, time) == 0);
}

/* An MMAP2 event's fields (those left out are 0: no device, inode or offset). */
struct mm {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t flags, maj, min;
	uint64_t ino;
	const char *name;
};

static struct pd_event ev_mmap2(struct mm m)
{
	struct pd_event ev = { .kind = PD_MMAP, .seq = seq++ };

	ev.u.mmap = (struct pd_mmap){ .pid = m.pid, .tid = m.pid, .start = m.start, .len = m.len, .pgoff = m.pgoff,
				      .v2 = true, .maj = m.maj, .min = m.min, .ino = m.ino, .ino_generation = 7,
				      .prot = PROT_READ | PROT_WRITE, .flags = m.flags, .filename = m.name };
	return ev;
}

static struct pd_event ev_mmap1(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *name)
{
	struct pd_event ev = { .kind = PD_MMAP, .seq = seq++ };

	ev.u.mmap = (struct pd_mmap){ .pid = pid, .tid = pid, .start = start, .len = len, .pgoff = pgoff,
				      .filename = name };
	return ev;
}

static struct pd_event ev_mmap_bid(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, uint32_t flags,
				   uint8_t bid_size, uint8_t bid_fill, const char *name)
{
	struct pd_event ev = ev_mmap2((struct mm){ .pid = pid, .start = start, .len = len, .pgoff = pgoff,
					.flags = flags, .name = name });

	ev.u.mmap.ino_generation = 0;
	ev.u.mmap.build_id_form = true;
	ev.u.mmap.build_id_size = bid_size;
	memset(ev.u.mmap.build_id, bid_fill, bid_size);
	return ev;
}

static struct pd_event ev_comm(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct pd_event ev = { .kind = PD_COMM, .seq = seq++ };

	ev.u.comm = (struct pd_comm){ .pid = pid, .tid = tid, .exec = exec, .comm = comm };
	return ev;
}

static struct pd_event ev_fork(enum pd_kind kind, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct pd_event ev = { .kind = kind, .seq = seq++ };

	ev.u.fork = (struct pd_fork){ .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };
	return ev;
}

static struct cl_key key_of(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t t, uint8_t mode)
{
	struct cl_key k;

	maps__key(m, pid, addr, t, mode, L, &k);
	return k;
}

static bool same(const struct cl_key *a, const struct cl_key *b)
{
	bool eq = cl_key__equal(a, b);

	if (eq && cl_key__hash(a) != cl_key__hash(b))
		return false;
	return eq;
}

/* ---- keying table ---- */

enum { T0 = 10, TF = 50, TS = 100 };

static void build_keying(struct maps *m)
{
	struct pd_event ev;

	add(m, (ev = ev_mmap1(KPID, 0xffffffff81000000ULL, 0x1000000, 0, "[kernel.kallsyms]_text"), &ev), 0);
	/* pid 100: private anon, shared file, shm kinds */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 100, .start = 0x7f0000000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 100, .start = 0x7f1000000000, .len = 0x10000, .pgoff = 0x2000,
					.flags = MAP_SHARED, .maj = 8, .min = 1, .ino = 4242,
					.name = "/data/shared.bin" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 101, .start = 0x7f2000005000, .len = 0x10000, .pgoff = 0x2000,
					.flags = MAP_SHARED, .maj = 8, .min = 1, .ino = 4242,
					.name = "/data/shared.bin" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 100, .start = 0x7f3000000000, .len = 0x10000, .flags = MAP_SHARED,
					.min = 1, .ino = 12345, .name = "/dev/zero (deleted)" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 100, .start = 0x7f3100000000, .len = 0x10000, .flags = MAP_SHARED,
					.min = 1, .name = "/SYSV0000beef (deleted)" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 101, .start = 0x7f3200000000, .len = 0x10000, .flags = MAP_SHARED,
					.min = 1, .name = "/SYSV0000beef (deleted)" }), &ev), T0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 100, .start = 0x7f3300000000, .len = 0x10000, .flags = MAP_SHARED,
					.min = 1, .ino = 777, .name = "/memfd:ring (deleted)" }), &ev), T0);
	/* COW: three processes map one library's .data privately at one vaddr */
	for (uint32_t pid = 200; pid < 203; pid++)
		add(m, (ev = ev_mmap2((struct mm){ .pid = pid, .start = 0x7f5000000000, .len = 0x4000,
						.pgoff = 0x1000, .flags = MAP_PRIVATE, .maj = 8, .min = 1, .ino = 99,
						.name = "/usr/lib/libx.so" }), &ev), T0);
	/* MMAP v1 */
	add(m, (ev = ev_mmap1(300, 0x7f6000000000, 0x10000, 0, "//anon"), &ev), T0);
	add(m, (ev = ev_mmap1(300, 0x7f6100000000, 0x10000, 0, "/dev/shm/ring"), &ev), T0);
	add(m, (ev = ev_mmap1(301, 0x7f7000001000, 0x10000, 0, "/dev/shm/ring"), &ev), T0);
	add(m, (ev = ev_mmap1(300, 0x7f6200000000, 0x10000, 0, "/usr/lib/liby.so"), &ev), T0);
	add(m, (ev = ev_mmap1(300, 0x7f6300000000, 0x10000, 0, "[heap]"), &ev), T0);
	add(m, (ev = ev_mmap1(300, 0x7f6400000000, 0x10000, 0, "/anon_hugepage (deleted)"), &ev), T0);
	/* MMAP2 build-id form */
	add(m, (ev = ev_mmap_bid(400, 0x7f8000000000, 0x10000, 0x3000, MAP_SHARED, 20, 0xab, "/data/x.so"), &ev), T0);
	add(m, (ev = ev_mmap_bid(401, 0x7f8100002000, 0x10000, 0x3000, MAP_SHARED, 20, 0xab, "/data/x.so"), &ev), T0);
	add(m, (ev = ev_mmap_bid(400, 0x7f8200000000, 0x10000, 0, MAP_SHARED, 0, 0, "/dev/shm/bidring"), &ev), T0);
	add(m, (ev = ev_mmap_bid(401, 0x7f8300000000, 0x10000, 0, MAP_SHARED, 0, 0, "/dev/shm/bidring"), &ev), T0);
	add(m, (ev = ev_mmap_bid(400, 0x7f9000000000, 0x10000, 0, MAP_SHARED, 0, 0, "/dev/zero (deleted)"), &ev), T0);
	add(m, (ev = ev_mmap_bid(401, 0x7f9000000000, 0x10000, 0, MAP_SHARED, 0, 0, "/dev/zero (deleted)"), &ev), T0);
	add(m, (ev = ev_mmap_bid(400, 0x7fa000000000, 0x10000, 0, MAP_PRIVATE, 20, 0xcd, "/usr/lib/libz.so"), &ev), T0);
	add(m, (ev = ev_fork(PD_FORK, 402, 400, 402, 400), &ev), TF);
	CHECK(maps__finalize(m) == 0);
}

static void test_keying(void)
{
	struct maps *m = maps__new();
	const struct map_desc *md;
	struct cl_key k, k2, k3;

	build_keying(m);

	/* kernel-half address, whatever the mode */
	md = maps__key(m, 100, 0xffffffff81001234ULL, TS, UMODE, L, &k);
	CHECK(k.kind == CL_KERNEL);
	CHECK_EQ_U64(k.line, 0xffffffff81001200ULL);
	CHECK(k.pid == 0 && k.ident == 0 && k.ino == 0 && !k.unmapped);
	CHECK(md && !strcmp(md->name, "[kernel.kallsyms]_text"));

	/* kernel mode on a user futex word: the process mapping decides */
	k = key_of(m, 100, 0x7f0000000048, TS, KMODE);
	CHECK(k.kind == CL_PRIVATE && k.pid == 100 && !k.unmapped);
	CHECK_EQ_U64(k.line, 0x7f0000000040);
	k = key_of(m, 100, 0x500000, TS, KMODE);
	CHECK(k.kind == CL_KERNEL && k.pid == 0);

	/* MAP_SHARED file: same key from two processes at different vaddrs */
	k = key_of(m, 100, 0x7f10000001c8, TS, UMODE);
	k2 = key_of(m, 101, 0x7f20000051c8, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_INODE);
	CHECK(k.maj == 8 && k.min == 1 && k.ino == 4242 && k.ino_generation == 7 && k.pid == 0);
	CHECK_EQ_U64(k.line, 0x21c0);
	CHECK(same(&k, &k2));
	k2 = key_of(m, 101, 0x7f2000005208, TS, UMODE);
	CHECK(!same(&k, &k2));

	/* anonymous shared memory with an inode */
	k = key_of(m, 100, 0x7f3000000100, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_INODE && k.ino == 12345 && k.line == 0x100);
	k = key_of(m, 100, 0x7f3100000100, TS, UMODE);
	k2 = key_of(m, 101, 0x7f3200000110, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_INODE && k.ino == 0 && k.min == 1);
	CHECK(same(&k, &k2));
	k = key_of(m, 100, 0x7f3300000100, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_INODE && k.ino == 777);

	/* private anon, user mode */
	k = key_of(m, 100, 0x7f0000000048, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.pid == 100 && k.line == 0x7f0000000040 && !k.approx);

	/* COW: one library's .data, one vaddr, three processes, three keys */
	k = key_of(m, 200, 0x7f5000000100, TS, UMODE);
	k2 = key_of(m, 201, 0x7f5000000100, TS, UMODE);
	k3 = key_of(m, 202, 0x7f5000000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k2.kind == CL_PRIVATE && k3.kind == CL_PRIVATE);
	CHECK(!same(&k, &k2) && !same(&k2, &k3) && !same(&k, &k3));
	CHECK(k.pid == 200 && k3.pid == 202 && k.ino == 0);

	/* unmapped, and unknown pid */
	k = key_of(m, 100, 0x600000, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.unmapped && k.pid == 100 && k.line == 0x600000);
	k = key_of(m, 999, 0x7f1000000000, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.unmapped && k.pid == 999);
	CHECK(!maps__key(m, 999, 0x7f1000000000, TS, UMODE, L, &k));

	/* MMAP v1 */
	k = key_of(m, 300, 0x7f6000000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.pid == 300 && !k.approx);
	k = key_of(m, 300, 0x7f6100000140, TS, UMODE);
	k2 = key_of(m, 301, 0x7f7000001140, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_NAME && k.line == 0x140);
	CHECK_STR(maps__ident_name(m, k.ident_id), "/dev/shm/ring");
	CHECK(same(&k, &k2));
	k = key_of(m, 300, 0x7f6200000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.pid == 300 && k.approx);
	CHECK(maps__stats(m)->v1_file_mappings);
	k = key_of(m, 300, 0x7f6300000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && !k.approx);
	k = key_of(m, 300, 0x7f6400000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && !k.approx);

	/* build-id form: shared file by build-id, or by path without one */
	k = key_of(m, 400, 0x7f8000000100, TS, UMODE);
	k2 = key_of(m, 401, 0x7f8100002100, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_BUILDID && k.line == 0x3100);
	CHECK_STR(maps__ident_name(m, k.ident_id), "abababababababababababababababababababab");
	CHECK(same(&k, &k2));
	k = key_of(m, 400, 0x7f8200000100, TS, UMODE);
	k2 = key_of(m, 401, 0x7f8300000100, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_BUILDID);
	CHECK_STR(maps__ident_name(m, k.ident_id), "/dev/shm/bidring");
	CHECK(same(&k, &k2));
	/* anonymous shared: by origin, inherited through fork only */
	k = key_of(m, 400, 0x7f9000000100, TS, UMODE);
	k2 = key_of(m, 402, 0x7f9000000100, TS, UMODE);
	k3 = key_of(m, 401, 0x7f9000000100, TS, UMODE);
	CHECK(k.kind == CL_SHARED && k.ident == MAP_ID_ORIGIN && k.ident_id != 0);
	CHECK(same(&k, &k2));
	CHECK(k3.kind == CL_SHARED && k3.ident == MAP_ID_ORIGIN && !same(&k, &k3));
	md = maps__find(m, 402, 0x7f9000000100, TS);
	CHECK(md && md->origin == k.ident_id);
	k = key_of(m, 400, 0x7fa000000100, TS, UMODE);
	CHECK(k.kind == CL_PRIVATE && k.pid == 400);

	/* double cacheline */
	maps__key(m, 100, 0x7f1000000048, TS, UMODE, 128, &k);
	CHECK_EQ_U64(k.line, 0x2000);

	CHECK_EQ_U64(maps__stats(m)->mmap_v1, 7);
	CHECK_EQ_U64(maps__stats(m)->mmap2_build_id, 7);
	CHECK_EQ_U64(maps__stats(m)->rejected_total, 0);
	maps__delete(m);
}

/* ---- timeline ---- */

static void test_reuse_and_split(void)
{
	struct maps *m = maps__new();
	const struct map_desc *md;
	struct pd_event ev;
	struct cl_key k, k2;

	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.maj = 8, .min = 1, .ino = 1, .name = "/a" }), &ev), 10);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x10000000, .len = 0x10000, .flags = MAP_SHARED,
					.maj = 8, .min = 1, .ino = 2, .name = "/b" }), &ev), 20);
	/* partial overlaps */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x20000000, .len = 0x10000, .pgoff = 0x1000,
					.flags = MAP_SHARED, .maj = 8, .min = 1, .ino = 5, .name = "/x" }), &ev), 10);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x20004000, .len = 0x4000, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), 20);
	/* one mapping over the tail of one and the head of the next */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x30000000, .len = 0x4000, .flags = MAP_PRIVATE,
					.maj = 8, .min = 1, .ino = 6, .name = "/p" }), &ev), 10);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x30004000, .len = 0x4000, .flags = MAP_PRIVATE,
					.maj = 8, .min = 1, .ino = 7, .name = "/q" }), &ev), 10);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x30002000, .len = 0x4000, .flags = MAP_PRIVATE,
					.maj = 8, .min = 1, .ino = 8, .name = "/r" }), &ev), 20);
	CHECK(maps__finalize(m) == 0);

	CHECK(!maps__find(m, 1, 0x10000100, 5));
	md = maps__find(m, 1, 0x10000100, 15);
	CHECK(md && !strcmp(md->name, "/a"));
	md = maps__find(m, 1, 0x10000100, 20);
	CHECK(md && !strcmp(md->name, "/b"));
	md = maps__find(m, 1, 0x1000ff00, 1000);
	CHECK(md && !strcmp(md->name, "/b"));
	CHECK(!maps__find(m, 1, 0x10010000, 1000));

	md = maps__find(m, 1, 0x20005000, 15);
	CHECK(md && !strcmp(md->name, "/x") && md->start == 0x20000000 && md->end == 0x20010000);
	md = maps__find(m, 1, 0x20005000, 25);
	CHECK(md && !strcmp(md->name, "//anon"));
	md = maps__find(m, 1, 0x20002000, 25);
	CHECK(md && !strcmp(md->name, "/x") && md->start == 0x20000000 && md->end == 0x20004000 &&
	      md->pgoff == 0x1000);
	md = maps__find(m, 1, 0x20009000, 25);
	CHECK(md && !strcmp(md->name, "/x") && md->start == 0x20008000 && md->end == 0x20010000 &&
	      md->pgoff == 0x9000);
	/* the remainder keeps the file offsets of the original */
	k = key_of(m, 1, 0x20009040, 15, UMODE);
	k2 = key_of(m, 1, 0x20009040, 25, UMODE);
	CHECK(k.kind == CL_SHARED && same(&k, &k2) && k.line == 0xa040);

	md = maps__find(m, 1, 0x30001000, 25);
	CHECK(md && !strcmp(md->name, "/p") && md->end == 0x30002000);
	md = maps__find(m, 1, 0x30003000, 25);
	CHECK(md && !strcmp(md->name, "/r"));
	md = maps__find(m, 1, 0x30006000, 25);
	CHECK(md && !strcmp(md->name, "/q") && md->start == 0x30006000 && md->pgoff == 0x2000);
	md = maps__find(m, 1, 0x30005000, 15);
	CHECK(md && !strcmp(md->name, "/q") && md->start == 0x30004000);
	maps__delete(m);
}

static void test_fork_thread_exec(void)
{
	struct maps *m = maps__new();
	const struct map_desc *md;
	struct pd_event ev;

	add(m, (ev = ev_comm(10, 10, "parent", false), &ev), 0);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 10, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/A" }), &ev), 1);
	add(m, (ev = ev_fork(PD_FORK, 11, 10, 11, 10), &ev), 5);
	add(m, (ev = ev_fork(PD_FORK, 10, 10, 12, 10), &ev), 6);         /* thread 12 of 10 */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 10, .start = 0x20000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/B" }), &ev), 7);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 10, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/C" }), &ev), 9);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 11, .start = 0x30000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/D" }), &ev), 12);
	add(m, (ev = ev_comm(11, 11, "child", true), &ev), 20);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 11, .start = 0x40000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/E" }), &ev), 21);
	add(m, (ev = ev_fork(PD_EXIT, 10, 10, 10, 10), &ev), 30);
	CHECK(maps__finalize(m) == 0);

	/* child: the parent's maps at fork time, not later ones */
	CHECK(!maps__find(m, 11, 0x10000100, 4));
	md = maps__find(m, 11, 0x10000100, 8);
	CHECK(md && !strcmp(md->name, "/A"));
	md = maps__find(m, 11, 0x10000100, 15);
	CHECK(md && !strcmp(md->name, "/A"));
	CHECK(!maps__find(m, 11, 0x20000100, 15));
	CHECK(!maps__find(m, 10, 0x30000100, 15));
	md = maps__find(m, 11, 0x30000100, 15);
	CHECK(md && !strcmp(md->name, "/D"));
	/* parent */
	md = maps__find(m, 10, 0x10000100, 8);
	CHECK(md && !strcmp(md->name, "/A"));
	md = maps__find(m, 10, 0x10000100, 10);
	CHECK(md && !strcmp(md->name, "/C"));
	md = maps__find(m, 10, 0x20000100, 8);
	CHECK(md && !strcmp(md->name, "/B"));
	/* exec clears */
	md = maps__find(m, 11, 0x10000100, 19);
	CHECK(md && !strcmp(md->name, "/A"));
	CHECK(!maps__find(m, 11, 0x10000100, 20));
	CHECK(!maps__find(m, 11, 0x30000100, 25));
	md = maps__find(m, 11, 0x40000100, 25);
	CHECK(md && !strcmp(md->name, "/E"));
	/* exit keeps the maps for samples stamped before */
	md = maps__find(m, 10, 0x10000100, 29);
	CHECK(md && !strcmp(md->name, "/C"));
	/* comms: fork and thread creation inherit, exec renames */
	CHECK_STR(maps__comm(m, 10, 10, 1), "parent");
	CHECK_STR(maps__comm(m, 10, 12, 8), "parent");
	CHECK_STR(maps__comm(m, 11, 11, 10), "parent");
	CHECK_STR(maps__comm(m, 11, 11, 25), "child");
	CHECK_STR(maps__comm(m, 77, 77, 25), "");
	CHECK_STR(maps__comm(m, 10, 99, 25), "parent");
	CHECK_EQ_U64(maps__stats(m)->forks, 2);
	CHECK_EQ_U64(maps__stats(m)->exits, 1);
	CHECK_EQ_U64(maps__stats(m)->comm_execs, 1);
	CHECK_EQ_U64(maps__stats(m)->processes, 3);
	maps__delete(m);
}

static void test_out_of_order(void)
{
	struct maps *m = maps__new();
	const struct map_desc *md;
	struct pd_event ev;

	/* file order: the newer mapping first, the older written later */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 20, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/new" }), &ev), 100);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 20, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/old" }), &ev), 50);
	/* an mmap added after others but stamped before them */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 20, .start = 0x20000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/late" }), &ev), 40);
	/* same time: file order decides */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 20, .start = 0x30000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/first" }), &ev), 60);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 20, .start = 0x30000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/second" }), &ev), 60);
	CHECK(maps__finalize(m) == 0);
	CHECK(maps__add_event(m, &ev, 70) == -EBUSY);

	md = maps__find(m, 20, 0x10000100, 60);
	CHECK(md && !strcmp(md->name, "/old"));
	md = maps__find(m, 20, 0x10000100, 110);
	CHECK(md && !strcmp(md->name, "/new"));
	md = maps__find(m, 20, 0x20000100, 45);
	CHECK(md && !strcmp(md->name, "/late"));
	CHECK(!maps__find(m, 20, 0x20000100, 39));
	md = maps__find(m, 20, 0x30000100, 60);
	CHECK(md && !strcmp(md->name, "/second"));
	maps__delete(m);

	/* no timestamps: time is the record's sequence number */
	m = maps__new();
	seq = 0;
	ev = ev_mmap2((struct mm){ .pid = 21, .start = 0x10000000, .len = 0x10000, .flags = MAP_PRIVATE,
					.name = "/s0" });
	add(m, &ev, ev.seq);
	ev = ev_mmap2((struct mm){ .pid = 21, .start = 0x10000000, .len = 0x8000, .flags = MAP_PRIVATE, .name = "/s1" });
	add(m, &ev, ev.seq);
	CHECK(maps__finalize(m) == 0);
	md = maps__find(m, 21, 0x10000100, 0);  /* a sample between records 0 and 1 */
	CHECK(md && !strcmp(md->name, "/s0"));
	md = maps__find(m, 21, 0x10000100, 2);
	CHECK(md && !strcmp(md->name, "/s1"));
	md = maps__find(m, 21, 0x10009000, 2);
	CHECK(md && !strcmp(md->name, "/s0") && md->start == 0x10008000);
	maps__delete(m);
}

static void test_garbage(void)
{
	struct maps *m = maps__new();
	const struct maps_stats *st = maps__stats(m);
	const struct map_desc *md;
	struct pd_event ev;
	struct cl_key k;

	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7f0000000000, .len = 0x10000, .flags = MAP_SHARED,
					.maj = 8, .min = 1, .ino = 55, .name = "/good" }), &ev), 10);
	/* the "CPU number as start address" records of real streams */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 3, .len = 0x7f0000001000, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), 20);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0, .len = 0x1000, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), 21);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7f0000000000, .len = 0, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), 22);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7f0000000010, .len = 0x1000, .flags = MAP_PRIVATE,
					.name = "//anon" }), &ev), 23);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7f0000000000, .len = 0x1000, .flags = MAP_PRIVATE,
					.maj = 8, .min = 1, .ino = 9, .name = "" }), &ev), 24);
	add(m, (ev = ev_mmap1(30, 0x7f0000000000, 0x1000, 0, ""), &ev), 25);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7f0000000000, .len = 1ULL << 60,
					.flags = MAP_PRIVATE, .name = "//anon" }), &ev), 26);
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0xfffffffffffff000ULL, .len = 0x2000,
					.flags = MAP_PRIVATE, .name = "//anon" }), &ev), 27);
	add(m, (ev = ev_mmap_bid(30, 0x7f0000000000, 0x1000, 0, MAP_SHARED, 20, 1, ""), &ev), 28);
	/* kernel maps: only length and wrap are checked */
	add(m, (ev = ev_mmap1(KPID, 0xffffffff81000123ULL, UINT64_MAX - 0xffffffff81000123ULL, 0,
			      "[kernel.kallsyms]_text"), &ev), 0);
	add(m, (ev = ev_mmap1(KPID, 0xffffffffff000000ULL, 0x1000000, 0, "[top]"), &ev), 0);
	add(m, (ev = ev_mmap1(KPID, 0xffffffffc0000000ULL, 0, 0, "[mod]"), &ev), 0);
	/* the last byte alone: its end wraps to 0, the range is empty
	 * (a fuzzer's; the interval tree overflowed on it) */
	add(m, (ev = ev_mmap2((struct mm){ .pid = KPID, .start = UINT64_MAX, .len = 1, .flags = MAP_PRIVATE,
					.name = "[last]" }), &ev), 29);
	/* anonymous with no name in the inode form is fine */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 30, .start = 0x7e0000000000, .len = 0x1000, .flags = MAP_PRIVATE,
					.name = "" }), &ev), 10);
	CHECK(maps__finalize(m) == 0);

	CHECK_EQ_U64(st->rejected[MAPS_REJ_LOW_START], 2);
	CHECK_EQ_U64(st->rejected[MAPS_REJ_ZERO_LEN], 2);
	CHECK_EQ_U64(st->rejected[MAPS_REJ_UNALIGNED], 1);
	CHECK_EQ_U64(st->rejected[MAPS_REJ_NO_NAME], 3);
	CHECK_EQ_U64(st->rejected[MAPS_REJ_HUGE_LEN], 1);
	CHECK_EQ_U64(st->rejected[MAPS_REJ_WRAP], 2);
	CHECK_EQ_U64(st->rejected_total, 11);
	/* nothing shadows the good mapping */
	for (uint64_t t = 10; t < 40; t += 3) {
		md = maps__find(m, 30, 0x7f0000000100, t);
		CHECK(md && !strcmp(md->name, "/good"));
	}
	k = key_of(m, 30, 0x7f0000000100, 40, UMODE);
	CHECK(k.kind == CL_SHARED && k.ino == 55);
	CHECK(!maps__find(m, 30, 5, 40));
	md = maps__find(m, KPID, 0xffffffff81000200ULL, 40);
	CHECK(md && md->start == 0xffffffff81000123ULL);
	md = maps__find(m, KPID, 0xfffffffffffffff0ULL, 40);
	CHECK(md && !strcmp(md->name, "[top]") && md->end == UINT64_MAX);
	CHECK(maps__find(m, 30, 0x7e0000000100, 40) != NULL);
	maps__delete(m);
}

static void test_fork_loop(void)
{
	struct maps *m = maps__new();
	const struct map_desc *md;
	struct pd_event ev;

	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x10000000, .len = 0x1000, .flags = MAP_PRIVATE,
					.name = "/one" }), &ev), 0);
	add(m, (ev = ev_fork(PD_FORK, 2, 1, 2, 1), &ev), 1);
	add(m, (ev = ev_fork(PD_FORK, 3, 2, 3, 2), &ev), 2);
	add(m, (ev = ev_fork(PD_FORK, 1, 3, 1, 3), &ev), 3);     /* 1 would descend from itself */
	add(m, (ev = ev_fork(PD_FORK, 2, 2, 2, 2), &ev), 4);     /* a thread creating itself */
	add(m, (ev = ev_fork(PD_EXIT, 1, 1, 1, 1), &ev), 5);
	add(m, (ev = ev_fork(PD_FORK, 1, 3, 1, 3), &ev), 6);     /* pid reuse after exit: fine */
	add(m, (ev = ev_mmap2((struct mm){ .pid = 1, .start = 0x20000000, .len = 0x1000, .flags = MAP_PRIVATE,
					.name = "/reborn" }), &ev), 7);
	CHECK(maps__finalize(m) == 0);
	CHECK_EQ_U64(maps__stats(m)->fork_loops, 2);
	md = maps__find(m, 3, 0x10000100, 10);
	CHECK(md && !strcmp(md->name, "/one"));
	md = maps__find(m, 1, 0x10000100, 4);
	CHECK(md && !strcmp(md->name, "/one"));
	md = maps__find(m, 1, 0x10000100, 6);    /* the new 1 got 3's copy */
	CHECK(md && !strcmp(md->name, "/one"));
	CHECK(!maps__find(m, 1, 0x20000100, 6));
	CHECK(maps__find(m, 1, 0x20000100, 8) != NULL);
	CHECK(!maps__find(m, 3, 0x20000100, 8));
	maps__delete(m);
}

/* ---- random churn against a brute-force oracle ---- */

struct rec {
	uint64_t t, start, end;
	bool exec;
	uint32_t order;
};

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	return test_rand(&rnd_state);
}

static void test_random_oracle(void)
{
	enum { N = 1500, Q = 30000 };
	struct rec *r = calloc(N, sizeof(*r));
	struct maps *m = maps__new();
	char name[32];
	int bad = 0;

	for (uint32_t i = 0; i < N; i++) {
		struct pd_event ev;

		r[i].t = rnd() % 5000;
		r[i].order = i;
		r[i].exec = rnd() % 97 == 0;
		if (r[i].exec) {
			ev = ev_comm(5, 5, "x", true);
		} else {
			r[i].start = 0x10000000 + (rnd() % 256) * 4096;
			r[i].end = r[i].start + (1 + rnd() % 32) * 4096;
			snprintf(name, sizeof(name), "/f%u", i);
			ev = ev_mmap2((struct mm){ .pid = 5, .start = r[i].start, .len = r[i].end - r[i].start,
							.flags = MAP_SHARED, .maj = 8, .min = 1, .ino = i + 1,
							.name = name });
		}
		add(m, &ev, r[i].t);
	}
	CHECK(maps__finalize(m) == 0);
	for (int q = 0; q < Q; q++) {
		uint64_t t = rnd() % 5100, addr = 0x10000000 + rnd() % (300 * 4096);
		const struct rec *best = NULL;
		const struct map_desc *md;

		for (uint32_t i = 0; i < N; i++) {
			if (r[i].t > t || (!r[i].exec && (addr < r[i].start || addr >= r[i].end)))
				continue;
			if (!best || r[i].t > best->t || (r[i].t == best->t && r[i].order > best->order))
				best = &r[i];
		}
		md = maps__find(m, 5, addr, t);
		if (!best || best->exec) {
			bad += md != NULL;
		} else {
			bad += !md || md->ino != best->order + 1 || addr < md->start || addr >= md->end ||
			       md->pgoff != md->start - best->start;
		}
	}
	CHECK(bad == 0);
	if (bad)
		fprintf(stderr, "oracle: %d of %d lookups differ\n", bad, Q);
	free(r);
	maps__delete(m);
}

static void test_perf(void)
{
	enum { NMAP = 1000, CHURN = 20, LOOKUPS = 1000000 };
	struct maps *m = maps__new();
	struct timespec a, b;
	uint64_t hits = 0, t = 0;
	double secs;

	for (int round = 0; round < CHURN; round++) {
		for (int i = 0; i < NMAP; i++) {
			uint64_t start = 0x7f0000000000ULL + (uint64_t)i * 0x100000;
			/* vary length so some rounds split neighbours' remainders */
			uint64_t len = 0x10000 + (rnd() % 16) * 0x1000;
			struct pd_event ev = ev_mmap2((struct mm){ .pid = 7, .start = start + (rnd() % 4) * 0x1000,
							.len = len, .flags = round & 1 ? MAP_SHARED : MAP_PRIVATE,
							.maj = 8, .min = 1, .ino = i, .name = "/churn" });

			add(m, &ev, t++);
		}
	}
	CHECK(maps__finalize(m) == 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int n = 0; n < LOOKUPS;) {
		uint64_t r = rnd();
		/* runs of 8 samples in one line, as real streams have, then 2 elsewhere */
		uint64_t slot = (r >> 8) % NMAP, when = (r >> 20) % t;
		struct cl_key k;

		for (int j = 0; j < 8; j++, n++)
			hits += maps__key(m, 7, 0x7f0000000000ULL + slot * 0x100000 + 0x4000 + j * 8, when,
					  UMODE, L, &k) != NULL;
		for (int j = 0; j < 2; j++, n++)
			hits += maps__key(m, 7, 0x7f0000000000ULL + ((r >> (j + 30)) % NMAP) * 0x100000 + 0x5000,
					  (r >> 40) % t, UMODE, L, &k) != NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("perf: %d lookups over %d mappings x %d remaps: %.3f s, %.1f M lookups/s, %" PRIu64 " hits\n",
	       LOOKUPS, NMAP, CHURN, secs, LOOKUPS / secs / 1e6, hits);
	CHECK(hits > LOOKUPS / 2);
	maps__delete(m);
}

int main(void)
{
	test_keying();
	test_reuse_and_split();
	test_fork_thread_exec();
	test_out_of_order();
	test_garbage();
	test_fork_loop();
	test_random_oracle();
	test_perf();
	return test_done("test_maps");
}
