// SPDX-License-Identifier: GPL-2.0
/*
 * report --html FILE and diff --html FILE: one self-contained page (its
 * style, script and pictures inline, SVG; nothing fetched) for bug reports
 * and chat threads. The recording, its notice and totals; a chart of the
 * top lines by contention (local, remote and store HITM, peer loads); the
 * lines as a table the page sorts (a click on a header) and searches; per
 * detailed line its verdict, advice and gain, a picture of its bytes (the
 * layout's members and padding coloured by the threads that write them,
 * HITM as heat under them), a thread x member matrix, a time line of its
 * contention over the recording (a second pass over the samples of those
 * lines), its rows with code and source, and their callers. The page's
 * script also reads its address: #sort=COLUMN[:asc] and #q=TEXT sort and
 * filter the table as a click and a search would (tests drive Chromium so).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hitm/datasrc.h"
#include "names/names.h"
#include "report/callchain.h"
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/diff.h"
#include "report/latent.h"
#include "report/layout.h"
#include "report/output.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/htab.h"
#include "util/util.h"

#define TABLE_LINES 500         /* table rows by default (--lines N sets both) */
#define DETAIL_LINES 50         /* lines drawn in full by default */
#define CHART_LINES 20
#define BINS 48                 /* of a time line */

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-top:1px solid #ccc;padding-top:.6em}"
	"table{border-collapse:collapse;font-size:12px}td,th{padding:2px 6px;border-bottom:1px solid #eee;"
	"white-space:nowrap;text-align:right}th{background:#f4f4f4;cursor:pointer;position:sticky;top:0}"
	"td.t,th.t{text-align:left}.notice{background:#fff6d6;border:1px solid #e5c75b;padding:.5em}"
	".warn{background:#fde4e1;border:1px solid #e0837a;padding:.5em}"
	".verdict{font-weight:bold}.false{color:#b3261e}.true{color:#8a4d00}.mixed{color:#6a1b9a}"
	".kv td{text-align:left;white-space:normal}.mono{font-family:ui-monospace,monospace}svg text{font:11px sans-serif}"
	"#q{margin:.5em 0;padding:3px;width:20em}.hidden{display:none}"
	"svg{max-width:100%;height:auto}.scroll{overflow-x:auto;max-width:100%}.good{background:#e3f4e1;"
	"border:1px solid #6fbf73;padding:.5em}";

/* The table's sort and search; #sort= and #q= in the address do the same. */
static const char script[] =
	"(function(){var t=document.getElementById('lines');if(!t)return;"
	"var tb=t.tBodies[0],hs=t.tHead.rows[0].cells;"
	"function key(c){var v=c.getAttribute('data-v');return v===null?c.textContent:parseFloat(v);}"
	"function sort(i,asc){var rs=Array.prototype.slice.call(tb.rows);"
	"rs.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);"
	"var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));"
	"return asc?r:-r;});rs.forEach(function(r){tb.appendChild(r);});"
	"t.setAttribute('data-sorted',hs[i].textContent+(asc?':asc':''));}"
	"Array.prototype.forEach.call(hs,function(h,i){h.addEventListener('click',function(){"
	"var asc=t.getAttribute('data-sorted')===h.textContent;sort(i,asc);});});"
	"var q=document.getElementById('q');"
	"function filter(s){s=s.toLowerCase();var n=0;Array.prototype.forEach.call(tb.rows,function(r){"
	"var hide=s&&r.textContent.toLowerCase().indexOf(s)<0;r.classList.toggle('hidden',!!hide);if(!hide)n++;});"
	"t.setAttribute('data-shown',n);}"
	"q.addEventListener('input',function(){filter(q.value);});"
	"location.hash.replace(/^#/,'').split('&').forEach(function(kv){var p=kv.split('=');"
	"var v=decodeURIComponent(p.slice(1).join('='));if(p[0]==='sort'){var a=/:asc$/.test(v);"
	"v=v.replace(/:asc$/,'');for(var i=0;i<hs.length;i++)if(hs[i].textContent===v)sort(i,a);}"
	"if(p[0]==='q'){q.value=v;filter(v);}});"
	"window.addEventListener('load',function(){var de=document.documentElement;"
	"document.body.setAttribute('data-fits',de.scrollWidth<=de.clientWidth?'1':'0');});"
	"document.body.setAttribute('data-ready','1');})();";

static void esc(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			fputc(*s, fp);
		}
	}
}

static void head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", fp);
	esc(fp, title);
	fprintf(fp, "</title><style>%s</style></head>\n<body>\n", style);
}

static void tail(FILE *fp)
{
	fprintf(fp, "<script>%s</script>\n</body></html>\n", script);
}

/* A thread's colour: a hue of its own, the same on every picture. */
static unsigned int hue(uint32_t tid)
{
	return (unsigned int)(hash64(tid) % 360);
}

static void recording(FILE *fp, const struct report *r)
{
	const struct pd_info *in = report__info(r);
	const struct c2c_stats *t = report__totals(r);

	fputs("<table class=\"kv\">", fp);
	fputs("<tr><td>File</td><td class=\"mono\">", fp);
	esc(fp, report__path(r));
	fputs("</td></tr><tr><td>Host</td><td>", fp);
	esc(fp, in->hostname ? in->hostname : "?");
	fputs(" (", fp);
	esc(fp, in->osrelease ? in->osrelease : "?");
	fputs(")</td></tr><tr><td>CPU</td><td>", fp);
	esc(fp, in->cpudesc ? in->cpudesc : "?");
	fprintf(fp, ", %u online</td></tr><tr><td>Events</td><td>", in->nr_cpus_online);
	for (size_t i = 0; i < report__nr_events(r); i++) {
		fputs(i ? ", " : "", fp);
		esc(fp, report__event(r, i)->name);
		fprintf(fp, " (%" PRIu64 " samples)", report__event(r, i)->samples);
	}
	fprintf(fp, "</td></tr><tr><td>Totals</td><td>%u samples, %u loads, %u stores, HITM %u (local %u, "
		"remote %u), store HITM %u, peer %u; %zu lines in the view (-d %s)</td></tr></table>\n",
		t->nr_entries, t->load, t->store, t->tot_hitm, t->lcl_hitm, t->rmt_hitm, t->st_hitm,
		t->lcl_peer + t->rmt_peer, r->nr_lines, c2c_display__name(r->mode));
	if (report__notice(r)) {
		fputs("<p class=\"notice\">", fp);
		esc(fp, report__notice(r));
		fputs("</p>\n", fp);
	}
	if (report__partial(r)) {
		fputs("<p class=\"warn\">Partial: ", fp);
		esc(fp, report__partial_reason(r));
		fputs("</p>\n", fp);
	}
}

/* Names are found lazily, as the lines are drawn: their warnings (a
 * build-id mismatch, a missing debug file) are known at the page's end,
 * as stdio prints them. */
static void name_warnings(FILE *fp, const struct report *r)
{
	if (report__nr_name_warnings(r))
		fputs("<h2>Names</h2>\n", fp);
	for (size_t i = 0; i < report__nr_name_warnings(r); i++) {
		fputs("<p class=\"warn\">warning: ", fp);
		esc(fp, report__name_warning(r, i));
		fputs("</p>\n", fp);
	}
}

/* Latent false sharing: a table of the pairs, each with its sentence. */
static void latent_table(FILE *fp, const struct report *r)
{
	const struct latent *l;
	size_t nr = report__latent(r, &l);
	char a[192], b[192], text[768];

	if (!nr)
		return;
	fputs("<h2 id=\"latent\">Latent false sharing</h2>\n<p>No contention today: each line is one thread's, the "
	      "next another's, and their data lies within a line of each other or in one 128-byte block.</p>\n"
	      "<table class=\"sortable\"><thead><tr><th>#</th><th>First</th><th>Tid</th><th>Stores</th>"
	      "<th>Second</th><th>Tid</th><th>Stores</th><th>Apart</th><th>Why</th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < nr; i++) {
		latent__name(r, &l[i], false, a, sizeof(a));
		latent__name(r, &l[i], true, b, sizeof(b));
		latent__scnprintf(r, &l[i], text, sizeof(text));
		fprintf(fp, "<tr><td>%zu</td><td class=\"mono\">", i + 1);
		esc(fp, a);
		fprintf(fp, "</td><td>%u</td><td>%" PRIu64 "</td><td class=\"mono\">", l[i].tid_a, l[i].stores_a);
		esc(fp, b);
		fprintf(fp, "</td><td>%u</td><td>%" PRIu64 "</td><td>%u B</td><td>", l[i].tid_b, l[i].stores_b,
			l[i].apart);
		esc(fp, text);
		fputs("</td></tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
}

/* The top lines' contention as stacked bars: local, remote, store HITM
 * and peer loads. */
static void chart(FILE *fp, const struct report *r, size_t nr)
{
	static const char *const colour[] = { "#e4572e", "#a01a58", "#f3a712", "#29335c" };
	uint32_t part[CHART_LINES][4];
	uint64_t max = 1;
	char name[192];

	if (!nr)
		return;
	if (nr > CHART_LINES)
		nr = CHART_LINES;
	/* the counts once (each line's are built, then trimmed) */
	for (size_t i = 0; i < nr; i++) {
		const struct c2c_stats *s = &c2c_line__counts(r->lines[i])->stats;
		uint64_t all = (uint64_t)s->lcl_hitm + s->rmt_hitm + s->st_hitm + s->lcl_peer + s->rmt_peer;

		part[i][0] = s->lcl_hitm;
		part[i][1] = s->rmt_hitm;
		part[i][2] = s->st_hitm;
		part[i][3] = s->lcl_peer + s->rmt_peer;
		max = all > max ? all : max;
		report__trim(r, NULL);
	}
	fprintf(fp, "<h2>Top lines by contention</h2>\n<svg id=\"chart\" width=\"900\" height=\"%zu\" "
		"viewBox=\"0 0 900 %zu\" xmlns=\"http://www.w3.org/2000/svg\">\n", nr * 20 + 24, nr * 20 + 24);
	for (size_t i = 0; i < nr; i++) {
		const struct c2c_line *l = r->lines[i];
		double x = 320;

		report__line_name(r, l, name, sizeof(name));
		fprintf(fp, "<a href=\"#line-%zu\"><text x=\"0\" y=\"%zu\">%zu ", i, i * 20 + 14, i);
		esc(fp, name);
		fputs("</text></a>", fp);
		for (int k = 0; k < 4; k++) {
			double w = 560.0 * part[i][k] / (double)max;

			if (!part[i][k])
				continue;
			fprintf(fp, "<rect class=\"bar\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"14\" fill=\"%s\">"
				"<title>%s %u</title></rect>", x, i * 20 + 3, w, colour[k],
				k == 0 ? "local HITM" : k == 1 ? "remote HITM" : k == 2 ? "store HITM" : "peer", part[i][k]);
			x += w;
		}
		fputc('\n', fp);
		report__trim(r, NULL);      /* naming it built its rows */
	}
	fprintf(fp, "<text x=\"320\" y=\"%zu\"><tspan fill=\"%s\">&#9632; local HITM</tspan> "
		"<tspan fill=\"%s\">&#9632; remote HITM</tspan> <tspan fill=\"%s\">&#9632; store HITM</tspan> "
		"<tspan fill=\"%s\">&#9632; peer</tspan></text></svg>\n", nr * 20 + 18, colour[0], colour[1],
		colour[2], colour[3]);
}

/* The CSS class of a verdict: findings in their colour. */
static const char *verdict_class(enum verdict_kind k)
{
	return k == VERDICT_FALSE ? "false" : k == VERDICT_TRUE ? "true" : k == VERDICT_MIXED ? "mixed" : "other";
}

/* A cell: the value's text (a COL_TEXT value's is in buf already), its
 * number in data-v for the page's sort. */
static void value_cell(FILE *fp, const struct col_value *v, char *buf, size_t size, bool left)
{
	if (v->type != COL_TEXT)
		col_value__scnprintf(v, buf, size);
	fputs(left ? "<td class=\"t\"" : "<td", fp);
	if (v->type == COL_COUNT || v->type == COL_HEX)
		fprintf(fp, " data-v=\"%" PRIu64 "\"", v->u);
	else if (v->type == COL_PERCENT)
		fprintf(fp, " data-v=\"%.6f\"", v->pct);
	fputc('>', fp);
	esc(fp, buf);
	fputs("</td>", fp);
}

static void lines_table(FILE *fp, const struct report *r, size_t nr, size_t nr_detail, uint64_t total)
{
	size_t nc;
	const struct line_column *cols = line_columns(r, &nc);
	char buf[256];

	fprintf(fp, "<h2>Lines</h2>\n<p>%zu of %zu lines (--lines N for more); a click on a header sorts, "
		"the box searches.</p>\n<input id=\"q\" type=\"search\" placeholder=\"search the lines\">\n"
		"<div class=\"scroll\"><table id=\"lines\"><thead><tr><th>#</th>", nr, r->nr_lines);
	for (size_t c = 0; c < nc; c++) {
		if (line_column__hidden_wide(r, &cols[c]))
			continue;
		fprintf(fp, "<th%s>", cols[c].width < 0 ? " class=\"t\"" : "");
		esc(fp, cols[c].name);
		fputs("</th>", fp);
	}
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < nr; i++) {
		const struct c2c_line *l = r->lines[i];

		/* a link only where the page has the line's detail */
		if (i < nr_detail)
			fprintf(fp, "<tr><td data-v=\"%zu\"><a href=\"#line-%zu\">%zu</a></td>", i, i, i);
		else
			fprintf(fp, "<tr><td data-v=\"%zu\">%zu</td>", i, i);
		for (size_t c = 0; c < nc; c++) {
			struct col_value v;

			if (line_column__hidden_wide(r, &cols[c]))
				continue;
			buf[0] = '\0';
			v = cols[c].get(r, l, total, buf, sizeof(buf));
			value_cell(fp, &v, buf, sizeof(buf), cols[c].width < 0);
		}
		fputs("</tr>\n", fp);
		report__trim(r, NULL);
	}
	fputs("</tbody></table></div>\n", fp);
}

/* The line's bytes: its layout's entries, each coloured by its writers (a
 * thread's hue; red-grey for several; blue-grey when only read), its HITM
 * as a heat bar under it. */
static void byte_picture(FILE *fp, const struct report *r, const struct layout_entry *e, size_t nr)
{
	double scale = 1100.0 / r->line_size;
	uint32_t max = 1;

	for (size_t k = 0; k < nr; k++)
		max = e[k].hitm > max ? e[k].hitm : max;
	fprintf(fp, "<svg class=\"bytes\" width=\"1110\" height=\"78\" viewBox=\"0 0 1110 78\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n");
	for (size_t k = 0; k < nr; k++) {
		double x = 4 + e[k].offset * scale, w = e[k].size * scale;
		char fill[40];

		if (e[k].writers.nr == 1)
			snprintf(fill, sizeof(fill), "hsl(%u,65%%,62%%)", hue(u32set__data(&e[k].writers)[0]));
		else if (e[k].writers.nr > 1)
			snprintf(fill, sizeof(fill), "#c0504d");
		else if (e[k].readers.nr)
			snprintf(fill, sizeof(fill), "#9fb6cd");
		else
			snprintf(fill, sizeof(fill), e[k].kind == LAYOUT_PADDING ? "#eeeeee" : "#f8f8f8");
		fprintf(fp, "<g class=\"unit\"><rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"40\" fill=\"%s\" "
			"stroke=\"#666\"><title>", x, w, fill);
		fprintf(fp, "%#x, %u B: ", e[k].offset, e[k].size);
		esc(fp, e[k].kind == LAYOUT_NONE ? "(no object known)" : e[k].member);
		fprintf(fp, "; loads %" PRIu64 ", stores %" PRIu64 ", HITM %u; written by %u thread(s), read by %u</title></rect>",
			e[k].loads, e[k].stores, e[k].hitm, e[k].writers.nr, e[k].readers.nr);
		if (e[k].hitm)
			fprintf(fp, "<rect class=\"heat\" x=\"%.1f\" y=\"48\" width=\"%.1f\" height=\"10\" fill=\"#d00\" "
				"fill-opacity=\"%.2f\"/>", x, w, 0.15 + 0.85 * e[k].hitm / max);
		if (w > 40 && e[k].kind != LAYOUT_NONE) {
			fprintf(fp, "<text x=\"%.1f\" y=\"28\">", x + 3);
			esc(fp, e[k].member);
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
	fprintf(fp, "<text x=\"4\" y=\"72\">0</text><text x=\"1080\" y=\"72\">%#x</text></svg>\n", r->line_size);
}

/* Threads x units: W, R or RW where a thread wrote or read it. */
static void matrix(FILE *fp, const struct layout_entry *e, size_t nr)
{
	struct u32set tids = { 0 };

	for (size_t k = 0; k < nr; k++) {
		u32set__merge(&tids, &e[k].writers);
		u32set__merge(&tids, &e[k].readers);
	}
	if (tids.nr) {
		fputs("<div class=\"scroll\"><table class=\"matrix\"><tr><th class=\"t\">thread</th>", fp);
		for (size_t k = 0; k < nr; k++) {
			if (!e[k].loads && !e[k].stores)
				continue;
			fputs("<th class=\"t\">", fp);
			if (e[k].kind == LAYOUT_NONE) {
				fprintf(fp, "bytes %#x-%#x</th>", e[k].offset, e[k].offset + e[k].size - 1);
			} else {
				esc(fp, e[k].member);
				fprintf(fp, " (%#x)</th>", e[k].offset);
			}
		}
		fputs("</tr>\n", fp);
		for (uint32_t t = 0; t < tids.nr; t++) {
			uint32_t tid = u32set__data(&tids)[t];

			fprintf(fp, "<tr><td class=\"t\" style=\"background:hsl(%u,65%%,85%%)\">%u</td>", hue(tid), tid);
			for (size_t k = 0; k < nr; k++) {
				bool w = u32set__has(&e[k].writers, tid), rd = u32set__has(&e[k].readers, tid);

				if (!e[k].loads && !e[k].stores)
					continue;
				fprintf(fp, "<td class=\"t\">%s%s</td>", w ? "W" : "", rd ? "R" : "");
			}
			fputs("</tr>\n", fp);
		}
		fputs("</table></div>\n", fp);
	}
	u32set__exit(&tids);
}

/* The bin of a time d after the first sample, of a recording that spans
 * span > 0: d * BINS / (span + 1) where that product fits in 64 bits; a
 * recording whose clock spans nearly all of them (a damaged or forged time)
 * gets bins of span / BINS + 1 instead, without the product's overflow or
 * span + 1's wrap to a division by zero. */
static unsigned time_bin(uint64_t d, uint64_t span)
{
	uint64_t b = span < UINT64_MAX / BINS ? d * BINS / (span + 1) : d / (span / BINS + 1);

	return b < BINS ? (unsigned)b : BINS - 1;
}

/* The contention of the detailed lines over the recording's time: their
 * HITM and store HITM samples in BINS bins, from a pass over the samples. */
struct timeline {
	uint64_t t0, t1;
	uint32_t (*bins)[BINS];         /* [line] */
};

static void timeline_build(struct report *r, size_t nr, struct timeline *tl)
{
	struct u64map idx = { 0 };
	struct { uint64_t time, line; } *hits = NULL;   /* the lines' contended samples */
	size_t n = 0, alloc = 0;
	struct pd_event ev;

	tl->t0 = UINT64_MAX;
	tl->t1 = 0;
	tl->bins = xcalloc(nr ? nr : 1, sizeof(*tl->bins));
	for (size_t i = 0; i < nr; i++)
		u64map__put(&idx, cl_key__hash(&r->lines[i]->key), i);
	if (pd_reader__rewind(r->reader) < 0) {
		u64map__exit(&idx);
		return;
	}
	pd_reader__skip_samples(r->reader, false);
	while (pd_reader__next(r->reader, &ev) > 0) {
		const struct report_event *e;
		struct c2c_stats st = { 0 };
		struct c2c_sample cs;
		uint64_t i;

		if (ev.kind != PD_SAMPLE || !(e = report__sample_event(r, ev.attr_idx)))
			continue;
		report__key_sample(r, &ev, e, &cs);
		if (cs.time < tl->t0)
			tl->t0 = cs.time;
		if (cs.time > tl->t1)
			tl->t1 = cs.time;
		if (!u64map__get(&idx, cl_key__hash(&cs.key), &i) || !cl_key__equal(&cs.key, &r->lines[i]->key))
			continue;
		c2c_stats__decode(&st, cs.data_src, cs.addr, true);
		if (!st.tot_hitm && !st.st_hitm && !st.lcl_peer && !st.rmt_peer)
			continue;
		xgrow((void **)&hits, &alloc, n + 1, sizeof(*hits));
		hits[n].time = cs.time;
		hits[n++].line = i;
	}
	for (size_t k = 0; k < n && tl->t1 > tl->t0; k++)
		tl->bins[hits[k].line][time_bin(hits[k].time - tl->t0, tl->t1 - tl->t0)]++;
	free(hits);
	u64map__exit(&idx);
}

static void timeline_svg(FILE *fp, const struct timeline *tl, size_t i)
{
	uint32_t max = 0;

	for (int b = 0; b < BINS; b++)
		max = tl->bins[i][b] > max ? tl->bins[i][b] : max;
	if (!max) {
		fputs("<p>No contention sampled on this line over time.</p>\n", fp);
		return;
	}
	fprintf(fp, "<p>Contention over the recording (%.3f s, %d bins):</p>\n<svg class=\"timeline\" "
		"width=\"%d\" height=\"44\" viewBox=\"0 0 %d 44\" xmlns=\"http://www.w3.org/2000/svg\">",
		(tl->t1 - tl->t0) / 1e9, BINS, BINS * 10 + 4, BINS * 10 + 4);
	for (int b = 0; b < BINS; b++) {
		double h = 40.0 * tl->bins[i][b] / max;

		if (tl->bins[i][b])
			fprintf(fp, "<rect x=\"%d\" y=\"%.1f\" width=\"9\" height=\"%.1f\" fill=\"#e4572e\">"
				"<title>%u</title></rect>", 2 + b * 10, 42 - h, h, tl->bins[i][b]);
	}
	fputs("<line x1=\"0\" y1=\"42.5\" x2=\"484\" y2=\"42.5\" stroke=\"#999\"/></svg>\n", fp);
}

static void rows_table(FILE *fp, const struct report *r, const struct c2c_line *l)
{
	size_t nc;
	const struct row_column *cols = row_columns(r, &nc);
	char buf[512];

	fputs("<div class=\"scroll\"><table class=\"rows\"><thead><tr>", fp);
	for (size_t c = 0; c < nc; c++) {
		if (row_column__hidden(r, &cols[c]))
			continue;
		fprintf(fp, "<th%s>", cols[c].width < 0 ? " class=\"t\"" : "");
		esc(fp, cols[c].name);
		fputs("</th>", fp);
	}
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];
		const struct report_chain *ch;
		uint64_t with;
		size_t nch;

		fputs("<tr>", fp);
		for (size_t c = 0; c < nc; c++) {
			struct col_value v;

			if (row_column__hidden(r, &cols[c]))
				continue;
			buf[0] = '\0';
			v = cols[c].get(r, l, row, buf, sizeof(buf));
			value_cell(fp, &v, buf, sizeof(buf), cols[c].width < 0);
		}
		fputs("</tr>\n", fp);
		nch = report__call_graph(r) ? report__row_chains(r, l, row, &ch, &with) : 0;
		for (size_t k = 0; k < nch && k < 5; k++) {
			report_chain__scnprintf(&ch[k], buf, sizeof(buf));
			fprintf(fp, "<tr class=\"chain\"><td></td><td class=\"t\" colspan=\"%zu\">%" PRIu64 " from ",
				nc - 1, ch[k].samples);
			esc(fp, buf);
			fputs("</td></tr>\n", fp);
		}
	}
	fputs("</tbody></table></div>\n", fp);
}

static void line_detail(FILE *fp, const struct report *r, size_t i, const struct timeline *tl)
{
	const struct c2c_line *l = r->lines[i];
	struct layout_entry *e = NULL;
	struct line_verdict v;
	struct line_gain g;
	char name[192], key[160];
	size_t nr;

	report__line_name(r, l, name, sizeof(name));
	cl_key__scnprintf(&l->key, report__maps(r), key, sizeof(key));
	fprintf(fp, "<section id=\"line-%zu\"><h2>%zu: %#" PRIx64 " ", i, i, l->addr);
	esc(fp, name);
	fputs(" <small class=\"mono\">", fp);
	esc(fp, key);
	fputs("</small></h2>\n", fp);
	report__verdict(r, l, &v);
	fprintf(fp, "<p><span class=\"verdict %s\">", verdict_class(v.kind));
	esc(fp, verdict__word(v.kind));
	fputs("</span>: ", fp);
	esc(fp, v.why);
	fputs("</p>\n", fp);
	if (v.advice[0]) {
		fputs("<p><b>Advice</b>: ", fp);
		esc(fp, v.advice);
		fputs("</p>\n", fp);
	}
	report__gain(r, l, &g);
	if (g.known) {
		char cyc[32];

		si_scnprint(cyc, sizeof(cyc), g.cycles);
		fprintf(fp, "<p><b>Gain</b>: up to %s cycles (%.2f%% of the sampled load latency)</p>\n", cyc,
			100 * g.share);
	}
	line_verdict__exit(&v);
	nr = report__layout(r, l, &e);
	if (nr) {
		byte_picture(fp, r, e, nr);
		matrix(fp, e, nr);
	}
	layout__free(e, nr);
	timeline_svg(fp, tl, i);
	rows_table(fp, r, l);
	fputs("</section>\n", fp);
}

/* 0, or -errno (-EIO when the stream does not say) */
static int close_out(FILE *fp)
{
	int bad = ferror(fp);

	errno = 0;
	if ((fclose(fp) == EOF) | bad)
		return -(errno ? errno : EIO);
	return 0;
}

int report__write_html(struct report *r, const char *path)
{
	size_t nr_table = r->opts.max_lines_set ? r->opts.max_lines : TABLE_LINES, nr_detail;
	struct timeline tl;
	uint64_t total = 0;
	char title[600];
	FILE *fp;

	nr_table = nr_table < r->nr_lines ? nr_table : r->nr_lines;
	nr_detail = r->opts.max_lines_set ? nr_table : nr_table < DETAIL_LINES ? nr_table : DETAIL_LINES;
	timeline_build(r, nr_detail, &tl);
	fp = fopen(path, "w");
	if (!fp) {
		free(tl.bins);
		return -errno;
	}
	for (size_t i = 0; i < r->nr_lines; i++)
		total += report__share_line(r, r->lines[i]);
	snprintf(title, sizeof(title), "c2cscan: %s", report__path(r));
	head(fp, title);
	fputs("<h1>c2cscan report</h1>\n", fp);
	recording(fp, r);
	chart(fp, r, nr_table < CHART_LINES ? nr_table : CHART_LINES);
	lines_table(fp, r, nr_table, nr_detail, total);
	for (size_t i = 0; i < nr_detail; i++) {
		line_detail(fp, r, i, &tl);
		report__trim(r, NULL);
	}
	if (!r->nr_lines)
		fputs("<p>No line in the view (-d all or --show-all lists every accessed line).</p>\n", fp);
	latent_table(fp, r);
	name_warnings(fp, r);
	tail(fp);
	free(tl.bins);
	return close_out(fp);
}

static void diff_html_cell(FILE *fp, bool in, double v, const char *fmt_v)
{
	if (!in) {
		fputs("<td data-v=\"-1\">&mdash;</td>", fp);
		return;
	}
	fprintf(fp, "<td data-v=\"%.3f\">", v);
	fprintf(fp, fmt_v, v);
	fputs("</td>", fp);
}

static void diff_html_row(const struct report_diff *d, const struct diff_entry *x, double max_rate, FILE *fp)
{
	double pct, scale = max_rate > 0 ? 300.0 / max_rate : 0;
	bool total = x == &d->total;

	fputs(total ? "<tr class=\"total\"><td class=\"t\"><b>" : "<tr><td class=\"t\">", fp);
	esc(fp, x->name);
	fputs(total ? "</b></td>" : "</td>", fp);
	diff_html_cell(fp, x->in_before, (double)c2c_stats__metric(&x->before, d->mode), "%.0f");
	diff_html_cell(fp, x->in_after, (double)c2c_stats__metric(&x->after, d->mode), "%.0f");
	diff_html_cell(fp, x->in_before, x->rate_before, "%.1f");
	diff_html_cell(fp, x->in_after, x->rate_after, "%.1f");
	if (diff_entry__change(x, &pct))
		fprintf(fp, "<td data-v=\"%.2f\">%+.1f%%</td>", pct, pct);
	else
		fputs("<td data-v=\"0\">&mdash;</td>", fp);
	fputs("<td class=\"t\">", fp);
	esc(fp, diff_status__word(diff_entry__status(x)));
	fputs("</td><td class=\"t\">", fp);
	if (x->verdict_before >= 0)
		esc(fp, verdict__word(x->verdict_before));
	if (x->verdict_after >= 0 && x->verdict_after != x->verdict_before) {
		fputs(x->verdict_before >= 0 ? " &rarr; " : "", fp);
		esc(fp, verdict__word(x->verdict_after));
	}
	fputs("</td>", fp);
	if (total)
		scale = 0;
	fprintf(fp, "<td class=\"t\"><svg width=\"300\" height=\"22\" xmlns=\"http://www.w3.org/2000/svg\"><rect "
		"class=\"before\" x=\"0\" y=\"1\" width=\"%.1f\" height=\"9\" fill=\"#888\"/><rect class=\"after\" "
		"x=\"0\" y=\"12\" width=\"%.1f\" height=\"9\" fill=\"%s\"/></svg></td></tr>\n",
		x->in_before ? scale * x->rate_before : 0, x->in_after ? scale * x->rate_after : 0,
		x->rate_after < x->rate_before ? "#2e7d32" : "#c62828");
}

/* diff --html: before and after per line name, as bars. */
int report_diff__write_html(const struct report_diff *d, const char *path)
{
	FILE *fp = fopen(path, "w");
	double max_rate = 0;

	if (!fp)
		return -errno;
	head(fp, "c2cscan diff");
	fputs("<h1>c2cscan diff</h1>\n<p>Before: <span class=\"mono\">", fp);
	esc(fp, report__path(d->before));
	fputs("</span>, after: <span class=\"mono\">", fp);
	esc(fp, report__path(d->after));
	fprintf(fp, "</span>; lines by name, -d %s.</p>\n", c2c_display__name(d->mode));
	if (d->why[0]) {
		fputs("<p class=\"warn\">", fp);
		esc(fp, d->why);
		fputs("</p>\n", fp);
	}
	if (d->all_gone) {
		fprintf(fp, "<p class=\"good\">%s %zu line%s with sharing before %s gone: none after (%s %.1f &rarr; "
			"%.1f per million accesses).</p>\n", d->findings_before == 1 ? "The" : "All", d->findings_before,
			d->findings_before == 1 ? "" : "s",
			d->findings_before == 1 ? "is" : "are", c2c_display__name(d->mode), d->total.rate_before,
			d->total.rate_after);
	}
	for (size_t i = 0; i < d->nr; i++)
		max_rate = d->e[i].rate_before > max_rate ? d->e[i].rate_before :
			   d->e[i].rate_after > max_rate ? d->e[i].rate_after : max_rate;
	fputs("<input id=\"q\" type=\"search\" placeholder=\"search the lines\">\n<table id=\"lines\"><thead><tr>"
	      "<th class=\"t\">Line</th><th>Before</th><th>After</th><th>Before /Macc</th><th>After /Macc</th>"
	      "<th>Change</th><th class=\"t\">Status</th><th class=\"t\">Verdict</th><th class=\"t\">Picture</th>"
	      "</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i <= d->nr && d->nr; i++)
		diff_html_row(d, i < d->nr ? &d->e[i] : &d->total, max_rate, fp);
	fputs("</tbody></table>\n<p>Counts are the display mode's; /Macc is per million accesses the recording's "
	      "samples stand for, which compares runs of different lengths, and the change and the bars follow it. "
	      "Grey: before; green or red: after (less or more); &mdash;: the recording does not list the line.</p>\n",
	      fp);
	/* the advice's predictions against what the after recording measured */
	for (size_t i = 0; i < d->nr; i++) {
		if (!d->e[i].predicted)
			continue;
		fputs("<p class=\"predicted\"><span class=\"mono\">", fp);
		esc(fp, d->e[i].name);
		fprintf(fp, "</span>: its fix was predicted to leave %.1f contended accesses per million; measured "
			"after: %.1f.</p>\n", d->e[i].predicted_rate, d->e[i].rate_after);
	}
	tail(fp);
	return close_out(fp);
}
