// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests. Builds tests/symbols/prog.c (PIE and non-PIE, -g) with
 * its shared library, runs it to learn where its variables and code landed
 * (it prints addresses and its /proc/self/maps), and asks src/names/symbols.c
 * about those addresses through map_descs made from the maps lines. Also:
 * a stripped copy with the debug file found by build-id, perf's build-id
 * cache, --symfs, a rebuilt binary (build-id and inode mismatch), kallsyms,
 * a fake "vmlinux" with a KASLR shift, and JIT code from a jitdump written
 * here plus a perf map, with a coalesced //anon mapping.
 * Skips the parts that need gcc when there is none.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfdata/buildid.h"
#include "names/jit.h"
#include "names/symbols.h"
#include "test.h"

#define MAX_MAPS 128
#define MAX_ADDRS 64

struct run {
	struct map_desc maps[MAX_MAPS];
	char names[MAX_MAPS][256];
	size_t nr_maps;
	char labels[MAX_ADDRS][32];
	uint64_t addrs[MAX_ADDRS];
	size_t nr_addrs;
};

static char tmpdir[64];
static int line_ra, line_call;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int marker_line(const char *path, const char *marker)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return -1;
}

static int run_prog(const char *exe, struct run *r)
{
	char cmd[512], buf[1024];
	FILE *p;

	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd), "%s", exe);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(buf, sizeof(buf), p)) {
		unsigned long long start, end, off, ino, a;
		unsigned int maj, min;
		char perms[8], label[32], name[256] = "";
		struct map_desc *m;

		if (sscanf(buf, "addr %31s %llx", label, &a) == 2 && r->nr_addrs < MAX_ADDRS) {
			snprintf(r->labels[r->nr_addrs], sizeof(r->labels[0]), "%s", label);
			r->addrs[r->nr_addrs++] = a;
			continue;
		}
		if (sscanf(buf, "map %llx-%llx %7s %llx %x:%x %llu %255s", &start, &end, perms, &off,
			   &maj, &min, &ino, name) < 7 || r->nr_maps == MAX_MAPS)
			continue;
		m = &r->maps[r->nr_maps];
		/* perf names unnamed anonymous memory "//anon" */
		snprintf(r->names[r->nr_maps], sizeof(r->names[0]), "%s", name[0] ? name : "//anon");
		m->name = r->names[r->nr_maps];
		m->start = start;
		m->end = end;
		m->pgoff = off;
		m->prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | (perms[2] == 'x' ? 4 : 0);
		m->v2 = true;
		m->maj = maj;
		m->min = min;
		m->ino = ino;
		r->nr_maps++;
	}
	return pclose(p) == 0 && r->nr_addrs && r->nr_maps ? 0 : -1;
}

static uint64_t addr_of(const struct run *r, const char *label)
{
	for (size_t i = 0; i < r->nr_addrs; i++)
		if (!strcmp(r->labels[i], label))
			return r->addrs[i];
	fprintf(stderr, "no address for %s\n", label);
	return 0;
}

static const struct map_desc *map_of(const struct run *r, uint64_t a)
{
	for (size_t i = 0; i < r->nr_maps; i++)
		if (a >= r->maps[i].start && a < r->maps[i].end)
			return &r->maps[i];
	return NULL;
}

static const struct map_desc *prev_of(const struct run *r, const struct map_desc *m)
{
	for (size_t i = 0; m && i < r->nr_maps; i++)
		if (r->maps[i].end == m->start)
			return &r->maps[i];
	return NULL;
}

/* Rename every mapping of from to to, with a build-id. */
static void rename_maps(struct run *r, const char *from, const char *to, const uint8_t *id,
			size_t idlen)
{
	for (size_t i = 0; i < r->nr_maps; i++) {
		if (strcmp(r->names[i], from))
			continue;
		snprintf(r->names[i], sizeof(r->names[0]), "%s", to);
		memcpy(r->maps[i].build_id, id, idlen);
		r->maps[i].build_id_size = (uint8_t)idlen;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

static void check_data(struct symbols *s, const struct run *r, const char *label, const char *sym,
		       const char *member, uint32_t size)
{
	uint64_t a = addr_of(r, label);
	const struct map_desc *m = map_of(r, a);
	struct data_loc d;
	int rc = symbols__data(s, m, prev_of(r, m), 1, a, &d);

	CHECK(rc == 0);
	CHECK_STR(d.sym ? (strncmp(d.sym, sym, strlen(sym)) ? d.sym : sym) : NULL, sym);
	CHECK_STR(d.member, member);
	if (size)
		CHECK_EQ_U64(d.member_size, size);
	if (rc || !d.member[0] || strcmp(d.member, member))
		fprintf(stderr, "  (%s: rc %d sym %s+%#llx member '%s' kind %s)\n", label, rc,
			d.sym ? d.sym : "-", (unsigned long long)d.sym_off, d.member,
			d.kind ? d.kind : "-");
}

static void check_code_names(struct symbols *s, const struct run *r, bool with_lines)
{
	struct code_loc c;
	uint64_t a;

	a = addr_of(r, "worker");
	CHECK(symbols__code(s, map_of(r, a), 1, a, 0, &c) == 0);
	CHECK_STR(c.func, "worker");
	CHECK_EQ_U64(c.func_off, 0);
	if (with_lines)
		CHECK(ends_with(c.file, "tests/symbols/prog.c"));

	/* a return address is after the call: the call itself is the byte before */
	a = addr_of(r, "ra") - 1;
	CHECK(symbols__code(s, map_of(r, a), 1, a, 0, &c) == 0);
	CHECK_STR(c.func, "worker");
	CHECK(!c.jit);
	if (with_lines) {
		CHECK_STR(c.inl_func, "add_in");
		CHECK_STR(c.inl_caller, "worker");
		CHECK_EQ_U64(c.line, line_ra);
		CHECK_EQ_U64(c.caller_line, line_call);
		CHECK(ends_with(c.caller_file, "prog.c"));
	}

	a = addr_of(r, "shlib_func");
	CHECK(symbols__code(s, map_of(r, a), 1, a, 0, &c) == 0);
	CHECK_STR(c.func, "shlib_work");
	CHECK_EQ_U64(c.func_off, 0);
	a = addr_of(r, "shlib_code");
	CHECK(symbols__code(s, map_of(r, a), 1, a, 0, &c) == 0);
	CHECK_STR(c.func, "shlib_work");
	CHECK_EQ_U64(c.func_off, 4);
	if (with_lines)
		CHECK(ends_with(c.file, "shlib.c"));
}

static void check_data_names(struct symbols *s, const struct run *r)
{
	check_data(s, r, "counters.b", "counters", "counters.b", 4);
	check_data(s, r, "counters.d2", "counters", "counters.d[2]", 2);
	check_data(s, r, "args3.SX", "args", "args[3].SX", 4);
	check_data(s, r, "args5.tag6", "args", "args[5].tag[6]", 1);
	check_data(s, r, "nest.in.hi", "nest", "nest.in.hi", 2);
	check_data(s, r, "nest.u", "nest", "nest.u.i", 4);
	check_data(s, r, "nest.m21", "nest", "nest.m[2][1]", 4);
	check_data(s, r, "big_bss5000", "big_bss", "big_bss[5000]", 8);
	check_data(s, r, "hidden_static", "hidden_static", "hidden_static", 8);
	check_data(s, r, "calls", "calls", "calls", 4);
	check_data(s, r, "shlib_static", "lib_counter", "lib_counter[2]", 8);
}

static void test_program(const char *exe, bool pie)
{
	struct symbols_opts o = { .no_debuginfod = true };
	struct symbols *s = symbols__new(&o);
	struct symbols_stats st;
	struct code_loc c;
	struct data_loc d;
	struct map_desc heap = { .start = 0x1000000, .end = 0x2000000, .name = "[heap]" };
	struct map_desc stk = { .start = 0x7ff000000000, .end = 0x7ff000100000, .name = "[stack]" };
	struct map_desc shm = { .start = 0x7e0000000000, .end = 0x7e0000100000, .name = "/dev/shm/ring",
				.flags = 1 };
	struct run r;
	uint64_t a;

	if (run_prog(exe, &r)) {
		CHECK(!"test program ran");
		symbols__delete(s);
		return;
	}
	printf("  %s (%s): %zu maps\n", exe, pie ? "PIE" : "fixed", r.nr_maps);
	check_code_names(s, &r, true);
	check_data_names(s, &r);

	/* second round: everything from the cache, objects opened once */
	symbols__stats(s, &st);
	CHECK_EQ_U64(st.objects_opened, 2);
	a = addr_of(&r, "ra") - 1;
	CHECK(symbols__code(s, map_of(&r, a), 2, a, 0, &c) == 0);
	CHECK_STR(c.inl_func, "add_in");
	a = addr_of(&r, "counters.b");
	CHECK(symbols__data(s, map_of(&r, a), NULL, 2, a, &d) == 0);
	CHECK_STR(d.member, "counters.b");
	{
		struct symbols_stats st2;

		symbols__stats(s, &st2);
		CHECK_EQ_U64(st2.code_hits, st.code_hits + 1);
		CHECK_EQ_U64(st2.data_hits, st.data_hits + 1);
		CHECK_EQ_U64(st2.objects_opened, 2);
	}

	/* memory without a file: say what it is */
	CHECK(symbols__data(s, &heap, NULL, 1, 0x1000040, &d) == 0);
	CHECK_STR(d.kind, "[heap]");
	CHECK(!d.sym);
	CHECK(symbols__data(s, &stk, NULL, 1, 0x7ff000000100, &d) == 0);
	CHECK_STR(d.kind, "[stack]");
	CHECK(symbols__data(s, &shm, NULL, 1, 0x7e0000000100, &d) == 0);
	CHECK_STR(d.kind, "/dev/shm/ring");
	CHECK(symbols__code(s, &heap, 1, 0x1000040, 0, &c) == -ENOENT);
	CHECK(symbols__code(s, NULL, 1, 0x1000040, 0, &c) == -ENOENT);
	CHECK_EQ_U64(symbols__nr_warnings(s), 0);
	symbols__delete(s);
}

static void test_stripped(const char *exe, struct run *r)
{
	char stripped[256], dbgdir[256], dbg[512], home[256], cache[512], idhex[41], sym[256];
	struct symbols_opts o = { .no_debuginfod = true };
	struct symbols *s;
	uint8_t id[20];
	int n = buildid__read_file(exe, id);
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	if (n <= 0) {
		printf("  skip stripped: no build-id in %s\n", exe);
		free(old_home);
		return;
	}
	for (int i = 0; i < n; i++)
		sprintf(idhex + 2 * i, "%02x", id[i]);
	snprintf(stripped, sizeof(stripped), "%s/prog-stripped", tmpdir);
	snprintf(dbgdir, sizeof(dbgdir), "%s/debugroot", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", dbgdir, idhex, idhex + 2);
	if (sh("objcopy --strip-all %s %s && mkdir -p %s/.build-id/%.2s && "
	       "objcopy --only-keep-debug %s %s", exe, stripped, dbgdir, idhex, exe, dbg)) {
		printf("  skip stripped: objcopy failed\n");
		free(old_home);
		return;
	}

	/* the stripped file alone: no names for static data, no lines */
	rename_maps(r, exe, stripped, id, (size_t)n);
	s = symbols__new(&o);
	{
		uint64_t a = addr_of(r, "counters.b");
		struct data_loc d;

		symbols__data(s, map_of(r, a), NULL, 1, a, &d);
		CHECK(!d.sym || strcmp(d.sym, "counters"));
	}
	symbols__delete(s);

	/* the debug file found by build-id under a debug root */
	o.debuginfo_path = dbgdir;
	s = symbols__new(&o);
	check_code_names(s, r, true);
	check_data(s, r, "counters.b", "counters", "counters.b", 4);
	check_data(s, r, "args3.SX", "args", "args[3].SX", 4);
	CHECK_EQ_U64(symbols__nr_warnings(s), 0);
	symbols__delete(s);
	o.debuginfo_path = NULL;

	/* perf's build-id cache: the recorded path is gone, ~/.debug has it */
	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(cache, sizeof(cache), "%s/.debug/.build-id/%.2s/%s", home, idhex, idhex + 2);
	CHECK(sh("mkdir -p %s && cp %s %s/elf", cache, exe, cache) == 0);
	setenv("HOME", home, 1);
	rename_maps(r, stripped, "/nonexistent/prog", id, (size_t)n);
	s = symbols__new(&o);
	check_code_names(s, r, true);
	check_data(s, r, "args3.SX", "args", "args[3].SX", 4);
	symbols__delete(s);
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);

	/* --symfs: the recorded path under another root */
	snprintf(sym, sizeof(sym), "%s/root", tmpdir);
	CHECK(sh("mkdir -p %s/opt/app && cp %s %s/opt/app/prog", sym, exe, sym) == 0);
	rename_maps(r, "/nonexistent/prog", "/opt/app/prog", id, (size_t)n);
	o.symfs = sym;
	s = symbols__new(&o);
	{
		uint64_t a = addr_of(r, "worker");
		struct code_loc c;

		CHECK(symbols__code(s, map_of(r, a), 1, a, 0, &c) == 0);
		CHECK_STR(c.func, "worker");
	}
	check_data(s, r, "nest.m21", "nest", "nest.m[2][1]", 4);
	symbols__delete(s);
	rename_maps(r, "/opt/app/prog", exe, id, 0);
}

/* A binary rebuilt after the recording must not be named. */
static void test_mismatch(const char *exe, struct run *r)
{
	char copy[256];
	struct symbols_opts o = { .no_debuginfod = true };
	struct symbols *s;
	struct code_loc c;
	struct data_loc d;
	struct stat st1, st2;
	uint8_t id[20];
	int n;
	uint64_t a;

	snprintf(copy, sizeof(copy), "%s/rebuilt", tmpdir);
	if (sh("cp %s %s", exe, copy) || stat(copy, &st1) || (n = buildid__read_file(copy, id)) <= 0) {
		printf("  skip mismatch\n");
		return;
	}
	/* the recording saw copy with its build-id and inode; then it is rebuilt */
	if (sh("gcc -g -O0 -o %s.new tests/symbols/prog.c -L%s -lshlib -Wl,-rpath,%s && mv %s.new %s",
	       copy, tmpdir, tmpdir, copy, copy) || stat(copy, &st2)) {
		CHECK(!"rebuild");
		return;
	}
	rename_maps(r, exe, copy, id, (size_t)n);
	s = symbols__new(&o);
	a = addr_of(r, "worker");
	CHECK_EQ_U64(symbols__code(s, map_of(r, a), 1, a, 0, &c), -ESTALE);
	CHECK(!c.func);
	a = addr_of(r, "counters.b");
	CHECK_EQ_U64(symbols__data(s, map_of(r, a), NULL, 1, a, &d), -ESTALE);
	CHECK(!d.sym);
	CHECK_EQ_U64(symbols__nr_warnings(s), 1);
	CHECK(symbols__warning(s, 0) && strstr(symbols__warning(s, 0), "recording has") &&
	      strstr(symbols__warning(s, 0), copy));
	if (symbols__warning(s, 0))
		printf("  warning: %s\n", symbols__warning(s, 0));
	symbols__delete(s);

	/* no build-id recorded (MMAP2 inode form): the inode tells */
	if (st1.st_ino != st2.st_ino) {
		for (size_t i = 0; i < r->nr_maps; i++)
			if (!strcmp(r->names[i], copy)) {
				r->maps[i].build_id_size = 0;
				r->maps[i].ino = st1.st_ino;
			}
		s = symbols__new(&o);
		a = addr_of(r, "worker");
		CHECK_EQ_U64(symbols__code(s, map_of(r, a), 1, a, 0, &c), -ESTALE);
		CHECK(symbols__nr_warnings(s) == 1 && strstr(symbols__warning(s, 0), "changed"));
		symbols__delete(s);
	} else {
		printf("  skip inode check: the rebuild kept the inode\n");
	}
	rename_maps(r, copy, exe, id, 0);
}

/* A fixed-address executable standing in for vmlinux, "loaded" 16 MB higher. */
static void test_vmlinux(const char *exe_nopie, const struct run *r)
{
	struct symbols_opts o = { .no_debuginfod = true, .vmlinux = exe_nopie };
	struct map_desc kmap = { .start = 0, .end = UINT64_MAX, .name = "[kernel.kallsyms]worker" };
	const uint64_t shift = 0x1000000;
	struct symbols *s = symbols__new(&o);
	struct code_loc c;
	struct data_loc d;

	kmap.pgoff = addr_of(r, "worker") + shift;
	CHECK(symbols__code(s, &kmap, (uint32_t)-1, addr_of(r, "ra") - 1 + shift, 0, &c) == 0);
	CHECK_STR(c.func, "worker");
	CHECK_STR(c.inl_func, "add_in");
	CHECK(c.kernel);
	CHECK(symbols__data(s, &kmap, NULL, (uint32_t)-1, addr_of(r, "args3.SX") + shift, &d) == 0);
	CHECK_STR(d.member, "args[3].SX");
	CHECK(d.kernel);
	symbols__delete(s);
}

static void test_kallsyms(void)
{
	char path[256];
	FILE *f;
	struct symbols_opts o = { .no_debuginfod = true };
	struct map_desc kmap = { .start = 0xffffffff81000000ULL, .end = UINT64_MAX,
				 .pgoff = 0xffffffff81000000ULL, .name = "[kernel.kallsyms]_text" };
	struct symbols *s;
	struct code_loc c;
	struct data_loc d;

	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	f = fopen(path, "w");
	if (!f) {
		CHECK(!"kallsyms file");
		return;
	}
	fputs("ffffffff81000000 T _text\nffffffff81000100 T do_thing\n"
	      "ffffffff81000200 t helper\nffffffff82000000 D jiffies\n"
	      "ffffffffc0000000 t modfn\t[mymod]\n", f);
	fclose(f);
	o.kallsyms = path;
	s = symbols__new(&o);
	CHECK(symbols__code(s, &kmap, (uint32_t)-1, 0xffffffff81000110ULL, 0, &c) == 0);
	CHECK_STR(c.func, "do_thing");
	CHECK_EQ_U64(c.func_off, 0x10);
	CHECK(c.kernel);
	CHECK(symbols__code(s, &kmap, (uint32_t)-1, 0xffffffffc0000008ULL, 0, &c) == 0);
	CHECK_STR(c.func, "modfn [mymod]");
	CHECK(symbols__data(s, &kmap, NULL, (uint32_t)-1, 0xffffffff82000008ULL, &d) == 0);
	CHECK_STR(d.sym, "jiffies");
	CHECK_EQ_U64(d.sym_off, 8);
	CHECK_EQ_U64(symbols__nr_warnings(s), 0);
	symbols__delete(s);

	/* another boot (KASLR): kallsyms of this machine does not fit */
	kmap.pgoff = 0xffffffff9a000000ULL;
	s = symbols__new(&o);
	CHECK_EQ_U64(symbols__code(s, &kmap, (uint32_t)-1, 0xffffffff9a000110ULL, 0, &c), -ENOENT);
	CHECK_EQ_U64(symbols__nr_warnings(s), 1);
	CHECK(symbols__nr_warnings(s) && strstr(symbols__warning(s, 0), "does not match"));
	symbols__delete(s);
}

/* ---- JIT ---- */

static void jprefix(struct test_buf *j, uint32_t id, uint32_t size, uint64_t ts)
{
	test_put32(j, id);
	test_put32(j, size);
	test_put64(j, ts);
}

static void jload(struct test_buf *j, uint32_t pid, uint64_t addr, uint64_t size, uint64_t ts,
		  const char *name)
{
	size_t nl = strlen(name) + 1;
	uint8_t code[16] = { 0xc3 };
	size_t csz = size < sizeof(code) ? size : sizeof(code);

	/* code bytes are shortened here: readers must not need them */
	jprefix(j, JIT_CODE_LOAD, (uint32_t)(16 + 40 + nl + csz), ts);
	test_put32(j, pid);
	test_put32(j, pid);
	test_put64(j, addr);
	test_put64(j, addr);
	test_put64(j, size);
	test_put64(j, 1);
	test_put(j, name, nl);
	test_put(j, code, csz);
}

static void jmove(struct test_buf *j, uint32_t pid, uint64_t from, uint64_t to, uint64_t size,
		  uint64_t ts)
{
	jprefix(j, JIT_CODE_MOVE, 16 + 56, ts);
	test_put32(j, pid);
	test_put32(j, pid);
	test_put64(j, to);
	test_put64(j, from);
	test_put64(j, to);
	test_put64(j, size);
	test_put64(j, 2);
}

static void jdebug(struct test_buf *j, uint64_t code_addr, uint64_t ts)
{
	static const char file[] = "app.js";

	jprefix(j, JIT_CODE_DEBUG_INFO, (uint32_t)(16 + 16 + 2 * 16 + sizeof(file) + 2), ts);
	test_put64(j, code_addr);
	test_put64(j, 2);
	test_put64(j, code_addr);
	test_put32(j, 10);
	test_put32(j, 0);
	test_put(j, file, sizeof(file));
	test_put64(j, code_addr + 0x20);
	test_put32(j, 12);
	test_put32(j, 0);
	test_put(j, "\xff", 2);
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void test_jit(void)
{
	const uint32_t pid = 4242;
	const uint64_t base = 0x7f0000001000ULL;
	char dump[256], map[256], cut[256];
	struct test_buf j = { 0 };
	struct symbols_opts o = { .no_debuginfod = true, .perf_map_dir = tmpdir };
	/* one //anon mapping covering the code region, stamped after every load */
	struct map_desc anon = { .start = 0x7f0000000000ULL, .end = 0x7f0000010000ULL,
				 .name = "//anon", .prot = 7 };
	struct symbols *s;
	struct code_loc c;
	int n;

	test_put32(&j, JITDUMP_MAGIC);
	test_put32(&j, 1);
	test_put32(&j, 40);
	test_put32(&j, 62);
	test_put32(&j, 0);
	test_put32(&j, pid);
	test_put64(&j, 1);
	test_put64(&j, 0);
	jload(&j, pid, base, 0x100, 100, "js:f1");
	jdebug(&j, base + 0x100, 150);
	jload(&j, pid, base + 0x100, 0x80, 200, "js:f2");
	jload(&j, pid, base, 0x40, 500, "js:f3");     /* reuses f1's start */
	jmove(&j, pid, base + 0x100, base + 0x1000, 0x80, 600);
	jprefix(&j, 99, 24, 700);                     /* unknown record: skipped */
	test_put64(&j, 0);
	snprintf(dump, sizeof(dump), "%s/jit-%u.dump", tmpdir, pid);
	snprintf(map, sizeof(map), "%s/perf-%u.map", tmpdir, pid);
	CHECK(write_file(dump, j.p, j.len) == 0);
	CHECK(sh("printf '7f0000001000 100 perfmap_f1\\n7f0000003000 20 perfmap only\\n"
		 "garbage line\\n0x7f0000004000 10 hex_prefixed\\n' > %s", map) == 0);
	snprintf(map, sizeof(map), "%s/perf-%u.map", tmpdir, pid + 1);
	CHECK(sh("printf '7f0000005000 10 other_pid\\n' > %s", map) == 0);

	s = symbols__new(&o);
	n = symbols__add_jitdump(s, pid, dump);
	CHECK_EQ_U64(n, 4);
	/* the coalesced //anon map is newer than the loads: the loads still name the code */
	CHECK(symbols__code(s, &anon, pid, base + 0x10, 300, &c) == 0);
	CHECK_STR(c.func, "js:f1");
	CHECK_EQ_U64(c.func_off, 0x10);
	CHECK(c.jit);
	CHECK(symbols__code(s, &anon, pid, base + 0x10, 550, &c) == 0);
	CHECK_STR(c.func, "js:f3");
	CHECK(symbols__code(s, &anon, pid, base + 0x50, 550, &c) == 0);
	CHECK_STR(c.func, "js:f1");
	CHECK(symbols__code(s, NULL, pid, base + 0x124, 250, &c) == 0);
	CHECK_STR(c.func, "js:f2");
	CHECK_STR(c.file, "app.js");
	CHECK_EQ_U64(c.line, 12);
	CHECK(symbols__code(s, NULL, pid, base + 0x104, 250, &c) == 0);
	CHECK_EQ_U64(c.line, 10);
	CHECK(symbols__code(s, &anon, pid, base + 0x1010, 650, &c) == 0);
	CHECK_STR(c.func, "js:f2");
	/* before the move nothing was there */
	CHECK(symbols__code(s, &anon, pid, base + 0x1010, 550, &c) == -ENOENT);
	/* unknown time: the latest load */
	CHECK(symbols__code(s, &anon, pid, base + 0x10, 0, &c) == 0);
	CHECK_STR(c.func, "js:f3");
	/* before any load the jitdump has nothing: the perf map answers */
	CHECK(symbols__code(s, &anon, pid, base + 0x10, 50, &c) == 0);
	CHECK_STR(c.func, "perfmap_f1");
	CHECK(symbols__code(s, &anon, pid, 0x7f0000003010ULL, 300, &c) == 0);
	CHECK_STR(c.func, "perfmap only");
	CHECK(symbols__code(s, &anon, pid, 0x7f0000004008ULL, 300, &c) == 0);
	CHECK_STR(c.func, "hex_prefixed");
	CHECK(symbols__code(s, &anon, pid + 1, 0x7f0000005004ULL, 300, &c) == 0);
	CHECK_STR(c.func, "other_pid");
	CHECK(symbols__code(s, &anon, pid + 2, 0x7f0000005004ULL, 300, &c) == -ENOENT);
	CHECK(symbols__add_jitdump(s, pid, map) == -EINVAL);
	symbols__delete(s);

	/* a dump cut anywhere keeps the records before the cut */
	snprintf(cut, sizeof(cut), "%s/jit-cut.dump", tmpdir);
	for (size_t len = 0; len <= j.len; len += 7) {
		struct jit_index *ji = jit_index__new();

		CHECK(write_file(cut, j.p, len) == 0);
		n = jit_index__add_jitdump(ji, pid, cut);
		CHECK(len < 40 ? n == -EINVAL : (n >= 0 && n <= 4));
		jit_index__delete(ji);
	}
	/* byte-swapped writer */
	{
		struct jit_index *ji = jit_index__new();
		struct test_buf sw = { 0 };
		struct jit_sym js;

		test_put32(&sw, __builtin_bswap32(JITDUMP_MAGIC));
		test_put32(&sw, __builtin_bswap32(1));
		test_put32(&sw, __builtin_bswap32(40));
		test_put32(&sw, 0);
		test_put32(&sw, 0);
		test_put32(&sw, 0);
		test_put64(&sw, 0);
		test_put64(&sw, 0);
		test_put32(&sw, __builtin_bswap32(JIT_CODE_LOAD));
		test_put32(&sw, __builtin_bswap32(16 + 40 + 3));
		test_put64(&sw, __builtin_bswap64(10));
		test_put32(&sw, 0);
		test_put32(&sw, 0);
		test_put64(&sw, __builtin_bswap64(base));
		test_put64(&sw, __builtin_bswap64(base));
		test_put64(&sw, __builtin_bswap64(0x10));
		test_put64(&sw, 0);
		test_put(&sw, "be", 3);
		CHECK(write_file(cut, sw.p, sw.len) == 0);
		CHECK_EQ_U64(jit_index__add_jitdump(ji, pid, cut), 1);
		CHECK(jit_index__find(ji, pid, base + 4, 20, &js) == 0 && !strcmp(js.name, "be"));
		jit_index__delete(ji);
		free(sw.p);
	}
	free(j.p);
}

/*
 * DEBUGINFOD_URLS pointing at a server that accepts connections and never
 * answers: the first object without debug info waits for the timeout, the
 * report then stops asking (one warning), so a second object costs nothing.
 */
static void test_debuginfod_stall(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct symbols_opts o = { 0 };
	struct symbols *s;
	struct map_desc m[2];
	struct code_loc c;
	char lib[2][512], url[64], cache[512];
	struct timespec t0, t1, t2;
	double first, second;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	for (int i = 0; i < 2; i++) {
		snprintf(lib[i], sizeof(lib[i]), "%s/nodebug%d.so", tmpdir, i);
		/* different build-ids, no debug info, no debuglink */
		if (sh("gcc -g0 -O1 -fPIC -shared -Wl,--build-id=0x%040d -o %s tests/symbols/shlib.c 2>/dev/null",
		       i + 1, lib[i])) {
			printf("skip: debuginfod stall (gcc)\n");
			close(fd);
			return;
		}
		m[i] = (struct map_desc){ .start = 0x10000000, .end = 0x10100000, .name = lib[i] };
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		printf("skip: debuginfod stall (no loopback socket)\n");
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	snprintf(cache, sizeof(cache), "%s/debuginfod-cache", tmpdir);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_TIMEOUT", "1", 1);
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	s = symbols__new(&o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	symbols__code(s, &m[0], 1, 0x10000000 + 0x1100, 0, &c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	symbols__code(s, &m[1], 1, 0x10000000 + 0x1100, 0, &c);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	first = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	second = (double)(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
	printf("  debuginfod that never answers: first object %.2f s, second %.2f s\n", first, second);
	if (first < 0.8) {
		/* no libdebuginfod here (libdw asks nobody): nothing to give up */
		printf("skip: libdw did not ask debuginfod\n");
	} else {
		CHECK(second < 0.5);
		CHECK(getenv("DEBUGINFOD_URLS") == NULL);
		CHECK_EQ_U64(symbols__nr_warnings(s), 1);
		CHECK(symbols__nr_warnings(s) && strstr(symbols__warning(s, 0), "did not answer"));
	}
	symbols__delete(s);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("DEBUGINFOD_RETRY_LIMIT");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	close(fd);
}

/* Decoded instruction forms (capstone): load, store, read-modify-write,
 * base + index * scale + displacement, lea (no access), aarch64. */
static void test_insn(void)
{
	struct symbols_opts so = { 0 };
	struct symbols *s = symbols__new(&so);
	struct insn_access a;
	/* mov 0x10(%rdi),%rax; mov %esi,0x8(%rdi,%rcx,4); addq $1,0x2f8f(%rip);
	 * lea 0x8(%rdi),%rax; movzbl (%rax),%eax; lock xadd %eax,(%rdx) */
	static const uint8_t load[] = { 0x48, 0x8b, 0x47, 0x10 }, store[] = { 0x89, 0x74, 0x8f, 0x08 },
		rmw[] = { 0x48, 0x83, 0x05, 0x8f, 0x2f, 0x00, 0x00, 0x01 }, lea[] = { 0x48, 0x8d, 0x47, 0x08 },
		byte[] = { 0x0f, 0xb6, 0x00 }, xadd[] = { 0xf0, 0x0f, 0xc1, 0x02 },
		/* ldr x0, [x1, #8]; strb w2, [x3] */
		a64ldr[] = { 0x20, 0x04, 0x40, 0xf9 }, a64strb[] = { 0x62, 0x00, 0x00, 0x39 };

	CHECK(!symbols__insn_bytes(s, EM_X86_64, load, sizeof(load), 0x1000, &a));
	CHECK(a.mem && a.load && !a.store && a.size == 8 && a.disp == 0x10);
	CHECK_STR(a.base, "rdi");
	CHECK(!symbols__insn_bytes(s, EM_X86_64, store, sizeof(store), 0x1000, &a));
	CHECK(a.mem && !a.load && a.store && a.size == 4 && a.scale == 4 && a.disp == 8);
	CHECK_STR(a.index, "rcx");
	CHECK(!symbols__insn_bytes(s, EM_X86_64, rmw, sizeof(rmw), 0x1000, &a));
	CHECK(a.mem && a.load && a.store && a.size == 8);
	CHECK_STR(a.base, "rip");
	CHECK_STR(a.text, "addq $1, 0x2f8f(%rip)");
	CHECK(!symbols__insn_bytes(s, EM_X86_64, lea, sizeof(lea), 0x1000, &a));
	CHECK(a.valid && !a.mem);
	CHECK(!symbols__insn_bytes(s, EM_X86_64, byte, sizeof(byte), 0x1000, &a));
	CHECK(a.mem && a.load && a.size == 1);
	CHECK(!symbols__insn_bytes(s, EM_X86_64, xadd, sizeof(xadd), 0x1000, &a));
	CHECK(a.mem && a.load && a.store && a.size == 4);
	CHECK(!symbols__insn_bytes(s, EM_AARCH64, a64ldr, sizeof(a64ldr), 0x1000, &a));
	CHECK(a.mem && a.load && !a.store && a.size == 8 && a.disp == 8);
	CHECK(!symbols__insn_bytes(s, EM_AARCH64, a64strb, sizeof(a64strb), 0x1000, &a));
	CHECK(a.mem && a.store && a.size == 1);
	/* garbage decodes to nothing, never a crash */
	CHECK(symbols__insn_bytes(s, EM_X86_64, (const uint8_t *)"\x0f\xff", 2, 0x1000, &a) < 0 || a.valid);
	CHECK(symbols__insn_bytes(s, 3 /* EM_386 */, load, sizeof(load), 0x1000, &a) < 0);
	symbols__delete(s);
}

/* ---- data types (dtype.c) on tests/symbols/dtype.c ---- */

#define A64_CC "aarch64-linux-gnu-gcc"

struct dt_fn {
	char name[32];
	uint64_t lo, hi;
};

struct dt_seen {
	struct dt_fn fns[16];
	size_t nr_fns;
	char got[512][256];     /* "fn|type|member|source", "fn|!reason" */
	size_t nr;
};

static void dt_each(void *arg, uint64_t vaddr, enum dtype_reason r, const struct data_loc *d)
{
	struct dt_seen *seen = arg;

	for (size_t i = 0; i < seen->nr_fns && seen->nr < 512; i++) {
		if (vaddr < seen->fns[i].lo || vaddr >= seen->fns[i].hi)
			continue;
		if (r == DT_OK)
			snprintf(seen->got[seen->nr++], sizeof(seen->got[0]), "%s|%s|%s|%s", seen->fns[i].name, d->type,
				 d->member, type_source__name((enum type_source)d->type_source));
		else
			snprintf(seen->got[seen->nr++], sizeof(seen->got[0]), "%s|!%s", seen->fns[i].name,
				 dtype_reason__name(r));
	}
}

static bool dt_has(const struct dt_seen *seen, const char *want)
{
	for (size_t i = 0; i < seen->nr; i++)
		if (!strcmp(seen->got[i], want))
			return true;
	printf("  missing %s\n", want);
	return false;
}

/* The dt_ functions of exe, their address ranges. */
static void dt_fns(const char *exe, struct dt_seen *seen)
{
	char cmd[512], buf[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s", exe);
	p = popen(cmd, "r");
	while (p && fgets(buf, sizeof(buf), p) && seen->nr_fns < 16) {
		unsigned long long a, n;
		char t, name[32];

		if (sscanf(buf, "%llx %llx %c %31s", &a, &n, &t, name) == 4 && !strncmp(name, "dt_", 3)) {
			struct dt_fn *f = &seen->fns[seen->nr_fns++];

			snprintf(f->name, sizeof(f->name), "%s", name);
			f->lo = a;
			f->hi = a + n;
		}
	}
	if (p)
		pclose(p);
}

/* Builds src (cc flags) into out and types every instruction of it into
 * seen, whose dt_ functions must number nr_fns; false (a skip, said) when
 * it cannot be built. */
static bool dt_build_type(const char *cc, const char *flags, const char *src, const char *out, size_t nr_fns,
			  struct dt_seen *seen, uint64_t counts[DT_NR])
{
	struct symbols_opts so = { .no_debuginfod = true };
	struct symbols *s;

	if (sh("%s %s -o %s %s 2>/dev/null", cc, flags, out, src)) {
		printf("skip: cannot build %s with %s\n", src, cc);
		return false;
	}
	dt_fns(out, seen);
	CHECK(seen->nr_fns == nr_fns);
	s = symbols__new(&so);
	CHECK(!symbols__type_all(s, out, counts, dt_each, seen));
	symbols__delete(s);
	return true;
}

/* cc: gcc, or the aarch64 cross compiler (the same source, the same
 * answers, but for the forms each instruction set compiles differently) */
static void test_dtype(const char *cc, const char *opt)
{
	char exe[256], flags[64];
	struct dt_seen seen = { .nr_fns = 0 };
	uint64_t counts[DT_NR] = { 0 };
	struct symbols_opts so = { .no_debuginfod = true };
	struct symbols *s;
	bool a64 = strstr(cc, "aarch64") != NULL;

	snprintf(exe, sizeof(exe), "%s/dtype%s%s", tmpdir, opt, a64 ? "-a64" : "");
	snprintf(flags, sizeof(flags), "-g %s", opt);
	if (!dt_build_type(cc, flags, "tests/symbols/dtype.c", exe, 16, &seen, counts))
		return;
	/* a pointer parameter (its register location at -O2, its stack slot
	 * at -O0), a pointer member loaded and followed, a nested member, a
	 * call's return type, TLS, a local struct in the frame */
	CHECK(dt_has(&seen, strcmp(opt, "-O0") ? "dt_param|struct node|tag|variable" : "dt_param|struct node|tag|tracked"));
	CHECK(dt_has(&seen, "dt_next|struct node|val|tracked"));
	CHECK(dt_has(&seen, strcmp(opt, "-O0") ? "dt_nested|struct pair|b.tag|variable" : "dt_nested|struct pair|b.tag|tracked"));
	CHECK(dt_has(&seen, "dt_ret|struct node|tag|tracked"));
	CHECK(dt_has(&seen, "dt_tls|struct node|tls_node.val|variable"));
	CHECK(dt_has(&seen, "dt_local|struct pair|local.b.val|variable"));
	if (!strcmp(opt, "-O0"))
		CHECK(dt_has(&seen, "dt_make|struct node *|pool|variable"));
	/* dt_early's frame slots are its int locals, the initialisations
	 * before their ranges too (a jump table read may stay untyped);
	 * which locals live in the frame depends on the registers there are */
	CHECK(dt_has(&seen, a64 ? "dt_early|int|a|variable" : "dt_early|int|flag|variable"));
	CHECK(dt_has(&seen, "dt_sret|struct big|tag|tracked"));
	CHECK(dt_has(&seen, "dt_sret|struct big|c|tracked"));
	for (size_t i = 0; i < seen.nr; i++)
		CHECK(strcmp(seen.got[i], "dt_early|!stack slot without a variable"));
	/* functions of another object, called through the PLT: the call
	 * sites name them (gcc writes none at -O0) */
	if (strcmp(opt, "-O0")) {
		CHECK(dt_has(&seen, "dt_plt|struct tm|tm_hour|tracked"));
		CHECK(dt_has(&seen, "dt_errno|int||tracked"));
		/* where the walking pointer exists: a pointer through an
		 * array member, a shifted index plus a pointer member, a
		 * pointer through a local array */
		CHECK(dt_has(&seen, "dt_walk|struct ring|slot[?]|tracked"));
		CHECK(dt_has(&seen, "dt_addmem|struct item|[?].v|tracked"));
		CHECK(dt_has(&seen, "dt_fwalk|long int[8]|a[?]|variable"));
		/* malloc's void * stored into a struct pt * member (aarch64
		 * stores it after the access: the call's result is typed by
		 * that store, and the flow runs again) */
		CHECK(dt_has(&seen, "dt_store|struct pt|y|tracked"));
	}
	CHECK(counts[DT_OK] > 0);
	/* not an object file: an error, no crash */
	s = symbols__new(&so);
	CHECK(symbols__type_all(s, "tests/symbols/dtype.c", counts, NULL, NULL) < 0);
	CHECK(symbols__type_all(s, "/nonexistent/x", counts, NULL, NULL) < 0);
	symbols__delete(s);
}

/* A shared library's thread-local variables, reached through
 * __tls_get_addr's tls_index GOT pairs (general and local dynamic). */
static void test_dtype_dso(const char *cc)
{
	char so_path[256];
	struct dt_seen seen = { .nr_fns = 0 };
	uint64_t counts[DT_NR] = { 0 };

	snprintf(so_path, sizeof(so_path), "%s/dtls-%s.so", tmpdir, cc);
	if (!dt_build_type(cc, "-O2 -g -shared -fPIC", "tests/symbols/dtls.c", so_path, 2, &seen, counts))
		return;
	CHECK(dt_has(&seen, "dt_gd|struct node|gd_node.tag|variable"));
	CHECK(dt_has(&seen, "dt_ld|struct node[2]|ld_node[1].val|variable"));
	CHECK(dt_has(&seen, "dt_ld|struct node[2]|ld_node[0].tag|variable"));
}

/* What the thread pointer points at, typed from a C library's kind of
 * DWARF (struct pthread, tcbhead_t); assembly; another object's variable
 * through the .got. */
static void test_dthread(const char *cc)
{
	static const char *const asm_reason = "dt_asm|!hand-written assembly (no types in its DWARF)";
	static const char *const src = "tests/symbols/dthread.c tests/symbols/dasm.S";
	char exe[256], so_path[256];
	struct dt_seen seen = { .nr_fns = 0 }, sseen = { .nr_fns = 0 };
	uint64_t counts[DT_NR] = { 0 };
	bool a64 = strstr(cc, "aarch64") != NULL;

	snprintf(exe, sizeof(exe), "%s/dthread-%s", tmpdir, cc);
	snprintf(so_path, sizeof(so_path), "%s/dthread-%s.so", tmpdir, cc);
	if (!dt_build_type(cc, "-O2 -g -fstack-protector-all", src, exe, 11, &seen, counts) ||
	    !dt_build_type(cc, "-O2 -g -shared -fPIC -DSHARED", src, so_path, 11, &sseen, counts))
		return;
	if (a64) {
		/* struct pthread ends at tpidr_el0, tcbhead_t starts there */
		CHECK(dt_has(&seen, "dt_tid|struct pthread|tid|tracked"));
		CHECK(dt_has(&seen, "dt_cancel|struct pthread|cancelhandling|tracked"));
		CHECK(dt_has(&seen, "dt_threads|tcbhead_t|private|tracked"));
	} else {
		/* %fs:0x10 (header.self) is the descriptor itself */
		CHECK(dt_has(&seen, "dt_tid|struct pthread|header.self|tracked"));
		CHECK(dt_has(&seen, "dt_tid|struct pthread|tid|variable"));
		CHECK(dt_has(&seen, "dt_cancel|struct pthread|cancelhandling|variable"));
		CHECK(dt_has(&seen, "dt_threads|struct pthread|header.multiple_threads|tracked"));
		CHECK(dt_has(&seen, "dt_guarded|struct pthread|header.stack_guard|tracked"));
		CHECK(dt_has(&seen, "dt_guarded|char[64]|buf[?]|variable"));
	}
	/* void *arg at a load the range of its typed cast (an inlined
	 * helper's parameter) ends just before: the register keeps the type */
	CHECK(dt_has(&seen, "dt_callback|struct job|hits|variable"));
	CHECK(dt_has(&sseen, "dt_callback|struct job|hits|variable"));
	/* paths agreeing on the type, not on how it was known: the member,
	 * not an element of an array no one walks */
	CHECK(dt_has(&seen, "dt_join|struct job|hits|tracked"));
	CHECK(dt_has(&sseen, "dt_join|struct job|hits|tracked"));
	/* both loads of the assembly function, and nothing else said of it */
	CHECK(dt_has(&seen, asm_reason) && dt_has(&sseen, asm_reason));
	for (size_t i = 0; i < seen.nr; i++)
		CHECK(strncmp(seen.got[i], "dt_asm|", 7) || !strcmp(seen.got[i], asm_reason));
	/* a shared library: its own variable and another object's, each
	 * through a .got slot, which is itself the linker's */
	CHECK(dt_has(&sseen, "dt_global|int|dt_counter|variable"));
	CHECK(dt_has(&sseen, "dt_peer|struct pthread|peer.tid|variable"));
	CHECK(dt_has(&sseen, "dt_peer|!.got slot (the linker's, no source type)"));
	CHECK(counts[DT_ASM] >= 4 && counts[DT_GOT] >= 2);
}

/* A pointer known only as a register's value on entry
 * (DW_OP_GNU_entry_value, hand-written DWARF): the register is typed
 * there and the type follows the value. A call that does not return
 * (DW_AT_noreturn) has no successor. */
static void test_dentry(void)
{
	char so_path[256];
	struct dt_seen seen = { .nr_fns = 0 };
	uint64_t counts[DT_NR] = { 0 };

	snprintf(so_path, sizeof(so_path), "%s/dentry.so", tmpdir);
	if (!dt_build_type("gcc", "-shared", "tests/symbols/dentry.S", so_path, 4, &seen, counts))
		return;
	CHECK(dt_has(&seen, "dt_entry|struct ctx|b|variable"));
	/* the block after a call that does not return is reached only by
	 * the branch around it, %rax typed */
	CHECK(dt_has(&seen, "dt_noret|struct ctx|b|tracked"));
}

int main(void)
{
	char exe[256], nopie[256];
	struct run r;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/c2cscan-symbols.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		CHECK(!"mkdtemp");
		return test_done("test_symbols");
	}
	test_jit();
	test_kallsyms();
	test_insn();
	test_dtype("gcc", "-O2");
	test_dtype("gcc", "-O0");
	test_dtype_dso("gcc");
	test_dthread("gcc");
	test_dentry();
	/* aarch64 (scripts/install-deps installs the cross compiler):
	 * executable TLS from the symbol table (gcc 12 gives it no DWARF
	 * location), a shared library's through TLS descriptors */
	test_dtype(A64_CC, "-O2");
	test_dtype(A64_CC, "-O0");
	test_dtype_dso(A64_CC);
	test_dthread(A64_CC);
	line_ra = marker_line("tests/symbols/prog.c", "@ra");
	line_call = marker_line("tests/symbols/prog.c", "@call");
	snprintf(exe, sizeof(exe), "%s/prog", tmpdir);
	snprintf(nopie, sizeof(nopie), "%s/prog-nopie", tmpdir);
	if (line_ra < 0 ||
	    sh("gcc -g -O1 -fPIC -shared -o %s/libshlib.so tests/symbols/shlib.c 2>/dev/null", tmpdir) ||
	    sh("gcc -g -O1 -fPIE -pie -o %s tests/symbols/prog.c -L%s -lshlib -Wl,-rpath,%s", exe,
	       tmpdir, tmpdir) ||
	    sh("gcc -g -O1 -no-pie -o %s tests/symbols/prog.c -L%s -lshlib -Wl,-rpath,%s", nopie,
	       tmpdir, tmpdir)) {
		printf("skip: cannot build tests/symbols/prog.c with gcc\n");
	} else {
		test_program(exe, true);
		test_program(nopie, false);
		if (!run_prog(exe, &r)) {
			test_stripped(exe, &r);
			test_mismatch(exe, &r);
		}
		if (!run_prog(nopie, &r))
			test_vmlinux(nopie, &r);
	}
	test_debuginfod_stall();
	sh("rm -rf %s", tmpdir);
	return test_done("test_symbols");
}
