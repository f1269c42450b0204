/* SPDX-License-Identifier: BSD-3-Clause */
/* Terminating signals: the trace is written, then the process ends as the signal makes it. */
#include "interpose/vt_signal.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "interpose/vt_interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))
/* sigaction and signal run in other libraries' constructors, maybe before the address
 * sanitizer (of a sanitized libvt, scripts/test-sanitize.sh) has mapped its shadow memory:
 * MPICH's libucs asks for its handlers before libasan is initialised. What they run then is
 * not checked. */
#define VT_EARLY __attribute__((no_sanitize_address))

/*
 * How it works, and how safe it is (docs/security.md, "Signals"):
 * - At init vt installs its handler for each signal below whose disposition is the default
 *   one (a signal the program or its parent ignores or handles is left alone).
 * - libvt's sigaction() and signal() stand between the program and the kernel for those
 *   signals: a handler or SIG_IGN the program sets is installed as it is (so it runs exactly
 *   as without vt, and vt does nothing for that signal); SIG_DFL puts vt's handler back. The
 *   program is told the dispositions it set itself.
 * - The handler writes the trace with the ordinary finalisation (vt_finalize), which is not
 *   async-signal-safe: it takes locks, allocates and calls libotf2. It runs only when the
 *   signal did not arrive inside vt (the thread's busy flag), only once per process, and
 *   under a watchdog: if the writing has not ended after VT_SIGNAL_GRACE seconds (it
 *   waits, say, for a malloc lock that the interrupted code holds), SIGALRM ends the
 *   process with the original signal anyway.
 * - Then the default disposition is restored and the signal raised again, so the process
 *   ends exactly as it would have (status, core dump).
 */
#define VT_SIGNAL_GRACE 10

static const int watched[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL,	SIGABRT,
			      SIGFPE, SIGBUS, SIGSEGV, SIGPIPE, SIGTERM};
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static struct {
	sigaction_fn real_sigaction;
	/* Per watched signal: vt's handler is the kernel's disposition; what the program set. */
	bool mine[N_WATCHED];
	struct sigaction program[N_WATCHED];
	bool active;
	/* The thread (kernel id) writing the trace for a signal, and the signal; 0: none yet. */
	int ending_tid;
	volatile sig_atomic_t ending_sig;
} sigs;

static __attribute__((unused)) VT_EARLY int slot(int sig)
{
	for (size_t i = 0; i < N_WATCHED; i++)
		if (watched[i] == sig)
			return (int)i;
	return -1;
}

static VT_EARLY sigaction_fn real(void)
{
	if (!sigs.real_sigaction)
		sigs.real_sigaction = (sigaction_fn)vt_interpose_next("sigaction");
	return sigs.real_sigaction;
}

VT_EARLY int vt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real()) {
		errno = ENOSYS;
		return -1;
	}
	return real()(sig, act, old);
}

/* The default disposition, and sig raised again: blocked while its handler runs, it is
 * delivered when the handler returns (a fault's instruction is not run again first). */
static void end_as_default(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real()(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

/* The watchdog: the writing took too long; the process ends with the original signal. */
static void give_up(int alrm)
{
	int sig = sigs.ending_sig;
	static const char msg[] = "vt: the trace could not be written in time after a signal\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void)w;
	if (!sig)
		sig = SIGTERM;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real()(sig, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

volatile sig_atomic_t vt_signal_pending;

static void arm_watchdog(void)
{
	struct sigaction alrm;
	memset(&alrm, 0, sizeof(alrm));
	alrm.sa_handler = give_up;
	real()(SIGALRM, &alrm, NULL);
	alarm(VT_SIGNAL_GRACE);
}

/* Whether the thread is inside vt's own code (the lifecycle knows its busy flag). */
static bool busy(void)
{
	return vt_interpose_hooks.thread_busy && vt_interpose_hooks.thread_busy();
}

/* Runs on a thread that is not inside vt: the lifecycle writes the trace (a marker and a
 * property say how the run ended), under the watchdog. */
static void write_trace(int sig)
{
	const char *name = sigabbrev_np(sig);
	char what[64];
	snprintf(what, sizeof(what), "SIG%s", name ? name : "?");
	arm_watchdog();
	if (vt_interpose_hooks.signal_end)
		vt_interpose_hooks.signal_end(sig, what);
	alarm(0);
}

void vt_signal_deferred(void)
{
	int sig = vt_signal_pending;
	if (!sig || (busy() && vt_core_state() != VT_STATE_DONE))
		return;
	vt_signal_pending = 0;
	if (vt_core_state() == VT_STATE_ON)
		write_trace(sig);
	end_as_default(sig);
}

/* A fault of the code that runs (not a signal sent): it cannot wait. */
static bool is_fault(int sig, const siginfo_t *si)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
	       si->si_code > 0;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int self = (int)syscall(SYS_gettid);
	int expected = 0;
	if (__atomic_compare_exchange_n(&sigs.ending_tid, &expected, self, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		sigs.ending_sig = sig;
		if (vt_core_state() == VT_STATE_FINALIZING && !is_fault(sig, si)) {
			/* The trace is being written (exit, exec): it is finished first, then
			 * the process ends with the signal (vt_finalize), under the watchdog. */
			vt_signal_pending = sig;
			vt_notice("SIG%s while the trace is written: the process ends with it "
				  "once the trace is complete",
				  sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
			arm_watchdog();
			errno = saved;
			return;
		}
		if (vt_core_state() == VT_STATE_ON && busy() && !is_fault(sig, si)) {
			/* Inside vt (a flush waiting for the writer, say): the trace is written
			 * when vt is done (vt_signal_deferred), under the watchdog meanwhile. */
			vt_signal_pending = sig;
			vt_info("SIG%s arrived inside vt: the trace is written when vt is done",
				sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
			arm_watchdog();
			errno = saved;
			return;
		}
		if (vt_core_state() == VT_STATE_ON && busy()) {
			const char *name = sigabbrev_np(sig);
			vt_warn("SIG%s in vt's own code: the trace is not written",
				name ? name : "?");
		} else if (vt_core_state() == VT_STATE_ON) {
			write_trace(sig);
		}
	} else if (expected != self) {
		/* Another thread writes the trace and then ends the process: wait for it (the
		 * watchdog bounds the wait). */
		struct timespec ms = {0, 10000000};
		for (int i = 0; i < VT_SIGNAL_GRACE * 100 + 100; i++)
			nanosleep(&ms, NULL);
	}
	/* A second signal on the writing thread (a fault while writing) ends at once. */
	end_as_default(sig);
	errno = saved;
}

static bool is_default(const struct sigaction *a)
{
	return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

/* vt's disposition: its handler, with the other terminating signals waiting while the
 * trace is written. */
static void mine_action(struct sigaction *m)
{
	memset(m, 0, sizeof(*m));
	m->sa_sigaction = on_signal;
	m->sa_flags = SA_SIGINFO;
	sigemptyset(&m->sa_mask);
	for (size_t i = 0; i < N_WATCHED; i++)
		sigaddset(&m->sa_mask, watched[i]);
}

void vt_signal_init(void)
{
	if (!real())
		return;
	struct sigaction mine_act;
	mine_action(&mine_act);
	for (size_t i = 0; i < N_WATCHED; i++) {
		struct sigaction cur;
		if (real()(watched[i], NULL, &cur) != 0)
			continue;
		sigs.program[i] = cur;
		if (is_default(&cur))
			sigs.mine[i] = real()(watched[i], &mine_act, NULL) == 0;
	}
	__atomic_store_n(&sigs.active, true, __ATOMIC_RELEASE);
}

/*
 * Under ThreadSanitizer (scripts/test-sanitize.sh tsan) the runtime does not interpose these:
 * TSan's initialisation calls sigaction before it can run instrumented code. vt's handlers
 * are then installed at init only, and a program's SIG_DFL does not bring them back.
 */
#ifndef VT_NO_SIGNAL_INTERPOSE
VT_EXPORT VT_EARLY int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int i = slot(sig);
	if (i < 0 && act && vt_interpose_hooks.signal_set)
		vt_interpose_hooks.signal_set(sig, act);
	if (i < 0 || !__atomic_load_n(&sigs.active, __ATOMIC_ACQUIRE))
		return real()(sig, act, old);
	struct sigaction prev = sigs.program[i];
	if (act) {
		if (is_default(act)) {
			if (!sigs.mine[i]) {
				struct sigaction m;
				mine_action(&m);
				if (real()(sig, &m, NULL) != 0)
					return -1;
				sigs.mine[i] = true;
			}
		} else {
			if (real()(sig, act, NULL) != 0)
				return -1;
			sigs.mine[i] = false;
		}
		sigs.program[i] = *act;
	}
	if (old)
		*old = prev;
	return 0;
}

typedef void (*sighandler_fn)(int);

/* glibc's signal(): BSD semantics (SA_RESTART, the handler stays). Its own call of the
 * kernel would pass vt by, hence this one. */
VT_EXPORT VT_EARLY sighandler_fn signal(int sig, sighandler_fn handler)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	sigaddset(&act.sa_mask, sig);
	if (sig <= 0 || sig >= NSIG || sigaction(sig, &act, &old) != 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	return old.sa_handler;
}
#endif
