/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-ctl: recording of a running traced program switched off and on, snapshots, status. */
#include "vtctl_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses (docs/vt-ctl.md). */
enum {
	EXIT_OK = 0,
	EXIT_REFUSED = 1,    /* the program answered that it could not */
	EXIT_USAGE = 2,	     /* bad command line */
	EXIT_NOT_TRACED = 3, /* no such process, not traced, gone, or no channel */
	EXIT_NO_ANSWER = 4,  /* no answer in time */
};

static const char usage[] =
    "usage: vt-ctl [--timeout SECONDS] COMMAND [PID | --job JOBID]\n"
    "  list              traced processes of this user (pid, MPI rank, job, program, trace)\n"
    "  status PID        whether PID records, its threads and its trace\n"
    "  off PID           stop recording in every thread of PID (the trace marks the gap)\n"
    "  on PID            resume recording\n"
    "  snapshot PID      write the current window (ring mode, VT_MODE=ring)\n"
    "  --job JOBID       in place of PID: every rank of an MPI job, named by the pid of its\n"
    "                    mpirun (mpiexec) or by Open MPI's job id (vt-ctl list shows both)\n"
    "  --timeout S       seconds to wait for each answer (default 30)\n"
    "exit status: 0 done, 1 the program refused, 2 bad usage, 3 not a traced process,\n"
    "4 no answer in time (docs/vt-ctl.md)\n";

static char dir[64];

static bool alive(int pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Field 22 of /proc/PID/stat (the start time), 0 when unreadable. */
static unsigned long long start_of(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (int field = 3; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* Whether PID catches signal sig (SigCgt of /proc/PID/status). */
static bool catches(int pid, int sig)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	unsigned long long mask = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return (mask >> (sig - 1)) & 1;
}

/* Reads DIR/PID.reg: 0, 1 when there is none, -1 when it is unreadable or malformed. */
static int read_reg(int pid, struct vtctl_reg *r)
{
	char path[128], text[4096];
	snprintf(path, sizeof(path), "%s/%d.reg", dir, pid);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = 0;
	return vtctl_parse_reg(text, r) == 0 && r->pid == pid ? 0 : -1;
}

/* A registration whose process is gone (killed: it could not remove it) or whose pid now
 * names another process. */
static bool stale(const struct vtctl_reg *r)
{
	return !alive(r->pid) || start_of(r->pid) != r->start;
}

static void remove_stale(int pid)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%d.reg", dir, pid);
	unlink(path);
}

/* The registration of a pid named on the command line: 0, or an exit status after a line. */
static int find(int pid, struct vtctl_reg *r)
{
	int rc = read_reg(pid, r);
	if (rc == 0 && stale(r)) {
		remove_stale(pid);
		rc = 1;
	}
	if (rc == 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "vt-ctl: %s/%d.reg: unreadable or malformed registration\n", dir,
			pid);
		return EXIT_NOT_TRACED;
	}
	if (!alive(pid))
		fprintf(stderr, "vt-ctl: no process %d\n", pid);
	else
		fprintf(stderr,
			"vt-ctl: process %d is not traced by vt (no registration in %s: tracing "
			"off, or no control channel: a program has one in ring mode or with "
			"VT_CTL_SIGNAL=SIGUSR2, unless it handles that signal itself)\n",
			pid, dir);
	return EXIT_NOT_TRACED;
}

struct pending {
	struct vtctl_reg reg;
	int lock_fd; /* the registration, locked: one vt-ctl at a time per process */
	int status;  /* exit status so far; -1 waiting */
};

static int write_cmd(int pid, const char *word)
{
	char path[128], tmp[140];
	snprintf(path, sizeof(path), "%s/%d.cmd", dir, pid);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	bool ok = write(fd, word, strlen(word)) == (ssize_t)strlen(word) && write(fd, "\n", 1) == 1;
	close(fd);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Sends the command: 0, or an exit status after a line. */
static int send_cmd(struct pending *p, const char *word)
{
	int pid = p->reg.pid;
	char path[128];
	if (!catches(pid, p->reg.signal)) {
		fprintf(stderr,
			"vt-ctl: process %d does not catch signal %d (its handler was replaced): "
			"not sent\n",
			pid, p->reg.signal);
		return EXIT_NOT_TRACED;
	}
	snprintf(path, sizeof(path), "%s/%d.reg", dir, pid);
	p->lock_fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (p->lock_fd >= 0)
		flock(p->lock_fd, LOCK_EX);
	snprintf(path, sizeof(path), "%s/%d.reply", dir, pid);
	unlink(path);
	if (write_cmd(pid, word) != 0) {
		fprintf(stderr, "vt-ctl: cannot write the command for %d in %s: %s\n", pid, dir,
			strerror(errno));
		return EXIT_NOT_TRACED;
	}
	if (kill(pid, p->reg.signal) != 0) {
		fprintf(stderr, "vt-ctl: cannot signal process %d: %s\n", pid, strerror(errno));
		return EXIT_NOT_TRACED;
	}
	return 0;
}

/* Reads the reply if it is there: 1 with the status set, 0 not yet. */
static int take_reply(struct pending *p, bool several)
{
	char path[128], text[1024];
	snprintf(path, sizeof(path), "%s/%d.reply", dir, p->reg.pid);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	unlink(path);
	text[n > 0 ? n : 0] = 0;
	text[strcspn(text, "\n")] = 0;
	char *msg = strchr(text, ' ');
	int st = atoi(text);
	msg = msg ? msg + 1 : text;
	char who[64] = "";
	if (several || strcmp(p->reg.rank, "-") != 0)
		snprintf(who, sizeof(who), "%d%s%s%s: ", p->reg.pid,
			 strcmp(p->reg.rank, "-") ? " (rank " : "",
			 strcmp(p->reg.rank, "-") ? p->reg.rank : "",
			 strcmp(p->reg.rank, "-") ? ")" : "");
	if (st == 0) {
		printf("%s%s\n", who, msg);
		p->status = EXIT_OK;
	} else {
		fprintf(stderr, "vt-ctl: %s%s\n", who[0] ? who : "", msg);
		p->status = EXIT_REFUSED;
	}
	return 1;
}

static int command(struct pending *ps, int n, const char *word, double timeout)
{
	int worst = EXIT_OK;
	for (int i = 0; i < n; i++) {
		ps[i].lock_fd = -1;
		ps[i].status = send_cmd(&ps[i], word);
		if (ps[i].status == 0)
			ps[i].status = -1;
	}
	/* Polled soon at first (an answer takes a few ms), then every 20 ms. */
	long step_us = 500;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left = 0;
		for (int i = 0; i < n; i++) {
			if (ps[i].status != -1 || take_reply(&ps[i], n > 1))
				continue;
			if (!alive(ps[i].reg.pid)) {
				fprintf(stderr, "vt-ctl: process %d ended before it answered\n",
					ps[i].reg.pid);
				ps[i].status = EXIT_NOT_TRACED;
				continue;
			}
			left++;
		}
		if (!left)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >=
		    timeout) {
			for (int i = 0; i < n; i++)
				if (ps[i].status == -1) {
					fprintf(stderr,
						"vt-ctl: no answer from process %d within %g s\n",
						ps[i].reg.pid, timeout);
					ps[i].status = EXIT_NO_ANSWER;
				}
			break;
		}
		struct timespec step = {0, step_us * 1000};
		nanosleep(&step, NULL);
		step_us = step_us * 2 > 20000 ? 20000 : step_us * 2;
	}
	for (int i = 0; i < n; i++) {
		if (ps[i].lock_fd >= 0)
			close(ps[i].lock_fd);
		if (ps[i].status > worst)
			worst = ps[i].status;
	}
	return worst;
}

/* Every live registration, in pid order; stale ones are removed. */
static int all_regs(struct vtctl_reg **out)
{
	DIR *d = opendir(dir);
	int n = 0, cap = 0;
	*out = NULL;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int pid;
		char tail[8];
		if (sscanf(e->d_name, "%d.%7s", &pid, tail) != 2 || strcmp(tail, "reg"))
			continue;
		struct vtctl_reg r;
		if (read_reg(pid, &r) != 0)
			continue;
		if (stale(&r)) {
			remove_stale(pid);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			struct vtctl_reg *m = realloc(*out, (size_t)cap * sizeof(**out));
			if (!m)
				break;
			*out = m;
		}
		(*out)[n++] = r;
	}
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && (*out)[j - 1].pid > (*out)[j].pid; j--) {
			struct vtctl_reg t = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return n;
}

int main(int argc, char **argv)
{
	struct vtctl_args a;
	char err[256];
	if (vtctl_parse_args(argc - 1, argv + 1, &a, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-ctl: %s (vt-ctl --help)\n", err);
		return EXIT_USAGE;
	}
	if (a.help) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	snprintf(dir, sizeof(dir), "/tmp/vt-%u", (unsigned)geteuid());
	struct vtctl_reg *regs;
	if (a.cmd == VTCTL_LIST) {
		int n = all_regs(&regs);
		printf("%-8s %-6s %-8s %-20s %s\n", "PID", "RANK", "JOB", "PROGRAM", "TRACE");
		for (int i = 0; i < n; i++) {
			char job[32] = "-";
			if (regs[i].job)
				snprintf(job, sizeof(job), "%d", regs[i].job);
			const char *prog = strrchr(regs[i].program, '/');
			printf("%-8d %-6s %-8s %-20s %s\n", regs[i].pid, regs[i].rank, job,
			       prog ? prog + 1 : regs[i].program, regs[i].archive);
		}
		free(regs);
		return EXIT_OK;
	}
	const char *word = vtctl_cmd_word(a.cmd);
	if (!a.job) {
		struct pending p;
		int rc = find(a.pid, &p.reg);
		return rc ? rc : command(&p, 1, word, a.timeout);
	}
	int n = all_regs(&regs), m = 0;
	struct pending *ps = calloc((size_t)(n ? n : 1), sizeof(*ps));
	if (!ps)
		return EXIT_NOT_TRACED;
	for (int i = 0; i < n; i++)
		if (vtctl_in_job(&regs[i], a.job))
			ps[m++].reg = regs[i];
	free(regs);
	if (!m) {
		fprintf(stderr,
			"vt-ctl: no traced process of job %s (vt-ctl list shows the jobs)\n",
			a.job);
		free(ps);
		return EXIT_NOT_TRACED;
	}
	int rc = command(ps, m, word, a.timeout);
	free(ps);
	return rc;
}
