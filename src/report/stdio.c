// SPDX-License-Identifier: GPL-2.0
/*
 * --stdio: stable, diff-friendly text for bug reports. Section names and the
 * event totals follow perf c2c's "Trace Event Information" so numbers can be
 * compared line by line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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


#define WIDTH 160

static size_t section(FILE *fp, const char *title)
{
	return fprintf(fp, "\n=== %s ===\n", title);
}

/* "  Key   : value", the value whole (text output is for files and grep) */
static size_t kv(FILE *fp, const char *k, const char *v)
{
	return fprintf(fp, "  %-34s: %s\n", k, v);
}

static size_t kvu(FILE *fp, const char *k, uint64_t v)
{
	return fprintf(fp, "  %-34s: %10" PRIu64 "\n", k, v);
}

static size_t kvpct(FILE *fp, const char *k, uint64_t part, uint64_t whole)
{
	return fprintf(fp, "  %-34s: %9.1f%%\n", k, whole ? 100.0 * part / whole : 0.0);
}

/* The Allocations line (record --alloc), and why there are none when the
 * section was refused. */
static size_t fprintf_allocations(const struct report *r, FILE *fp, char *buf, size_t size)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	const struct heap_stats *hs = report__heap_stats(r);
	size_t n;

	if (in->alloc_error[0]) {
		scnprintf(buf, size, "section dropped: %s", in->alloc_error);
		return kv(fp, "Allocations", buf);
	}
	if (!in->alloc && !hs)
		return 0;
	if (!hs)
		return kv(fp, "Allocations", "recorded, not used: the samples have no timestamps");
	scnprintf(buf, size, "%" PRIu64 " objects, %" PRIu64 " frees in %" PRIu64 " process(es) (record --alloc%s)",
		  hs->allocs, hs->frees, hs->processes, r->probe_samples ? ", allocator probes" : "");
	if (hs->zero_size)
		scnprintf(buf + strlen(buf), size - strlen(buf), "; %" PRIu64 " of 0 bytes", hs->zero_size);
	if (in->alloc && in->alloc->dropped)
		scnprintf(buf + strlen(buf), size - strlen(buf), "; PARTIAL: record dropped %" PRIu64 " events "
			  "past its limit of %" PRIu64 " (objects of the run's end are unnamed)", in->alloc->dropped,
			  in->alloc->nr);
	if (hs->unmatched_frees || hs->absurd || hs->overlaps)
		scnprintf(buf + strlen(buf), size - strlen(buf), "; %" PRIu64 " unmatched frees, %" PRIu64
			  " absurd, %" PRIu64 " over a live object", hs->unmatched_frees, hs->absurd, hs->overlaps);
	if (r->probe_unpaired)
		scnprintf(buf + strlen(buf), size - strlen(buf), "; %" PRIu64 " probe returns without their entry",
			  r->probe_unpaired);
	n = kv(fp, "Allocations", buf);
	if (!r->alloc_stacks && !r->alloc_stray_frames)
		return n;
	scnprintf(buf, size, "%zu allocation stacks, %" PRIu64 " wrapper calls skipped",
		  stack_tab__nr(r->alloc_stacks), r->alloc_wrapped);
	if (r->alloc_stray_frames)
		scnprintf(buf + strlen(buf), size - strlen(buf), "; %" PRIu64 " stack events after no allocation",
			  r->alloc_stray_frames);
	return n + kv(fp, "", buf);
}

/* The Call graphs lines: what the rows' stacks were made of. */
static size_t fprintf_call_graphs(const struct report *r, FILE *fp, char *buf, size_t size)
{
	struct report_cg_stats st;
	size_t len, n;

	if (!report__call_graph(r))
		return report__has_stacks(r) ? kv(fp, "Call graphs", "recorded, not shown (--no-call-graph)") : 0;
	report__callchain_stats(r, &st);
	len = scnprintf(buf, size, "%" PRIu64 "/%" PRIu64 " samples with a stack (%" PRIu64 " distinct)",
			st.with_stack, st.with_stack + st.without_stack, st.distinct);
	if (st.clipped)
		len += scnprintf(buf + len, size - len, "; %" PRIu64 " cut at 64 frames", st.clipped);
	if (pd_reader__stats(r->reader)->stack_dyn_clipped)
		scnprintf(buf + len, size - len, "; %" PRIu64 " stack copies claimed more bytes than they hold",
			  pd_reader__stats(r->reader)->stack_dyn_clipped);
	n = kv(fp, "Call graphs", buf);
	if (!st.unwind_samples)
		return n;
	len = scnprintf(buf, size, "dwarf: %" PRIu64 "/%" PRIu64 " unwound (%" PRIu64 " by cached CFI rules), %" PRIu64
			" in unknown code, %" PRIu64 " no registers", st.unwound, st.unwind_samples, st.unwind_fast,
			st.unwind_no_module, st.unwind_no_regs);
	if (st.unwind_checked)
		scnprintf(buf + len, size - len, "; %" PRIu64 "/%" PRIu64 " differ from libdwfl",
			  st.unwind_mismatches, st.unwind_checked);
	return n + kv(fp, "", buf);
}

/* The heap objects under a line's rows: two or more objects touched by
 * different threads in one line is heap false sharing. */
static size_t fprintf_line_heap(const struct report *r, const struct c2c_line *l, FILE *fp)
{
	struct line_heap_obj objs[8];
	size_t nr = report__line_heap(r, l, objs, ARRAY_SIZE(objs)), n, live = 0;
	char func[256], src[256];

	if (!nr)
		return 0;
	n = fprintf(fp, "      heap objects in this line:\n");
	for (size_t i = 0; i < nr; i++) {
		const struct heap_obj *o = objs[i].obj;

		const char *const *stack;
		uint32_t depth = report__alloc_stack(r, o->stack, &stack);

		report__heap_site(r, o, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		n += fprintf(fp, "        %s%s%s%s (%" PRIu64 " B, %s%s%s, tid %u, %" PRIu64 " samples)\n",
			     o->freed ? "freed " : "", func, src[0] ? " at " : "", src, o->size,
			     report__alloc_fn(r, o->fn), depth && strcmp(stack[0], func) ? " via " : "",
			     depth && strcmp(stack[0], func) ? stack[0] : "", o->tid, objs[i].samples);
	}
	/* objects alive together: one freed before the next was allocated
	 * (an address reused) shares nothing with it */
	for (size_t i = 0; i < nr; i++) {
		bool together = false;

		for (size_t j = 0; j < nr && !together; j++)
			together = j != i && objs[i].obj->id != objs[j].obj->id &&
				   heap_obj__coexist(objs[i].obj, objs[j].obj);
		live += !objs[i].obj->freed && together;
	}
	if (live > 1 && c2c_line__counts(l)->tids.nr > 1)
		n += fprintf(fp, "      %zu live heap objects share this line and %u threads touch it: heap false "
			     "sharing if the threads\n        use different objects (allocate them 64-byte aligned, "
			     "or pad the type)\n", live, c2c_line__counts(l)->tids.nr);
	return n;
}

/* The recording's file, host, CPUs, recorder, command and events. */
static size_t fprintf_source(const struct report *r, FILE *fp, char *buf, size_t size)
{
	const struct pd_info *in = pd_reader__info(r->reader);
	size_t n = 0;

	snprintf(buf, size, "%s (%s%s)", pd_reader__path(r->reader), in->pipe ? "pipe format" : "file format",
		 pd_reader__unterminated(r->reader) ? ", unterminated: data size 0 in the header" : "");
	n += kv(fp, "File", buf);
	snprintf(buf, size, "%s (%s, %s)", in->hostname ? in->hostname : "?",
		 in->osrelease ? in->osrelease : "?", in->arch ? in->arch : "?");
	n += kv(fp, "Host", buf);
	snprintf(buf, size, "%s%s%s", in->cpudesc ? in->cpudesc : "?", in->cpuid ? " / " : "",
		 in->cpuid ? in->cpuid : "");
	n += kv(fp, "CPU", buf);
	snprintf(buf, size, "%u online, %u available, %u NUMA node%s", in->nr_cpus_online,
		 in->nr_cpus_avail, in->nr_nodes, in->nr_nodes == 1 ? "" : "s");
	n += kv(fp, "CPUs", buf);
	if (in->version)
		n += kv(fp, "Recorded by perf", in->version);
	if (in->nr_cmdline) {
		size_t off = 0;

		buf[0] = 0;
		for (uint32_t i = 0; i < in->nr_cmdline && off < size - 1; i++)
			off += snprintf(buf + off, size - off, "%s%s", i ? " " : "", in->cmdline[i]);
		n += kv(fp, "Command", buf);
	}
	for (size_t i = 0, shown = 0; i < r->nr_events; i++) {
		const struct report_event *e = &r->events[i];

		if (!strncmp(e->name, PD_ALLOC_PROBE_PREFIX, strlen(PD_ALLOC_PROBE_PREFIX)))
			continue;       /* on the Allocations line */
		snprintf(buf, size, "%s: %" PRIu64 " samples%s%s", e->name, e->samples,
			 e->has_addr ? "" : " (no data address)",
			 e->has_addr && !e->has_data_src ? " (no data source: accesses only)" : "");
		n += kv(fp, shown++ ? "" : "Events", buf);
	}
	return n;
}

/* What the recording or the reader lost, skipped or cut, and a partial
 * report's warning. */
static size_t fprintf_losses(const struct report *r, FILE *fp, char *buf, size_t size)
{
	size_t n = 0;

	if (r->lost || r->lost_samples) {
		snprintf(buf, size, "%" PRIu64 " events in LOST records, %" PRIu64 " in LOST_SAMPLES",
			 r->lost, r->lost_samples);
		n += kv(fp, "Lost", buf);
	}
	if (r->throttles) {
		snprintf(buf, size, "%" PRIu64 " THROTTLE records", r->throttles);
		n += kv(fp, "Throttled", buf);
	}
	{
		const struct pd_reader_stats *rs = pd_reader__stats(r->reader);

		if (rs->aux_buffers) {
			snprintf(buf, size, "%s: %" PRIu64 " buffers (%.1f KiB), %" PRIu64 " records, %" PRIu64
				 " loads and stores", report__info(r)->auxtrace.type == PD_AUXTRACE_ARM_SPE ?
				 "Arm SPE" : "of a kind not decoded here", rs->aux_buffers, rs->aux_bytes / 1024.0,
				 rs->spe_records, rs->spe_samples);
			n += kv(fp, "AUX traces", buf);
		}
		if (rs->aux_truncated || rs->aux_partial || rs->aux_collision || rs->spe_bad_bytes) {
			snprintf(buf, size, "%" PRIu64 " AUX buffers truncated (data lost), %" PRIu64
				 " partial, %" PRIu64 " collided; %" PRIu64 " bytes of bad packets skipped, %" PRIu64
				 " records cut by them", rs->aux_truncated, rs->aux_partial, rs->aux_collision,
				 rs->spe_bad_bytes, rs->spe_cut);
			n += kv(fp, "AUX lost", buf);
		}
		if (rs->bad_records || rs->other_types || rs->unknown_ids) {
			snprintf(buf, size, "%" PRIu64 " malformed records, %" PRIu64
				 " records of types we do not use, %" PRIu64 " with an unknown event id",
				 rs->bad_records, rs->other_types, rs->unknown_ids);
			n += kv(fp, "Skipped", buf);
		}
	}
	if (r->partial) {
		snprintf(buf, size, "PARTIAL: %s; the report covers the records before it", r->partial_reason);
		n += kv(fp, "Warning", buf);
	}
	return n;
}

static size_t fprintf_recording(const struct report *r, FILE *fp)
{
	const struct maps_stats *ms = maps__stats(r->maps);
	char buf[512];
	size_t n = section(fp, "Recording");

	n += fprintf_source(r, fp, buf, sizeof(buf));
	snprintf(buf, sizeof(buf), "%u bytes%s%s", r->line_size,
		 r->opts.double_cl ? " (--double-cl)" : "",
		 r->line_size_from_file ? " (from the file's CACHE feature)" :
		 r->opts.cl_size ? " (--cacheline-size)" : " (default; the file does not say)");
	n += kv(fp, "Cacheline size", buf);
	snprintf(buf, sizeof(buf), "%s",
		 r->use_time ? "by sample timestamp" : "by file order (the file has no timestamps on every record)");
	n += kv(fp, "Map resolution", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64 " MMAP2, %" PRIu64 " MMAP2 build-id form, %" PRIu64 " MMAP v1, %" PRIu64
		 " rejected", ms->mmap2, ms->mmap2_build_id, ms->mmap_v1, ms->rejected_total);
	if (ms->untracked)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", %" PRIu64 " dropped at the limits (see LIMITS in c2cscan-report(1))", ms->untracked);
	n += kv(fp, "Mappings", buf);
	if (ms->v1_file_mappings)
		n += kv(fp, "Keying",
			"approximate for file-backed memory: MMAP v1 records lack prot/flags, private assumed");
	snprintf(buf, sizeof(buf), "%" PRIu64 " private (%" PRIu64 " unmapped), %" PRIu64 " shared, %" PRIu64 " kernel",
		 r->samples_private_key, r->samples_unmapped, r->samples_shared_key, r->samples_kernel_key);
	if (r->samples_tool)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "; %" PRIu64 " in c2cscan's allocation shim "
			 "(its code and memory) left out", r->samples_tool);
	n += kv(fp, "Sample keys", buf);
	n += fprintf_allocations(r, fp, buf, sizeof(buf));
	n += fprintf_call_graphs(r, fp, buf, sizeof(buf));
	n += fprintf_losses(r, fp, buf, sizeof(buf));
	return n;
}

/* perf c2c's "Trace Event Information": the counters in its order, by
 * their labels in the one counter list (hitm/datasrc.h); the LLC misses'
 * shares come after the peer loads. */
static const uint8_t trace_order[] = {
	C2C_STAT_nr_entries, C2C_STAT_locks, C2C_STAT_load, C2C_STAT_ld_uncache, C2C_STAT_ld_io,
	C2C_STAT_ld_miss, C2C_STAT_ld_noadrs, C2C_STAT_ld_fbhit, C2C_STAT_ld_l1hit, C2C_STAT_ld_l2hit,
	C2C_STAT_ld_llchit, C2C_STAT_lcl_hitm, C2C_STAT_rmt_hitm, C2C_STAT_rmt_hit, C2C_STAT_lcl_dram,
	C2C_STAT_rmt_dram, C2C_STAT_ld_excl, C2C_STAT_ld_shared, C2C_STAT_ld_llcmiss, C2C_STAT_blk_data,
	C2C_STAT_blk_addr, C2C_STAT_lcl_peer, C2C_STAT_rmt_peer, C2C_STAT_store, C2C_STAT_st_uncache,
	C2C_STAT_st_noadrs, C2C_STAT_st_l1hit, C2C_STAT_st_l1miss, C2C_STAT_st_hitm, C2C_STAT_st_na,
	C2C_STAT_nomap, C2C_STAT_noparse,
};

static size_t fprintf_trace_info(const struct report *r, FILE *fp)
{
	const struct c2c_stats *t = c2c__totals(r->c2c);
	uint64_t llc_misses = t->ld_llcmiss;
	size_t n = section(fp, "Trace Event Information");

	for (size_t i = 0; i < ARRAY_SIZE(trace_order); i++) {
		enum c2c_stat k = trace_order[i];
		const char *label = c2c_stat_fields[k].label;
		uint64_t v = c2c_stats__get(t, k);

		switch (k) {
		case C2C_STAT_ld_llchit:
			/* perf's LLC hits include the local HITMs */
			n += kvu(fp, label, v + t->lcl_hitm);
			break;
		case C2C_STAT_rmt_hitm:
			n += kvu(fp, label, v);
			if (t->rmt_hitm_same_node || r->amd)
				n += fprintf(fp, "  %-34s: %10u  (another core of the same node: not remote)\n",
					     "  of which on the same node", t->rmt_hitm_same_node);
			break;
		case C2C_STAT_rmt_peer:
			n += kvu(fp, label, v);
			n += kvpct(fp, "LLC Misses to Local DRAM", t->lcl_dram, llc_misses);
			n += kvpct(fp, "LLC Misses to Remote DRAM", t->rmt_dram, llc_misses);
			n += kvpct(fp, "LLC Misses to Remote cache (HIT)", t->rmt_hit, llc_misses);
			n += kvpct(fp, "LLC Misses to Remote cache (HITM)", t->rmt_hitm, llc_misses);
			break;
		case C2C_STAT_st_hitm:
			/* perf does not count them; only emulated recordings have them */
			if (v)
				n += kvu(fp, label, v);
			break;
		case C2C_STAT_nomap:
			/* perf 6.8 rejects kernel data addresses (no mmap covers the
			 * direct map or slab); here they are kernel lines: say so
			 * where it differs */
			if (r->samples_kernel_key)
				n += fprintf(fp, "  %-34s: %10" PRIu64 "  (perf also rejects kernel data addresses: %"
					     PRIu64 " samples here are kernel lines)\n", label, v, r->samples_kernel_key);
			else
				n += kvu(fp, label, v);
			break;
		default:
			n += kvu(fp, label, v);
		}
	}
	return n;
}

/* In place of the cache sections for an accesses-only recording: what its
 * samples can say. A line is shared only when several threads touch it. */
static size_t fprintf_access_info(const struct report *r, FILE *fp)
{
	size_t n = section(fp, "Access Information (software events: no cache levels, no HITM)");
	uint64_t threads = 0, procs = 0;

	for (size_t i = 0; i < r->nr_lines; i++) {
		threads += c2c_line__counts(r->lines[i])->tids.nr > 1;
		procs += c2c_line__counts(r->lines[i])->pids.nr > 1;
		report__trim(r, NULL);
	}
	n += kvu(fp, "Samples with a data address", c2c__totals(r->c2c)->access);
	n += kvu(fp, "Cache lines touched", c2c__nr_lines(r->c2c));
	n += kvu(fp, "Lines touched by 2+ threads", threads);
	n += kvu(fp, "Lines touched by 2+ processes", procs);
	return n;
}

static size_t fprintf_shared_info(const struct report *r, FILE *fp)
{
	struct c2c_stats s = { 0 };
	size_t n = section(fp, "Global Shared Cache Line Event Information");

	for (size_t i = 0; i < r->nr_lines; i++) {
		c2c_stats__add(&s, &c2c_line__counts(r->lines[i])->stats);
		report__trim(r, NULL);
	}
	n += kvu(fp, "Total Shared Cache Lines", r->nr_lines);
	n += kvu(fp, "Load HITs on shared lines", s.load);
	n += kvu(fp, "Fill Buffer Hits on shared lines", s.ld_fbhit);
	n += kvu(fp, "L1D hits on shared lines", s.ld_l1hit);
	n += kvu(fp, "L2D hits on shared lines", s.ld_l2hit);
	n += kvu(fp, "LLC hits on shared lines", (uint64_t)s.ld_llchit + s.lcl_hitm);
	n += kvu(fp, "Load hits on peer cache or nodes", (uint64_t)s.lcl_peer + s.rmt_peer);
	n += kvu(fp, "Locked Access on shared lines", s.locks);
	n += kvu(fp, "Blocked Access on shared lines", (uint64_t)s.blk_data + s.blk_addr);
	n += kvu(fp, "Store HITs on shared lines", s.store);
	n += kvu(fp, "Store L1D hits on shared lines", s.st_l1hit);
	if (s.st_hitm)
		n += kvu(fp, "Store HITM on shared lines", s.st_hitm);
	n += kvu(fp, "Store No available memory level", s.st_na);
	n += kvu(fp, "Total Merged records", (uint64_t)s.tot_hitm + s.store);
	return n;
}

/* Short runs byte by byte (putc_unlocked is a macro on the buffer; a call
 * to fwrite costs more than a cell's bytes): cells are a report's bulk. */
static void put_bytes(FILE *fp, const char *s, size_t len)
{
	if (len >= 32) {
		fwrite_unlocked(s, 1, len, fp);
		return;
	}
	for (size_t i = 0; i < len; i++)
		putc_unlocked(s[i], fp);
}

static void put_spaces(FILE *fp, size_t n)
{
	for (size_t i = 0; i < n; i++)
		putc_unlocked(' ', fp);
}

/*
 * Print s in a field of width w (negative: left aligned), whole: text output
 * is for files and grep, so a value is never cut (the detail rows' text
 * columns are sized to their content; a wider value elsewhere pushes the rest
 * of its row right). The last column gets no padding. Written without
 * printf (unlocked: the report is printed by one thread): a report of 10k
 * rows has 200k cells, and printf was 4-7% of its profile.
 */
static size_t cell(FILE *fp, const char *s, int w, bool last)
{
	size_t len = strlen(s);
	size_t aw = w < 0 ? -(size_t)w : (size_t)w, pad;

	if (last) {
		put_bytes(fp, s, len);
		return len;
	}
	pad = len < aw ? aw - len : 0;
	if (w > 0)
		put_spaces(fp, pad);
	put_bytes(fp, s, len);
	if (w < 0)
		put_spaces(fp, pad);
	return len + pad;
}

#define COLUMNS_MAX 32          /* more than the column lists hold (columns.c) */

/* A recording whose events have data addresses but no data source
 * (software events: page faults): no cache levels, no HITM, no peers. */
static bool accesses_only(const struct report *r)
{
	bool addr = false;

	for (size_t i = 0; i < r->nr_events; i++) {
		if (r->events[i].has_data_src)
			return false;
		addr |= r->events[i].has_addr;
	}
	return addr;
}

/* Columns left out: those only memory events fill, in an accesses-only
 * recording (all zero there); with -c without iaddr the code columns (rows
 * are not per code address); with -c or -N the least telling ones, in
 * their spare order, as far as -c's fields and -N's nodes need the room
 * (160 columns). */
static bool skip_column(const struct report *r, uint8_t traits, uint8_t spare)
{
	if (r->co || r->opts.node_info) {
		unsigned int m = r->co ? r->opts.coalesce : CO_IADDR;
		int need = (m & CO_PID ? 8 : 0) + (m & CO_TID ? 8 : 0) + (m & CO_DSO && !(m & CO_IADDR) ? 21 : 0) -
			   (m & CO_IADDR ? 0 : 44) + (r->opts.node_info ? 11 : 0);

		if (!(m & CO_IADDR) && (traits & COL_CODE))
			return true;
		for (unsigned int i = 1; spare && i < spare; i++)
			need -= column__spare_room(i);
		if (spare && need > 0)
			return true;
	}
	return (traits & COL_MEM) && accesses_only(r);
}

static size_t fprintf_line_table(const struct report *r, FILE *fp)
{
	size_t nr_cols, n;
	const struct line_column *cols = line_columns(r, &nr_cols);
	bool skip[COLUMNS_MAX] = { false };
	int width[COLUMNS_MAX];
	uint64_t total = 0;
	char buf[256];
	int used;

	static const char *const metric[] = {
		[C2C_DISPLAY_TOT] = "HITM", [C2C_DISPLAY_LCL] = "local HITM", [C2C_DISPLAY_RMT] = "remote HITM",
		[C2C_DISPLAY_PEER] = "peer loads", [C2C_DISPLAY_ALL] = "accesses",
	};

	snprintf(buf, sizeof(buf), "Cacheline Table (%zu line%s, sorted by %s, -d %s%s)", r->nr_lines,
		 r->nr_lines == 1 ? "" : "s", r->opts.sort_gain ? "estimated gain" :
		 r->mode < ARRAY_SIZE(metric) ? metric[r->mode] : "?",
		 c2c_display__name(r->mode), r->opts.show_all ? ", all lines" : "");
	n = section(fp, buf);
	for (size_t i = 0; i < r->nr_lines; i++)
		total += report__share_line(r, r->lines[i]);
	/* decided once for the table, not per cell */
	nr_cols = nr_cols < COLUMNS_MAX ? nr_cols : COLUMNS_MAX;
	for (size_t c = 0; c < nr_cols; c++)
		skip[c] = skip_column(r, cols[c].traits, cols[c].spare) || line_column__hidden(r, &cols[c]);
	while (nr_cols > 1 && skip[nr_cols - 1])
		nr_cols--;
	/* text columns (left aligned: the key) as wide as their widest cell,
	 * and so are counts that may outgrow theirs */
	for (size_t c = 0; c < nr_cols; c++) {
		bool grows = cols[c].traits & COL_GROWS;

		width[c] = cols[c].width;
		for (size_t i = 0; (width[c] < 0 || grows) && !skip[c] && c + 1 < nr_cols && i < r->nr_lines; i++) {
			int len = (int)line_column__cell(&cols[c], r, r->lines[i], total, buf, sizeof(buf));

			if (width[c] < 0)
				width[c] = len > -width[c] ? -len : width[c];
			else if (len > width[c])
				width[c] = len;
		}
	}
	n += fprintf(fp, "%5s", "Index");
	for (size_t c = 0; c < nr_cols; c++)
		if (!skip[c])
			n += fprintf(fp, " %*s", width[c], cols[c].name);
	n += fprintf(fp, "\n");
	for (size_t i = 0; i < r->nr_lines; i++) {
		used = fprintf(fp, "%5zu", i);
		for (size_t c = 0; c < nr_cols; c++) {
			bool last = c + 1 == nr_cols;

			if (skip[c])
				continue;
			line_column__cell(&cols[c], r, r->lines[i], total, buf, sizeof(buf));
			putc_unlocked(' ', fp);
			used += 1 + cell(fp, buf, width[c], last);
		}
		n += used + fprintf(fp, "\n");
		report__trim(r, NULL);
	}
	return n;
}

#define STDIO_CHAINS 5          /* callers printed per row */

/* Under a row, as perf report -g: its stacks by samples, innermost first,
 * "    62.5%  5  touch <- helper <- via_beta <- main", whole. */
static size_t fprintf_row_chains(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
				 FILE *fp)
{
	const struct report_chain *ch;
	uint64_t samples;
	size_t nr = report__row_chains(r, l, row, &ch, &samples), n = 0;

	for (size_t i = 0; i < nr && i < STDIO_CHAINS; i++) {
		char buf[8192];
		size_t used = scnprintf(buf, sizeof(buf), "%12s%5.1f%% %6" PRIu64 "  ", "",
					100.0 * (double)ch[i].samples / (double)samples, ch[i].samples);

		report_chain__scnprintf(&ch[i], buf + used, sizeof(buf) - used);
		n += fprintf(fp, "%s\n", buf);
	}
	if (nr > STDIO_CHAINS)
		n += fprintf(fp, "%12s(%zu more stacks: --json lists every one)\n", "", nr - STDIO_CHAINS);
	return n;
}

static size_t fprintf_wrapped(FILE *fp, const char *first, const char *cont, const char *text);

/* The verdict and the advice, under the line's header. */
static size_t fprintf_verdict(const struct report *r, const struct c2c_line *l, FILE *fp)
{
	struct line_verdict v;
	char buf[512];
	size_t n;

	report__verdict(r, l, &v);
	if (v.kind == VERDICT_UNKNOWN) {
		line_verdict__exit(&v);
		return 0;
	}
	scnprintf(buf, sizeof(buf), "%s: %s", verdict__word(v.kind), v.why);
	n = fprintf_wrapped(fp, "      verdict: ", "               ", buf);
	if (v.advice[0]) {
		struct line_gain g;

		n += fprintf_wrapped(fp, "      advice:  ", "               ", v.advice);
		report__gain(r, l, &g);
		if (g.known) {
			char cyc[32];

			si_scnprint(cyc, sizeof(cyc), g.cycles);
			n += fprintf(fp, "      gain:    up to %s cycles (%.2f%% of the sampled load latency)\n", cyc,
				     100.0 * g.share);
		}
	}
	line_verdict__exit(&v);
	return n;
}

static size_t tids_scnprintf(const struct u32set *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < s->nr && i < 6; i++) {
		if (i)
			n += str_scnprint(buf + n, size - n, ",");
		n += u64_scnprint(buf + n, size - n, u32set__data(s)[i]);
	}
	if (s->nr > 6) {
		n += str_scnprint(buf + n, size - n, ",+");
		n += u64_scnprint(buf + n, size - n, s->nr - 6);
	}
	return n;
}

/* What occupies the line, byte range by byte range, and who touched it. */
static size_t fprintf_layout(const struct report *r, const struct c2c_line *l, FILE *fp)
{
	struct layout_entry *e;
	size_t nr, n = 0;
	const char *type = NULL;

	nr = report__layout(r, l, &e);
	for (size_t i = 0; i < nr; i++) {
		char what[200], w[64], rd[64], row[512];

		if (e[i].type[0] && (!type || strcmp(type, e[i].type))) {
			n += fprintf(fp, "      layout of %s:\n", e[i].type);
			type = e[i].type;
		} else if (!i) {
			n += fprintf(fp, "      layout:\n");
		}
		scnprintf(what, sizeof(what), "%s%s", e[i].kind == LAYOUT_NONE ? "(no object known)" : e[i].member,
			  e[i].kind == LAYOUT_PADDING ? " (padding)" : "");
		tids_scnprintf(&e[i].writers, w, sizeof(w));
		tids_scnprintf(&e[i].readers, rd, sizeof(rd));
		if (e[i].loads || e[i].stores)
			scnprintf(row, sizeof(row), "        %#6x %4u B  %-48s  loads %" PRIu64 " stores %" PRIu64 " HITM %u%s%s%s%s",
				  e[i].offset, e[i].size, what, e[i].loads, e[i].stores, e[i].hitm,
				  w[0] ? "  written by " : "", w, rd[0] ? "  read by " : "", rd);
		else
			scnprintf(row, sizeof(row), "        %#6x %4u B  %s", e[i].offset, e[i].size, what);
		n += fprintf(fp, "%s\n", row);
	}
	layout__free(e, nr);
	return n;
}

/* -c: the fields that tell rows apart, after Data. */
static size_t co_header(const struct report *r, char *buf, size_t size)
{
	unsigned int m = r->co ? r->opts.coalesce : 0;
	size_t n = 0;

	if (m & CO_PID)
		n += scnprintf(buf + n, size - n, " %7s", "Pid");
	if (m & CO_TID)
		n += scnprintf(buf + n, size - n, " %7s", "Tid");
	if ((m & CO_DSO) && !(m & CO_IADDR))
		n += scnprintf(buf + n, size - n, " %-20s", "Object");
	return n;
}

static size_t fprintf_co_cells(const struct report *r, uint32_t pid, uint32_t tid, const char *dso, FILE *fp)
{
	unsigned int m = r->opts.coalesce;
	size_t n = 0;

	if (m & CO_PID)
		n += fprintf(fp, " %7u", pid);
	if (m & CO_TID)
		n += fprintf(fp, " %7u", tid);
	if ((m & CO_DSO) && !(m & CO_IADDR))
		n += fprintf(fp, " %-20s", dso ? object_base_name(dso) : "[unknown]");
	return n;
}

/* The text columns of line l's rows as wide as their widest cell (the last
 * one is not padded); the Data cells ("struct conn.st.bytes"), named once,
 * to size the column, then to print them. */
struct data_cells {
	size_t col;             /* the Data column, SIZE_MAX none */
	size_t nr;              /* rows named, from the first */
	char (*cell)[256];
};

static void data_width(const struct report *r, const struct c2c_line *l, const struct row_column *cols,
		       size_t nr_cols, const bool *skip, int *width, struct data_cells *dc)
{
	for (size_t c = 0; c + 1 < nr_cols; c++) {
		size_t w = (size_t)(cols[c].width < 0 ? -cols[c].width : cols[c].width);
		bool data = cols[c].traits & COL_DATA;
		char buf[256];

		if ((cols[c].width >= 0 && !(cols[c].traits & COL_GROWS)) || skip[c])
			continue;
		if (cols[c].width >= 0) {
			/* a count: right aligned, as wide as its widest cell */
			for (size_t i = 0; i < l->nr_rows; i++) {
				size_t len = row_column__cell(&cols[c], r, l, &c2c_line__rows(l)[i], buf, sizeof(buf));

				w = len > w ? len : w;
			}
			width[c] = (int)w;
			continue;
		}
		if (data) {
			dc->col = c;
			dc->cell = xmalloc((l->nr_rows ? l->nr_rows : 1) * sizeof(*dc->cell));
		}
		for (size_t i = 0; i < l->nr_rows; i++) {
			char *text = data ? dc->cell[i] : buf;
			size_t len;

			row_column__cell(&cols[c], r, l, &c2c_line__rows(l)[i], text, sizeof(buf));
			if (data)
				dc->nr = i + 1;
			len = strlen(text);
			w = len > w ? len : w;
		}
		width[c] = -(int)w;
	}
}

/* " %*s" of s in width w, as scnprintf writes it: the header's cells. */
static size_t pad_scnprint(char *buf, size_t size, const char *s, int w)
{
	size_t len = strlen(s), aw = w < 0 ? -(size_t)w : (size_t)w, pad = len < aw ? aw - len : 0, n = 0;

	for (size_t i = 0; i < 1 + pad + len && n + 1 < size; i++, n++) {
		if (i == 0)
			buf[n] = ' ';
		else if (w >= 0)
			buf[n] = i <= pad ? ' ' : s[i - 1 - pad];
		else
			buf[n] = i <= len ? s[i - 1] : ' ';
	}
	if (size)
		buf[n] = '\0';
	return n;
}

/* What the line header's count is made of where it adds two kinds (tot and
 * lcl count store HITMs too, which emulated recordings have): ": load HITM
 * N + store HITM M", the names of the table's columns; "" otherwise. */
static const char *metric_parts(const struct report *r, const struct c2c_stats *st, char *buf, size_t size)
{
	if (!st->st_hitm || (r->mode != C2C_DISPLAY_TOT && r->mode != C2C_DISPLAY_LCL))
		return "";
	scnprintf(buf, size, ": load HITM %u + store HITM %u", r->mode == C2C_DISPLAY_TOT ? st->tot_hitm :
		  st->lcl_hitm, st->st_hitm);
	return buf;
}

static size_t fprintf_line_detail(const struct report *r, size_t idx, FILE *fp)
{
	const struct c2c_line *l = r->lines[idx], *rl;
	const struct c2c_counts *k = c2c_line__counts(l);
	size_t nr_cols, n, hl;
	char hdr[512];
	bool skip[COLUMNS_MAX] = { false };
	int width[COLUMNS_MAX];
	const struct row_column *cols = row_columns(r, &nr_cols);
	char key[128], buf[256];
	struct data_cells dc = { .col = SIZE_MAX };
	int used;

	cl_key__scnprintf(&l->key, r->maps, key, sizeof(key));
	if (accesses_only(r))
		n = fprintf(fp, "\n--- %zu: %#" PRIx64 "  %s  %s  (accesses %" PRIu64 ", pids %u, tids %u)\n", idx,
			    l->addr, key, line_object(l), c2c_line__metric(l, C2C_DISPLAY_ALL), k->pids.nr, k->tids.nr);
	else
		n = fprintf(fp, "\n--- %zu: %#" PRIx64 "  %s  %s  (%s %" PRIu64 "%s, loads %" PRIu64 ", stores %" PRIu64
			    ", pids %u, tids %u)\n",
			    idx, l->addr, key, line_object(l), c2c_display__name(r->mode),
			    c2c_line__metric(l, r->mode), metric_parts(r, &k->stats, buf, sizeof(buf)),
			    report__est(r, &k->stats, C2C_STAT_load), report__est(r, &k->stats, C2C_STAT_store), k->pids.nr, k->tids.nr);
	n += fprintf_verdict(r, l, fp);
	n += fprintf_layout(r, l, fp);
	while (nr_cols && cols[nr_cols - 1].wide)
		nr_cols--;
	nr_cols = nr_cols < COLUMNS_MAX ? nr_cols : COLUMNS_MAX;
	for (size_t c = 0; c < nr_cols; c++)
		skip[c] = skip_column(r, cols[c].traits, cols[c].spare) || row_column__hidden(r, &cols[c]);
	while (nr_cols > 1 && skip[nr_cols - 1])
		nr_cols--;
	rl = r->co && report__coalesced_line(r, l) ? report__coalesced_line(r, l) : l;
	for (size_t c = 0; c < nr_cols; c++)
		width[c] = cols[c].width;
	/* the header, with Data as wide as its widest cell */
	data_width(r, rl, cols, nr_cols, skip, width, &dc);
	hl = scnprintf(hdr, sizeof(hdr), "     ");
	for (size_t c = 0; c < nr_cols; c++) {
		if (!skip[c])
			hl += pad_scnprint(hdr + hl, sizeof(hdr) - hl, cols[c].name, width[c]);
		if (c == 1)
			hl += co_header(r, hdr + hl, sizeof(hdr) - hl);
	}
	if (r->opts.node_info)
		hl += scnprintf(hdr + hl, sizeof(hdr) - hl, " %s", "Node{cpus}");
	n += fprintf(fp, "%s\n", hdr);
	for (size_t i = 0; i < rl->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(rl)[i];
		struct c2c_row shown;
		uint32_t pid = 0, tid = 0;
		const char *dso = NULL;

		if (r->co && report__coalesced_row(r, row, &shown, &pid, &tid, &dso))
			row = &shown;
		fwrite_unlocked("     ", 1, 5, fp);
		used = 5;
		for (size_t c = 0; c < nr_cols; c++) {
			bool last = c + 1 == nr_cols && !r->opts.node_info;

			if (!skip[c]) {
				const char *text = buf;

				if (c == dc.col && i < dc.nr && row != &shown)
					text = dc.cell[i];
				else
					row_column__cell(&cols[c], r, rl, row, buf, sizeof(buf));
				putc_unlocked(' ', fp);
				used += 1 + cell(fp, text, width[c], last);
			}
			if (c == 1 && r->co)
				used += fprintf_co_cells(r, pid, tid, dso, fp);
		}
		if (r->opts.node_info) {
			/* -N: perf c2c's node view, last (it may be long) */
			nodes__scnprintf(r, &row->nodes, &row->cpus, true, buf, sizeof(buf));
			putc(' ', fp);
			used += 1 + cell(fp, buf, -10, true);
		}
		putc_unlocked('\n', fp);
		n += used + 1;
		if (!r->co)
			n += fprintf_row_chains(r, l, row, fp);
	}
	free(dc.cell);
	return n + fprintf_line_heap(r, l, fp);
}

/* text after first, cut at spaces into lines within WIDTH, the next ones
 * after cont. */
static size_t fprintf_wrapped(FILE *fp, const char *first, const char *cont, const char *text)
{
	const char *lead = first;
	size_t n = 0;

	while (*text) {
		size_t len = text_row(text, WIDTH - strlen(lead));

		n += fprintf(fp, "%s%.*s\n", lead, (int)len, text);
		text += len;
		while (*text == ' ')
			text++;
		lead = cont;
	}
	return n;
}

/* The latent pairs, the first STDIO_LATENT (JSON lists every one). */
#define STDIO_LATENT 10
static size_t fprintf_latent(const struct report *r, FILE *fp)
{
	const struct latent *l;
	size_t nr = report__latent(r, &l), n, shown = nr < STDIO_LATENT ? nr : STDIO_LATENT;
	char buf[768], num[96];

	if (!nr)
		return 0;
	n = section(fp, "Latent False Sharing (no contention today: each line one thread's, the next another's)");
	for (size_t i = 0; i < shown; i++) {
		latent__scnprintf(r, &l[i], buf, sizeof(buf));
		scnprintf(num, sizeof(num), "%zu. ", i + 1);
		n += fprintf_wrapped(fp, num, "   ", buf);
		n += fprintf(fp, "   %#" PRIx64 " and %#" PRIx64 ", pid %u; store samples: %" PRIu64 " and %" PRIu64 "\n",
			     l[i].addr_a, l[i].addr_b, l[i].pid, l[i].stores_a, l[i].stores_b);
	}
	if (nr > shown)
		n += fprintf(fp, "(%zu more: --json lists them)\n", nr - shown);
	return n;
}

size_t report__fprintf_stdio(const struct report *r, FILE *fp)
{
	char why[512];
	size_t n, max;

	n = fprintf(fp, "# c2cscan %s report\n", C2CSCAN_VERSION);
	if (report__notice(r))
		n += fprintf_wrapped(fp, "# NOTICE: ", "#         ", report__notice(r));
	n += fprintf_recording(r, fp);
	if (report__empty_reason(r, why, sizeof(why))) {
		n += fprintf(fp, "\n%s\n", why);
		return n;
	}
	if (accesses_only(r)) {
		n += fprintf_access_info(r, fp);
	} else {
		n += fprintf_trace_info(r, fp);
		n += fprintf_shared_info(r, fp);
	}
	if (r->opts.stats_only)
		return n;
	/* the lines detailed are built once for the three passes over them
	 * (the 2M-sample bench file's 1008: 2.0 MB, built two or three times
	 * in 2 MB: 226 -> 215 ms) */
	c2c__set_budget(r->c2c, C2C_BUILT_BUDGET * 4);
	n += fprintf_line_table(r, fp);
	if (!r->nr_lines) {
		n += fprintf(fp, "\nNo cacheline has %s > 0%s.\n", c2c_display__name(r->mode),
			     r->mode == C2C_DISPLAY_ALL ? "" : "; try -d all or --show-all to list every accessed line");
		return n + fprintf_latent(r, fp);
	}
	if (r->co)
		n += section(fp, "Cacheline Offsets (per offset and -c fields)");
	else
		n += section(fp, "Cacheline Offsets (per offset and code address)");
	max = report__detailed_lines(r);
	for (size_t i = 0; i < max; i++) {
		n += fprintf_line_detail(r, i, fp);
		report__trim(r, NULL);
	}
	if (max < r->nr_lines)
		n += fprintf(fp, "\n(%zu more lines not detailed: --lines N details N, --lines 0 all)\n",
			     r->nr_lines - max);
	n += fprintf_latent(r, fp);
	/* after the tables: naming their rows is what finds the problems */
	if (report__nr_name_warnings(r))
		n += section(fp, "Names");
	for (size_t i = 0; i < report__nr_name_warnings(r); i++)
		n += fprintf_wrapped(fp, "warning: ", "         ", report__name_warning(r, i));
	return n;
}

/* One side of a diff row: the metric, or "-" when the name was not listed. */
static void diff_side(bool in, const struct c2c_stats *st, enum c2c_display mode, char *buf, size_t size)
{
	if (in)
		scnprintf(buf, size, "%" PRIu64, c2c_stats__metric(st, mode));
	else
		scnprintf(buf, size, "-");
}

static void diff_rate(bool in, double rate, char *buf, size_t size)
{
	if (in)
		scnprintf(buf, size, "%.1f", rate);
	else
		scnprintf(buf, size, "-");
}

/* "false sharing", "false sharing -> no sharing", "" */
static void diff_verdicts(const struct diff_entry *e, char *buf, size_t size)
{
	if (e->verdict_before >= 0 && e->verdict_after >= 0 && e->verdict_before != e->verdict_after)
		scnprintf(buf, size, "%s -> %s", verdict__word(e->verdict_before), verdict__word(e->verdict_after));
	else if (e->verdict_before >= 0 || e->verdict_after >= 0)
		scnprintf(buf, size, "%s", verdict__word(e->verdict_before >= 0 ? e->verdict_before : e->verdict_after));
	else
		buf[0] = '\0';
}

static size_t diff_row(const struct report_diff *d, const struct diff_entry *e, FILE *fp)
{
	char sb[24], sa[24], rb[24], ra[24], ch[32], v[96];
	double pct;

	diff_side(e->in_before, &e->before, d->mode, sb, sizeof(sb));
	diff_side(e->in_after, &e->after, d->mode, sa, sizeof(sa));
	diff_rate(e->in_before, e->rate_before, rb, sizeof(rb));
	diff_rate(e->in_after, e->rate_after, ra, sizeof(ra));
	if (diff_entry__change(e, &pct))
		scnprintf(ch, sizeof(ch), "%+.0f%%", pct);
	else
		scnprintf(ch, sizeof(ch), "-");
	diff_verdicts(e, v, sizeof(v));
	return fprintf(fp, "%-56s %9s %9s %9s %9s %7s  %-15s %s\n", e->name, sb, sa, rb, ra, ch,
		       diff_status__word(diff_entry__status(e)), v);
}

size_t report_diff__fprintf_stdio(const struct report_diff *d, FILE *fp)
{
	const char *what = c2c_display__name(d->mode);
	size_t n = fprintf(fp, "# c2cscan %s diff\n", C2CSCAN_VERSION);

	n += fprintf(fp, "# before: %s\n# after:  %s\n", pd_reader__path(d->before->reader),
		     pd_reader__path(d->after->reader));
	n += fprintf(fp, "# lines matched by what they hold (data symbol, heap site, variable or type and function), "
		     "-d %s\n", what);
	n += fprintf(fp, "# %s: the mode's count; /Macc: per million accesses the samples stand for (before %.3g, "
		     "after %.3g), which compares runs of different lengths; change and status by /Macc\n", what,
		     d->acc_before, d->acc_after);
	if (d->renamed)
		n += fprintf(fp, "# %zu line%s matched across a renamed object by function or file offset (\"A -> B via f\")\n",
			     d->renamed, d->renamed == 1 ? "" : "s");
	if (d->why[0])
		n += fprintf(fp, "# warning: %s\n", d->why);
	if (d->all_gone)
		n += fprintf(fp, "# %s %zu line%s with sharing before %s gone: none after (%s %.1f -> %.1f per million "
			     "accesses)\n", d->findings_before == 1 ? "the" : "all", d->findings_before,
			     d->findings_before == 1 ? "" : "s", d->findings_before == 1 ? "is" : "are", what,
			     d->total.rate_before, d->total.rate_after);
	n += fprintf(fp, "\n%-56s %9s %9s %9s %9s %7s  %-15s %s\n", "Name", "before", "after", "/Macc<", "/Macc>",
		     "change", "status", "verdict");
	for (size_t i = 0; i < d->nr; i++)
		n += diff_row(d, &d->e[i], fp);
	if (!d->nr)
		n += fprintf(fp, "(no line has %s > 0 in either recording; try -d all)\n", what);
	else
		n += diff_row(d, &d->total, fp);
	/* the advice's predictions against what the after recording measured */
	for (size_t i = 0; i < d->nr; i++)
		if (d->e[i].predicted)
			n += fprintf(fp, "# %s: its fix was predicted to leave %.1f contended accesses per million; "
				     "measured after: %.1f\n", d->e[i].name, d->e[i].predicted_rate, d->e[i].rate_after);
	return n;
}
