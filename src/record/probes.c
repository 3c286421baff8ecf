// SPDX-License-Identifier: GPL-2.0
/* record --alloc through uprobes (probes.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "record/probes.h"
#include "util/util.h"

/* Registers of the first arguments and of the return value, as perf numbers
 * them (arch/x86/include/uapi/asm/perf_regs.h, arch/arm64/.../perf_regs.h). */
static int arg_regs(uint64_t *args, uint64_t *ret)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	if (!strcmp(u.machine, "x86_64")) {
		*args = 1ULL << 5 | 1ULL << 4 | 1ULL << 3;     /* DI, SI, DX */
		*ret = 1ULL << 0;                               /* AX */
		return 0;
	}
	if (!strcmp(u.machine, "aarch64")) {
		*args = 7;                                      /* X0, X1, X2 */
		*ret = 1;                                       /* X0 */
		return 0;
	}
	return -EOPNOTSUPP;
}

static int uprobe_type(void)
{
	char buf[32];
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -ENOENT;

	if (f && fgets(buf, sizeof(buf), f))
		t = atoi(buf);
	if (f)
		fclose(f);
	return t;
}

int64_t probes__func_offset(const char *path, const char *sym)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int64_t off = -ENOENT;
	uint64_t value = 0;
	bool found = false;
	Elf_Scn *scn = NULL;
	size_t nph;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		off = -ENOEXEC;
		goto out;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym)) {
				value = s.st_value;
				found = true;
				break;
			}
		}
	}
	if (!found || elf_getphdrnum(e, &nph))
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && value >= ph.p_vaddr &&
		    value < ph.p_vaddr + ph.p_filesz) {
			off = (int64_t)(value - ph.p_vaddr + ph.p_offset);
			break;
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

static const char *keep_path(struct probes *p, const char *path)
{
	for (int i = 0; i < p->nr_paths; i++)
		if (!strcmp(p->paths[i], path))
			return p->paths[i];
	if (p->nr_paths == (int)ARRAY_SIZE(p->paths))
		return NULL;
	snprintf(p->paths[p->nr_paths], sizeof(p->paths[0]), "%s", path);
	return p->paths[p->nr_paths++];
}

/* One probe: entry (sampling the argument registers), or return. */
static int add(struct probes *p, const char *path, uint64_t off, const struct pd_alloc_probe *what, bool ret)
{
	struct pmu_event *e;
	const char *kept;

	/* the PMU and the registers once, for every probe */
	if (!p->type) {
		int err = arg_regs(&p->areg, &p->rreg);

		p->type = err ? err : uprobe_type();
	}
	if (p->type < 0)
		return p->type;
	if (p->nr == PROBES_MAX)
		return -E2BIG;
	kept = keep_path(p, path);
	if (!kept)
		return -E2BIG;
	e = &p->ev[p->nr++];
	memset(e, 0, sizeof(*e));
	pd_alloc_probe__name(what, e->name, sizeof(e->name));
	e->type = (uint32_t)p->type;
	e->config = ret;                        /* format/retprobe: config:0 */
	e->config1 = (uintptr_t)kept;           /* uprobe_path */
	e->config2 = off;                       /* probe_offset */
	e->has_period = true;
	e->period = 1;
	e->regs_user = ret ? p->rreg : p->areg;
	return 0;
}

/* The function what names at file offset off of path (probes__func_offset):
 * its entry (or free) probe and, for an allocator, its return probe. */
static int add_fn(struct probes *p, const char *path, int64_t off, const struct pd_alloc_probe *what)
{
	struct pd_alloc_probe ret = { .role = PD_PROBE_RET, .size_a = -1, .size_b = -1, .old_a = -1, .free_a = -1 };
	int err;

	if (off < 0)
		return (int)off;
	err = add(p, path, (uint64_t)off, what, false);
	if (!err && what->role != PD_PROBE_FREE) {
		memcpy(ret.fn, what->fn, sizeof(ret.fn));
		err = add(p, path, (uint64_t)off, &ret, true);
	}
	return err;
}

/* An entry probe of fn: its size in argument size_a (times size_b), its
 * old pointer (realloc) in old_a; -1 none. */
static struct pd_alloc_probe entry_of(const char *fn, int size_a, int size_b, int old_a)
{
	struct pd_alloc_probe e = { .role = PD_PROBE_ENTRY, .size_a = (int8_t)size_a, .size_b = (int8_t)size_b,
				    .old_a = (int8_t)old_a, .free_a = -1 };

	snprintf(e.fn, sizeof(e.fn), "%.40s", fn);
	return e;
}

/* The free probe of fn: the pointer in its first argument. */
static struct pd_alloc_probe free_of(const char *fn)
{
	struct pd_alloc_probe e = { .role = PD_PROBE_FREE, .size_a = -1, .size_b = -1, .old_a = -1, .free_a = 0 };

	snprintf(e.fn, sizeof(e.fn), "%.40s", fn);
	return e;
}

/* The C library mapped in pid, from its maps. */
static int find_libc(pid_t pid, char *out, size_t size)
{
	char path[64], line[4096 + 128];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), pid ? "/proc/%d/maps" : "/proc/self/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/'), *base;

		if (!name)
			continue;
		name[strcspn(name, "\n")] = '\0';
		base = strrchr(name, '/') + 1;
		if (!strcmp(base, "libc.so.6") || (!strncmp(base, "libc-", 5) && strstr(base, ".so"))) {
			snprintf(out, size, "%s", name);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* The C library's allocators: the arguments of the size (a product of
 * two: -1 none for the second) and of the old pointer (-1 none). */
static const struct {
	const char *fn;
	int size_a, size_b, old_a;
} libc_fns[] = {
	{ "malloc", 0, -1, -1 }, { "calloc", 0, 1, -1 }, { "realloc", 1, -1, 0 }, { "reallocarray", 1, 2, 0 },
	{ "aligned_alloc", 1, -1, -1 }, { "memalign", 1, -1, -1 }, { "valloc", 0, -1, -1 }, { "pvalloc", 0, -1, -1 },
};

int probes__add_allocators(struct probes *p, const char *path, bool all, struct record_msg *why)
{
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(libc_fns) && !err; i++) {
		int64_t off = probes__func_offset(path, libc_fns[i].fn);
		bool dup = false;

		/* one it lacks (a sanitizer's runtime has no pvalloc) */
		if (off < 0 && !all && strcmp(libc_fns[i].fn, "malloc"))
			continue;
		/* aliases (glibc's memalign is aligned_alloc): one probe, the
		 * first name */
		for (int k = 0; k < p->nr && off >= 0; k++)
			dup |= p->ev[k].config2 == (uint64_t)off && !strcmp((const char *)(uintptr_t)p->ev[k].config1, path);
		if (!dup) {
			struct pd_alloc_probe e = entry_of(libc_fns[i].fn, libc_fns[i].size_a, libc_fns[i].size_b,
							   libc_fns[i].old_a);

			err = add_fn(p, path, off, &e);
		}
	}
	if (!err) {
		struct pd_alloc_probe f = free_of("free");

		err = add_fn(p, path, probes__func_offset(path, "free"), &f);
	}
	if (err)
		*why = (struct record_msg){ .kind = RM_ALLOC_PROBES, .err = err, .s = { path } };
	return err;
}

int probes__add_libc(struct probes *p, pid_t pid, struct record_msg *why)
{
	static char libc[4096];         /* (a message may name it) */
	int err = find_libc(pid, libc, sizeof(libc));

	if (err) {
		*why = (struct record_msg){ .kind = RM_ALLOC_NO_LIBC, .n = { pid != 0 } };
		return err;
	}
	return probes__add_allocators(p, libc, true, why);
}

int probes__add_user(struct probes *p, char *const *objs, int nr_objs, const char *spec, bool free_fn,
		     struct record_msg *why)
{
	char fn[128];
	struct pd_alloc_probe what;
	const char *colon = strchr(spec, ':');
	unsigned int n = 1;
	int err = -ENOENT;

	snprintf(fn, sizeof(fn), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	if (colon && (free_fn || sscanf(colon + 1, "size=%u", &n) != 1 || n < 1 || n > 3)) {
		*why = (struct record_msg){ .kind = RM_ALLOC_FN_SPEC, .s = { spec } };
		return -EINVAL;
	}
	what = free_fn ? free_of(fn) : entry_of(fn, (int)n - 1, -1, -1);
	for (int i = 0; i < nr_objs && err == -ENOENT; i++)
		err = add_fn(p, objs[i], probes__func_offset(objs[i], fn), &what);
	if (err)
		*why = (struct record_msg){ .kind = RM_ALLOC_FN_PROBE, .err = err, .s = { spec, nr_objs ? objs[0] : NULL },
					    .n = { free_fn, nr_objs > 1 } };
	return err;
}

/* DT_NEEDED names and the RUNPATH (or RPATH) of the ELF file at path. */
static int needed(const char *path, char names[][256], int max, char *runpath, size_t rsize)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	runpath[0] = '\0';
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED && n < max)
				snprintf(names[n++], 256, "%s", s);
			else if (dyn.d_tag != DT_NEEDED && (!runpath[0] || dyn.d_tag == DT_RUNPATH))
				snprintf(runpath, rsize, "%s", s);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/* name in the colon-separated dirs: a malloc'ed path, or NULL. */
static char *find_in(const char *dirs, const char *name)
{
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");
		char *path = xasprintf("%.*s/%s", (int)n, dirs, name);

		if (n && !access(path, R_OK))
			return path;
		free(path);
		dirs += n + (dirs[n] == ':');
	}
	return NULL;
}

int probes__objects_of_exe(const char *exe, char **objs, int max)
{
	static const char std_dirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib/aarch64-linux-gnu:"
				       "/usr/lib/aarch64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	char names[32][256], runpath[1024];
	int nr = 0, n;

	if (max < 1)
		return 0;
	objs[nr++] = xstrdup(exe);
	n = needed(exe, names, (int)ARRAY_SIZE(names), runpath, sizeof(runpath));
	for (int i = 0; i < n && nr < max; i++) {
		char *path = strchr(names[i], '/') ? xstrdup(names[i]) : NULL;

		if (!path && runpath[0])
			path = find_in(runpath, names[i]);
		if (!path)
			path = find_in(getenv("LD_LIBRARY_PATH"), names[i]);
		if (!path)
			path = find_in(std_dirs, names[i]);
		if (path)
			objs[nr++] = path;
	}
	return nr;
}

int probes__objects_of_pid(pid_t pid, char **objs, int max)
{
	char path[64], line[4096 + 128];
	int nr = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (nr < max && fgets(line, sizeof(line), f)) {
		char perms[8] = "", *name = strchr(line, '/');
		bool dup = false;

		if (!name || sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x')
			continue;
		name[strcspn(name, "\n")] = '\0';
		for (int i = 0; i < nr && !dup; i++)
			dup = !strcmp(objs[i], name);
		if (!dup && !strstr(name, " (deleted)"))
			objs[nr++] = xstrdup(name);
	}
	fclose(f);
	return nr;
}
