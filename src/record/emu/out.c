// SPDX-License-Identifier: GPL-2.0
/*
 * Where record --emulate's samples go (part of libc2cscan-emu.so): the
 * process's file, $C2CSCAN_EMU_DIR/emu-PID, mapped a chunk (PD_EMU_CHUNK
 * bytes) at a time per thread. What a thread wrote is in the file however
 * the process ends (_exit, a signal, exec); a chunk's unused tail stays
 * zero; an exec'd image appends chunks after the old. No descriptor is
 * kept: the file is opened for each chunk and closed at once, so a program
 * that closes or dup2()s over descriptors it did not open (a daemon's
 * clean-up) neither loses samples nor gets them in its own files, and its
 * open() numbering is its own. A thread that ends leaves its chunk's room
 * to the next thread that samples (a chunk's records carry their thread):
 * a program that starts thread after thread does not map and unmap a chunk
 * for each (an unmap in a process of many threads stops all of their CPUs).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "record/emu/emu.h"

static char dir[512];
static uint32_t pid;
static uint32_t lock;

/* Chunks of ended threads with room left (under lock). */
#define SPARES 64
#define SPARE_MIN 4096                  /* room worth keeping a chunk for: a sample at its longest */
_Static_assert(SPARE_MIN >= sizeof(struct pd_emu_sample) + PD_EMU_MAX_FRAMES * sizeof(uint64_t) + PD_EMU_CODE_BEFORE +
			    PD_EMU_CODE_AFTER + 7,
	       "a spare chunk has room for any sample");
static struct emu_out spares[SPARES];
static uint32_t nr_spares;

static void unmap(struct emu_out *o)
{
	if (o->chunk)
		syscall(SYS_munmap, o->chunk, PD_EMU_CHUNK);
	o->chunk = NULL;
	o->used = 0;
}

void emu_out__start(const char *d, uint32_t p)
{
	snprintf(dir, sizeof(dir), "%s", d);
	pid = p;
}

void emu_out__forked(uint32_t p)
{
	pid = p;
	lock = 0;
	/* the parent's file's: not the child's to write */
	while (nr_spares)
		unmap(&spares[--nr_spares]);
}

static int open_file(void)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/emu-%u", dir, pid);
	return emu_sys_open(path, O_RDWR | O_CREAT);
}

void emu_out__mark(void)
{
	int fd = open_file();

	if (fd >= 0)
		syscall(SYS_close, fd);
}

/* A new chunk at the end of the process's file, NULL when it cannot be. */
static uint8_t *chunk_new(void)
{
	void *m = MAP_FAILED;
	struct stat st;
	sigset_t was;
	int fd;

	emu_lock_quiet(&lock, &was);
	fd = open_file();
	if (fd >= 0 && !fstat(fd, &st)) {
		/* the chunks after what the file holds (another thread's, an
		 * exec'd image's before this one) */
		uint64_t chunks = ((uint64_t)st.st_size + PD_EMU_CHUNK - 1) / PD_EMU_CHUNK;

		if (!ftruncate(fd, (off_t)((chunks + 1) * PD_EMU_CHUNK)))
			m = emu_sys_mmap(PD_EMU_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
					 (off_t)(chunks * PD_EMU_CHUNK));
	}
	if (fd >= 0)
		syscall(SYS_close, fd);
	emu_unlock_quiet(&lock, &was);
	return m == MAP_FAILED ? NULL : m;
}

uint8_t *emu_out__room(struct emu_out *o, size_t len)
{
	uint8_t *p;

	if (o->chunk && o->used + len > PD_EMU_CHUNK)
		unmap(o);
	/* (a spare has SPARE_MIN bytes of room or more: any sample's) */
	if (!o->chunk) {
		sigset_t was;

		emu_lock_quiet(&lock, &was);
		if (nr_spares)
			*o = spares[--nr_spares];
		emu_unlock_quiet(&lock, &was);
	}
	if (!o->chunk) {
		o->chunk = chunk_new();
		o->used = 0;
		if (!o->chunk)
			return NULL;
	}
	p = o->chunk + o->used;
	o->used += (uint32_t)len;
	return p;
}

void emu_out__close(struct emu_out *o)
{
	if (o->chunk && o->used + SPARE_MIN <= PD_EMU_CHUNK) {
		sigset_t was;

		emu_lock_quiet(&lock, &was);
		if (nr_spares < SPARES) {
			spares[nr_spares++] = *o;
			o->chunk = NULL;
		}
		emu_unlock_quiet(&lock, &was);
	}
	unmap(o);
}

void emu_out__drop(struct emu_out *o)
{
	unmap(o);
}

uint32_t emu_out__code_bytes(uint64_t a, uint32_t max)
{
	uint32_t n = 4096 - (uint32_t)(a & 4095);

	return n >= max || emu_maps__readable(a + n) ? max : n;
}
