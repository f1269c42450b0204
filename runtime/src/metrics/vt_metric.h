/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric service: sources, scopes, synchronous and asynchronous values, definitions. */
/*
 * The metric service: counters from sources (VampirTrace counter plugins, Score-P metric
 * plugins, getrusage fields, PAPI events and software-defined events),
 * added where their scope says, read with the events of their thread (synchronous) or
 * recorded at their own times on METRIC locations (asynchronous), and defined as OTF2
 * metrics. A source is a description (its counters, how and where they are read) and one
 * ops table; the service owns everything else, so a new source touches neither the thread
 * nor the OTF2 code. Counters the program defines while it runs (user API, perfstubs) are
 * vt_metric_define. The contract with plugins and readers is docs/dev/plugin-host.md.
 */
#ifndef VT_METRIC_H
#define VT_METRIC_H

#include "base/vt_subsystem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How values reach vt. */
enum vt_metric_sync {
	VT_METRIC_STRICT,      /* every event: get (VT SYNCH, Score-P STRICTLY_SYNC) */
	VT_METRIC_OPTIONAL,    /* events, when there is a value: get_optional (Score-P SYNC) */
	VT_METRIC_ON_EVENT,    /* timestamped, collected at events (VT ASYNCH_EVENT, ASYNC_EVENT) */
	VT_METRIC_POST_MORTEM, /* timestamped, collected at the end (VT POST_MORTEM, ASYNC) */
	VT_METRIC_CALLBACK,    /* timestamped, sent by the source's thread (VT ASYNCH_CALLBACK) */
};

/* Where counters are added. */
enum vt_metric_per {
	VT_METRIC_PER_THREAD,
	VT_METRIC_PER_PROCESS,
	VT_METRIC_PER_HOST,
	VT_METRIC_ONCE
};

/* Score-P's synchronisation points, which any source may use. */
enum vt_metric_phase { VT_METRIC_BEGIN, VT_METRIC_BEGIN_MPP, VT_METRIC_END };

struct vt_metric_source;

/* One counter, as the trace defines it. */
struct vt_metric {
	struct vt_metric_source *source;
	char *name; /* also what the source's add gets */
	char *unit;
	char *description;
	uint32_t mode; /* OTF2_MetricMode */
	uint8_t type;  /* OTF2_Type: OTF2_TYPE_INT64, _UINT64 or _DOUBLE */
	bool is_float; /* a float in the low 32 bits (VT_PLUGIN_CNTR_FLOAT), stored as double */
	uint8_t base;  /* OTF2_Base */
	int64_t exponent;
	uint32_t index; /* among all metrics of the process: its MetricClass id */
	bool left_out;	/* defined, never added: its event would not fit a buffer half */
};

/* A timestamped value (the layout of both plugin interfaces' pairs). */
struct vt_metric_tv {
	uint64_t timestamp;
	uint64_t value;
};

/* What the callback answers (the values of VT_PLUGIN_CNTR_CALLBACK_*, vt_plugin_cntr.h). */
enum vt_metric_callback_rc {
	VT_METRIC_CALLBACK_OK = 0,
	VT_METRIC_CALLBACK_BUFFER_FULL = 1,	    /* refused: the buffer is full, try later */
	VT_METRIC_CALLBACK_TRACE_OFF_PERMANENT = 2, /* refused: the counter is done */
};

/* The callback a CALLBACK source calls from its own thread with each value; obj is what
 * set_callback got. Returns an enum vt_metric_callback_rc. */
typedef int32_t (*vt_metric_callback)(void *obj, struct vt_metric_tv tv);

/*
 * What a source does; each may be NULL where the source has nothing to do. Every call runs
 * foreign code: the service keeps the program's errno around it.
 */
struct vt_metric_ops {
	/* A new thread: true if it is the source's own (never recorded). */
	bool (*thread_is_own)(struct vt_metric_source *s);
	/* Adds counter m on the calling thread: an id, or < 0 (reported and skipped). */
	int32_t (*add)(struct vt_metric_source *s, const struct vt_metric *m);
	/* After every add of a place: 0 or a code that is reported. */
	int32_t (*enable)(struct vt_metric_source *s, int32_t id);
	/* The place's end, on its thread (or at finalize). */
	void (*disable)(struct vt_metric_source *s, int32_t id);
	/* ON_EVENT and POST_MORTEM: the values since the last call, in *list (malloc'd, the
	 * service frees it); returns their number. */
	uint64_t (*get_all)(struct vt_metric_source *s, int32_t id, struct vt_metric_tv **list);
	/* CALLBACK: where the source's thread sends the values of id from now on. */
	void (*set_callback)(struct vt_metric_source *s, void *obj, int32_t id,
			     vt_metric_callback cb);
	/* Score-P's synchronize: responsible is whether this process added counters. */
	void (*synchronize)(struct vt_metric_source *s, bool responsible, enum vt_metric_phase ph);
	/* The end of the run (counters disabled, values collected). */
	void (*finalize)(struct vt_metric_source *s);
};

struct vt_metric_source {
	const char *name; /* the plugin's (libNAME.so), for messages */
	const char *what; /* "counter plugin", "Score-P metric plugin": what messages call it */
	enum vt_metric_sync sync;
	enum vt_metric_per per;
	uint64_t delta_t; /* ticks between reads (0: every event) */
	struct vt_metric *metrics;
	size_t n_metrics;
	const struct vt_metric_ops *ops;
	/* Synchronous reads, on the hot path: plain functions of the counter id. */
	uint64_t (*get)(int32_t id);			   /* STRICT */
	bool (*get_optional)(int32_t id, uint64_t *value); /* OPTIONAL */
	bool responsible; /* this process added counters of the source */
	struct vt_metric_source *next;
};

/* The synchronous counters of one thread, read at each of its events (vt_metric_put). */
struct vt_metric_sync_ctr {
	uint64_t (*get)(int32_t id);
	bool (*get_optional)(int32_t id, uint64_t *value);
	int32_t id;
	uint32_t metric;	/* its MetricClass id */
	uint64_t delta_t, last; /* OPTIONAL: ticks between reads, time of the last */
};

struct vt_metric_sync_set {
	uint32_t n;
	struct vt_metric_sync_ctr c[];
};

struct vt_tls;

/*
 * A counter the program defines while it runs (user API, perfstubs): its metric index, the
 * same for the same name (and type) wherever it is defined, or -1 after an error line. Its
 * values are set by the program on its threads (vt_metric_set), as OTF2 Metric events of its
 * class on the thread's location.
 */
int32_t vt_metric_define(const char *name, const char *unit, bool is_double);

/* Records a value of metric (from vt_metric_define; the bits of an int64 or a double) now on
 * thread t. */
void vt_metric_set(struct vt_tls *t, int32_t metric, uint64_t bits);

/* The module's part in the phases of a run (lifecycle/vt_core.c runs them). */
extern const struct vt_subsystem vt_metric_subsystem;

#endif
