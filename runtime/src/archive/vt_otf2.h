/* SPDX-License-Identifier: BSD-3-Clause */
/* The OTF2 writer: archive, per-location event encoding at flush time, definitions. */
#ifndef VT_OTF2_H
#define VT_OTF2_H

#include "defs/vt_defs.h"
#include "record/vt_thread.h"

#include <otf2/otf2.h>

/* Picks a free archive name in VT_PFORM_GDIR and opens it; -1 after an error line. */
int vt_otf2_open(void);

/* In a process forked to write a snapshot (VT_MODE=ring, lifecycle/vt_snapshot.c): the
 * parent's archive, placeholders, room and private directory are left as they are, not
 * closed, and NAME.snap-K (an MPI rank's: NAME.snap-K.rankR, opened without MPI) is picked
 * beside it and opened, as vt_otf2_open opens a run's; -1 after an error line. job: the
 * group of every rank's snapshot writer (archive/vt_group.h), which opens NAME.snap-K
 * together, as the ranks open a run's archive; NULL: this process's own. */
struct vt_mpi_ops;
int vt_otf2_open_snapshot(unsigned k, const struct vt_mpi_ops *job);

/* The same process: the parent's event writers are forgotten (not closed); each location
 * gets one of the snapshot's archive when its window is encoded. */
void vt_otf2_forget_writers(void);

/* Whether the archive is open (in MPI mode, only from MPI_Init on). */
bool vt_otf2_ready(void);

/* MPI mode: the run's collectives (NULL outside MPI mode). */
const struct vt_mpi_ops *vt_otf2_mpi_ops(void);

/* MPI mode: rank 0 picks the name, every rank opens the archive collectively. */
int vt_otf2_open_mpi(const struct vt_mpi_ops *ops);

/* MPI mode: unifies the definitions of all ranks at rank 0 and closes collectively. */
int vt_otf2_close_mpi(struct vt_loc *locs, uint64_t end_ts, const struct vt_mpi_ops *ops);

/* MPI mode, a rank that ends without the others (why: "MPI_Abort", "SIGTERM"): its own
 * locations into an archive of its own beside the run's, without MPI; one line says where.
 */
int vt_otf2_close_alone(struct vt_loc *locs, uint64_t end_ts, const char *why);

/* MPI mode, in a process forked to write a rank's snapshot (after vt_otf2_open_snapshot):
 * its locations' windows into that archive, without MPI; one line says where. job: as it
 * was opened, the ranks' group, which closes it together as the ranks close a run's. */
int vt_otf2_close_snapshot(struct vt_loc *locs, uint64_t end_ts, const char *why,
			   const struct vt_mpi_ops *job);

/* The archive's anchor file path (DIR/NAME.otf2). */
const char *vt_otf2_path(void);

/* Per location; all called with loc->lock held (or before the location is shared). */
int vt_otf2_loc_open(struct vt_loc *loc);
void vt_otf2_encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to);
void vt_otf2_buffer_flush(struct vt_loc *loc, uint64_t start, uint64_t stop);
/* Recording stops: open regions are left at ts and a MeasurementOnOff(off) marks it. */
void vt_otf2_loc_stop(struct vt_loc *loc, uint64_t ts);
/* The OTF2 id of thread location index, once the archive is open (in MPI mode it holds the
 * rank). */
uint64_t vt_otf2_location_ref(uint32_t index);
/* Location l's name in the trace ("Master thread", "Thread 3", ...) into buf. */
void vt_otf2_location_name(const struct vt_loc *l, char *buf, size_t len);

/* The end of a location: open regions are left at ts, the writer is closed. */
void vt_otf2_loc_close(struct vt_loc *loc, uint64_t ts);

/*
 * The metrics of this process, as the metric service tells the writer once at init (the
 * table stays the service's): metric m's index is its MetricMember and MetricClass id, its
 * type says how values are written (is_float: a float in the low 32 bits,
 * VT_PLUGIN_CNTR_FLOAT), the rest is its definition. An entry with members is a class of
 * its own, no metric: the strict synchronous counters of a thread, whose values at an event
 * the encoder writes as one Metric event of that class (members: their indices, in the
 * order the values follow the event; at most VT_OTF2_GROUP_MAX).
 */
struct vt_otf2_metric {
	const char *name, *unit, *description;
	uint32_t mode;
	uint8_t type, base, occurrence, recorder_kind;
	bool is_float;
	int64_t exponent;
	uint32_t n_members;
	const uint32_t *members;
};
#define VT_OTF2_GROUP_MAX 64
void vt_otf2_set_metrics(const struct vt_otf2_metric *metrics, uint32_t n);
/* Metrics defined while the program runs (user counters) were filled in after the first
 * n - 1 of the same table, which has room for them: the writer now knows n. */
void vt_otf2_metrics_grew(uint32_t n);

/* An instance of a metric with a METRIC location of its own (asynchronous values). */
struct vt_otf2_instance {
	uint32_t id;	   /* local metric id, after the metrics */
	uint32_t metric;   /* its metric's index */
	uint64_t recorder; /* its METRIC location */
	const char *recorder_name;
	uint64_t events;
	enum vt_def_scope scope;
	uint64_t owner; /* the owner location (VT_DEF_SCOPE_LOCATION) */
};

/* At finalize, from the metric service: the instances (the table stays the service's) and
 * the latest timestamp of an asynchronous value (0: none), where the trace ends at the
 * earliest. */
void vt_otf2_set_instances(const struct vt_otf2_instance *in, uint32_t n, uint64_t last_ts);

/* Writes a value of metric m as a Metric event of id (its class, or an instance after the
 * classes) at ts. */
bool vt_otf2_write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t m, uint64_t value);
/* Writes a MeasurementOnOff event; false after a failed write (nothing is written then). */
bool vt_otf2_write_onoff(OTF2_EvtWriter *w, uint64_t ts, bool on);

/* Whether a write of the trace failed (disk full, no file descriptor): recording stopped
 * then for the run, with one line, and no event writer is used again. Inline: the encoder
 * asks before every record. */
extern int vt_otf2_write_failed __attribute__((visibility("hidden")));
static inline bool vt_otf2_failed(void)
{
	return __atomic_load_n(&vt_otf2_write_failed, __ATOMIC_ACQUIRE);
}

/* METRIC locations of plugin counters (k: the counter instance): the OTF2 location id, and
 * its event writer (NULL while there is no archive). */
uint64_t vt_otf2_metric_ref(uint32_t k);
OTF2_EvtWriter *vt_otf2_metric_writer(uint32_t k, uint64_t *ref);
void vt_otf2_metric_writer_close(OTF2_EvtWriter *w, uint64_t *events);

/* The writing at the end begins (the threads' last buffers, then the closing): the line that
 * says where the trace went also says how long that took, when it took more than 2 s. */
void vt_otf2_write_begin(void);

/* Writes the definitions of all locations and regions and closes the archive. */
int vt_otf2_close(struct vt_loc *locs, uint64_t end_ts);

#endif
