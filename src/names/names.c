// SPDX-License-Identifier: GPL-2.0
/*
 * The report's names: a struct symbols created on the first question, fed
 * with what pass 1 saw (jit-PID.dump mmaps) and the file's build-ids.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "names/names.h"
#include "names/unwind.h"
#include "util/util.h"

struct jitdump {
	uint32_t pid;
	char *path;
};

/* A renderer asks for a row's names once per column that shows them (and
 * the verdict once more), row after row: the last answers, by what they
 * were asked of, are kept. */
#define ROW_MEMO 256

struct row_memo {
	bool valid;
	const struct maps *maps;
	struct names_code_ref c;
	struct names_data_ref d;
	uint64_t obj_start, obj_size;
	struct row_names out;
};

struct names {
	struct names_opts o;      /* strings owned */
	const struct pd_info *info;
	bool kallsyms_off;
	struct symbols *sym;      /* created lazily */
	struct unwinder *unw;     /* too */
	struct jitdump *jit;
	size_t nr_jit, alloc_jit;
	struct row_memo memo[ROW_MEMO];
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* kallsyms names this machine's kernel: only use it for a recording of the
 * same release (and symbols.c then checks the KASLR offset against the
 * recorded kernel map). */
static bool same_kernel(const struct pd_info *info)
{
	struct utsname u;

	return info && info->osrelease && !uname(&u) && !strcmp(u.release, info->osrelease);
}

struct names *names__new(const struct names_opts *o, const struct pd_info *info)
{
	struct names *n = xcalloc(1, sizeof(*n));

	n->o.disabled = o->disabled;
	n->o.no_debuginfod = o->no_debuginfod;
	n->o.symfs = dup_or_null(o->symfs);
	n->o.vmlinux = dup_or_null(o->vmlinux);
	n->o.kallsyms = dup_or_null(o->kallsyms);
	n->o.perf_map_dir = dup_or_null(o->perf_map_dir);
	n->info = info;
	n->kallsyms_off = !o->kallsyms && !same_kernel(info);
	return n;
}

void names__delete(struct names *n)
{
	if (!n)
		return;
	unwinder__delete(n->unw);
	symbols__delete(n->sym);
	for (size_t i = 0; i < n->nr_jit; i++)
		free(n->jit[i].path);
	free(n->jit);
	free((char *)n->o.symfs);
	free((char *)n->o.vmlinux);
	free((char *)n->o.kallsyms);
	free((char *)n->o.perf_map_dir);
	free(n);
}

void names__note_mmap(struct names *n, const struct pd_mmap *m)
{
	const char *base;
	unsigned int pid;
	int end = 0;

	if (!n || n->o.disabled || !m->filename)
		return;
	base = strrchr(m->filename, '/');
	base = base ? base + 1 : m->filename;
	if (sscanf(base, "jit-%u.dump%n", &pid, &end) != 1 || base[end] || pid != m->pid)
		return;
	for (size_t i = 0; i < n->nr_jit; i++)
		if (n->jit[i].pid == pid && !strcmp(n->jit[i].path + strlen(n->o.symfs ? n->o.symfs : ""),
						    m->filename))
			return;
	xgrow((void **)&n->jit, &n->alloc_jit, n->nr_jit + 1, sizeof(*n->jit));
	n->jit[n->nr_jit].pid = pid;
	n->jit[n->nr_jit].path = xasprintf("%s%s", n->o.symfs ? n->o.symfs : "", m->filename);
	n->nr_jit++;
}

static struct symbols *names__symbols(struct names *n)
{
	struct symbols_opts so = {
		.symfs = n->o.symfs,
		.vmlinux = n->o.vmlinux,
		/* "": no kallsyms at all (fopen fails, nothing is named) */
		.kallsyms = n->kallsyms_off ? "" : n->o.kallsyms,
		.perf_map_dir = n->o.perf_map_dir,
		.no_debuginfod = n->o.no_debuginfod,
	};

	if (n->sym)
		return n->sym;
	n->sym = symbols__new(&so);
	for (size_t i = 0; i < n->nr_jit; i++)
		symbols__add_jitdump(n->sym, n->jit[i].pid, n->jit[i].path);
	for (uint32_t i = 0; n->info && i < n->info->nr_build_ids; i++)
		symbols__set_build_id(n->sym, n->info->build_ids[i].name, n->info->build_ids[i].id,
				      n->info->build_ids[i].size);
	return n->sym;
}

/* The mapping that ends where d's starts (symbols.h: an anonymous map
 * after a data segment is its .bss), NULL none. */
static const struct map_desc *map_before(const struct maps *maps, uint32_t pid, const struct names_data_ref *d)
{
	return d->map && d->map->start ? maps__find(maps, pid, d->map->start - 1, d->time) : NULL;
}

bool names__data(struct names *n, const struct maps *maps, const struct names_data_ref *d, struct data_loc *out)
{
	uint32_t pid = d->kernel ? KERNEL_PID : d->pid;

	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled)
		return false;
	return !symbols__data(names__symbols(n), d->map, map_before(maps, pid, d), pid, d->addr, out);
}

static bool memo__is(const struct row_memo *m, const struct maps *maps, const struct names_code_ref *c,
		     const struct names_data_ref *d, uint64_t obj_start, uint64_t obj_size)
{
	return m->valid && m->maps == maps && m->c.pid == c->pid && m->c.kernel == c->kernel && m->c.call_access == c->call_access &&
	       m->c.map == c->map && m->c.addr == c->addr && m->c.time == c->time && m->d.pid == d->pid &&
	       m->d.kernel == d->kernel && m->d.map == d->map && m->d.addr == d->addr && m->d.time == d->time &&
	       m->obj_start == obj_start && m->obj_size == obj_size;
}

void names__row(struct names *n, const struct maps *maps, const struct names_code_ref *c,
		const struct names_data_ref *d, uint64_t obj_start, uint64_t obj_size, struct row_names *out)
{
	uint32_t pid = c->kernel ? KERNEL_PID : c->pid;
	struct data_loc *dl = &out->data;
	struct row_memo *m;

	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled)
		return;
	m = &n->memo[hash64(c->addr ^ hash64(d->addr ^ (uint64_t)c->pid << 32)) % ROW_MEMO];
	if (memo__is(m, maps, c, d, obj_start, obj_size)) {
		*out = m->out;
		return;
	}
	out->code_ok = !symbols__code(names__symbols(n), c->map, pid, c->addr, c->time, &out->code);
	out->data_ok = names__data(n, maps, d, dl);
	/* no DWARF variable at the address (heap, stack, TLS, a symbol
	 * without type): what the instruction's operand points at */
	if (dl->type_source != TYPE_VARIABLE && !dl->kernel && pid != KERNEL_PID &&
	    ((c->call_access && !symbols__call_arg_type(names__symbols(n), c->map, c->addr, d->addr, obj_start,
							 obj_size, dl)) ||
	     !symbols__access_type(names__symbols(n), c->map, c->addr, d->addr, obj_start, obj_size, dl, NULL)))
		out->data_ok = true;
	*m = (struct row_memo){ .valid = true, .maps = maps, .c = *c, .d = *d, .obj_start = obj_start,
				.obj_size = obj_size, .out = *out };
}

bool names__data_decl(struct names *n, const struct maps *maps, const struct names_data_ref *d,
		      struct data_decl *out)
{
	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled || d->kernel)
		return false;
	return !symbols__data_decl(names__symbols(n), d->map, map_before(maps, d->pid, d), d->addr, out);
}

bool names__code_decl(struct names *n, const struct maps *maps, uint32_t pid, uint64_t addr, uint64_t time,
		      const char *type, const char *member, struct code_decl *out)
{
	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled)
		return false;
	return !symbols__code_decl(names__symbols(n), maps__find(maps, pid, addr, time), addr, type, member, out);
}

bool names__insn(struct names *n, const struct names_code_ref *c, struct insn_access *out)
{
	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled || c->kernel)
		return false;
	return !symbols__insn(names__symbols(n), c->map, c->addr, out) && out->valid;
}

bool names__code(struct names *n, const struct maps *maps, uint32_t pid, uint64_t addr, uint64_t time,
		 struct code_loc *out)
{
	memset(out, 0, sizeof(*out));
	if (!n || n->o.disabled)
		return false;
	return !symbols__code(names__symbols(n), maps__find(maps, pid, addr, time), pid, addr, time, out);
}

/* PERF_CONTEXT_*: markers in a callchain, not addresses */
#define CONTEXT_MAX ((uint64_t)-4095)

size_t names__stack(struct names *n, const struct maps *maps, const struct pd_sample *s, uint64_t time,
		    uint64_t *ips, size_t max, struct stack_stats *st)
{
	size_t nr = 0;
	bool user = false;

	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t a = s->callchain[i];

		if (a >= CONTEXT_MAX) {
			user = a == PERF_CONTEXT_USER;
			continue;
		}
		/* a kernel address in the user part is no frame of the process
		 * (0 there is the unwinder's end): unknown, as perf prints it */
		if (user && a >= maps__kernel_start(maps))
			a = 0;
		if (nr == max) {
			st->clipped++;
			return nr;
		}
		ips[nr++] = a;
	}
	if (s->stack_dyn_size || s->regs_abi) {
		/* --call-graph dwarf: the kernel's chain stopped at the user boundary */
		size_t got;

		if (!n || n->o.disabled || nr == max)
			return nr;
		if (!n->unw)
			n->unw = unwinder__new(names__symbols(n), n->info ? n->info->arch : NULL);
		got = unwinder__user(n->unw, maps, s, time, ips + nr, max - nr);
		st->clipped += got == max - nr && got > 1;
		nr += got;
	}
	return nr;
}

const struct unwind_stats *names__unwind_stats(const struct names *n)
{
	return n && n->unw ? unwinder__stats(n->unw) : NULL;
}

size_t names__nr_warnings(const struct names *n)
{
	return n && n->sym ? symbols__nr_warnings(n->sym) : 0;
}

const char *names__warning(const struct names *n, size_t i)
{
	return symbols__warning(n->sym, i);
}

size_t names__code_scnprintf(const struct code_loc *c, char *buf, size_t size)
{
	if (c->inl_func)
		return scnprintf(buf, size, "%s (inlined in %s)", c->inl_func,
				 c->inl_caller ? c->inl_caller : c->func ? c->func : "?");
	if (c->func && c->func_off)
		return scnprintf(buf, size, "%s+%#" PRIx64, c->func, c->func_off);
	return scnprintf(buf, size, "%s", c->func ? c->func : "");
}

size_t names__source_scnprintf(const struct code_loc *c, bool full, char *buf, size_t size)
{
	const char *f = c->file, *base;

	if (!f || c->line <= 0)
		return scnprintf(buf, size, "%s", "");
	base = strrchr(f, '/');
	return scnprintf(buf, size, "%s:%d", full || !base ? f : base + 1, c->line);
}

bool names__data_typed(const struct data_loc *d)
{
	return d->type_source >= TYPE_VARIABLE && (d->var_led || d->aggregate);
}

size_t names__data_scnprintf(const struct data_loc *d, char *buf, size_t size)
{
	/* typed through the instruction: "struct conn.st.bytes", "st.hits"
	 * (a stack or TLS variable), "struct item[3].hits" */
	if (!d->sym && d->type_source >= TYPE_VARIABLE && (d->type[0] || d->member[0])) {
		if (d->var_led)
			return scnprintf(buf, size, "%s", d->member);
		return scnprintf(buf, size, "%s%s%s", d->type, d->member[0] && d->member[0] != '[' ? "." : "",
				 d->member);
	}
	if (d->sym && d->member[0])
		return d->member_off ? scnprintf(buf, size, "%s+%#x", d->member, d->member_off)
				     : scnprintf(buf, size, "%s", d->member);
	if (d->sym)
		return d->sym_off ? scnprintf(buf, size, "%s+%#" PRIx64, d->sym, d->sym_off)
				  : scnprintf(buf, size, "%s", d->sym);
	return scnprintf(buf, size, "%s", d->kind ? d->kind : "");
}
