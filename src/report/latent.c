// SPDX-License-Identifier: GPL-2.0
/* Latent false sharing (latent.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hitm/c2c.h"
#include "maps/heap.h"
#include "names/names.h"
#include "report/latent.h"
#include "report/report_int.h"

/* Two lines of one space (a process's memory, a shared file), b the line
 * after a's. */
static bool next_line(const struct c2c_written *a, const struct c2c_written *b, uint32_t line_size)
{
	struct cl_key ka = a->key, kb = b->key;

	if (kb.line != ka.line + line_size)
		return false;
	ka.line = kb.line = 0;
	return cl_key__equal(&ka, &kb);
}

static int latent_cmp(const void *pa, const void *pb)
{
	const struct latent *a = pa, *b = pb;
	uint64_t ma = a->stores_a < a->stores_b ? a->stores_a : a->stores_b;
	uint64_t mb = b->stores_a < b->stores_b ? b->stores_a : b->stores_b;

	if (a->near != b->near)
		return a->near ? -1 : 1;
	if (a->apart != b->apart)
		return a->apart < b->apart ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return a->addr_a < b->addr_a ? -1 : a->addr_a > b->addr_a;
}

void report__find_latent(struct report *r)
{
	struct c2c_written *w;
	size_t n = c2c__written(r->c2c, REPORT_LATENT_MIN_STORES, &w);
	uint32_t ls = r->line_size;

	for (size_t i = 0; i + 1 < n; i++) {
		const struct c2c_written *a = &w[i], *b = &w[i + 1];
		struct latent l;

		/* each line one thread's (written often enough to be its
		 * habit, not a sample's accident: c2c__written), another's
		 * than its neighbour's */
		if (a->w.tid == b->w.tid || !next_line(a, b, ls))
			continue;
		l = (struct latent){
			.pid = a->pid, .addr_a = a->addr + a->w.hi, .addr_b = b->addr + b->w.lo,
			.time_a = a->w.time, .time_b = b->w.time, .tid_a = a->w.tid, .tid_b = b->w.tid,
			.stores_a = a->w.stores, .stores_b = b->w.stores,
			.apart = (uint32_t)(ls + b->w.lo - a->w.hi), .map_a = a->data_map, .map_b = b->data_map,
			.kernel = a->key.kind == CL_KERNEL,
		};
		l.near = l.apart < ls;
		l.pair = !(a->key.line & (2ull * ls - 1));
		if (!l.near && !l.pair)
			continue;
		xgrow((void **)&r->latent, &r->alloc_latent, r->nr_latent + 1, sizeof(*r->latent));
		r->latent[r->nr_latent++] = l;
	}
	free(w);
	if (r->nr_latent)
		qsort(r->latent, r->nr_latent, sizeof(*r->latent), latent_cmp);
	if (r->nr_latent > REPORT_LATENT_MAX)
		r->nr_latent = REPORT_LATENT_MAX;
}

size_t report__latent(const struct report *r, const struct latent **out)
{
	*out = r->latent;
	return r->nr_latent;
}

size_t latent__name(const struct report *r, const struct latent *l, bool b, char *buf, size_t size)
{
	uint64_t addr = b ? l->addr_b : l->addr_a, time = b ? l->time_b : l->time_a;
	struct names_data_ref d = { .pid = l->pid, .kernel = l->kernel, .map = b ? l->map_b : l->map_a,
				    .addr = addr, .time = time };
	const struct heap_obj *o = r->heap && !l->kernel ? heap__find(r->heap, l->pid, addr, time) : NULL;
	struct data_loc loc;
	char func[128], src[128];

	if (!r->opts.names.disabled && names__data(r->names, r->maps, &d, &loc) && (loc.sym || loc.member[0]) &&
	    (!o || loc.type_source >= TYPE_TRACKED))
		return names__data_scnprintf(&loc, buf, size);
	if (o && !o->freed) {
		report__heap_site(r, o, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		return scnprintf(buf, size, "byte %" PRIu64 " of the %" PRIu64 " B object from %s", addr - o->addr,
				 o->size, func);
	}
	return scnprintf(buf, size, "%#" PRIx64, addr);
}

size_t latent__scnprintf(const struct report *r, const struct latent *l, char *buf, size_t size)
{
	char a[192], b[192], pair[48];

	scnprintf(pair, sizeof(pair), ", and on %u-byte lines", 2 * r->line_size);
	latent__name(r, l, false, a, sizeof(a));
	latent__name(r, l, true, b, sizeof(b));
	if (l->near)
		return scnprintf(buf, size, "%s (tid %u) and %s (tid %u) are %u bytes apart across a line boundary: "
				 "they share a line at %u of the %u starts a line can give their data (another "
				 "allocator offset, another layout)%s", a, l->tid_a, b, l->tid_b, l->apart,
				 r->line_size - l->apart, r->line_size, l->pair ? pair : "");
	return scnprintf(buf, size, "%s (tid %u) and %s (tid %u) are on the two lines of one %u-byte block "
			 "(%u bytes apart): they share a line on %u-byte lines, and an adjacent-line prefetcher "
			 "fetches them together", a, l->tid_a, b, l->tid_b, 2 * r->line_size, l->apart,
			 2 * r->line_size);
}
