// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of a line: what occupies each of its bytes, in offset order,
 * and who touched it. Bytes are named one by one (names__data, cached per
 * address) and runs of one name make an entry: a member or array element
 * (DWARF), the padding of a struct (type_walk's "+0x.." past the last
 * member), a heap object (record --alloc), or bytes no object covers. Each
 * entry sums its rows: loads, stores, HITM, and the threads that wrote and
 * read it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "names/names.h"
#include "report/layout.h"
#include "report/report_int.h"
#include "util/util.h"

/* The name of byte off of l, as the layout groups it; *run: how many bytes
 * from off certainly have the same name (the rest of a member or symbol). */
static void byte_name(const struct report *r, const struct c2c_line *l, uint32_t off, char *type, size_t tsize,
		      char *member, size_t msize, enum layout_kind *kind, uint32_t *run)
{
	struct data_loc d;
	struct heap_obj const *o = r->heap ? heap__find(r->heap, l->first_pid, l->addr + off, l->first_time) : NULL;
	char *plus;

	type[0] = member[0] = '\0';
	*kind = LAYOUT_NONE;
	*run = 1;
	if (o) {
		char func[128], src[128];

		report__heap_site(r, o, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		scnprintf(type, tsize, "heap");
		scnprintf(member, msize, "%s%s's %" PRIu64 " B object (tid %u)", o->freed ? "freed " : "", func,
			  o->size, o->tid);
		*kind = LAYOUT_HEAP;
		return;
	}
	if (!report__data_name(r, l, off, &d))
		return;
	scnprintf(type, tsize, "%s", d.type);
	if (d.member[0]) {
		scnprintf(member, msize, "%s", d.member);
		*kind = LAYOUT_MEMBER;
		if (d.member_size > d.member_off)
			*run = d.member_size - d.member_off;
		/* "counters+0x14": bytes past a member, inside the variable */
		plus = strrchr(member, '+');
		if (plus && plus > member && !strchr(plus, ']') && !strchr(plus, '.')) {
			*plus = '\0';
			*kind = LAYOUT_PADDING;
		}
	} else if (d.sym) {
		scnprintf(member, msize, "%s", d.sym);
		*kind = LAYOUT_SYMBOL;
		if (d.sym_size > d.sym_off)
			*run = d.sym_size - d.sym_off > UINT32_MAX ? UINT32_MAX : (uint32_t)(d.sym_size - d.sym_off);
	}
}

/* The index of a member that ends in one ("counters.pad[12]": 12, its
 * prefix 14 bytes long), -1 when it does not. */
static long last_index(const char *member, size_t *prefix)
{
	size_t n = strlen(member);
	const char *open;
	char *end;
	long i;

	if (!n || member[n - 1] != ']' || !(open = strrchr(member, '[')))
		return -1;
	i = strtol(open + 1, &end, 10);
	if (end != member + n - 1 || i < 0)
		return -1;
	*prefix = (size_t)(open - member);
	return i;
}

/* Untouched elements of one array in a row (a char pad[56]) become one
 * entry, "counters.pad[0..55]"; touched ones stay apart. */
static size_t fold_elements(struct layout_entry *e, size_t nr)
{
	size_t to = 0;

	for (size_t i = 0; i < nr;) {
		size_t plen, qlen, j = i + 1;
		long first = e[i].kind == LAYOUT_MEMBER && !e[i].loads && !e[i].stores ?
			     last_index(e[i].member, &plen) : -1, last = first;

		while (first >= 0 && j < nr && e[j].kind == LAYOUT_MEMBER && !e[j].loads && !e[j].stores &&
		       last_index(e[j].member, &qlen) == last + 1 && qlen == plen &&
		       !strncmp(e[j].member, e[i].member, plen) && !strcmp(e[j].type, e[i].type)) {
			last++;
			j++;
		}
		if (j > i + 1) {
			char head[sizeof(e[i].member)];

			scnprintf(head, sizeof(head), "%.*s", (int)plen, e[i].member);
			scnprintf(e[i].member, sizeof(e[i].member), "%s[%ld..%ld]", head, first, last);
			e[i].size = e[j - 1].offset + e[j - 1].size - e[i].offset;
			for (size_t k = i + 1; k < j; k++) {
				u32set__exit(&e[k].writers);
				u32set__exit(&e[k].readers);
			}
		}
		if (to != i)
			e[to] = e[i];
		to++;
		i = j;
	}
	return to;
}

size_t report__layout(const struct report *r, const struct c2c_line *l, struct layout_entry **out)
{
	struct layout_entry *e = NULL;
	size_t nr = 0, alloc = 0;
	/* without heap objects, and when no sampled byte has a name (memory
	 * no file describes, an object not found): one run of nothing, not 64
	 * questions without an answer */
	bool blank = !r->heap;

	for (size_t i = 0; blank && i < l->nr_rows; i++) {
		struct data_loc d;

		if (report__data_name(r, l, c2c_line__rows(l)[i].offset, &d) && (d.sym || d.member[0]))
			blank = false;
	}

	for (uint32_t off = 0, run; off < r->line_size; off += run) {
		struct layout_entry cur = { .offset = off };

		if (blank)
			run = r->line_size;
		else
			byte_name(r, l, off, cur.type, sizeof(cur.type), cur.member, sizeof(cur.member), &cur.kind,
				  &run);
		if (run > r->line_size - off)
			run = r->line_size - off;
		cur.size = run;
		if (nr && e[nr - 1].kind == cur.kind && !strcmp(e[nr - 1].member, cur.member) &&
		    !strcmp(e[nr - 1].type, cur.type)) {
			e[nr - 1].size += run;
			continue;
		}
		xgrow((void **)&e, &alloc, nr + 1, sizeof(*e));
		e[nr++] = cur;
	}
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];

		for (size_t k = 0; k < nr; k++) {
			struct layout_entry *x = &e[k];

			if (row->offset < x->offset || row->offset >= x->offset + x->size)
				continue;
			x->loads += report__est(r, &row->stats, C2C_STAT_load);
			x->stores += report__est(r, &row->stats, C2C_STAT_store);
			x->hitm += row->stats.tot_hitm + row->stats.st_hitm;
			if (row->stats.store)
				u32set__merge(&x->writers, &row->tids);
			if (row->stats.load)
				u32set__merge(&x->readers, &row->tids);
			break;
		}
	}
	nr = fold_elements(e, nr);
	/* a line of one thread has a layout worth showing only when its bytes
	 * have names (what else it would say, its counts say already) */
	if (c2c_line__counts(l)->tids.nr < 2) {
		bool named = false;

		for (size_t k = 0; k < nr && !named; k++)
			named = e[k].kind != LAYOUT_NONE;
		if (!named) {
			layout__free(e, nr);
			e = NULL;
			nr = 0;
		}
	}
	*out = e;
	return nr;
}

void layout__free(struct layout_entry *e, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		u32set__exit(&e[i].writers);
		u32set__exit(&e[i].readers);
	}
	free(e);
}

const char *layout__kind_name(enum layout_kind k)
{
	static const char *const names[] = {
		[LAYOUT_NONE] = "none", [LAYOUT_MEMBER] = "member", [LAYOUT_PADDING] = "padding",
		[LAYOUT_SYMBOL] = "symbol", [LAYOUT_HEAP] = "heap",
	};

	return k < ARRAY_SIZE(names) ? names[k] : "?";
}
