/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data writer (file mode, PERFILE2): used by `c2cscan record` and by the
 * fixture generator tests/tools/mkperf. Records are appended as they come;
 * attrs, ids and features are written by pd_writer__finish(), which also
 * rewrites the header, so a file is readable only after finish (as perf's).
 *
 * Functions return 0 or a negative errno. The writer never prints.
 */
#ifndef C2CSCAN_WRITER_H
#define C2CSCAN_WRITER_H

#include <sys/types.h>
#include "perfdata/perf_data.h"

struct pd_writer;

int pd_writer__open(struct pd_writer **wp, const char *path);
/* Abandon: closes without finishing (the file stays as far as written). */
void pd_writer__delete(struct pd_writer *w);

/* Attr order = attr index; name goes to EVENT_DESC. Copies everything. */
int pd_writer__add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
			const char *name, const uint64_t *ids, size_t nr_ids);

/* Append one complete record (header.size == size, size % 8 == 0). */
int pd_writer__write(struct pd_writer *w, const void *rec, size_t size);
uint64_t pd_writer__data_size(const struct pd_writer *w);

/* Features; strings are copied. Unset ones are not written. */
int pd_writer__set_string(struct pd_writer *w, int feat, const char *s); /* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID */
int pd_writer__set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online);
int pd_writer__set_cmdline(struct pd_writer *w, int argc, const char *const *argv);
int pd_writer__set_cacheline(struct pd_writer *w, uint32_t line_size); /* CACHE: one L1d entry */
/* NUMA_TOPOLOGY: cpu_node[cpu] = node, -1 none; CPU_TOPOLOGY from core/socket ids (may be NULL). */
int pd_writer__set_topology(struct pd_writer *w, uint32_t nr_cpus, const int32_t *cpu_node,
			    const int32_t *cpu_core, const int32_t *cpu_socket);
int pd_writer__set_total_mem(struct pd_writer *w, uint64_t kb);
/* One more id for the attr added idx-th (an event opened later, on a new
 * thread); the attrs section is then written again at the end. */
int pd_writer__add_attr_id(struct pd_writer *w, size_t idx, uint64_t id);
/* The C2CSCAN_ALLOC feature's payload (perf_data.h); takes ownership. */
int pd_writer__set_alloc(struct pd_writer *w, uint8_t *payload, size_t len);
/* BUILD_ID: one object's build-id (size <= 20); misc is its cpumode
 * (PERF_RECORD_MISC_USER or _KERNEL), pid -1 as perf writes on the host. */
int pd_writer__add_build_id(struct pd_writer *w, uint16_t misc, int32_t pid, const uint8_t *id,
			    size_t size, const char *name);

/* Writes buffered records to the file now (record: so that a full disk is
 * noticed while there is still room held back for the features). */
int pd_writer__flush(struct pd_writer *w);

/* Writes attrs, ids, features, header; fsyncs nothing. */
int pd_writer__finish(struct pd_writer *w);

/*
 * Record formatters: fill buf (size bufsz) with a complete record and return
 * its size, or a negative errno (-ENOSPC when bufsz is too small). The
 * sample_id_all trailer is written from sid per attr->sample_type when
 * attr->sample_id_all is set.
 */
ssize_t pd_fmt_sample(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		      uint16_t misc, const struct pd_sample *s);
ssize_t pd_fmt_mmap(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    uint16_t misc, const struct pd_mmap *m, const struct pd_sample_id *sid);
ssize_t pd_fmt_comm(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    const struct pd_comm *c, const struct pd_sample_id *sid);
/* type = PERF_RECORD_FORK or PERF_RECORD_EXIT */
ssize_t pd_fmt_fork(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint32_t type,
		    const struct pd_fork *f, const struct pd_sample_id *sid);
ssize_t pd_fmt_lost(void *buf, size_t bufsz, const struct perf_event_attr *attr,
		    const struct pd_lost *l, const struct pd_sample_id *sid);
ssize_t pd_fmt_finished_round(void *buf, size_t bufsz);

/* Added by the writer module (additive). */

/* type = PERF_RECORD_THROTTLE or PERF_RECORD_UNTHROTTLE */
ssize_t pd_fmt_throttle(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint32_t type,
			const struct pd_throttle *t, const struct pd_sample_id *sid);
/* PERF_RECORD_LOST_SAMPLES (only l->lost is used) */
ssize_t pd_fmt_lost_samples(void *buf, size_t bufsz, const struct perf_event_attr *attr,
			    const struct pd_lost *l, const struct pd_sample_id *sid);
/* PERF_RECORD_AUX: the kernel's note of what it wrote into the AUX area
 * (offset, size) and what it lost (flags: PERF_AUX_FLAG_*). */
ssize_t pd_fmt_aux(void *buf, size_t bufsz, const struct perf_event_attr *attr, uint64_t offset, uint64_t size,
		   uint64_t flags, const struct pd_sample_id *sid);
/* PERF_RECORD_AUXTRACE's header; its size bytes of trace follow it in
 * the stream (not counted in the header's size). */
ssize_t pd_fmt_auxtrace(void *buf, size_t bufsz, uint64_t size, uint64_t offset, uint32_t idx, uint32_t tid,
			uint32_t cpu);
/* PERF_RECORD_AUXTRACE_INFO for Arm SPE as perf before 6.10 writes it
 * (the SPE PMU's type, per-CPU buffers), which every perf reads. */
ssize_t pd_fmt_auxtrace_info_spe(void *buf, size_t bufsz, uint32_t pmu_type, bool per_cpu);
/* PERF_RECORD_TIME_CONV */
ssize_t pd_fmt_time_conv(void *buf, size_t bufsz, const struct pd_time_conv *tc);
/* Bytes of the sample_id_all trailer attr adds to non-sample records (0 if none). */
size_t pd_sample_id_size(const struct perf_event_attr *attr);

/*
 * Append bytes as given, without checking that they form records: only for
 * fixture tools that must write malformed input. The data size grows by size.
 */
int pd_writer__write_unchecked(struct pd_writer *w, const void *buf, size_t size);

#endif
