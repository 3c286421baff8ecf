// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan diff: two recordings' lines matched by name, never by address
 * (addresses move between builds and runs). A line's name is what it
 * holds: its data symbol, a heap object's allocation site, else
 * its object and the function that touches it most. Lines of one name are
 * summed: a struct that a fix spread over two lines stays one entry.
 */
#include <stdlib.h>
#include <string.h>
#include "report/columns.h"
#include "report/report_int.h"
#include "util/util.h"

size_t report__line_name(const struct report *r, const struct c2c_line *l, char *buf, size_t size)
{
	const struct c2c_row *row = hottest_row(r, l);
	struct data_loc d;
	struct heap_ref h;
	struct row_names nm;
	char func[128], src[128];

	/* a symbol's name survives a rebuild; its object's path may not */
	if (line_data_symbol(r, l, &d))
		return scnprintf(buf, size, "%s", d.sym);
	if (row && report__row_heap(r, l, row, &h)) {
		report__heap_site(r, h.obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		return scnprintf(buf, size, "%s (heap)", func);
	}
	if (row) {
		report__row_names(r, l, row, &nm);
		if (nm.code_ok && nm.code.func)
			return scnprintf(buf, size, "%s via %s", object_base_name(line_object(l)),
					 nm.code.inl_func ? nm.code.inl_func : nm.code.func);
	}
	return scnprintf(buf, size, "%s", object_base_name(line_object(l)));
}

static struct diff_entry *entry(struct report_diff *d, const char *name)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->e[i].name, name))
			return &d->e[i];
	xgrow((void **)&d->e, &d->alloc, d->nr + 1, sizeof(*d->e));
	memset(&d->e[d->nr], 0, sizeof(d->e[d->nr]));
	scnprintf(d->e[d->nr].name, sizeof(d->e[d->nr].name), "%s", name);
	return &d->e[d->nr++];
}

static void add_side(struct report_diff *d, const struct report *r, bool after)
{
	char name[sizeof(d->e[0].name)];

	for (size_t i = 0; i < r->nr_lines; i++) {
		struct diff_entry *e;

		report__line_name(r, r->lines[i], name, sizeof(name));
		e = entry(d, name);
		c2c_stats__add(after ? &e->after : &e->before, &c2c_line__counts(r->lines[i])->stats);
		report__trim(r, NULL);
		if (after)
			e->in_after = true;
		else
			e->in_before = true;
	}
}

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct diff_entry *a = pa, *b = pb;
	enum c2c_display mode = *(const enum c2c_display *)arg;
	uint64_t ma = c2c_stats__metric(&a->before, mode), mb = c2c_stats__metric(&b->before, mode);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	ma = c2c_stats__metric(&a->after, mode);
	mb = c2c_stats__metric(&b->after, mode);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->name, b->name);
}

void report_diff__build(const struct report *before, const struct report *after, struct report_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->mode = before->mode;
	d->before = before;
	d->after = after;
	add_side(d, before, false);
	add_side(d, after, true);
	qsort_r(d->e, d->nr, sizeof(*d->e), entry_cmp, &d->mode);
}

void report_diff__exit(struct report_diff *d)
{
	free(d->e);
	memset(d, 0, sizeof(*d));
}
