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
 *    C++), which pads every element to whole lines;
 *  - a heap object (record --alloc): its allocation made line-aligned on
 *    its site's line (malloc: aligned_alloc with the size rounded up;
 *    calloc: a helper written after the file's includes), the element
 *    type of a heap array aligned too; C++'s new: the type it names
 *    aligned (C++17 aligns new of such a type).
 * Each change carries a one-line comment naming the line and the threads
 * it separates. What cannot be patched (the stack, an allocation by other
 * means, an array of scalars, a source that is missing or differs from
 * what the build saw, a declaration of several names) is said in lines
 * before the first diff, which git apply and patch(1) skip.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "maps/heap.h"
#include "report/latent.h"
#include "report/output.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/util.h"

#define PATCH_CONTEXT 3

/* One change: line `line` (1-based) of `path` gets `text` and, before it,
 * `comment` (each with the line's indentation); with `insert`, the line
 * stays and they come after it. text may be several lines. */
struct edit {
	char path[512];             /* relative to the compilation directory */
	char full[1024];            /* as opened */
	int line;
	bool insert;
	char text[2048];
	char comment[1024];
};

struct patch {
	struct edit *e;
	size_t nr, alloc;
	char notes[8192];           /* "# c2cscan: ..." lines */
	size_t nl;
	uint32_t noted[64];         /* heap objects said or patched (their ids): once each */
	size_t nr_noted;
	const char *symfs;          /* --symfs: sources there too */
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

/* The file DWARF names, as opened and as the diff names it: where the
 * build had it, else under symfs (--symfs: another machine's tree). */
static bool source_paths(const char *symfs, const char *comp_dir, const char *file, struct edit *e)
{
	size_t n = strlen(comp_dir);
	char there[sizeof(e->full) + 512];

	if (file[0] == '/') {
		snprintf(e->full, sizeof(e->full), "%s", file);
		if (n && !strncmp(file, comp_dir, n) && file[n] == '/')
			snprintf(e->path, sizeof(e->path), "%s", file + n + 1);
		else
			return false;
	} else {
		snprintf(e->full, sizeof(e->full), "%s/%s", comp_dir, file);
		snprintf(e->path, sizeof(e->path), "%s", file);
	}
	if (symfs && access(e->full, R_OK)) {
		snprintf(there, sizeof(there), "%s%s%s", symfs, e->full[0] == '/' ? "" : "/", e->full);
		if (!access(there, R_OK) && strlen(there) < sizeof(e->full))
			memcpy(e->full, there, strlen(there) + 1);
	}
	return true;
}

static void add_edit(struct patch *p, const struct edit *e)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->e[i].full, e->full) && p->e[i].line == e->line && p->e[i].insert == e->insert)
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
	if (!source_paths(p->symfs, d->comp_dir, d->in_array ? d->type_file : d->member_file, &e)) {
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

	return c ? c : x->line != y->line ? x->line - y->line : (int)x->insert - (int)y->insert;
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

/* The lines an edit adds: its comment and its text's lines. */
static int added_lines(const struct edit *e)
{
	int n = 2;

	for (const char *t = e->text; *t; t++)
		n += *t == '\n';
	return n;
}

/* An edit's added lines, each "+". */
static size_t print_added(FILE *fp, const struct edit *e)
{
	size_t n = fprintf(fp, "+%s\n", e->comment);

	for (const char *t = e->text;;) {
		size_t len = strcspn(t, "\n");

		n += fprintf(fp, "+%.*s\n", (int)len, t);
		if (!t[len])
			break;
		t += len + 1;
	}
	return n;
}

/* The diff of one file: edits e[0..nr), sorted by line (a replacing edit
 * before an inserting one of the same line). */
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
		int from, to, old_n, new_n;

		while (j < nr && e[j].line - PATCH_CONTEXT <= e[j - 1].line + PATCH_CONTEXT + 1)
			j++;
		from = e[i].line - PATCH_CONTEXT < 1 ? 1 : e[i].line - PATCH_CONTEXT;
		to = e[j - 1].line + PATCH_CONTEXT > nl ? nl : e[j - 1].line + PATCH_CONTEXT;
		old_n = to - from + 1;
		new_n = old_n;
		for (size_t k = i; k < j; k++)
			new_n += added_lines(&e[k]) - !e[k].insert;
		n += fprintf(fp, "@@ -%d,%d +%d,%d @@\n", from, old_n, from + added, new_n);
		for (int k = from, x = (int)i; k <= to; k++) {
			bool replaced = x < (int)j && e[x].line == k && !e[x].insert;

			n += fprintf(fp, "%c%s\n", replaced ? '-' : ' ', lines[k - 1]);
			for (; x < (int)j && e[x].line == k; x++)
				n += print_added(fp, &e[x]);
		}
		added += new_n - old_n;
		i = j;
	}
	for (int k = 0; k < nl; k++)
		free(lines[k]);
	free(lines);
	return n;
}

/* Whether heap object id is met for the first time (said or patched once
 * each); it is met from now on. */
static bool first_meeting(struct patch *p, uint32_t id)
{
	for (size_t i = 0; i < p->nr_noted; i++)
		if (p->noted[i] == id)
			return false;
	if (p->nr_noted < sizeof(p->noted) / sizeof(p->noted[0]))
		p->noted[p->nr_noted++] = id;
	return true;
}

/* A heap object obj not patched, said: its site and the allocation it
 * needs. */
static void heap_said(const struct report *r, struct patch *p, const struct heap_obj *obj, const char *what,
		      uint32_t align)
{
	char func[128], src[256];

	report__heap_site(r, obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
	note(p, "%s: a %" PRIu64 " B heap object from %s%s%s: not patched (allocate it %u-byte aligned, e.g. "
	     "aligned_alloc(%u, size rounded up to %u), with its elements a line apart)", what, obj->size, func,
	     src[0] ? " at " : "", src, align, align, align);
}

/* Data that no variable holds: a heap object obj (said once) or the stack
 * (NULL), said. */
static void heap_note(const struct report *r, struct patch *p, const struct heap_obj *obj, const char *what,
		      uint32_t align)
{
	if (!obj)
		note(p, "%s: not a variable of the program (the stack, or memory recorded without --alloc): not "
		     "patched", what);
	else if (first_meeting(p, obj->id))
		heap_said(r, p, obj, what, align);
}

/* ---- heap objects: their allocation sites ---- */

/* In src, a call of fn (a whole word followed by '('): where fn starts,
 * *open at its '(', *close at the matching ')' on the line; NULL when
 * there is none. */
static const char *find_call(const char *src, const char *fn, const char **open, const char **close)
{
	for (const char *at = find_word(src, fn); at; at = find_word(at + 1, fn)) {
		const char *q = at + strlen(fn);
		int depth = 0;

		while (*q == ' ')
			q++;
		if (*q != '(')
			continue;
		*open = q;
		for (; *q; q++) {
			depth += (*q == '(') - (*q == ')');
			if (!depth) {
				*close = q;
				return at;
			}
		}
	}
	return NULL;
}

/* The last "#include" line of the file at path, 0 none. */
static int last_include(const char *path)
{
	int nl, last = 0;
	char **lines = read_lines(path, &nl);

	for (int k = 0; k < nl; k++) {
		if (!strncmp(lines[k] + strspn(lines[k], " \t"), "#include", 8))
			last = k + 1;
		free(lines[k]);
	}
	free(lines);
	return last;
}

/* What a calloc becomes: aligned and zeroed, NULL where calloc is (an
 * overflowing count, no memory); no header but the <stdlib.h> calloc needs. */
#define CALLOC_HELPER "c2cscan_calloc_aligned"

static void helper_text(char *buf, size_t size, uint32_t align)
{
	scnprintf(buf, size,
		  "static void *" CALLOC_HELPER "(size_t n, size_t size)\n"
		  "{\n"
		  "\tsize_t bytes = (n * size + %u) / %u * %u;\n"
		  "\tunsigned char *p;\n"
		  "\n"
		  "\tif (size && n > ((size_t)-1 - %u) / size)\n"
		  "\t\treturn NULL;\n"
		  "\tp = (unsigned char *)aligned_alloc(%u, bytes);\n"
		  "\tfor (size_t i = 0; p && i < bytes; i++)\n"
		  "\t\tp[i] = 0;\n"
		  "\treturn p;\n"
		  "}", align - 1, align, align, align - 1, align);
}

/* The site line of cd, where the diff finds it (e: paths and line) and as
 * it reads (src): 0, else why not (SITE_OUTSIDE, SITE_MISSING; site_unread
 * says it). */
enum { SITE_OUTSIDE = 1, SITE_MISSING };

static int site_line(const struct patch *p, const struct code_decl *cd, struct edit *e, char *src, size_t size)
{
	if (!source_paths(p->symfs, cd->comp_dir, cd->file, e))
		return SITE_OUTSIDE;
	e->line = cd->line;
	return file_line(e->full, e->line, src, size) ? 0 : SITE_MISSING;
}

static void site_unread(struct patch *p, const struct code_decl *cd, const struct edit *e, int why, const char *what,
			const char *objname)
{
	if (why == SITE_OUTSIDE)
		note(p, "%s: %s's site %s is outside the compilation directory %s: not patched", what, objname,
		     cd->file, cd->comp_dir);
	else
		note(p, "%s: %s's site %s:%d not found: not patched", what, objname, e->full, e->line);
}

/* obj's allocation on its site's line (e, src) made align-aligned, its
 * size rounded up to align: malloc(E) becomes aligned_alloc(align, rounded
 * E); calloc(N, S) a helper's call, the helper after the file's last
 * #include (once). Anything else (realloc, a wrapper the site line does
 * not show) is said. */
static void plan_site(struct patch *p, struct edit *e, const char *src, uint32_t align, const char *what,
		      const char *objname)
{
	struct edit h;
	char helper[1024];
	const char *at, *open, *close;
	int inc;

	if ((at = find_call(src, "malloc", &open, &close))) {
		snprintf(e->text, sizeof(e->text), "%.*saligned_alloc(%u, ((%.*s) + %u) / %u * %u)%s",
			 (int)(at - src), src, align, (int)(close - open - 1), open + 1, align - 1, align, align,
			 close + 1);
	} else if ((at = find_call(src, "calloc", &open, &close)) && (inc = last_include(e->full)) > 0) {
		snprintf(e->text, sizeof(e->text), "%.*s" CALLOC_HELPER "%s", (int)(at - src), src, open);
		h = *e;
		h.line = inc;
		h.insert = true;
		helper_text(helper, sizeof(helper), align);
		snprintf(h.text, sizeof(h.text), "%s", helper);
		snprintf(h.comment, sizeof(h.comment), "/* c2cscan: calloc's memory on lines of its own */");
		add_edit(p, &h);
	} else {
		note(p, "%s: %s's site %s:%d is not a malloc or calloc call: not patched (allocate it %u-byte "
		     "aligned)", what, objname, e->full, e->line, align);
		return;
	}
	snprintf(e->comment, sizeof(e->comment), "%.*s/* c2cscan: %s: %s on lines of its own */",
		 (int)strspn(src, " \t"), src, what, objname);
	add_edit(p, e);
}

/* The type a C++ site line (src) allocates with new ("new counter()",
 * "new qstate[n]"), in type; false when the line has no new. */
static bool site_new_type(const char *src, char *type, size_t size)
{
	const char *at = find_word(src, "new"), *t;
	size_t n;

	if (!at)
		return false;
	t = at + 3 + strspn(at + 3, " ");
	if (!strncmp(t, "struct ", 7) || !strncmp(t, "class ", 6))
		t += strcspn(t, " ") + 1;
	n = strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
	if (!n || n >= size)
		return false;
	/* "ns::T": the tag DWARF declares it by */
	for (const char *c = t; c + 1 < t + n; c++)
		if (c[0] == ':' && c[1] == ':') {
			n -= (size_t)(c + 2 - t);
			t = c + 2;
			c = t - 1;
		}
	scnprintf(type, size, "%.*s", (int)n, t);
	return true;
}

/* A heap object's unit u moved to a line of its own: its allocation made
 * aligned at its site, and, for an element of an array of structs, the
 * struct type aligned too (each element then whole lines). C++'s new of
 * an over-aligned type is aligned by the type alone (C++17): there the
 * type is what changes, an element's or a lone object's. */
static void plan_heap(const struct report *r, struct patch *p, const struct verdict_unit *prev,
		      const struct verdict_unit *u, const char *what, uint32_t align)
{
	const struct heap_obj *o = u->obj;
	char type[160] = "", objname[256], func[128], where[256], src[1024];
	size_t tlen = u->elem ? u->elem : strcspn(u->name, ".");
	struct code_decl cd;
	struct edit e = { 0 };
	bool by_new;
	int unread;

	if (!o) {
		heap_note(r, p, NULL, what, align);
		return;
	}
	/* members of one struct object written by different threads (the
	 * struct shared through a pointer): the later member aligned, as a
	 * variable's would be; the object's alignment does not matter then */
	if (prev && prev->obj == o && u->typed && !u->elem && u->name[tlen] == '.' && !strchr(u->name + tlen + 1, '.') &&
	    tlen < sizeof(type)) {
		scnprintf(type, sizeof(type), "%.*s", (int)tlen, u->name);
		if (names__code_decl(r->names, r->maps, o->pid, o->site - 1, o->time, type, u->name + tlen + 1, &cd) &&
		    cd.member_line) {
			struct data_decl d = { .member_line = cd.member_line, .lang = cd.lang };

			scnprintf(d.member, sizeof(d.member), "%s", u->name + tlen + 1);
			scnprintf(d.member_file, sizeof(d.member_file), "%s", cd.member_file);
			scnprintf(d.comp_dir, sizeof(d.comp_dir), "%s", cd.comp_dir);
			plan(p, &d, align, what);
			return;
		}
		type[0] = '\0';
	}
	if (!first_meeting(p, o->id))
		return;
	if (u->typed && u->name[tlen] && tlen < sizeof(type))
		scnprintf(type, sizeof(type), "%.*s", (int)tlen, u->name);
	if (!names__code_decl(r->names, r->maps, o->pid, o->site - 1, o->time, type, NULL, &cd)) {
		heap_said(r, p, o, what, align);
		return;
	}
	report__heap_site(r, o, SITE_UNKNOWN_ADDRESS, func, sizeof(func), where, sizeof(where));
	scnprintf(objname, sizeof(objname), "the %" PRIu64 " B object from %s", o->size, func);
	unread = site_line(p, &cd, &e, src, sizeof(src));
	/* C++'s new: the type the line names, whatever the accesses were typed */
	by_new = !unread && is_cxx(cd.lang) && site_new_type(src, type, sizeof(type));
	if (by_new && !names__code_decl(r->names, r->maps, o->pid, o->site - 1, o->time, type, NULL, &cd))
		cd.type_line = 0;
	if (type[0] && cd.type_line && (u->elem || by_new)) {
		struct data_decl d = { .type_line = cd.type_line, .in_array = true, .lang = cd.lang };

		scnprintf(d.member, sizeof(d.member), "%s", u->name);
		scnprintf(d.type, sizeof(d.type), "%s", type);
		scnprintf(d.type_file, sizeof(d.type_file), "%s", cd.type_file);
		scnprintf(d.comp_dir, sizeof(d.comp_dir), "%s", cd.comp_dir);
		plan(p, &d, align, what);
		if (by_new)
			return;
	} else if (by_new) {
		note(p, "%s: %s's type %s is not declared in its compilation unit: not patched (alignas(%u) on it)",
		     what, objname, type, align);
		return;
	}
	if (unread)
		site_unread(p, &cd, &e, unread, what, objname);
	else
		plan_site(p, &e, src, align, what, objname);
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
	struct patch p = { .symfs = r->opts.names.symfs };

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
					plan_heap(r, &p, prev, u, what, align);
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
