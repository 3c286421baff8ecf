/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Typed perf.data records: what the reader (reader.c) yields and what the
 * writer (writer.c) formats. Nothing here knows about cachelines.
 *
 * Pointers inside a struct pd_event (filenames, comm, callchain, raw) point
 * into the reader's buffer and stay valid only until the next
 * pd_reader__next() call: copy what you keep.
 */
#ifndef C2CSCAN_PERF_DATA_H
#define C2CSCAN_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The pid of the kernel's own MMAP records (-1 in the record). */
#define KERNEL_PID ((uint32_t)-1)

/* Record types the perf tool synthesizes (tools/perf/util/event.h). */
enum {
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_EVENT_TYPE = 65,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_ID_INDEX = 69,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_AUXTRACE_ERROR = 72,
	PD_REC_THREAD_MAP = 73,
	PD_REC_CPU_MAP = 74,
	PD_REC_STAT_CONFIG = 75,
	PD_REC_STAT = 76,
	PD_REC_STAT_ROUND = 77,
	PD_REC_EVENT_UPDATE = 78,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
	PD_REC_COMPRESSED2 = 83,
};

/* Feature bits of the file header (tools/perf/util/header.h). */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_AUXTRACE = 18,
	PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31,
	/* c2cscan's own, far above perf's: perf skips feature bits it does
	 * not know (it walks only up to its HEADER_LAST_FEATURE) */
	PD_FEAT_C2CSCAN_INDEX = 249,
	PD_FEAT_C2CSCAN_ALLOC = 250,
	PD_FEAT_MAX = 256,
};

/*
 * Where the records other than samples are (C2CSCAN_INDEX, written by
 * pd_writer): a side-band pass reads those and jumps over the rest, as it
 * does with a skim's list (perfdata/skim.c). Listed: every record but
 * samples; a file with records that carry trailing data or compressed
 * records has no index.
 *
 * Payload: u32 magic PD_INDEX_MAGIC, u32 version (1), u64 data size (the
 * data section it describes), u64 records listed, u64 records after the
 * last one, then per record listed: u64 offset from the data section's
 * start, u64 records (samples) between it and the one listed before (or
 * the start).
 */
#define PD_INDEX_MAGIC 0x58433243u     /* "C2CX" */
#define PD_INDEX_HEAD 32u
#define PD_INDEX_MAX (1u << 20)        /* records listed at most (16 MiB) */

/*
 * Allocation events (record --alloc; docs: man/c2cscan-record section
 * ALLOCATION TRACKING), decoded: 48 bytes each. time is the samples' clock
 * (the recording sets use_clockid, CLOCK_MONOTONIC).
 *
 * Feature payload: u32 magic PD_ALLOC_MAGIC, u32 version (3; 1 lacks the
 * last field), u64 events, u64 compressed bytes, u32 names, u64 events
 * record dropped (past its limit), then names (u32 length + bytes, the
 * user allocator of fn PD_ALLOC_FN_USER + i), then one zstd frame of the
 * events, in the order each process wrote them: version 3 as the preload
 * shim writes them, packed in blocks (perfdata/alloc_pack.h); versions 1
 * and 2 as these structs, little-endian.
 */
#define PD_ALLOC_MAGIC 0x41433243u     /* "C2CA" */

enum pd_alloc_kind {
	PD_ALLOC_ALLOC = 1,     /* [addr, addr + size) is a new object */
	PD_ALLOC_FREE = 2,      /* the object at addr ends */
	PD_ALLOC_FRAMES = 3,    /* callers of the last ALLOC of the same tid, above its site
				 * (record -g): fn of them (1..4) in time, addr, size, site,
				 * innermost first; more follow in the next FRAMES event */
};

enum pd_alloc_fn {
	PD_ALLOC_FN_MALLOC, PD_ALLOC_FN_CALLOC, PD_ALLOC_FN_REALLOC, PD_ALLOC_FN_REALLOCARRAY,
	PD_ALLOC_FN_ALIGNED_ALLOC, PD_ALLOC_FN_MEMALIGN, PD_ALLOC_FN_POSIX_MEMALIGN, PD_ALLOC_FN_VALLOC,
	PD_ALLOC_FN_PVALLOC, PD_ALLOC_FN_NEW, PD_ALLOC_FN_NEW_ARRAY, PD_ALLOC_FN_FREE, PD_ALLOC_FN_DELETE,
	PD_ALLOC_FN_DELETE_ARRAY,
	PD_ALLOC_FN__NR,
	PD_ALLOC_FN_USER = 64,  /* + i: the i-th --alloc-fn / --free-fn */
};

struct pd_alloc_event {
	uint64_t time;
	uint64_t addr;
	uint64_t size;          /* bytes asked for; 0 for a free */
	uint64_t site;          /* return address into the caller of the allocator */
	uint32_t pid, tid;
	uint16_t kind;          /* enum pd_alloc_kind */
	uint16_t fn;            /* enum pd_alloc_fn */
	uint32_t reserved;      /* 0 in a file; report keeps the allocation's stack id here */
};

#define PD_ALLOC_FRAMES_MAX 4        /* frames a PD_ALLOC_FRAMES event holds */

/* A PD_ALLOC_FRAMES event of the next (at most 4) of the n frames at f, for
 * pid/tid: the shim, report (allocator probes) and mkperf write them so;
 * returns how many it took. */
static inline uint16_t pd_alloc__frames(struct pd_alloc_event *e, const uint64_t *f, size_t n, uint32_t pid,
					uint32_t tid)
{
	uint64_t w[PD_ALLOC_FRAMES_MAX] = { 0 };
	uint16_t k = (uint16_t)(n < PD_ALLOC_FRAMES_MAX ? n : PD_ALLOC_FRAMES_MAX);

	for (uint16_t i = 0; i < k; i++)
		w[i] = f[i];
	*e = (struct pd_alloc_event){ .time = w[0], .addr = w[1], .size = w[2], .site = w[3], .pid = pid,
		.tid = tid, .kind = PD_ALLOC_FRAMES, .fn = k };
	return k;
}

/* Frame k (0..3) of a PD_ALLOC_FRAMES event. */
static inline uint64_t pd_alloc__frame(const struct pd_alloc_event *e, unsigned int k)
{
	return k == 0 ? e->time : k == 1 ? e->addr : k == 2 ? e->size : e->site;
}

/* header.misc bits we need that older uapi headers may lack */
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC (1 << 13)
#endif
#ifndef PERF_RECORD_MISC_MMAP_DATA
#define PERF_RECORD_MISC_MMAP_DATA (1 << 13)
#endif

/* One attr of the file, decoded. */
struct pd_attr {
	struct perf_event_attr attr; /* what we understood; larger attrs truncated */
	uint32_t file_attr_size;     /* size the file used for it */
	char *name;                  /* EVENT_DESC name, or synthesized ("cpu/0x1cd/") */
	uint64_t *ids;               /* owned */
	size_t nr_ids;
	/* derived from attr.sample_type for the trailer of non-sample records */
	uint32_t sample_id_size;     /* bytes of the sample_id_all trailer, 0 if none */
};

/* Trailer of non-sample records (sample_id_all) and common fields. */
struct pd_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

struct pd_sample {
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t weight;        /* WEIGHT, or WEIGHT_STRUCT var1 (latency) */
	uint16_t ins_lat;       /* WEIGHT_STRUCT var2 */
	uint16_t weight3;       /* WEIGHT_STRUCT var3 (retire latency) */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t callchain_nr;
	const uint64_t *callchain; /* into the record buffer; may be unaligned-safe copy */
	uint32_t raw_size;
	const void *raw;
	uint64_t aux_size;
	uint64_t regs_abi;      /* REGS_USER: PERF_SAMPLE_REGS_ABI_*, 0 none */
	uint64_t regs_mask;     /* the attr's sample_regs_user (0 when regs_abi is 0) */
	uint32_t nr_regs;       /* popcount(regs_mask) values at regs, in the mask's bit order */
	const uint64_t *regs;   /* into the record buffer, or an aligned copy (pd_sample__reg) */
	uint64_t stack_size;    /* STACK_USER: bytes copied from the user stack pointer up */
	uint64_t stack_dyn_size; /* how many of them the kernel filled (<= stack_size) */
	const uint8_t *stack;   /* into the record buffer; unaligned (read with memcpy) */
};
#define PD_SAMPLE_REGS 64

/* The fields of a sample that a report keys and counts, as struct
 * pd_event and its pd_sample hold them (pd_reader__next_fixed yields
 * these alone for samples whose fields all have a fixed size). */
struct pd_sample_core {
	uint64_t seq;           /* pd_event.seq */
	uint64_t ip, addr, time, period, weight, data_src;
	uint32_t pid, tid, cpu;
	int attr_idx;
	uint8_t cpumode;
};

/* Register number bit (perf's PERF_REG_* of the recording's arch) of a
 * REGS_USER sample; false when the mask does not hold it. */
static inline bool pd_sample__reg(const struct pd_sample *s, unsigned int bit, uint64_t *v)
{
	uint64_t below;

	if (bit >= 64 || !s->regs_abi || !(s->regs_mask >> bit & 1))
		return false;
	below = bit ? s->regs_mask & ((1ULL << bit) - 1) : 0;
	*v = s->regs[__builtin_popcountll(below)];
	return true;
}

struct pd_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	bool v2;                /* MMAP2 */
	bool build_id_form;     /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	bool data;              /* PERF_RECORD_MISC_MMAP_DATA: non-exec mapping */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t prot, flags;   /* PROT_*, MAP_* (v2 only) */
	const char *filename;   /* NUL-terminated (the reader guarantees it) */
};

struct pd_comm {
	uint32_t pid, tid;
	bool exec;              /* PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;
};

struct pd_fork {                /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct pd_lost {                /* LOST (id, lost) and LOST_SAMPLES (lost) */
	uint64_t id;
	uint64_t lost;
};

struct pd_throttle {
	uint64_t time, id, stream_id;
};

enum pd_kind {
	PD_SAMPLE,
	PD_MMAP,                /* MMAP and MMAP2 */
	PD_COMM,
	PD_FORK,
	PD_EXIT,
	PD_LOST,
	PD_LOST_SAMPLES,
	PD_THROTTLE,
	PD_UNTHROTTLE,
	PD_FINISHED_ROUND,
	PD_FINISHED_INIT,
	PD_OTHER,               /* any other type: skipped by size, counted */
};

struct pd_event {
	enum pd_kind kind;
	uint32_t type;          /* raw header.type */
	uint16_t misc;          /* raw header.misc */
	uint8_t cpumode;        /* misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint32_t size;          /* header.size */
	uint64_t offset;        /* file offset of the record; for a record that came
				 * out of a COMPRESSED/COMPRESSED2 record, the file
				 * offset of that compressed record */
	uint64_t seq;           /* ordinal of the record in the stream, from 0 */
	int attr_idx;           /* index of the attr it belongs to, -1 unknown */
	bool has_sid;           /* sid below is valid (samples: always) */
	struct pd_sample_id sid;
	union {
		struct pd_sample sample;
		struct pd_mmap mmap;
		struct pd_comm comm;
		struct pd_fork fork;
		struct pd_lost lost;
		struct pd_throttle throttle;
	} u;
};

static inline void pd_sample_core__of(struct pd_sample_core *c, const struct pd_event *ev)
{
	const struct pd_sample *s = &ev->u.sample;

	*c = (struct pd_sample_core){ .seq = ev->seq, .ip = s->ip, .addr = s->addr, .time = s->time,
				      .period = s->period, .weight = s->weight, .data_src = s->data_src,
				      .pid = s->pid, .tid = s->tid, .cpu = s->cpu, .attr_idx = ev->attr_idx,
				      .cpumode = ev->cpumode };
}

/* Recording description gathered from features (file mode: header; pipe
 * mode: HEADER_FEATURE records, so complete only after the first pass). */
/* One entry of the BUILD_ID feature (or a pipe-mode HEADER_BUILD_ID record). */
struct pd_build_id {
	uint32_t pid;                   /* (u32)-1 for the kernel and its modules */
	uint8_t size;                   /* 20 when the file did not say */
	uint8_t id[20];
	char *name;                     /* owned */
};

struct pd_alloc;

/* PERF_RECORD_TIME_CONV: the recording's clock from a hardware counter */
struct pd_time_conv {
	bool present;
	uint64_t shift, mult, zero, cycles, mask;
	bool cap_zero, cap_short;
};

/* PERF_RECORD_AUXTRACE_INFO's type for Arm SPE (perf's enum auxtrace_type) */
#define PD_AUXTRACE_ARM_SPE 4

/* PERF_RECORD_AUXTRACE_INFO: what the AUX traces of the file are */
struct pd_auxtrace_info {
	uint32_t type;                  /* 0 none; PD_AUXTRACE_ARM_SPE (perfdata/spe.h) */
	uint32_t pmu_type;              /* the tracing event's attr.type */
	bool per_cpu;                   /* one AUX buffer per CPU (else per thread) */
	uint64_t midr;                  /* the cores' MIDR (v2 info: the first CPU's; else CPUID), 0 unknown */
	uint32_t version;               /* 1: perf < 6.10's two words; 2: the per-CPU metadata */
};

struct pd_info {
	char *hostname, *osrelease, *arch, *cpudesc, *cpuid, *version;
	char **cmdline;
	uint32_t nr_cmdline;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint32_t cacheline_size;        /* 0 = unknown (no CACHE feature) */
	int32_t *cpu_node;              /* [nr_cpu_node] cpu -> numa node, -1 unknown */
	uint32_t nr_cpu_node;
	uint32_t nr_nodes;
	int32_t *cpu_core, *cpu_socket; /* [nr_cpus_avail] or NULL */
	uint64_t total_mem_kb;
	bool pipe;                      /* the input was in pipe format */
	uint64_t header_size, data_offset, data_size;
	uint64_t feat_bits[4];          /* features present */
	struct pd_build_id *build_ids;  /* objects the recorder knew the build-id of */
	uint32_t nr_build_ids;
	struct pd_alloc *alloc;         /* C2CSCAN_ALLOC (perfdata/alloc.h), or NULL */
	char alloc_error[128];          /* why a C2CSCAN_ALLOC section was refused, or "" */
	struct pd_auxtrace_info auxtrace;
	struct pd_time_conv time_conv;
};


/*
 * Emulated memory samples (record --emulate): what the coherence model of
 * libc2cscan-emu.so (record/emu/emu.c) writes in chunks of PD_EMU_CHUNK
 * bytes, a 48-byte struct pd_emu_sample each, little-endian, followed by
 * its nr_frames call-chain entries (uint64_t return addresses, the
 * caller's first: the shadow stack of __tsan_func_entry; with record -g
 * only), then code_before + code_after bytes of the program's code around
 * the hook's return address (the first sample of that address a thread
 * writes; none in the others), then zeros to a multiple of 8 bytes.
 * record finds the access's instruction in that code (record/emuip.c) and
 * turns the samples into PERF_RECORD_SAMPLEs of one attr with perf's
 * data_src encoding of the class.
 */
/* The event record gives the emulated samples (report knows them by it). */
#define PD_EMU_EVENT_NAME "c2cscan-emulated/mem-loads-stores/"
/* Its attr's config1: the model, PD_EMU_MODEL_EXACT (--emulate=exact) or
 * the default's window in accesses (record/emu/pace.c); 0 in files from
 * before the lockstep. config2: the times a thread was dropped from the
 * lockstep, blocked where the runtime could not see. */
#define PD_EMU_MODEL_EXACT 1
#define PD_EMU_WIN_BITS 14              /* a window: 16384 accesses of a thread */

/* The head of the model's file, which every process of an emulated
 * recording maps (record/emu/emu.c) and record reads after the run. A
 * thread takes the lowest core no live thread holds; when all
 * PD_EMU_CORES are, cores are shared round-robin and counted. */
#define PD_EMU_CORES 56
struct pd_emu_model_head {
	uint64_t cores_busy;    /* bit i: core i is a live thread's */
	uint32_t next_core;     /* the round-robin's next */
	uint32_t cores_shared;  /* threads that got a core another live thread had */
	char allocator[48];     /* the heap's allocator, as its file's name ("libc.so.6"); "" libtsan's */
	uint64_t stalls;        /* threads dropped from the lockstep, blocked where the runtime cannot see */
	uint64_t unmodelled;    /* accesses to lines the line table had no room for (L1 hits) */
	uint64_t evicted;       /* lines evicted from the table for room (untouched for PD_EMU_EVICT_AGE windows) */
};

#define PD_EMU_MAX_FRAMES 127
#define PD_EMU_EVICT_AGE 64     /* windows a line went untouched before the table may evict it */
/* The runtime writes its file a chunk at a time per thread; a chunk's
 * samples end where it ends or where its bytes are zero. */
#define PD_EMU_CHUNK (256 * 1024)

/* The model's classes, one table: name, latency in cycles (the samples'
 * weights, emu.c), and the label the report's notice gives it (NULL: the
 * same latency as another, not repeated). The man page's copy of the
 * latencies is checked against the notice (tests/cli/docs.sh). */
#define PD_EMU_CLASSES(X)                                                                  \
	X(PD_EMU_L1, 4, "L1")                 /* a load of a line this core holds */        \
	X(PD_EMU_LLC, 40, "LLC")              /* a load of a line another core read */      \
	X(PD_EMU_HITM, 120, "HITM")           /* a load of a line another core modified */  \
	X(PD_EMU_ST_L1, 4, NULL)              /* a store to a line only this core holds */  \
	X(PD_EMU_ST_MISS, 60, "store miss")   /* a store that invalidates others' copies */ \
	X(PD_EMU_ST_HITM, 140, "store HITM")  /* a store taking another core's modified copy */

enum pd_emu_class {
#define PD_EMU_CLASS_ENUM(name, cycles, label) name,
	PD_EMU_CLASSES(PD_EMU_CLASS_ENUM)
#undef PD_EMU_CLASS_ENUM
	PD_EMU__NR,
};

/* The model's latency of a class, in cycles. */
static inline uint32_t pd_emu_latency(enum pd_emu_class cls)
{
	static const uint32_t cycles[PD_EMU__NR] = {
#define PD_EMU_CLASS_CYCLES(name, c, label) [name] = c,
		PD_EMU_CLASSES(PD_EMU_CLASS_CYCLES)
#undef PD_EMU_CLASS_CYCLES
	};

	return cls < PD_EMU__NR ? cycles[cls] : 0;
}

/* Its label in the report's notice, NULL when not given one. */
static inline const char *pd_emu_label(enum pd_emu_class cls)
{
	static const char *const labels[PD_EMU__NR] = {
#define PD_EMU_CLASS_LABEL(name, c, label) [name] = label,
		PD_EMU_CLASSES(PD_EMU_CLASS_LABEL)
#undef PD_EMU_CLASS_LABEL
	};

	return cls < PD_EMU__NR ? labels[cls] : NULL;
}

struct pd_emu_sample {
	uint64_t time;          /* CLOCK_MONOTONIC ns, the recording's clock */
	uint64_t ret;           /* the hook's return address */
	uint64_t addr;
	uint32_t pid, tid;
	uint16_t cpu;           /* the model's core: the thread's index */
	uint8_t cls;            /* enum pd_emu_class */
	uint8_t locked;         /* an atomic operation (PD_EMU_LOCKED), its chain cut (PD_EMU_CUT) */
	uint16_t nr_frames;     /* call-chain entries after it, at most PD_EMU_MAX_FRAMES */
	uint8_t size;           /* bytes of the plain load or store after the call; 0: the call is the access */
	uint8_t store;          /* that access stores */
	uint8_t code_before;    /* code bytes before ret that follow the frames, at most PD_EMU_CODE_BEFORE */
	uint8_t code_after;     /* and from ret on, at most PD_EMU_CODE_AFTER */
	uint16_t weight;        /* the class's latency, cycles */
	uint32_t period;        /* accesses of its kind this sample stands for */
};

#define PD_EMU_LOCKED 1
#define PD_EMU_CUT 2            /* the thread had more callers than the chain's frames */

/* size: ret is the access's own address (a hook told it), not a return */
#define PD_EMU_AT_RET 0xff
#define PD_EMU_CODE_BEFORE 8
#define PD_EMU_CODE_AFTER 48

/* A sample's bytes in the file: it, its frames, its code, the padding. */
static inline size_t pd_emu_sample_len(const struct pd_emu_sample *e)
{
	size_t n = sizeof(*e) + e->nr_frames * sizeof(uint64_t) + e->code_before + e->code_after;

	return (n + 7) & ~(size_t)7;
}

#endif
