// SPDX-License-Identifier: GPL-2.0
/*
 * --json: the schema in docs/DESIGN.md and man/c2cscan-report.1. Addresses and
 * file offsets are "0x..." strings: JSON numbers lose 64-bit precision.
 * Bump JSON_VERSION when a field changes meaning or disappears.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "perfdata/alloc.h"
#include "report/callchain.h"
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/diff.h"
#include "report/latent.h"
#include "report/layout.h"
#include "report/output.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/util.h"

#define JSON_VERSION 1

/* A JSON string: runs that need no escape are written as they are. */
static size_t jstr(FILE *fp, const char *s)
{
	size_t n = 2;

	putc('"', fp);
	while (s && *s) {
		size_t run = 0;
		unsigned char c;

		while ((c = (unsigned char)s[run]) && c != '"' && c != '\\' && c >= 0x20)
			run++;
		fwrite(s, 1, run, fp);
		n += run;
		s += run;
		if (!*s)
			break;
		c = (unsigned char)*s++;
		n += c < 0x20 ? (size_t)fprintf(fp, "\\u%04x", c) : (size_t)fprintf(fp, "\\%c", c);
	}
	putc('"', fp);
	return n;
}

static size_t jkey_str(FILE *fp, const char *k, const char *v, const char *sep)
{
	size_t n = fprintf(fp, "\"%s\": ", k);

	if (v)
		n += jstr(fp, v);
	else
		n += fprintf(fp, "null");
	return n + fprintf(fp, "%s", sep);
}

static size_t jset(FILE *fp, const char *k, const struct u32set *s)
{
	size_t n = fprintf(fp, "\"%s\": [", k);

	for (uint32_t i = 0; i < s->nr; i++)
		n += fprintf(fp, "%s%u", i ? ", " : "", u32set__data(s)[i]);
	return n + fprintf(fp, "]");
}

/* The counters of a c2c_stats, as "name": value pairs, no braces; with r,
 * a line's or a row's, as the table shows them (report__est). */
static size_t jstats(FILE *fp, const struct report *r, const struct c2c_stats *s)
{
	size_t n = 0;

	for (size_t i = 0; i < c2c_nr_stat_fields; i++) {
		uint64_t v = c2c_stats__get(s, i);

		if (r && i != C2C_STAT_nr_entries)     /* "samples" says what it counts */
			v = report__est(r, s, (enum c2c_stat)i);
		n += fprintf(fp, "%s\"%s\": %" PRIu64, i ? ", " : "", c2c_stat_fields[i].name, v);
	}
	return n;
}

static size_t jlat(FILE *fp, const struct c2c_lat *lat)
{
	return fprintf(fp, "\"hitm_lat_mean\": %" PRIu64 ", \"load_lat_mean\": %" PRIu64,
		       lat_mean(lat->hitm_sum, lat->hitm_cnt), lat_mean(lat->load_sum, lat->load_cnt));
}

static size_t jkey(FILE *fp, const struct report *r, const struct cl_key *k)
{
	size_t n = 0;

	switch (k->kind) {
	case CL_KERNEL:
		return fprintf(fp, "{\"kind\": \"kernel\"}");
	case CL_PRIVATE:
		return fprintf(fp, "{\"kind\": \"private\", \"pid\": %u, \"unmapped\": %s, \"approximate\": %s}",
			       k->pid, k->unmapped ? "true" : "false", k->approx ? "true" : "false");
	default:
		break;
	}
	n += fprintf(fp, "{\"kind\": \"shared\", ");
	switch (k->ident) {
	case MAP_ID_INODE:
		n += fprintf(fp, "\"maj\": %u, \"min\": %u, \"ino\": %" PRIu64 ", \"ino_generation\": %" PRIu64 ", ",
			     k->maj, k->min, k->ino, k->ino_generation);
		break;
	case MAP_ID_NAME:
		n += jkey_str(fp, "name", maps__ident_name(r->maps, k->ident_id), ", ");
		break;
	case MAP_ID_BUILDID:
		n += jkey_str(fp, "build_id", maps__ident_name(r->maps, k->ident_id), ", ");
		break;
	case MAP_ID_ORIGIN:
		n += fprintf(fp, "\"origin\": %" PRIu64 ", ", k->ident_id);
		break;
	default:
		break;
	}
	return n + fprintf(fp, "\"offset\": \"%#" PRIx64 "\"}", k->line);
}

/* "symbol", "symbol_offset", "source", "inlined", "data_*": null when unknown. */
static size_t jnames(FILE *fp, const struct report *r, const struct c2c_line *l, const struct c2c_row *row)
{
	struct row_names nm;
	const struct code_loc *c = &nm.code;
	const struct data_loc *d = &nm.data;
	char buf[512];
	size_t n;

	report__row_names(r, l, row, &nm);
	n = jkey_str(fp, "symbol", nm.code_ok ? c->func : NULL, ", ");
	n += fprintf(fp, "\"symbol_offset\": %" PRIu64 ", ", nm.code_ok ? c->func_off : 0);
	names__source_scnprintf(c, true, buf, sizeof(buf));
	n += jkey_str(fp, "source", nm.code_ok && buf[0] ? buf : NULL, ", ");
	if (nm.code_ok && c->inl_func) {
		n += fprintf(fp, "\"inlined\": {");
		n += jkey_str(fp, "function", c->inl_func, ", ");
		n += jkey_str(fp, "caller", c->inl_caller, ", ");
		names__source_scnprintf(&(struct code_loc){ .file = c->caller_file, .line = c->caller_line },
					true, buf, sizeof(buf));
		n += jkey_str(fp, "call_site", buf[0] ? buf : NULL, "}, ");
	} else {
		n += fprintf(fp, "\"inlined\": null, ");
	}
	n += jkey_str(fp, "data_symbol", nm.data_ok ? d->sym : NULL, ", ");
	n += fprintf(fp, "\"data_offset\": %" PRIu64 ", ", nm.data_ok ? d->sym_off : 0);
	n += jkey_str(fp, "data_member", nm.data_ok && d->member[0] ? d->member : NULL, ", ");
	n += fprintf(fp, "\"data_member_size\": %u, ", nm.data_ok ? d->member_size : 0);
	n += jkey_str(fp, "data_kind", nm.data_ok && !d->sym ? d->kind : NULL, ", ");
	/* the accessed object's type, and how it was found: a variable's DWARF
	 * type (globals, stack, TLS); an ELF symbol only (no type); the
	 * instruction's base register tracked through the function; that and
	 * the heap object's start (the element) */
	n += jkey_str(fp, "type", nm.data_ok && d->type[0] ? d->type : NULL, ", ");
	n += jkey_str(fp, "type_source", nm.data_ok ? type_source__name(d->type_source) : NULL, ", ");
	return n;
}

/* "alloc_stack": the allocation's callers from its site outwards (record
 * --alloc -g), or null. */
static size_t jalloc_stack(FILE *fp, const struct report *r, uint32_t stack)
{
	const char *const *f;
	uint32_t nr = report__alloc_stack(r, stack, &f);
	size_t n;

	if (!nr)
		return fprintf(fp, "\"alloc_stack\": null, ");
	n = fprintf(fp, "\"alloc_stack\": [");
	for (uint32_t i = 0; i < nr; i++) {
		n += fprintf(fp, "%s", i ? ", " : "");
		n += jstr(fp, f[i]);
	}
	return n + fprintf(fp, "], ");
}

/* A heap object's fields, no braces: site, site_source, alloc_fn, size,
 * address, tid (that allocated it), freed. */
static size_t jheap_obj(FILE *fp, const struct report *r, const struct heap_obj *o)
{
	char func[256], src[256];
	size_t n;

	report__heap_site(r, o, SITE_UNKNOWN_EMPTY, func, sizeof(func), src, sizeof(src));
	n = jkey_str(fp, "site", func[0] ? func : NULL, ", ");
	n += jkey_str(fp, "site_source", src[0] ? src : NULL, ", ");
	n += fprintf(fp, "\"site_address\": \"%#" PRIx64 "\", ", o->site);
	n += jkey_str(fp, "alloc_fn", report__alloc_fn(r, o->fn), ", ");
	n += jalloc_stack(fp, r, o->stack);
	return n + fprintf(fp, "\"size\": %" PRIu64 ", \"address\": \"%#" PRIx64 "\", \"tid\": %u, \"freed\": %s",
			   o->size, o->addr, o->tid, o->freed ? "true" : "false");
}

/* "instruction": the row's instruction and its memory operand, or null
 * (not "access": that is a counter). */
static size_t jrow_access(FILE *fp, const struct report *r, const struct c2c_row *row)
{
	struct insn_access a;
	size_t n;

	if (!report__row_insn(r, row, &a))
		return fprintf(fp, "\"instruction\": null, ");
	n = fprintf(fp, "\"instruction\": {");
	n += jkey_str(fp, "text", a.text, ", ");
	n += jkey_str(fp, "kind", !a.mem ? NULL : a.load && a.store ? "rmw" : a.store ? "store" : "load", ", ");
	n += fprintf(fp, "\"size\": %u, ", a.size);
	n += jkey_str(fp, "base", a.base[0] ? a.base : NULL, ", ");
	n += jkey_str(fp, "index", a.index[0] ? a.index : NULL, ", ");
	return n + fprintf(fp, "\"scale\": %u, \"disp\": %" PRId64 "}, ", a.scale, a.disp);
}

/* "heap": the object under the row and the byte of it, or null. */
static size_t jrow_heap(FILE *fp, const struct report *r, const struct c2c_line *l, const struct c2c_row *row)
{
	struct heap_ref h;
	size_t n;

	if (!report__row_heap(r, l, row, &h))
		return fprintf(fp, "\"heap\": null, ");
	n = fprintf(fp, "\"heap\": {");
	n += jheap_obj(fp, r, h.obj);
	return n + fprintf(fp, ", \"offset\": %" PRIu64 ", \"allocator_internal\": %s}, ", h.offset,
			   h.allocator ? "true" : "false");
}

/* "heap_objects": the objects the line's rows fall in, most sampled first. */
static size_t jline_heap(FILE *fp, const struct report *r, const struct c2c_line *l)
{
	struct line_heap_obj objs[64];
	size_t nr = report__line_heap(r, l, objs, ARRAY_SIZE(objs)), n;

	n = fprintf(fp, "\"heap_objects\": [");
	for (size_t i = 0; i < nr; i++) {
		n += fprintf(fp, "%s{", i ? ", " : "");
		n += jheap_obj(fp, r, objs[i].obj);
		n += fprintf(fp, ", \"samples\": %" PRIu64 "}", objs[i].samples);
	}
	return n + fprintf(fp, "]");
}

/* ", \"callchains\": [{\"samples\": N, \"frames\": [...]}]" when call graphs are shown. */
static size_t jrow_chains(FILE *fp, const struct report *r, const struct c2c_line *l, const struct c2c_row *row)
{
	const struct report_chain *ch;
	uint64_t samples;
	size_t nr, n;

	if (!report__call_graph(r))
		return 0;
	nr = report__row_chains(r, l, row, &ch, &samples);
	n = fprintf(fp, ", \"callchains\": [");
	for (size_t i = 0; i < nr; i++) {
		n += fprintf(fp, "%s{\"samples\": %" PRIu64 ", \"frames\": [", i ? ", " : "", ch[i].samples);
		for (uint32_t f = 0; f < ch[i].nr_frames; f++) {
			n += fprintf(fp, "%s", f ? ", " : "");
			n += jstr(fp, ch[i].frames[f]);
		}
		n += fprintf(fp, "]}");
	}
	return n + fprintf(fp, "]");
}

/* ", \"verdict\": ..., \"verdict_why\": ..., \"advice\": ... | null" (verdict.c) */
static size_t jverdict(FILE *fp, const struct report *r, const struct c2c_line *l)
{
	struct line_verdict v;
	struct line_gain g;
	size_t n;

	report__verdict(r, l, &v);
	/* one name for the sum the tot view ranks by, the line header's */
	n = fprintf(fp, ", \"contention\": %" PRIu64 ", ", c2c_line__metric(l, C2C_DISPLAY_TOT));
	n += jkey_str(fp, "verdict", verdict__word(v.kind), ", ");
	n += jkey_str(fp, "verdict_why", v.why, ", ");
	n += jkey_str(fp, "advice", v.advice[0] ? v.advice : NULL, ", ");
	if (v.predicted)
		n += fprintf(fp, "\"predicted_left\": %" PRIu64 ", ", v.left);
	else
		n += fprintf(fp, "\"predicted_left\": null, ");
	report__gain(r, l, &g);
	if (g.known)
		n += fprintf(fp, "\"gain\": {\"cycles\": %" PRIu64 ", \"share\": %.6f}", g.cycles, g.share);
	else
		n += fprintf(fp, "\"gain\": null");
	line_verdict__exit(&v);
	return n;
}

/* ", \"layout\": [...]": the line's bytes by what holds them (layout.c), for
 * lines of two threads or more; [] otherwise. */
static size_t jlayout(FILE *fp, const struct report *r, const struct c2c_line *l)
{
	struct layout_entry *e = NULL;
	size_t nr = report__layout(r, l, &e), n;

	n = fprintf(fp, ",\n     \"layout\": [");
	for (size_t i = 0; i < nr; i++) {
		n += fprintf(fp, "%s{", i ? ", " : "");
		n += jkey_str(fp, "kind", layout__kind_name(e[i].kind), ", ");
		n += jkey_str(fp, "type", e[i].type[0] ? e[i].type : NULL, ", ");
		n += jkey_str(fp, "member", e[i].member[0] ? e[i].member : NULL, ", ");
		n += fprintf(fp, "\"offset\": %u, \"size\": %u, \"loads\": %" PRIu64 ", \"stores\": %" PRIu64
			     ", \"tot_hitm\": %u, ",
			     e[i].offset, e[i].size, e[i].loads, e[i].stores, e[i].hitm);
		n += jset(fp, "writer_tids", &e[i].writers);
		n += fprintf(fp, ", ");
		n += jset(fp, "reader_tids", &e[i].readers);
		n += fprintf(fp, "}");
	}
	layout__free(e, nr);
	return n + fprintf(fp, "]");
}

static size_t jline(FILE *fp, const struct report *r, size_t idx)
{
	const struct c2c_line *l = r->lines[idx];
	size_t n = fprintf(fp, "    {\"index\": %zu, \"address\": \"%#" PRIx64 "\", \"key\": ", idx, l->addr);

	n += jkey(fp, r, &l->key);
	n += fprintf(fp, ", ");
	n += jkey_str(fp, "object", l->object, ", ");
	n += jstats(fp, r, &c2c_line__counts(l)->stats);
	n += fprintf(fp, ", ");
	n += jlat(fp, &c2c_line__counts(l)->lat);
	n += fprintf(fp, ", ");
	n += jset(fp, "pids", &c2c_line__counts(l)->pids);
	n += fprintf(fp, ", ");
	n += jset(fp, "tids", &c2c_line__counts(l)->tids);
	n += fprintf(fp, ", ");
	n += jset(fp, "cpus", &c2c_line__counts(l)->cpus);
	n += fprintf(fp, ", ");
	n += jset(fp, "nodes", &c2c_line__counts(l)->nodes);
	n += fprintf(fp, ", ");
	n += jline_heap(fp, r, l);
	n += jverdict(fp, r, l);
	n += jlayout(fp, r, l);
	n += fprintf(fp, ",\n     \"offsets\": [");
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];

		n += fprintf(fp, "%s\n      {\"offset\": %u, \"iaddr\": \"%#" PRIx64 "\", ", i ? "," : "", row->offset,
			     row->iaddr);
		n += jkey_str(fp, "code_object", row->code_object, ", ");
		n += jnames(fp, r, l, row);
		n += jrow_access(fp, r, row);
		n += jrow_heap(fp, r, l, row);
		n += jstats(fp, r, &row->stats);
		n += fprintf(fp, ", ");
		n += jlat(fp, &row->lat);
		n += fprintf(fp, ", ");
		n += jset(fp, "pids", &row->pids);
		n += fprintf(fp, ", ");
		n += jset(fp, "tids", &row->tids);
		n += fprintf(fp, ", ");
		n += jset(fp, "cpus", &row->cpus);
		n += fprintf(fp, ", ");
		n += jset(fp, "nodes", &row->nodes);
		n += jrow_chains(fp, r, l, row);
		n += fprintf(fp, "}");
	}
	return n + fprintf(fp, "]}");
}

/* "allocations": what record --alloc's section held (stdio's Allocations
 * line), or null without one. */
static size_t jallocations(FILE *fp, const struct report *r)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	const struct heap_stats *hs = report__heap_stats(r);
	size_t n = fprintf(fp, "  \"allocations\": ");

	if (!in->alloc_error[0] && !in->alloc && !hs)
		return n + fprintf(fp, "null,\n");
	n += fprintf(fp, "{");
	n += jkey_str(fp, "dropped", in->alloc_error[0] ? in->alloc_error : NULL, ", ");
	n += fprintf(fp, "\"events_dropped_by_record\": %" PRIu64 ", ", in->alloc ? in->alloc->dropped : 0);
	if (!hs)
		return n + fprintf(fp, "\"used\": false},\n");
	return n + fprintf(fp, "\"used\": true, \"events\": %" PRIu64 ", \"objects\": %" PRIu64 ", \"frees\": %" PRIu64
			   ", \"zero_size\": %" PRIu64 ", \"processes\": %" PRIu64 ", \"unmatched_frees\": %" PRIu64
			   ", \"absurd\": %" PRIu64 ", \"overlaps\": %" PRIu64 ", \"probe_unpaired\": %" PRIu64 "},\n",
			   hs->events, hs->allocs, hs->frees, hs->zero_size, hs->processes, hs->unmatched_frees,
			   hs->absurd, hs->overlaps, r->probe_unpaired);
}

/* One side of a latent pair. */
static size_t jlatent_side(FILE *fp, const struct report *r, const struct latent *l, bool b)
{
	char name[192];
	size_t n;

	latent__name(r, l, b, name, sizeof(name));
	n = fprintf(fp, "{\"address\": \"%#" PRIx64 "\", \"tid\": %u, \"stores\": %" PRIu64 ", ", b ? l->addr_b : l->addr_a,
		    b ? l->tid_b : l->tid_a, b ? l->stores_b : l->stores_a);
	n += jkey_str(fp, "name", name, "}");
	return n;
}

/* "latent": the pairs latent.c found, each a line. */
static size_t jlatent(FILE *fp, const struct report *r)
{
	const struct latent *l;
	size_t nr = report__latent(r, &l), n = fprintf(fp, "\n  ],\n  \"latent\": [");
	char text[768];

	for (size_t i = 0; i < nr; i++) {
		n += fprintf(fp, "%s\n    {\"pid\": %u, \"apart\": %u, \"near\": %s, \"pair\": %s, \"a\": ", i ? "," : "",
			     l[i].pid, l[i].apart, l[i].near ? "true" : "false", l[i].pair ? "true" : "false");
		n += jlatent_side(fp, r, &l[i], false);
		n += fprintf(fp, ", \"b\": ");
		n += jlatent_side(fp, r, &l[i], true);
		latent__scnprintf(r, &l[i], text, sizeof(text));
		n += fprintf(fp, ", ");
		n += jkey_str(fp, "text", text, "}");
	}
	return n;
}

size_t report__fprintf_json(const struct report *r, FILE *fp)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	const struct maps_stats *ms = maps__stats(r->maps);
	char why[512];
	const char *empty = report__empty_reason(r, why, sizeof(why));
	size_t n;

	n = fprintf(fp, "{\n  \"version\": %d,\n  \"generator\": \"c2cscan %s\",\n  \"file\": {", JSON_VERSION,
		    C2CSCAN_VERSION);
	n += jkey_str(fp, "path", pd_reader__path(r->reader), ", ");
	n += jkey_str(fp, "hostname", in->hostname, ", ");
	n += jkey_str(fp, "os_release", in->osrelease, ", ");
	n += jkey_str(fp, "arch", in->arch, ", ");
	n += jkey_str(fp, "cpu_desc", in->cpudesc, ", ");
	n += jkey_str(fp, "cpuid", in->cpuid, ", ");
	n += jkey_str(fp, "perf_version", in->version, ", ");
	n += fprintf(fp, "\"pipe\": %s, \"nr_cpus\": %u, \"nr_cpus_online\": %u, \"nr_nodes\": %u, "
		     "\"cacheline_size\": %u, \"line_size\": %u, \"resolution\": \"%s\", \"events\": [",
		     in->pipe ? "true" : "false", in->nr_cpus_avail, in->nr_cpus_online, in->nr_nodes,
		     r->line_size_from_file ? in->cacheline_size : r->opts.double_cl ? r->line_size / 2 : r->line_size,
		     r->line_size, r->use_time ? "time" : "file-order");
	for (size_t i = 0; i < r->nr_events; i++) {
		n += fprintf(fp, "%s", i ? ", " : "");
		n += jstr(fp, r->events[i].name);
	}
	n += fprintf(fp, "], \"event_samples\": [");
	for (size_t i = 0; i < r->nr_events; i++)
		n += fprintf(fp, "%s%" PRIu64, i ? ", " : "", r->events[i].samples);
	n += fprintf(fp, "]},\n  \"display\": \"%s\",\n  \"show_all\": %s,\n", c2c_display__name(r->mode),
		     r->opts.show_all ? "true" : "false");
	n += fprintf(fp, "  \"partial\": %s, ", r->partial ? "true" : "false");
	n += jkey_str(fp, "partial_reason", r->partial ? r->partial_reason : NULL, ", ");
	n += jkey_str(fp, "notice", empty ? empty : report__notice(r), ",\n");
	n += fprintf(fp, "  \"maps\": {\"mmap2\": %" PRIu64 ", \"mmap2_build_id\": %" PRIu64 ", \"mmap_v1\": %" PRIu64
		     ", \"rejected\": %" PRIu64 ", \"file_keying_approximate\": %s",
		     ms->mmap2, ms->mmap2_build_id, ms->mmap_v1, ms->rejected_total,
		     ms->v1_file_mappings ? "true" : "false");
	/* only when it happened: the schema of ordinary files stays as it was */
	if (ms->untracked)
		n += fprintf(fp, ", \"untracked\": %" PRIu64, ms->untracked);
	n += fprintf(fp, "},\n");
	n += fprintf(fp, "  \"records\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"lost_samples\": %" PRIu64 ",\n",
		     r->nr_records, r->lost, r->lost_samples);
	n += fprintf(fp, "  \"skipped\": {\"malformed\": %" PRIu64 ", \"other_types\": %" PRIu64
		     ", \"unknown_ids\": %" PRIu64 "},\n", pd_reader__stats(r->reader)->bad_records,
		     pd_reader__stats(r->reader)->other_types, pd_reader__stats(r->reader)->unknown_ids);
	/* only with AUX traces: the schema of other files stays as it was */
	if (pd_reader__stats(r->reader)->aux_buffers) {
		const struct pd_reader_stats *rs = pd_reader__stats(r->reader);

		n += fprintf(fp, "  \"aux\": {\"kind\": \"%s\", \"buffers\": %" PRIu64 ", \"bytes\": %" PRIu64
			     ", \"records\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"cut\": %" PRIu64
			     ", \"bad_bytes\": %" PRIu64 ", \"truncated\": %" PRIu64 ", \"partial\": %" PRIu64
			     ", \"collision\": %" PRIu64 "},\n",
			     report__info(r)->auxtrace.type == PD_AUXTRACE_ARM_SPE ? "arm_spe" : "unknown",
			     rs->aux_buffers, rs->aux_bytes, rs->spe_records, rs->spe_samples, rs->spe_cut,
			     rs->spe_bad_bytes, rs->aux_truncated, rs->aux_partial, rs->aux_collision);
	}
	n += fprintf(fp, "  \"keys\": {\"private\": %" PRIu64 ", \"unmapped\": %" PRIu64 ", \"shared\": %" PRIu64
		     ", \"kernel\": %" PRIu64 ", \"tool\": %" PRIu64 "},\n",
		     r->samples_private_key, r->samples_unmapped, r->samples_shared_key, r->samples_kernel_key,
		     r->samples_tool);
	n += jallocations(fp, r);
	n += fprintf(fp, "  \"totals\": {");
	n += jstats(fp, NULL, c2c__totals(r->c2c));
	n += fprintf(fp, "},\n  \"cachelines\": [");
	for (size_t i = 0; i < r->nr_lines && !empty; i++) {
		n += fprintf(fp, "%s\n", i ? "," : "");
		n += jline(fp, r, i);
		report__trim(r, NULL);
	}
	n += jlatent(fp, r);
	/* after the lines: naming them is what finds the problems */
	n += fprintf(fp, "\n  ],\n  \"name_warnings\": [");
	for (size_t i = 0; i < report__nr_name_warnings(r); i++) {
		n += fprintf(fp, "%s\n    ", i ? "," : "");
		n += jstr(fp, report__name_warning(r, i));
	}
	return n + fprintf(fp, "]\n}\n");
}

/* "key": {COUNTERS} when in, else null. */
static size_t jside(FILE *fp, const char *key, bool in, const struct c2c_stats *st, const char *sep)
{
	size_t n = fprintf(fp, "\"%s\": ", key);

	if (!in)
		return n + fprintf(fp, "null%s", sep);
	n += fprintf(fp, "{");
	n += jstats(fp, NULL, st);
	return n + fprintf(fp, "}%s", sep);
}

/* A diff entry's members: its counts, rates per million accesses, their
 * change in percent (null: gone, new or nothing before), status and the
 * verdicts of its top line. */
static size_t jdiff_entry(FILE *fp, const struct diff_entry *e)
{
	size_t n = jkey_str(fp, "name", e->name, ", ");
	double pct;

	n += jside(fp, "before", e->in_before, &e->before, ", ");
	n += jside(fp, "after", e->in_after, &e->after, ", ");
	n += fprintf(fp, "\"rate_before\": %.3f, \"rate_after\": %.3f, ", e->rate_before, e->rate_after);
	if (diff_entry__change(e, &pct))
		n += fprintf(fp, "\"change\": %.1f, ", pct);
	else
		n += fprintf(fp, "\"change\": null, ");
	n += jkey_str(fp, "status", diff_status__word(diff_entry__status(e)), ", ");
	if (e->predicted)
		n += fprintf(fp, "\"predicted_rate\": %.3f, ", e->predicted_rate);
	else
		n += fprintf(fp, "\"predicted_rate\": null, ");
	n += jkey_str(fp, "verdict_before", e->verdict_before >= 0 ? verdict__word(e->verdict_before) : NULL, ", ");
	n += jkey_str(fp, "verdict_after", e->verdict_after >= 0 ? verdict__word(e->verdict_after) : NULL, "");
	return n;
}

size_t report_diff__fprintf_json(const struct report_diff *d, FILE *fp)
{
	size_t n = fprintf(fp, "{\n  \"version\": %d,\n  \"generator\": \"c2cscan %s\",\n", JSON_VERSION,
			   C2CSCAN_VERSION);

	n += fprintf(fp, "  ");
	n += jkey_str(fp, "before", pd_reader__path(d->before->reader), ",\n  ");
	n += jkey_str(fp, "after", pd_reader__path(d->after->reader), ",\n  ");
	n += jkey_str(fp, "display", c2c_display__name(d->mode), ",\n  ");
	n += jkey_str(fp, "warning", d->why[0] ? d->why : NULL, ",\n  ");
	n += fprintf(fp, "\"renamed\": %zu,\n", d->renamed);
	n += fprintf(fp, "  \"accesses\": {\"before\": %.0f, \"after\": %.0f},\n", d->acc_before, d->acc_after);
	n += fprintf(fp, "  \"all_gone\": %s,\n", d->all_gone ? "true" : "false");
	n += fprintf(fp, "  \"totals\": {");
	n += jdiff_entry(fp, &d->total);
	n += fprintf(fp, "},\n  \"lines\": [");
	for (size_t i = 0; i < d->nr; i++) {
		n += fprintf(fp, "%s\n    {", i ? "," : "");
		n += jdiff_entry(fp, &d->e[i]);
		n += fprintf(fp, "}");
	}
	return n + fprintf(fp, "\n  ]\n}\n");
}
