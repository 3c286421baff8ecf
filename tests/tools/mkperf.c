// SPDX-License-Identifier: GPL-2.0
/*
 * mkperf: write a perf.data file (PERFILE2) from a readable scenario.
 *
 *   mkperf SCENARIO.scn OUT.data
 *
 * One directive per line, "keyword key=value ... flag ...". '#' starts a
 * comment (outside double quotes); values with spaces go in double quotes.
 * Numbers are decimal or 0x hex; negative decimals are allowed (pid=-1).
 * Records are written in the order of the lines, so a scenario can place a
 * record "late" in the file with an early time= (out-of-order tests).
 * Unknown keys are errors, reported as "mkperf: FILE:LINE: reason" (exit 1,
 * and the output file is removed).
 *
 *   attr name=NAME [type=raw|hw|sw|tracepoint|hw_cache|N] [config=N] [config1=N]
 *        [ldlat=N] [sample_type=IP,TID,...] [read_format=ID,...] [id=1[,2..]]
 *        [period=N] [freq=N] [precise=N] [sample_id_all=0|1] [branch_sample_type=N]
 *        [exclude_kernel=0|1] [exclude_user=0|1] [build_id=0|1] [regs_user=MASK]
 *        [stack_user=BYTES]
 *      default sample_type: IDENTIFIER,IP,TID,TIME,ADDR,CPU,PERIOD,DATA_SRC,WEIGHT
 *   feature [hostname=S] [osrelease=S] [version=S] [arch=S] [cpudesc=S]
 *        [cpuid=S] [nrcpus=N] [online=N] [numa=0-1:2-3] [sockets=...] [cacheline=N]
 *        [cmdline="a b c"] [total_mem=KB] [omit=cache,numa,topology,...]
 *      (every feature has a default; see tests/fixtures/scenarios/README)
 *   comm   pid= [tid=] [time=] comm=NAME [exec]
 *   fork   pid= ppid= [tid=] [ptid=] [time=]         (exit: same keys)
 *   mmap2  pid= [tid=] [time=] start= len= [pgoff=] [maj= min= ino= gen=]
 *          [buildid=HEX] [prot=rwx] [flags=private|shared[,locked,hugetlb]]
 *          name=PATH [data=0|1] [kernel]
 *   mmap   pid= [tid=] [time=] start= len= [pgoff=] name=PATH [data=0|1] [kernel] [exec]
 *   kernel_mmap [start=] [len=] [time=0]   the "[kernel.kallsyms]_text" map perf
 *          synthesizes (pid -1); without it perf report warns about kptr_restrict
 *   sample [attr=ID] pid= [tid=] [time=] [cpu=] [addr=] [ip=] [src=MNEMONIC|0xHEX]
 *          [weight=] [ins_lat=] [period=] [phys=] [repeat=N] [tstep=N] [kernel]
 *          [regs=V,V,...]   (REGS_USER values, attr regs_user=MASK)
 *          [chain=V,V,...]  (CALLCHAIN entries; "user", "kernel": the context markers)
 *          [stack=HEX] [stack_dyn=N]  (STACK_USER bytes, and how many are valid:
 *                           default all)
 *   round | lost id= lost= | lost_samples lost= | throttle|unthrottle time= id=
 *   alloc  pid= [tid=] [time=] addr= size= [site=] [fn=N]   an allocation event
 *   free   pid= [tid=] [time=] addr= [site=] [fn=N]          (record --alloc's
 *          C2CSCAN_ALLOC feature; time= is the samples' clock, default the next)
 *   frames pid= [tid=] f=A,B,... [n=N]  callers of the last allocation (record
 *          --alloc -g: PD_ALLOC_FRAMES events, 4 frames each; n= forces the count)
 *   alloc_raw HEX...  the feature's payload as given (damaged sections)
 *   spe_info [pmu_type=N] [per_cpu=0|1] [version=1|2] [midr=N]   Arm SPE's
 *          AUXTRACE_INFO (version 1: perf < 6.10's two words; 2: per-CPU
 *          metadata, midr= each CPU's)
 *   time_conv [shift=] [mult=] [zero=] [cycles=] [mask=] [short]   TIME_CONV
 *   spe    [idx=N] [ip=] [el=0|1|2] [addr=] [phys=] [op=ld|st|other|branch]
 *          [src=l1d|l2|peer_core|local_cluster|sys_cache|peer_cluster|remote|
 *          dram|N|none] [lat=N] [events=l1d_access,l1d_refill,tlb_access,
 *          tlb_walk,llc_access,llc_miss,remote,retired|N] [ctx=TID] [ts=N]
 *          [end] [repeat=N]   one SPE record appended to queue idx's buffer
 *          (default idx 0): packets PC, op type, events, latency, context,
 *          VA, PA, data source, then its timestamp (ts=, default the scenario's
 *          time) or, with end, an end packet
 *   spe_bytes [idx=N] HEX...   bytes appended to queue idx's buffer as given
 *   aux_flush [idx=N] [cpu=N] [tid=N] [flags=truncated,partial,collision]
 *          the queue's buffer as an AUXTRACE record (its bytes padded to 8)
 *          for CPU cpu (default idx; -1 for per-thread queues) and thread tid
 *          (default -1), after an AUX record with flags of the first attr's
 *   switch cpu= [time=] [out] next_pid= next_tid= [pid= tid=]   a CPU-wide
 *          context switch (out: pid/tid leaves, next comes in; else
 *          next is the task that left)
 *   zstd_begin ... zstd_end   the records between as one COMPRESSED record
 *          (zstd, as perf record -z writes)
 *   record type=N [misc=N] [data=HEX]     a well-formed record of any type
 *   raw HEX...                              bytes as given (malformed input)
 * Side-band lines also take attr=ID (whose trailer format to use) and cpu=.
 * A record line without time= gets the previous time + 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>
#include "perfdata/alloc.h"
#include "perfdata/perf_data.h"
#include "util/util.h"
#include "perfdata/writer.h"

#define MAX_TOKENS 64
#define MAX_CPUS 4096

struct kv {
	char *key;      /* NULL for a bare flag */
	char *val;
	bool used;
};

struct line {
	struct kv kv[MAX_TOKENS];
	int nr;
	const char *word;
};

struct mattr {
	struct perf_event_attr attr;
	uint64_t ids[64];
	size_t nr_ids;
};

struct mk {
	const char *scn, *out;
	int lineno;
	struct pd_writer *w;
	struct mattr attrs[64];
	size_t nr_attrs;
	uint64_t now;
	bool records;
	/* features */
	char *str[PD_FEAT_CPUID + 1];
	uint32_t nrcpus, online;
	int32_t node[MAX_CPUS], socket[MAX_CPUS];
	bool have_sockets;
	uint32_t cacheline;
	char *cmdline;
	uint64_t total_mem;
	bool omit[PD_FEAT_MAX];
	struct pd_alloc_event *allocs;
	size_t nr_allocs, alloc_allocs;
	uint8_t *alloc_raw;
	size_t alloc_raw_len, alloc_raw_cap;
	/* Arm SPE: each queue's buffer not yet written, and where it starts
	 * in the queue's AUX area */
	struct spe_q {
		uint8_t *b;
		size_t len, cap;
		uint64_t aux_off;
	} spe[64];
	/* zstd_begin .. zstd_end: records gathered for one COMPRESSED record */
	bool zing;
	uint8_t *zbuf;
	size_t zlen, zcap;
};

static struct mk *g_mk;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkperf: %s:%d: ", g_mk->scn, g_mk->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (g_mk->w) {
		struct stat st;

		pd_writer__delete(g_mk->w);
		/* what it wrote, never a device named as the output */
		if (!stat(g_mk->out, &st) && S_ISREG(st.st_mode))
			unlink(g_mk->out);
	}
	exit(1);
}

/* ---- tokens ---------------------------------------------------------------- */

static void tokenize(char *s, struct line *l)
{
	l->nr = 0;
	l->word = NULL;
	for (;;) {
		char *tok, *eq, *d;
		bool quoted = false;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			break;
		tok = s;
		d = s;
		/* copy in place, dropping quotes; '#' inside quotes is literal */
		while (*s && (quoted || (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' &&
					 *s != '#'))) {
			if (*s == '"') {
				quoted = !quoted;
				s++;
				continue;
			}
			*d++ = *s++;
		}
		if (quoted)
			fail("unterminated quote");
		if (*s && *s != '#')
			s++;
		else if (*s == '#')
			*s = '\0';
		*d = '\0';
		if (!l->word) {
			l->word = tok;
			continue;
		}
		if (l->nr == MAX_TOKENS)
			fail("too many words on one line");
		eq = strchr(tok, '=');
		if (eq) {
			*eq = '\0';
			l->kv[l->nr].key = tok;
			l->kv[l->nr].val = eq + 1;
		} else {
			l->kv[l->nr].key = NULL;
			l->kv[l->nr].val = tok;
		}
		l->kv[l->nr].used = false;
		l->nr++;
		if (!*s)
			break;
	}
}

static const char *get(struct line *l, const char *key)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->kv[i].key && !strcmp(l->kv[i].key, key)) {
			l->kv[i].used = true;
			return l->kv[i].val;
		}
	return NULL;
}

static bool flag(struct line *l, const char *name)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (!l->kv[i].key && !strcmp(l->kv[i].val, name)) {
			l->kv[i].used = true;
			return true;
		}
	return false;
}

static void check_used(struct line *l)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (!l->kv[i].used) {
			if (l->kv[i].key)
				fail("unknown key '%s' for %s", l->kv[i].key, l->word);
			fail("unknown word '%s' for %s", l->kv[i].val, l->word);
		}
}

static uint64_t parse_num(const char *key, const char *v)
{
	char *end;
	uint64_t x;

	errno = 0;
	if (*v == '-')
		x = (uint64_t)strtoll(v, &end, 0);
	else
		x = strtoull(v, &end, 0);
	if (!*v || *end || errno)
		fail("%s=%s: not a number", key, v);
	return x;
}

static uint64_t num(struct line *l, const char *key, uint64_t def)
{
	const char *v = get(l, key);

	return v ? parse_num(key, v) : def;
}

static uint64_t need_num(struct line *l, const char *key)
{
	const char *v = get(l, key);

	if (!v)
		fail("%s needs %s=", l->word, key);
	return parse_num(key, v);
}

static uint32_t u32(const char *key, uint64_t x)
{
	if (x > UINT32_MAX && x < (uint64_t)INT32_MIN)
		fail("%s=%" PRIu64 ": does not fit 32 bits", key, x);
	return (uint32_t)x;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits (spaces and a leading 0x ignored) into a new buffer. */
static uint8_t *parse_hex(const char *s, size_t *len)
{
	size_t n = 0, alloc = strlen(s) / 2 + 1;
	uint8_t *b = xmalloc(alloc);
	int hi = -1;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		int v = hexval((unsigned char)*s);

		if (*s == ' ' || *s == '\t')
			continue;
		if (v < 0)
			fail("bad hex digit '%c'", *s);
		if (hi < 0) {
			hi = v;
		} else {
			b[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		fail("odd number of hex digits");
	*len = n;
	return b;
}

/* ---- names -> bits --------------------------------------------------------- */

struct name_bit {
	const char *name;
	uint64_t bit;
};

static const struct name_bit sample_bits[] = {
	{ "IP", PERF_SAMPLE_IP }, { "TID", PERF_SAMPLE_TID }, { "TIME", PERF_SAMPLE_TIME },
	{ "ADDR", PERF_SAMPLE_ADDR }, { "READ", PERF_SAMPLE_READ },
	{ "CALLCHAIN", PERF_SAMPLE_CALLCHAIN }, { "ID", PERF_SAMPLE_ID },
	{ "CPU", PERF_SAMPLE_CPU }, { "PERIOD", PERF_SAMPLE_PERIOD },
	{ "STREAM_ID", PERF_SAMPLE_STREAM_ID }, { "RAW", PERF_SAMPLE_RAW },
	{ "BRANCH_STACK", PERF_SAMPLE_BRANCH_STACK }, { "REGS_USER", PERF_SAMPLE_REGS_USER },
	{ "STACK_USER", PERF_SAMPLE_STACK_USER }, { "WEIGHT", PERF_SAMPLE_WEIGHT },
	{ "DATA_SRC", PERF_SAMPLE_DATA_SRC }, { "IDENTIFIER", PERF_SAMPLE_IDENTIFIER },
	{ "TRANSACTION", PERF_SAMPLE_TRANSACTION }, { "REGS_INTR", PERF_SAMPLE_REGS_INTR },
	{ "PHYS_ADDR", PERF_SAMPLE_PHYS_ADDR }, { "AUX", PERF_SAMPLE_AUX },
	{ "CGROUP", PERF_SAMPLE_CGROUP }, { "DATA_PAGE_SIZE", PERF_SAMPLE_DATA_PAGE_SIZE },
	{ "CODE_PAGE_SIZE", PERF_SAMPLE_CODE_PAGE_SIZE },
	{ "WEIGHT_STRUCT", PERF_SAMPLE_WEIGHT_STRUCT },
	{ NULL, 0 }
};

static const struct name_bit read_bits[] = {
	{ "TOTAL_TIME_ENABLED", PERF_FORMAT_TOTAL_TIME_ENABLED },
	{ "TOTAL_TIME_RUNNING", PERF_FORMAT_TOTAL_TIME_RUNNING },
	{ "ID", PERF_FORMAT_ID }, { "GROUP", PERF_FORMAT_GROUP }, { "LOST", 1 << 4 },
	{ NULL, 0 }
};

static const struct name_bit map_bits[] = {
	{ "shared", MAP_SHARED }, { "private", MAP_PRIVATE }, { "locked", MAP_LOCKED },
	{ "hugetlb", MAP_HUGETLB }, { "noreserve", MAP_NORESERVE },
	{ NULL, 0 }
};

/* "A,B|C" of names from tab, or a number */
static uint64_t parse_bits(const char *key, const char *v, const struct name_bit *tab)
{
	char *copy, *tok, *save = NULL;
	uint64_t x = 0;

	if (v[0] >= '0' && v[0] <= '9')
		return parse_num(key, v);
	copy = xstrdup(v);
	for (tok = strtok_r(copy, ",|", &save); tok; tok = strtok_r(NULL, ",|", &save)) {
		const struct name_bit *nb;

		for (nb = tab; nb->name; nb++)
			if (!strcasecmp(nb->name, tok))
				break;
		if (!nb->name) {
			free(copy);
			fail("%s: unknown name '%s'", key, tok);
		}
		x |= nb->bit;
	}
	free(copy);
	return x;
}

static uint32_t parse_prot(const char *v)
{
	uint32_t p = 0;
	const char *s;

	if (v[0] >= '0' && v[0] <= '9')
		return (uint32_t)parse_num("prot", v);
	for (s = v; *s; s++) {
		switch (*s) {
		case 'r': p |= PROT_READ; break;
		case 'w': p |= PROT_WRITE; break;
		case 'x': p |= PROT_EXEC; break;
		case '-': break;
		default: fail("prot=%s: use r, w, x, - or a number", v);
		}
	}
	return p;
}

/*
 * data_src mnemonics: the values the kernel reports (Intel PEBS load latency
 * table in arch/x86/events/intel/ds.c, HSW+ precise stores, AMD Zen 4 IBS in
 * arch/x86/events/amd/ibs.c, Arm SPE peer encodings in perf's arm-spe.c).
 */
#define M(a, s) PERF_MEM_S(a, s)
#define OP_LH (M(OP, LOAD) | M(LVL, HIT))
#define LD_TLB (M(TLB, HIT) | M(TLB, L1) | M(TLB, L2))
#define LD_STD (LD_TLB | M(BLK, NA))
#define ST_NA (M(SNOOP, NA) | M(LOCK, NA) | M(TLB, NA))
#define REM M(REMOTE, REMOTE)

static const struct name_bit src_names[] = {
	{ "l1", OP_LH | M(LVL, L1) | M(LVLNUM, L1) | M(SNOOP, NONE) | LD_STD },
	{ "lfb", OP_LH | M(LVL, LFB) | M(LVLNUM, LFB) | M(SNOOP, NONE) | LD_STD },
	{ "l2", OP_LH | M(LVL, L2) | M(LVLNUM, L2) | M(SNOOP, NONE) | LD_STD },
	{ "llc", OP_LH | M(LVL, L3) | M(LVLNUM, L3) | M(SNOOP, NONE) | LD_STD },
	{ "lcl_hitm", OP_LH | M(LVL, L3) | M(LVLNUM, L3) | M(SNOOP, HITM) | LD_STD },
	{ "rmt_hitm", OP_LH | M(LVL, REM_CCE1) | REM | M(LVLNUM, L3) | M(SNOOP, HITM) | LD_STD },
	{ "rmt_hit", OP_LH | M(LVL, REM_CCE1) | REM | M(LVLNUM, L3) | M(SNOOP, HIT) | LD_STD },
	{ "lcl_dram", OP_LH | M(LVL, LOC_RAM) | M(LVLNUM, RAM) | M(SNOOP, NONE) | M(SNOOP, MISS) |
		      LD_STD },
	{ "rmt_dram", OP_LH | M(LVL, REM_RAM1) | REM | M(LVLNUM, RAM) | M(SNOOP, NONE) |
		      M(SNOOP, MISS) | LD_STD },
	{ "lcl_peer", OP_LH | M(LVL, L2) | M(LVLNUM, L2) | M(SNOOPX, PEER) },
	{ "rmt_peer", M(OP, LOAD) | M(LVL, REM_CCE1) | M(LVLNUM, ANY_CACHE) | REM |
		      M(SNOOPX, PEER) },
	{ "amd_near_hitm", OP_LH | M(LVL, REM_CCE1) | M(LVLNUM, ANY_CACHE) | REM | M(HOPS, 0) |
			   M(SNOOP, HITM) },
	{ "amd_far_hitm", OP_LH | M(LVL, REM_CCE2) | M(LVLNUM, ANY_CACHE) | REM | M(HOPS, 1) |
			  M(SNOOP, HITM) },
	{ "uncached", OP_LH | M(LVL, UNC) | M(LVLNUM, NA) | M(SNOOP, NONE) | LD_STD },
	{ "io", OP_LH | M(LVL, IO) | M(LVLNUM, IO) | M(SNOOP, NONE) | LD_STD },
	{ "blk", OP_LH | M(LVL, LFB) | M(LVLNUM, LFB) | M(SNOOP, NONE) | LD_TLB | M(BLK, DATA) },
	{ "st_l1hit", M(OP, STORE) | M(LVL, L1) | M(LVL, HIT) | ST_NA },
	{ "st_l1miss", M(OP, STORE) | M(LVL, L1) | M(LVL, MISS) | ST_NA },
	{ "st_na", M(OP, STORE) | M(LVL, NA) | ST_NA },
	{ "na", M(OP, NA) | M(LVL, NA) | ST_NA },
	{ NULL, 0 }
};

#define FIELD(a) ((uint64_t)((1ULL << 5) - 1) << PERF_MEM_##a##_SHIFT)

static uint64_t parse_src(const char *v)
{
	char *copy, *tok, *save = NULL;
	uint64_t x = 0;
	bool first = true;

	if (v[0] >= '0' && v[0] <= '9')
		return parse_num("src", v);
	copy = xstrdup(v);
	for (tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save), first = false) {
		const struct name_bit *nb;

		if (first) {
			for (nb = src_names; nb->name; nb++)
				if (!strcmp(nb->name, tok))
					break;
			if (!nb->name) {
				free(copy);
				fail("src=%s: unknown data source (see tests/fixtures/scenarios/README)", v);
			}
			x = nb->bit;
		} else if (!strcmp(tok, "lock")) {
			x = (x & ~(0x1fULL << PERF_MEM_LOCK_SHIFT)) | M(LOCK, LOCKED);
		} else if (!strcmp(tok, "blk")) {
			x = (x & ~(0x7ULL << PERF_MEM_BLK_SHIFT)) | M(BLK, DATA);
		} else if (!strcmp(tok, "blka")) {
			x = (x & ~(0x7ULL << PERF_MEM_BLK_SHIFT)) | M(BLK, ADDR);
		} else if (!strcmp(tok, "stlbmiss")) {
			x = (x & ~(0x7fULL << PERF_MEM_TLB_SHIFT)) | M(TLB, MISS) | M(TLB, L2);
		} else {
			free(copy);
			fail("src=%s: unknown modifier '+%s' (lock, blk, blka, stlbmiss)", v, tok);
		}
	}
	free(copy);
	return x;
}

/* ---- directives ------------------------------------------------------------ */

static const struct mattr *attr_for(struct mk *mk, struct line *l, uint64_t *id)
{
	const char *v = get(l, "attr");
	size_t i, j;

	if (!mk->nr_attrs)
		fail("%s before any attr line", l->word);
	if (!v) {
		*id = mk->attrs[0].nr_ids ? mk->attrs[0].ids[0] : 0;
		return &mk->attrs[0];
	}
	*id = parse_num("attr", v);
	for (i = 0; i < mk->nr_attrs; i++)
		for (j = 0; j < mk->attrs[i].nr_ids; j++)
			if (mk->attrs[i].ids[j] == *id)
				return &mk->attrs[i];
	fail("attr=%s: no attr line has that id", v);
}

static uint64_t take_time(struct mk *mk, struct line *l)
{
	const char *v = get(l, "time");

	mk->now = v ? parse_num("time", v) : mk->now + 1;
	return mk->now;
}

/* Bytes into the file, or into the block being compressed (zstd_begin). */
static int out_bytes(struct mk *mk, const void *p, size_t n, bool record)
{
	if (mk->zing) {
		xgrow((void **)&mk->zbuf, &mk->zcap, mk->zlen + n, 1);
		memcpy(mk->zbuf + mk->zlen, p, n);
		mk->zlen += n;
		return 0;
	}
	return record ? pd_writer__write(mk->w, p, n) : pd_writer__write_unchecked(mk->w, p, n);
}

static void emit(struct mk *mk, const void *rec, ssize_t n)
{
	int err;

	if (n < 0)
		fail("cannot format the record: %s", strerror((int)-n));
	err = out_bytes(mk, rec, (size_t)n, true);
	if (err)
		fail("write: %s", strerror(-err));
	mk->records = true;
}

/* zstd_end: the block as one PERF_RECORD_COMPRESSED record (as perf
 * record -z writes what it reads from the ring buffers). */
static void do_zstd_end(struct mk *mk)
{
	size_t cap = ZSTD_compressBound(mk->zlen), n;
	uint8_t *rec = xmalloc(8 + cap);
	struct perf_event_header h = { .type = PD_REC_COMPRESSED };
	int err;

	if (!mk->zing)
		fail("zstd_end without zstd_begin");
	n = ZSTD_compress(rec + 8, cap, mk->zbuf, mk->zlen, 3);
	if (ZSTD_isError(n) || 8 + n > UINT16_MAX)
		fail("cannot compress the block (%zu bytes)", mk->zlen);
	h.size = (uint16_t)(8 + n);
	memcpy(rec, &h, sizeof(h));
	mk->zing = false;
	mk->zlen = 0;
	err = pd_writer__write_unchecked(mk->w, rec, 8 + n);
	free(rec);
	if (err)
		fail("write: %s", strerror(-err));
}

static void do_attr(struct mk *mk, struct line *l)
{
	struct mattr *a;
	const char *name = get(l, "name"), *v;
	int err;

	if (mk->nr_attrs == ARRAY_SIZE(mk->attrs))
		fail("too many attrs");
	a = &mk->attrs[mk->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr.size = sizeof(a->attr);
	v = get(l, "type");
	if (!v || !strcmp(v, "raw"))
		a->attr.type = PERF_TYPE_RAW;
	else if (!strcmp(v, "hw") || !strcmp(v, "hardware"))
		a->attr.type = PERF_TYPE_HARDWARE;
	else if (!strcmp(v, "sw") || !strcmp(v, "software"))
		a->attr.type = PERF_TYPE_SOFTWARE;
	else if (!strcmp(v, "tracepoint"))
		a->attr.type = PERF_TYPE_TRACEPOINT;
	else if (!strcmp(v, "hw_cache"))
		a->attr.type = PERF_TYPE_HW_CACHE;
	else
		a->attr.type = (uint32_t)parse_num("type", v);
	a->attr.config = num(l, "config", 0);
	a->attr.config1 = num(l, "config1", num(l, "ldlat", 0));
	a->attr.config2 = num(l, "config2", 0);
	v = get(l, "sample_type");
	a->attr.sample_type = v ? parse_bits("sample_type", v, sample_bits) :
			      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	v = get(l, "read_format");
	a->attr.read_format = v ? parse_bits("read_format", v, read_bits) : 0;
	v = get(l, "freq");
	if (v) {
		a->attr.freq = 1;
		a->attr.sample_freq = parse_num("freq", v);
	} else {
		a->attr.sample_period = num(l, "period", 1);
	}
	a->attr.precise_ip = num(l, "precise", 0) & 3;
	a->attr.sample_id_all = num(l, "sample_id_all", 1) & 1;
	a->attr.exclude_kernel = num(l, "exclude_kernel", 0) & 1;
	a->attr.exclude_user = num(l, "exclude_user", 0) & 1;
	a->attr.branch_sample_type = num(l, "branch_sample_type", 0);
	a->attr.sample_regs_user = num(l, "regs_user", 0);
	a->attr.sample_stack_user = (uint32_t)num(l, "stack_user", 0);
	a->attr.build_id = num(l, "build_id", 0) & 1;
	/* what perf record sets for a memory-sampling session */
	a->attr.disabled = 1;
	a->attr.inherit = 1;
	a->attr.mmap = 1;
	a->attr.comm = 1;
	a->attr.task = 1;
	a->attr.mmap_data = 1;
	a->attr.mmap2 = 1;
	a->attr.comm_exec = 1;
	a->attr.exclude_guest = 1;
	v = get(l, "id");
	if (v) {
		char *copy = xstrdup(v), *tok, *save = NULL;

		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (a->nr_ids == ARRAY_SIZE(a->ids)) {
				free(copy);
				fail("too many ids");
			}
			a->ids[a->nr_ids++] = parse_num("id", tok);
		}
		free(copy);
	}
	check_used(l);
	if (mk->nr_attrs && (!(a->attr.sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) ||
			     !a->nr_ids))
		fail("with several attrs, each needs id= and IDENTIFIER or ID in sample_type");
	err = pd_writer__add_attr(mk->w, &a->attr, name, a->ids, a->nr_ids);
	if (err)
		fail("attr: %s", strerror(-err));
	mk->nr_attrs++;
}

static void set_str(struct mk *mk, int feat, const char *v)
{
	free(mk->str[feat]);
	mk->str[feat] = xstrdup(v);
}

/* "0-3,8" into cpus; returns the count */
static void parse_cpu_list(const char *key, const char *s, int32_t *arr, int32_t val)
{
	char *copy = xstrdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		uint64_t a, b, c;

		if (dash)
			*dash = '\0';
		a = parse_num(key, tok);
		b = dash ? parse_num(key, dash + 1) : a;
		if (b < a || b >= MAX_CPUS) {
			free(copy);
			fail("%s: bad cpu range", key);
		}
		for (c = a; c <= b; c++)
			arr[c] = val;
	}
	free(copy);
}

/* "0-1:2-3": node 0 = cpus 0-1, node 1 = cpus 2-3 (same for sockets) */
static void parse_groups(const char *key, const char *v, int32_t *arr)
{
	char *copy = xstrdup(v), *tok, *save = NULL;
	int32_t g = 0;

	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		parse_cpu_list(key, tok, arr, g++);
	free(copy);
}

static void do_feature(struct mk *mk, struct line *l)
{
	static const struct { const char *key; int feat; } strs[] = {
		{ "hostname", PD_FEAT_HOSTNAME }, { "osrelease", PD_FEAT_OSRELEASE },
		{ "version", PD_FEAT_VERSION }, { "arch", PD_FEAT_ARCH },
		{ "cpudesc", PD_FEAT_CPUDESC }, { "cpuid", PD_FEAT_CPUID },
	};
	static const struct { const char *name; int feat; } omits[] = {
		{ "hostname", PD_FEAT_HOSTNAME }, { "osrelease", PD_FEAT_OSRELEASE },
		{ "version", PD_FEAT_VERSION }, { "arch", PD_FEAT_ARCH },
		{ "cpudesc", PD_FEAT_CPUDESC }, { "cpuid", PD_FEAT_CPUID },
		{ "nrcpus", PD_FEAT_NRCPUS }, { "total_mem", PD_FEAT_TOTAL_MEM },
		{ "cmdline", PD_FEAT_CMDLINE }, { "event_desc", PD_FEAT_EVENT_DESC },
		{ "topology", PD_FEAT_CPU_TOPOLOGY }, { "numa", PD_FEAT_NUMA_TOPOLOGY },
		{ "cache", PD_FEAT_CACHE },
	};
	const char *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		v = get(l, strs[i].key);
		if (v)
			set_str(mk, strs[i].feat, v);
	}
	v = get(l, "nrcpus");
	if (v) {
		uint64_t n = parse_num("nrcpus", v);

		if (!n || n > MAX_CPUS)
			fail("nrcpus=%s: 1..%d", v, MAX_CPUS);
		mk->nrcpus = mk->online = (uint32_t)n;
		for (i = 0; i < MAX_CPUS; i++)
			mk->node[i] = i < n ? 0 : -1;
	}
	mk->online = (uint32_t)num(l, "online", mk->online);
	if (mk->online > mk->nrcpus)
		fail("online > nrcpus");
	v = get(l, "numa");
	if (v) {
		for (i = 0; i < MAX_CPUS; i++)
			mk->node[i] = -1;
		parse_groups("numa", v, mk->node);
	}
	v = get(l, "sockets");
	if (v) {
		for (i = 0; i < MAX_CPUS; i++)
			mk->socket[i] = 0;
		parse_groups("sockets", v, mk->socket);
		mk->have_sockets = true;
	}
	for (i = mk->nrcpus; i < MAX_CPUS; i++)
		if (mk->node[i] >= 0 || (mk->have_sockets && mk->socket[i]))
			fail("numa/sockets list cpu %zu, but nrcpus=%u", i, mk->nrcpus);
	mk->cacheline = (uint32_t)num(l, "cacheline", mk->cacheline);
	mk->total_mem = num(l, "total_mem", mk->total_mem);
	v = get(l, "cmdline");
	if (v) {
		free(mk->cmdline);
		mk->cmdline = xstrdup(v);
	}
	v = get(l, "omit");
	if (v) {
		char *copy = xstrdup(v), *tok, *save = NULL;

		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < ARRAY_SIZE(omits); i++)
				if (!strcmp(omits[i].name, tok))
					break;
			if (i == ARRAY_SIZE(omits)) {
				free(copy);
				fail("omit: unknown feature '%s'", tok);
			}
			mk->omit[omits[i].feat] = true;
		}
		free(copy);
	}
	check_used(l);
}

static void sid_of(struct line *l, struct pd_sample_id *sid, uint32_t pid, uint32_t tid,
		   uint64_t time, uint64_t id)
{
	memset(sid, 0, sizeof(*sid));
	sid->pid = pid;
	sid->tid = tid;
	sid->time = time;
	sid->id = id;
	sid->cpu = u32("cpu", num(l, "cpu", 0));
}

static void do_comm(struct mk *mk, struct line *l)
{
	uint8_t buf[512];
	struct pd_comm c = { 0 };
	struct pd_sample_id sid;
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);
	uint64_t t;

	c.pid = u32("pid", need_num(l, "pid"));
	c.tid = u32("tid", num(l, "tid", c.pid));
	c.comm = get(l, "comm");
	if (!c.comm)
		fail("comm needs comm=");
	if (strlen(c.comm) > 255)
		fail("comm too long");
	c.exec = flag(l, "exec");
	t = take_time(mk, l);
	sid_of(l, &sid, c.pid, c.tid, t, id);
	check_used(l);
	emit(mk, buf, pd_fmt_comm(buf, sizeof(buf), &a->attr, &c, &sid));
}

static void do_fork(struct mk *mk, struct line *l, uint32_t type)
{
	uint8_t buf[256];
	struct pd_fork f = { 0 };
	struct pd_sample_id sid;
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);

	f.pid = u32("pid", need_num(l, "pid"));
	f.ppid = u32("ppid", num(l, "ppid", f.pid));
	f.tid = u32("tid", num(l, "tid", f.pid));
	f.ptid = u32("ptid", num(l, "ptid", f.ppid));
	f.time = take_time(mk, l);
	sid_of(l, &sid, f.pid, f.tid, f.time, id);
	check_used(l);
	emit(mk, buf, pd_fmt_fork(buf, sizeof(buf), &a->attr, type, &f, &sid));
}

static void do_mmap(struct mk *mk, struct line *l, bool v2)
{
	uint8_t buf[8192];
	struct pd_mmap m = { 0 };
	struct pd_sample_id sid;
	uint64_t id, t;
	const struct mattr *a = attr_for(mk, l, &id);
	const char *v;
	uint16_t misc;

	m.v2 = v2;
	m.pid = u32("pid", need_num(l, "pid"));
	m.tid = u32("tid", num(l, "tid", m.pid));
	m.start = need_num(l, "start");
	m.len = need_num(l, "len");
	m.pgoff = num(l, "pgoff", 0);
	m.filename = get(l, "name");
	if (!m.filename)
		fail("%s needs name= (use name=\"\" for an empty name)", l->word);
	if (strlen(m.filename) > 4095)
		fail("name too long");
	misc = flag(l, "kernel") ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (v2) {
		v = get(l, "buildid");
		if (v) {
			size_t n;
			uint8_t *b = parse_hex(v, &n);

			if (n > sizeof(m.build_id)) {
				free(b);
				fail("buildid: at most 20 bytes");
			}
			memcpy(m.build_id, b, n);
			m.build_id_size = (uint8_t)n;
			m.build_id_form = true;
			free(b);
		}
		m.maj = u32("maj", num(l, "maj", 0));
		m.min = u32("min", num(l, "min", 0));
		m.ino = num(l, "ino", 0);
		m.ino_generation = num(l, "gen", 0);
		if (m.build_id_form && (m.maj || m.min || m.ino || m.ino_generation))
			fail("buildid= replaces maj/min/ino/gen: give one or the other");
		v = get(l, "prot");
		m.prot = v ? parse_prot(v) : PROT_READ | PROT_WRITE;
		v = get(l, "flags");
		m.flags = v ? (uint32_t)parse_bits("flags", v, map_bits) : MAP_PRIVATE;
		/* the kernel marks non-executable mappings MMAP_DATA */
		m.data = num(l, "data", !(m.prot & PROT_EXEC)) != 0;
	} else {
		m.data = num(l, "data", !flag(l, "exec")) != 0;
	}
	t = take_time(mk, l);
	sid_of(l, &sid, m.pid, m.tid, t, id);
	check_used(l);
	emit(mk, buf, pd_fmt_mmap(buf, sizeof(buf), &a->attr, misc, &m, &sid));
}

/*
 * The kernel map perf record synthesizes first: MMAP, pid -1, named
 * "[kernel.kallsyms]_text", pgoff = address of _text. Without it perf
 * report warns that kernel address maps were restricted.
 */
static void do_kernel_mmap(struct mk *mk, struct line *l)
{
	uint8_t buf[256];
	struct pd_mmap m = { 0 };
	struct pd_sample_id sid;
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);
	const char *t = get(l, "time");

	m.pid = (uint32_t)-1;
	m.tid = 0;
	m.start = num(l, "start", 0xffffffff81000000ULL);
	m.len = num(l, "len", 0x1400000);
	m.pgoff = m.start;
	m.filename = "[kernel.kallsyms]_text";
	sid_of(l, &sid, m.pid, m.tid, t ? parse_num("time", t) : 0, id);
	check_used(l);
	emit(mk, buf, pd_fmt_mmap(buf, sizeof(buf), &a->attr, PERF_RECORD_MISC_KERNEL, &m, &sid));
}

/* "1,0x2,user,...": numbers; with markers, "user" and "kernel" are
 * PERF_CONTEXT_USER and PERF_CONTEXT_KERNEL. */
static size_t u64_list(const char *key, const char *v, uint64_t *out, size_t max, bool markers)
{
	size_t n = 0;

	for (const char *p = v; *p; p += *p == ',') {
		char *end;

		if (n == max)
			fail("%s: more than %zu values", key, max);
		if (markers && !strncmp(p, "user", 4)) {
			out[n++] = (uint64_t)-512;
			p += 4;
			continue;
		}
		if (markers && !strncmp(p, "kernel", 6)) {
			out[n++] = (uint64_t)-128;
			p += 6;
			continue;
		}
		out[n++] = strtoull(p, &end, 0);
		if (end == p)
			fail("bad %s '%s'", key, v);
		p = end;
	}
	return n;
}

static void do_sample(struct mk *mk, struct line *l)
{
	static uint8_t buf[70000];
	struct pd_sample s = { 0 };
	static uint64_t regs[PD_SAMPLE_REGS], chain[1024];
	uint8_t *stack = NULL;
	uint64_t id, repeat, tstep, i;
	const struct mattr *a = attr_for(mk, l, &id);
	const char *v;
	uint16_t misc;

	s.id = id;
	s.pid = u32("pid", need_num(l, "pid"));
	s.tid = u32("tid", num(l, "tid", s.pid));
	s.cpu = u32("cpu", num(l, "cpu", 0));
	s.addr = num(l, "addr", 0);
	s.ip = num(l, "ip", 0x401000);
	v = get(l, "src");
	s.data_src = v ? parse_src(v) : parse_src("na");
	s.weight = num(l, "weight", 0);
	s.ins_lat = (uint16_t)num(l, "ins_lat", 0);
	s.period = num(l, "period", 1);
	s.phys_addr = num(l, "phys", 0);
	s.stream_id = num(l, "stream_id", id);
	s.data_page_size = num(l, "dpage", 4096);
	s.code_page_size = num(l, "cpage", 4096);
	v = get(l, "regs");
	if (v) {
		/* regs=0x1,0x2,...: REGS_USER values, abi 64-bit */
		s.nr_regs = (uint32_t)u64_list("regs", v, regs, PD_SAMPLE_REGS, false);
		s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
		s.regs = regs;
	}
	v = get(l, "chain");
	if (v) {
		s.callchain_nr = u64_list("chain", v, chain, ARRAY_SIZE(chain), true);
		s.callchain = chain;
	}
	v = get(l, "stack");
	if (v) {
		size_t n;

		stack = parse_hex(v, &n);
		s.stack = stack;
		s.stack_size = n;
		s.stack_dyn_size = num(l, "stack_dyn", n);
	}
	repeat = num(l, "repeat", 1);
	tstep = num(l, "tstep", 1);
	if (!repeat || repeat > 10000000)
		fail("repeat=%" PRIu64 ": 1..10000000", repeat);
	misc = flag(l, "kernel") ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	s.time = take_time(mk, l);
	check_used(l);
	for (i = 0; i < repeat; i++) {
		emit(mk, buf, pd_fmt_sample(buf, sizeof(buf), &a->attr, misc, &s));
		if (i + 1 < repeat)
			s.time += tstep;
	}
	free(stack);
	mk->now = s.time;
}

static void do_lost(struct mk *mk, struct line *l, bool samples)
{
	uint8_t buf[256];
	struct pd_lost lo = { 0 };
	struct pd_sample_id sid;
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);

	lo.id = num(l, "id", id);
	lo.lost = need_num(l, "lost");
	sid_of(l, &sid, u32("pid", num(l, "pid", 0)), u32("tid", num(l, "tid", 0)),
	       take_time(mk, l), id);
	check_used(l);
	emit(mk, buf, samples ? pd_fmt_lost_samples(buf, sizeof(buf), &a->attr, &lo, &sid) :
				pd_fmt_lost(buf, sizeof(buf), &a->attr, &lo, &sid));
}

static void do_throttle(struct mk *mk, struct line *l, uint32_t type)
{
	uint8_t buf[256];
	struct pd_throttle t = { 0 };
	struct pd_sample_id sid;
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);

	t.time = take_time(mk, l);
	t.id = num(l, "id", id);
	t.stream_id = num(l, "stream_id", t.id);
	sid_of(l, &sid, u32("pid", num(l, "pid", 0)), u32("tid", num(l, "tid", 0)),
	       t.time, id);
	check_used(l);
	emit(mk, buf, pd_fmt_throttle(buf, sizeof(buf), &a->attr, type, &t, &sid));
}

static void do_record(struct mk *mk, struct line *l)
{
	struct perf_event_header h;
	const char *v = get(l, "data");
	uint8_t *payload = NULL, *rec;
	size_t n = 0, size;

	h.type = (uint32_t)need_num(l, "type");
	h.misc = (uint16_t)num(l, "misc", 0);
	if (v)
		payload = parse_hex(v, &n);
	check_used(l);
	size = (sizeof(h) + n + 7) & ~(size_t)7;
	if (size > UINT16_MAX) {
		free(payload);
		fail("record too large");
	}
	h.size = (uint16_t)size;
	rec = xcalloc(1, size);
	memcpy(rec, &h, sizeof(h));
	if (n)
		memcpy(rec + sizeof(h), payload, n);
	emit(mk, rec, (ssize_t)size);
	free(rec);
	free(payload);
}

static void do_raw(struct mk *mk, struct line *l)
{
	struct { char *p; size_t len, alloc; } all = { 0 };
	uint8_t *b;
	size_t n;
	int i, err;

	for (i = 0; i < l->nr; i++) {
		const char *t = l->kv[i].val;

		if (l->kv[i].key)
			fail("raw takes hex bytes only");
		l->kv[i].used = true;
		xgrow((void **)&all.p, &all.alloc, all.len + strlen(t) + 1, 1);
		memcpy(all.p + all.len, t, strlen(t) + 1);
		all.len += strlen(t);
	}
	if (!all.len)
		fail("raw needs hex bytes");
	b = parse_hex(all.p, &n);
	free(all.p);
	err = out_bytes(mk, b, n, false);
	free(b);
	if (err)
		fail("write: %s", strerror(-err));
	mk->records = true;
}

static void do_alloc(struct mk *mk, struct line *l, bool alloc)
{
	struct pd_alloc_event *e;

	xgrow((void **)&mk->allocs, &mk->alloc_allocs, mk->nr_allocs + 1, sizeof(*mk->allocs));
	e = &mk->allocs[mk->nr_allocs++];
	memset(e, 0, sizeof(*e));
	e->pid = u32("pid", need_num(l, "pid"));
	e->tid = u32("tid", num(l, "tid", e->pid));
	e->time = take_time(mk, l);
	e->addr = need_num(l, "addr");
	e->size = alloc ? need_num(l, "size") : 0;
	e->site = num(l, "site", 0);
	e->kind = alloc ? PD_ALLOC_ALLOC : PD_ALLOC_FREE;
	e->fn = (uint16_t)num(l, "fn", alloc ? PD_ALLOC_FN_MALLOC : PD_ALLOC_FN_FREE);
	check_used(l);
}

/* frames pid= [tid=] f=A,B,..  the callers of the last allocation (record
 * --alloc -g), 4 to a PD_ALLOC_FRAMES event; [n=N] overrides the count
 * word of each event (damaged stacks). */
static void do_frames(struct mk *mk, struct line *l)
{
	const char *v = get(l, "f");
	uint64_t f[64];
	size_t nr;

	if (!v)
		fail("frames needs f=");
	nr = u64_list("f", v, f, ARRAY_SIZE(f), false);
	uint32_t pid = u32("pid", need_num(l, "pid")), tid = u32("tid", num(l, "tid", pid));
	uint64_t n = num(l, "n", 0);

	check_used(l);
	for (size_t i = 0; i < nr;) {
		struct pd_alloc_event *e;

		xgrow((void **)&mk->allocs, &mk->alloc_allocs, mk->nr_allocs + 1, sizeof(*mk->allocs));
		e = &mk->allocs[mk->nr_allocs++];
		i += pd_alloc__frames(e, f + i, nr - i, pid, tid);
		if (n)
			e->fn = (uint16_t)n;    /* a damaged count */
	}
}

static void do_alloc_raw(struct mk *mk, struct line *l)
{
	for (int i = 0; i < l->nr; i++) {
		const char *h = l->kv[i].key ? l->kv[i].key : l->kv[i].val;

		l->kv[i].used = true;
		for (size_t k = 0; h && h[k] && h[k + 1]; k += 2) {
			unsigned int b;

			if (sscanf(h + k, "%2x", &b) != 1)
				fail("alloc_raw: bad hex '%s'", h);
			xgrow((void **)&mk->alloc_raw, &mk->alloc_raw_cap, mk->alloc_raw_len + 1, 1);
			mk->alloc_raw[mk->alloc_raw_len++] = (uint8_t)b;
		}
	}
}

static void put_bytes(struct spe_q *q, const void *p, size_t n)
{
	xgrow((void **)&q->b, &q->cap, q->len + n, 1);
	memcpy(q->b + q->len, p, n);
	q->len += n;
}

/* A packet: header h then n little-endian payload bytes of v. */
static void packet(struct spe_q *q, uint8_t h, uint64_t v, unsigned int n)
{
	uint8_t b[9];

	b[0] = h;
	for (unsigned int i = 0; i < n; i++)
		b[1 + i] = (uint8_t)(v >> (8 * i));
	put_bytes(q, b, 1 + n);
}

static struct spe_q *spe_queue(struct mk *mk, struct line *l)
{
	uint64_t idx = num(l, "idx", 0);

	if (idx >= sizeof(mk->spe) / sizeof(mk->spe[0]))
		fail("idx= must be below 64");
	return &mk->spe[idx];
}

static void do_spe_info(struct mk *mk, struct line *l)
{
	uint64_t rec[2 + 4 + 6 * 4] = { 0 };
	uint64_t version = num(l, "version", 1), pmu = num(l, "pmu_type", 8), midr = num(l, "midr", 0x410fd0c0);
	size_t words;

	check_used(l);
	/* perf < 6.10's form: what record writes */
	if (version == 1) {
		uint8_t buf[64];

		emit(mk, buf, pd_fmt_auxtrace_info_spe(buf, sizeof(buf), (uint32_t)pmu, true));
		return;
	}
	/* header: version, its size in words, PMU type, CPUs; each CPU:
	 * magic, cpu, parameters, MIDR, PMU type, min interval */
	rec[2] = 1;
	rec[3] = 4;
	rec[4] = pmu;
	rec[5] = mk->nrcpus < 4 ? mk->nrcpus : 4;
	for (uint64_t c = 0; c < rec[5]; c++) {
		uint64_t *m = &rec[6 + 6 * c];

		m[0] = 0x1010101010101010ULL;
		m[1] = c;
		m[2] = 3;
		m[3] = midr;
		m[4] = pmu;
		m[5] = 1024;
	}
	words = 6 + 6 * rec[5];
	rec[0] = PD_REC_AUXTRACE_INFO | (uint64_t)(words * 8) << 48;
	rec[1] = PD_AUXTRACE_ARM_SPE;   /* and reserved */
	emit(mk, rec, (ssize_t)(words * 8));
}

static void do_time_conv(struct mk *mk, struct line *l)
{
	struct pd_time_conv tc = { .present = true, .cap_zero = true };
	uint8_t buf[64];

	tc.shift = num(l, "shift", 0);
	tc.mult = num(l, "mult", 1);
	tc.zero = num(l, "zero", 0);
	tc.cycles = num(l, "cycles", 0);
	tc.mask = num(l, "mask", 0);
	tc.cap_short = flag(l, "short");
	check_used(l);
	emit(mk, buf, pd_fmt_time_conv(buf, sizeof(buf), &tc));
}

static void do_switch(struct mk *mk, struct line *l)
{
	uint8_t buf[256];
	uint64_t id;
	const struct mattr *a = attr_for(mk, l, &id);
	struct pd_sample_id sid;
	struct pd_lost np;
	uint32_t pid = u32("pid", num(l, "pid", (uint64_t)-1)), tid = u32("tid", num(l, "tid", pid));
	uint16_t misc = flag(l, "out") ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	uint32_t type = PERF_RECORD_SWITCH_CPU_WIDE;
	ssize_t n;

	memset(&np, 0, sizeof(np));
	np.lost = u32("next_pid", need_num(l, "next_pid")) | (uint64_t)u32("next_tid", need_num(l, "next_tid")) << 32;
	sid_of(l, &sid, pid, tid, take_time(mk, l), id);
	check_used(l);
	/* laid out as LOST_SAMPLES is: one u64 (next_prev_pid, _tid), the trailer */
	n = pd_fmt_lost_samples(buf, sizeof(buf), &a->attr, &np, &sid);
	if (n > 0) {
		memcpy(buf, &type, 4);
		memcpy(buf + 4, &misc, 2);
	}
	emit(mk, buf, n);
}

static const struct name_bit spe_sources[] = {
	{ "l1d", 0x0 }, { "l2", 0x8 }, { "peer_core", 0x9 }, { "local_cluster", 0xa }, { "sys_cache", 0xb },
	{ "peer_cluster", 0xc }, { "remote", 0xd }, { "dram", 0xe }, { NULL, 0 },
};

static const struct name_bit spe_events[] = {
	{ "retired", 1 << 1 }, { "l1d_access", 1 << 2 }, { "l1d_refill", 1 << 3 }, { "tlb_access", 1 << 4 },
	{ "tlb_walk", 1 << 5 }, { "llc_access", 1 << 8 }, { "llc_miss", 1 << 9 }, { "remote", 1 << 10 },
	{ NULL, 0 },
};

static void do_spe(struct mk *mk, struct line *l)
{
	struct spe_q *q = spe_queue(mk, l);
	const char *op = get(l, "op"), *src = get(l, "src"), *ev = get(l, "events");
	uint64_t ip = num(l, "ip", 0x400000), el = num(l, "el", 0), addr = num(l, "addr", 0);
	uint64_t phys = num(l, "phys", 0), lat = num(l, "lat", 0), repeat = num(l, "repeat", 1);
	uint64_t ts = num(l, "ts", mk->now), ctx = num(l, "ctx", UINT64_MAX), events = 0, source = UINT64_MAX;
	bool end = flag(l, "end");
	uint8_t opb = 0x49, opv = 0;

	if (!op || !strcmp(op, "ld")) {
		opv = 0;
	} else if (!strcmp(op, "st")) {
		opv = 1;
	} else if (!strcmp(op, "other")) {
		opb = 0x48;
	} else if (!strcmp(op, "branch")) {
		opb = 0x4a;
	} else {
		fail("op=%s: ld, st, other or branch", op);
	}
	if (ev)
		events = ev[0] >= '0' && ev[0] <= '9' ? parse_num("events", ev) : parse_bits("events", ev, spe_events);
	if (src && strcmp(src, "none"))
		source = src[0] >= '0' && src[0] <= '9' ? parse_num("src", src) : parse_bits("src", src, spe_sources);
	check_used(l);
	for (uint64_t i = 0; i < repeat; i++) {
		packet(q, 0xb0, ip | 1ULL << 63 | (el & 3) << 61, 8);
		packet(q, opb, opv, 1);
		packet(q, 0x52, events, 2);
		packet(q, 0x98, lat, 2);
		if (ctx != UINT64_MAX)
			packet(q, 0x65, ctx, 4);
		if (opb == 0x49) {
			packet(q, 0xb2, addr, 8);
			packet(q, 0xb3, phys | 1ULL << 63, 8);
		}
		if (source != UINT64_MAX)
			packet(q, 0x53, source, 2);
		if (end)
			packet(q, 0x01, 0, 0);
		else
			packet(q, 0x71, ts + i, 8);
	}
	mk->now = ts + repeat - 1;
}

static void do_spe_bytes(struct mk *mk, struct line *l)
{
	struct spe_q *q = NULL;

	for (int i = 0; i < l->nr; i++) {
		if (l->kv[i].key && !strcmp(l->kv[i].key, "idx")) {
			q = spe_queue(mk, l);
		} else if (!l->kv[i].key) {
			size_t n;
			uint8_t *b = parse_hex(l->kv[i].val, &n);

			l->kv[i].used = true;
			put_bytes(q ? q : &mk->spe[0], b, n);
			free(b);
		}
	}
	check_used(l);
}

static const struct name_bit aux_flags[] = {
	{ "truncated", 0x01 }, { "overwrite", 0x02 }, { "partial", 0x04 }, { "collision", 0x08 }, { NULL, 0 },
};

static void do_aux_flush(struct mk *mk, struct line *l)
{
	uint64_t idx = num(l, "idx", 0);
	struct spe_q *q = spe_queue(mk, l);
	int64_t cpu = (int64_t)num(l, "cpu", idx), tid = (int64_t)num(l, "tid", (uint64_t)-1);
	const char *fl = get(l, "flags");
	uint64_t flags = fl ? parse_bits("flags", fl, aux_flags) : 0, size = (q->len + 7) & ~7ULL;
	struct pd_sample_id sid = { .pid = (uint32_t)tid, .tid = (uint32_t)tid, .time = mk->now,
				    .cpu = (uint32_t)cpu, .id = mk->attrs[0].ids[0] };
	uint8_t buf[256];
	int err;

	check_used(l);
	/* the kernel's AUX record: where in the area, how much, flags; then
	 * perf's AUXTRACE record and the bytes, padded with PAD packets */
	emit(mk, buf, pd_fmt_aux(buf, sizeof(buf), &mk->attrs[0].attr, q->aux_off, q->len, flags, &sid));
	emit(mk, buf, pd_fmt_auxtrace(buf, sizeof(buf), size, q->aux_off, (uint32_t)idx, (uint32_t)tid,
				      (uint32_t)cpu));
	xgrow((void **)&q->b, &q->cap, size ? size : 1, 1);
	memset(q->b + q->len, 0, size - q->len);
	err = size ? out_bytes(mk, q->b, size, false) : 0;
	if (err)
		fail("write: %s", strerror(-err));
	q->aux_off += size;
	q->len = 0;
}

static void line(struct mk *mk, char *s)
{
	struct line l;
	uint8_t buf[16];
	const char *w;

	tokenize(s, &l);
	w = l.word;
	if (!w)
		return;
	if (!strcmp(w, "attr"))
		do_attr(mk, &l);
	else if (!strcmp(w, "feature"))
		do_feature(mk, &l);
	else if (!strcmp(w, "comm"))
		do_comm(mk, &l);
	else if (!strcmp(w, "fork"))
		do_fork(mk, &l, PERF_RECORD_FORK);
	else if (!strcmp(w, "exit"))
		do_fork(mk, &l, PERF_RECORD_EXIT);
	else if (!strcmp(w, "mmap2"))
		do_mmap(mk, &l, true);
	else if (!strcmp(w, "mmap"))
		do_mmap(mk, &l, false);
	else if (!strcmp(w, "kernel_mmap"))
		do_kernel_mmap(mk, &l);
	else if (!strcmp(w, "sample"))
		do_sample(mk, &l);
	else if (!strcmp(w, "round")) {
		check_used(&l);
		emit(mk, buf, pd_fmt_finished_round(buf, sizeof(buf)));
	} else if (!strcmp(w, "lost"))
		do_lost(mk, &l, false);
	else if (!strcmp(w, "lost_samples"))
		do_lost(mk, &l, true);
	else if (!strcmp(w, "throttle"))
		do_throttle(mk, &l, PERF_RECORD_THROTTLE);
	else if (!strcmp(w, "unthrottle"))
		do_throttle(mk, &l, PERF_RECORD_UNTHROTTLE);
	else if (!strcmp(w, "alloc"))
		do_alloc(mk, &l, true);
	else if (!strcmp(w, "free"))
		do_alloc(mk, &l, false);
	else if (!strcmp(w, "frames"))
		do_frames(mk, &l);
	else if (!strcmp(w, "alloc_raw"))
		do_alloc_raw(mk, &l);
	else if (!strcmp(w, "switch"))
		do_switch(mk, &l);
	else if (!strcmp(w, "zstd_begin")) {
		check_used(&l);
		mk->zing = true;
	} else if (!strcmp(w, "zstd_end")) {
		check_used(&l);
		do_zstd_end(mk);
	} else if (!strcmp(w, "spe_info"))
		do_spe_info(mk, &l);
	else if (!strcmp(w, "time_conv"))
		do_time_conv(mk, &l);
	else if (!strcmp(w, "spe"))
		do_spe(mk, &l);
	else if (!strcmp(w, "spe_bytes"))
		do_spe_bytes(mk, &l);
	else if (!strcmp(w, "aux_flush"))
		do_aux_flush(mk, &l);
	else if (!strcmp(w, "record"))
		do_record(mk, &l);
	else if (!strcmp(w, "raw"))
		do_raw(mk, &l);
	else
		fail("unknown directive '%s'", w);
}

static void set_features(struct mk *mk)
{
	struct pd_writer *w = mk->w;
	int f, err = 0;

	for (f = PD_FEAT_HOSTNAME; f <= PD_FEAT_CPUID; f++)
		if (mk->str[f] && !mk->omit[f])
			err = err ? err : pd_writer__set_string(w, f, mk->str[f]);
	if (!mk->omit[PD_FEAT_NRCPUS])
		err = err ? err : pd_writer__set_nrcpus(w, mk->nrcpus, mk->online);
	if (!mk->omit[PD_FEAT_TOTAL_MEM])
		err = err ? err : pd_writer__set_total_mem(w, mk->total_mem);
	if (!mk->omit[PD_FEAT_CACHE])
		err = err ? err : pd_writer__set_cacheline(w, mk->cacheline);
	if (!mk->omit[PD_FEAT_CPU_TOPOLOGY] && !mk->omit[PD_FEAT_NUMA_TOPOLOGY]) {
		/* the writer writes both from one description: omitting one
		 * (omit=topology or omit=numa) omits both */
		err = err ? err : pd_writer__set_topology(w, mk->nrcpus, mk->node, NULL,
							 mk->have_sockets ? mk->socket : NULL);
	}
	if (!mk->omit[PD_FEAT_CMDLINE]) {
		char *copy = xstrdup(mk->cmdline), *tok, *save = NULL;
		const char *argv[256];
		int argc = 0;

		for (tok = strtok_r(copy, " ", &save); tok && argc < 256;
		     tok = strtok_r(NULL, " ", &save))
			argv[argc++] = tok;
		err = err ? err : pd_writer__set_cmdline(w, argc, argv);
		free(copy);
	}
	if (err)
		fail("features: %s", strerror(-err));
}

int main(int argc, char **argv)
{
	static struct mk mk;
	char *buf = NULL;
	size_t cap = 0;
	FILE *in;
	int err, f;

	if (argc != 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: mkperf SCENARIO.scn OUT.data\n"
				"Scenario syntax: see the top of tests/tools/mkperf.c and "
				"tests/fixtures/scenarios/README.\n");
		return argc == 2 && !strcmp(argv[1], "-h") ? 0 : 1;
	}
	g_mk = &mk;
	mk.scn = argv[1];
	mk.out = argv[2];
	in = fopen(mk.scn, "r");
	if (!in) {
		fprintf(stderr, "mkperf: %s: %s\n", mk.scn, strerror(errno));
		return 1;
	}
	/* defaults: a plausible 4-cpu, one-node Intel machine */
	set_str(&mk, PD_FEAT_HOSTNAME, "fixture");
	set_str(&mk, PD_FEAT_OSRELEASE, "6.1.0-fixture");
	set_str(&mk, PD_FEAT_VERSION, "6.1.0");
	set_str(&mk, PD_FEAT_ARCH, "x86_64");
	set_str(&mk, PD_FEAT_CPUDESC, "Intel(R) Xeon(R) Fixture CPU @ 2.00GHz");
	set_str(&mk, PD_FEAT_CPUID, "GenuineIntel,6,85,4");
	mk.nrcpus = mk.online = 4;
	for (f = 0; f < MAX_CPUS; f++)
		mk.node[f] = f < 4 ? 0 : -1;
	mk.cacheline = 64;
	mk.total_mem = 16ULL << 20;
	mk.cmdline = xstrdup("perf c2c record -- ./bench");

	err = pd_writer__open(&mk.w, mk.out);
	if (err) {
		fprintf(stderr, "mkperf: %s: %s\n", mk.out, strerror(-err));
		return 1;
	}
	while (getline(&buf, &cap, in) >= 0) {
		mk.lineno++;
		line(&mk, buf);
	}
	free(buf);
	fclose(in);
	mk.lineno++;
	if (!mk.nr_attrs)
		fail("no attr line");
	set_features(&mk);
	if (mk.alloc_raw) {
		pd_writer__set_alloc(mk.w, mk.alloc_raw, mk.alloc_raw_len);
	} else if (mk.nr_allocs) {
		size_t len;
		uint8_t *p = pd_alloc__encode(mk.allocs, mk.nr_allocs, NULL, 0, 0, &len);

		if (!p)
			fail("cannot encode the allocation events");
		pd_writer__set_alloc(mk.w, p, len);
	}
	free(mk.allocs);
	free(mk.zbuf);
	for (f = 0; f < 64; f++)
		free(mk.spe[f].b);
	err = pd_writer__finish(mk.w);
	if (err)
		fail("finishing %s: %s", mk.out, strerror(-err));
	pd_writer__delete(mk.w);
	for (f = 0; f <= PD_FEAT_CPUID; f++)
		free(mk.str[f]);
	free(mk.cmdline);
	return 0;
}
