/* SPDX-License-Identifier: BSD-3-Clause */
/* Call-path sampling: timers, the signal handler, unwinding, thread start (vt_sample.h). */
#include "sampling/vt_sample.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "defs/vt_callctx.h"
#include "interpose/vt_interpose.h"
#include "record/vt_thread.h"
#include "sampling/vt_unwind.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <otf2/otf2.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

_Static_assert(VT_REC_SAMPLE_MAX == 256, "VT_SAMPLING_DEPTH's maximum (vt_config.c) is 256");

/*
 * libunwind is loaded with dlopen(RTLD_LOCAL) when sampling is on, never linked: Debian's
 * libunwind.so.8 also defines _Unwind_RaiseException and backtrace, which would take over the
 * program's C++ exceptions (libgcc_s) and glibc's backtrace() if it joined the global scope,
 * and a program that does not sample should not load it at all. The entry points are looked
 * up by the names libunwind.h maps its API to.
 */
#define VT_STR_(x) #x
#define VT_STR(x)  VT_STR_(x)

/* Per thread: its timer or perf event, and its stack's bounds (frame-pointer walks). */
struct sampler {
	timer_t timer;
	int fd; /* perf event; -1: a timer */
	bool armed;
	struct vt_unwind_thread unwind; /* stack bounds, frame cache */
	struct sampler *next;
};
static __thread struct sampler self __attribute__((tls_model("initial-exec")));

static struct {
	/* libunwind's functions, by the names libunwind.h maps its API to (load_libunwind). */
	struct {
		int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
		int (*step)(unw_cursor_t *);
		int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
		int (*is_signal_frame)(unw_cursor_t *);
		int (*getcontext)(unw_context_t *);
		int (*init_local)(unw_cursor_t *, unw_context_t *);
		int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
		unw_addr_space_t *local_as;
	} unw;
	/* Every armed sampler, so that the end of the run disarms the threads still running. */
	pthread_mutex_t samplers_lock;
	struct sampler *samplers;
	bool on;      /* sampling configured and started */
	int stopping; /* the run ends: handlers return at once */
	unsigned max_frames;
	uint64_t n_taken, n_lost, n_skipped; /* samples recorded, lost (no room), in vt */
	uint64_t handler_ticks;		     /* time in the handler, on vt's clock */
} smp = {
    .samplers_lock = PTHREAD_MUTEX_INITIALIZER,
};

static bool load_libunwind(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		vt_error("VT_SAMPLING=yes: cannot load libunwind.so.8 (%s); install libunwind8, "
			 "or set VT_SAMPLING_UNWIND=fp; sampling is off",
			 dlerror());
		return false;
	}
#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&smp.unw.field = dlsym(h, VT_STR(name));                                 \
		if (!smp.unw.field) {                                                              \
			vt_error("VT_SAMPLING=yes: libunwind.so.8 lacks %s; sampling is off",      \
				 VT_STR(name));                                                    \
			return false;                                                              \
		}                                                                                  \
	} while (0)
	SYM(init_local2, unw_init_local2);
	SYM(step, unw_step);
	SYM(get_reg, unw_get_reg);
	SYM(is_signal_frame, unw_is_signal_frame);
	SYM(getcontext, unw_tdep_getcontext); /* unw_getcontext is a function-like macro */
	SYM(init_local, unw_init_local);
	SYM(set_caching_policy, unw_set_caching_policy);
	SYM(local_as, unw_local_addr_space);
#undef SYM
	/* Unwind tables cached per thread: no lock in the handler. */
	smp.unw.set_caching_policy(*smp.unw.local_as, UNW_CACHE_PER_THREAD);
	return true;
}

/* The interrupted stack, innermost first: the interrupted instruction, then each caller's
 * call instruction (return address - 1), except above a signal frame, whose next address is
 * again an interrupted one. */
static unsigned unwind_libunwind(ucontext_t *uc, uint64_t *f, bool *cut)
{
	unw_cursor_t c;
	unsigned n = 0;
	if (smp.unw.init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	bool exact = true;
	for (;;) {
		unw_word_t ip;
		if (smp.unw.get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (n == smp.max_frames) {
			*cut = true;
			break;
		}
		f[n++] = exact ? ip : ip - 1;
		exact = smp.unw.is_signal_frame(&c) > 0;
		if (smp.unw.step(&c) <= 0)
			break;
	}
	return n;
}

/*
 * Where the interrupted function keeps its return address while rbp is still its caller's
 * frame: a function interrupted on its first instructions (endbr64; push %rbp; mov
 * %rsp,%rbp) or on its ret has no frame of its own in the rbp chain, and the walk through rbp
 * alone would skip its caller. Returns the slot's offset from rsp, or -1 when the instruction
 * at ip is none of these. The bytes are read one instruction at a time, each only after the
 * bytes before it said the instruction is that long: the instruction being executed is
 * mapped, what follows it need not be.
 */
static int fp_unframed_slot(const uint8_t *ip)
{
	if (ip[0] == 0xf3) { /* endbr64 (f3 0f 1e fa), rep ret (f3 c3) */
		if (ip[1] == 0xc3)
			return 0;
		if (ip[1] != 0x0f || ip[2] != 0x1e || ip[3] != 0xfa)
			return -1;
		ip += 4;
		/* endbr64 is 4 bytes and a function's first instruction: what follows is its
		 * push %rbp, in the same mapping. */
		return ip[0] == 0x55 ? 0 : -1;
	}
	if (ip[0] == 0x55 || ip[0] == 0xc3) /* push %rbp; ret */
		return 0;
	if (ip[0] == 0x48 && ip[1] == 0x89 && ip[2] == 0xe5) /* mov %rsp,%rbp: rbp pushed */
		return 8;
	return -1;
}

/* Frame pointers: each frame's saved rbp and return address, checked against the thread's
 * stack so that a frame without one (a leaf, code built without) ends the walk, not the
 * program. A return address taken from the stack top (fp_unframed_slot) must point into a
 * loaded object (_dl_find_object, async-signal-safe): in code built without frame pointers
 * a push %rbp can come anywhere, and what it leaves on the stack is no return address. */
static unsigned unwind_fp(ucontext_t *uc, uint64_t *f, bool *cut)
{
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	unsigned n = 0;
	if (!ip)
		return 0;
	f[n++] = ip;
	int slot = fp_unframed_slot((const uint8_t *)ip);
	if (slot >= 0 && sp >= self.unwind.stack_lo &&
	    sp + (uintptr_t)slot + 8 <= self.unwind.stack_hi && !(sp & 7)) {
		uintptr_t ret = *(const uintptr_t *)(sp + (uintptr_t)slot);
		struct dl_find_object obj;
		if (ret >= 4096 && _dl_find_object((void *)(ret - 1), &obj) == 0) {
			if (n == smp.max_frames) {
				*cut = true;
				return n;
			}
			f[n++] = ret - 1;
		}
	}
	while (fp >= self.unwind.stack_lo && fp <= self.unwind.stack_hi - 16 && !(fp & 7)) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], ret = frame[1];
		if (ret < 4096)
			break;
		if (n == smp.max_frames) {
			*cut = true;
			break;
		}
		f[n++] = ret - 1;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/*
 * The handler: async-signal-safe. No lock is waited for, nothing is allocated, no stdio.
 * The sample goes through the thread's reservation like any event: into the buffer, or into
 * the side area when it interrupted a producer (vt_buf.h). A full half is handed to the
 * writer without waiting (vt_thread_flush_signal), else the sample is lost and counted.
 * Unlike vt_buf_commit, the handler drains the side area only when that cannot flush.
 */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	struct vt_tls *t = &vt_tls;
	uint64_t frames[VT_REC_SAMPLE_MAX + 1];
	bool cut = false;

	(void)sig;
	(void)si;
	/* The run ends (vt_finalize has begun): samples of vt's own end are not the program's. */
	if (__atomic_load_n(&smp.stopping, __ATOMIC_RELAXED) || vt_core_state() != VT_STATE_ON)
		goto out;
	uint64_t t0 = vt_clock_now();
	if (!t->pos || t->ctl_armed || t->busy == VT_BUSY_FOREIGN || (t->busy && !t->nest)) {
		/* Not recording (paused, stopped, vt-ctl off), or inside vt's own slow path: in the
		 * part that only moves records (OWN, inside a producer) the sample is kept aside
		 * like any nested producer's event. */
		__atomic_fetch_add(&smp.n_skipped, 1, __ATOMIC_RELAXED);
		goto out;
	}
	unsigned n;
	if (vt_cfg.sampling_unwind == VT_UNWIND_CFI)
		n = vt_unwind_cfi(ucv, &self.unwind, frames, smp.max_frames, &cut);
	else if (vt_cfg.sampling_unwind == VT_UNWIND_FP)
		n = unwind_fp(ucv, frames, &cut);
	else
		n = unwind_libunwind(ucv, frames, &cut);
	if (!n)
		goto out;
	unsigned len = 1 + (n + 1) / 2;
	struct vt_rec *p;
	if (t->nest) {
		p = vt_buf_reserve_nested(t, len);
	} else {
		t->nest = 1;
		vt_signal_fence();
		p = t->pos;
		if (!p || (size_t)(t->end - p) < len)
			p = vt_thread_flush_signal(t);
		if (!p) {
			vt_signal_fence();
			t->nest = 0;
			vt_signal_fence();
		}
	}
	if (!p) {
		__atomic_fetch_add(&smp.n_lost, 1, __ATOMIC_RELAXED);
		goto out;
	}
	if (n & 1)
		frames[n] = 0;
	p->ts = vt_clock_now();
	p->region = n | (cut ? VT_REC_SAMPLE_CUT : 0);
	p->kind = VT_REC_SAMPLE;
	memcpy(p + 1, frames, (len - 1) * sizeof(*p));
	if (t->nest != 1) {
		t->nest--;
	} else {
		__atomic_store_n(&t->pos, p + len, __ATOMIC_RELEASE);
		vt_signal_fence();
		t->nest = 0;
		vt_signal_fence();
		/* What a handler of the program recorded while this one ran (side area) follows
		 * now, in its order, when it fits without a flush, with room to spare for
		 * handlers that come during the copy; else the thread's next event takes it. */
		uint32_t side = __atomic_load_n(&t->side_n, __ATOMIC_RELAXED);
		if (side && t->pos && (size_t)(t->end - t->pos) >= (size_t)side + VT_BUF_SIDE)
			vt_buf_drain(t);
	}
	__atomic_fetch_add(&smp.n_taken, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&smp.handler_ticks, vt_clock_now() - t0, __ATOMIC_RELAXED);
out:
	errno = saved;
}

static const char *source_name(void)
{
	static const char *const names[] = {"cpu", "wall", "perf::cpu-clock", "perf::task-clock"};
	return names[vt_cfg.sampling_source];
}

static int arm_perf(struct sampler *s, pid_t tid)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    /* cpu is the task clock too: the thread's CPU time, on a high-resolution timer. */
	    .config = vt_cfg.sampling_source == VT_SAMPLING_PERF_CPU ? PERF_COUNT_SW_CPU_CLOCK
								     : PERF_COUNT_SW_TASK_CLOCK,
	    .sample_period = vt_cfg.sampling_period,
	    /* Every overflow signals the owner thread (the event's fasync), without a ring
	     * buffer and without re-arming in the handler: PERF_EVENT_IOC_REFRESH there cost
	     * 15 us per sample on this project's test machine, ten times the rest. */
	    .disabled = 1,
	    .wakeup_events = 1,
	    .exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	struct f_owner_ex owner = {F_OWNER_TID, tid};
	if (fcntl(fd, F_SETFL, O_ASYNC) < 0 ||
	    fcntl(fd, F_SETSIG, (int)vt_cfg.sampling_signal) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	s->fd = fd;
	return 0;
}

static int arm_timer(struct sampler *s, pid_t tid)
{
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID,
			      .sigev_signo = (int)vt_cfg.sampling_signal};
	ev._sigev_un._tid = tid;
	clockid_t clock =
	    vt_cfg.sampling_source == VT_SAMPLING_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	if (timer_create(clock, &ev, &s->timer) != 0)
		return -1;
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(vt_cfg.sampling_period / 1000000000u);
	its.it_interval.tv_nsec = (long)(vt_cfg.sampling_period % 1000000000u);
	its.it_value = its.it_interval;
	if (timer_settime(s->timer, 0, &its, NULL) != 0) {
		int e = errno;
		timer_delete(s->timer);
		errno = e;
		return -1;
	}
	return 0;
}

/* Warms the unwinder up on this thread, outside any handler: its per-thread cache and the
 * loader's list of objects are made here, not in the first sample. */
static void warm_up(void)
{
	if (vt_cfg.sampling_unwind != VT_UNWIND_LIBUNWIND)
		return;
	unw_context_t uc;
	unw_cursor_t c;
	if (smp.unw.getcontext(&uc) < 0 || smp.unw.init_local(&c, &uc) < 0)
		return;
	for (int i = 0; i < VT_REC_SAMPLE_MAX && smp.unw.step(&c) > 0; i++)
		;
}

static void thread_begin(struct vt_tls *t, struct vt_loc *loc)
{
	struct sampler *s = &self;
	(void)t;
	(void)loc;
	if (!smp.on || s->armed)
		return;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	s->fd = -1;
	vt_unwind_thread_init(&s->unwind);
	warm_up();
	/*
	 * cpu: the perf task clock where perf_event_open is allowed, else a POSIX CPU-time
	 * timer, which the kernel checks only at its scheduler tick (CONFIG_HZ): with HZ=250 a
	 * 1 ms period gives one sample per 4 ms of CPU time (a note says so).
	 */
	bool perf = vt_cfg.sampling_source != VT_SAMPLING_WALL;
	int rc = perf ? arm_perf(s, tid) : arm_timer(s, tid);
	if (rc < 0 && vt_cfg.sampling_source == VT_SAMPLING_CPU) {
		static int noted;
		if (!__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
			vt_notice(
			    "VT_SAMPLING_SOURCE=cpu: perf_event_open is not allowed here (%s; "
			    "see /proc/sys/kernel/perf_event_paranoid); a CPU-time timer "
			    "samples instead, at most once per scheduler tick",
			    strerror(errno));
		perf = false;
		rc = arm_timer(s, tid);
	}
	if (rc < 0) {
		static int warned;
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			vt_error("VT_SAMPLING_SOURCE=%s: cannot start the sampling %s of thread "
				 "%u: %s; that thread is not sampled",
				 source_name(), perf ? "perf event" : "timer", loc ? loc->index : 0,
				 strerror(errno));
		return;
	}
	s->armed = true;
	pthread_mutex_lock(&smp.samplers_lock);
	s->next = smp.samplers;
	smp.samplers = s;
	pthread_mutex_unlock(&smp.samplers_lock);
}

/* Caller holds samplers_lock. */
static void disarm_locked(struct sampler *s)
{
	if (!s->armed)
		return;
	s->armed = false;
	if (s->fd >= 0) {
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		close(s->fd);
		s->fd = -1;
	} else {
		timer_delete(s->timer);
	}
	for (struct sampler **p = &smp.samplers; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
}

static void thread_end(struct vt_tls *t, struct vt_loc *loc)
{
	(void)t;
	(void)loc;
	pthread_mutex_lock(&smp.samplers_lock);
	disarm_locked(&self);
	pthread_mutex_unlock(&smp.samplers_lock);
	/* A signal already queued finds no cache (the handler runs on this thread). */
	vt_signal_fence();
	vt_unwind_thread_fini(&self.unwind);
}

static int init(void)
{
	if (!vt_cfg.sampling)
		return 0;
	smp.max_frames = (unsigned)vt_cfg.sampling_depth;
	if (vt_cfg.sampling_unwind == VT_UNWIND_LIBUNWIND && !load_libunwind())
		return 0;
	int sig = (int)vt_cfg.sampling_signal;
	struct sigaction old, sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	if (sig == SIGKILL || sig == SIGSTOP || vt_real_sigaction(sig, &sa, &old) != 0) {
		vt_error(
		    "VT_SAMPLING_SIGNAL=%d: cannot take this signal (%s); sampling is off", sig,
		    sig == SIGKILL || sig == SIGSTOP ? "it cannot be caught" : strerror(errno));
		return 0;
	}
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
		vt_warn("VT_SAMPLING_SIGNAL=%d: the program had a handler for this signal; vt's "
			"replaces it (pick another with VT_SAMPLING_SIGNAL)",
			sig);
	/* Handlers hand full halves to the writer; they cannot start it. */
	vt_thread_writer_start();
	/* Every source counts time: the period is in nanoseconds. */
	vt_callctx_set_generator(source_name(), OTF2_INTERRUPT_GENERATOR_MODE_TIME,
				 vt_cfg.sampling_period);
	smp.on = true;
	static const char *const how[] = {"unwind tables", "libunwind", "frame pointers"};
	vt_info("sampling every %llu ns of %s, up to %u frames (%s)",
		(unsigned long long)vt_cfg.sampling_period, source_name(), smp.max_frames,
		how[vt_cfg.sampling_unwind]);
	return 0;
}

static void stop(void)
{
	if (!smp.on)
		return;
	__atomic_store_n(&smp.stopping, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&smp.samplers_lock);
	while (smp.samplers)
		disarm_locked(smp.samplers);
	pthread_mutex_unlock(&smp.samplers_lock);
	/* The handler stays: a signal already on its way must not take the default action
	 * (SIGPROF's ends the program). */
	uint64_t taken = __atomic_load_n(&smp.n_taken, __ATOMIC_RELAXED);
	uint64_t lost = __atomic_load_n(&smp.n_lost, __ATOMIC_RELAXED);
	/* A program that sets its own handler for the signal after vt took it (a profiler of
	 * its own, setitimer in main) ends the samples without a word otherwise. */
	struct sigaction cur;
	int sig = (int)vt_cfg.sampling_signal;
	if (vt_real_sigaction(sig, NULL, &cur) == 0 &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_signal))
		vt_warn("VT_SAMPLING_SIGNAL=%d: the program set its own handler for this signal "
			"during the run, and samples stopped then (%llu taken); pick a signal it "
			"does not use with VT_SAMPLING_SIGNAL (a real-time one such as 40)",
			sig, (unsigned long long)taken);
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)taken);
	vt_annot_property("VT::SAMPLING::SAMPLES", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)lost);
	vt_annot_property("VT::SAMPLING::LOST", v);
	if (lost)
		vt_warn("sampling: %llu of %llu samples were lost (the buffer was full while the "
			"writer was busy); the trace's property VT::SAMPLING::LOST says so; "
			"raise VT_BUFFER_SIZE or VT_SAMPLING_PERIOD",
			(unsigned long long)lost, (unsigned long long)(taken + lost));
	/* What a sample costs in vt's handler (the kernel's delivery of the signal comes on
	 * top: bench/run-sampling.py measures both). */
	double ns = taken ? (double)__atomic_load_n(&smp.handler_ticks, __ATOMIC_RELAXED) * 1e9 /
				(double)vt_clock_resolution() / (double)taken
			  : 0;
	vt_info("sampling: %llu samples, %llu while vt itself ran; %.0f ns per sample in the "
		"handler",
		(unsigned long long)taken, (unsigned long long)smp.n_skipped, ns);
}

const struct vt_subsystem vt_sample_subsystem = {
    .name = "sampling",
    .init = init,
    .thread_begin = thread_begin,
    .thread_end = thread_end,
    .stop = stop,
};

/* interpose/vt_pthread.c asks, through the lifecycle, whether a new thread of the program
 * gets its location at its start: when sampling is on, since a program nobody instrumented
 * (vtrun) records nothing else that would make one; not once the run ends. */
bool vt_sample_wants_threads(void)
{
	return smp.on && !__atomic_load_n(&smp.stopping, __ATOMIC_RELAXED);
}
