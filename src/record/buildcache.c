// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache: a copy of every object a recording mapped, kept
 * under its build-id, so that a recording made before a rebuild (or an
 * upgrade) is still named right afterwards. perf's layout, which perf and
 * c2cscan report both search:
 *
 *   ~/.debug/PATH/BUILDID/elf              the copy (a hard link when the
 *                                          file system allows)
 *   ~/.debug/.build-id/BU/ILDID -> ../../PATH/BUILDID
 *
 * An object already cached is not copied again. Files over CACHE_MAX_SIZE,
 * and anything that is not a regular file, are left out; so is everything
 * when $HOME is missing or not writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/buildcache.h"
#include "util/util.h"

#define CACHE_MAX_SIZE (1ULL << 30)

/* mkdir -p of dir (modified in place and restored). */
static int mkdirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;
}

static int copy_file(const char *from, const char *to, uint64_t size)
{
	char tmp[PATH_MAX + 16], buf[65536];
	int in, out, err = 0;
	uint64_t done = 0;

	if (!link(from, to))
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in < 0)
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while (!err && done < size) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		for (ssize_t w = 0; w < n && !err;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k <= 0)
				err = k < 0 ? -errno : -EIO;
			else
				w += k;
		}
		done += (uint64_t)n;
	}
	close(in);
	if (close(out) && !err)
		err = -errno;
	/* a complete copy or none: a reader never sees half an object */
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Caches one object; 1 when copied, 0 when already there, < 0 on errors. */
static int cache_one(const char *home, const char *name, const uint8_t *id, size_t size)
{
	char hex[41], dir[PATH_MAX], elf[PATH_MAX + 8], link_dir[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	int err;

	if (name[0] != '/' || strstr(name, "/..") || !strncmp(name, "/proc/", 6) || !strncmp(name, "/dev/", 5) ||
	    !strncmp(name, "/sys/", 5))
		return 0;
	if (stat(name, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > CACHE_MAX_SIZE)
		return 0;
	hex_encode(hex, id, size);
	if (snprintf(dir, sizeof(dir), "%s/.debug%s/%s", home, name, hex) >= (int)sizeof(dir) ||
	    snprintf(link_dir, sizeof(link_dir), "%s/.debug/.build-id/%.2s", home, hex) >= (int)sizeof(link_dir) ||
	    snprintf(link_path, sizeof(link_path), "%s/%s", link_dir, hex + 2) >= (int)sizeof(link_path) ||
	    snprintf(target, sizeof(target), "../..%s/%s", name, hex) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	if (!access(elf, F_OK))
		return 0;
	err = mkdirs(dir);
	if (!err)
		err = copy_file(name, elf, (uint64_t)st.st_size);
	if (!err && !mkdirs(link_dir) && symlink(target, link_path) && errno != EEXIST)
		err = -errno;
	return err ? err : 1;
}

void buildcache__store(const struct buildids *b, struct buildcache_stats *st)
{
	const char *home = getenv("HOME");

	memset(st, 0, sizeof(*st));
	/* a user without a writable home (nobody) has no cache to keep */
	if (!home || !*home || access(home, W_OK))
		return;
	for (size_t i = 0; i < buildids__nr(b); i++) {
		const char *name;
		const uint8_t *id;
		uint32_t pid;
		size_t size;
		int rc;

		if (!buildids__get(b, i, &name, &pid, &id, &size))
			continue;
		rc = cache_one(home, name, id, size);
		if (rc > 0)
			st->copied++;
		else if (rc == 0)
			st->present++;
		else
			st->failed++;
	}
}
