// SPDX-License-Identifier: BSD-3-Clause
// A simulator written the way Intel Trace Analyzer's Custom Plug-in Framework asks: a class
// derived from CustomPluginFramework and the create/destroy factories. It makes the region
// "work" run factor (a command-line parameter, default 0.5) times as long, counts what it
// is handed, and reports it, with the trace facts CPF's members carry, at Finalize.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <vt/vt_sim.hpp>

class HalfWork : public CustomPluginFramework
{
      public:
	void Initialize() override
	{
		for (char *p : _commandLineParams)
			if (!strncmp(p, "factor=", 7))
				factor = atof(p + 7);
		initialized = true;
	}

	void Finalize() override
	{
		std::printf("cpfsim: initialized %d, %u function events, %u non-tracing, %u MPI, "
			    "%u threads, %zu functions, factor %g, start %llu, end %llu, "
			    "resolution %.3g, path %s\n",
			    initialized ? 1 : 0, functions, nontracing, mpi, _numThreads,
			    _singleRankFuncs.size(), factor, (unsigned long long)_stfStart,
			    (unsigned long long)_stfEnd, _clockResolution, _stfPath);
	}

	void ProcessFunctionEvent(FuncEventInfo *e) override
	{
		functions++;
		if (isP2P(e->_func) || isCollectiveOperation(e->_func))
			std::abort(); // never: application regions only
		if (!std::strcmp(functionName(e->_func), "work"))
			e->_endTime = e->_startTime + U8((e->_endTime - e->_startTime) * factor);
	}

	void ProcessNonTracingEvent(FuncEventInfo *) override
	{
		nontracing++;
	}
	void ProcessMPIFunctionEvent(FuncEventInfo *) override
	{
		mpi++;
	}
	void ProcessCollOp(CollOpInfo *) override
	{
	}
	void ProcessP2P(P2PInfo *) override
	{
	}
	void ProcessNonBlockingSend(FuncEventInfo *, P2PInfo *) override
	{
	}
	void ProcessP2PWaitAllSome(Vector<P2PInfo *, ObjectPointerAllocator<P2PInfo *>> *) override
	{
	}

      private:
	double factor = 0.5;
	bool initialized = false;
	unsigned functions = 0, nontracing = 0, mpi = 0;
};

extern "C" CustomPluginFramework *create()
{
	return new HalfWork;
}

extern "C" void destroy(CustomPluginFramework *p)
{
	delete p;
}
