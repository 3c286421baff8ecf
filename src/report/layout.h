/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A line's bytes by what holds them (layout.c).
 */
#ifndef C2CSCAN_REPORT_LAYOUT_H
#define C2CSCAN_REPORT_LAYOUT_H

#include "report/report.h"

/* The layout of a line (layout.c): runs of bytes by what holds them, in
 * offset order, with who touched them. */
enum layout_kind {
	LAYOUT_NONE,                /* no object known covers these bytes */
	LAYOUT_MEMBER,              /* a member or element (DWARF) */
	LAYOUT_PADDING,             /* inside a variable, outside its members: padding, holes */
	LAYOUT_SYMBOL,              /* a variable without type information */
	LAYOUT_HEAP,                /* a heap object (record --alloc) */
};

struct layout_entry {
	enum layout_kind kind;
	char type[64];              /* the variable's type ("struct counters"), "heap", "" */
	char member[160];           /* "counters.produced", "counters" (its padding), a heap object */
	uint32_t offset, size;      /* bytes of the line */
	uint64_t loads, stores;         /* accesses (report__est) */
	uint32_t hitm;                  /* HITM loads and stores */
	struct u32set writers, readers;
};

/* The line's bytes by what holds them: every line of two threads or more,
 * and a line of one thread whose bytes have names; 0 entries (and NULL)
 * otherwise. Free with layout__free. */
size_t report__layout(const struct report *r, const struct c2c_line *l, struct layout_entry **out);
void layout__free(struct layout_entry *e, size_t nr);
/* "member", "padding", "symbol", "heap", "none" */
const char *layout__kind_name(enum layout_kind k);

#endif
