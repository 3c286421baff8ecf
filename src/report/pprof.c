// SPDX-License-Identifier: GPL-2.0
/*
 * report --pprof FILE: the view as a pprof profile (profile.proto,
 * gzip-compressed), for `go tool pprof` and the profile stores that read
 * it. One sample per (row, call chain) of every line of the view; its
 * values: HITM (loads and stores that found the line modified elsewhere),
 * their latency in cycles scaled by the mean period, loads, stores and all
 * samples; its labels: the line, the data it touches, the heap object's
 * site, the line's verdict, the process. A row's location is its code
 * address in its object, with the function and source line as the report
 * names them (an inlined body first, its caller after); a call chain's
 * frames (report -g) are locations of their function names. The encoder is
 * libprotobuf-c's (src/report/pprof/profile.pb-c.c, made by protoc-c from
 * profile.proto), the compression zlib's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "names/names.h"
#include "report/callchain.h"
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/output.h"
#include "report/pprof/profile.pb-c.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/htab.h"
#include "util/util.h"

enum { V_HITM, V_HITM_CYCLES, V_LOADS, V_STORES, V_SAMPLES, NR_VALUES };
enum { L_LINE, L_DATA, L_HEAP, L_VERDICT, L_OBJECT, NR_STR_LABELS };

struct pp {
	/* the string table, interned: [0] is "" */
	char **strs;
	size_t nr_strs, alloc_strs;
	struct htab str_idx;
	/* functions by (name, file), locations by (object, address) or by
	 * frame name, mappings by object */
	Perftools__Profiles__Function **funcs;
	size_t nr_funcs, alloc_funcs;
	struct u64map func_idx;
	Perftools__Profiles__Location **locs;
	size_t nr_locs, alloc_locs;
	struct u64map loc_idx;
	Perftools__Profiles__Mapping **maps;
	size_t nr_maps, alloc_maps;
	struct u64map map_idx;
	Perftools__Profiles__Sample **samples;
	size_t nr_samples, alloc_samples;
};

/* A count or cycles from a double: absurd periods saturate, never overflow. */
static int64_t i64_of(double x)
{
	if (!(x >= 0))
		return 0;
	return x < 9.2e18 ? (int64_t)(x + 0.5) : INT64_MAX;
}

static int64_t str_of(struct pp *p, const char *s)
{
	uint32_t hash, i;
	size_t pos;

	if (!s)
		s = "";
	hash = (uint32_t)hash_bytes(s, strlen(s), 0);
	pos = htab__start(&p->str_idx, hash);
	while ((i = htab__next(&p->str_idx, hash, &pos)) != HTAB_NONE)
		if (!strcmp(p->strs[i], s))
			return i;
	xgrow((void **)&p->strs, &p->alloc_strs, p->nr_strs + 1, sizeof(*p->strs));
	p->strs[p->nr_strs] = xstrdup(s);
	htab__insert(&p->str_idx, pos, hash, (uint32_t)p->nr_strs);
	return (int64_t)p->nr_strs++;
}

static uint64_t pair_key(int64_t a, int64_t b)
{
	return (uint64_t)a << 32 ^ (uint64_t)b;
}

static uint64_t func_of(struct pp *p, const char *name, const char *file)
{
	int64_t n = str_of(p, name), f = str_of(p, file);
	uint64_t key = pair_key(n, f), id;
	Perftools__Profiles__Function *fn;

	if (u64map__get(&p->func_idx, key, &id))
		return id;
	fn = xcalloc(1, sizeof(*fn));
	perftools__profiles__function__init(fn);
	fn->id = p->nr_funcs + 1;
	fn->name = fn->system_name = n;
	fn->filename = f;
	xgrow((void **)&p->funcs, &p->alloc_funcs, p->nr_funcs + 1, sizeof(*p->funcs));
	p->funcs[p->nr_funcs++] = fn;
	u64map__put(&p->func_idx, key, fn->id);
	return fn->id;
}

static uint64_t mapping_of(struct pp *p, const char *object, const struct map_desc *m)
{
	int64_t name = str_of(p, object);
	uint64_t id;
	Perftools__Profiles__Mapping *mp;
	char bid[41];

	if (u64map__get(&p->map_idx, (uint64_t)name, &id))
		return id;
	mp = xcalloc(1, sizeof(*mp));
	perftools__profiles__mapping__init(mp);
	mp->id = p->nr_maps + 1;
	mp->filename = name;
	if (m) {
		mp->memory_start = m->start;
		mp->memory_limit = m->end;
		mp->file_offset = m->pgoff;
		if (m->build_id_size) {
			for (unsigned int i = 0; i < m->build_id_size && i < 20; i++)
				snprintf(bid + 2 * i, 3, "%02x", m->build_id[i]);
			mp->build_id = str_of(p, bid);
		}
	}
	mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = true;
	xgrow((void **)&p->maps, &p->alloc_maps, p->nr_maps + 1, sizeof(*p->maps));
	p->maps[p->nr_maps++] = mp;
	u64map__put(&p->map_idx, (uint64_t)name, mp->id);
	return mp->id;
}

static Perftools__Profiles__Location *loc_new(struct pp *p, uint64_t key)
{
	Perftools__Profiles__Location *l = xcalloc(1, sizeof(*l));

	perftools__profiles__location__init(l);
	l->id = p->nr_locs + 1;
	xgrow((void **)&p->locs, &p->alloc_locs, p->nr_locs + 1, sizeof(*p->locs));
	p->locs[p->nr_locs++] = l;
	u64map__put(&p->loc_idx, key, l->id);
	return l;
}

static void loc_line(Perftools__Profiles__Location *l, uint64_t func, int line)
{
	Perftools__Profiles__Line *ln = xcalloc(1, sizeof(*ln));

	perftools__profiles__line__init(ln);
	ln->function_id = func;
	ln->line = line > 0 ? line : 0;
	l->line = xrealloc(l->line, l->n_line + 1, sizeof(*l->line));
	l->line[l->n_line++] = ln;
}

/* The row's code: its address in its object, the function and line as the
 * report names them (an inlined body, then the function it is in). */
static uint64_t row_loc(struct pp *p, const struct report *r, const struct c2c_row *row, const struct row_names *nm)
{
	const char *object = row->code_object ? row->code_object :
			     row->cpumode == PERF_RECORD_MISC_KERNEL ? "[kernel]" : "[unknown]";
	uint64_t key = hash64(row->iaddr ^ hash64((uint64_t)str_of(p, object))) | 1, id;
	const struct code_loc *c = &nm->code;
	Perftools__Profiles__Location *l;
	char name[160];

	if (u64map__get(&p->loc_idx, key, &id))
		return id;
	l = loc_new(p, key);
	l->mapping_id = mapping_of(p, object, row->code_map);
	l->address = row->iaddr;
	if (nm->code_ok && c->inl_func) {
		loc_line(l, func_of(p, c->inl_func, c->file), c->line);
		loc_line(l, func_of(p, c->inl_caller ? c->inl_caller : c->func, c->caller_file), c->caller_line);
	} else if (nm->code_ok && c->func) {
		loc_line(l, func_of(p, c->func, c->file), c->line);
	} else {
		/* no symbol: the object and the address, as the tables say */
		snprintf(name, sizeof(name), "%s+%#" PRIx64, object_base_name(object), row->iaddr);
		loc_line(l, func_of(p, name, NULL), 0);
	}
	return l->id;
}

/* A caller of a call chain: its function name is all the report keeps
 * (the key's low bit 0 apart from row_loc's 1). */
static uint64_t frame_loc(struct pp *p, const char *frame)
{
	int64_t name = str_of(p, frame);
	uint64_t key = hash64((uint64_t)name) & ~1ull, id;
	Perftools__Profiles__Location *l;

	if (u64map__get(&p->loc_idx, key, &id))
		return id;
	l = loc_new(p, key);
	loc_line(l, func_of(p, frame, NULL), 0);
	return l->id;
}

static Perftools__Profiles__Label *label(struct pp *p, const char *key, const char *str, int64_t num)
{
	Perftools__Profiles__Label *lb = xcalloc(1, sizeof(*lb));

	perftools__profiles__label__init(lb);
	lb->key = str_of(p, key);
	if (str)
		lb->str = str_of(p, str);
	else
		lb->num = num;
	return lb;
}

/* One sample: locations (the leaf first), values scaled by part/whole of
 * the row's, the labels. */
static void add_sample(struct pp *p, const uint64_t *locs, size_t nr_locs, const int64_t *vals, uint64_t part,
		       uint64_t whole, const char *const *strs, uint32_t pid)
{
	static const char *const keys[NR_STR_LABELS] = {
		[L_LINE] = "cacheline", [L_DATA] = "data", [L_HEAP] = "heap_site", [L_VERDICT] = "verdict",
		[L_OBJECT] = "object",
	};
	Perftools__Profiles__Sample *s = xcalloc(1, sizeof(*s));

	perftools__profiles__sample__init(s);
	s->location_id = xmalloc(nr_locs * sizeof(*s->location_id));
	memcpy(s->location_id, locs, nr_locs * sizeof(*locs));
	s->n_location_id = nr_locs;
	s->value = xcalloc(NR_VALUES, sizeof(*s->value));
	s->n_value = NR_VALUES;
	for (int v = 0; v < NR_VALUES; v++)
		s->value[v] = whole ? i64_of((double)vals[v] * (double)part / (double)whole) : vals[v];
	s->label = xcalloc(NR_STR_LABELS + 1, sizeof(*s->label));
	for (int k = 0; k < NR_STR_LABELS; k++)
		if (strs[k] && strs[k][0])
			s->label[s->n_label++] = label(p, keys[k], strs[k], 0);
	if (pid)
		s->label[s->n_label++] = label(p, "pid", NULL, pid);
	xgrow((void **)&p->samples, &p->alloc_samples, p->nr_samples + 1, sizeof(*p->samples));
	p->samples[p->nr_samples++] = s;
}

/* The samples of line l: one per row, or per call chain of a row. */
static void line_samples(struct pp *p, const struct report *r, const struct c2c_line *l)
{
	char line_addr[24], data[256], heap_site[160], src[160];
	const char *strs[NR_STR_LABELS] = { line_addr, data, heap_site, NULL, line_object(l) };
	struct line_verdict v;

	report__verdict(r, l, &v);
	strs[L_VERDICT] = verdict__word(v.kind);
	line_verdict__exit(&v);
	snprintf(line_addr, sizeof(line_addr), "%#" PRIx64, l->addr);
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];
		const struct c2c_stats *st = &row->stats;
		int64_t vals[NR_VALUES] = {
			[V_HITM] = (int64_t)st->tot_hitm + st->st_hitm,
			[V_HITM_CYCLES] = i64_of((double)row->lat.hitm_sum * (r->hitm_period > 0 ? r->hitm_period : 1)),
			[V_LOADS] = (int64_t)report__est(r, st, C2C_STAT_load), [V_STORES] = (int64_t)report__est(r, st, C2C_STAT_store), [V_SAMPLES] = st->nr_entries,
		};
		uint32_t pid = row->pids.nr == 1 ? u32set__data(&row->pids)[0] : 0;
		const struct report_chain *ch;
		uint64_t with_stack = 0, locs[66];
		struct row_names nm;
		struct heap_ref h;
		size_t nr;

		/* the data as the Data column names it */
		report__row_names(r, l, row, &nm);
		data[0] = '\0';
		if (nm.data_ok)
			names__data_scnprintf(&nm.data, data, sizeof(data));
		heap_site[0] = '\0';
		if (report__row_heap(r, l, row, &h))
			report__heap_site(r, h.obj, SITE_UNKNOWN_ADDRESS, heap_site, sizeof(heap_site), src,
					  sizeof(src));
		locs[0] = row_loc(p, r, row, &nm);
		nr = report__call_graph(r) ? report__row_chains(r, l, row, &ch, &with_stack) : 0;
		for (size_t c = 0; c < nr; c++) {
			size_t n = 1;

			/* frames[0] is the row's own function */
			for (uint32_t f = 1; f < ch[c].nr_frames && n < ARRAY_SIZE(locs); f++)
				locs[n++] = frame_loc(p, ch[c].frames[f]);
			add_sample(p, locs, n, vals, ch[c].samples, st->nr_entries, strs, pid);
		}
		if (!nr || with_stack < st->nr_entries)
			add_sample(p, locs, 1, vals, st->nr_entries - with_stack, nr ? st->nr_entries : 0, strs, pid);
	}
}

static void value_type(struct pp *p, Perftools__Profiles__ValueType **out, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType *t = xcalloc(1, sizeof(*t));

	perftools__profiles__value_type__init(t);
	t->type = str_of(p, type);
	t->unit = str_of(p, unit);
	*out = t;
}

static void pp_free(struct pp *p, Perftools__Profiles__Profile *prof)
{
	for (size_t i = 0; i < prof->n_sample_type; i++)
		free(prof->sample_type[i]);
	free(prof->sample_type);
	free(prof->period_type);
	free(prof->comment);
	for (size_t i = 0; i < p->nr_samples; i++) {
		for (size_t k = 0; k < p->samples[i]->n_label; k++)
			free(p->samples[i]->label[k]);
		free(p->samples[i]->label);
		free(p->samples[i]->value);
		free(p->samples[i]->location_id);
		free(p->samples[i]);
	}
	for (size_t i = 0; i < p->nr_locs; i++) {
		for (size_t k = 0; k < p->locs[i]->n_line; k++)
			free(p->locs[i]->line[k]);
		free(p->locs[i]->line);
		free(p->locs[i]);
	}
	for (size_t i = 0; i < p->nr_funcs; i++)
		free(p->funcs[i]);
	for (size_t i = 0; i < p->nr_maps; i++)
		free(p->maps[i]);
	for (size_t i = 0; i < p->nr_strs; i++)
		free(p->strs[i]);
	free(p->samples);
	free(p->locs);
	free(p->funcs);
	free(p->maps);
	free(p->strs);
	htab__exit(&p->str_idx);
	u64map__exit(&p->func_idx);
	u64map__exit(&p->loc_idx);
	u64map__exit(&p->map_idx);
}

/* buf (len bytes) gzip-compressed into path: 0 or -errno (-EIO when zlib
 * does not say). */
static int write_gz(const char *path, const uint8_t *buf, size_t len)
{
	gzFile gz;
	size_t done = 0;

	errno = 0;
	gz = gzopen(path, "wb");
	if (!gz)
		return -(errno ? errno : ENOMEM);
	while (done < len) {
		unsigned int n = len - done > (1u << 30) ? 1u << 30 : (unsigned int)(len - done);

		errno = 0;
		if (gzwrite(gz, buf + done, n) != (int)n) {
			int e = errno ? errno : EIO;

			gzclose(gz);
			return -e;
		}
		done += n;
	}
	errno = 0;
	if (gzclose(gz) != Z_OK)
		return -(errno ? errno : EIO);
	return 0;
}

int report__write_pprof(struct report *r, const char *path)
{
	Perftools__Profiles__Profile prof;
	struct pp p;
	uint8_t *buf;
	size_t len;
	int ret;

	memset(&p, 0, sizeof(p));
	perftools__profiles__profile__init(&prof);
	str_of(&p, "");
	prof.sample_type = xcalloc(NR_VALUES, sizeof(*prof.sample_type));
	prof.n_sample_type = NR_VALUES;
	/* load HITM + store HITM: "contention", as the line header and JSON call it */
	value_type(&p, &prof.sample_type[V_HITM], "contention", "count");
	value_type(&p, &prof.sample_type[V_HITM_CYCLES], "hitm_latency", "cycles");
	value_type(&p, &prof.sample_type[V_LOADS], "loads", "count");
	value_type(&p, &prof.sample_type[V_STORES], "stores", "count");
	value_type(&p, &prof.sample_type[V_SAMPLES], "samples", "count");
	/* what a recording without HITM (page faults) has is its samples */
	prof.default_sample_type = str_of(&p, c2c_stats__metric(report__totals(r), C2C_DISPLAY_TOT) ?
					     "contention" : "samples");
	value_type(&p, &prof.period_type, "memory_accesses", "count");
	prof.period = r->mean_period > 0 ? i64_of(r->mean_period) : 1;
	prof.comment = xcalloc(2, sizeof(*prof.comment));
	prof.comment[prof.n_comment++] = str_of(&p, "c2cscan report --pprof");
	if (report__notice(r))
		prof.comment[prof.n_comment++] = str_of(&p, report__notice(r));
	for (size_t i = 0; i < r->nr_lines; i++) {
		line_samples(&p, r, r->lines[i]);
		report__trim(r, NULL);
	}
	prof.sample = p.samples;
	prof.n_sample = p.nr_samples;
	prof.location = p.locs;
	prof.n_location = p.nr_locs;
	prof.function = p.funcs;
	prof.n_function = p.nr_funcs;
	prof.mapping = p.maps;
	prof.n_mapping = p.nr_maps;
	prof.string_table = p.strs;
	prof.n_string_table = p.nr_strs;
	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&prof, buf);
	ret = write_gz(path, buf, len);
	free(buf);
	prof.sample = NULL;
	pp_free(&p, &prof);
	return ret;
}
