// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the names cache's reader (src/names/namecache.c). The
 * object is this fuzzer's own executable (built -g, with a build-id). At
 * the start a real cache of it is made (a global of this file named, the
 * accesses of a function typed); each input then changes that cache: its
 * first byte says how (bit 0: the counts from the next 16 bytes instead of
 * the real ones; bit 1: the contents cut to the input's length; bit 2:
 * the flags of the thread types from the next byte), the rest is XORed
 * over the contents. The checksum is made right, so that the contents are
 * read. Then the same questions are asked, and the names saved again.
 * Nothing it holds may crash or leak; what it answers from a changed
 * cache is not checked.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "maps/maps.h"
#include "names/namecache.h"
#include "names/symbols.h"
#include "perfdata/buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	uint8_t *real;                  /* the real cache */
	size_t real_len;
	struct map_desc code, data;
	struct nc_head h;
} g;

static void ask(void)
{
	struct symbols_opts so = { .no_debuginfod = true, .kallsyms = "/nonexistent-kallsyms",
				   .perf_map_dir = "/nonexistent-maps" };
	struct symbols *s = symbols__new(&so);
	struct data_loc d;
	enum dtype_reason why;

	symbols__data(s, &g.data, NULL, (uint32_t)getpid(), (uintptr_t)&globals[3].b, &d);
	symbols__access_type(s, &g.code, (uintptr_t)&touch + 4, (uintptr_t)&globals[1], 0, 0, &d, &why);
	symbols__access_type(s, &g.code, (uintptr_t)&touch + 12, (uintptr_t)&globals[2], 0, 0, &d, &why);
	symbols__delete(s);     /* saves what it learned */
}

/* The temporary home, at exit: its cache file and directories. */
static void cleanup(void)
{
	char p[PATH_MAX + 64];

	unlink(g.file);
	free(g.real);
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
	uint8_t idb[20];
	int idn, fd;

	g.state = -1;
	snprintf(g.home, sizeof(g.home), "/tmp/c2cscan-fuzz-nc-XXXXXX");
	if (n <= 0 || !mkdtemp(home))
		return;
	atexit(cleanup);
	g.exe[n] = '\0';
	idn = buildid__read_file(g.exe, idb);
	if (idn < 2 || idn > 20)
		return;
	for (int i = 0; i < idn; i++)
		sprintf(hex + 2 * i, "%02x", idb[i]);
	if (!map_of((uintptr_t)&touch, &g.code) || !map_of((uintptr_t)globals, &g.data))
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
	/* the real cache, learned once */
	ask();
	fd = open(g.file, O_RDONLY);
	if (fd < 0)
		return;
	g.real = malloc(1 << 24);
	n = g.real ? read(fd, g.real, 1 << 24) : -1;
	close(fd);
	if (n < (ssize_t)sizeof(struct nc_head))
		return;
	g.real_len = (size_t)n;
	memcpy(&g.h, g.real, sizeof(g.h));
	g.state = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t how = size ? data[0] : 0, *body;
	struct nc_head h;
	size_t len;
	FILE *f;

	if (!g.state)
		setup();
	if (g.state < 0)
		return 0;
	sink += touch(globals, (int)(size & 7));
	h = g.h;
	len = g.real_len - sizeof(h);
	body = malloc(len + size + 1);
	if (!body)
		return 0;
	memcpy(body, g.real + sizeof(h), len);
	if (size)
		data++, size--;
	if ((how & 1) && size >= 16) {
		memcpy(&h.nr_vars, data, 16);  /* nr_vars, nr_tls, nr_got, nr_types */
		data += 16, size -= 16;
	}
	if ((how & 4) && size >= 1) {
		h.has_vars = data[0] & 1;
		h.has_thread = (data[0] >> 1) & 1;
		h.has_tcb = (data[0] >> 2) & 1;
		data++, size--;
	}
	if (how & 2)
		len = size < len ? size : len;
	for (size_t i = 0; i < size && i < len; i++)
		body[i] ^= data[i];
	h.sum = nc_sum(body, len, NC_SUM_START);
	f = fopen(g.file, "w");
	if (f) {
		fwrite(&h, sizeof(h), 1, f);
		fwrite(body, 1, len, f);
		fclose(f);
		ask();
	}
	free(body);
	return 0;
}
