/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt's simulator plugin interface: what vt-sim hands a what-if simulator while it replays an
 * OTF2 trace. It mirrors the Custom Plug-in Framework of Intel Trace Analyzer (CPF): the same
 * three structures (a function event, a point-to-point message, a collective), the same calls
 * in the same order, and the same rule that a simulator changes end times only.
 * C++ simulators written for CPF compile against <vt/vt_sim.hpp> instead.
 *
 * Writing a simulator, in short (share/vt/sim-template is a complete one to copy):
 *  - build a shared library with the flags of `pkg-config --cflags vt-sim`; name it
 *    libvt-sim-NAME.so and install it where `pkg-config --variable=simdir vt-sim` says (or
 *    anywhere VT_SIM_PATH lists) to use it as `vt-sim -s NAME`, or give its path to -s;
 *  - export vt_sim_plugin() returning a static struct vt_sim_plugin: size set to its sizeof,
 *    abi_version to VT_SIM_ABI_VERSION, and the calls you need (NULL: nothing to do);
 *  - create() gets the replay's context (parameters, trace facts, names, classification)
 *    and returns the simulator's state, handed back to every call; NULL fails the run;
 *  - in the Process calls, change the end times (end, send_end, recv_end) and nothing else:
 *    vt-sim checks after every call that no end lies below its start and stops the replay
 *    naming the simulator and the event when one does;
 *  - all times are in ticks of the trace clock (clock_resolution ticks per second), on the
 *    replayed time line: starts already carry every change made before them.
 * The calls come in replay order, on one thread; see docs/sim.md for what each event means.
 * Every structure starts with its size: read a field only when size says it is there.
 */
#ifndef VT_SIM_H
#define VT_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface version this header describes. vt-sim loads a simulator whose version it
 * knows (1 up to its own); later versions only add fields at the ends of the structures. */
#define VT_SIM_ABI_VERSION 1

/* A function event on one thread (CPF's FuncEventData): an application region, an MPI call
 * of one rank, a member of a collective, or a non-tracing period. Only end may change, and
 * never below start. */
struct vt_sim_event {
	size_t size;
	uint32_t thread;   /* the location's index, 0 .. num_threads - 1 */
	uint32_t func;	   /* the region id; VT_SIM_NONTRACING for non-tracing periods */
	uint64_t sent;	   /* bytes this member sent (collectives; non-blocking sends) */
	uint64_t received; /* bytes this member received (collectives) */
	uint64_t start;
	uint64_t end; /* may be changed, never below start */
	/* vt's additions. The time spent in the region itself, children excluded, were end
	 * left as it is; a change of end changes it by the same amount. */
	uint64_t exclusive;
};

/* The func of a non-tracing period (before a thread's first event, recording switched off). */
#define VT_SIM_NONTRACING UINT32_MAX

/* A point-to-point message (CPF's P2PInfo). Only send_end and recv_end may change. */
struct vt_sim_p2p {
	size_t size;
	uint64_t send_start;
	uint64_t send_end;    /* valid in process_nonblocking_send; may change there */
	uint64_t recv_start;  /* the receive call's start (blocking, sendrecv, wait calls) */
	uint64_t recv_end;    /* may change, never below recv_start; 0 for non-blocking sends */
	uint64_t irecv_start; /* waitall/waitsome: the start of the message's Irecv */
	int backwards;	      /* the send started after the receive ended (clock skew) */
	uint32_t sender, receiver; /* threads (location indexes) */
	uint32_t comm, tag;
	uint64_t bytes;
	uint32_t send_func, recv_func; /* region ids of the calls */
};

/* One collective, with every member (CPF's CollOpInfo). Only members[i].end may change. */
struct vt_sim_coll {
	size_t size;
	uint64_t first_time; /* the earliest entry of a member */
	uint32_t comm;
	uint32_t func;	     /* the region id of the collective call */
	uint32_t root;	     /* the root's thread (one-to-all, all-to-one), else UINT32_MAX */
	uint32_t root_index; /* the root's index in members, else UINT32_MAX */
	uint32_t n;
	struct vt_sim_event *members; /* in communicator rank order */
};

/* The classes of regions (func ids), as flags in vt_sim_context.func_class. */
enum vt_sim_class {
	VT_SIM_SINGLE_RANK = 1 << 0, /* an MPI call that involves one rank only */
	VT_SIM_COLLECTIVE = 1 << 1,
	VT_SIM_P2P = 1 << 2,
	VT_SIM_ALL_TO_ALL = 1 << 3, /* collectives: who waits for whom */
	VT_SIM_ONE_TO_ALL = 1 << 4,
	VT_SIM_ALL_TO_ONE = 1 << 5,
	VT_SIM_ALL = 1 << 6,  /* a barrier: everyone for everyone, no data */
	VT_SIM_SEND = 1 << 7, /* point-to-point kinds */
	VT_SIM_SYNC_SEND = 1 << 8,
	VT_SIM_SENDRECV = 1 << 9,
	VT_SIM_RECV = 1 << 10,
	VT_SIM_MPI = 1 << 11 /* any MPI call */
};

/* What a simulator is told about the replay (CPF's private members), valid until destroy. */
struct vt_sim_context {
	size_t size;
	const char *name; /* the simulator's name as given to -s */
	int nparams;	  /* the k=v (or bare) parameters after NAME: */
	const char *const *params;
	const char *input_path; /* the input trace's anchor file */
	uint64_t trace_start, trace_end;
	uint32_t num_threads;	       /* locations */
	double clock_resolution;       /* seconds per tick */
	uint32_t ncomms;	       /* communicator ids 0 .. ncomms - 1 */
	const char *const *comm_names; /* "" for undefined ids */
	uint32_t nfuncs;	       /* region ids 0 .. nfuncs - 1 */
	const char *const *func_names;
	const uint32_t *func_class; /* enum vt_sim_class flags per region id */
	const char *const *thread_names;
};

/* The simulator's functions, as it exports them. Any call may be NULL. */
struct vt_sim_plugin {
	size_t size;
	uint32_t abi_version; /* VT_SIM_ABI_VERSION */
	void *(*create)(const struct vt_sim_context *ctx);
	void (*initialize)(void *sim);
	void (*process_function_event)(void *sim, struct vt_sim_event *ev);
	void (*process_nontracing_event)(void *sim, struct vt_sim_event *ev);
	void (*process_mpi_function_event)(void *sim, struct vt_sim_event *ev);
	void (*process_coll_op)(void *sim, struct vt_sim_coll *coll);
	void (*process_p2p)(void *sim, struct vt_sim_p2p *msg);
	void (*process_nonblocking_send)(void *sim, struct vt_sim_event *ev,
					 struct vt_sim_p2p *msg);
	void (*process_p2p_waitallsome)(void *sim, struct vt_sim_p2p *const *msgs, uint32_t n);
	void (*finalize)(void *sim);
	void (*destroy)(void *sim);
};

/* The one symbol a simulator exports. */
#define VT_SIM_PLUGIN_SYMBOL "vt_sim_plugin"
typedef const struct vt_sim_plugin *vt_sim_plugin_fn(void);
__attribute__((visibility("default"))) const struct vt_sim_plugin *vt_sim_plugin(void);

/* The classification helpers (CPF's isSingleRankFunc ... isRecv). */
static inline int vt_sim_is(const struct vt_sim_context *ctx, uint32_t func, uint32_t cls)
{
	return func < ctx->nfuncs && (ctx->func_class[func] & cls) != 0;
}
#define vt_sim_is_single_rank(ctx, f) vt_sim_is(ctx, f, VT_SIM_SINGLE_RANK)
#define vt_sim_is_collective(ctx, f)  vt_sim_is(ctx, f, VT_SIM_COLLECTIVE)
#define vt_sim_is_p2p(ctx, f)	      vt_sim_is(ctx, f, VT_SIM_P2P)
#define vt_sim_is_all_to_all(ctx, f)  vt_sim_is(ctx, f, VT_SIM_ALL_TO_ALL)
#define vt_sim_is_one_to_all(ctx, f)  vt_sim_is(ctx, f, VT_SIM_ONE_TO_ALL)
#define vt_sim_is_all_to_one(ctx, f)  vt_sim_is(ctx, f, VT_SIM_ALL_TO_ONE)
#define vt_sim_is_all(ctx, f)	      vt_sim_is(ctx, f, VT_SIM_ALL)
#define vt_sim_is_send(ctx, f)	      vt_sim_is(ctx, f, VT_SIM_SEND)
#define vt_sim_is_sync_send(ctx, f)   vt_sim_is(ctx, f, VT_SIM_SYNC_SEND)
#define vt_sim_is_sendrecv(ctx, f)    vt_sim_is(ctx, f, VT_SIM_SENDRECV)
#define vt_sim_is_recv(ctx, f)	      vt_sim_is(ctx, f, VT_SIM_RECV)

/* The value of parameter key ("key=value"), "" for a bare "key", or NULL when not given. */
static inline const char *vt_sim_param(const struct vt_sim_context *ctx, const char *key)
{
	for (int i = 0; i < ctx->nparams; i++) {
		const char *p = ctx->params[i], *k = key;
		while (*k && *p == *k)
			p++, k++;
		if (!*k && (*p == '=' || !*p))
			return *p ? p + 1 : p;
	}
	return (const char *)0;
}

#ifdef __cplusplus
}
#endif

#endif
