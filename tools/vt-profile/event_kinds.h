/* SPDX-License-Identifier: BSD-3-Clause */
/* The OTF2 3.0 event kinds vt-profile counts, with their reader callback parameters. */
#ifndef VT_PROF_EVENT_KINDS_H
#define VT_PROF_EVENT_KINDS_H

/*
 * X(Name, (parameters)) for every event of OTF2_EvtReaderCallbacks.h. The parameters after
 * VT_PROF_EVT_ARGS must match the header's callback typedef exactly; the compiler checks it when
 * read.c passes each callback to OTF2_EvtReaderCallbacks_Set<Name>Callback. A kind that a newer
 * OTF2 adds arrives through the Unknown callback until it is listed here.
 * Users that only want the names never expand the parameters, so they need no OTF2 header.
 */
#define VT_PROF_EVT_ARGS OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, \
	void *user, OTF2_AttributeList *attributes

/* These feed the profile beyond counting; read.c writes their callbacks out. */
#define VT_PROF_PROFILE_EVENT_KINDS(X) \
	X(Enter, (VT_PROF_EVT_ARGS, OTF2_RegionRef region)) \
	X(Leave, (VT_PROF_EVT_ARGS, OTF2_RegionRef region)) \
	X(BufferFlush, (VT_PROF_EVT_ARGS, OTF2_TimeStamp stop))

/* Every other kind is only counted and has its timestamp checked. */
#define VT_PROF_OTHER_EVENT_KINDS(X) \
	X(MeasurementOnOff, (VT_PROF_EVT_ARGS, OTF2_MeasurementMode a)) \
	X(MpiSend, (VT_PROF_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d)) \
	X(MpiIsend, (VT_PROF_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d, \
		uint64_t e)) \
	X(MpiIsendComplete, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(MpiIrecvRequest, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(MpiRecv, (VT_PROF_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d)) \
	X(MpiIrecv, (VT_PROF_EVT_ARGS, uint32_t a, OTF2_CommRef b, uint32_t c, uint64_t d, \
		uint64_t e)) \
	X(MpiRequestTest, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(MpiRequestCancelled, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(MpiCollectiveBegin, (VT_PROF_EVT_ARGS)) \
	X(MpiCollectiveEnd, (VT_PROF_EVT_ARGS, OTF2_CollectiveOp a, OTF2_CommRef b, uint32_t c, \
		uint64_t d, uint64_t e)) \
	X(OmpFork, (VT_PROF_EVT_ARGS, uint32_t a)) \
	X(OmpJoin, (VT_PROF_EVT_ARGS)) \
	X(OmpAcquireLock, (VT_PROF_EVT_ARGS, uint32_t a, uint32_t b)) \
	X(OmpReleaseLock, (VT_PROF_EVT_ARGS, uint32_t a, uint32_t b)) \
	X(OmpTaskCreate, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(OmpTaskSwitch, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(OmpTaskComplete, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(Metric, (VT_PROF_EVT_ARGS, OTF2_MetricRef a, uint8_t b, const OTF2_Type* c, \
		const OTF2_MetricValue* d)) \
	X(ParameterString, (VT_PROF_EVT_ARGS, OTF2_ParameterRef a, OTF2_StringRef b)) \
	X(ParameterInt, (VT_PROF_EVT_ARGS, OTF2_ParameterRef a, int64_t b)) \
	X(ParameterUnsignedInt, (VT_PROF_EVT_ARGS, OTF2_ParameterRef a, uint64_t b)) \
	X(RmaWinCreate, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a)) \
	X(RmaWinDestroy, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a)) \
	X(RmaCollectiveBegin, (VT_PROF_EVT_ARGS)) \
	X(RmaCollectiveEnd, (VT_PROF_EVT_ARGS, OTF2_CollectiveOp a, OTF2_RmaSyncLevel b, \
		OTF2_RmaWinRef c, uint32_t d, uint64_t e, uint64_t f)) \
	X(RmaGroupSync, (VT_PROF_EVT_ARGS, OTF2_RmaSyncLevel a, OTF2_RmaWinRef b, \
		OTF2_GroupRef c)) \
	X(RmaRequestLock, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, \
		OTF2_LockType d)) \
	X(RmaAcquireLock, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, \
		OTF2_LockType d)) \
	X(RmaTryLock, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, \
		OTF2_LockType d)) \
	X(RmaReleaseLock, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c)) \
	X(RmaSync, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaSyncType c)) \
	X(RmaWaitChange, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a)) \
	X(RmaPut, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d)) \
	X(RmaGet, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d)) \
	X(RmaAtomic, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaAtomicType c, \
		uint64_t d, uint64_t e, uint64_t f)) \
	X(RmaOpCompleteBlocking, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b)) \
	X(RmaOpCompleteNonBlocking, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b)) \
	X(RmaOpTest, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b)) \
	X(RmaOpCompleteRemote, (VT_PROF_EVT_ARGS, OTF2_RmaWinRef a, uint64_t b)) \
	X(ThreadFork, (VT_PROF_EVT_ARGS, OTF2_Paradigm a, uint32_t b)) \
	X(ThreadJoin, (VT_PROF_EVT_ARGS, OTF2_Paradigm a)) \
	X(ThreadTeamBegin, (VT_PROF_EVT_ARGS, OTF2_CommRef a)) \
	X(ThreadTeamEnd, (VT_PROF_EVT_ARGS, OTF2_CommRef a)) \
	X(ThreadAcquireLock, (VT_PROF_EVT_ARGS, OTF2_Paradigm a, uint32_t b, uint32_t c)) \
	X(ThreadReleaseLock, (VT_PROF_EVT_ARGS, OTF2_Paradigm a, uint32_t b, uint32_t c)) \
	X(ThreadTaskCreate, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c)) \
	X(ThreadTaskSwitch, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c)) \
	X(ThreadTaskComplete, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint32_t b, uint32_t c)) \
	X(ThreadCreate, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint64_t b)) \
	X(ThreadBegin, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint64_t b)) \
	X(ThreadWait, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint64_t b)) \
	X(ThreadEnd, (VT_PROF_EVT_ARGS, OTF2_CommRef a, uint64_t b)) \
	X(CallingContextEnter, (VT_PROF_EVT_ARGS, OTF2_CallingContextRef a, uint32_t b)) \
	X(CallingContextLeave, (VT_PROF_EVT_ARGS, OTF2_CallingContextRef a)) \
	X(CallingContextSample, (VT_PROF_EVT_ARGS, OTF2_CallingContextRef a, uint32_t b, \
		OTF2_InterruptGeneratorRef c)) \
	X(IoCreateHandle, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoAccessMode b, \
		OTF2_IoCreationFlag c, OTF2_IoStatusFlag d)) \
	X(IoDestroyHandle, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a)) \
	X(IoDuplicateHandle, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoHandleRef b, \
		OTF2_IoStatusFlag c)) \
	X(IoSeek, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, int64_t b, OTF2_IoSeekOption c, \
		uint64_t d)) \
	X(IoChangeStatusFlags, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoStatusFlag b)) \
	X(IoDeleteFile, (VT_PROF_EVT_ARGS, OTF2_IoParadigmRef a, OTF2_IoFileRef b)) \
	X(IoOperationBegin, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_IoOperationMode b, \
		OTF2_IoOperationFlag c, uint64_t d, uint64_t e)) \
	X(IoOperationTest, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b)) \
	X(IoOperationIssued, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b)) \
	X(IoOperationComplete, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b, uint64_t c)) \
	X(IoOperationCancelled, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, uint64_t b)) \
	X(IoAcquireLock, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b)) \
	X(IoReleaseLock, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b)) \
	X(IoTryLock, (VT_PROF_EVT_ARGS, OTF2_IoHandleRef a, OTF2_LockType b)) \
	X(ProgramBegin, (VT_PROF_EVT_ARGS, OTF2_StringRef a, uint32_t b, \
		const OTF2_StringRef* c)) \
	X(ProgramEnd, (VT_PROF_EVT_ARGS, int64_t a)) \
	X(NonBlockingCollectiveRequest, (VT_PROF_EVT_ARGS, uint64_t a)) \
	X(NonBlockingCollectiveComplete, (VT_PROF_EVT_ARGS, OTF2_CollectiveOp a, OTF2_CommRef b, \
		uint32_t c, uint64_t d, uint64_t e, uint64_t f)) \
	X(CommCreate, (VT_PROF_EVT_ARGS, OTF2_CommRef a)) \
	X(CommDestroy, (VT_PROF_EVT_ARGS, OTF2_CommRef a)) \
	X(Unknown, (VT_PROF_EVT_ARGS))

#endif
