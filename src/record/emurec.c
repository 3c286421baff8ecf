// SPDX-License-Identifier: GPL-2.0
/* record --emulate: the runtime's environment and its samples (emurec.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/perf_data.h"
#include "perfdata/writer.h"
#include "record/allocrec.h"
#include "record/emurec.h"
#include "record/emuip.h"
#include "record/emulink.h"
#include "util/util.h"

#define EMU_LIB "libc2cscan-emu.so"

struct emu_rec {
	char lib[PATH_MAX];
	char dir[64];
	char model[96];         /* the model every process maps: tmpfs when there is one */
	char standin[PATH_MAX]; /* preloaded in place of libtsan.so.N ("": libtsan stays) */
};

static bool has_tsan_hooks(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strncmp(name, "__tsan_", 7))
				return true;
		}
	}
	return false;
}

int emu_rec__is_tsan(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		ret = -ENOEXEC;
	else
		ret = has_tsan_hooks(elf);
	elf_end(elf);
	close(fd);
	return ret;
}

/* The model files of killed records: /dev/shm/c2cscan-emu-PID of a PID gone. */
static void remove_stale_models(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX], *end;
		long pid;

		if (strncmp(de->d_name, "c2cscan-emu-", 12))
			continue;
		pid = strtol(de->d_name + 12, &end, 10);
		if (*end || !record__gone(pid))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

int emu_rec__new(struct emu_rec **out, struct record_msg *why)
{
	struct emu_rec *e = xcalloc(1, sizeof(*e));
	int err = record_lib__setup(RECORD_LIB_EMU, "emulate", EMU_LIB, "C2CSCAN_EMU_LIB", e->lib, sizeof(e->lib),
				   e->dir, sizeof(e->dir), why);
	int fd;

	*out = NULL;
	if (err) {
		free(e);
		return err;
	}
	remove_stale_models();
	/* its pages are written at every access: memory, not a disk file */
	snprintf(e->model, sizeof(e->model), "/dev/shm/c2cscan-emu-%d", (int)getpid());
	fd = open(e->model, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(e->model, sizeof(e->model), "%s/model", e->dir);
		fd = open(e->model, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		static char model[sizeof(e->model)];  /* (the message outlives e) */

		err = -errno;
		snprintf(model, sizeof(model), "%s", e->model);
		*why = (struct record_msg){ .kind = RM_EMU_MODEL_FILE, .err = err, .s = { model } };
		record_dir__remove(e->dir, "");
		free(e);
		return err;
	}
	close(fd);
	*out = e;
	return 0;
}

/* name=v in the environment when v is set (0: the runtime's default). */
static void setenv_u32(const char *name, uint32_t v)
{
	char buf[16];

	if (!v)
		return;
	snprintf(buf, sizeof(buf), "%u", v);
	setenv(name, buf, 1);
}

/* LD_PRELOAD for the program: the runtime (and the stand-in for libtsan,
 * when there is one) first, ahead of libtsan's hooks; after record
 * --alloc's shim, whose malloc must see the program's calls before the
 * runtime's malloc hands them to the production allocator. */
static char *preload_list(const struct emu_rec *e)
{
	const char *old = getenv("LD_PRELOAD");
	const char *colon = old ? strchr(old, ':') : NULL, *shim = old ? strstr(old, "libc2cscan-alloc") : NULL;
	char *ours = e->standin[0] ? xasprintf("%s:%s", e->lib, e->standin) : xstrdup(e->lib), *pre;

	if (shim && (!colon || shim < colon))
		pre = colon ? xasprintf("%.*s:%s:%s", (int)(colon - old), old, ours, colon + 1)
			    : xasprintf("%s:%s", old, ours);
	else
		pre = old && *old ? xasprintf("%s:%s", ours, old) : xstrdup(ours);
	free(ours);
	return pre;
}

bool emu_rec__choose_libtsan(struct emu_rec *e, const char *exe, char *why, size_t wsize)
{
	char interp[PATH_MAX], standin[PATH_MAX + 32], *pre;
	const char *slash = strrchr(e->lib, '/');
	unsigned abi = 0;
	int r = emu_link__libtsan(exe, &abi, interp, sizeof(interp));
	bool ok;

	e->standin[0] = '\0';
	why[0] = '\0';
	if (r <= 0)
		return false;
	snprintf(standin, sizeof(standin), "%.*slibc2cscan-libtsan.so.%u", slash ? (int)(slash + 1 - e->lib) : 0,
		 e->lib, abi);
	if (access(standin, R_OK) || strlen(standin) >= sizeof(e->standin)) {
		snprintf(why, wsize, "no stand-in for libtsan.so.%u beside %s", abi, e->lib);
		return false;
	}
	memcpy(e->standin, standin, strlen(standin) + 1);
	pre = preload_list(e);
	ok = emu_link__without_libtsan(interp, exe, pre, e->lib, why, wsize);
	free(pre);
	if (!ok)
		e->standin[0] = '\0';
	return ok;
}

void emu_rec__child_env(const struct emu_rec *e, uint32_t period, uint32_t hitm_period, uint32_t line,
			bool exact, bool chains)
{
	const char *old;
	char *pre = preload_list(e);

	setenv("LD_PRELOAD", pre, 1);
	free(pre);
	/* (where libtsan is loaded) its interceptors (malloc, threads, memcpy, I/O) stay, but
	 * their accesses are ignored and nothing is reported: no access of the
	 * program reaches libtsan, and the atomics the runtime performs make
	 * no happens-before edges it could see, so what it would report from
	 * interceptors alone is noise; last, so that these win over the
	 * user's */
	old = getenv("TSAN_OPTIONS");
	pre = xasprintf("%s%s%s", old && *old ? old : "", old && *old ? " " : "",
			"report_bugs=0 ignore_interceptors_accesses=1 detect_deadlocks=0 report_signal_unsafe=0");
	setenv("TSAN_OPTIONS", pre, 1);
	free(pre);
	setenv("C2CSCAN_EMU_DIR", e->dir, 1);
	setenv("C2CSCAN_EMU_MODEL", e->model, 1);
	setenv_u32("C2CSCAN_EMU_PERIOD", period);
	setenv_u32("C2CSCAN_EMU_HITM_PERIOD", hitm_period);
	setenv_u32("C2CSCAN_EMU_LINE", line);
	if (exact)
		setenv("C2CSCAN_EMU_EXACT", "1", 1);
	else
		unsetenv("C2CSCAN_EMU_EXACT");
	setenv_u32("C2CSCAN_EMU_FRAMES", chains ? PD_EMU_MAX_FRAMES : 0);
}

void emu_rec__attr(struct perf_event_attr *attr, bool chains, bool exact, uint64_t stalls)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_RAW;
	attr->config = 0xc2c;
	attr->config1 = exact ? PD_EMU_MODEL_EXACT : 1u << PD_EMU_WIN_BITS;
	attr->config2 = stalls;
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
			    PERF_SAMPLE_DATA_SRC | (chains ? PERF_SAMPLE_CALLCHAIN : 0);
	attr->precise_ip = 3;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->exclude_kernel = 1;
	attr->disabled = 1;
}

#define M(a, s) PERF_MEM_S(a, s)
#define LOAD (M(OP, LOAD) | M(LVL, HIT) | M(TLB, HIT) | M(TLB, L1) | M(BLK, NA))
#define STORE (M(OP, STORE) | M(SNOOP, NA) | M(TLB, NA))

/* perf's data_src of a class: what Intel's load-latency and store events
 * would say of such an access (a store that takes a modified line says
 * HITM in its snoop field: perf c2c does not count it, the report's
 * st_hitm does). */
static uint64_t class_data_src(uint16_t cls, bool locked)
{
	uint64_t d;

	switch (cls) {
	case PD_EMU_L1:
		d = LOAD | M(LVL, L1) | M(LVLNUM, L1) | M(SNOOP, NONE);
		break;
	case PD_EMU_LLC:
		d = LOAD | M(LVL, L3) | M(LVLNUM, L3) | M(SNOOP, HIT);
		break;
	case PD_EMU_HITM:
		d = LOAD | M(LVL, L3) | M(LVLNUM, L3) | M(SNOOP, HITM);
		break;
	case PD_EMU_ST_L1:
		d = STORE | M(LVL, L1) | M(LVL, HIT);
		break;
	case PD_EMU_ST_MISS:
		d = STORE | M(LVL, L1) | M(LVL, MISS);
		break;
	case PD_EMU_ST_HITM:
		d = (STORE & ~M(SNOOP, NA)) | M(LVL, L1) | M(LVL, MISS) | M(SNOOP, HITM);
		break;
	default:
		return 0;
	}
	return d | (locked ? M(LOCK, LOCKED) : M(LOCK, NA));
}

/* One sample into w: perf's chain is the user-context marker, the access,
 * its callers. */
static int put_sample(struct pd_writer *w, const struct perf_event_attr *attr, uint64_t id,
		      const struct pd_emu_sample *e, const uint8_t *frames, uint64_t ip, struct emu_rec_stats *st)
{
	uint64_t chain[PD_EMU_MAX_FRAMES + 2];
	uint8_t rec[2048];
	struct pd_sample s = { .id = id, .ip = ip, .pid = e->pid, .tid = e->tid, .time = e->time,
			       .addr = e->addr, .cpu = e->cpu, .period = e->period ? e->period : 1,
			       .weight = e->weight, .data_src = class_data_src(e->cls, e->locked & PD_EMU_LOCKED) };
	ssize_t n;
	int ret;

	if (!s.data_src) {
		st->bad++;
		return 0;
	}
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		chain[0] = PERF_CONTEXT_USER;
		chain[1] = ip;
		memcpy(chain + 2, frames, e->nr_frames * sizeof(uint64_t));
		s.callchain = chain;
		s.callchain_nr = e->nr_frames + 2u;
	}
	n = pd_fmt_sample(rec, sizeof(rec), attr, PERF_RECORD_MISC_USER, &s);
	ret = n < 0 ? (int)n : pd_writer__write(w, rec, (size_t)n);
	st->samples += !ret;
	st->cut += !ret && (e->locked & PD_EMU_CUT);
	return ret;
}

/* One process's file into w, a chunk at a time: its samples end at its
 * first zero time. */
static int collect_one(const char *path, struct pd_writer *w, const struct perf_event_attr *attr, uint64_t id,
		       struct emu_ip *ips, struct emu_rec_stats *st)
{
	uint8_t *buf;
	size_t got;
	uint64_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return 0;
	st->processes++;
	buf = xmalloc(PD_EMU_CHUNK);
	for (; !ret && (got = pread_full(fd, buf, PD_EMU_CHUNK, off)) > 0; off += PD_EMU_CHUNK) {
		size_t at = 0;

		while (!ret && at + sizeof(struct pd_emu_sample) <= got) {
			struct pd_emu_sample e;
			const uint8_t *frames = buf + at + sizeof(e);
			size_t len;

			memcpy(&e, buf + at, sizeof(e));
			if (!e.time)
				break;
			len = pd_emu_sample_len(&e);
			if (e.nr_frames > PD_EMU_MAX_FRAMES || e.code_before > PD_EMU_CODE_BEFORE ||
			    e.code_after > PD_EMU_CODE_AFTER || at + len > got) {
				st->torn++;
				break;
			}
			ret = put_sample(w, attr, id, &e, frames,
					 emu_ip__of(ips, &e, frames + e.nr_frames * sizeof(uint64_t)), st);
			at += len;
		}
	}
	free(buf);
	close(fd);
	return ret;
}

void emu_rec__head(const struct emu_rec *e, struct emu_rec_stats *st)
{
	struct pd_emu_model_head h;
	int fd = open(e->model, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, &h, sizeof(h), 0) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(h))
		return;
	st->cores_shared = h.cores_shared;
	st->stalls = h.stalls;
	st->unmodelled = h.unmodelled;
	st->evicted = h.evicted;
	h.allocator[sizeof(h.allocator) - 1] = '\0';
	snprintf(st->allocator, sizeof(st->allocator), "%s", h.allocator);
}

int emu_rec__collect(struct emu_rec *e, struct pd_writer *w, const struct perf_event_attr *attr, uint64_t id,
		     struct emu_rec_stats *st)
{
	DIR *d = opendir(e->dir);
	struct emu_ip *ips = emu_ip__new();
	struct dirent *de;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	while (d && !ret && (de = readdir(d))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, "emu-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", e->dir, de->d_name);
		ret = collect_one(path, w, attr, id, ips, st);
	}
	emu_ip__delete(ips);
	if (d)
		closedir(d);
	emu_rec__head(e, st);
	return ret;
}

void emu_rec__delete(struct emu_rec *e)
{
	if (!e)
		return;
	unlink(e->model);
	record_dir__remove(e->dir, "emu-");
	free(e);
}
