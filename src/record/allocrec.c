// SPDX-License-Identifier: GPL-2.0
/* record --alloc: the shim's environment and the collection of its files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfdata/alloc.h"
#include "record/allocrec.h"
#include "util/util.h"

#define SHIM_NAME "libc2cscan-alloc.so"

struct alloc_rec {
	char shim[PATH_MAX];
	char dir[64];
	char *preload;          /* LD_PRELOAD for the child */
};

int record_lib__find(const char *name, const char *env_var, char *out, size_t size)
{
	const char *env = getenv(env_var);
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, size, "%s", env);
		return access(out, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	scnprintf(out, size, "%s/%s", slash ? exe : ".", name);
	if (!access(out, R_OK))
		return 0;
	/* installed: PREFIX/bin/c2cscan, PREFIX/lib/c2cscan/ */
	scnprintf(out, size, "%s/../lib/c2cscan/%s", slash ? exe : ".", name);
	return access(out, R_OK) ? -ENOENT : 0;
}

int alloc_rec__new(struct alloc_rec **out, char *why, size_t whysize)
{
	struct alloc_rec *a = xcalloc(1, sizeof(*a));
	const char *old = getenv("LD_PRELOAD");
	int err;

	*out = NULL;
	err = record_lib__setup("--alloc", SHIM_NAME, "C2CSCAN_ALLOC_SHIM", a->shim, sizeof(a->shim), a->dir,
				sizeof(a->dir), why, whysize);
	if (err) {
		free(a);
		return err;
	}
	a->preload = old && *old ? xasprintf("%s:%s", a->shim, old) : xstrdup(a->shim);
	*out = a;
	return 0;
}

void alloc_rec__child_env(const struct alloc_rec *a, bool stacks)
{
	setenv("LD_PRELOAD", a->preload, 1);
	setenv("C2CSCAN_ALLOC_DIR", a->dir, 1);
	if (stacks)
		setenv("C2CSCAN_ALLOC_STACK", "1", 1);
}

/* The events a section keeps: PD_MAX_ALLOC_EVENTS, lower with
 * C2CSCAN_ALLOC_MAX_EVENTS (the tests' way to reach the limit). */
static size_t max_events(void)
{
	const char *env = getenv("C2CSCAN_ALLOC_MAX_EVENTS");
	unsigned long long v = env ? strtoull(env, NULL, 0) : 0;

	return v && v < PD_MAX_ALLOC_EVENTS ? (size_t)v : PD_MAX_ALLOC_EVENTS;
}

/* Appends the whole events of one file to *ev, up to max events in all. */
static void read_one(const char *path, struct pd_alloc_event **ev, size_t *nr, size_t *alloc, size_t max,
		     struct alloc_rec_stats *st)
{
	struct stat sb;
	size_t n, have;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < (off_t)sizeof(**ev)) {
		close(fd);
		return;
	}
	n = (size_t)sb.st_size / sizeof(**ev);
	st->torn_bytes += (size_t)sb.st_size % sizeof(**ev);
	if (*nr + n > max) {
		size_t keep = *nr < max ? max - *nr : 0;

		st->dropped += n - keep;
		n = keep;
	}
	xgrow((void **)ev, alloc, *nr + n + 1, sizeof(**ev));
	for (have = 0; have < n * sizeof(**ev); have += (size_t)got) {
		got = read(fd, (char *)(*ev + *nr) + have, n * sizeof(**ev) - have);
		if (got <= 0)
			break;
	}
	close(fd);
	*nr += have / sizeof(**ev);
	st->processes++;
}

uint8_t *alloc_rec__collect(struct alloc_rec *a, size_t *len, struct alloc_rec_stats *st)
{
	struct pd_alloc_event *ev = NULL;
	size_t nr = 0, alloc = 0, max = max_events();
	struct dirent *de;
	uint8_t *p = NULL;
	DIR *d = opendir(a->dir);

	memset(st, 0, sizeof(*st));
	*len = 0;
	while (d && (de = readdir(d))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, "alloc-", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s", a->dir, de->d_name);
		read_one(path, &ev, &nr, &alloc, max, st);
	}
	if (d)
		closedir(d);
	if (st->processes)
		p = pd_alloc__encode(ev, nr, NULL, 0, st->dropped, len);
	st->events = p ? nr : 0;
	st->bytes = p ? *len : 0;
	free(ev);
	return p;
}

int record_lib__setup(const char *opt, const char *name, const char *env_var, char *lib, size_t lsize, char *dir,
		      size_t dsize, char *why, size_t whysize)
{
	int err = record_lib__find(name, env_var, lib, lsize);

	if (err) {
		snprintf(why, whysize, "%s: cannot find %s beside c2cscan (or set %s): %s", opt, name, env_var,
			 strerror(-err));
		return err;
	}
	snprintf(dir, dsize, "/tmp/c2cscan-%s-XXXXXX", opt + 2);
	if (!mkdtemp(dir)) {
		err = -errno;
		snprintf(why, whysize, "%s: cannot make a directory in /tmp: %s", opt, strerror(errno));
		return err;
	}
	return 0;
}

void record_dir__remove(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX];

		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

void alloc_rec__delete(struct alloc_rec *a)
{
	if (!a)
		return;
	record_dir__remove(a->dir, "alloc-");
	free(a->preload);
	free(a);
}
