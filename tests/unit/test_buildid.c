// SPDX-License-Identifier: GPL-2.0
/*
 * The BUILD_ID feature: notes parsing, reading a file's build-id (never
 * blocking on a FIFO), which MMAP/MMAP2 records get noted, and a round trip
 * through the writer and the reader (perf's entry layout).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "perfdata/buildid.h"
#include "perfdata/reader.h"
#include "perfdata/writer.h"

static size_t put_note(uint8_t *p, uint32_t type, const char *name, const uint8_t *desc, uint32_t descsz)
{
	uint32_t namesz = strlen(name) + 1;
	size_t n = 12;

	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
	memset(p + n, 0, (namesz + 3) & ~3u);
	memcpy(p + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memset(p + n, 0, (descsz + 3) & ~3u);
	memcpy(p + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

static void test_notes(void)
{
	uint8_t buf[256], id[20], want[20];
	size_t n = 0;

	for (int i = 0; i < 20; i++)
		want[i] = 0xa0 + i;
	n += put_note(buf + n, 1, "Linux", (const uint8_t *)"abcdef", 6);     /* another note first */
	n += put_note(buf + n, 3, "GNU", want, 20);
	CHECK(buildid__from_notes(buf, n, id) == 20);
	CHECK(!memcmp(id, want, 20));
	CHECK(buildid__from_notes(buf, n - 4, id) < 0);                         /* cut inside the id */
	CHECK(buildid__from_notes(buf, 8, id) < 0);
	n = put_note(buf, 3, "GNX", want, 20);
	CHECK(buildid__from_notes(buf, n, id) < 0);
	n = put_note(buf, 3, "GNU", want, 20);
	memcpy(buf + 4, &(uint32_t){ 0xfffffff0u }, 4);                          /* absurd descsz */
	CHECK(buildid__from_notes(buf, n, id) < 0);
}

static void test_read_file(const char *self)
{
	char fifo[] = "/tmp/c2cscan-test-fifo.XXXXXX";
	uint8_t id[20];
	int fd = mkstemp(fifo);

	CHECK(buildid__read_file(self, id) == 20);      /* gcc links with --build-id by default here */
	CHECK(buildid__read_file("/dev/null", id) < 0);
	CHECK(buildid__read_file("/nonexistent/x", id) == -ENOENT);
	CHECK(fd >= 0);
	CHECK(buildid__read_file(fifo, id) < 0);        /* empty regular file: not ELF */
	close(fd);
	unlink(fifo);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(buildid__read_file(fifo, id) == -EINVAL); /* returns at once, no writer needed */
	unlink(fifo);
}

/* An MMAP2 record (inode form or build-id form) naming name. */
static size_t mmap2_of(uint8_t *rec, const char *name, uint16_t misc, const uint8_t *bid, uint32_t pid)
{
	size_t len = strlen(name) + 1, size = (72 + len + 7) & ~7u;
	struct perf_event_header h = { PERF_RECORD_MMAP2, misc, (uint16_t)size };

	memset(rec, 0, size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &pid, 4);
	if (bid) {
		rec[40] = 20;
		memcpy(rec + 44, bid, 20);
	}
	memcpy(rec + 72, name, len);
	return size;
}

static size_t mmap2(uint8_t *rec, const char *name, uint16_t misc, const uint8_t *bid)
{
	return mmap2_of(rec, name, misc, bid, 42);
}

/* A FORK record: process pid (thread tid) made by ppid. */
static void fork_of(struct buildids *b, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	uint8_t rec[40] = { 0 };
	struct perf_event_header h = { PERF_RECORD_FORK, 0, sizeof(rec) };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &ppid, 4);
	memcpy(rec + 16, &tid, 4);
	buildids__note(b, &h, rec);
}

/* only_tree: the objects of the root's processes only, whatever order
 * the FORK records came in (a grandchild's map before its fork), noted
 * when the build-ids are written; another process's are not. */
static void test_only_tree(const char *self)
{
	char path[] = "/tmp/c2cscan-test-bidtree.XXXXXX";
	static const char *const names[] = { "/usr/lib/grandchild.so", "/usr/lib/other.so", "/usr/lib/root.so" };
	static const uint32_t pids[] = { 300, 999, 100 };
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID };
	struct buildids *b = buildids__new();
	struct pd_writer *w = NULL;
	uint8_t rec[512];
	uint64_t id = 1;
	const char *name;
	const uint8_t *bid;
	uint32_t pid;
	size_t size, got = 0;
	int fd = mkstemp(path);

	buildids__only_tree(b, 100);
	for (size_t i = 0; i < 3; i++) {
		mmap2_of(rec, names[i], 0, NULL, pids[i]);
		buildids__note(b, (const struct perf_event_header *)rec, rec);
	}
	mmap2_of(rec, self, 0, NULL, 300);                      /* with a build-id of its own */
	buildids__note(b, (const struct perf_event_header *)rec, rec);
	fork_of(b, 300, 200, 300);
	fork_of(b, 999, 1, 999);
	fork_of(b, 100, 100, 101);                              /* a thread */
	fork_of(b, 200, 100, 200);
	CHECK_EQ_U64(buildids__nr(b), 0);                       /* not before the tree is known */
	CHECK(fd >= 0);
	close(fd);
	CHECK(pd_writer__open(&w, path) == 0);
	CHECK(pd_writer__add_attr(w, &attr, "dummy", &id, 1) == 0);
	buildids__write(b, w);
	CHECK_EQ_U64(buildids__nr(b), 3);                       /* grandchild.so, root.so, self */
	for (size_t i = 0; i < buildids__nr(b); i++)
		got += buildids__get(b, i, &name, &pid, &bid, &size) && !strcmp(name, self) && pid == 300;
	CHECK_EQ_U64(got, 1);
	CHECK_EQ_U64(buildids__dropped(b), 0);
	/* past KEPT_MAPS_MAX records kept, counted as dropped (one object
	 * mapped over and over: noted once) */
	buildids__only_tree(b, 100);
	for (size_t i = 0; i <= KEPT_MAPS_MAX; i++) {
		mmap2_of(rec, names[2], 0, NULL, 100);
		buildids__note(b, (const struct perf_event_header *)rec, rec);
	}
	buildids__write(b, w);
	CHECK_EQ_U64(buildids__dropped(b), 1);
	CHECK_EQ_U64(buildids__nr(b), 3);
	buildids__delete(b);
	/* a command that forked nothing (no FORK record kept at all) */
	b = buildids__new();
	buildids__only_tree(b, 100);
	mmap2_of(rec, self, 0, NULL, 100);
	buildids__note(b, (const struct perf_event_header *)rec, rec);
	buildids__write(b, w);
	CHECK_EQ_U64(buildids__nr(b), 1);
	pd_writer__delete(w);
	buildids__delete(b);
	unlink(path);
}

static void test_note_and_round_trip(const char *self)
{
	char path[] = "/tmp/c2cscan-test-bid.XXXXXX";
	static const char *const skipped[] = { "/dev/shm/x", "/proc/1/maps", "//anon", "[heap]",
					       "/tmp/gone (deleted)", "/memfd:jit (deleted)", "" };
	const struct pd_info *in;
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID };
	struct buildids *b = buildids__new();
	struct pd_writer *w;
	struct pd_reader *r;
	uint8_t rec[512], kid[20], self_id[20];
	char longname[200];
	uint64_t id = 1;
	size_t n;
	int fd = mkstemp(path);

	for (int i = 0; i < 20; i++)
		kid[i] = i + 1;
	memset(longname, 'a', sizeof(longname) - 1);   /* a name over 64 bytes: padded to 192 */
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		n = mmap2(rec, skipped[i], 0, NULL);
		buildids__note(b, (const struct perf_event_header *)rec, rec);
	}
	CHECK_EQ_U64(buildids__nr(b), 0);
	n = mmap2(rec, self, 0, NULL);
	buildids__note(b, (const struct perf_event_header *)rec, rec);
	buildids__note(b, (const struct perf_event_header *)rec, rec);    /* once only */
	n = mmap2(rec, longname, PERF_RECORD_MISC_MMAP_BUILD_ID, kid);    /* the kernel's id, no file */
	buildids__note(b, (const struct perf_event_header *)rec, rec);
	rec[n - 1] = 'x';                                                 /* name not terminated */
	((struct perf_event_header *)rec)->size = n;
	memset(rec + 72, 'b', n - 72);
	buildids__note(b, (const struct perf_event_header *)rec, rec);
	CHECK_EQ_U64(buildids__nr(b), 2);

	CHECK(fd >= 0);
	close(fd);
	CHECK(pd_writer__open(&w, path) == 0);
	CHECK(pd_writer__add_attr(w, &attr, "dummy", &id, 1) == 0);
	{       /* some data: a file with none reads as unterminated */
		char round[16];
		ssize_t k = pd_fmt_finished_round(round, sizeof(round));

		CHECK(k > 0 && pd_writer__write(w, round, k) == 0);
	}
	CHECK(buildids__write(b, w) >= 2);              /* + the kernel's when /sys/kernel/notes reads */
	CHECK(pd_writer__add_build_id(w, PERF_RECORD_MISC_USER, -1, kid, 0, "/x") == -EINVAL);
	CHECK(pd_writer__add_build_id(w, PERF_RECORD_MISC_USER, -1, kid, 21, "/x") == -EINVAL);
	CHECK(pd_writer__finish(w) == 0);
	pd_writer__delete(w);
	CHECK(pd_reader__open(&r, path, NULL) == 0);
	in = pd_reader__info(r);
	CHECK(in->nr_build_ids >= 2);
	CHECK(buildid__read_file(self, self_id) == 20);
	if (in->nr_build_ids >= 2) {
		CHECK_STR(in->build_ids[0].name, self);
		CHECK(in->build_ids[0].size == 20 && !memcmp(in->build_ids[0].id, self_id, 20));
		CHECK(in->build_ids[0].pid == (uint32_t)-1);
		CHECK_STR(in->build_ids[1].name, longname);
		CHECK(in->build_ids[1].size == 20 && !memcmp(in->build_ids[1].id, kid, 20));
	}
	if (in->nr_build_ids == 3)
		CHECK_STR(in->build_ids[2].name, "[kernel.kallsyms]");
	pd_reader__delete(r);
	buildids__delete(b);
	if (getenv("KEEP_BID"))
		fprintf(stderr, "kept %s\n", path);
	else
		unlink(path);
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	(void)argv;
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	test_notes();
	test_read_file(self);
	test_note_and_round_trip(self);
	test_only_tree(self);
	return test_done("test_buildid");
}
