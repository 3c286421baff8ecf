// SPDX-License-Identifier: GPL-2.0
/* record --emulate: can the program run without libtsan (emulink.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record/emulink.h"
#include "util/util.h"

#define LIST_MAX (256u << 10)           /* the loader's list of objects kept (a few KiB in practice) */

static Elf *elf_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	elf_end(elf);
	close(*fd);
	*fd = -1;
	return NULL;
}

static void elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The N of a DT_NEEDED libtsan.so.N of elf's (1), else 0. */
static int dyn_libtsan(Elf *elf, unsigned *abi)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < d->d_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *name;
			char *end;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED || !(name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) ||
			    strncmp(name, "libtsan.so.", 11))
				continue;
			*abi = (unsigned)strtoul(name + 11, &end, 10);
			if (!*end && end > name + 11)
				return 1;
		}
	}
	return 0;
}

int emu_link__libtsan(const char *path, unsigned *abi, char *interp, size_t isize)
{
	int fd, found = 0;
	size_t nph = 0;
	Elf *elf = elf_open(path, &fd);

	interp[0] = '\0';
	if (!elf)
		return fd < 0 && errno != ENOEXEC ? -errno : 0;
	if (!elf_getphdrnum(elf, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP || !ph.p_filesz ||
			    ph.p_filesz >= isize)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
			if (d && d->d_buf && memchr(d->d_buf, '\0', ph.p_filesz))
				memcpy(interp, d->d_buf, ph.p_filesz);
		}
	}
	if (interp[0])
		found = dyn_libtsan(elf, abi);
	elf_close(elf, fd);
	return found;
}

/* ---- the loader's answer ---- */

struct trace {
	char *list;                     /* its standard output: the objects, one a line */
	size_t len;
	char first[256];                /* the first line of its standard error */
	bool said;                      /* it wrote anything there */
	bool ok;                        /* it exited 0 */
};

/* Reads what fd has now into buf (up to cap, the rest drained); false at
 * its end. */
static bool drain(int fd, char *buf, size_t *len, size_t cap, bool *any)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (!n)
		return false;
	*any = true;
	if (*len < cap) {
		size_t k = (size_t)n < cap - *len ? (size_t)n : cap - *len;

		memcpy(buf + *len, tmp, k);
		*len += k;
	}
	return true;
}

/* glibc's dynamic linker on exe in trace mode (LD_TRACE_LOADED_OBJECTS: it
 * lists the objects and runs nothing of the program; LD_BIND_NOW and
 * LD_WARN: every symbol bound, the unbound said, as ldd -r). */
static bool run_trace(const char *interp, const char *exe, const char *pre, struct trace *t)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status;
	char ebuf[sizeof(t->first)];
	size_t elen = 0;
	bool open_out = true, open_err = true, any_out = false;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		for (int i = 0; i < 2; i++) {
			if (out[i] >= 0)
				close(out[i]);
			if (err[i] >= 0)
				close(err[i]);
		}
		return false;
	}
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		setenv("LD_PRELOAD", pre, 1);
		setenv("LD_BIND_NOW", "1", 1);
		setenv("LD_WARN", "1", 1);
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		execl(interp, interp, exe, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	t->list = xmalloc(LIST_MAX + 1);
	while (pid > 0 && (open_out || open_err)) {
		struct pollfd p[2] = { { open_out ? out[0] : -1, POLLIN, 0 }, { open_err ? err[0] : -1, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (open_out && p[0].revents)
			open_out = drain(out[0], t->list, &t->len, LIST_MAX, &any_out);
		if (open_err && p[1].revents)
			open_err = drain(err[0], ebuf, &elen, sizeof(ebuf) - 1, &t->said);
	}
	close(out[0]);
	close(err[0]);
	if (pid < 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	t->list[t->len] = '\0';
	ebuf[elen] = '\0';
	ebuf[strcspn(ebuf, "\n")] = '\0';
	for (char *c = ebuf; *c; c++)
		if (*c == '\t')
			*c = ' ';
	memcpy(t->first, ebuf, elen + 1);
	t->ok = WIFEXITED(status) && !WEXITSTATUS(status);
	return true;
}

/* ---- unversioned imports against older versions ---- */

/* A name an object linked against libtsan imports without a version, and
 * its definitions in the first library that versions it: an unversioned
 * import binds to the oldest (version index 2: glibc's dynamic linker
 * takes it at once, hidden or not), dlsym and a versioned import to the
 * current one (not hidden). */
struct want {
	char *name;
	const char *lib;                /* that library (the loader's list) */
	uint64_t oldest, current;       /* their addresses */
	char old[32];                   /* the oldest's version */
	bool has_oldest, has_current;
	bool ours;                      /* the runtime defines it */
};

struct wants {
	struct want *w;
	size_t nr, cap;
	bool sorted;
};

static int want_cmp(const void *a, const void *b)
{
	return strcmp(((const struct want *)a)->name, ((const struct want *)b)->name);
}

static struct want *want_find(struct wants *ws, const char *name)
{
	struct want key = { .name = (char *)name };

	if (!ws->sorted) {
		if (ws->nr)
			qsort(ws->w, ws->nr, sizeof(*ws->w), want_cmp);
		ws->sorted = true;
	}
	return ws->nr ? bsearch(&key, ws->w, ws->nr, sizeof(*ws->w), want_cmp) : NULL;
}

/* elf's dynamic symbols and their versions (.gnu.version: index 0 or 1
 * unversioned; the high bit a hidden, older one); cb for each. */
typedef void (*sym_fn)(Elf *elf, const GElf_Sym *sym, const char *name, unsigned ver, bool hidden,
		       const char *vname, void *arg);

static const char *ver_name(Elf *elf, Elf_Data *verdef, size_t strndx, unsigned ver)
{
	size_t off = 0;
	GElf_Verdef vd;

	while (verdef && off < verdef->d_size && gelf_getverdef(verdef, (int)off, &vd)) {
		GElf_Verdaux va;

		if (vd.vd_ndx == ver && gelf_getverdaux(verdef, (int)(off + vd.vd_aux), &va))
			return elf_strptr(elf, strndx, va.vda_name);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return NULL;
}

static void each_sym(Elf *elf, sym_fn cb, void *arg)
{
	Elf_Scn *scn = NULL;
	Elf_Data *syms = NULL, *vers = NULL, *verdef = NULL;
	size_t strndx = 0, defstr = 0, n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			syms = elf_getdata(scn, NULL);
			strndx = sh.sh_link;
			n = syms ? syms->d_size / sh.sh_entsize : 0;
		} else if (sh.sh_type == SHT_GNU_versym) {
			vers = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_GNU_verdef) {
			verdef = elf_getdata(scn, NULL);
			defstr = sh.sh_link;
		}
	}
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Versym v = 0;
		const char *name;
		unsigned ver;

		if (!gelf_getsym(syms, (int)i, &sym) || !(name = elf_strptr(elf, strndx, sym.st_name)) || !*name)
			continue;
		if (vers && !gelf_getversym(vers, (int)i, &v))
			v = 0;
		ver = v & 0x7fff;
		cb(elf, &sym, name, ver, v & 0x8000, ver >= 2 ? ver_name(elf, verdef, defstr, ver) : NULL, arg);
	}
}

/* an object linked against libtsan: its unversioned imports */
static void add_import(Elf *elf, const GElf_Sym *sym, const char *name, unsigned ver, bool hidden,
		       const char *vname, void *arg)
{
	struct wants *ws = arg;

	(void)elf;
	(void)hidden;
	(void)vname;
	if (sym->st_shndx != SHN_UNDEF || ver > 1 || GELF_ST_BIND(sym->st_info) == STB_LOCAL)
		return;
	if (ws->nr == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 256;
		ws->w = xrealloc(ws->w, ws->cap, sizeof(*ws->w));
	}
	ws->w[ws->nr++] = (struct want){ .name = xstrdup(name) };
	ws->sorted = false;
}

struct defs {
	struct wants *ws;
	const char *lib;
};

/* another object: its versioned definitions of the imports */
static void add_def(Elf *elf, const GElf_Sym *sym, const char *name, unsigned ver, bool hidden, const char *vname,
		    void *arg)
{
	struct defs *d = arg;
	struct want *w;

	(void)elf;
	if (sym->st_shndx == SHN_UNDEF || ver < 2 || !(w = want_find(d->ws, name)))
		return;
	if (!w->lib)
		w->lib = d->lib;
	if (w->lib != d->lib)
		return;
	if (ver == 2) {
		w->oldest = sym->st_value;
		w->has_oldest = true;
		snprintf(w->old, sizeof(w->old), "%s", vname ? vname : "");
	}
	if (!hidden) {
		w->current = sym->st_value;
		w->has_current = true;
	}
}

/* the runtime's own definitions */
static void add_ours(Elf *elf, const GElf_Sym *sym, const char *name, unsigned ver, bool hidden, const char *vname,
		     void *arg)
{
	struct want *w;

	(void)elf;
	(void)ver;
	(void)hidden;
	(void)vname;
	if (sym->st_shndx != SHN_UNDEF && GELF_ST_BIND(sym->st_info) != STB_LOCAL && (w = want_find(arg, name)))
		w->ours = true;
}

/* The objects of the loader's list ("name => path (address)" or "path
 * (address)"), each at most once, paths only. */
static size_t list_paths(char *list, const char **paths, size_t max)
{
	size_t n = 0;

	for (char *line = strtok(list, "\n"); line && n < max; line = strtok(NULL, "\n")) {
		char *p = strstr(line, " => "), *end;

		p = p ? p + 4 : line + strspn(line, " \t");
		if (*p != '/' || !(end = strstr(p, " (")))
			continue;
		*end = '\0';
		paths[n++] = p;
	}
	return n;
}

/* The first import an unversioned reference would bind to an older
 * version of, and the runtime does not define; memcpy's older version is
 * memmove, which does all it does. */
static const struct want *first_old(struct wants *ws)
{
	for (size_t i = 0; i < ws->nr; i++) {
		const struct want *w = &ws->w[i];

		if (w->has_oldest && w->has_current && w->oldest != w->current && !w->ours &&
		    strcmp(w->name, "memcpy"))
			return w;
	}
	return NULL;
}

bool emu_link__without_libtsan(const char *interp, const char *exe, const char *pre, const char *runtime, char *why,
			       size_t wsize)
{
	const char *base = strrchr(interp, '/'), *paths[512];
	struct wants ws = { 0 };
	const struct want *w;
	struct trace t;
	size_t n;
	bool ok = false;

	base = base ? base + 1 : interp;
	if (strncmp(base, "ld-linux", 8) && strncmp(base, "ld64.so", 7)) {
		snprintf(why, wsize, "%s is not glibc's dynamic linker", interp);
		return false;
	}
	if (!run_trace(interp, exe, pre, &t)) {
		snprintf(why, wsize, "%s", "the dynamic linker could not be asked");
		return false;
	}
	if (t.said || !t.ok) {
		snprintf(why, wsize, "%s", t.said ? t.first : "the dynamic linker could not list the program");
		free(t.list);
		return false;
	}
	paths[0] = exe;
	n = 1 + list_paths(t.list, paths + 1, sizeof(paths) / sizeof(paths[0]) - 1);
	/* the imports of the objects linked against libtsan, then their
	 * definitions elsewhere */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			unsigned abi;
			int fd;
			Elf *elf = elf_open(paths[i], &fd);
			struct defs d = { &ws, paths[i] };

			if (!elf)
				continue;
			if (!pass && dyn_libtsan(elf, &abi))
				each_sym(elf, add_import, &ws);
			else if (pass && !dyn_libtsan(elf, &abi))
				each_sym(elf, add_def, &d);
			elf_close(elf, fd);
		}
		want_find(&ws, "");             /* (sorted for the second pass) */
	}
	{
		int fd;
		Elf *elf = elf_open(runtime, &fd);

		if (elf) {
			each_sym(elf, add_ours, &ws);
			elf_close(elf, fd);
		}
	}
	w = first_old(&ws);
	if (w)
		snprintf(why, wsize, "%s would be %s's %s%s%s (an older version) without it", w->name, w->lib, w->name,
			 w->old[0] ? "@" : "", w->old);
	ok = !w;
	for (size_t i = 0; i < ws.nr; i++)
		free(ws.w[i].name);
	free(ws.w);
	free(t.list);
	return ok;
}
