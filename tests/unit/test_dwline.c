// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of src/names/dwline.c, the line table decoder, against libdw:
 * - hand-written tables whose answers are known (sequences out of order,
 *   rows at one address, file names and directories, DWARF64, big-endian,
 *   tables both refuse);
 * - thousands of random tables (tests/unit/dwline_oracle.h): libdw and dwline
 *   must accept the same ones and give the same row, line and file for every
 *   address around every row;
 * - real binaries: c2cscan itself and the test programs, and, when gcc is
 *   here, a program compiled with -gdwarf-2, -gdwarf-4, -gdwarf-5 at -O0 and
 *   -O2: every CU, every row address and its neighbours.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <unistd.h>

#include "dwline_oracle.h"
#include "test.h"

/* ---- hand-written tables ---- */

static void op_ext(struct lt_buf *b, unsigned int op, uint64_t addr, unsigned int asize)
{
	lb_u(b, 0, 1);
	lb_uleb(b, op == DW_LNE_set_address ? 1 + asize : 1);
	lb_u(b, op, 1);
	if (op == DW_LNE_set_address)
		lb_u(b, addr, asize);
}

/* The parameters after the header length: minimum instruction length 1,
 * 1 operation per instruction, is_stmt 1, line_base -5, line_range 14,
 * opcode_base 13 and the standard opcodes' lengths. */
static void std_params(struct lt_buf *b)
{
	static const uint8_t std[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	static const uint8_t params[] = { 1, 1, 1, (uint8_t)-5, 14, 13 };

	lb_put(b, params, sizeof(params));
	lb_put(b, std, sizeof(std));
}

/* A DWARF 4 table: dirs "inc", files a.c (dir 0), inc/b.h (dir 1), /abs/c.h;
 * program bytes from the caller. opcode_base 13, line_base -5, range 14. */
static void v4_header(struct lt_unit *u, bool dwarf64)
{
	struct lt_buf *b = &u->line;
	unsigned int osize = dwarf64 ? 8 : 4;

	u->version = 4;
	u->address_size = 8;
	u->opcode_base = 13;
	if (dwarf64)
		lb_u(b, 0xffffffff, 4);
	lb_u(b, 0, osize);                      /* unit length, set by v4_finish */
	lb_u(b, 4, 2);
	lb_u(b, 0, osize);                      /* header length, set below */
	std_params(b);
	lb_str(b, "inc");
	lb_u(b, 0, 1);
	lb_str(b, "a.c");
	lb_uleb(b, 0);
	lb_uleb(b, 0);
	lb_uleb(b, 0);
	lb_str(b, "b.h");
	lb_uleb(b, 1);
	lb_uleb(b, 0);
	lb_uleb(b, 0);
	lb_str(b, "/abs/c.h");
	lb_uleb(b, 1);
	lb_uleb(b, 0);
	lb_uleb(b, 0);
	lb_u(b, 0, 1);
	lb_set_u(b, (dwarf64 ? 4 : 0) + osize + 2, b->n - ((dwarf64 ? 4 : 0) + osize + 2 + osize), osize);
}

static void v4_finish(struct lt_unit *u, bool dwarf64)
{
	unsigned int osize = dwarf64 ? 8 : 4, at = dwarf64 ? 4 : 0;

	lb_set_u(&u->line, at, u->line.n - at - osize, osize);
}

static struct dwline *decode_unit(struct lt_unit *u, int *ret)
{
	struct dwline_sections sec = { u->line.p, u->line_str.p, u->str.p, u->line.n, u->line_str.n,
				       u->str.n, u->be };
	struct dwline *t = NULL;

	*ret = dwline__new(&t, &sec, 0, u->comp_dir, u->address_size);
	return t;
}

static void expect(const struct dwline *t, uint64_t addr, const char *file, int line)
{
	const char *f = NULL;
	int l = 0, rc = dwline__find(t, addr, &f, &l);

	if (!file) {
		CHECK(rc == -ENOENT);
		return;
	}
	CHECK(rc == 0);
	CHECK_STR(f, file);
	CHECK_EQ_U64(l, line);
}

/* Row at (addr, line) by a special opcode: address advance a, line advance d. */
static void special(struct lt_buf *b, unsigned int a, int d)
{
	lb_u(b, (unsigned int)(d + 5) + 14 * a + 13, 1);
}

static void test_known(bool dwarf64, bool be)
{
	struct lt_unit u = { .comp_dir = "/cd" };
	struct lt_buf *b = &u.line;
	struct dwline *t;
	struct lt_result res;
	int ret;

	u.be = u.line.be = u.line_str.be = u.str.be = be;
	v4_header(&u, dwarf64);
	/* sequence 2 first, at 0x2000: lines 10, 11; file 3 */
	lb_u(b, DW_LNS_set_file, 1);
	lb_uleb(b, 3);
	op_ext(b, DW_LNE_set_address, 0x2000, 8);
	lb_u(b, DW_LNS_advance_line, 1);
	lb_sleb(b, 9);
	lb_u(b, DW_LNS_copy, 1);               /* 0x2000 line 10 */
	special(b, 4, 1);                       /* 0x2004 line 11 */
	lb_u(b, DW_LNS_advance_pc, 1);
	lb_uleb(b, 4);
	op_ext(b, DW_LNE_end_sequence, 0, 8);   /* ends at 0x2008 */
	/* sequence 1 at 0x1000: line 1 (a.c), then 3 rows at 0x1004, last wins */
	op_ext(b, DW_LNE_set_address, 0x1000, 8);
	lb_u(b, DW_LNS_copy, 1);               /* 0x1000 line 1 file 1 */
	special(b, 4, 4);                       /* 0x1004 line 5 */
	special(b, 0, 1);                       /* 0x1004 line 6 */
	lb_u(b, DW_LNS_set_file, 1);
	lb_uleb(b, 2);
	special(b, 0, 1);                       /* 0x1004 line 7 inc/b.h */
	special(b, 8, -5);                      /* 0x100c line 2 */
	lb_u(b, DW_LNS_advance_pc, 1);
	lb_uleb(b, 0x2000 - 0x100c);
	op_ext(b, DW_LNE_end_sequence, 0, 8);   /* ends at 0x2000, where sequence 2 starts */
	v4_finish(&u, dwarf64);

	t = decode_unit(&u, &ret);
	CHECK(ret == 0 && t);
	if (t) {
		CHECK_EQ_U64(dwline__nr_rows(t), 9);
		CHECK_EQ_U64(dwline__nr_files(t), 4);
		CHECK_STR(dwline__file(t, 0), "???");
		CHECK_STR(dwline__file(t, 1), "/cd/a.c");
		CHECK_STR(dwline__file(t, 2), "inc/b.h");
		CHECK_STR(dwline__file(t, 3), "/abs/c.h");
		CHECK(dwline__file(t, 4) == NULL);
		expect(t, 0xfff, NULL, 0);
		expect(t, 0x1000, "/cd/a.c", 1);
		expect(t, 0x1003, "/cd/a.c", 1);
		expect(t, 0x1004, "inc/b.h", 7);
		expect(t, 0x100b, "inc/b.h", 7);
		expect(t, 0x100c, "inc/b.h", 2);
		expect(t, 0x1fff, "inc/b.h", 2);
		/* the end of sequence 1 and the start of sequence 2 share 0x2000 */
		expect(t, 0x2000, "/abs/c.h", 10);
		expect(t, 0x2004, "/abs/c.h", 11);
		expect(t, 0x2007, "/abs/c.h", 11);
		expect(t, 0x2008, NULL, 0);
		expect(t, 0x9000, NULL, 0);
	}
	dwline__delete(t);
	res = lt_compare(&u, NULL);
	CHECK(res.ours == 0 && res.libdw == 0);
	CHECK_EQ_U64(res.mismatches, 0);
	CHECK(res.queries >= 27);

	/* without comp_dir, a.c stays relative */
	u.comp_dir = NULL;
	t = decode_unit(&u, &ret);
	CHECK(t && !strcmp(dwline__file(t, 1), "a.c"));
	dwline__delete(t);
	CHECK_EQ_U64(lt_compare(&u, NULL).mismatches, 0);
	lt_unit_free(&u);
}

/* u is refused by dwline and by libdw alike; frees it. */
static void expect_refused(struct lt_unit *u)
{
	struct dwline *t;
	int ret;

	t = decode_unit(u, &ret);
	CHECK(ret == -EINVAL && !t);
	CHECK_EQ_U64(lt_compare(u, NULL).mismatches, 0);
	lt_unit_free(u);
}

/* Tables both refuse, and what a lying header cannot make us do. */
static void test_refused(void)
{
	struct lt_unit u = { 0 };
	struct dwline *t;
	int ret;

	/* version 6 */
	v4_header(&u, false);
	lb_set_u(&u.line, 4, 6, 2);
	v4_finish(&u, false);
	expect_refused(&u);

	/* a line number past INT_MAX */
	v4_header(&u, false);
	op_ext(&u.line, DW_LNE_set_address, 0x1000, 8);
	lb_u(&u.line, DW_LNS_advance_line, 1);
	lb_sleb(&u.line, 0x7fffffff);
	lb_u(&u.line, DW_LNS_copy, 1);
	v4_finish(&u, false);
	expect_refused(&u);

	/* a unit length past the section, a zero-length section, an offset past it */
	v4_header(&u, false);
	lb_set_u(&u.line, 0, 0x7ffffff0, 4);
	t = decode_unit(&u, &ret);
	CHECK(ret == -EINVAL && !t);
	u.line.n = 0;
	t = decode_unit(&u, &ret);
	CHECK(ret == -EINVAL && !t);
	lt_unit_free(&u);

	/* DWARF 5 with a file count no section could hold */
	{
		struct lt_buf *b = &u.line;

		u.version = 5;
		u.address_size = 8;
		lb_u(b, 0, 4);
		lb_u(b, 5, 2);
		lb_u(b, 8, 1);
		lb_u(b, 0, 1);
		lb_u(b, 0, 4);
		std_params(b);
		lb_u(b, 1, 1);
		lb_uleb(b, DW_LNCT_path);
		lb_uleb(b, DW_FORM_string);
		lb_uleb(b, 1);
		lb_str(b, "/d");
		lb_u(b, 2, 1);
		lb_uleb(b, DW_LNCT_path);
		lb_uleb(b, DW_FORM_string);
		lb_uleb(b, DW_LNCT_directory_index);
		lb_uleb(b, DW_FORM_udata);
		lb_uleb(b, 1ULL << 60);
		lb_set_u(b, 0, b->n - 4, 4);
		expect_refused(&u);
	}
}

/* ---- random tables ---- */

static void test_random(unsigned int n)
{
	unsigned long valid = 0, refused = 0, unsupported = 0, queries = 0, bad = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct lt_src r = { .x = 0x9e3779b97f4a7c15ULL * (i + 1) };
		struct lt_unit u = { 0 };
		struct lt_result res;

		lt_generate(&r, &u);
		res = lt_compare(&u, &r);
		if (res.mismatches && bad++ < 3)
			fprintf(stderr, "random table %u: %lu mismatches\n", i, res.mismatches);
		if (res.ours == -EOPNOTSUPP)
			unsupported++;
		else if (res.ours)
			refused++;
		else
			valid++;
		queries += res.queries;
		lt_unit_free(&u);
	}
	printf("random tables: %u, read %lu, refused by both %lu, unsupported %lu; %lu addresses compared\n",
	       n, valid, refused, unsupported, queries);
	CHECK_EQ_U64(bad, 0);
	/* the generator must mostly make tables worth comparing */
	CHECK(valid * 2 > n);
	CHECK(refused > 0);
	CHECK(queries > 100000);
}

/* ---- real binaries ---- */

struct real_stats {
	unsigned long cus, decoded, unsupported, queries, mismatches;
};

/* Every CU of path: decoded here and compared with libdw, or (split DWARF)
 * refused with -EOPNOTSUPP so that the caller asks libdw. */
static int compare_file(const char *path, struct real_stats *st)
{
	static const Dwfl_Callbacks cb = { .find_debuginfo = dwfl_standard_find_debuginfo,
					   .section_address = dwfl_offline_section_address };
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	struct dwline_sections sec;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !dwfl) {
		if (fd >= 0)
			close(fd);
		dwfl_end(dwfl);
		return -1;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "x", path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod || !dwfl_module_getdwarf(mod, &bias) ||
	    dwline__sections(dwarf_getelf(dwfl_module_getdwarf(mod, &bias)), &sec)) {
		dwfl_end(dwfl);
		return -1;
	}
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		struct lt_result res = { 0 };
		struct dwline *t;
		int ret = dwline__new_cu(&t, &sec, cu);

		st->cus++;
		if (ret == -EOPNOTSUPP)
			st->unsupported++;
		if (ret)
			continue;
		st->decoded++;
		lt_compare_cu(&res, cu, t);
		st->queries += res.queries;
		st->mismatches += res.mismatches;
		dwline__delete(t);
	}
	dwfl_end(dwfl);
	return 0;
}

struct variant {
	const char *cc, *flags;
	bool split;     /* split DWARF: every CU left to libdw */
};

static void test_real(void)
{
	const char *b = getenv("B") ? getenv("B") : "build";
	static const struct variant vars[] = {
		{ "gcc", "-gdwarf-2 -O0", false }, { "gcc", "-gdwarf-4 -O2", false },
		{ "gcc", "-gdwarf-5 -O2", false }, { "gcc", "-gdwarf-5 -O0 -gstrict-dwarf", false },
		{ "gcc", "-gdwarf-4 -gz -O1", false }, { "gcc", "-gdwarf-5 -O2 -ffunction-sections", false },
		{ "gcc", "-gdwarf-5 -O2 -flto", false },
		{ "clang", "-gdwarf-5 -O2", false }, { "clang", "-gdwarf-4 -O1", false },
		{ "gcc", "-gdwarf-5 -gsplit-dwarf -O1", true },
	};
	char path[512], dir[] = "/tmp/test_dwline.XXXXXX", cmd[PATH_MAX + 1024], src[PATH_MAX];
	struct real_stats st = { 0 };
	int files = 0;

	if (!realpath("tests/symbols/shlib.c", src)) {
		printf("skip: run from the source tree for tests/symbols/shlib.c\n");
		return;
	}

	snprintf(path, sizeof(path), "%s/c2cscan", b);
	files += compare_file(path, &st) == 0;
	snprintf(path, sizeof(path), "%s/progs/memtouch", b);
	files += compare_file(path, &st) == 0;
	if (!mkdtemp(dir))
		return;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		struct real_stats one = { 0 };

		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", vars[i].cc);
		if (system(cmd)) {
			printf("skip: no %s\n", vars[i].cc);
			continue;
		}
		snprintf(path, sizeof(path), "%s/lib%zu.so", dir, i);
		/* in dir: -gsplit-dwarf writes its .dwo where the compiler runs */
		snprintf(cmd, sizeof(cmd), "cd %s && %s %s -shared -fPIC -o %s %s 2>/dev/null", dir, vars[i].cc,
			 vars[i].flags, path, src);
		if (system(cmd)) {
			printf("skip: %s %s\n", vars[i].cc, vars[i].flags);
			continue;
		}
		CHECK(compare_file(path, &one) == 0);
		if (vars[i].split) {
			CHECK(one.cus > 0 && one.unsupported == one.cus);
			continue;
		}
		CHECK(one.cus > 0 && one.decoded == one.cus);
		files++;
		st.cus += one.cus;
		st.decoded += one.decoded;
		st.queries += one.queries;
		st.mismatches += one.mismatches;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	printf("real binaries: %d files, %lu CUs, %lu decoded here, %lu addresses compared\n", files, st.cus,
	       st.decoded, st.queries);
	CHECK(files >= 2);
	CHECK(st.decoded * 10 >= st.cus * 9);
	CHECK(st.queries > 10000);
	CHECK_EQ_U64(st.mismatches, 0);
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 4000;

	test_known(false, false);
	test_known(true, false);
	test_known(false, true);
	test_refused();
	test_random(n);
	test_real();
	return test_done("test_dwline");
}
