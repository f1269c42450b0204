/* SPDX-License-Identifier: BSD-3-Clause */
/* Region ids: a lock-free address->id table for -finstrument-functions, and the region table. */
#ifndef VT_REGION_H
#define VT_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_REGION_MAX	   (1u << 20)  /* ids per process */
#define VT_ADDR_SLOTS	   (1u << 21)  /* address table slots, at most half used */
#define VT_REGION_FILTERED 0x80000000u /* flag in a slot's value: never record */
#define VT_REGION_ID_MASK  0x7fffffffu
#define VT_REGION_UNKNOWN  (VT_REGION_MAX - 1) /* where regions beyond the table go */

enum vt_region_kind {
	VT_REGION_ADDR, /* -finstrument-functions: a code address, named at finalize */
	VT_REGION_USER, /* the user API: a name */
	VT_REGION_DESC, /* a compiler plugin's descriptor: name, file, line given */
	VT_REGION_CODE, /* a construct at a code address (OpenMP): "PREFIX @file:line" at
			   finalize, from the address's source line */
};

struct vt_region {
	uintptr_t addr;	  /* code address (ADDR) */
	const char *name; /* resolved name; NULL until resolved */
	const char *file;
	uint32_t line;
	uint16_t module; /* index into the module table (ADDR) */
	uint8_t kind;
	uint8_t resolved;
	uint8_t paradigm, role; /* OTF2's; 0: by kind (compiler or user, function) */
	long limit;		/* recorded calls per process; -1 unlimited, 0 never */
	long calls;		/* calls counted against limit (by the encoders) */
};

struct vt_addr_slot {
	uintptr_t key; /* 0: empty; published last, with release order */
	uint32_t val;  /* id | VT_REGION_FILTERED */
};

/*
 * The two tables the hot path and the encoders read, in one object (the module's shared
 * state): hidden, so the hot path reaches them PC-relative without a GOT load, a field being
 * a constant offset from the one symbol. The regions are in pages of VT_REGION_PAGE, mapped
 * when their first id is handed out (under the region lock, before the id is published):
 * a table of all VT_REGION_MAX would be 56 MB of address space in libvt's bss, which a
 * program under `ulimit -v` could not even load.
 */
#define VT_REGION_PAGE 1024u
struct vt_regtab {
	struct vt_addr_slot by_addr[VT_ADDR_SLOTS];
	struct vt_region *pages[VT_REGION_MAX / VT_REGION_PAGE];
};
extern struct vt_regtab vt_regtab __attribute__((visibility("hidden")));

/* The region of an id handed out (its page exists). */
static inline __attribute__((always_inline)) struct vt_region *vt_region_at(uint32_t id)
{
	return &vt_regtab.pages[id / VT_REGION_PAGE][id % VT_REGION_PAGE];
}

/* Slow path: first sight of an address. Takes the region lock; never records an event. */
uint32_t vt_region_insert_addr(uintptr_t addr);

/* Slow path of the user API: first sight of a name string (by its address). */
uint32_t vt_region_insert_name(uintptr_t name_ptr);

static inline __attribute__((always_inline)) uint32_t vt_slot_index(uintptr_t key)
{
	/* Functions are at least 16-byte apart in practice; mix the bits above that. */
	return (uint32_t)(((key >> 4) * 0x9E3779B97F4A7C15ull) >> 43);
}

/*
 * Lock-free look-up of a key (a code address, or the address of a user-API name string:
 * distinct objects, so the keys never collide). Readers load the key with acquire order;
 * the inserter stores the value first and the key last.
 */
static inline __attribute__((always_inline)) bool vt_region_find(uintptr_t key, uint32_t *val)
{
	uint32_t i = vt_slot_index(key);
	for (;;) {
		uintptr_t k = __atomic_load_n(&vt_regtab.by_addr[i].key, __ATOMIC_ACQUIRE);
		if (__builtin_expect(k == key, 1)) {
			*val = vt_regtab.by_addr[i].val;
			return true;
		}
		if (k == 0)
			return false;
		i = (i + 1) & (VT_ADDR_SLOTS - 1);
	}
}

/* The same, the slow path miss(key) for a key not known yet. */
static inline __attribute__((always_inline)) uint32_t vt_region_probe(uintptr_t key,
								      uint32_t (*miss)(uintptr_t))
{
	uint32_t val;
	return vt_region_find(key, &val) ? val : miss(key);
}

static inline __attribute__((always_inline)) uint32_t vt_region_of_addr(uintptr_t addr)
{
	return vt_region_probe(addr, vt_region_insert_addr);
}

static inline __attribute__((always_inline)) uint32_t vt_region_of_name(const char *name)
{
	return vt_region_probe((uintptr_t)name, vt_region_insert_name);
}

/* The region of a name given by its bytes (not NUL-terminated, at any address): looked up by
 * content, lock-free once known. */
uint32_t vt_region_of_string(const char *s, size_t len);

/*
 * The region of a construct (construct < 64, one number per kind of construct) at a code
 * address (0: none known), named at finalize "PREFIX @file:line" from the address's source
 * line, else "PREFIX @function", else "PREFIX @0xADDR" ("PREFIX" alone without an address);
 * prefix is a string that lives as long as the process. Lock-free once known; first sight
 * takes the region lock. Never filtered.
 */
static inline uintptr_t vt_region_code_key(uintptr_t code, uint32_t construct)
{
	/* Above every user-space address, so no code address or name string is the key. */
	return (code << 6 | construct) | (uintptr_t)1 << 63;
}
uint32_t vt_region_insert_code(uintptr_t code, uint32_t construct, const char *prefix,
			       uint8_t paradigm, uint8_t role);
static inline __attribute__((always_inline)) uint32_t
vt_region_of_code(uintptr_t code, uint32_t construct, const char *prefix, uint8_t paradigm,
		  uint8_t role)
{
	uint32_t val;
	if (vt_region_find(vt_region_code_key(code, construct), &val))
		return val;
	return vt_region_insert_code(code, construct, prefix, paradigm, role);
}

struct vt_inst_desc;
/* Slow path of a descriptor's first call: returns its handle, (id | flags) + 1, which it
 * also stores in the descriptor. */
uint32_t vt_region_register_desc(struct vt_inst_desc *d);

/* Sets the source location of a user-API region, if not known yet. */
void vt_region_set_source(uint32_t id, const char *file, int line);

/* Number of ids handed out so far (dense from 0). */
uint32_t vt_region_count(void);

/* Whether regions went to VT_REGION_UNKNOWN because the table was full. */
bool vt_region_overflowed(void);

/* Resolves the names of all regions not yet resolved (finalize; off the hot path). */
void vt_region_resolve_all(void);

/* Applies the filter to a region whose name is known; returns the slot flags. */
uint32_t vt_region_apply_filter(uint32_t id);

/* Sampled code addresses (vt_callctx.c): the module holding addr, recorded at first sight
 * (-1: none); then its function, as a region is named, and its own source line (strings
 * malloc'd, NULL when not known). */
struct vt_sym_info;
int vt_region_module_of(uintptr_t addr);
void vt_region_resolve_code(uintptr_t addr, int module, struct vt_sym_info *fn,
			    struct vt_sym_info *src);

#endif
