/* SPDX-License-Identifier: BSD-3-Clause */
/* The definitions model: one process's typed records, encoded to and from one byte stream. */
/*
 * The definitions model: what one process defines (itself, its locations, regions,
 * communicators, metrics and metric instances), as typed records that encode to and decode
 * from one byte stream. A process encodes its definitions once at the end; the unification
 * (vt_unify.c) decodes every process's stream, one in a single process, N under MPI, and
 * writes the global definitions with one writer.
 *
 * Adding a kind (calling contexts, I/O handles, RMA windows, parameters): an enum value, a
 * struct in union vt_def, and one row of vt_def_kinds in vt_defs.c with its encode/decode
 * pair; then what the unification does with it.
 */
#ifndef VT_DEFS_H
#define VT_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vt_def_kind {
	VT_DEF_PROCESS = 1, /* first in every stream, once */
	VT_DEF_LOCATION,
	VT_DEF_REGION,
	VT_DEF_COMM,
	VT_DEF_METRIC,
	VT_DEF_INSTANCE,
	VT_DEF_MARKER,
	VT_DEF_PROPERTY,
	VT_DEF_CALLCTX,
	VT_DEF_IGEN,
	VT_DEF_RMAWIN,
	VT_DEF_GROUP,
	VT_DEF_IOHANDLE,
	VT_DEF_COMMUSE,
	VT_DEF_TEAM,
	VT_DEF_SAME, /* only in a stream the reduction tree compacted (vt_unify_tree.h) */
	VT_DEF_KIND_MAX,
};

/* Strings decode as pointers into the stream, which must outlive them. */
struct vt_def_process {
	uint32_t rank; /* MPI rank, or 0 */
	uint32_t pid;
	const char *host;
	uint64_t resolution, realtime; /* clock: ticks per second, realtime at its start (ns) */
	uint64_t first, last;	       /* the events' range, on rank 0's clock */
	/* ThreadCreate/ThreadWait were written: their communicator (the process's threads)
	 * must exist even when no created thread got a location of its own */
	uint32_t thread_events;
};

struct vt_def_location {
	uint64_t ref; /* OTF2 location id */
	const char *name;
	uint64_t events;
};

struct vt_def_region {
	uint32_t id; /* local */
	const char *name;
	const char *file; /* "" when not known */
	uint32_t line, paradigm, role;
};

/* A communicator: key names it across ranks (vt_mpi_iface.h), my_rank is this process's
 * place in it. Local ids are the order of definition. */
struct vt_def_comm {
	uint32_t id;
	uint64_t key;
	uint32_t my_rank, size;
	const char *name; /* "" when this process knows none */
};

struct vt_def_metric {
	uint32_t id; /* local: its MetricMember and MetricClass */
	const char *name, *unit, *description;
	uint32_t mode;
	uint8_t type, base, occurrence, recorder_kind;
	int64_t exponent;
	/* "" for a metric. A class of several metrics (a thread's strict synchronous counters,
	 * one Metric event for all): no member of its own, its members' keys
	 * (vt_def_metric_key), each followed by VT_DEF_MEMBER_END, in the order of its values. */
	const char *members;
	/* The unification's: the members' global ids (malloc'd), n_members of them. */
	uint32_t n_members;
	uint32_t *member_ids;
};
#define VT_DEF_MEMBER_END '\x1e'

/* What names metric m across processes (all of its definition but the id) into buf, NUL
 * ended and cut at len; returns the length it needed, as snprintf does. */
int vt_def_metric_key(const struct vt_def_metric *m, char *buf, size_t len);

/* Where a metric instance applies: its recorder's thread, process, host, or the run. */
enum vt_def_scope {
	VT_DEF_SCOPE_LOCATION,
	VT_DEF_SCOPE_PROCESS,
	VT_DEF_SCOPE_HOST,
	VT_DEF_SCOPE_RUN
};

struct vt_def_instance {
	uint32_t id;	   /* local metric id, after the metrics */
	uint32_t metric;   /* local metric of its class */
	uint64_t recorder; /* its METRIC location */
	const char *recorder_name;
	uint64_t events;
	uint32_t scope; /* enum vt_def_scope */
	uint64_t owner; /* the location, for a per-location scope */
};

/* A marker the program set (user API): when, on which location, its category and text. */
struct vt_def_marker {
	uint64_t ts;
	uint64_t location; /* OTF2 location id */
	const char *category, *text;
	uint32_t severity; /* OTF2_MarkerSeverity */
};

/* A name and value the program gave (perfstubs metadata and parameters): a trace property. */
struct vt_def_property {
	const char *name, *value;
};

/*
 * A calling context of samples (vt_callctx.h): a code address, resolved to its function (the
 * region: name, file, line, paradigm) and the source line of the address. Parents come
 * before their children; UINT32_MAX: a root.
 */
struct vt_def_callctx {
	uint32_t id, parent;
	const char *name, *file; /* the function; file "" when not known */
	uint32_t line, paradigm;
	const char *src_file; /* the address's line; "" when not known */
	uint32_t src_line;
};

/* What interrupts the program to take samples: a time source with its period. */
struct vt_def_igen {
	uint32_t id;
	const char *name;
	uint32_t mode;	 /* OTF2_InterruptGeneratorMode */
	uint64_t period; /* nanoseconds (TIME) or events (COUNT) */
};

/* An RMA window: key names it across ranks (as a communicator's), comm is the local id of
 * its communicator. */
struct vt_def_rmawin {
	uint32_t id;
	uint64_t key;
	uint32_t comm;
	const char *name; /* "" when this process knows none */
};

/* A group of MPI processes (MPI_Win_post/start's): their world ranks, "0,2,5". */
struct vt_def_group {
	uint32_t id;
	const char *members;
};

/* An I/O handle: MPI-IO's with key as a window's and comm a local id; a POSIX handle with
 * key 0 and comm UINT32_MAX (the process's own); file the name opened. */
struct vt_def_iohandle {
	uint32_t id;
	uint64_t key;
	uint32_t comm;
	uint32_t paradigm; /* defs/vt_mpi_defs.h: enum vt_io_paradigm */
	const char *file;
	uint32_t parent; /* local id of the handle it works on, UINT32_MAX: none */
};

/* A communicator that a location other than the process's master thread made MPI calls on
 * (MPI_THREAD_MULTIPLE, OpenMP single): the unification lists that location among the
 * MPI locations and gives the communicator a definition whose members are such threads. */
struct vt_def_commuse {
	uint64_t location; /* OTF2 location id */
	uint32_t comm;	   /* local id */
};

/* An OpenMP thread team (defs/vt_teams.h): its local communicator id and its members'
 * OTF2 location ids in thread order, "5,6,7" ("-" for a thread without a location). */
struct vt_def_team {
	uint32_t id;
	const char *members;
};

/* Definitions of kind (region, metric, interrupt generator, group) whose contents equal
 * those of earlier ones in the same compacted concatenation of streams: this process's local
 * ids id .. id + count - 1 are the kind's records kept whole number ordinal .. ordinal +
 * count - 1 (counted from 0 in the concatenation). */
struct vt_def_same {
	uint32_t kind, id, ordinal, count;
};
union vt_def {
	struct vt_def_process process;
	struct vt_def_location location;
	struct vt_def_region region;
	struct vt_def_comm comm;
	struct vt_def_metric metric;
	struct vt_def_instance instance;
	struct vt_def_marker marker;
	struct vt_def_property property;
	struct vt_def_callctx callctx;
	struct vt_def_igen igen;
	struct vt_def_rmawin rmawin;
	struct vt_def_group group;
	struct vt_def_iohandle iohandle;
	struct vt_def_commuse commuse;
	struct vt_def_team team;
	struct vt_def_same same;
};

/* A growable stream; failed: memory ran out (the stream is incomplete). */
struct vt_defs_buf {
	char *p;
	size_t n, cap;
	bool failed;
};

/* Appends n bytes at v; on running out of memory the stream is marked failed. */
void vt_defs_append(struct vt_defs_buf *b, const void *v, size_t n);

/* Appends one definition of kind. */
void vt_defs_put(struct vt_defs_buf *b, enum vt_def_kind kind, const union vt_def *d);

struct vt_defs_reader {
	const char *p, *end;
	bool bad; /* a record did not decode: the stream is damaged */
};

/* The next definition: 1, 0 at the end, -1 when the stream is damaged. */
int vt_defs_next(struct vt_defs_reader *r, enum vt_def_kind *kind, union vt_def *d);

/* The kind's name, for messages. */
const char *vt_def_kind_name(enum vt_def_kind kind);

#endif
