// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache: a copy of every object a recording mapped, kept
 * under its build-id, so that a recording made before a rebuild (or an
 * upgrade) is still named right afterwards. perf's layout, which perf and
 * c2cscan report both search:
 *
 *   ~/.debug/PATH/BUILDID/elf              the copy (a hard link when the
 *                                          file system allows)
 *   ~/.debug/PATH/BUILDID/c2cscan-debug    its separate debug file with the
 *                                          compressed sections inflated, when
 *                                          any is
 *   ~/.debug/.build-id/BU/ILDID -> ../../PATH/BUILDID
 *
 * An object already cached is not copied again. Files over CACHE_MAX_SIZE,
 * and anything that is not a regular file, are left out; so is everything
 * when $HOME is missing or not writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
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

/* size bytes of from into a new file to. */
static int copy_bytes(const char *from, const char *to, uint64_t size)
{
	char buf[65536];
	int in, out, err = 0;
	uint64_t done = 0;

	in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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
	return err;
}

static int copy_file(const char *from, const char *to, uint64_t size)
{
	char tmp[PATH_MAX + 16];
	int err;

	if (!link(from, to))
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = copy_bytes(from, tmp, size);
	/* a complete copy or none: a reader never sees half an object */
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Does the ELF file at fd have a compressed section (SHF_COMPRESSED)? */
static bool has_compressed(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	bool any = false;

	while (e && !any && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		any = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	}
	elf_end(e);
	return any;
}

/* Inflates every compressed section of the ELF file at path, in place. */
static int inflate_sections(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), err = 0;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_RDWR, NULL) : NULL;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -errno;
	if (!e)
		err = -EINVAL;
	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			err = -EINVAL;
		else if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			err = -EINVAL;
	}
	if (!err && elf_update(e, ELF_C_WRITE) < 0)
		err = -EINVAL;
	elf_end(e);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* The object's separate debug file, as libdw looks for it: by build-id
 * under /usr/lib/debug, else its .gnu_debuglink beside it, in .debug/
 * there, or under /usr/lib/debug; 0 when found (into path, its stat into
 * st). */
static int find_separate(const char *name, const char *hex, char *path, size_t size, struct stat *st)
{
	const char *slash = strrchr(name, '/'), *link = NULL;
	int fd, n = 0;
	Elf *e;

	snprintf(path, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (!stat(path, st) && S_ISREG(st->st_mode))
		return 0;
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e) {
		GElf_Word crc;

		link = dwelf_elf_gnu_debuglink(e, &crc);
	}
	for (int i = 0; link && !strchr(link, '/') && i < 3; i++) {
		int dir = (int)(slash - name);

		n = i == 0 ? snprintf(path, size, "%.*s/%s", dir, name, link) :
		    i == 1 ? snprintf(path, size, "%.*s/.debug/%s", dir, name, link) :
			     snprintf(path, size, "/usr/lib/debug%.*s/%s", dir, name, link);
		if (n < (int)size && strcmp(path, name) && !stat(path, st) && S_ISREG(st->st_mode))
			break;
		n = -1;
	}
	elf_end(e);
	close(fd);
	return link && n >= 0 ? 0 : -ENOENT;
}

/* The object's separate debug info inflated into dir (see the top: the
 * build-id's, which report reads, whichever path the build-id was first
 * cached under), once; nothing when it has no compressed section. (Debug
 * info in the object itself is read from there: libdw looks for a separate
 * file only when the object has none.) */
static void cache_inflated(const char *dir, const char *name, const char *hex)
{
	char out[PATH_MAX + 32], tmp[PATH_MAX + 48], src[PATH_MAX];
	struct stat st;
	bool compressed;
	int fd;

	if (snprintf(out, sizeof(out), "%s/" BUILDCACHE_INFLATED_DEBUG, dir) >= (int)sizeof(out) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp%d", out, (int)getpid()) >= (int)sizeof(tmp) || !access(out, F_OK))
		return;
	elf_version(EV_CURRENT);
	if (find_separate(name, hex, src, sizeof(src), &st) || (uint64_t)st.st_size > CACHE_MAX_SIZE ||
	    (fd = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	compressed = has_compressed(fd);
	close(fd);
	if (!compressed)
		return;
	/* a copy (not a link: it is rewritten), inflated, then in place */
	unlink(tmp);
	if (copy_bytes(src, tmp, (uint64_t)st.st_size) || inflate_sections(tmp) || rename(tmp, out))
		unlink(tmp);
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
	if (!access(elf, F_OK)) {
		cache_inflated(link_path, name, hex);
		return 0;
	}
	err = mkdirs(dir);
	if (!err)
		err = copy_file(name, elf, (uint64_t)st.st_size);
	if (!err && !mkdirs(link_dir) && symlink(target, link_path) && errno != EEXIST)
		err = -errno;
	if (!err)
		cache_inflated(link_path, name, hex);
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
