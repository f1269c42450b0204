/* SPDX-License-Identifier: BSD-3-Clause */
/* Every OTF2 3.0 event kind with its reader callback parameters: the trace layer reads all. */
#ifndef VTR_EVENT_KINDS_H
#define VTR_EVENT_KINDS_H

/*
 * X(Name, (parameters)) for every event of OTF2_EvtReaderCallbacks.h. The parameters after
 * VTR_EVT_ARGS must match the header's callback typedef exactly; the compiler checks it when
 * vtr_read.c passes each callback to OTF2_EvtReaderCallbacks_Set<Name>Callback. A kind that a newer
 * OTF2 adds arrives through the Unknown callback until it is listed here.
 * Users that only want the names never expand the parameters, so they need no OTF2 header.
 */
#define VTR_EVT_ARGS                                                                               \
	OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user,             \
	    OTF2_AttributeList *attributes

/* These have callbacks of their own in vtr_read.c (the call stack, buffer flushes). */
#define VTR_MAIN_EVENT_KINDS(X)                                                                    \
	X(Enter, (VTR_EVT_ARGS, OTF2_RegionRef region))                                            \
	X(Leave, (VTR_EVT_ARGS, OTF2_RegionRef region))                                            \
	X(BufferFlush, (VTR_EVT_ARGS, OTF2_TimeStamp stop))

/* Every other kind reaches the tool as a generic event; vtr_read.c adds callbacks of its own
 * for the MPI ones it matches. */
#define VTR_OTHER_EVENT_KINDS(X)                                                                   \
	X(MeasurementOnOff, (VTR_EVT_ARGS, OTF2_MeasurementMode a))                                \
	X(MpiSend, (VTR_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d))             \
	X(MpiIsend,                                                                                \
	  (VTR_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d, uint64_t e))          \
	X(MpiIsendComplete, (VTR_EVT_ARGS, uint64_t a))                                            \
	X(MpiIrecvRequest, (VTR_EVT_ARGS, uint64_t a))                                             \
	X(MpiRecv, (VTR_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d))             \
	X(MpiIrecv,                                                                                \
	  (VTR_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d, uint64_t e))          \
	X(MpiRequestTest, (VTR_EVT_ARGS, uint64_t a))                                              \
	X(MpiRequestCancelled, (VTR_EVT_ARGS, uint64_t a))                                         \
	X(MpiCollectiveBegin, (VTR_EVT_ARGS))                                                      \
	X(MpiCollectiveEnd,                                                                        \
	  (VTR_EVT_ARGS, OTF2_CollectiveOp a, OTF2_CommRef b, uint32_t c, uint64_t d, uint64_t e)) \
	X(OmpFork, (VTR_EVT_ARGS, uint32_t a))                                                     \
	X(OmpJoin, (VTR_EVT_ARGS))                                                                 \
	X(OmpAcquireLock, (VTR_EVT_ARGS, uint32_t a, uint32_t b))                                  \
	X(OmpReleaseLock, (VTR_EVT_ARGS, uint32_t a, uint32_t b))                                  \
	X(OmpTaskCreate, (VTR_EVT_ARGS, uint64_t a))                                               \
	X(OmpTaskSwitch, (VTR_EVT_ARGS, uint64_t a))                                               \
	X(OmpTaskComplete, (VTR_EVT_ARGS, uint64_t a))                                             \
	X(Metric, (VTR_EVT_ARGS, OTF2_MetricRef a, uint8_t b, const OTF2_Type *c,                  \
		   const OTF2_MetricValue *d))                                                     \
	X(ParameterString, (VTR_EVT_ARGS, OTF2_ParameterRef a, OTF2_StringRef b))                  \
	X(ParameterInt, (VTR_EVT_ARGS, OTF2_ParameterRef a, int64_t b))                            \
	X(ParameterUnsignedInt, (VTR_EVT_ARGS, OTF2_ParameterRef a, uint64_t b))                   \
	X(RmaWinCreate, (VTR_EVT_ARGS, OTF2_RmaWinRef a))                                          \
	X(RmaWinDestroy, (VTR_EVT_ARGS, OTF2_RmaWinRef a))                                         \
	X(RmaCollectiveBegin, (VTR_EVT_ARGS))                                                      \
	X(RmaCollectiveEnd, (VTR_EVT_ARGS, OTF2_CollectiveOp a, OTF2_RmaSyncLevel b,               \
			     OTF2_RmaWinRef c, uint32_t d, uint64_t e, uint64_t f))                \
	X(RmaGroupSync, (VTR_EVT_ARGS, OTF2_RmaSyncLevel a, OTF2_RmaWinRef b, OTF2_GroupRef c))    \
	X(RmaRequestLock,                                                                          \
	  (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d))               \
	X(RmaAcquireLock,                                                                          \
	  (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d))               \
	X(RmaTryLock, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d))   \
	X(RmaReleaseLock, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c))                \
	X(RmaSync, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaSyncType c))               \
	X(RmaWaitChange, (VTR_EVT_ARGS, OTF2_RmaWinRef a))                                         \
	X(RmaPut, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d))            \
	X(RmaGet, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d))            \
	X(RmaAtomic, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaAtomicType c,            \
		      uint64_t d, uint64_t e, uint64_t f))                                         \
	X(RmaOpCompleteBlocking, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b))                     \
	X(RmaOpCompleteNonBlocking, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b))                  \
	X(RmaOpTest, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b))                                 \
	X(RmaOpCompleteRemote, (VTR_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b))                       \
	X(ThreadFork, (VTR_EVT_ARGS, OTF2_Paradigm a, uint32_t b))                                 \
	X(ThreadJoin, (VTR_EVT_ARGS, OTF2_Paradigm a))                                             \
	X(ThreadTeamBegin, (VTR_EVT_ARGS, OTF2_CommRef a))                                         \
	X(ThreadTeamEnd, (VTR_EVT_ARGS, OTF2_CommRef a))                                           \
	X(ThreadAcquireLock, (VTR_EVT_ARGS, OTF2_Paradigm a, uint32_t b, uint32_t c))              \
	X(ThreadReleaseLock, (VTR_EVT_ARGS, OTF2_Paradigm a, uint32_t b, uint32_t c))              \
	X(ThreadTaskCreate, (VTR_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c))                \
	X(ThreadTaskSwitch, (VTR_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c))                \
	X(ThreadTaskComplete, (VTR_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c))              \
	X(ThreadCreate, (VTR_EVT_ARGS, OTF2_CommRef a, uint64_t b))                                \
	X(ThreadBegin, (VTR_EVT_ARGS, OTF2_CommRef a, uint64_t b))                                 \
	X(ThreadWait, (VTR_EVT_ARGS, OTF2_CommRef a, uint64_t b))                                  \
	X(ThreadEnd, (VTR_EVT_ARGS, OTF2_CommRef a, uint64_t b))                                   \
	X(CallingContextEnter, (VTR_EVT_ARGS, OTF2_CallingContextRef a, uint32_t b))               \
	X(CallingContextLeave, (VTR_EVT_ARGS, OTF2_CallingContextRef a))                           \
	X(CallingContextSample,                                                                    \
	  (VTR_EVT_ARGS, OTF2_CallingContextRef a, uint32_t b, OTF2_InterruptGeneratorRef c))      \
	X(IoCreateHandle, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoAccessMode b,                  \
			   OTF2_IoCreationFlag c, OTF2_IoStatusFlag d))                            \
	X(IoDestroyHandle, (VTR_EVT_ARGS, OTF2_IoHandleRef a))                                     \
	X(IoDuplicateHandle,                                                                       \
	  (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoHandleRef b, OTF2_IoStatusFlag c))             \
	X(IoSeek, (VTR_EVT_ARGS, OTF2_IoHandleRef a, int64_t b, OTF2_IoSeekOption c, uint64_t d))  \
	X(IoChangeStatusFlags, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoStatusFlag b))            \
	X(IoDeleteFile, (VTR_EVT_ARGS, OTF2_IoParadigmRef a, OTF2_IoFileRef b))                    \
	X(IoOperationBegin, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoOperationMode b,             \
			     OTF2_IoOperationFlag c, uint64_t d, uint64_t e))                      \
	X(IoOperationTest, (VTR_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b))                         \
	X(IoOperationIssued, (VTR_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b))                       \
	X(IoOperationComplete, (VTR_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b, uint64_t c))         \
	X(IoOperationCancelled, (VTR_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b))                    \
	X(IoAcquireLock, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b))                      \
	X(IoReleaseLock, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b))                      \
	X(IoTryLock, (VTR_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b))                          \
	X(ProgramBegin, (VTR_EVT_ARGS, OTF2_StringRef a, uint32_t b, const OTF2_StringRef *c))     \
	X(ProgramEnd, (VTR_EVT_ARGS, int64_t a))                                                   \
	X(NonBlockingCollectiveRequest, (VTR_EVT_ARGS, uint64_t a))                                \
	X(NonBlockingCollectiveComplete, (VTR_EVT_ARGS, OTF2_CollectiveOp a, OTF2_CommRef b,       \
					  uint32_t c, uint64_t d, uint64_t e, uint64_t f))         \
	X(CommCreate, (VTR_EVT_ARGS, OTF2_CommRef a))                                              \
	X(CommDestroy, (VTR_EVT_ARGS, OTF2_CommRef a))                                             \
	X(Unknown, (VTR_EVT_ARGS))

#endif
