// SPDX-License-Identifier: GPL-2.0
/*
 * The report's model, below everything else in src/report: what a loaded
 * report holds and how a sample is keyed (report.c's passes load it), the
 * accessors every module and renderer reads it through, the names of its
 * rows and heap objects, the lines' names and trimming. It calls nothing
 * else of src/report.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/columns.h"
#include "report/report_int.h"
#include "util/htab.h"
#include "util/util.h"

/* ---- keying a sample ---- */

/* Where the code at ip is: an allocator's own (a known allocator library,
 * c2cscan's shim, the C library's malloc functions), the C library's other
 * code (memset, memcpy: calloc's zeroing, realloc's copy), or neither. */
enum code_role { CODE_OTHER, CODE_LIBC, CODE_ALLOCATOR };

/* The C library's allocator, by the functions its code is in (inlined
 * ones too): malloc's bookkeeping in a chunk it recycles or frees. */
static bool allocator_function(const char *f)
{
	static const char *const fns[] = {
		"malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "aligned_alloc", "valloc",
		"pvalloc", "posix_memalign", "cfree", "_int_malloc", "_int_free", "_int_realloc", "_int_memalign",
		"tcache_get", "tcache_put", "tcache_init", "tcache_get_n", "tcache_put_n", "tcache_thread_shutdown",
		"malloc_consolidate", "unlink_chunk", "sysmalloc", "sysmalloc_mmap", "munmap_chunk", "mremap_chunk",
		"arena_get2", "new_heap", "grow_heap", "alloc_perturb", "free_perturb", "_int_free_merge_chunk",
		"_int_free_create_chunk", "_int_free_maybe_consolidate",
	};
	size_t n;

	if (!f)
		return false;
	if (!strncmp(f, "__libc_", 7))
		f += 7;
	/* sysmalloc_mmap.constprop.0, _int_malloc.isra.0 */
	n = strcspn(f, ".");
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
		if (strlen(fns[i]) == n && !strncmp(f, fns[i], n))
			return true;
	return false;
}

static enum code_role code_role(const struct report *r, const struct map_desc *imap, uint32_t pid, uint64_t ip,
				uint64_t t)
{
	const char *base = imap && imap->name ? object_base_name(imap->name) : "";
	struct code_loc loc;

	if (strstr(base, "c2cscan-alloc") || strstr(base, "jemalloc") || strstr(base, "tcmalloc") ||
	    strstr(base, "mimalloc"))
		return CODE_ALLOCATOR;
	if (strncmp(base, "libc.so", 7) && strncmp(base, "libc-", 5))
		return CODE_OTHER;
	if (names__code(r->names, r->maps, pid, ip, t, &loc) &&
	    (allocator_function(loc.func) || allocator_function(loc.inl_func)))
		return CODE_ALLOCATOR;
	return CODE_LIBC;
}

#define CREATION_WINDOW 100000000ULL    /* ns: an allocator call's length at most */

/* The tag of a sample in a freed object's range: the object it is being
 * made into when the allocating thread is inside the allocator call (its
 * next object there comes within the window: calloc's zeroing, realloc's
 * copy, malloc recycling the chunk), the freed object marked as the
 * allocator's own bytes when the allocator's code wrote them (free's
 * bookkeeping), else the freed object: a use after free. */
uint32_t report__freed_tag(const struct report *r, const struct pd_sample_core *s, const struct map_desc *imap,
			  uint64_t t, const struct heap_obj *o)
{
	enum code_role role = code_role(r, imap, s->pid, s->ip, t);
	const struct heap_obj *next;

	if (role == CODE_OTHER)
		return o->key;
	next = r->use_time ? heap__next_at(r->heap, s->pid, s->addr, t) : NULL;
	if (next && !next->freed && next->tid == s->tid && next->time >= t && next->time - t < CREATION_WINDOW)
		return next->key;
	return role == CODE_ALLOCATOR ? o->key | HEAP_TAG_ALLOCATOR : o->key;
}

void report__key_sample(const struct report *r, const struct pd_event *ev, const struct report_event *e,
			struct c2c_sample *cs)
{
	struct pd_sample_core s;

	pd_sample_core__of(&s, ev);
	report_key_sample(r, &s, e, cs);
}

/* The event of a sample, if it has data addresses. */
const struct report_event *report__sample_event(const struct report *r, int attr_idx)
{
	if (attr_idx < 0 || (size_t)attr_idx >= r->nr_events || !r->events[attr_idx].has_addr)
		return NULL;
	return &r->events[attr_idx];
}

/* Whether a mapping is c2cscan's own (the allocation shim record --alloc
 * preloads): its name checked once per distinct name (they are interned). */
static bool tool_object(const struct report *r, const char *name)
{
	struct tool_names *t = r->tool;

	if (!name)
		return false;
	for (int i = 0; i < 2; i++)
		if (t->name[i] == name)
			return t->tool[i];
	t->name[t->next] = name;
	t->tool[t->next] = strstr(object_base_name(name), "libc2cscan-alloc") != NULL;
	t->next ^= 1;
	return t->tool[t->next ^ 1];
}

bool report__tool_sample(const struct report *r, const struct c2c_sample *cs)
{
	return tool_object(r, cs->code_object) || tool_object(r, cs->object);
}

int report__rekey(struct report *r, void (*fn)(void *arg, struct c2c_sample *cs), void *arg)
{
	struct pd_event ev;
	int ret;

	pd_reader__skip_samples(r->reader, false);
	while ((ret = pd_reader__next(r->reader, &ev)) > 0) {
		const struct report_event *e;
		struct c2c_sample cs;

		if (ev.kind != PD_SAMPLE || !(e = report__sample_event(r, ev.attr_idx)))
			continue;
		report__key_sample(r, &ev, e, &cs);
		if (r->alloc_shim && report__tool_sample(r, &cs))
			continue;
		fn(arg, &cs);
	}
	return ret;
}

/* What names are asked of (names.h): the code of a row, at its first
 * sample's time when maps are resolved by time; the data at byte offset
 * of a line, in the mapping and process of its first sample. */
static struct names_code_ref row_code(const struct report *r, const struct c2c_row *row)
{
	/* an emulated sample at a call is the callee's access (an atomic's
	 * hook, a lock) through its first argument */
	return (struct names_code_ref){ .pid = row->first_pid, .kernel = row->cpumode == PERF_RECORD_MISC_KERNEL,
					.call_access = r->emu_notice[0] != '\0', .map = row->code_map,
					.addr = row->iaddr, .time = r->use_time ? row->first_time : 0 };
}

static struct names_data_ref line_data(const struct c2c_line *l, uint32_t offset)
{
	return (struct names_data_ref){ .pid = l->first_pid, .kernel = l->key.kind == CL_KERNEL,
					.map = l->data_map, .addr = l->addr + offset, .time = l->first_time };
}

/* ---- accessors ---- */

struct strtab *report__strs(struct report *r)
{
	if (!r->strs)
		r->strs = strtab__new();
	return r->strs;
}

/* Emulated counts as the accesses their samples stand for (report.h). */
uint64_t report__est(const struct report *r, const struct c2c_stats *st, enum c2c_stat i)
{
	uint64_t n = c2c_stats__get(st, i), hot;

	switch (i) {
	case C2C_STAT_load:
		hot = (uint64_t)st->tot_hitm + st->tot_peer;
		break;
	case C2C_STAT_store:
	case C2C_STAT_st_l1miss:
		hot = st->st_hitm;
		break;
	case C2C_STAT_st_l1hit:
		hot = 0;
		break;
	case C2C_STAT_nr_entries:
		hot = (uint64_t)st->tot_hitm + st->tot_peer + st->st_hitm;
		break;
	default:
		return n;
	}
	if (!r->est_accesses || hot > n)
		return n;
	return (uint64_t)((double)(n - hot) * r->other_period + (double)hot * r->hitm_period + 0.5);
}

static bool share_estimated(const struct report *r)
{
	return r->est_accesses && r->mode == C2C_DISPLAY_ALL;
}

uint64_t report__share_line(const struct report *r, const struct c2c_line *l)
{
	return share_estimated(r) ? report__est(r, &c2c_line__counts(l)->stats, C2C_STAT_nr_entries) :
				    c2c_line__metric(l, r->mode);
}

uint64_t report__share_row(const struct report *r, const struct c2c_stats *st)
{
	return share_estimated(r) ? report__est(r, st, C2C_STAT_nr_entries) : c2c_stats__metric(st, r->mode);
}

/* Every event with data addresses lacks a data source: software events. */
bool report__software_only(const struct report *r)
{
	bool any_src = false, any_addr = false;

	for (size_t i = 0; i < r->nr_events; i++) {
		any_src |= r->events[i].has_addr && r->events[i].has_data_src;
		any_addr |= r->events[i].has_addr;
	}
	return !any_src && any_addr && r->nr_samples;
}

void report__row_names(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		       struct row_names *out)
{
	const struct heap_obj *o = heap__obj(r->heap, row->tag & ~HEAP_TAG_ALLOCATOR);
	uint64_t start = o ? o->addr : 0, size = o ? o->size : 0;
	const struct map_desc *m = l->data_map;
	struct names_code_ref c = row_code(r, row);
	struct names_data_ref d = line_data(l, row->offset);

	/* allocations recorded, and none covers this anonymous memory: it
	 * was mapped as a whole (mmap), the mapping is the object; without
	 * them, it may be when a type fills it (DTYPE_WHOLE_MAPPING) */
	if (!o && m && l->key.kind != CL_KERNEL && map_desc__unnamed_anon(m)) {
		start = m->start;
		size = (m->end - m->start) | (r->heap ? 0 : DTYPE_WHOLE_MAPPING);
	}
	names__row(r->names, r->maps, &c, &d, start, size, out);
}

bool report__data_name(const struct report *r, const struct c2c_line *l, uint32_t offset,
		       struct data_loc *out)
{
	struct names_data_ref d = line_data(l, offset);

	return names__data(r->names, r->maps, &d, out);
}

size_t report__nr_name_warnings(const struct report *r)
{
	return names__nr_warnings(r->names);
}

const char *report__name_warning(const struct report *r, size_t i)
{
	return names__warning(r->names, i);
}

size_t report__nr_lines(const struct report *r)
{
	return r->nr_lines;
}

const struct c2c_line *const *report__lines(const struct report *r)
{
	return r->lines;
}

enum c2c_display report__mode(const struct report *r)
{
	return r->mode;
}

uint32_t report__line_size(const struct report *r)
{
	return r->line_size;
}

const struct maps *report__maps(const struct report *r)
{
	return r->maps;
}

const struct pd_info *report__info(const struct report *r)
{
	return pd_reader__info(r->reader);
}

const char *report__path(const struct report *r)
{
	return pd_reader__path(r->reader);
}

const struct c2c_stats *report__totals(const struct report *r)
{
	return c2c__totals(r->c2c);
}

size_t report__nr_events(const struct report *r)
{
	return r->nr_events;
}

const struct report_event *report__event(const struct report *r, size_t i)
{
	return &r->events[i];
}

bool report__partial(const struct report *r)
{
	return r->partial;
}

const char *report__partial_reason(const struct report *r)
{
	return r->partial_reason;
}

bool report__row_insn(const struct report *r, const struct c2c_row *row, struct insn_access *out)
{
	struct names_code_ref c = row_code(r, row);

	return names__insn(r->names, &c, out);
}

bool report__row_heap(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		      struct heap_ref *out)
{
	uint64_t addr = l->addr + row->offset;

	memset(out, 0, sizeof(*out));
	out->obj = heap__obj(r->heap, row->tag & ~HEAP_TAG_ALLOCATOR);
	if (!out->obj)
		return false;
	out->allocator = row->tag & HEAP_TAG_ALLOCATOR;
	out->offset = addr - out->obj->addr;
	return true;
}

void report__heap_site(const struct report *r, const struct heap_obj *o, enum heap_site_unknown unknown,
		       char *func, size_t fsize, char *src, size_t ssize)
{
	struct code_loc c;

	/* a return address: the call is the byte before it */
	bool ok = names__code(r->names, r->maps, o->pid, o->site - 1, o->time, &c);

	scnprintf(func, fsize, "%s", ok && c.inl_func ? c.inl_func : ok && c.func ? c.func : "");
	if (!func[0] && unknown == SITE_UNKNOWN_ADDRESS)
		scnprintf(func, fsize, "%#" PRIx64, o->site);
	if (ok)
		names__source_scnprintf(&c, false, src, ssize);
	else
		scnprintf(src, ssize, "%s", "");
}

const char *report__alloc_fn(const struct report *r, uint16_t fn)
{
	return pd_alloc__fn_name(r->allocs ? r->allocs : &r->alloc, fn);
}

size_t report__heap_scnprintf(const struct report *r, const struct heap_ref *h, char *buf, size_t size)
{
	char func[256], src[256];

	if (!h->obj)
		return 0;
	report__heap_site(r, h->obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
	return scnprintf(buf, size, "%s%s+%#" PRIx64 " (%" PRIu64 " B)", report__heap_state(h), func, h->offset,
			 h->obj->size);
}

const struct heap_stats *report__heap_stats(const struct report *r)
{
	return r->heap ? heap__stats(r->heap) : NULL;
}

static int line_heap_cmp(const void *a, const void *b)
{
	const struct line_heap_obj *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->obj->addr < y->obj->addr ? -1 : x->obj->addr > y->obj->addr;
}

const char *report__heap_state(const struct heap_ref *h)
{
	return h->allocator ? "allocator's own bytes of freed " : h->obj && h->obj->freed ? "freed " : "";
}

size_t report__line_heap(const struct report *r, const struct c2c_line *l, struct line_heap_obj *out, size_t max)
{
	const struct c2c_row *rows = c2c_line__rows(l);
	size_t n = 0;

	for (size_t i = 0; i < l->nr_rows; i++) {
		struct heap_ref h;
		size_t k;

		/* the allocator's bookkeeping is no touch of the object */
		if (!report__row_heap(r, l, &rows[i], &h) || h.allocator)
			continue;
		for (k = 0; k < n && out[k].obj != h.obj; k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			out[n++] = (struct line_heap_obj){ h.obj, 0 };
		}
		out[k].samples += rows[i].stats.nr_entries;
	}
	qsort(out, n, sizeof(*out), line_heap_cmp);
	return n;
}

/* ---- names of lines and their objects ---- */

const char *line_object(const struct c2c_line *l)
{
	if (l->object && *l->object)
		return l->object;
	if (l->key.kind == CL_KERNEL)
		return "[kernel]";
	return "[unknown]";
}

const char *object_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	if (!strncmp(path, "[kernel.kallsyms]", 17))
		return "[kernel]";
	/* "//anon", "//shm": the kind of memory, said the same everywhere */
	if (!strncmp(path, "//", 2))
		return path;
	return b && b[1] ? b + 1 : path;
}

/* The row the line's metric comes from most (the first of equals). */
const struct c2c_row *hottest_row(const struct report *r, const struct c2c_line *l)
{
	const struct c2c_row *rows = c2c_line__rows(l), *best = NULL;
	uint64_t best_m = 0;

	for (size_t i = 0; i < l->nr_rows; i++) {
		uint64_t m = c2c_stats__metric(&rows[i].stats, r->mode);

		if (!best || m > best_m) {
			best = &rows[i];
			best_m = m;
		}
	}
	return best;
}

bool line_data_symbol(const struct report *r, const struct c2c_line *l, struct data_loc *out)
{
	const struct c2c_row *row = hottest_row(r, l);

	return report__data_name(r, l, row ? row->offset : 0, out) && out->sym;
}

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
		const char *fn;

		report__row_names(r, l, row, &nm);
		fn = nm.code_ok ? nm.code.inl_func ? nm.code.inl_func : nm.code.func : NULL;
		/* a stack or thread-local variable, or a type the code reaches
		 * it through: what it holds, which "[stack]" does not say (a
		 * queue padded onto two lines stays one name) */
		if (fn && nm.data_ok && nm.data.var_led && nm.data.member[0])
			return scnprintf(buf, size, "%.*s in %s", (int)strcspn(nm.data.member, ".["), nm.data.member,
					 fn);
		if (fn && nm.data_ok && nm.data.type_source >= TYPE_TRACKED && nm.data.type[0])
			return scnprintf(buf, size, "%s via %s", nm.data.type, fn);
		if (fn)
			return scnprintf(buf, size, "%s via %s", object_base_name(line_object(l)), fn);
	}
	/* a file's bytes without a symbol (a stripped binary): where in the
	 * file, which a renamed copy of it keeps */
	if (l->data_map && l->data_map->name && l->data_map->name[0] == '/' && l->addr >= l->data_map->start)
		return scnprintf(buf, size, "%s+%#" PRIx64, object_base_name(line_object(l)),
				 l->addr - l->data_map->start + l->data_map->pgoff);
	return scnprintf(buf, size, "%s", object_base_name(line_object(l)));
}
