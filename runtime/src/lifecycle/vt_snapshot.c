/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode's snapshots: a forked process writes the rings as they were, the run goes on. */
#include "lifecycle/vt_snapshot.h"
#include "archive/vt_group.h"
#include "archive/vt_otf2.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_annot.h"
#include "interpose/vt_own_fds.h"
#include "lifecycle/vt_core.h"
#include "record/vt_thread.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define VT_EXPORT __attribute__((visibility("default")))

static struct {
	pthread_mutex_t lock; /* one snapshot at a time */
	unsigned count;	      /* snapshots begun: the next one's K less one */
	bool forking;	      /* between the hold and the fork's return, on thread */
	pthread_t thread;
} snap = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool vt_snapshot_forking(void)
{
	return snap.forking && pthread_equal(pthread_self(), snap.thread);
}

/* What a forked process cannot write: counters and samples come from threads and timers of
 * the parent's (metric plugins, rusage, sampling), which the fork does not copy. NULL: none. */
const char *vt_snapshot_refusal(void)
{
	if (vt_cfg.mode != VT_MODE_RING)
		return "snapshots are taken in ring mode (VT_MODE=ring)";
	if (vt_core_state() != VT_STATE_ON)
		return "the program is not being recorded";
	if (vt_state_data.mpi_mode && !vt_mpi_attached())
		return "an MPI program's snapshot needs MPI_Init's archive";
	if (vt_cfg.sampling || vt_cfg.metrics || vt_cfg.rusage || vt_cfg.plugin_metrics ||
	    vt_cfg.scorep_plugins || vt_cfg.memtrace)
		return "snapshots do not take counters or samples yet (VT_METRICS, VT_RUSAGE, "
		       "plugins, VT_MEMTRACE, VT_SAMPLING)";
	return NULL;
}

/* The writing process: the rings as the fork found them, written as at the run's end. */
__attribute__((noreturn)) static void write_snapshot(unsigned k, const char *why, uint64_t asked)
{
	/* Forked again at once, so that the program never has a child of vt's to wait for:
	 * the first child ends now, its parent waits for it. */
	pid_t w = fork();
	if (w != 0)
		_exit(w < 0 ? 1 : 0);
	snap.forking = false;
	vt_state_data.pid = getpid();
	vt_own_fds_forked();
	vt_thread_hold_all(false);
	vt_thread_forked();
	vt_otf2_forget_writers();
	uint64_t end = 0;
	const struct vt_mpi_ops *job =
	    vt_state_data.mpi_mode ? vt_snapshot_job_meet(k, asked, &end) : NULL;
	if (vt_otf2_open_snapshot(k, job) < 0) {
		vt_error("snapshot %u (%s): cannot open its archive; it is not written", k, why);
		_exit(1);
	}
	vt_annot_property("VT::SNAPSHOT", why);
	char what[300];
	snprintf(what, sizeof(what), "snapshot %u (%s)", k, why);
	vt_finalize_snapshot(what, job, end);
	if (job)
		vt_group_leave(false);
	_exit(0);
}

int vt_ring_snapshot(const char *why)
{
	struct vt_tls *t = &vt_tls;
	if (!why || !*why)
		why = "snapshot";
	const char *no = vt_snapshot_refusal();
	if (no) {
		vt_warn("snapshot (%s): not written: %s", why, no);
		return -1;
	}
	pthread_mutex_lock(&snap.lock);
	unsigned k = ++snap.count;
	int busy = t->busy;
	t->busy = VT_BUSY_OWN; /* what the fork runs on this thread is not recorded */
	uint64_t t0 = vt_clock_now();
	vt_thread_hold_all(true);
	snap.thread = pthread_self();
	snap.forking = true;
	pid_t pid = fork();
	if (pid == 0)
		write_snapshot(k, why, t0);
	int err = errno;
	snap.forking = false;
	vt_thread_hold_all(false);
	uint64_t t1 = vt_clock_now();
	t->busy = busy;
	int status = 0;
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	pthread_mutex_unlock(&snap.lock);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		vt_error("snapshot %u (%s): cannot start a process to write it: %s", k, why,
			 pid < 0 ? strerror(err) : "its first child failed");
		return -1;
	}
	vt_info("snapshot %u (%s): every thread's window copied in %.3f ms; a process of vt's "
		"writes it",
		k, why, (double)(t1 - t0) * 1e3 / (double)vt_clock_resolution());
	return 0;
}

/* ---- the user API's snapshot (runtime/include/vt/vt_user.h, vt_user.inc) ---- */

VT_EXPORT int vt_user_snapshot(const char *why);
VT_EXPORT void vt_user_snapshot_f_(const char *why, size_t len);

VT_EXPORT int vt_user_snapshot(const char *why)
{
	return vt_ring_snapshot(why);
}

VT_EXPORT void vt_user_snapshot_f_(const char *why, size_t len)
{
	char buf[256];
	while (len && why[len - 1] == ' ') /* Fortran pads with blanks */
		len--;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, why, len);
	buf[len] = '\0';
	vt_ring_snapshot(buf);
}
