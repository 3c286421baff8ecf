// SPDX-License-Identifier: GPL-2.0
/* record --alloc: the shim's environment and the collection of its files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfdata/alloc.h"
#include "perfdata/alloc_pack.h"
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

int alloc_rec__new(struct alloc_rec **out, struct record_msg *why)
{
	struct alloc_rec *a = xcalloc(1, sizeof(*a));
	const char *old = getenv("LD_PRELOAD");
	int err;

	*out = NULL;
	err = record_lib__setup(RECORD_LIB_ALLOC, "alloc", SHIM_NAME, "C2CSCAN_ALLOC_SHIM", a->shim, sizeof(a->shim),
				a->dir, sizeof(a->dir), why);
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

/* A packed buffer of blocks and their events: what the feature gets. */
struct packed {
	uint8_t *p;
	size_t len, cap;
	uint64_t nr;
};

/* The bytes of the first k events of a block's len bytes of events at p
 * (each is five varints), at most len. */
static uint32_t events_bytes(const uint8_t *p, uint32_t len, uint32_t k)
{
	uint32_t n = 0;

	for (uint64_t ends = 0; ends < 5ull * k && n < len; n++)
		ends += !(p[n] & 0x80);
	return n;
}

/* Appends the whole blocks of one file to pk, up to max events in all (the
 * blocks past it are counted as dropped); a block cut short (a write the
 * process did not finish) and what follows it count as torn bytes. */
static void read_one(const char *path, struct packed *pk, size_t max, struct alloc_rec_stats *st)
{
	struct stat sb;
	size_t have = 0, at, keep = 0, whole;
	ssize_t got;
	uint8_t *start;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size) {
		close(fd);
		return;
	}
	xgrow((void **)&pk->p, &pk->cap, pk->len + (size_t)sb.st_size, 1);
	start = pk->p + pk->len;
	for (; have < (size_t)sb.st_size; have += (size_t)got) {
		got = read(fd, start + have, (size_t)sb.st_size - have);
		if (got <= 0)
			break;
	}
	close(fd);
	st->processes++;
	/* keep the whole blocks in order, up to the first that does not fit */
	for (at = 0; at < have;) {
		struct pd_alloc_block b;

		if (have - at < sizeof(b))
			break;
		memcpy(&b, start + at, sizeof(b));
		if (b.magic != PD_ALLOC_BLOCK_MAGIC || b.bytes > have - at - sizeof(b) || !b.nr ||
		    b.bytes < (uint64_t)b.nr * PD_ALLOC_PACKED_MIN || b.bytes > (uint64_t)b.nr * PD_ALLOC_PACKED_MAX)
			break;
		whole = sizeof(b) + b.bytes;
		if (keep == at && pk->nr < max) {
			/* the first events of a block that does not fit whole */
			uint32_t k = pk->nr + b.nr <= max ? b.nr : (uint32_t)(max - pk->nr);
			uint32_t bytes = k < b.nr ? events_bytes(start + at + sizeof(b), b.bytes, k) : b.bytes;

			st->dropped += b.nr - k;
			if (k < b.nr) {
				b.nr = k;
				b.bytes = bytes;
				memcpy(start + at, &b, sizeof(b));
			}
			pk->nr += k;
			keep += sizeof(b) + bytes;
		} else {
			st->dropped += b.nr;
		}
		at += whole;
	}
	st->torn_bytes += have - at;
	pk->len += keep;
}

uint8_t *alloc_rec__collect(struct alloc_rec *a, size_t *len, struct alloc_rec_stats *st)
{
	struct packed pk = { NULL, 0, 0, 0 };
	size_t max = max_events();
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
		read_one(path, &pk, max, st);
	}
	if (d)
		closedir(d);
	if (st->processes)
		p = pd_alloc__encode_packed(pk.p ? pk.p : (uint8_t *)"", pk.len, pk.nr, NULL, 0, st->dropped, len);
	st->events = p ? pk.nr : 0;
	st->bytes = p ? *len : 0;
	free(pk.p);
	return p;
}

bool record__gone(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* dir/record.pid: the pid of the record that made dir */
static void pid_file(const char *dir, char *buf, size_t size)
{
	snprintf(buf, size, "%s/record.pid", dir);
}

/* A record that was killed left its directory (and what its command
 * wrote there): /tmp/c2cscan-OPT-* whose record.pid names a process gone.
 * The next record removes them. Only directories this user can remove. */
static void remove_stale_dirs(const char *opt)
{
	char prefix[64];
	DIR *d = opendir("/tmp");
	struct dirent *de;

	snprintf(prefix, sizeof(prefix), "c2cscan-%s-", opt);
	while (d && (de = readdir(d))) {
		char path[PATH_MAX], pidfile[PATH_MAX + 16];
		long pid = 0;
		FILE *f;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", de->d_name);
		pid_file(path, pidfile, sizeof(pidfile));
		f = fopen(pidfile, "re");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
		if (record__gone(pid))
			record_dir__remove(path, "");
	}
	if (d)
		closedir(d);
}

int record_lib__setup(int which, const char *opt, const char *name, const char *env_var, char *lib, size_t lsize,
		      char *dir, size_t dsize, struct record_msg *why)
{
	char pidfile[PATH_MAX + 16];
	int fd;
	int err = record_lib__find(name, env_var, lib, lsize);

	if (err) {
		*why = (struct record_msg){ .kind = RM_LIB_MISSING, .err = err, .s = { name, env_var }, .n = { which } };
		return err;
	}
	remove_stale_dirs(opt);
	snprintf(dir, dsize, "/tmp/c2cscan-%s-XXXXXX", opt);
	if (!mkdtemp(dir)) {
		err = -errno;
		*why = (struct record_msg){ .kind = RM_LIB_TMPDIR, .err = err, .n = { which } };
		return err;
	}
	/* whose it is, for the next record's clean-up should this one be killed */
	pid_file(dir, pidfile, sizeof(pidfile));
	fd = open(pidfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		char buf[24];
		int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

		if (write(fd, buf, (size_t)n) != n)
			unlink(pidfile);
		close(fd);
	}
	return 0;
}

void record_dir__remove(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	while (d && (de = readdir(d))) {
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	pid_file(dir, path, sizeof(path));
	unlink(path);
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
