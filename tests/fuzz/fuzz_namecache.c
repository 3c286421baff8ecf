// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the names cache's reader (src/names/namecache.c). The
 * object is this fuzzer's own executable (built -g, with a build-id): each
 * input becomes its cache file, the header right (this build, this object,
 * its DWARF's shape, the checksum of the rest) so that the contents are
 * read: counts from the input's first 16 bytes (fitting what follows), the
 * rest the
 * variables, declarations and types as they come. Then a global of this
 * file is named (the variables) and the accesses of a function typed (the
 * types), and the names are saved again. Nothing it holds may crash or
 * leak; what it answers from a made-up file is not checked.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "maps/maps.h"
#include "names/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* as namecache.c lays it out (its _Static_assert pins the sizes) */
struct head {
	uint32_t magic, version;
	uint8_t self[20], module[20];
	uint8_t self_len, module_len, has_vars, has_thread, has_tcb, pad[3];
	uint64_t info_size, abbrev_size, thread_off, tcb_off;
	uint32_t nr_vars, nr_tls, nr_got, nr_types;
	uint64_t sum;
};

struct pair {
	long a, b;
};

static struct pair globals[8] = { { 1, 2 } };   /* .data: in the file's mapping */
static volatile long sink;

/* an access to type: a struct through a pointer */
__attribute__((noinline)) static long touch(struct pair *p, int i)
{
	p[i].b += p[i].a;
	return p[i].b;
}

static struct {
	int state;                      /* 0 not set up, 1 ready, -1 not possible */
	char exe[PATH_MAX], file[PATH_MAX + 64];
	char home[32], hex[41];
	struct map_desc code, data;
	struct head h;
} g;

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The temporary home, at exit: its cache file and directories. */
static void cleanup(void)
{
	char p[PATH_MAX + 64];

	unlink(g.file);
	snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s", g.home, g.hex, g.hex + 2);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s", g.home, g.hex);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/.debug/.build-id", g.home);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/.debug", g.home);
	rmdir(p);
	rmdir(g.home);
}

/* The mapping of the executable that holds a. */
static bool map_of(uint64_t a, struct map_desc *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], path[PATH_MAX];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &off, path) == 5 &&
		    a >= start && a < end && !strcmp(path, g.exe)) {
			m->start = start;
			m->end = end;
			m->pgoff = off;
			m->prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | (perms[2] == 'x' ? 4 : 0);
			m->flags = 2;   /* MAP_PRIVATE */
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void setup(void)
{
	char *home = g.home, *hex = g.hex, dir[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", g.exe, sizeof(g.exe) - 1);
	int fd;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const void *id;
	uint8_t idb[20];
	int idn;

	g.state = -1;
	snprintf(g.home, sizeof(g.home), "/tmp/c2cscan-fuzz-nc-XXXXXX");
	if (n <= 0 || !mkdtemp(home))
		return;
	atexit(cleanup);
	g.exe[n] = '\0';
	elf_version(EV_CURRENT);
	fd = open(g.exe, O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	idn = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
	if (idn < 2 || idn > 20 || elf_getshdrstrndx(e, &shstrndx))
		return;
	memcpy(idb, id, (size_t)idn);   /* id is in e's mapping */
	g.h = (struct head){ .magic = 0x4e433243u, .version = 1, .self_len = (uint8_t)idn,
			     .module_len = (uint8_t)idn };
	memcpy(g.h.self, idb, (size_t)idn);
	memcpy(g.h.module, idb, (size_t)idn);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    (d = elf_getdata(scn, NULL))) {
			if (!strcmp(name, ".debug_info"))
				g.h.info_size = d->d_size;
			else if (!strcmp(name, ".debug_abbrev"))
				g.h.abbrev_size = d->d_size;
		}
	}
	for (int i = 0; i < idn; i++)
		sprintf(hex + 2 * i, "%02x", idb[i]);
	elf_end(e);
	close(fd);
	if (!g.h.info_size || !map_of((uintptr_t)&touch, &g.code) || !map_of((uintptr_t)globals, &g.data))
		return;
	g.code.name = g.data.name = g.exe;
	g.code.build_id_size = g.data.build_id_size = (uint8_t)idn;
	memcpy(g.code.build_id, idb, (size_t)idn);
	memcpy(g.data.build_id, idb, (size_t)idn);
	/* the cache's place for this build-id, as record makes it */
	snprintf(dir, sizeof(dir), "%s/.debug", home);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id", home);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%.2s", home, hex);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%.2s/%s", home, hex, hex + 2);
	mkdir(dir, 0755);
	snprintf(g.file, sizeof(g.file), "%s/c2cscan-names", dir);
	setenv("HOME", home, 1);
	g.state = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbols_opts so = { .no_debuginfod = true, .kallsyms = "/nonexistent-kallsyms",
				   .perf_map_dir = "/nonexistent-maps" };
	struct head h;
	struct symbols *s;
	struct data_loc d;
	enum dtype_reason why;
	uint32_t counts[4] = { 0 };
	FILE *f;

	if (!g.state)
		setup();
	if (g.state < 0)
		return 0;
	sink += touch(globals, (int)(size & 7));
	h = g.h;
	memcpy(counts, data, size < 16 ? size : 16);
	h.has_vars = size > 16 && (data[16] & 1);
	h.has_thread = size > 16 && (data[16] & 2);
	h.has_tcb = size > 16 && (data[16] & 4);
	h.thread_off = size > 24 ? data[17] | (uint64_t)data[18] << 8 | (uint64_t)data[19] << 16 : 0;
	h.tcb_off = size > 24 ? data[20] | (uint64_t)data[21] << 8 | (uint64_t)data[22] << 16 : 0;
	data += size < 24 ? size : 24;
	size -= size < 24 ? size : 24;
	/* counts that fit what follows, mostly (one in 16 any: the reader
	 * must refuse those) */
	h.nr_vars = counts[0] % (size / 24 + 1);
	h.nr_tls = counts[1] % ((size - h.nr_vars * 24) / 24 + 1);
	h.nr_got = counts[2] % ((size - (h.nr_vars + h.nr_tls) * 24) / 16 + 1);
	h.nr_types = counts[3] % 4096;
	if ((counts[3] & 0xf0000) == 0xf0000)
		h.nr_vars = counts[0];
	h.sum = fnv(data, size);
	f = fopen(g.file, "w");
	if (!f)
		return 0;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(data, 1, size, f);
	fclose(f);
	s = symbols__new(&so);
	symbols__data(s, &g.data, NULL, (uint32_t)getpid(), (uintptr_t)&globals[3].b, &d);
	symbols__access_type(s, &g.code, (uintptr_t)&touch + 4, (uintptr_t)&globals[1], 0, 0, &d, &why);
	symbols__access_type(s, &g.code, (uintptr_t)&touch + 12, (uintptr_t)&globals[2], 0, 0, &d, &why);
	symbols__delete(s);
	return 0;
}
