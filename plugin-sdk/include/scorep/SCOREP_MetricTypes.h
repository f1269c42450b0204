/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metric types of Score-P's metric plugin interface, with Score-P's names, values and
 * layouts, so that Score-P metric plugins build against vt with only an include path.
 * Written for vt from the published interface; it is not Score-P's file.
 */
#ifndef SCOREP_METRIC_TYPES_H
#define SCOREP_METRIC_TYPES_H

#include <stdint.h>

/* What a value means and which time it belongs to. */
typedef enum SCOREP_MetricMode {
	SCOREP_METRIC_MODE_ACCUMULATED_START = 0, /* a count since the start of the run */
	SCOREP_METRIC_MODE_ACCUMULATED_POINT = 1, /* a count, valid at its timestamp */
	SCOREP_METRIC_MODE_ACCUMULATED_LAST = 2,  /* a count since the previous value */
	SCOREP_METRIC_MODE_ACCUMULATED_NEXT = 3,  /* a count until the next value */
	SCOREP_METRIC_MODE_ABSOLUTE_POINT = 4,	  /* a level at its timestamp */
	SCOREP_METRIC_MODE_ABSOLUTE_LAST = 5,	  /* a level since the previous value */
	SCOREP_METRIC_MODE_ABSOLUTE_NEXT = 6,	  /* a level until the next value */
	SCOREP_METRIC_MODE_RELATIVE_POINT = 7,	  /* a ratio at its timestamp */
	SCOREP_METRIC_MODE_RELATIVE_LAST = 8,	  /* a ratio since the previous value */
	SCOREP_METRIC_MODE_RELATIVE_NEXT = 9,	  /* a ratio until the next value */
	SCOREP_INVALID_METRIC_MODE
} SCOREP_MetricMode;

/* How the 64 value bits read. */
typedef enum SCOREP_MetricValueType {
	SCOREP_METRIC_VALUE_INT64 = 0,
	SCOREP_METRIC_VALUE_UINT64 = 1,
	SCOREP_METRIC_VALUE_DOUBLE = 2,
	SCOREP_INVALID_METRIC_VALUE_TYPE
} SCOREP_MetricValueType;

/* The base of the exponent: value * base^exponent is in the unit. */
typedef enum SCOREP_MetricBase {
	SCOREP_METRIC_BASE_BINARY = 0,
	SCOREP_METRIC_BASE_DECIMAL = 1,
	SCOREP_INVALID_METRIC_BASE
} SCOREP_MetricBase;

/* Where counters are added. */
typedef enum SCOREP_MetricPer {
	SCOREP_METRIC_PER_THREAD = 0, /* every thread */
	SCOREP_METRIC_PER_PROCESS,    /* the first thread of every process */
	SCOREP_METRIC_PER_HOST,	      /* the first thread of the first process of every host */
	SCOREP_METRIC_ONCE,	      /* the first thread of the first process */
	SCOREP_METRIC_PER_MAX
} SCOREP_MetricPer;

/* When values are taken. */
typedef enum SCOREP_MetricSynchronicity {
	SCOREP_METRIC_STRICTLY_SYNC = 0, /* at every event: get_current_value */
	SCOREP_METRIC_SYNC,		 /* at events, when there is one: get_optional_value */
	SCOREP_METRIC_ASYNC_EVENT,	 /* timestamped, collected at events: get_all_values */
	SCOREP_METRIC_ASYNC,		 /* timestamped, collected at the end: get_all_values */
	SCOREP_METRIC_SYNC_TYPE_MAX
} SCOREP_MetricSynchronicity;

/* The moments synchronize() is called at. */
typedef enum SCOREP_MetricSynchronizationMode {
	SCOREP_METRIC_SYNCHRONIZATION_MODE_BEGIN = 0, /* start of a run without MPI */
	SCOREP_METRIC_SYNCHRONIZATION_MODE_BEGIN_MPP, /* start, once MPI is up */
	SCOREP_METRIC_SYNCHRONIZATION_MODE_END,	      /* end of the run */
	SCOREP_METRIC_SYNCHRONIZATION_MODE_MAX
} SCOREP_MetricSynchronizationMode;

/* A value and when it was taken (on the clock set_clock_function hands over). */
typedef struct SCOREP_MetricTimeValuePair {
	uint64_t timestamp;
	uint64_t value;
} SCOREP_MetricTimeValuePair;

#endif
