/* SPDX-License-Identifier: BSD-3-Clause */
/* The Kokkos Tools interface: kernels, regions, sections, fences, deep copies, allocations. */
/*
 * Kokkos loads the library named by KOKKOS_TOOLS_LIBS (Kokkos 4) or KOKKOS_PROFILE_LIBRARY
 * (Kokkos 3) and calls its kokkosp_* functions; naming libvt there makes vt record what
 * Kokkos reports (docs/kokkos.md). When libvt is already in the process (a vtcc build, or
 * vtrun's preload), the loader hands Kokkos the same copy.
 *
 * Kernels (parallel_for, parallel_reduce, parallel_scan), fences, profile regions and
 * profile sections are regions named as Kokkos names them, one region per distinct name.
 * The id a begin hook hands back to Kokkos is the region's value plus one, so its end needs
 * no table; 0 means "not recorded". A deep copy is a region "Kokkos::deep_copy SRC->DST"
 * (the memory spaces) and its bytes are added to the counter "Kokkos::deep_copy bytes" at
 * its end; allocations and deallocations set the counter "Kokkos::SPACE bytes allocated"
 * (the bytes allocated now in that memory space); profile events are markers of category
 * Kokkos; metadata Kokkos declares (its configuration, the program's declareMetadata) are
 * trace properties KOKKOS::METADATA::KEY.
 *
 * Every hook may come from any thread: the pushed regions and an open deep copy are kept
 * per thread, the sections and the spaces process-wide (added under a lock, read without).
 */
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "metrics/vt_metric.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KK_EXPORT __attribute__((visibility("default"), no_instrument_function))

/* The interface versions vt answers: Kokkos passes the date of its interface (YYYYMMDD;
 * Kokkos 3.4: 20210225). The hooks vt implements have the C form of that interface; older
 * interfaces than the lower bound are not taken on trust. */
#define KK_VERSION_MIN 20171029ull
#define KK_VERSION_MAX 99991231ull

#define KK_DEPTH    64 /* pushed regions kept per thread (static TLS: keep it small) */
#define KK_SECTIONS 4096
#define KK_SPACES   16
#define KK_NAMES    4  /* names cached per thread (a power of two) */
#define KK_NAME	    24 /* their longest length + 1 */

/* Kokkos's handle of a memory space (Kokkos_Profiling_C_Interface.h). */
struct kk_space_handle {
	char name[64];
};

struct kk_device_info {
	size_t device_id;
};

/* The hooks, in the types of Kokkos_Profiling_C_Interface.h (Kokkos finds them by dlsym). */
void kokkosp_init_library(const int load_seq, const uint64_t version, const uint32_t n_devices,
			  struct kk_device_info *devices);
void kokkosp_finalize_library(void);
void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *id);
void kokkosp_end_parallel_for(const uint64_t id);
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *id);
void kokkosp_end_parallel_reduce(const uint64_t id);
void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *id);
void kokkosp_end_parallel_scan(const uint64_t id);
void kokkosp_begin_fence(const char *name, const uint32_t dev, uint64_t *id);
void kokkosp_end_fence(const uint64_t id);
void kokkosp_push_profile_region(const char *name);
void kokkosp_pop_profile_region(void);
void kokkosp_create_profile_section(const char *name, uint32_t *id);
void kokkosp_start_profile_section(const uint32_t id);
void kokkosp_stop_profile_section(const uint32_t id);
void kokkosp_destroy_profile_section(const uint32_t id);
void kokkosp_begin_deep_copy(struct kk_space_handle dst_space, const char *dst_label,
			     const void *dst, struct kk_space_handle src_space,
			     const char *src_label, const void *src, uint64_t size);
void kokkosp_end_deep_copy(void);
void kokkosp_allocate_data(struct kk_space_handle space, const char *label, const void *ptr,
			   const uint64_t size);
void kokkosp_deallocate_data(struct kk_space_handle space, const char *label, const void *ptr,
			     const uint64_t size);
void kokkosp_profile_event(const char *name);
void kokkosp_declare_metadata(const char *key, const char *value);

static struct {
	pthread_mutex_t lock;
	bool active; /* initialised with a version vt answers, VT_KOKKOS on */
	uint32_t n_sections;
	uint32_t sections[KK_SECTIONS]; /* region value + 1; 0: destroyed */
	uint32_t n_spaces;		/* published after its space is complete */
	struct {
		char name[64];
		int32_t metric;
		int64_t bytes; /* allocated now */
	} spaces[KK_SPACES];
	int32_t copied_metric; /* -2: not defined yet */
	int64_t copied;	       /* bytes copied so far */
	bool said_depth, said_sections, said_spaces;
} kk = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .copied_metric = -2,
};

/* The calling thread's pushed regions, its open deep copy, and the regions of the names it
 * used last (len + 1, 0: empty), so that a kernel launched again skips the name table's hash. */
static __thread struct {
	struct {
		uint32_t len, val;
		char name[KK_NAME];
	} names[KK_NAMES];
	uint32_t stack[KK_DEPTH];
	uint32_t depth, overflow;
	uint32_t copy_region; /* value + 1 of the open deep copy's region; 0: none */
	uint64_t copy_bytes;
} self __attribute__((tls_model("initial-exec")));

/* The thread's recording state when Kokkos's hooks are to be recorded, else NULL. */
static inline struct vt_tls *kk_thread(void)
{
	if (vt_unlikely(!__atomic_load_n(&kk.active, __ATOMIC_RELAXED)))
		return NULL;
	return vt_thread_self();
}

/* The region of name: from the thread's cache when it holds the name, else from vt's name
 * table (lock-free after the name's first use), then cached. A name's region never changes. */
static inline uint32_t region_of(const char *name)
{
	size_t len = strlen(name);
	if (len >= KK_NAME)
		return vt_region_of_string(name, len);
	unsigned i = ((unsigned)len ^ (unsigned char)name[0]) & (KK_NAMES - 1);
	if (self.names[i].len == len + 1 && memcmp(self.names[i].name, name, len) == 0)
		return self.names[i].val;
	uint32_t val = vt_region_of_string(name, len);
	memcpy(self.names[i].name, name, len);
	self.names[i].len = (uint32_t)len + 1;
	self.names[i].val = val;
	return val;
}

KK_EXPORT void kokkosp_init_library(const int load_seq, const uint64_t version,
				    const uint32_t n_devices, struct kk_device_info *devices)
{
	(void)load_seq;
	(void)n_devices;
	(void)devices;
	vt_thread_self(); /* vt starts here if it has not */
	if (!vt_cfg.kokkos)
		return;
	if (version < KK_VERSION_MIN || version > KK_VERSION_MAX) {
		vt_error("Kokkos passed profiling interface version %llu; vt answers the versions "
			 "(dates, YYYYMMDD) from %llu to %llu: nothing of Kokkos is recorded",
			 (unsigned long long)version, KK_VERSION_MIN, KK_VERSION_MAX);
		return;
	}
	__atomic_store_n(&kk.active, true, __ATOMIC_RELEASE);
}

KK_EXPORT void kokkosp_finalize_library(void)
{
	/* Kokkos is done; the program may go on, and vt writes the trace when it ends. */
	__atomic_store_n(&kk.active, false, __ATOMIC_RELEASE);
}

/* ---- kernels and fences: the id handed out is the region's value + 1 ---- */

static void begin(const char *name, uint64_t *id)
{
	struct vt_tls *t = kk_thread();
	if (!id)
		return;
	*id = 0;
	if (!t || !name)
		return;
	uint32_t val = region_of(name);
	*id = (uint64_t)val + 1;
	vt_thread_enter(t, val);
}

static void end(uint64_t id)
{
	struct vt_tls *t = kk_thread();
	if (t && id && id <= UINT32_MAX + 1ull)
		vt_thread_leave(t, (uint32_t)(id - 1));
}

KK_EXPORT void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *id)
{
	(void)dev;
	begin(name, id);
}

KK_EXPORT void kokkosp_end_parallel_for(const uint64_t id)
{
	end(id);
}

KK_EXPORT void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *id)
{
	(void)dev;
	begin(name, id);
}

KK_EXPORT void kokkosp_end_parallel_reduce(const uint64_t id)
{
	end(id);
}

KK_EXPORT void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *id)
{
	(void)dev;
	begin(name, id);
}

KK_EXPORT void kokkosp_end_parallel_scan(const uint64_t id)
{
	end(id);
}

KK_EXPORT void kokkosp_begin_fence(const char *name, const uint32_t dev, uint64_t *id)
{
	(void)dev;
	begin(name, id);
}

KK_EXPORT void kokkosp_end_fence(const uint64_t id)
{
	end(id);
}

/* ---- profile regions: a stack per thread ---- */

KK_EXPORT void kokkosp_push_profile_region(const char *name)
{
	struct vt_tls *t = kk_thread();
	if (!t || !name)
		return;
	if (self.depth == KK_DEPTH) {
		/* Deeper than kept: its pop is counted, and nothing is recorded for either. */
		self.overflow++;
		if (!__atomic_exchange_n(&kk.said_depth, true, __ATOMIC_RELAXED))
			vt_warn("Kokkos: profile regions nested deeper than %d are not recorded",
				KK_DEPTH);
		return;
	}
	uint32_t val = region_of(name);
	self.stack[self.depth++] = val;
	vt_thread_enter(t, val);
}

KK_EXPORT void kokkosp_pop_profile_region(void)
{
	struct vt_tls *t = kk_thread();
	if (!t)
		return;
	if (self.overflow) {
		self.overflow--;
		return;
	}
	if (self.depth)
		vt_thread_leave(t, self.stack[--self.depth]);
}

/* ---- profile sections: process-wide ids ---- */

KK_EXPORT void kokkosp_create_profile_section(const char *name, uint32_t *id)
{
	if (!id)
		return;
	*id = UINT32_MAX;
	if (!kk_thread() || !name)
		return;
	uint32_t val = region_of(name);
	pthread_mutex_lock(&kk.lock);
	if (kk.n_sections < KK_SECTIONS) {
		*id = kk.n_sections;
		__atomic_store_n(&kk.sections[kk.n_sections], val + 1, __ATOMIC_RELEASE);
		kk.n_sections++;
	} else if (!kk.said_sections) {
		kk.said_sections = true;
		vt_warn("Kokkos: more than %d profile sections; later ones are not recorded",
			KK_SECTIONS);
	}
	pthread_mutex_unlock(&kk.lock);
}

static uint32_t section(uint32_t id)
{
	return id < KK_SECTIONS ? __atomic_load_n(&kk.sections[id], __ATOMIC_ACQUIRE) : 0;
}

KK_EXPORT void kokkosp_start_profile_section(const uint32_t id)
{
	struct vt_tls *t = kk_thread();
	uint32_t v = section(id);
	if (t && v)
		vt_thread_enter(t, v - 1);
}

KK_EXPORT void kokkosp_stop_profile_section(const uint32_t id)
{
	struct vt_tls *t = kk_thread();
	uint32_t v = section(id);
	if (t && v)
		vt_thread_leave(t, v - 1);
}

KK_EXPORT void kokkosp_destroy_profile_section(const uint32_t id)
{
	if (id < KK_SECTIONS)
		__atomic_store_n(&kk.sections[id], 0, __ATOMIC_RELEASE);
}

/* ---- deep copies and allocations: counters ---- */

/* The counter named "Kokkos::" prefix suffix, -1 when it cannot be. */
static int32_t define_counter(const char *prefix, const char *suffix)
{
	char name[128];
	snprintf(name, sizeof(name), "Kokkos::%s%s", prefix, suffix);
	return vt_metric_define(name, "bytes", false);
}

KK_EXPORT void kokkosp_begin_deep_copy(struct kk_space_handle dst_space, const char *dst_label,
				       const void *dst, struct kk_space_handle src_space,
				       const char *src_label, const void *src, uint64_t size)
{
	(void)dst_label;
	(void)dst;
	(void)src_label;
	(void)src;
	struct vt_tls *t = kk_thread();
	if (!t)
		return;
	char name[160];
	dst_space.name[sizeof(dst_space.name) - 1] = '\0';
	src_space.name[sizeof(src_space.name) - 1] = '\0';
	int n = snprintf(name, sizeof(name), "Kokkos::deep_copy %s->%s", src_space.name,
			 dst_space.name);
	if (n <= 0)
		return;
	uint32_t val =
	    vt_region_of_string(name, (size_t)n < sizeof(name) ? (size_t)n : sizeof(name) - 1);
	self.copy_region = val + 1;
	self.copy_bytes = size;
	vt_thread_enter(t, val);
}

KK_EXPORT void kokkosp_end_deep_copy(void)
{
	struct vt_tls *t = kk_thread();
	if (!t || !self.copy_region)
		return;
	int32_t m = __atomic_load_n(&kk.copied_metric, __ATOMIC_ACQUIRE);
	if (vt_unlikely(m == -2)) {
		pthread_mutex_lock(&kk.lock);
		if (kk.copied_metric == -2)
			__atomic_store_n(&kk.copied_metric, define_counter("deep_copy bytes", ""),
					 __ATOMIC_RELEASE);
		m = kk.copied_metric;
		pthread_mutex_unlock(&kk.lock);
	}
	int64_t total = __atomic_add_fetch(&kk.copied, (int64_t)self.copy_bytes, __ATOMIC_RELAXED);
	if (m >= 0)
		vt_metric_set(t, m, (uint64_t)total);
	vt_thread_leave(t, self.copy_region - 1);
	self.copy_region = 0;
}

/* The index of the memory space called name, added on first sight; -1 beyond KK_SPACES. */
static int space_of(const char *name)
{
	uint32_t n = __atomic_load_n(&kk.n_spaces, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(kk.spaces[i].name, name) == 0)
			return (int)i;
	int found = -1;
	pthread_mutex_lock(&kk.lock);
	for (uint32_t i = 0; i < kk.n_spaces && found < 0; i++)
		if (strcmp(kk.spaces[i].name, name) == 0)
			found = (int)i;
	if (found < 0 && kk.n_spaces < KK_SPACES) {
		found = (int)kk.n_spaces;
		snprintf(kk.spaces[found].name, sizeof(kk.spaces[found].name), "%s", name);
		kk.spaces[found].metric = define_counter(name, " bytes allocated");
		__atomic_store_n(&kk.n_spaces, kk.n_spaces + 1, __ATOMIC_RELEASE);
	} else if (found < 0 && !kk.said_spaces) {
		kk.said_spaces = true;
		vt_warn("Kokkos: more than %d memory spaces; the allocations of later ones are not "
			"counted",
			KK_SPACES);
	}
	pthread_mutex_unlock(&kk.lock);
	return found;
}

static void allocated(struct kk_space_handle *space, int64_t delta)
{
	struct vt_tls *t = kk_thread();
	if (!t)
		return;
	space->name[sizeof(space->name) - 1] = '\0';
	int i = space_of(space->name);
	if (i < 0)
		return;
	int64_t now = __atomic_add_fetch(&kk.spaces[i].bytes, delta, __ATOMIC_RELAXED);
	if (kk.spaces[i].metric >= 0)
		vt_metric_set(t, kk.spaces[i].metric, (uint64_t)now);
}

KK_EXPORT void kokkosp_allocate_data(struct kk_space_handle space, const char *label,
				     const void *ptr, const uint64_t size)
{
	(void)label;
	(void)ptr;
	allocated(&space, (int64_t)size);
}

KK_EXPORT void kokkosp_deallocate_data(struct kk_space_handle space, const char *label,
				       const void *ptr, const uint64_t size)
{
	(void)label;
	(void)ptr;
	allocated(&space, -(int64_t)size);
}

/* ---- events: markers ---- */

KK_EXPORT void kokkosp_profile_event(const char *name)
{
	struct vt_tls *t = kk_thread();
	if (t && name)
		vt_annot_marker(vt_clock_now(), t->loc->ref, "Kokkos", 0, name);
}

/* ---- metadata: trace properties ---- */

/* KOKKOS::METADATA::KEY: the key upper-cased, other characters than [A-Z0-9_] made '_'
 * (OTF2's property names); the last value declared is the one written. */
KK_EXPORT void kokkosp_declare_metadata(const char *key, const char *value)
{
	char prop[256];
	if (!kk_thread() || !key || !*key || !value)
		return;
	size_t i = (size_t)snprintf(prop, sizeof(prop), "KOKKOS::METADATA::");
	for (const char *c = key; *c && i + 1 < sizeof(prop); c++) {
		char ch = *c;
		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		else if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			ch = '_';
		prop[i++] = ch;
	}
	prop[i] = '\0';
	vt_annot_property(prop, value);
}
