// SPDX-License-Identifier: GPL-2.0
/*
 * report --patch: the advice of every line judged false sharing, applied
 * to the program's sources as a unified diff (git's form: a/ and b/
 * prefixes, paths relative to the compilation directory the DWARF gives).
 *
 * A line's units come in offset order; where the writers change from one
 * unit to the next, the later unit is what moves to its own line. Its
 * declaration (names__data_decl) says how:
 *  - a member of a struct variable: the member aligned to the line size
 *    (C11 _Alignas, C++ alignas, older C GNU's attribute), which starts it
 *    a line apart from the members before it;
 *  - a member of a struct that is an element of an array (per-thread
 *    slots): the struct type aligned (GNU's attribute in C, alignas in
 *    C++), which pads every element to whole lines.
 * Each change carries a one-line comment naming the line and the threads
 * it separates. What cannot be patched (heap and stack objects, an array
 * of scalars, a source that is missing or differs from what the build
 * saw, a declaration of several names) is said in lines before the first
 * diff, which git apply and patch(1) skip.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "maps/heap.h"
#include "report/latent.h"
#include "report/output.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/util.h"

#define PATCH_CONTEXT 3

/* One change: line `line` (1-based) of `path` gets `text` and, before it,
 * `comment` (each with the line's indentation). */
struct edit {
	char path[512];             /* relative to the compilation directory */
	char full[1024];            /* as opened */
	int line;
	char text[1024];
	char comment[1024];
};

struct patch {
	struct edit *e;
	size_t nr, alloc;
	char notes[8192];           /* "# c2cscan: ..." lines */
	size_t nl;
	uint32_t noted[64];         /* heap objects said (their ids): once each */
	size_t nr_noted;
};

static void note(struct patch *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct patch *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	p->nl += scnprintf(p->notes + p->nl, sizeof(p->notes) - p->nl, "# c2cscan: %s\n", buf);
}

/* The same threads write both. */
static bool same_writers(const struct u32set *a, const struct u32set *b)
{
	if (a->nr != b->nr)
		return false;
	for (uint32_t i = 0; i < a->nr; i++)
		if (!u32set__has(b, u32set__data(a)[i]))
			return false;
	return true;
}

static bool is_cxx(int lang)
{
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
	       lang == DW_LANG_C_plus_plus_14;
}

static bool is_c11(int lang)
{
	return lang == DW_LANG_C11;
}

/* Line n (1-based) of the file at path, in buf; false when there is none
 * or it does not fit. */
static bool file_line(const char *path, int n, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t alloc = 0;
	ssize_t len;
	bool ok = false;

	if (!f)
		return false;
	for (int i = 1; (len = getline(&s, &alloc, f)) >= 0; i++) {
		if (i < n)
			continue;
		s[strcspn(s, "\n")] = '\0';
		ok = strlen(s) < size;
		if (ok)
			memcpy(buf, s, strlen(s) + 1);
		break;
	}
	free(s);
	fclose(f);
	return ok;
}

/* Where word starts in s as a whole identifier, NULL when it does not. */
static const char *find_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
		bool before = p > s && (p[-1] == '_' || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z') ||
					(p[-1] >= '0' && p[-1] <= '9'));
		char c = p[n];
		bool after = c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9');

		if (!before && !after)
			return p;
	}
	return NULL;
}

/* The file DWARF names, as opened and as the diff names it. */
static bool source_paths(const struct data_decl *d, const char *file, struct edit *e)
{
	size_t n = strlen(d->comp_dir);

	if (file[0] == '/') {
		snprintf(e->full, sizeof(e->full), "%s", file);
		if (n && !strncmp(file, d->comp_dir, n) && file[n] == '/')
			snprintf(e->path, sizeof(e->path), "%s", file + n + 1);
		else
			return false;
	} else {
		snprintf(e->full, sizeof(e->full), "%s/%s", d->comp_dir, file);
		snprintf(e->path, sizeof(e->path), "%s", file);
	}
	return true;
}

static void add_edit(struct patch *p, const struct edit *e)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->e[i].full, e->full) && p->e[i].line == e->line)
			return;     /* the same change for another line or unit */
	xgrow((void **)&p->e, &p->alloc, p->nr + 1, sizeof(*p->e));
	p->e[p->nr++] = *e;
}

/* The change that gives the unit at d its own line, or a note saying why
 * there is none. what: the line and the threads, for the comment. */
static void plan(struct patch *p, const struct data_decl *d, uint32_t align, const char *what)
{
	struct edit e = { 0 };
	char src[1024], indent[128];
	const char *at;
	size_t ind;

	if (!d->member[0]) {
		note(p, "%s: %s is not in a struct: not patched", what, d->var);
		return;
	}
	if (!source_paths(d, d->in_array ? d->type_file : d->member_file, &e)) {
		note(p, "%s: %s is outside the compilation directory %s: not patched", what,
		     d->in_array ? d->type_file : d->member_file, d->comp_dir);
		return;
	}
	e.line = d->in_array ? d->type_line : d->member_line;
	if (!e.line || !file_line(e.full, e.line, src, sizeof(src))) {
		note(p, "%s: %s:%d not found: not patched", what, e.full, e.line);
		return;
	}
	ind = strspn(src, " \t");
	snprintf(indent, sizeof(indent), "%.*s", (int)(ind < sizeof(indent) ? ind : 0), src);
	if (d->in_array) {
		/* "struct slot {", "typedef struct {": the type aligned, so each
		 * element is whole lines (an anonymous struct has no tag to find) */
		const char *tag = strchr(d->type, ' ') ? strchr(d->type, ' ') + 1 : d->type;
		const char *kw = find_word(src, "struct");
		size_t kwlen = 6;
		bool anon = strchr(tag, '(') != NULL;

		if (!kw) {
			kw = find_word(src, "class");
			kwlen = 5;
		}
		if (!kw || (!anon && !find_word(kw, tag))) {
			note(p, "%s: %s:%d does not declare %s (the source differs from the build's): not patched", what,
			     e.full, e.line, d->type);
			return;
		}
		kw += kwlen;
		snprintf(e.text, sizeof(e.text), "%.*s %s%u)%s%s", (int)(kw - src), src,
			 is_cxx(d->lang) ? "alignas(" : "__attribute__((aligned(", align, is_cxx(d->lang) ? "" : "))", kw);
		snprintf(e.comment, sizeof(e.comment), "%s/* c2cscan: %s: each %s on lines of its own */", indent, what,
			 d->type);
	} else {
		/* "long consumed;": the member aligned, a line apart from those before */
		at = find_word(src, d->member);
		if (!at || strchr(src, ',') || !strchr(at, ';')) {
			note(p, "%s: %s:%d does not declare %s alone (the source differs from the build's, or "
			     "declares several names): not patched", what, e.full, e.line, d->member);
			return;
		}
		snprintf(e.text, sizeof(e.text), "%s%s%u%s %s", indent,
			 is_cxx(d->lang) ? "alignas(" : is_c11(d->lang) ? "_Alignas(" : "__attribute__((aligned(", align,
			 is_cxx(d->lang) || is_c11(d->lang) ? ")" : ")))", src + ind);
		snprintf(e.comment, sizeof(e.comment), "%s/* c2cscan: %s: %s on a line of its own */", indent, what,
			 d->member);
	}
	add_edit(p, &e);
}

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->line - y->line;
}

/* The file's lines, for the diff's context. */
static char **read_lines(const char *path, int *nr)
{
	FILE *f = fopen(path, "r");
	char *s = NULL, **v = NULL;
	size_t alloc = 0, size = 0;
	int n = 0;

	*nr = 0;
	if (!f)
		return NULL;
	while (getline(&s, &size, f) >= 0 && n < INT_MAX) {
		s[strcspn(s, "\n")] = '\0';
		xgrow((void **)&v, &alloc, (size_t)n + 1, sizeof(*v));
		v[n++] = xstrdup(s);
	}
	free(s);
	fclose(f);
	*nr = n;
	return v;
}

/* The diff of one file: edits e[0..nr), sorted by line. */
static size_t diff_file(FILE *fp, const struct edit *e, size_t nr)
{
	int nl;
	char **lines = read_lines(e[0].full, &nl);
	size_t n = 0, i = 0;
	int added = 0;

	if (!lines)
		return 0;
	n += fprintf(fp, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", e[0].path, e[0].path, e[0].path, e[0].path);
	while (i < nr) {
		/* a hunk: edits whose contexts meet */
		size_t j = i + 1;
		int from, to;

		while (j < nr && e[j].line - PATCH_CONTEXT <= e[j - 1].line + PATCH_CONTEXT + 1)
			j++;
		from = e[i].line - PATCH_CONTEXT < 1 ? 1 : e[i].line - PATCH_CONTEXT;
		to = e[j - 1].line + PATCH_CONTEXT > nl ? nl : e[j - 1].line + PATCH_CONTEXT;
		n += fprintf(fp, "@@ -%d,%d +%d,%d @@\n", from, to - from + 1, from + added,
			     to - from + 1 + (int)(j - i));
		for (int k = from, x = (int)i; k <= to; k++) {
			if (x < (int)j && e[x].line == k) {
				n += fprintf(fp, "-%s\n+%s\n+%s\n", lines[k - 1], e[x].comment, e[x].text);
				x++;
			} else {
				n += fprintf(fp, " %s\n", lines[k - 1]);
			}
		}
		added += (int)(j - i);
		i = j;
	}
	for (int k = 0; k < nl; k++)
		free(lines[k]);
	free(lines);
	return n;
}

/* Data that no variable holds: a heap object obj (its allocation site) or
 * the stack, said. */
static void heap_note(const struct report *r, struct patch *p, const struct heap_obj *obj, const char *what,
		      uint32_t align)
{
	char func[128], src[256];

	if (!obj) {
		note(p, "%s: not a variable of the program (the stack, or memory recorded without --alloc): not "
		     "patched", what);
		return;
	}
	for (size_t i = 0; i < p->nr_noted; i++)
		if (p->noted[i] == obj->id)
			return;
	if (p->nr_noted < sizeof(p->noted) / sizeof(p->noted[0]))
		p->noted[p->nr_noted++] = obj->id;
	report__heap_site(r, obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
	note(p, "%s: a %" PRIu64 " B heap object from %s%s%s: not patched (allocate it %u-byte aligned, e.g. "
	     "aligned_alloc(%u, size rounded up to %u), with its elements a line apart)", what, obj->size, func,
	     src[0] ? " at " : "", src, align, align, align);
}

/* --patch-latent: the later data of each latent pair on a block of two
 * lines of its own (a line apart from the earlier at any start, and on
 * another line of twice the length). */
static void plan_latent(const struct report *r, struct patch *p)
{
	const struct latent *l;
	size_t nr = report__latent(r, &l);
	uint32_t align = 2 * report__line_size(r);

	for (size_t i = 0; i < nr; i++) {
		struct names_data_ref d = { .pid = l[i].pid, .kernel = l[i].kernel, .map = l[i].map_b,
					    .addr = l[i].addr_b, .time = l[i].time_b };
		char what[400], a[192], b[192];
		struct data_decl dd;

		latent__name(r, &l[i], false, a, sizeof(a));
		latent__name(r, &l[i], true, b, sizeof(b));
		scnprintf(what, sizeof(what), "latent %#" PRIx64 ", %s (tid %u) and %s (tid %u), %u bytes apart", l[i].addr_b,
			  a, l[i].tid_a, b, l[i].tid_b, l[i].apart);
		if (!names__data_decl(r->names, r->maps, &d, &dd))
			heap_note(r, p, r->heap ? heap__find(r->heap, l[i].pid, l[i].addr_b, l[i].time_b) : NULL, what,
				  align);
		else
			plan(p, &dd, align, what);
	}
}

int report__write_patch(struct report *r, FILE *fp, size_t *nr_changes)
{
	uint32_t align = report__line_size(r);
	struct patch p = { 0 };

	for (size_t i = 0; i < r->nr_lines; i++) {
		const struct c2c_line *l = r->lines[i];
		struct line_verdict v;
		const struct verdict_unit *prev = NULL;

		report__verdict(r, l, &v);
		if (v.kind != VERDICT_FALSE) {
			line_verdict__exit(&v);
			continue;
		}
		for (size_t k = 0; k < v.nr_units; k++) {
			const struct verdict_unit *u = &v.units[k];
			struct names_data_ref d = { .pid = l->first_pid, .map = l->data_map,
						    .addr = l->addr + u->start, .time = l->first_time };
			struct data_decl dd;
			char what[400];

			if (!u->writers.nr)
				continue;
			if (prev && !same_writers(&prev->writers, &u->writers)) {
				scnprintf(what, sizeof(what), "line %zu %#" PRIx64 ", %s (tid %u) and %s (tid %u)", i,
					  l->addr, prev->name, u32set__data(&prev->writers)[0], u->name,
					  u32set__data(&u->writers)[0]);
				if (!names__data_decl(r->names, r->maps, &d, &dd))
					heap_note(r, &p, u->obj, what, align);
				else
					plan(&p, &dd, align, what);
			}
			prev = u;
		}
		line_verdict__exit(&v);
	}
	if (r->opts.patch_latent)
		plan_latent(r, &p);
	fputs(p.notes, fp);
	if (p.nr)
		qsort(p.e, p.nr, sizeof(*p.e), edit_cmp);
	for (size_t i = 0; i < p.nr;) {
		size_t j = i + 1;

		while (j < p.nr && !strcmp(p.e[j].path, p.e[i].path))
			j++;
		diff_file(fp, p.e + i, j - i);
		i = j;
	}
	*nr_changes = p.nr;
	free(p.e);
	return ferror(fp) ? -EIO : 0;
}
