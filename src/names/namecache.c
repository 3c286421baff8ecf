// SPDX-License-Identifier: GPL-2.0
/*
 * The names cache: what naming an object costs most to learn, kept for the
 * next report of the same object -- its variables with a fixed address
 * (vars_build reads every DIE of every CU) and what each instruction's
 * memory operand points at (dtype.c: a data flow over the function's
 * code). One file beside the object's copy in the build-id cache,
 * ~/.debug/.build-id/BU/ILDID/c2cscan-names, written only where record (or
 * perf) made that entry.
 *
 * It answers only for the object of its build-id, read through DWARF of
 * the same shape (the sizes of .debug_info and .debug_abbrev) by the
 * c2cscan that wrote it (the build-id of its executable: another build may
 * answer otherwise), whole (a checksum). Anything else, or any damage, and
 * it is not used: the answers are learned again, and written anew. DIEs are kept as offsets in
 * the module's .debug_info; an answer whose DIE is elsewhere (a type unit,
 * a dwz file) is not kept.
 * The file's layout: namecache.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "names/namecache.h"
#include "names/symbols_int.h"
#include "perfdata/buildid.h"

#define NC_MAX_SIZE (256u << 20)

/* The build-id of the running executable (read once): what wrote a cache
 * must be what reads it. */
static uint8_t self[20], self_len;
static int self_state;

static bool self_id(void)
{
	if (!self_state) {
		int n = buildid__read_file("/proc/self/exe", self);

		self_len = n >= 2 && n <= 20 ? (uint8_t)n : 0;
		self_state = self_len ? 1 : -1;
	}
	return self_state > 0;
}

static char *nc_path(const struct obj *o)
{
	return buildid__cache_path(getenv("HOME"), o->build_id, o->build_id_size, NC_FILE);
}

/* The module's Dwarf and the sizes that tell its shape; NULL without. */
static Dwarf *nc_dwarf(struct obj *o, uint64_t *info, uint64_t *abbrev)
{
	Dwarf_Addr bias;
	Dwarf *dw = o->mod ? dwfl_module_getdwarf(o->mod, &bias) : NULL;
	Elf *e = dw ? dwarf_getelf(dw) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*info = *abbrev = 0;
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".debug_info") && strcmp(name, ".debug_abbrev")) || !(d = elf_getdata(scn, NULL)))
			continue;
		*(name[7] == 'i' ? info : abbrev) = d->d_size;
	}
	return *info ? dw : NULL;
}

/* A DIE of the module's .debug_info at off (below size), else false. */
static bool die_at(Dwarf *dw, uint64_t size, uint64_t off, Dwarf_Die *die)
{
	return off && off < size && dwarf_offdie(dw, off, die);
}

/* Its offset in the module's .debug_info, when it is there; else 0. */
static uint64_t die_off(Dwarf *dw, const Dwarf_Die *die)
{
	Dwarf_Die back;
	uint64_t off;

	if (!die->addr)
		return 0;
	off = dwarf_dieoffset((Dwarf_Die *)die);
	return off && dwarf_offdie(dw, off, &back) && back.addr == die->addr ? off : 0;
}

/* Reads the cache once: o->nc holds it when it answers for o. */
static void nc_read(struct obj *o)
{
	struct nc_head h;
	uint64_t info, abbrev;
	char *path;
	struct stat st;
	uint8_t *buf = NULL;
	int fd;
	ssize_t got;

	if (o->nc_state)
		return;
	o->nc_state = -1;
	if (!self_id() || !(path = nc_path(o)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size >= (off_t)sizeof(h) && st.st_size <= NC_MAX_SIZE) {
		buf = xmalloc((size_t)st.st_size);
		got = read(fd, buf, (size_t)st.st_size);
		if (got != st.st_size) {
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	if (!buf)
		return;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != NC_MAGIC || h.version != NC_VERSION || h.self_len != self_len ||
	    memcmp(h.self, self, h.self_len) || h.module_len != o->build_id_size ||
	    memcmp(h.module, o->build_id, h.module_len) || !nc_dwarf(o, &info, &abbrev) || h.info_size != info ||
	    h.abbrev_size != abbrev || h.sum != nc_sum(buf + sizeof(h), (size_t)st.st_size - sizeof(h), NC_SUM_START) ||
	    ((uint64_t)h.nr_vars + h.nr_tls) * sizeof(struct nc_var) + (uint64_t)h.nr_got * sizeof(struct nc_got) >
	    (uint64_t)st.st_size - sizeof(h)) {
		free(buf);
		return;
	}
	o->nc = buf;
	o->nc_len = (size_t)st.st_size;
	o->nc_state = 1;
}

/* The variables of o from the cache; false when it has none for o. */
bool namecache__vars(struct obj *o)
{
	struct nc_head h;
	const uint8_t *p;
	uint64_t info, abbrev;
	Dwarf *dw;
	bool ok = true;

	nc_read(o);
	if (o->nc_state <= 0)
		return false;
	memcpy(&h, o->nc, sizeof(h));
	if (!h.has_vars || !(dw = nc_dwarf(o, &info, &abbrev)))
		return false;
	/* nc_read checked that the variables fit */
	p = o->nc + sizeof(h);
	obj_relocs(o);  /* the .got slots the declarations are matched to */
	for (uint64_t i = 0; ok && i < (uint64_t)h.nr_vars + h.nr_tls; i++, p += sizeof(struct nc_var)) {
		struct nc_var v;
		Dwarf_Die die;
		bool tls = i >= h.nr_vars;

		memcpy(&v, p, sizeof(v));
		ok = die_at(dw, info, v.off, &die) && dwarf_tag(&die) == DW_TAG_variable;
		if (ok && !tls) {
			xgrow((void **)&o->vars, &o->alloc_vars, o->nr_vars + 1, sizeof(*o->vars));
			o->vars[o->nr_vars++] = (struct var){ v.addr, v.size, die };
		} else if (ok) {
			xgrow((void **)&o->tls_vars, &o->alloc_tls_vars, o->nr_tls_vars + 1, sizeof(*o->tls_vars));
			o->tls_vars[o->nr_tls_vars++] = (struct var){ v.addr, v.size, die };
		}
	}
	for (uint32_t i = 0; ok && i < h.nr_got; i++, p += sizeof(struct nc_got)) {
		struct nc_got g;
		uint64_t k;

		memcpy(&g, p, sizeof(g));
		ok = u64map__get(&o->got_ext_idx, g.slot, &k) && k < o->nr_got_ext &&
		     die_at(dw, info, g.off, &o->got_ext[k].decl);
		if (ok)
			o->got_ext[k].has_decl = true;
	}
	if (ok && h.has_thread)
		ok = o->has_thread_type = die_at(dw, info, h.thread_off, &o->thread_type);
	if (ok && h.has_tcb)
		ok = o->has_tcb_type = die_at(dw, info, h.tcb_off, &o->tcb_type);
	if (!ok) {
		/* damaged: learned again */
		o->nr_vars = o->nr_tls_vars = 0;
		o->has_thread_type = o->has_tcb_type = false;
		for (size_t k = 0; k < o->nr_got_ext; k++)
			o->got_ext[k].has_decl = false;
		o->nc_state = -1;
		return false;
	}
	o->nc_vars = true;
	return true;
}

/* The cached answers of o's instructions into o->dtypes, once. */
void namecache__dtypes(struct symbols *s, struct obj *o)
{
	struct nc_head h;
	const uint8_t *p, *end;
	uint64_t info, abbrev;
	Dwarf *dw;

	nc_read(o);
	if (o->nc_state <= 0 || o->nc_types_read)
		return;
	o->nc_types_read = true;
	memcpy(&h, o->nc, sizeof(h));
	if (!(dw = nc_dwarf(o, &info, &abbrev)))
		return;
	/* past the variables (nc_read checked that they fit) */
	p = o->nc + sizeof(h) + ((uint64_t)h.nr_vars + h.nr_tls) * sizeof(struct nc_var) +
	    (uint64_t)h.nr_got * sizeof(struct nc_got);
	end = o->nc + o->nc_len;
	for (uint32_t i = 0; i < h.nr_types && (size_t)(end - p) >= sizeof(struct nc_type); i++) {
		struct nc_type t;
		struct dtype_res r = { 0 };

		memcpy(&t, p, sizeof(t));
		p += sizeof(t);
		if (t.var_len != 0xffff) {
			char *name;

			if ((size_t)(end - p) < t.var_len)
				break;
			name = xmalloc((size_t)t.var_len + 1);
			memcpy(name, p, t.var_len);
			name[t.var_len] = '\0';
			r.var = strtab__intern(s->strs, name, NULL);
			free(name);
			p += t.var_len;
		}
		if (t.type_off && !die_at(dw, info, t.type_off, &r.type))
			continue;
		r.reason = t.reason;
		r.source = t.source;
		r.indexed = t.indexed;
		r.ptr = t.ptr;
		r.inner = t.inner;
		r.scale = t.scale;
		r.off = t.off;
		acache__put(&o->dtypes, t.vaddr, t.rc, &r);
	}
	o->nc_types = o->dtypes.nr;
}

/* The variables' part: false when one of their DIEs is not in
 * .debug_info (then none are kept). */
static bool save_vars(struct obj *o, Dwarf *dw, struct nc_head *h, struct bbuf *b)
{
	h->nr_vars = (uint32_t)o->nr_vars;
	h->nr_tls = (uint32_t)o->nr_tls_vars;
	h->has_thread = o->has_thread_type;
	h->has_tcb = o->has_tcb_type;
	h->thread_off = o->has_thread_type ? die_off(dw, &o->thread_type) : 0;
	h->tcb_off = o->has_tcb_type ? die_off(dw, &o->tcb_type) : 0;
	if ((h->has_thread && !h->thread_off) || (h->has_tcb && !h->tcb_off))
		return false;
	for (size_t k = 0; k < o->nr_vars + o->nr_tls_vars; k++) {
		const struct var *v = k < o->nr_vars ? &o->vars[k] : &o->tls_vars[k - o->nr_vars];
		struct nc_var w = { v->addr, v->size, die_off(dw, &v->die) };

		if (!w.off)
			return false;
		bbuf__put(b, &w, sizeof(w));
	}
	for (size_t k = 0; k < o->nr_got_ext; k++) {
		struct nc_got g = { o->got_ext[k].slot, 0 };

		if (!o->got_ext[k].has_decl)
			continue;
		if (!(g.off = die_off(dw, &o->got_ext[k].decl)))
			return false;
		bbuf__put(b, &g, sizeof(g));
		h->nr_got++;
	}
	return true;
}

/* The instructions' answers, each address once; one whose type is not in
 * .debug_info is learned again next time. */
static void save_types(struct obj *o, Dwarf *dw, struct nc_head *h, struct bbuf *b)
{
	struct u64map seen = { 0 };
	uint64_t first;

	for (size_t k = 0; k < o->dtypes.nr; k++) {
		const struct dtype_res *r = (const void *)(o->dtypes.vals + k * o->dtypes.val_size);
		size_t len = r->var ? strlen(r->var) : 0;
		struct nc_type t = { .vaddr = o->dtypes.keys[k].key, .off = r->off, .rc = o->dtypes.keys[k].rc,
			.reason = r->reason, .source = r->source, .indexed = r->indexed, .ptr = r->ptr,
			.inner = r->inner, .scale = r->scale, .var_len = r->var ? (uint16_t)len : 0xffff,
			.type_off = r->type.addr ? die_off(dw, &r->type) : 0 };

		if (u64map__get(&seen, t.vaddr, &first) || (r->type.addr && !t.type_off) || len >= 0xffff)
			continue;
		u64map__put(&seen, t.vaddr, k);
		bbuf__put(b, &t, sizeof(t));
		if (r->var)
			bbuf__put(b, r->var, len);
		h->nr_types++;
	}
	u64map__exit(&seen);
}

/* Writes what o learned, when it learned more than its cache held. */
void namecache__save(struct obj *o)
{
	struct nc_head h = { .magic = NC_MAGIC, .version = NC_VERSION };
	struct bbuf vars = { 0 }, types = { 0 };
	uint64_t info, abbrev;
	char *path, *tmp;
	Dwarf *dw;
	int fd;
	bool ok;

	if ((!(o->vars_built && !o->nc_vars) && o->dtypes.nr <= o->nc_types) || !self_id() ||
	    !(dw = nc_dwarf(o, &info, &abbrev)) || !(path = nc_path(o)))
		return;
	memcpy(h.self, self, self_len);
	h.self_len = self_len;
	memcpy(h.module, o->build_id, o->build_id_size);
	h.module_len = o->build_id_size;
	h.info_size = info;
	h.abbrev_size = abbrev;
	h.has_vars = o->vars_built && save_vars(o, dw, &h, &vars);
	if (!h.has_vars)
		h.nr_vars = h.nr_tls = h.nr_got = h.has_thread = h.has_tcb = 0, vars.len = 0;
	save_types(o, dw, &h, &types);
	h.sum = nc_sum(types.p, types.len, nc_sum(vars.p, vars.len, NC_SUM_START));
	/* whole or not at all: a reader never sees half a file */
	tmp = xasprintf("%s.tmp%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok = fd >= 0 && write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     (!vars.len || write(fd, vars.p, vars.len) == (ssize_t)vars.len) &&
	     (!types.len || write(fd, types.p, types.len) == (ssize_t)types.len);
	if (fd >= 0 && close(fd))
		ok = false;
	if (fd >= 0 && (!ok || rename(tmp, path)))
		unlink(tmp);
	bbuf__free(&vars);
	bbuf__free(&types);
	free(tmp);
	free(path);
}
