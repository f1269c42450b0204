/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C++ face of vt's simulator interface: the abstract class of Intel Trace Analyzer's
 * Custom Plug-in Framework (CPF), with its structures, members, helpers and factories, so
 * that a simulator written for CPF builds for vt-sim by recompiling against this header.
 *
 * A simulator derives from CustomPluginFramework, implements the nine Process/Initialize/
 * Finalize functions, and defines the two factories CPF loads:
 *     extern "C" CustomPluginFramework *create() { return new MySim; }
 *     extern "C" void destroy(CustomPluginFramework *p) { delete p; }
 * This header turns them into the C ABI of <vt/vt_sim.h> (it defines vt_sim_plugin()), so
 * the library loads with `vt-sim -s ./libMySim.so` like any other simulator. The rules are
 * CPF's: change end times only (_endTime, _sendEndTime, _recvEndTime), never below their
 * starts. Times are ticks of the trace clock; _clockResolution is the length of one in s.
 */
#ifndef VT_SIM_HPP
#define VT_SIM_HPP

#include <map>
#include <memory>
#include <vector>

#include "vt_sim.h"

typedef uint32_t U4;
typedef uint64_t U8;
typedef int32_t I4;
typedef int64_t I8;
typedef float F4;
typedef double F8;

/* CPF's containers, as the standard library's. */
template <class T, class A = std::allocator<T>> using Vector = std::vector<T, A>;
template <class K, class V> using HashMap = std::map<K, V>;
template <class T> using ObjectPointerAllocator = std::allocator<T>;

/* A function event on one thread; only _endTime may change, never below _startTime. */
struct FuncEventData {
	U4 _threadID;
	U4 _func;
	U8 _sizeSent;
	U8 _sizeRecv;
	U8 _startTime;
	U8 _endTime;
};
typedef FuncEventData FuncEventInfo;

/* A point-to-point message; only _sendEndTime and _recvEndTime may change. */
struct P2PInfo {
	U8 _sendStartTime;
	U8 _sendEndTime;
	U8 _recvStartTime;
	U8 _recvEndTime;
	U8 _iRecvStartTime;
	bool _backwards;
	U4 _sender;
	U4 _receiver;
	U4 _communicator;
	U4 _tag;
	U8 _messageSize;
	U4 _sendFID;
	U4 _recvFID;
};

/* A collective with its members' events; only their _endTime may change. */
struct CollOpInfo {
	U8 _firstTime;
	U4 _communicator;
	U4 _collOpId;
	U4 _root;
	U4 _rootIndex;
	Vector<FuncEventData *> _threads;
};

class CustomPluginFramework
{
      public:
	virtual ~CustomPluginFramework()
	{
	}

	virtual void Initialize() = 0;
	virtual void Finalize() = 0;
	virtual void ProcessFunctionEvent(FuncEventInfo *event) = 0;
	virtual void ProcessNonTracingEvent(FuncEventInfo *event) = 0;
	virtual void ProcessMPIFunctionEvent(FuncEventInfo *event) = 0;
	virtual void ProcessCollOp(CollOpInfo *collop) = 0;
	virtual void ProcessP2P(P2PInfo *message) = 0;
	virtual void ProcessNonBlockingSend(FuncEventInfo *event, P2PInfo *message) = 0;
	virtual void
	ProcessP2PWaitAllSome(Vector<P2PInfo *, ObjectPointerAllocator<P2PInfo *>> *messages) = 0;

	/* CPF's classification helpers. */
	bool isSingleRankFunc(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_SINGLE_RANK);
	}
	bool isCollectiveOperation(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_COLLECTIVE);
	}
	bool isP2P(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_P2P);
	}
	bool isAllToAll(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_ALL_TO_ALL);
	}
	bool isOneToAll(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_ONE_TO_ALL);
	}
	bool isAllToOne(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_ALL_TO_ONE);
	}
	bool isAll(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_ALL);
	}
	bool isSendP2P(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_SEND);
	}
	bool isSyncSendP2P(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_SYNC_SEND);
	}
	bool isSendRecv(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_SENDRECV);
	}
	bool isRecv(U4 id) const
	{
		return vt_sim_is(_ctx, id, VT_SIM_RECV);
	}

	/* vt's addition: the name of a function id ("" when unknown). */
	const char *functionName(U4 id) const
	{
		return _ctx && id < _ctx->nfuncs ? _ctx->func_names[id] : "";
	}

	/* Called by vt-sim before Initialize (CPF's setup); not for simulators. */
	void vt_setup(const struct vt_sim_context *ctx)
	{
		_ctx = ctx;
		for (int i = 0; i < ctx->nparams; i++)
			_commandLineParams.push_back(const_cast<char *>(ctx->params[i]));
		_stfPath = const_cast<char *>(ctx->input_path);
		_stfStart = ctx->trace_start;
		_stfEnd = ctx->trace_end;
		_numThreads = ctx->num_threads;
		_clockResolution = ctx->clock_resolution;
		/* Per function id: the id when it is of the class, else (U4)-1. */
		for (U4 f = 0; f < ctx->nfuncs; f++) {
			_singleRankFuncs.push_back(isSingleRankFunc(f) ? f : U4(-1));
			_collOpFuncs.push_back(isCollectiveOperation(f) ? f : U4(-1));
			_P2PFuncs.push_back(isP2P(f) ? f : U4(-1));
		}
		for (U4 c = 0; c < ctx->ncomms; c++)
			_communicatorsMapped[c] = ctx->comm_names[c];
	}

      protected:
	Vector<char *> _commandLineParams;
	char *_stfPath = nullptr;
	U8 _stfStart = 0;
	U8 _stfEnd = 0;
	U4 _numThreads = 0;
	F8 _clockResolution = 0;
	Vector<U4> _singleRankFuncs;
	Vector<U4> _collOpFuncs;
	Vector<U4> _P2PFuncs;
	HashMap<U4, const char *> _communicatorsMapped;

      private:
	const struct vt_sim_context *_ctx = nullptr;
};

/* The factories CPF loads; the simulator defines them. */
typedef CustomPluginFramework *create_t();
typedef void destroy_t(CustomPluginFramework *);
extern "C" CustomPluginFramework *create();
extern "C" void destroy(CustomPluginFramework *);

/* ---- the bridge to the C ABI (one per library: vt_sim_plugin is weak) ---- */
namespace vt_sim_cpf
{

static inline FuncEventData from(const vt_sim_event *e)
{
	return FuncEventData{e->thread, e->func, e->sent, e->received, e->start, e->end};
}

static inline P2PInfo from(const vt_sim_p2p *m)
{
	return P2PInfo{m->send_start,	  m->send_end,	m->recv_start, m->recv_end, m->irecv_start,
		       m->backwards != 0, m->sender,	m->receiver,   m->comm,	    m->tag,
		       m->bytes,	  m->send_func, m->recv_func};
}

static inline void back(vt_sim_p2p *m, const P2PInfo &p)
{
	m->send_end = p._sendEndTime;
	m->recv_end = p._recvEndTime;
}

static inline CustomPluginFramework *sim(void *p)
{
	return static_cast<CustomPluginFramework *>(p);
}

static void *create_(const struct vt_sim_context *ctx)
{
	CustomPluginFramework *s = ::create();
	if (s)
		s->vt_setup(ctx);
	return s;
}
static void destroy_(void *p)
{
	::destroy(sim(p));
}
static void initialize_(void *p)
{
	sim(p)->Initialize();
}
static void finalize_(void *p)
{
	sim(p)->Finalize();
}

#define VT_SIM_CPF_EVENT(name, method)                                                             \
	static void name(void *p, vt_sim_event *e)                                                 \
	{                                                                                          \
		FuncEventData d = from(e);                                                         \
		sim(p)->method(&d);                                                                \
		e->end = d._endTime;                                                               \
	}
VT_SIM_CPF_EVENT(function_, ProcessFunctionEvent)
VT_SIM_CPF_EVENT(nontracing_, ProcessNonTracingEvent)
VT_SIM_CPF_EVENT(mpi_, ProcessMPIFunctionEvent)
#undef VT_SIM_CPF_EVENT

static void coll_(void *p, vt_sim_coll *c)
{
	std::vector<FuncEventData> d;
	for (uint32_t i = 0; i < c->n; i++)
		d.push_back(from(&c->members[i]));
	CollOpInfo info{c->first_time, c->comm, c->func, c->root, c->root_index, {}};
	for (auto &x : d)
		info._threads.push_back(&x);
	sim(p)->ProcessCollOp(&info);
	for (uint32_t i = 0; i < c->n; i++)
		c->members[i].end = d[i]._endTime;
}

static void p2p_(void *p, vt_sim_p2p *m)
{
	P2PInfo info = from(m);
	sim(p)->ProcessP2P(&info);
	back(m, info);
}

static void nbsend_(void *p, vt_sim_event *e, vt_sim_p2p *m)
{
	FuncEventData d = from(e);
	P2PInfo info = from(m);
	sim(p)->ProcessNonBlockingSend(&d, &info);
	e->end = d._endTime;
	back(m, info);
}

static void waitallsome_(void *p, vt_sim_p2p *const *m, uint32_t n)
{
	std::vector<P2PInfo> info;
	for (uint32_t i = 0; i < n; i++)
		info.push_back(from(m[i]));
	Vector<P2PInfo *, ObjectPointerAllocator<P2PInfo *>> v;
	for (auto &x : info)
		v.push_back(&x);
	sim(p)->ProcessP2PWaitAllSome(&v);
	for (uint32_t i = 0; i < n; i++)
		back(m[i], info[i]);
}

} // namespace vt_sim_cpf

extern "C" __attribute__((weak, visibility("default"))) const struct vt_sim_plugin *
vt_sim_plugin(void)
{
	using namespace vt_sim_cpf;
	static const struct vt_sim_plugin p = {sizeof(struct vt_sim_plugin),
					       VT_SIM_ABI_VERSION,
					       create_,
					       initialize_,
					       function_,
					       nontracing_,
					       mpi_,
					       coll_,
					       p2p_,
					       nbsend_,
					       waitallsome_,
					       finalize_,
					       destroy_};
	return &p;
}

#endif
