/* SPDX-License-Identifier: BSD-3-Clause */
/* The control channel: registrations, and vt-ctl's commands run on a thread of vt's own. */
#include "lifecycle/vt_ctl.h"
#include "archive/vt_otf2.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "interpose/vt_interpose.h"
#include "lifecycle/vt_snapshot.h"
#include "record/vt_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The channel (docs/vt-ctl.md, docs/security.md):
 * - Directory /tmp/vt-UID, made 0700 by the first traced process of the user; refused (the
 *   channel stays off, one line) when it exists as anything but a directory of this user
 *   with no access for others. Every file in it is made O_EXCL|O_NOFOLLOW, mode 0600, and
 *   renamed into place, so a reader never sees half a file.
 * - PID.reg: the registration (pid, start time, program, archive, signal, MPI rank and job),
 *   removed when the trace is written (also on the partial-trace paths: fatal signal,
 *   MPI_Abort, exec), so a registration left behind is that of a killed process, which
 *   vt-ctl recognises by the start time and skips.
 * - vt-ctl writes PID.cmd and sends VT_CTL_SIGNAL. The handler only posts a semaphore
 *   (async-signal-safe); the control thread (vt's own, every signal blocked) reads the
 *   command, carries it out and writes PID.reply, which vt-ctl waits for. A signal without
 *   a command file (kill -USR2 PID) asks for a snapshot.
 * - Off and on: only a thread may move its own buffer position, so the control thread sets
 *   the wish and signals every live thread (tgkill, the same signal) until each has followed
 *   it in its handler between two events (record/vt_thread.c); the hot path is unchanged.
 * Signals limit senders to the same user (or root); the directory's mode keeps commands,
 * replies and registrations private. A setuid program has no channel.
 */

/* How long every thread has to follow before the reply says how many did not. */
#define CTL_WAIT_MS 5000

static struct {
	int sig;	 /* 0: no channel */
	bool registered; /* PID.reg written by this process */
	bool started;	 /* the control thread runs */
	bool quit;	 /* atomic: the control thread ends at its next wake-up */
	int pid;
	sem_t wake;
	pthread_t thread;
	pthread_mutex_t serving; /* held while a command is carried out */
	char dir[64], reg[96], cmd[96], reply[96];
} ctl = {.serving = PTHREAD_MUTEX_INITIALIZER};

/* Writes text to path through path.tmp and a rename: 0, or -1 with errno. */
static int write_file(const char *path, const char *text)
{
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int err = errno;
	close(fd);
	if (n != (ssize_t)len || rename(tmp, path) != 0) {
		if (n == (ssize_t)len)
			err = errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

/* Field k (1-based, as proc(5) counts) of /proc/PID/stat into out; comm (field 2) too. */
static int proc_stat(int pid, int k, char *out, size_t len, char *comm, size_t clen)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p)
		return -1;
	if (comm) {
		size_t c = (size_t)(close_p - open_p - 1);
		c = c < clen - 1 ? c : clen - 1;
		memcpy(comm, open_p + 1, c);
		comm[c] = 0;
	}
	char *save = NULL, *f = strtok_r(close_p + 1, " ", &save);
	for (int i = 3; f && i < k; i++)
		f = strtok_r(NULL, " ", &save);
	if (!f)
		return -1;
	snprintf(out, len, "%s", f);
	return 0;
}

/* The nearest ancestor that is an MPI launcher (mpirun, mpiexec, orterun, prterun and
 * their Debian names), 0 when none: a job's ranks share it. */
static int launcher_pid(void)
{
	static const char *const names[] = {"mpirun", "mpiexec", "orterun", "prterun"};
	char field[32], comm[32];
	int pid = getppid();
	for (int depth = 0; pid > 1 && depth < 16; depth++) {
		if (proc_stat(pid, 4, field, sizeof(field), comm, sizeof(comm)) != 0)
			return 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strncmp(comm, names[i], strlen(names[i])) == 0)
				return pid;
		pid = atoi(field);
	}
	return 0;
}

/* The directory, made or checked; 0 or -1 after its line. */
static int make_dir(void)
{
	unsigned uid = (unsigned)geteuid();
	snprintf(ctl.dir, sizeof(ctl.dir), "/tmp/vt-%u", uid);
	bool made = mkdir(ctl.dir, 0700) == 0;
	if (!made && errno != EEXIST) {
		vt_error("control channel off: cannot make %s: %s", ctl.dir, strerror(errno));
		return -1;
	}
	if (made)
		chmod(ctl.dir, 0700); /* whatever the umask took away from the owner */
	struct stat st;
	if (lstat(ctl.dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & 077)) {
		vt_error("control channel off: %s is not a directory of user %u with mode 0700 "
			 "(owner %u, mode %03o); vt-ctl cannot reach this process",
			 ctl.dir, uid, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

static int write_registration(void)
{
	char start[32] = "0", exe[512], text[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	proc_stat(ctl.pid, 22, start, sizeof(start), NULL, 0);
	/* The launchers' own variables name the rank before MPI_Init: Open MPI's, then
	 * MPICH's (Hydra). They describe the job, not vt's configuration. */
	const char *rank = secure_getenv("OMPI_COMM_WORLD_RANK");
	if (!rank)
		rank = secure_getenv("PMI_RANK");
	const char *jobid = secure_getenv("OMPI_MCA_ess_base_jobid");
	snprintf(text, sizeof(text),
		 "pid=%d\nstart=%s\nprogram=%s\narchive=%s\nsignal=%d\nrank=%s\njob=%d\n"
		 "jobid=%s\n",
		 ctl.pid, start, exe, vt_otf2_ready() ? vt_otf2_path() : "(named at MPI_Init)",
		 ctl.sig, rank ? rank : "-", launcher_pid(), jobid ? jobid : "-");
	return write_file(ctl.reg, text);
}

static void reply(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(int status, const char *fmt, ...)
{
	char text[512];
	int n = snprintf(text, sizeof(text), "%d ", status);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(text, "\n");
	if (write_file(ctl.reply, text) != 0)
		vt_warn("control channel: cannot write the reply %s: %s", ctl.reply,
			strerror(errno));
}

/* off or on for every thread: the wish, then nudges until all follow (or time is up), the
 * first ones soon (a thread between two events follows at once), then every 10 ms. */
static void switch_recording(bool off)
{
	const char *word = off ? "off" : "on";
	vt_thread_ctl_set(off);
	int total = 0, left = 0;
	long waited_ms = 0, step_ms = 1;
	for (;;) {
		if (!(left = vt_thread_ctl_nudge(ctl.sig, &total)) || waited_ms >= CTL_WAIT_MS)
			break;
		struct timespec pause = {0, step_ms * 1000 * 1000};
		nanosleep(&pause, NULL);
		waited_ms += step_ms;
		step_ms = step_ms * 2 > 10 ? 10 : step_ms * 2;
	}
	if (left) {
		vt_warn("vt-ctl %s: %d of %d threads did not follow within %d s (the signal "
			"blocked, or the thread inside vt all along)",
			word, left, total, CTL_WAIT_MS / 1000);
		reply(1, "recording %s on %d of %d threads; %d did not follow (signal %d blocked?)",
		      word, total - left, total, left, ctl.sig);
		return;
	}
	vt_info("vt-ctl: recording %s (%d threads)", word, total);
	reply(0, "recording %s (%d thread%s)", word, total, total == 1 ? "" : "s");
}

/* Reads and removes the command; 1 with it in buf, 0 when there is none, -1 when unusable. */
static int read_command(char *buf, size_t len)
{
	int fd = open(ctl.cmd, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		n = read(fd, buf, len - 1);
	close(fd);
	unlink(ctl.cmd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	return 1;
}

static void serve(void)
{
	char cmd[64];
	int got = read_command(cmd, sizeof(cmd));
	if (got == 0) {
		/* A bare signal (kill -USR2 PID): a snapshot, with no one to answer. */
		vt_snapshot_request("signal");
		return;
	}
	if (got < 0) {
		vt_warn("control channel: %s is not a readable file of this user; ignored",
			ctl.cmd);
		return;
	}
	if (vt_core_state() != VT_STATE_ON) {
		reply(1, "not recording (the trace is being written)");
		return;
	}
	if (strcmp(cmd, "off") == 0 || strcmp(cmd, "on") == 0) {
		switch_recording(cmd[1] == 'f');
	} else if (strcmp(cmd, "snapshot") == 0) {
		const char *no = vt_snapshot_refusal();
		if (no) {
			vt_notice("snapshot of %d refused: %s", ctl.pid, no);
			reply(1, "snapshot of %d refused: %s", ctl.pid, no);
		} else if (vt_ring_snapshot("vt-ctl") == 0)
			reply(0, "snapshot taken; a process of vt's writes it beside the trace");
		else
			reply(1, "snapshot of %d failed: vt's log says why", ctl.pid);
	} else if (strcmp(cmd, "status") == 0) {
		reply(0, "recording %s; %u thread%s; trace %s", vt_thread_ctl_off() ? "off" : "on",
		      vt_thread_count(), vt_thread_count() == 1 ? "" : "s",
		      vt_otf2_ready() ? vt_otf2_path() : "(named at MPI_Init)");
	} else {
		reply(2, "unknown command '%s'; expected off, on, snapshot or status", cmd);
	}
}

static void *ctl_main(void *arg)
{
	/* vt's own thread: never traced, even if it runs instrumented code. */
	vt_tls.state = VT_TLS_OFF;
	vt_tls.busy = 1;
	for (;;) {
		while (sem_wait(&ctl.wake) != 0 && errno == EINTR)
			;
		if (__atomic_load_n(&ctl.quit, __ATOMIC_ACQUIRE))
			break;
		pthread_mutex_lock(&ctl.serving);
		if (!__atomic_load_n(&ctl.quit, __ATOMIC_ACQUIRE))
			serve();
		pthread_mutex_unlock(&ctl.serving);
	}
	return arg;
}

/* Only posts: async-signal-safe. vt's nudges (tgkill from this process) go to the thread. */
static void on_ctl_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	int saved = errno;
	if (si && si->si_code == SI_TKILL && si->si_pid == ctl.pid)
		vt_thread_ctl_follow();
	else
		sem_post(&ctl.wake);
	errno = saved;
}

void vt_ctl_start(void)
{
	static const int signals[] = {[VT_CTL_SIGUSR2] = SIGUSR2, [VT_CTL_SIGUSR1] = SIGUSR1};
	/* auto: only in ring mode, where asking from outside is the point. The channel's thread
	 * makes every process multi-threaded: about 1 ms of CPU at start and end
	 * (bench/run-startup.py), and Linux then takes a reference on each descriptor a system
	 * call uses (40-57 ns more per 1-byte read or write here, bench/run-io.py). */
	int which = vt_cfg.ctl_signal;
	if (which == VT_CTL_AUTO)
		which = vt_cfg.mode == VT_MODE_RING ? VT_CTL_SIGUSR2 : VT_CTL_NONE;
	if (which == VT_CTL_NONE || vt_config_secure())
		return;
	int sig = signals[which];
	struct sigaction cur;
	if (vt_real_sigaction(sig, NULL, &cur) != 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) {
		vt_info("control channel off: the program handles or ignores signal %d "
			"(VT_CTL_SIGNAL picks another)",
			sig);
		return;
	}
	ctl.pid = getpid();
	if (make_dir() < 0)
		return;
	snprintf(ctl.reg, sizeof(ctl.reg), "%s/%d.reg", ctl.dir, ctl.pid);
	snprintf(ctl.cmd, sizeof(ctl.cmd), "%s/%d.cmd", ctl.dir, ctl.pid);
	snprintf(ctl.reply, sizeof(ctl.reply), "%s/%d.reply", ctl.dir, ctl.pid);
	unlink(ctl.cmd); /* a killed process's with our pid */
	if (sem_init(&ctl.wake, 0, 0) != 0)
		return;
	ctl.started = vt_own_thread_create(&ctl.thread, ctl_main, NULL) == 0;
	if (!ctl.started) {
		vt_warn("control channel off: cannot start its thread");
		return;
	}
	__atomic_store_n(&ctl.sig, sig, __ATOMIC_RELEASE);
	struct sigaction act;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_ctl_signal;
	act.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&act.sa_mask);
	if (vt_real_sigaction(sig, &act, NULL) != 0 || write_registration() != 0) {
		vt_warn("control channel off: cannot register in %s: %s", ctl.dir, strerror(errno));
		vt_ctl_stop();
		return;
	}
	ctl.registered = true;
	vt_debug("control channel: %s (signal %d)", ctl.reg, sig);
}

void vt_ctl_signal_set(int sig, const struct sigaction *act)
{
	int mine = __atomic_load_n(&ctl.sig, __ATOMIC_ACQUIRE);
	if (!mine || sig != mine || !ctl.started || getpid() != ctl.pid)
		return;
	/* vt's own handler put back (a library that saved and restores it): nothing taken. */
	if ((act->sa_flags & SA_SIGINFO) && act->sa_sigaction == on_ctl_signal)
		return;
	vt_info("control channel off: the program sets its own disposition of signal %d", sig);
	vt_ctl_stop();
	__atomic_store_n(&ctl.sig, 0, __ATOMIC_RELEASE);
}

void vt_ctl_archive_named(void)
{
	if (ctl.registered && getpid() == ctl.pid && write_registration() != 0)
		vt_warn("control channel: cannot update %s: %s", ctl.reg, strerror(errno));
}

void vt_ctl_stop(void)
{
	if (!ctl.started || getpid() != ctl.pid)
		return;
	/* A command under way ends first (it nudges threads), unless it takes too long. */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	bool locked = pthread_mutex_timedlock(&ctl.serving, &until) == 0;
	__atomic_store_n(&ctl.quit, true, __ATOMIC_RELEASE);
	if (locked)
		pthread_mutex_unlock(&ctl.serving);
	sem_post(&ctl.wake);
	if (ctl.registered) {
		unlink(ctl.reg);
		unlink(ctl.cmd);
		ctl.registered = false;
	}
	ctl.started = false;
}

int vt_snapshot_request(const char *why)
{
	const char *no = vt_snapshot_refusal();
	if (no) {
		vt_notice("snapshot of %d refused: %s", (int)getpid(), no);
		return -1;
	}
	return vt_ring_snapshot(why);
}
