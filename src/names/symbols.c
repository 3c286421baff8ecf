// SPDX-License-Identifier: GPL-2.0
/*
 * The objects names come from (symbols.h), with elfutils: a mapping's
 * file opened once (its build-id checked, its debug info found locally or
 * through debuginfod), the caches of answers per object and address, the
 * warnings. What the objects' code is called is code.c's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "names/symbols_int.h"
#include "perfdata/buildid.h"

void sym_warn(struct symbols *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	xgrow((void **)&s->warnings, &s->alloc_warnings, s->nr_warnings + 1, sizeof(*s->warnings));
	s->warnings[s->nr_warnings++] = msg;
}

size_t symbols__nr_warnings(const struct symbols *s)
{
	return s->nr_warnings;
}

const char *symbols__warning(const struct symbols *s, size_t i)
{
	return i < s->nr_warnings ? s->warnings[i] : NULL;
}

void symbols__stats(const struct symbols *s, struct symbols_stats *st)
{
	*st = s->stats;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The standard lookup asked debuginfod, found nothing and took about its
 * whole timeout: the servers do not answer. Asking again for every other
 * object would freeze the report (and the browser) for as long again each
 * time; libdebuginfod reads DEBUGINFOD_URLS at every lookup, so taking it
 * out of the environment stops that for the rest of the run.
 */
static void debuginfod_give_up(struct symbols *s, const char *urls, const char *modname, double took)
{
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	double timeout = t && atof(t) > 0 ? atof(t) : 90;

	if (took < 0.8 * timeout)
		return;
	unsetenv("DEBUGINFOD_URLS");
	if (s)
		sym_warn(s, "debuginfod (%s) did not answer within %.0f s for %s: not asked again in this run "
		     "(--no-debuginfod never asks)", urls, timeout, modname);
}

/* Is the ELF file at fd the object of that build-id? */
static bool has_build_id(int fd, const unsigned char *bits, int n)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	bool same = e && dwelf_elf_gnu_build_id(e, &id) == n && !memcmp(id, bits, (size_t)n);

	elf_end(e);
	return same;
}

/* The cache's file for the module, when it holds the same build-id (a
 * file damaged or replaced is passed over). */
static int open_cached(Dwfl_Module *mod, const char *home, const char *file, char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = home ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;
	char *path = n > 0 ? buildid__cache_path(home, bits, (size_t)n, file) : NULL;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0 && !has_build_id(fd, bits, n)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		*debuginfo_file_name = path;
	else
		free(path);
	return fd;
}

/*
 * The debug info record inflated into the build-id cache (the same bytes
 * as the distribution's, its sections not compressed), else the standard
 * ways (the file itself, .gnu_debuglink, DIR/.build-id/xx/rest.debug,
 * debuginfod), then perf's build-id cache, where perf keeps "debug" next to
 * "elf". *userdata: the symbols (set when the module is reported).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const char *home = getenv("HOME"), *urls = getenv("DEBUGINFOD_URLS");
	char *urls_copy;
	double t0;
	int fd = open_cached(mod, home, BUILDCACHE_INFLATED_DEBUG, debuginfo_file_name);

	if (fd >= 0)
		return fd;
	urls_copy = urls && *urls ? xstrdup(urls) : NULL;
	t0 = now_s();
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd < 0 && urls_copy)
		debuginfod_give_up(*userdata, urls_copy, modname, now_s() - t0);
	free(urls_copy);
	if (fd >= 0)
		return fd;
	return open_cached(mod, home, "debug", debuginfo_file_name);
}

struct symbols *symbols__new(const struct symbols_opts *o)
{
	struct symbols *s = xcalloc(1, sizeof(*s));
	struct symbols_opts none = { 0 };

	if (!o)
		o = &none;
	s->symfs = o->symfs && o->symfs[0] ? xstrdup(o->symfs) : NULL;
	s->vmlinux = o->vmlinux ? xstrdup(o->vmlinux) : NULL;
	s->kallsyms = xstrdup(o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	s->perf_map_dir = xstrdup(o->perf_map_dir ? o->perf_map_dir : "/tmp");
	if (o->debuginfo_path)
		s->debuginfo_path = xstrdup(o->debuginfo_path);
	else if (s->symfs)
		s->debuginfo_path = xasprintf("+:.debug:%s/usr/lib/debug", s->symfs);
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = s->debuginfo_path ? &s->debuginfo_path : NULL;
	s->strs = strtab__new();
	htab__init(&s->obj_idx, 64, 50, false);
	acache__init(&s->kcode, sizeof(struct code_loc));
	s->jit = jit_index__new();
	/* libdw's debuginfod client reads these at each lookup; unless the
	 * user chose, one try of 5 s (its defaults, 90 s and 2 retries, would
	 * freeze the browser for minutes on a server that does not answer) */
	if (o->no_debuginfod) {
		unsetenv("DEBUGINFOD_URLS");
	} else {
		setenv("DEBUGINFOD_TIMEOUT", "5", 0);
		setenv("DEBUGINFOD_RETRY_LIMIT", "0", 0);
	}
	return s;
}

static void obj__init_caches(struct obj *o)
{
	acache__init(&o->code, sizeof(struct code_loc));
	acache__init(&o->data, sizeof(struct data_loc));
	acache__init(&o->lines, sizeof(struct dwline *));
	acache__init(&o->insns, sizeof(struct insn_access));
	acache__init(&o->dtypes, sizeof(struct dtype_res));
}

static void obj__delete(struct obj *o)
{
	if (!o)
		return;
	acache__exit(&o->code);
	acache__exit(&o->data);
	for (size_t i = 0; i < o->lines.nr; i++)
		dwline__delete(((struct dwline **)o->lines.vals)[i]);
	acache__exit(&o->lines);
	acache__exit(&o->insns);
	acache__exit(&o->dtypes);
	free(o->vars);
	free(o->tls_vars);
	u64map__exit(&o->tls_got);
	u64map__exit(&o->tls_gd);
	u64map__exit(&o->got);
	u64map__exit(&o->got_ext_idx);
	free(o->got_ext);
	free(o->subps);
	u64map__exit(&o->subps_cus);
	free(o->esyms);
	strtab__delete(o->demangled);
	free(o->segs);
	free(o->path);
	free(o->nc);
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o);
}

void symbols__delete(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_objs; i++) {
		namecache__save(s->objs[i]);
		obj__delete(s->objs[i]);
	}
	for (int i = 0; i < 2; i++)
		if (s->cs_open[i] == 2)
			cs_close(&s->cs[i]);
	obj__delete(s->vmlinux_obj);
	free(s->objs);
	htab__exit(&s->obj_idx);
	free(s->ksyms);
	acache__exit(&s->kcode);
	jit_index__delete(s->jit);
	u32set__exit(&s->perf_map_tried);
	free(s->bids);
	for (size_t i = 0; i < s->nr_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	strtab__delete(s->strs);
	free(s->symfs);
	free(s->vmlinux);
	free(s->kallsyms);
	free(s->perf_map_dir);
	free(s->debuginfo_path);
	free(s);
}

void symbols__set_build_id(struct symbols *s, const char *name, const uint8_t *id, size_t size)
{
	struct bid_ent *b;

	if (!name || !size || size > sizeof(b->id))
		return;
	xgrow((void **)&s->bids, &s->alloc_bids, s->nr_bids + 1, sizeof(*s->bids));
	b = &s->bids[s->nr_bids++];
	b->name = strtab__intern(s->strs, name, NULL);
	memcpy(b->id, id, size);
	b->size = (uint8_t)size;
}

static const struct bid_ent *bid_lookup(const struct symbols *s, const char *interned)
{
	for (size_t i = s->nr_bids; i-- > 0;)
		if (s->bids[i].name == interned)
			return &s->bids[i];
	return NULL;
}

/* ---- opening an object ---- */

static int read_segs(struct obj *o)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	size_t phnum;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	o->segs = xcalloc(phnum ? phnum : 1, sizeof(*o->segs));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		o->segs[o->nr_segs++] = (struct seg){ ph->p_offset, ph->p_vaddr, ph->p_filesz,
						      ph->p_memsz, ph->p_flags };
	}
	return o->nr_segs ? 0 : -ENOEXEC;
}

enum open_result { OPEN_OK, OPEN_NOFILE, OPEN_NOT_ELF, OPEN_OTHER_ID };

/*
 * Report path as the object's only module, at its link addresses (bias 0
 * for executables and shared objects alike): callers translate runtime
 * addresses through the program headers, so one module serves every
 * process that maps the file wherever it lands.
 */
static enum open_result obj__try(struct symbols *s, struct obj *o, const char *path, char *found_id)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct stat st;
	int fd, n;

	/* a recording may name anything: never /proc/kcore and the like, and
	 * never wait on a FIFO */
	if (path_is_pseudo_fs(path))
		return OPEN_NOFILE;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return OPEN_NOFILE;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return OPEN_NOFILE;
	}
	dwfl = dwfl_begin(&s->cb);
	if (!dwfl) {
		close(fd);
		return OPEN_NOFILE;
	}
	dwfl_report_begin(dwfl);
	/* dwfl takes ownership of fd, also when it fails */
	mod = dwfl_report_elf(dwfl, o->name, path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod) {
		void **userdata;

		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = s;
	}
	if (!mod) {
		dwfl_end(dwfl);
		return OPEN_NOT_ELF;
	}
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (o->build_id_size && (n != o->build_id_size || memcmp(bits, o->build_id, (size_t)n))) {
		if (n > 0 && n <= 20)
			hex_encode(found_id, bits, (size_t)n);
		else
			strcpy(found_id, "none");
		dwfl_end(dwfl);
		return OPEN_OTHER_ID;
	}
	o->dwfl = dwfl;
	o->mod = mod;
	o->path = xstrdup(path);
	if (read_segs(o)) {
		dwfl_end(dwfl);
		o->dwfl = NULL;
		o->mod = NULL;
		return OPEN_NOT_ELF;
	}
	return OPEN_OK;
}

/* Without a build-id, the recorded inode still tells a rebuilt file apart
 * (compilers write a new file); only comparable on the same device. */
static bool inode_changed(const struct map_desc *map, const char *path, uint64_t *now)
{
	struct stat st;

	if (!map || !map->v2 || map->build_id_form || !map->ino || stat(path, &st))
		return false;
	if (major(st.st_dev) != map->maj || minor(st.st_dev) != map->min)
		return false;
	*now = st.st_ino;
	return st.st_ino != map->ino;
}

static void obj__open(struct symbols *s, struct obj *o, const struct map_desc *map)
{
	char idhex[41], found[41] = "", *cand[8];
	const char *home = getenv("HOME");
	size_t nc = 0, ipath, namelen = name_len_undeleted(o->name, strlen(o->name));
	enum open_result r;
	bool other_id = false, not_elf = false;
	uint64_t ino = 0;
	char *first;

	first = xasprintf("%s%.*s", s->symfs ? s->symfs : "", (int)namelen, o->name);
	/* by build-id first: the build-id cache holds the very object recorded
	 * (record keeps a copy), where the path may hold a rebuild */
	if (o->build_id_size) {
		hex_encode(idhex, o->build_id, o->build_id_size);
		if (home) {
			cand[nc++] = xasprintf("%s/.debug/.build-id/%.2s/%s/elf", home, idhex, idhex + 2);
			cand[nc++] = xasprintf("%s/.debug/%.*s/%s/elf", home, (int)namelen, o->name, idhex);
		}
	}
	ipath = nc;
	cand[nc++] = first;
	if (o->build_id_size) {
		if (home)
			cand[nc++] = xasprintf("%s/.debug/.build-id/%.2s/%s", home, idhex, idhex + 2);
		/* a separate debug file has the symbols, DWARF and program headers */
		cand[nc++] = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				       s->symfs ? s->symfs : "", idhex, idhex + 2);
	}
	s->stats.objects_opened++;
	o->state = OBJ_MISSING;
	if (!o->build_id_size && !s->symfs && inode_changed(map, first, &ino)) {
		sym_warn(s, "%s changed since the recording (inode %" PRIu64 ", recorded %" PRIu64
		     "): not naming it", first, ino, map->ino);
		o->state = OBJ_STALE;
		goto out;
	}
	for (size_t i = 0; i < nc; i++) {
		char f[41] = "";

		r = obj__try(s, o, cand[i], f);
		if (r == OPEN_OK) {
			o->state = OBJ_OK;
			break;
		}
		if (r == OPEN_OTHER_ID && !other_id) {
			other_id = true;
			memcpy(found, f, sizeof(found));
		}
		if (r == OPEN_NOT_ELF && i == ipath)
			not_elf = true;
	}
	if (o->state == OBJ_OK)
		goto out;
	if (other_id) {
		o->state = OBJ_STALE;
		sym_warn(s, "%s on disk has build-id %s, recording has %s: not naming it", first, found,
		     idhex);
	} else if (not_elf) {
		o->state = OBJ_NOT_ELF;
	} else if (!map || (!(map->flags & MAP_SHARED) && (!map->v2 || map->prot & PROT_EXEC))) {
		/* a program or library (a missing data file, /dev/shm, is no news) */
		sym_warn(s, "%.*s not found (tried %s%s): its rows show addresses%s", (int)namelen, o->name, first,
			 nc > 1 ? " and the build-id caches" : "",
			 s->symfs ? "" : "; --symfs DIR names them from a copy of that machine's files");
	}
out:
	for (size_t i = 0; i < nc; i++)
		free(cand[i]);
}

static uint32_t obj_hash(const char *interned, const uint8_t *id, size_t n)
{
	return (uint32_t)(hash64((uint64_t)(uintptr_t)interned) ^ hash_bytes(id, n, 7));
}

/* The object behind a file mapping, opened on first use. */
struct obj *obj__get(struct symbols *s, const struct map_desc *map)
{
	const char *name = strtab__intern(s->strs, map->name, NULL);
	const uint8_t *id = map->build_id;
	size_t n = map->build_id_size, pos;
	struct obj *o;
	uint32_t hash, i;

	if (!n) {
		const struct bid_ent *b = bid_lookup(s, name);

		if (b) {
			id = b->id;
			n = b->size;
		}
	}
	if (n > 20)
		n = 20;
	hash = obj_hash(name, id, n);
	pos = htab__start(&s->obj_idx, hash);
	while ((i = htab__next(&s->obj_idx, hash, &pos)) != HTAB_NONE) {
		o = s->objs[i];
		if (o->name == name && o->build_id_size == n && !memcmp(o->build_id, id, n))
			return o;
	}
	o = xcalloc(1, sizeof(*o));
	o->name = name;
	memcpy(o->build_id, id, n);
	o->build_id_size = (uint8_t)n;
	obj__init_caches(o);
	obj__open(s, o, map);
	xgrow((void **)&s->objs, &s->alloc_objs, s->nr_objs + 1, sizeof(*s->objs));
	/* obj__open may have added objects: no insert at pos */
	htab__add(&s->obj_idx, hash, (uint32_t)s->nr_objs);
	s->objs[s->nr_objs++] = o;
	return o;
}

int obj_err(const struct obj *o)
{
	switch (o->state) {
	case OBJ_OK:
		return 0;
	case OBJ_STALE:
		return -ESTALE;
	case OBJ_NOT_ELF:
		return -ENOEXEC;
	default:
		return -ENOENT;
	}
}

/*
 * Runtime address -> link-time address: file offset = addr - start + pgoff,
 * then the PT_LOAD holding that offset. Right for PIE, shared objects and
 * fixed executables alike. beyond_file admits the zero-filled tail of a
 * segment (.bss) past its file bytes.
 */
int obj__vaddr(const struct obj *o, const struct map_desc *map, uint64_t addr,
		      bool beyond_file, uint64_t *vaddr)
{
	uint64_t off = addr - map->start + map->pgoff;
	const struct seg *best = NULL;

	for (size_t pass = 0; pass < 2 && !best; pass++) {
		for (size_t i = 0; i < o->nr_segs; i++) {
			const struct seg *sg = &o->segs[i];
			uint64_t len = pass ? sg->memsz : sg->filesz;

			if (pass && !beyond_file)
				break;
			if (off < sg->offset || off - sg->offset >= len)
				continue;
			/* a file page can back two segments: the mapping's PROT_EXEC decides */
			if (best && map->prot && !!(map->prot & 4) != !!(best->flags & PF_X) &&
			    !!(map->prot & 4) == !!(sg->flags & PF_X))
				best = sg;
			else if (!best)
				best = sg;
		}
	}
	if (!best)
		return -ERANGE;
	*vaddr = best->vaddr + (off - best->offset);
	return 0;
}

/* The kernel map's pgoff is the address the recording saw for the symbol
 * after "]" in its name ("[kernel.kallsyms]_text"): compare with kallsyms. */
const char *kmap_ref_symbol(const struct map_desc *map)
{
	const char *p;

	if (!map || !map->name || strncmp(map->name, "[kernel.kallsyms]", 17) || !map->pgoff)
		return NULL;
	p = map->name + 17;
	return *p ? p : "_text";
}

struct obj *vmlinux_get(struct symbols *s, const struct map_desc *map)
{
	struct obj *o = s->vmlinux_obj;
	const struct bid_ent *b;

	if (!o) {
		char found[41] = "";

		o = s->vmlinux_obj = xcalloc(1, sizeof(*o));
		o->name = strtab__intern(s->strs, "[kernel.kallsyms]", NULL);
		o->kernel = true;
		b = bid_lookup(s, o->name);
		if (b) {
			memcpy(o->build_id, b->id, b->size);
			o->build_id_size = b->size;
		}
		obj__init_caches(o);
		s->stats.objects_opened++;
		switch (obj__try(s, o, s->vmlinux, found)) {
		case OPEN_OK:
			o->state = OBJ_OK;
			break;
		case OPEN_OTHER_ID: {
			char idhex[41];

			hex_encode(idhex, o->build_id, o->build_id_size);
			sym_warn(s, "%s has build-id %s, recording has %s: not naming kernel addresses",
			     s->vmlinux, found, idhex);
			o->state = OBJ_STALE;
			break;
		}
		default:
			o->state = OBJ_MISSING;
			sym_warn(s, "cannot read %s: kernel addresses not named", s->vmlinux);
		}
	}
	if (o->state == OBJ_OK && !o->kaslr_known && kmap_ref_symbol(map)) {
		const char *ref = kmap_ref_symbol(map);
		int n = dwfl_module_getsymtab(o->mod);

		o->kaslr_known = true;
		for (int i = 0; i < n; i++) {
			GElf_Sym sym;
			GElf_Addr a;
			const char *nm = dwfl_module_getsym_info(o->mod, i, &sym, &a, NULL, NULL, NULL);

			if (nm && !strcmp(nm, ref)) {
				o->kaslr = map->pgoff - a;
				break;
			}
		}
	}
	return o;
}
