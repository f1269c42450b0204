/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's lifecycle: configuration, timer, archive at load time; the trace at exit. */
#include "lifecycle/vt_core.h"
#include "archive/vt_otf2.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_annot.h"
#include "filter/vt_filter.h"
#include "interpose/vt_interpose.h"
#include "interpose/vt_io.h"
#include "interpose/vt_mem.h"
#include "interpose/vt_own_fds.h"
#include "interpose/vt_signal.h"
#include "interpose/vt_stdio.h"
#include "io/vt_iotrace.h"
#include "io/vt_stdio.h"
#include "lifecycle/vt_ctl.h"
#include "lifecycle/vt_lifecycle.h"
#include "lifecycle/vt_snapshot.h"
#include "metrics/vt_metric.h"
#include "metrics/vt_metric_mem.h"
#include "mpi/vt_mpi_iface.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"
#include "regions/vt_symbols.h"
#include "sampling/vt_sample.h"
#include "threads/vt_omp_runtime.h"
#include "threads/vt_ompt.h"
#include "threads/vt_pthread_events.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void set_state(int state)
{
	__atomic_store_n(&vt_state_data.word, state, __ATOMIC_RELEASE);
}

/* The subsystems around the data path, in the order they start; they stop in reverse. */
static const struct vt_subsystem *const subsystems[] = {
    &vt_filter_subsystem,
    &vt_metric_subsystem,
    &vt_sample_subsystem,
#ifdef VT_HAVE_OMPT
    &vt_ompt_subsystem,
#endif
};
#define N_SUBSYSTEMS (sizeof(subsystems) / sizeof(subsystems[0]))

/* Runs a hook of every subsystem that has it, in table order, keeping the program's errno
 * (hooks run plugins' code, which may set it). */
#define EACH(hook, ...)                                                                            \
	do {                                                                                       \
		int saved_errno_ = errno;                                                          \
		for (size_t i_ = 0; i_ < N_SUBSYSTEMS; i_++)                                       \
			if (subsystems[i_]->hook)                                                  \
				subsystems[i_]->hook(__VA_ARGS__);                                 \
		errno = saved_errno_;                                                              \
	} while (0)

bool vt_core_thread_is_own(void)
{
	int saved = errno;
	bool own = false;
	for (size_t i = 0; i < N_SUBSYSTEMS && !own; i++)
		own = subsystems[i]->thread_is_own && subsystems[i]->thread_is_own();
	errno = saved;
	return own;
}

void vt_core_thread_begin(struct vt_tls *t, struct vt_loc *loc)
{
	EACH(thread_begin, t, loc);
}

void vt_core_thread_flush(struct vt_loc *loc)
{
	EACH(thread_flush, loc);
}

void vt_core_thread_end(struct vt_tls *t, struct vt_loc *loc)
{
	EACH(thread_end, t, loc);
}

void vt_core_mpi_attach(const struct vt_topo *topo, struct vt_tls *t)
{
	EACH(mpi_attach, topo, t);
}
static struct {
	pthread_mutex_t state_lock;
	/* A forked child must not write into its parent's archive; it runs untraced, and says
	 * so at the default verbosity when it ends (docs/security.md). Not at the fork: most
	 * children exec at once (Open MPI starting its daemon for a program run without mpirun,
	 * popen), and a line for each would be noise. */
	int forked_from;
	/* This process writes a ring's snapshot (vt_finalize_snapshot): with the other ranks'
	 * writers (snap_job), up to snap_end (0: now). */
	bool snapshot;
	const struct vt_mpi_ops *snap_job;
	uint64_t snap_end;
} core = {
    .state_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void fork_child(void)
{
	/* The process a ring's snapshot forks to write it (vt_snapshot.c) stays as it is. */
	if (vt_snapshot_forking())
		return;
	set_state(VT_STATE_OFF);
	vt_tls.pos = vt_tls.end = NULL;
	vt_tls.state = VT_TLS_OFF;
	core.forked_from = vt_state_data.pid;
	vt_state_data.pid = getpid();
	vt_own_fds_forked();
}

/* VT_IOTRACE=yes: the interposed POSIX I/O calls report to io/ (left empty, they cost a
 * load and a branch). */
static const struct vt_io_hooks io_hooks = {
    .enter = vt_iotrace_enter,
    .op_enter = vt_iotrace_op_enter,
    .op_end = vt_iotrace_op_end,
    .opened = vt_iotrace_opened,
    .closing = vt_iotrace_closing,
    .closed = vt_iotrace_closed,
    .seeked = vt_iotrace_seeked,
    .duped = vt_iotrace_duped,
    .leave = vt_iotrace_leave,
    .status = vt_iotrace_status,
    .unlinked = vt_iotrace_unlinked,
    .rw = vt_iotrace_rw,
    .prw = vt_iotrace_prw,
};

/* The same for the ISO C streams (io/vt_stdio.c). */
static const struct vt_stdio_hooks stdio_hooks = {
    .enter = vt_stdio_enter,
    .op_enter = vt_stdio_op_enter,
    .op_end = vt_stdio_op_end,
    .opened = vt_stdio_opened,
    .closing = vt_stdio_closing,
    .closed = vt_stdio_closed,
    .seeked = vt_stdio_seeked,
    .leave = vt_stdio_leave,
};

/* VT_MEMTRACE=yes: every allocation counted (metrics/vt_metric_mem.c). */
static const struct vt_mem_hooks mem_hooks = {.count = vt_metric_mem_count};
static const struct vt_mem_hooks mem_region_hooks = {
    .count = vt_metric_mem_count, .enter = vt_metric_mem_enter, .leave = vt_metric_mem_leave};

static int start(void)
{
	if (vt_config_load() < 0)
		return -1;
	if (!vt_cfg.on) {
		vt_info("VT_ON=no: not tracing");
		return -1;
	}
	vt_clock_init(vt_cfg.timer);
	vt_thread_init();
	/* With the MPI adapter loaded, rank 0 names the archive once MPI_Init has run. */
	vt_state_data.mpi_mode = dlsym(RTLD_DEFAULT, VT_MPI_ADAPTER_SYMBOL) != NULL;
	/* Before the archive, so that bad input leaves no trace behind; before the first
	 * location, whose counters the metric service adds. */
	int saved = errno;
	for (size_t i = 0; i < N_SUBSYSTEMS; i++) {
		if (subsystems[i]->init && subsystems[i]->init() < 0) {
			errno = saved;
			return -1;
		}
	}
	errno = saved;
	if (!vt_state_data.mpi_mode && vt_otf2_open() < 0)
		return -1;
	if (vt_cfg.iotrace) {
		vt_iotrace_init();
		vt_io_set_hooks(&io_hooks);
		vt_stdio_init();
		vt_stdio_set_hooks(&stdio_hooks);
	}
	if (vt_cfg.memtrace && vt_mem_interposed())
		vt_mem_set_hooks(vt_cfg.memtrace == VT_MEMTRACE_REGIONS ? &mem_region_hooks
									: &mem_hooks);
	vt_info("tracing with timer %s (%s), %lu-byte buffers", vt_clock_name(), vt_clock_reason(),
		(unsigned long)vt_cfg.buffer_size);
	return 0;
}

void vt_init(void)
{
	pthread_mutex_lock(&core.state_lock);
	if (vt_core_state() == VT_STATE_NEW) {
		set_state(VT_STATE_INITIALISING);
		vt_state_data.pid = getpid();
		int rc = start();
		if (rc == 0) {
			atexit(vt_finalize);
			pthread_atfork(NULL, NULL, fork_child);
			vt_signal_init();
			vt_ctl_start();
		}
		set_state(rc == 0 ? VT_STATE_ON : VT_STATE_OFF);
		if (rc == 0 && vt_cfg.pthread)
			vt_interpose_set_pthread(vt_pthread_events_hooks());
	}
	pthread_mutex_unlock(&core.state_lock);
}

/* The trace is written (or cannot be): a terminating signal that came meanwhile ends the
 * process now (vt_signal.c). */
static void finished(void)
{
	set_state(VT_STATE_DONE);
	if (vt_signal_pending)
		vt_signal_deferred();
}

/* alone: NULL, or how an MPI rank ended without the others (vt_finalize_alone). */
static void finalize(const char *alone)
{
	pthread_mutex_lock(&core.state_lock);
	if (vt_core_state() != VT_STATE_ON) {
		if (core.forked_from) {
			vt_notice("forked child of process %d: not traced (a child that calls exec "
				  "is traced again if the new program is built with vtcc)",
				  core.forked_from);
			core.forked_from = 0;
		}
		pthread_mutex_unlock(&core.state_lock);
		return;
	}
	set_state(VT_STATE_FINALIZING);
	pthread_mutex_unlock(&core.state_lock);
	/* vt-ctl finds this process no more (every path that writes a trace comes here). */
	vt_ctl_stop();
	vt_omp_runtime_check();

	const struct vt_mpi_ops *mpi = vt_mpi_ops();
	if (vt_mpi_attached() && !mpi && !alone) {
		/* MPI_Init ran but MPI_Finalize did not (a rank returned from main, or exit):
		 * the archive can only be closed together with the other ranks. */
		vt_warn("MPI_Finalize was not called: the events of this process are not "
			"written");
		finished();
		return;
	}
	/* An MPI program that never called MPI_Init writes a trace of its own. */
	if (!vt_otf2_ready() && vt_otf2_open() < 0) {
		finished();
		return;
	}

	/* Ring mode under MPI: the ranks' windows start at one time. */
	if (mpi && !alone && vt_cfg.mode == VT_MODE_RING && mpi->size > 1)
		vt_snapshot_final_cut(mpi);
	uint64_t end = core.snap_end ? core.snap_end : vt_clock_now();
	vt_otf2_write_begin();
	vt_clock_finish();
	EACH(stop);
	struct vt_loc *locs = vt_thread_finalize(end);
	EACH(finalize, end);
	vt_region_resolve_all();
	if (alone && core.snapshot)
		vt_otf2_close_snapshot(locs, end, alone, core.snap_job);
	else if (alone)
		vt_otf2_close_alone(locs, end, alone);
	else if (mpi)
		vt_otf2_close_mpi(locs, end, mpi);
	else
		vt_otf2_close(locs, end);
	vt_sym_finish();
	EACH(release);
	finished();
}

void vt_finalize(void)
{
	finalize(NULL);
}

void vt_finalize_alone(const char *why)
{
	/* Outside MPI mode, or before MPI_Init: the ordinary trace. */
	finalize(vt_mpi_attached() && !vt_mpi_ops() ? why : NULL);
}

void vt_finalize_snapshot(const char *why, const struct vt_mpi_ops *job, uint64_t end)
{
	core.snapshot = true;
	core.snap_job = job;
	core.snap_end = end;
	/* An MPI rank's: its own archive, without MPI, as a rank that ends alone. */
	finalize(vt_mpi_attached() && !vt_mpi_ops() ? why : NULL);
}

void vt_core_switch_off(void)
{
	set_state(VT_STATE_OFF);
	vt_ctl_stop();
	vt_thread_switch_off();
}

/*
 * The layers below know nothing above them: the lifecycle connects them. The record layer
 * hands a location's records to the archive's encoders and its threads' phases to the
 * subsystems; the interposed libc calls report here.
 */
static const struct vt_loc_sink archive_sink = {
    .ready = vt_otf2_ready,
    .failed = vt_otf2_failed,
    .open = vt_otf2_loc_open,
    .encode = vt_otf2_encode,
    .flushed = vt_otf2_buffer_flush,
    .stop = vt_otf2_loc_stop,
    .close = vt_otf2_loc_close,
};

static const struct vt_thread_hooks thread_hooks = {
    .init = vt_init,
    .is_own = vt_core_thread_is_own,
    .begin = vt_core_thread_begin,
    .flush = vt_core_thread_flush,
    .end = vt_core_thread_end,
};

static void on_exec(const char *what)
{
	vt_info("%s: writing the trace before the process image is replaced", what);
	vt_finalize();
}

static void on_daemon(int child)
{
	vt_notice("daemon(): the trace ends here; the daemon (process %d) is not traced", child);
	vt_annot_property("VT::END", "daemon()");
	vt_finalize();
}

/* A terminating signal, outside vt (interpose/vt_signal.c arms its watchdog first): the
 * trace says how the run ended, with a marker where the signal arrived and a property. */
static void on_signal_end(int sig, const char *what)
{
	(void)sig;
	struct vt_tls *t = &vt_tls;
	/* The archive of an MPI run is written by all ranks together in MPI_Finalize: a rank
	 * that ends before writes its own, alone (its one line says where). */
	bool alone = vt_mpi_attached() && !vt_mpi_ops();
	t->busy = VT_BUSY_OWN;
	if (!alone)
		vt_notice("%s: writing the trace before the program ends", what);
	vt_annot_marker(vt_clock_now(), t->loc ? t->loc->index : 0, "vt", 3 /* HIGH */, what);
	vt_annot_property("VT::END", what);
	t->busy = 0;
	if (alone)
		vt_finalize_alone(what);
	else
		vt_finalize();
}

static bool thread_busy(void)
{
	return vt_tls.busy != 0;
}

static void thread_start(void)
{
	(void)vt_thread_self();
}

static const struct vt_interpose_hooks interpose_hooks = {
    .exec = on_exec,
    .daemon_parent = on_daemon,
    .signal_end = on_signal_end,
    .signal_set = vt_ctl_signal_set,
    .thread_busy = thread_busy,
    .thread_wanted = vt_sample_wants_threads,
    .thread_start = thread_start,
};

/* First of libvt's constructors: before it, a thread's first event leaves it NEW. */
__attribute__((constructor(101))) static void vt_connect(void)
{
	vt_log_keep_stderr();
	vt_thread_connect(&archive_sink, &thread_hooks);
	vt_interpose_set_hooks(&interpose_hooks);
}

/* At load, on the main thread: the main thread becomes location 0 and bad input is
 * reported before the program prints anything. */
__attribute__((constructor)) static void vt_load(void)
{
	vt_thread_begin(&vt_tls);
}
