/* SPDX-License-Identifier: BSD-3-Clause */
/* libvttrace: the one trace-reading layer of vt's tools (definitions, events, stacks, MPI). */
/*
 * libvttrace: the one trace-reading layer of vt's tools, over libotf2's reader API only (any
 * OTF2 archive: vt's, Score-P's). It gives a tool
 *   - the definitions, by id in O(1): strings, system tree, location groups, locations,
 *     regions, groups and communicators (with each member's location), metrics;
 *   - the events, either location by location (vtr_read_locations: the least memory, for
 *     per-location results such as a profile) or all locations merged in time order
 *     (vtr_read_merged: for what crosses locations);
 *   - the call stack of every location checked: a Leave that does not match is reported and
 *     repaired, regions still open at a location's end are closed there, so that a tool's
 *     own stack never goes wrong;
 *   - in merged order, point-to-point messages matched send to receive (blocking and
 *     non-blocking, FIFO per communicator, sender, receiver and tag) and collectives matched
 *     across their communicator's members, each handed over once both ends are known.
 * Memory is bounded by the definitions, the deepest stacks and the messages and collectives
 * open at one time, never by the number of events (docs/dev/tools-lib.md).
 */
#ifndef VTR_H
#define VTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vtr_clock.h"
#include "vtr_event_kinds.h"

/* Event kinds in the order of the lists in vtr_event_kinds.h; names in vtr_event_names. */
enum vtr_event {
#define VTR_ENUM(name, params) VTR_EV_##name,
	VTR_MAIN_EVENT_KINDS(VTR_ENUM) VTR_OTHER_EVENT_KINDS(VTR_ENUM)
#undef VTR_ENUM
	    VTR_EV_COUNT
};

extern const char *const vtr_event_names[VTR_EV_COUNT];

/* OTF2's collective operations by their OTF2_CollectiveOp number, in lower case ("allreduce");
 * an operation this build does not know is VTR_COLL_OPS, "unknown". */
#define VTR_COLL_OPS 23
extern const char *const vtr_coll_op_names[VTR_COLL_OPS + 1];

#define VTR_NONE UINT32_MAX

struct vtr_region {
	bool defined;
	const char *name; /* "<region N>" where the definition gives none */
	const char *file; /* "" when not known */
	uint32_t line, paradigm, role;
};

struct vtr_location {
	uint64_t id;
	size_t index; /* in vtr_trace.locations */
	const char *name;
	uint32_t type;	 /* OTF2_LocationType */
	uint64_t events; /* as the definition says */
	uint32_t group;	 /* location group id */
	const char *group_name;
	uint32_t rank; /* index of its process in the MPI locations group, or VTR_NONE */
};

struct vtr_location_group {
	bool defined;
	const char *name;
	uint32_t type, parent; /* parent: system tree node */
};

struct vtr_node {
	bool defined;
	const char *name, *class_name;
	uint32_t parent; /* VTR_NONE: a root */
};

struct vtr_comm {
	bool defined;
	const char *name;
	uint32_t group, parent;
	uint32_t paradigm; /* of its group */
	uint32_t size;
	uint32_t *rank_of_member; /* per member: its MPI world rank (MPI comms), or VTR_NONE */
	/* per member: its location (index in vtr_trace.locations), or VTR_NONE: an OpenMP
	 * team's threads, a pthread contingent's, an MPI communicator's listed locations */
	uint32_t *location_of_member;
};

struct vtr_metric {
	bool defined;
	const char *name, *unit;
	uint32_t type, mode;
};

/* A metric class or instance (they share OTF2's MetricRef ids, which metric events name):
 * its members, indexes of vtr_trace.metrics, in the order of the event's values. An instance
 * has its class's members; recorder: the location that records it (instances), else
 * VTR_NONE64. */
#define VTR_NONE64 UINT64_MAX
struct vtr_metric_class {
	bool defined, instance;
	uint32_t nmembers;
	uint32_t *members;
	uint64_t recorder;
};

/* A calling context of samples: its region, the source line sampled (scl), its parent. */
struct vtr_callctx {
	bool defined;
	uint32_t region, scl, parent; /* scl, parent: VTR_NONE for none */
};
struct vtr_scl {
	bool defined;
	const char *file;
	uint32_t line;
};

/* OTF2's I/O model: paradigms (name: their identification, "POSIX", "MPI-IO", "ISOC"), files
 * (regular files and directories: they share OTF2's IoFileRef ids) and handles. */
struct vtr_io_paradigm {
	bool defined;
	const char *name;
};
struct vtr_io_file {
	bool defined;
	const char *name;
};
struct vtr_io_handle {
	bool defined;
	const char *name;
	uint32_t file, paradigm; /* VTR_NONE: none, or not defined */
	uint32_t comm, parent;	 /* VTR_NONE: none */
};

/* Everything a tool asks about the definitions; arrays indexed by id. */
struct vtr_trace {
	const char *path;
	uint64_t resolution, offset, length; /* clock properties */
	bool have_clock;
	struct vtr_ns_clock ns; /* their conversion to nanoseconds: vtr_ticks_to_ns */
	char **strings;
	size_t nstrings;
	struct vtr_region *regions;
	size_t nregions;
	struct vtr_location *locations; /* in definition order */
	size_t nlocations;
	struct vtr_location_group *groups;
	size_t ngroups;
	struct vtr_node *nodes;
	size_t nnodes;
	struct vtr_comm *comms;
	size_t ncomms;
	struct vtr_metric *metrics; /* members */
	size_t nmetrics;
	struct vtr_metric_class *metric_classes; /* by MetricRef: classes and instances */
	size_t nmetric_classes;
	struct vtr_callctx *callctxs;
	size_t ncallctxs;
	struct vtr_scl *scls;
	size_t nscls;
	struct vtr_io_paradigm *io_paradigms;
	size_t nio_paradigms;
	struct vtr_io_file *io_files;
	size_t nio_files;
	struct vtr_io_handle *io_handles;
	size_t nio_handles;
	/* The attribute vt::outside_window (a snapshot's message or collective end whose other
	 * end its window left out): its id, VTR_NONE when the trace has none. */
	uint32_t cut_attr;
	/* The first interrupt generator's period in seconds (0: none), and its name. */
	double sample_period;
	const char *sample_source;
	/* What a reading reads (set by the tool before it; zero: everything). only: NULL for
	 * every location, else those of index i where only[i] (vt-profile-mpi's share);
	 * no_match: the merged reading in time order without matching messages and
	 * collectives (a tool that matches across processes itself). */
	const bool *only;
	bool no_match;
	/* internal */
	void *reader, *group_defs, *loc_by_id;
	size_t nloc_by_id;
	bool stop; /* vtr_stop */
	char err[512];
};

/* Opens the archive (its .otf2 anchor file) and reads the global definitions. Returns 0, or
 * -1 with a one-line reason (without the path) in tr->err. */
int vtr_open(struct vtr_trace *tr, const char *path);
void vtr_close(struct vtr_trace *tr);

/* A timestamp of the trace in whole nanoseconds after the clock's offset (rounded down; 0
 * before the offset, at most VTR_NS_MAX): what every tool shows, exact to the nanosecond. */
static inline uint64_t vtr_ticks_to_ns(const struct vtr_trace *tr, uint64_t ticks)
{
	return vtr_ns_clock_convert(&tr->ns, ticks);
}

/* The location of an OTF2 location id, or NULL. */
const struct vtr_location *vtr_location(const struct vtr_trace *tr, uint64_t id);

enum vtr_problem {
	VTR_LEAVE_MISMATCH,	  /* a Leave of a region that is not the innermost open one */
	VTR_LEAVE_UNMATCHED,	  /* a Leave while no region is open */
	VTR_OPEN_AT_END,	  /* regions still open after the location's last event */
	VTR_TIME_DECREASE,	  /* a timestamp smaller than the previous event's */
	VTR_UNDEFINED_REGION,	  /* an Enter or Leave of a region without definition */
	VTR_UNMATCHED_MESSAGE,	  /* merged order: a send or receive without its other end */
	VTR_UNMATCHED_COLLECTIVE, /* merged order: a collective some members never ended */
};

/* A matched point-to-point message. */
struct vtr_message {
	const struct vtr_location *sender, *receiver;
	uint32_t comm, tag;
	uint64_t bytes;
	uint64_t send_begin, send_end; /* the send event; end: its completion (Isend) */
	uint64_t recv_begin, recv_end; /* the request's start (Irecv) or the receive; its end */
	bool send_nonblocking, recv_nonblocking;
	void *match; /* what the tool kept in its ends' vtr_record.match (NULL: nothing) */
};

/* One member's part of a collective. */
struct vtr_coll_member {
	const struct vtr_location *location;
	uint64_t begin, end;
	uint64_t sent, received;
};

struct vtr_collective {
	uint32_t comm, op, root;
	uint32_t n; /* members */
	const struct vtr_coll_member *members;
	void *match; /* what the tool kept in its members' vtr_record.match (NULL: nothing) */
};

/*
 * One event as read, for a tool that replays the events one by one (vt-sim): every event of
 * every kind, with the fields of the kinds named here (the others are 0).
 */
struct vtr_record {
	enum vtr_event kind;
	uint64_t time;
	uint32_t region;	  /* Enter, Leave: as recorded, defined or not */
	uint32_t mode;		  /* MeasurementOnOff: its OTF2_MeasurementMode */
	uint64_t request;	  /* MpiIsend, MpiIrecv, MpiIrecvRequest, MpiIsendComplete */
	uint32_t comm, tag, peer; /* MpiSend, MpiIsend, MpiRecv, MpiIrecv: peer is the other
				   * end's rank in comm; comm: MpiCollectiveEnd's too */
	uint64_t bytes;		  /* point-to-point */
	uint32_t op, root;	  /* MpiCollectiveEnd */
	uint64_t begin;		  /* MpiCollectiveEnd: its CollectiveBegin's time, else its own */
	uint64_t sent, received;  /* MpiCollectiveEnd */
	uint32_t member;	  /* merged, MpiCollectiveEnd: the location's index in comm,
				   * VTR_NONE where it is none (then match is NULL) */
	bool cut; /* a message's or collective's end whose other end a snapshot's window left out
		   * (the attribute vt::outside_window): never matched, match is NULL */
	/*
	 * Merged reading: the message (MpiSend, MpiIsend, MpiRecv, MpiIrecv) or collective
	 * (MpiCollectiveEnd) this event is an end of, as the matching pairs them: one pointer
	 * shared by all of its ends, NULL at the first one read, where the tool may keep what
	 * it needs at the others. The library never looks at it; valid during the callback.
	 * NULL: no matching (location by location; a collective of no member).
	 */
	void **match;
};

/*
 * An event of OTF2's thread model (OpenMP's fork-join teams and tasks, pthreads' create and
 * wait, the locks of both), with its fields; those a kind does not have are VTR_NONE (0 for
 * sequence).
 */
struct vtr_thread_event {
	enum vtr_event kind; /* VTR_EV_ThreadFork ... VTR_EV_ThreadEnd */
	uint64_t time;
	uint32_t paradigm;    /* Fork, Join, AcquireLock, ReleaseLock: as recorded; the others:
			       * their communicator's (VTR_NONE if it is not defined) */
	uint32_t comm;	      /* TeamBegin, TeamEnd, Task*: the thread team; Create, Begin, Wait,
			       * End: the thread contingent */
	uint32_t threads;     /* Fork: the number of threads requested */
	uint32_t lock, order; /* AcquireLock, ReleaseLock: the lock, its acquisition */
	uint32_t creator, generation; /* Task*: the task's creating thread (its index in the
				       * team) and generation number: together its name */
	uint64_t sequence;	      /* Create, Begin, Wait, End: the thread's number */
};

/*
 * An event of OTF2's I/O model with its fields; those a kind does not have are 0. handle is
 * as recorded (index tr->io_handles where it is below nio_handles and defined).
 */
struct vtr_io_event {
	enum vtr_event kind; /* VTR_EV_IoCreateHandle ... VTR_EV_IoTryLock */
	uint64_t time;
	uint32_t handle;
	uint32_t mode;	   /* OperationBegin: OTF2_IoOperationMode; CreateHandle: access mode;
			    * Seek: whence */
	uint32_t flags;	   /* OperationBegin: OTF2_IoOperationFlag; CreateHandle: creation */
	uint64_t bytes;	   /* OperationBegin: requested; OperationComplete: done */
	uint64_t matching; /* Operation*: the matching id */
	uint32_t other;	   /* DuplicateHandle: the new handle */
	int64_t offset;	   /* Seek: requested */
	uint64_t result;   /* Seek: the offset reached */
};

/* What a tool is told; any may be NULL. loc is the event's location. */
struct vtr_callbacks {
	void (*location_begin)(void *user, const struct vtr_location *loc);
	void (*location_end)(void *user, const struct vtr_location *loc, uint64_t last);
	/* Every event, counted by kind, before the kind's own callback. */
	void (*event)(void *user, const struct vtr_location *loc, enum vtr_event kind,
		      uint64_t time);
	/* Every event again, with its fields and its match: right after event, before anything
	 * else it leads to (its enter or leave, its problems, the message or collective it
	 * completes). r is the library's, valid during the call only. */
	void (*record)(void *user, const struct vtr_location *loc, const struct vtr_record *r);
	void (*enter)(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region);
	/* Every close of an open region, the repairs too (then time is the repairing event's or
	 * the location's last); enter: when it was entered. */
	void (*leave)(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		      uint64_t enter);
	void (*flush)(void *user, const struct vtr_location *loc, uint64_t time, uint64_t stop);
	void (*metric)(void *user, const struct vtr_location *loc, uint64_t time, uint32_t metric,
		       uint32_t n, const uint8_t *types, const void *values);
	void (*message)(void *user, const struct vtr_message *m);
	void (*collective)(void *user, const struct vtr_collective *c);
	/* An event of the thread model (struct vtr_thread_event; e is valid during the call). */
	void (*thread)(void *user, const struct vtr_location *loc,
		       const struct vtr_thread_event *e);
	/* An event of the I/O model (struct vtr_io_event; e is valid during the call). */
	void (*io)(void *user, const struct vtr_location *loc, const struct vtr_io_event *e);
	/* A calling-context sample: ctx indexes tr->callctxs (or is VTR_NONE: undefined). */
	void (*sample)(void *user, const struct vtr_location *loc, uint64_t time, uint32_t ctx);
	/* message: one line, without the location; region: the one concerned, or VTR_NONE. */
	void (*problem)(void *user, const struct vtr_location *loc, enum vtr_problem kind,
			bool has_time, uint64_t time, uint32_t region, const char *message);
};

/* Reads every location's events, one location after the other. 0, -1 (tr->err), or 1 when a
 * callback called vtr_stop. */
int vtr_read_locations(struct vtr_trace *tr, const struct vtr_callbacks *cb, void *user);

/* Reads every event of every location in time order, matching messages and collectives.
 * 0, -1 (tr->err), or 1 when a callback called vtr_stop. */
int vtr_read_merged(struct vtr_trace *tr, const struct vtr_callbacks *cb, void *user);

/* From a callback: the reading ends after the current event, without closing what is open
 * or reporting what is unmatched; it returns 1. */
void vtr_stop(struct vtr_trace *tr);

/* The archive's own description, handed to cb one by one: "creator", "description" and
 * "machine" (where the archive gives them), then every property (name, value), as libotf2
 * reads them from the anchor file. */
void vtr_archive_info(struct vtr_trace *tr,
		      void (*cb)(void *user, const char *name, const char *value), void *user);

/* For a tool that reads the events again with a libotf2 reader of its own (vt-sim), its
 * location's definition files selected and opened: reads that location's local definitions
 * (mapping tables, clock offsets), which libotf2 then applies to its events. False when the
 * location has none; then do not ask for the next locations' (vtr_read.c says why). */
struct OTF2_Reader_struct;
bool vtr_read_local_defs(struct OTF2_Reader_struct *reader, uint64_t location);

/* a[0..n) in ascending order, in time linear in n (vtr_sort.c); qsort's result. */
void vtr_sort_u64(uint64_t *a, size_t n);

/* libotf2 reports an error's cause (a full disk, the file) through a hook before its call
 * returns a bare code: reset, then the first such report since, or code's description (an
 * OTF2_ErrorCode) when there was none. For tools that call libotf2 themselves (vt-sim's
 * writing). */
void vtr_reset_reason(void);
const char *vtr_reason(int code);
/* Whether libotf2 reported an error since the reset (a call may return success after one:
 * libotf2 3.0 closing an event writer whose last write failed). */
bool vtr_reported(void);

/* Allocation for tools: ends the tool with "NAME: out of memory" when memory runs out. */
void *vtr_xrealloc(void *p, size_t n, size_t size);
void *vtr_xcalloc(size_t n, size_t size);
char *vtr_xstrdup(const char *s);

/* Statistics of the last read, for the bounds of docs/dev/tools-lib.md. */
struct vtr_stats {
	uint64_t events, messages, collectives;
	size_t max_depth, max_open_messages, max_open_collectives;
};
const struct vtr_stats *vtr_last_stats(void);

#endif
