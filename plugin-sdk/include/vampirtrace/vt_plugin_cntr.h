/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt's counter plugin interface, source- and binary-compatible with the plugin counter
 * interface of VampirTrace 5.11 and later: a plugin written for VampirTrace compiles
 * against this header unchanged, and vt loads it.
 *
 * A plugin is a shared library libNAME.so that exports get_info(). vt loads it when
 * VT_PLUGIN_CNTR_METRICS names NAME_counter; see docs/plugins.md for the calling order, the
 * scopes, timestamps and thread safety.
 *
 * Writing a plugin, in short (share/vt/plugin-template is a complete one to copy):
 *  - build a shared library libNAME.so (NAME without '_'), with the flags of
 *    `pkg-config --cflags vt-plugin`, and install it where `pkg-config --variable=plugindir
 *    vt-plugin` says or anywhere VT_PLUGIN_CNTR_PATH lists;
 *  - define get_info() to return a zeroed vt_plugin_cntr_info with the version, run_per,
 *    synch and the functions the chosen synch needs filled in;
 *  - get_event_info() turns a requested name (the text after "NAME_", maybe with
 *    wildcards) into the counters it stands for; what it returns names them in the trace;
 *  - add_counter() may run on several threads at once: keep per-counter state behind the
 *    returned id, and make the id table safe to grow;
 *  - values of asynchronous plugins carry timestamps from the function vt hands over with
 *    set_pform_wtime_function(), never from another clock.
 */
#ifndef VT_PLUGIN_CNTR_H
#define VT_PLUGIN_CNTR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface version this header describes; a plugin reports it in get_info(). */
#define VT_PLUGIN_CNTR_VERSION 2

/* How values get to vt (the synch field). */
enum vt_plugin_cntr_synch {
	/* vt asks for the current value at every event of the thread (get_current_value). */
	VT_PLUGIN_CNTR_SYNCH = 0,
	/* The plugin records values with timestamps; vt collects them on events of the
	 * thread that added the counter (get_all_values), and at the end. */
	VT_PLUGIN_CNTR_ASYNCH_EVENT,
	/* As ASYNCH_EVENT, collected once, at the end of the run. */
	VT_PLUGIN_CNTR_ASYNCH_POST_MORTEM,
	/* The plugin hands values to vt one at a time, from its own thread, through the
	 * function vt gives it (set_callback_function). */
	VT_PLUGIN_CNTR_ASYNCH_CALLBACK,
	VT_PLUGIN_CNTR_SYNCH_TYPE_MAX
};

/* Where counters are added (the run_per field). */
enum vt_plugin_cntr_per {
	/* On every thread. */
	VT_PLUGIN_CNTR_PER_THREAD = 0,
	/* On the first thread of every process. */
	VT_PLUGIN_CNTR_PER_PROCESS,
	/* On the first thread of the first process of every host. */
	VT_PLUGIN_CNTR_PER_HOST,
	/* On the first thread of the first process of the run only. */
	VT_PLUGIN_CNTR_ONCE,
	VT_PLUGIN_CNTR_RUN_PER_MAX
};

/* What the callback of an ASYNCH_CALLBACK plugin returns. */
enum vt_plugin_cntr_callback_return {
	/* The value is stored. */
	VT_PLUGIN_CNTR_CALLBACK_OK = 0,
	/* The value was refused: vt's buffer for the counter is full. Try again later. */
	VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL = 1,
	/* The value was refused: recording has ended; send no more. */
	VT_PLUGIN_CNTR_CALLBACK_TRACE_OFF_PERMANENT = 2
};

/* Property bits of a counter (cntr_property): how its values read. */
/* The value accumulates (a count since some start) ... */
#define VT_PLUGIN_CNTR_ACC (1 << 0)
/* ... or is a level at a moment (a temperature, memory in use). */
#define VT_PLUGIN_CNTR_ABS (1 << 1)
/* The value is valid since the start of the run ... */
#define VT_PLUGIN_CNTR_START (1 << 2)
/* ... at its timestamp only ... */
#define VT_PLUGIN_CNTR_POINT (1 << 3)
/* ... since the previous value ... */
#define VT_PLUGIN_CNTR_LAST (1 << 4)
/* ... until the next value. */
#define VT_PLUGIN_CNTR_NEXT (1 << 5)
/* The 64 value bits are an int64_t ... */
#define VT_PLUGIN_CNTR_SIGNED (1 << 6)
/* ... a uint64_t ... */
#define VT_PLUGIN_CNTR_UNSIGNED (1 << 7)
/* ... a float in the low 32 bits ... */
#define VT_PLUGIN_CNTR_FLOAT (1 << 8)
/* ... a double. */
#define VT_PLUGIN_CNTR_DOUBLE (1 << 9)

/* One counter that get_event_info offers; a list of them ends at name == NULL. VampirTrace
 * freed the names, the units and the list with free(); vt copies what it needs and frees
 * none of them, so malloc'd and static ones both work. */
typedef struct vt_plugin_cntr_metric_info_struct {
	char *name;
	char *unit;
	uint32_t cntr_property;
} vt_plugin_cntr_metric_info;

/* A value and when it was taken, on the clock of the wtime function vt hands over. */
typedef struct vt_plugin_cntr_timevalue_struct {
	uint64_t timestamp;
	uint64_t value;
} vt_plugin_cntr_timevalue;

/* What get_info() returns. Unused function pointers are NULL; reserved stays zero. */
typedef struct vt_plugin_cntr_info_struct {
	/* VT_PLUGIN_CNTR_VERSION of the header the plugin was built with. Mandatory. */
	uint32_t vt_plugin_cntr_version;
	/* Once per process, before anything but set_pform_wtime_function; 0 on success.
	 * Mandatory. */
	int32_t (*init)(void);
	/* The counters a requested name stands for (it may have wildcards); NULL or an empty
	 * list: none. The list and its strings are malloc'd. Mandatory. */
	vt_plugin_cntr_metric_info *(*get_event_info)(char *event_name);
	/* Adds a counter on the calling thread; returns its id (>= 0), or < 0 on failure.
	 * Mandatory. */
	int32_t (*add_counter)(char *event_name);
	/* Starts and stops a counter; 0 on success. Optional. */
	int32_t (*enable_counter)(int32_t id);
	int32_t (*disable_counter)(int32_t id);
	/* Non-zero on a thread the plugin made itself (vt does not trace it). Optional. */
	int32_t (*is_thread_registered)(void);
	/* enum vt_plugin_cntr_per */
	int32_t run_per;
	/* enum vt_plugin_cntr_synch */
	int32_t synch;
	/* SYNCH: the current value of a counter. */
	uint64_t (*get_current_value)(int32_t id);
	/* Asynchronous plugins: the clock to timestamp values with, given before init. */
	void (*set_pform_wtime_function)(uint64_t (*pform_wtime)(void));
	/* ASYNCH_EVENT, ASYNCH_POST_MORTEM: the values since the last call, in *result
	 * (malloc'd; vt frees it); returns how many. */
	uint64_t (*get_all_values)(int32_t id, vt_plugin_cntr_timevalue **result);
	/* ASYNCH_CALLBACK: where to send the values of counter id: callback(obj, value), from
	 * the plugin's thread; 0 on success. */
	int32_t (*set_callback_function)(void *obj, int32_t id,
					 int32_t (*callback_function)(void *,
								      vt_plugin_cntr_timevalue));
	/* Once per process, after every counter is disabled. Optional. */
	void (*finalize)(void);
	/* For later versions of the interface: keep zero. */
	uint64_t reserved[100];
} vt_plugin_cntr_info;

/* Marks the one symbol a plugin exports as visible, also when the plugin is built with
 * -fvisibility=hidden: the declaration below carries it to the plugin's definition. */
#if defined(__GNUC__) || defined(__clang__)
#define VT_PLUGIN_CNTR_EXPORT __attribute__((visibility("default")))
#else
#define VT_PLUGIN_CNTR_EXPORT
#endif

/* The one symbol a plugin exports. */
VT_PLUGIN_CNTR_EXPORT vt_plugin_cntr_info get_info(void);

#ifdef __cplusplus
}
#endif

#endif
