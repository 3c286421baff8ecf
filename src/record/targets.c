// SPDX-License-Identifier: GPL-2.0
/*
 * record: the targets. -C narrows the CPUs; -p and -t name threads (their
 * processes watched until they are gone); a launched command is forked
 * first and waits on a pipe, so that its events are opened on its pid
 * before it execs (they enable at exec); with -p/-t/-a a command only
 * says how long. SIGINT and SIGTERM stop the recording; they are taken
 * only inside ppoll (ring.c), so an exit is never missed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record/record_int.h"
#include "util/util.h"

volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

/* Only there to interrupt ppoll() when the command exits. */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* Handlers for SIGINT/SIGTERM/SIGCHLD, delivered only inside ppoll() (the
 * mask blocks them elsewhere), so an exit is never missed between the check
 * and the wait. */
void recorder__catch_signals(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, orig);
}

void recorder__release_signals(const sigset_t *orig)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
}

/* Threads of a process from /proc/PID/task. */
static int list_threads(pid_t pid, pid_t **tids, int *nr)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name)
			continue;
		*tids = xrealloc(*tids, *nr + 1, sizeof(**tids));
		(*tids)[(*nr)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

bool recorder__procs_alive(const struct recorder *rc)
{
	for (int i = 0; i < rc->nr_procs; i++)
		if (!kill(rc->procs[i], 0) || errno != ESRCH)
			return true;
	return false;
}

/* CPUs (-C narrows) and the threads of -p and -t. */
int recorder__find_targets(struct recorder *rc)
{
	rc->cpuset = xcalloc(PMU_MAX_CPUS, sizeof(*rc->cpuset));
	pmu__cpus(NULL, rc->cpuset, &rc->nr_cpus);
	if (rc->o.cpus) {
		memset(rc->cpuset, 0, PMU_MAX_CPUS * sizeof(*rc->cpuset));
		if (pmu__parse_cpulist(rc->o.cpus, rc->cpuset, rc->nr_cpus)) {
			say(rc, (struct record_msg){ .kind = RM_BAD_CPU_LIST, .s = { rc->o.cpus },
						     .n = { (uint64_t)rc->nr_cpus - 1 } });
			return 1;
		}
	}
	for (int i = 0; i < rc->o.nr_pids; i++) {
		if (list_threads(rc->o.pids[i], &rc->tasks, &rc->nr_tasks)) {
			say(rc, (struct record_msg){ .kind = RM_NO_PROCESS, .n = { (uint64_t)rc->o.pids[i] } });
			return 1;
		}
		rc->procs = xrealloc(rc->procs, rc->nr_procs + 1, sizeof(*rc->procs));
		rc->procs[rc->nr_procs++] = rc->o.pids[i];
	}
	rc->tid_start = rc->nr_tasks;
	for (int i = 0; i < rc->o.nr_tids; i++) {
		if (synth__tgid(rc->o.tids[i]) <= 0) {
			say(rc, (struct record_msg){ .kind = RM_NO_THREAD, .n = { (uint64_t)rc->o.tids[i] } });
			return 1;
		}
		rc->tasks = xrealloc(rc->tasks, rc->nr_tasks + 1, sizeof(*rc->tasks));
		rc->tasks[rc->nr_tasks++] = rc->o.tids[i];
		rc->procs = xrealloc(rc->procs, rc->nr_procs + 1, sizeof(*rc->procs));
		rc->procs[rc->nr_procs++] = rc->o.tids[i];
	}
	return 0;
}

/* The executable a launched command will run: cmd[0], or found in PATH. */
int recorder__command_path(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(out, size, "%s", cmd);
		return access(out, X_OK) ? -errno : 0;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(out, size, "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (!access(out, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}

/* The launched command: forked now, it waits on the go pipe so that the
 * events can be opened on its pid first, and execs when told (the events
 * enable at exec). */
int recorder__fork_command(struct recorder *rc)
{
	if (pipe2(rc->go, O_CLOEXEC) < 0 || pipe2(rc->fail, O_CLOEXEC) < 0) {
		say(rc, (struct record_msg){ .kind = RM_SYSCALL, .err = -errno, .s = { "pipe" } });
		return 1;
	}
	rc->record_pid = getpid();
	rc->child = fork();
	if (rc->child < 0) {
		say(rc, (struct record_msg){ .kind = RM_SYSCALL, .err = -errno, .s = { "fork" } });
		return 1;
	}
	if (!rc->child) {
		char x;
		int e;

		/* the command does not outlive record: a killed record (it
		 * cannot stop it then) takes it along */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != rc->record_pid)
			_exit(127);
		close(rc->go[1]);
		close(rc->fail[0]);
		if (read(rc->go[0], &x, 1) != 1)
			_exit(127);
		if (rc->alloc)
			alloc_rec__child_env(rc->alloc, rc->o.call_graph != CALL_GRAPH_NONE);
		if (rc->emu)
			emu_rec__child_env(rc->emu, (uint32_t)rc->o.period, rc->o.emulate_hitm, rc->o.emulate_line,
					   rc->o.emulate_exact, rc->o.call_graph != CALL_GRAPH_NONE);
		execvp(rc->cmd[0], rc->cmd);
		e = errno;
		if (write(rc->fail[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(rc->go[0]);
	close(rc->fail[1]);
	rc->go[0] = rc->fail[1] = -1;
	return 0;
}

/* Let the command run: a launched one execs now (its exec failure comes
 * back on the fail pipe); with -p/-t/-a it only says how long, and starts. */
int recorder__start_command(struct recorder *rc)
{
	if (rc->cmd && (rc->task_mode || rc->sys_mode)) {
		rc->child = fork();
		if (rc->child < 0) {
			say(rc, (struct record_msg){ .kind = RM_SYSCALL, .err = -errno, .s = { "fork" } });
			return 1;
		}
		if (!rc->child) {
			recorder__release_signals(&rc->sigorig);
			execvp(rc->cmd[0], rc->cmd);
			say(rc, (struct record_msg){ .kind = RM_CANNOT_RUN, .err = -errno, .s = { rc->cmd[0] } });
			_exit(127);
		}
	} else if (rc->child) {
		if (write(rc->go[1], "x", 1) != 1)
			rc->child_err = EPIPE;
		close(rc->go[1]);
		rc->go[1] = -1;
		if (read(rc->fail[0], &rc->child_err, sizeof(rc->child_err)) != sizeof(rc->child_err))
			rc->child_err = 0;
		close(rc->fail[0]);
		rc->fail[0] = -1;
	}
	return 0;
}

/* The launched command's own exit status, as a shell gives it (128 + the
 * signal that killed it), said in one line when it is not 0. */
int recorder__command_status(const struct recorder *rc)
{
	int st = rc->status;

	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st))
			say(rc, (struct record_msg){ .kind = RM_COMMAND_EXIT, .n = { (uint64_t)WEXITSTATUS(st) } });
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st)) {
		say(rc, (struct record_msg){ .kind = RM_COMMAND_SIGNAL, .n = { (uint64_t)WTERMSIG(st), WCOREDUMP(st) != 0 } });
		return 128 + WTERMSIG(st);
	}
	return 1;
}
