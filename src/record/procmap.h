/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PROCMAP_QUERY ioctl on /proc/PID/maps (include/uapi/linux/fs.h,
 * Linux 6.11): one mapping by address, with the device, inode and offset
 * the maps text gives. The libc headers of this build may be older than
 * the kernel that runs it, so the ABI is spelled out here. Used by
 * record's synthesis (synth.c) and by record --emulate's runtime (emu/maps.c).
 */
#ifndef C2CSCAN_RECORD_PROCMAP_H
#define C2CSCAN_RECORD_PROCMAP_H

#include <stdint.h>
#include <sys/ioctl.h>

struct c2c_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

enum {
	C2C_PMQ_READABLE = 0x01,
	C2C_PMQ_WRITABLE = 0x02,
	C2C_PMQ_EXECUTABLE = 0x04,
	C2C_PMQ_SHARED = 0x08,
	C2C_PMQ_COVERING_OR_NEXT = 0x10,
};

#define C2C_PROCMAP_QUERY _IOWR('f', 17, struct c2c_procmap_query)

#endif
