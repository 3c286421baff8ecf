// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan record -- COMMAND: sample a command and its children into
 * perf.data. One event per CPU follows the command (inherit, enabled at
 * exec), each with its own ring buffer drained with poll(); the kernel's
 * MMAP2 (inode form, with prot/flags), COMM and FORK/EXIT records come with
 * the samples. FINISHED_ROUND after each pass over the buffers.
 *
 * Events: page-faults, minor-faults, major-faults (software: the data
 * address is the faulting address; works everywhere, also in VMs) and, on a
 * machine with a memory PMU, the AMD IBS op PMU (ibs_op). Intel mem-loads /
 * mem-stores, -p/-a and map synthesis are not implemented yet (issue 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "builtin.h"
#include "util.h"
#include "writer.h"

static const char record_usage[] =
	"usage: c2cscan record [options] [--] command [args]\n"
	"\n"
	"  -e, --event EVENT   page-faults (default here: no memory PMU), minor-faults,\n"
	"                      major-faults, ibs_op (AMD)\n"
	"  -o, --output FILE   output file (default perf.data; an old one becomes perf.data.old)\n"
	"  -c, --count N       sample every N events (default 1 for faults)\n"
	"  -m, --mmap-pages N  ring buffer pages per CPU, a power of two (default 128)\n"
	"      --duration SECS stop after SECS seconds (the command gets SIGTERM)\n"
	"  -q, --quiet         no summary\n"
	"  -h, --help          this text\n";

struct rec_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool memory;            /* has a data source */
};

struct rec_buf {
	int fd;
	void *base;
	size_t size;            /* data area bytes */
};

struct recorder {
	struct pd_writer *w;
	struct rec_buf *bufs;
	int nr_bufs;
	size_t page;
	uint64_t lost, samples;
	uint8_t *tmp;           /* a record that wraps the ring end */
	int werr;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

static int sysfs_pmu_type(const char *pmu)
{
	char path[256];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

static int parse_event(const char *name, struct rec_event *ev)
{
	static const struct { const char *name; uint64_t config; } sw[] = {
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	};
	int type;

	for (size_t i = 0; i < ARRAY_SIZE(sw); i++) {
		if (!strcmp(name, sw[i].name)) {
			*ev = (struct rec_event){ sw[i].name, PERF_TYPE_SOFTWARE, sw[i].config, false };
			return 0;
		}
	}
	if (!strcmp(name, "ibs_op")) {
		type = sysfs_pmu_type("ibs_op");
		if (type < 0)
			return -ENODEV;
		*ev = (struct rec_event){ "ibs_op//", (uint32_t)type, 0, true };
		return 0;
	}
	return -EINVAL;
}

/* One sentence for an errno from perf_event_open, in one place. */
static const char *record__strerror(int err, char *buf, size_t size)
{
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, size, "permission denied: lower /proc/sys/kernel/perf_event_paranoid or grant CAP_PERFMON");
		break;
	case ENOENT:
	case ENODEV:
		snprintf(buf, size, "this machine has no such event (see 'c2cscan check')");
		break;
	case EOPNOTSUPP:
		snprintf(buf, size, "the PMU does not support sampling this way (see 'c2cscan check')");
		break;
	default:
		snprintf(buf, size, "%s", strerror(err));
	}
	return buf;
}

static void set_features(struct pd_writer *w, int argc, char **argv)
{
	struct utsname u;
	char host[256];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), online = sysconf(_SC_NPROCESSORS_ONLN);
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int32_t *node = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*node));

	if (!uname(&u)) {
		pd_writer__set_string(w, PD_FEAT_OSRELEASE, u.release);
		pd_writer__set_string(w, PD_FEAT_ARCH, u.machine);
	}
	if (!gethostname(host, sizeof(host)))
		pd_writer__set_string(w, PD_FEAT_HOSTNAME, host);
	pd_writer__set_string(w, PD_FEAT_VERSION, "c2cscan " C2CSCAN_VERSION);
	pd_writer__set_nrcpus(w, ncpu, online);
	pd_writer__set_cmdline(w, argc, (const char *const *)argv);
	pd_writer__set_cacheline(w, line > 0 ? line : 64);
	/* cpu -> node from sysfs; one node when there is no NUMA information */
	for (long c = 0; c < ncpu; c++) {
		char path[128];

		node[c] = 0;
		for (int n = 0; n < 1024; n++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/node%d", c, n);
			if (!access(path, F_OK)) {
				node[c] = n;
				break;
			}
		}
	}
	pd_writer__set_topology(w, ncpu, node, NULL, NULL);
	free(node);
}

/* Copies every complete record out of one ring buffer into the file. */
static void drain(struct recorder *rc, struct rec_buf *b)
{
	struct perf_event_mmap_page *meta = b->base;
	uint8_t *data = (uint8_t *)b->base + rc->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % b->size;
		const uint8_t *rec;

		if (off + sizeof(h) <= b->size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = b->size - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= b->size) {
			rec = data + off;
		} else {
			size_t first = b->size - off;

			memcpy(rc->tmp, data + off, first);
			memcpy(rc->tmp + first, data, h.size - first);
			rec = rc->tmp;
		}
		if (h.type == PERF_RECORD_SAMPLE)
			rc->samples++;
		else if (h.type == PERF_RECORD_LOST)
			rc->lost += ((const uint64_t *)rec)[2];
		if (!rc->werr)
			rc->werr = pd_writer__write(rc->w, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct recorder *rc)
{
	char buf[16];
	ssize_t n;

	for (int i = 0; i < rc->nr_bufs; i++)
		drain(rc, &rc->bufs[i]);
	n = pd_fmt_finished_round(buf, sizeof(buf));
	if (n > 0 && !rc->werr)
		rc->werr = pd_writer__write(rc->w, buf, n);
}

static int open_events(struct recorder *rc, const struct rec_event *ev, struct perf_event_attr *attr,
		       pid_t child, size_t pages, char *why, size_t whysize)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t *ids = xcalloc(ncpu, sizeof(*ids));
	int ret = 0;

	rc->bufs = xcalloc(ncpu, sizeof(*rc->bufs));
	for (long c = 0; c < ncpu; c++) {
		struct rec_buf *b = &rc->bufs[rc->nr_bufs];
		int fd = syscall(SYS_perf_event_open, attr, child, c, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;       /* an offline CPU */
			ret = -errno;
			record__strerror(errno, why, whysize);
			goto out;
		}
		b->fd = fd;
		b->size = pages * rc->page;
		b->base = mmap(NULL, b->size + rc->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (b->base == MAP_FAILED) {
			ret = -errno;
			snprintf(why, whysize, "cannot map the ring buffer (%zu pages): %s; try a smaller -m",
				 pages, strerror(errno));
			close(fd);
			goto out;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &ids[rc->nr_bufs]) < 0)
			ids[rc->nr_bufs] = 0;
		rc->nr_bufs++;
	}
	if (!rc->nr_bufs) {
		ret = -ENODEV;
		snprintf(why, whysize, "no CPU accepted the event");
		goto out;
	}
	ret = pd_writer__add_attr(rc->w, attr, ev->name, ids, rc->nr_bufs);
out:
	free(ids);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "duration", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *event = NULL, *out = "perf.data";
	unsigned long period = 1, pages = 128;
	double duration = 0;
	struct timespec t0;
	struct recorder rc = { .page = sysconf(_SC_PAGESIZE) };
	struct perf_event_attr attr;
	struct rec_event ev;
	bool quiet = false;
	int go[2], fail[2], c, status = 0, ret, child_err = 0;
	char why[256], old[4096];
	pid_t child;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:c:m:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			event = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			period = strtoul(optarg, NULL, 0);
			if (!period) {
				fprintf(stderr, "c2cscan record: bad count '%s'\n\n%s", optarg, record_usage);
				return 129;
			}
			break;
		case 'm':
			pages = strtoul(optarg, NULL, 0);
			if (!pages || pages & (pages - 1) || pages > (1ul << 20)) {
				fprintf(stderr, "c2cscan record: -m needs a power of two, got '%s'\n\n%s", optarg,
					record_usage);
				return 129;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'D': {
			char *end;

			duration = strtod(optarg, &end);
			if (*end || !(duration > 0)) {
				fprintf(stderr, "c2cscan record: bad duration '%s'\n\n%s", optarg, record_usage);
				return 129;
			}
			break;
		}
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		default:
			fprintf(stderr, "c2cscan record: unknown option or missing value '%s'\n\n%s",
				argv[optind - 1], record_usage);
			return 129;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "c2cscan record: no command to run (-p and -a are not implemented yet)\n\n%s",
			record_usage);
		return 129;
	}
	if (!event) {
		if (sysfs_pmu_type("ibs_op") >= 0) {
			event = "ibs_op";
		} else {
			fprintf(stderr, "c2cscan record: this machine cannot sample memory accesses "
					"(see 'c2cscan check'); use -e page-faults for first-touch addresses\n");
			return 1;
		}
	}
	ret = parse_event(event, &ev);
	if (ret < 0) {
		fprintf(stderr, "c2cscan record: event '%s': %s\n", event,
			ret == -ENODEV ? "this machine has no such PMU (see 'c2cscan check')" :
			"unknown (page-faults, minor-faults, major-faults, ibs_op)");
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev.type;
	attr.config = ev.config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (ev.memory)
		attr.sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.mmap = attr.mmap2 = attr.mmap_data = attr.comm = attr.comm_exec = attr.task = 1;
	attr.sample_id_all = 1;
	attr.wakeup_events = 1;

	/* perf's convention: keep the previous recording as FILE.old */
	snprintf(old, sizeof(old), "%s.old", out);
	if (!access(out, F_OK))
		rename(out, old);
	ret = pd_writer__open(&rc.w, out);
	if (ret < 0) {
		fprintf(stderr, "c2cscan record: %s: %s\n", out, strerror(-ret));
		return 1;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(fail, O_CLOEXEC) < 0) {
		fprintf(stderr, "c2cscan record: pipe: %s\n", strerror(errno));
		pd_writer__delete(rc.w);
		return 1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "c2cscan record: fork: %s\n", strerror(errno));
		pd_writer__delete(rc.w);
		return 1;
	}
	if (!child) {
		char x;
		int e;

		/* wait until the events are open, then exec (enabling them) */
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		e = errno;
		if (write(fail[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(fail[1]);
	rc.tmp = xmalloc(1 << 16);
	ret = open_events(&rc, &ev, &attr, child, pages, why, sizeof(why));
	if (ret < 0) {
		fprintf(stderr, "c2cscan record: cannot open %s: %s\n", ev.name, why);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		pd_writer__delete(rc.w);
		unlink(out);
		return 1;
	}
	set_features(rc.w, argc - optind, argv + optind);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (write(go[1], "x", 1) != 1)
		child_err = EPIPE;
	close(go[1]);
	if (read(fail[0], &child_err, sizeof(child_err)) != sizeof(child_err))
		child_err = 0;
	close(fail[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (;;) {
		struct pollfd *pfd = xcalloc(rc.nr_bufs, sizeof(*pfd));
		pid_t w;

		for (int i = 0; i < rc.nr_bufs; i++)
			pfd[i] = (struct pollfd){ .fd = rc.bufs[i].fd, .events = POLLIN };
		poll(pfd, rc.nr_bufs, 100);
		free(pfd);
		drain_all(&rc);
		if (duration > 0 && !stop_requested) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >= duration)
				stop_requested = SIGTERM;
		}
		/* SIGTERM, not the signal we got: a command started in the
		 * background of a script ignores SIGINT */
		if (stop_requested)
			kill(child, SIGTERM);
		w = waitpid(child, &status, WNOHANG);
		if (w == child || (w < 0 && errno == ECHILD))
			break;
		if (rc.werr)
			break;
	}
	drain_all(&rc);
	for (int i = 0; i < rc.nr_bufs; i++) {
		munmap(rc.bufs[i].base, rc.bufs[i].size + rc.page);
		close(rc.bufs[i].fd);
	}
	ret = rc.werr ? rc.werr : pd_writer__finish(rc.w);
	pd_writer__delete(rc.w);
	free(rc.bufs);
	free(rc.tmp);
	if (child_err) {
		fprintf(stderr, "c2cscan record: cannot run '%s': %s\n", argv[optind], strerror(child_err));
		unlink(out);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "c2cscan record: %s: %s (the file holds the records written before)\n", out,
			strerror(-ret));
		return 1;
	}
	if (!quiet) {
		fprintf(stderr, "c2cscan record: %llu samples of %s written to %s\n", (unsigned long long)rc.samples,
			ev.name, out);
		if (rc.lost)
			fprintf(stderr, "c2cscan record: lost %llu samples: raise -m or sample less often (-c)\n",
				(unsigned long long)rc.lost);
	}
	/* stopped by the user or --duration: the recording is what was asked */
	if (stop_requested)
		return 0;
	return WIFEXITED(status) ? 0 : 1;
}
