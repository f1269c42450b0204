/* SPDX-License-Identifier: BSD-3-Clause */
/* Region ids: first sight of an address or a user-API name, filter decisions, names. */
#include "regions/vt_region.h"
#include "base/vt_log.h"
#include "base/vt_sys.h"
#include "filter/vt_filter.h"
#include "regions/vt_symbols.h"
#include "vt/vt_inst.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Zero pages until touched: 32 MiB + 56 MiB of address space, a few KiB resident. */
struct vt_regtab vt_regtab;

#define NAME_SLOTS (1u << 14)

struct name_slot {
	const char *key; /* vt's copy, NUL-terminated; NULL: empty; published last */
	uint64_t hash;
	uint32_t len;
	uint32_t val;
};

static struct {
	/*
	 * Serialises first sight (inserts into the table, module and symbol look-ups). First
	 * sight can happen in a signal handler (an instrumented handler's first call), so the
	 * lock is held with every signal blocked: a handler never interrupts its own thread's
	 * holder and waits for it. Names are copied into an arena of vt's own (mmap), not with
	 * malloc, whose lock the interrupted code may hold.
	 */
	pthread_mutex_t region_lock;
	uint32_t n_regions; /* ids are dense from 0, as OTF2 wants them */
	int table_full_warned;
	/*
	 * Regions by the contents of their name (perfstubs' start_string, Fortran names, which
	 * are neither NUL-terminated nor guaranteed to stay at one address): a lock-free
	 * open-addressing table from the name's bytes to its region, whose keys are vt's own
	 * copies. The copy is also the key of vt_region_of_name, so each name takes one slot
	 * there, however many buffers the program passes it in.
	 */
	struct name_slot name_slots[NAME_SLOTS];
	uint32_t n_names;
	pthread_mutex_t names_lock;
	/* The page of VT_REGION_UNKNOWN, which must exist even when no page could be mapped. */
	struct vt_region last_page[VT_REGION_PAGE];
} rgn = {
    .region_lock = PTHREAD_MUTEX_INITIALIZER,
    .names_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void lock_regions(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pthread_mutex_lock(&rgn.region_lock);
}

static void unlock_regions(const sigset_t *old)
{
	pthread_mutex_unlock(&rgn.region_lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* A copy of s that lives as long as the process; caller holds region_lock. NULL when no
 * memory is left. */
static char *copy_locked(const char *s)
{
	static char *at, *end;
	size_t n = strlen(s) + 1;
	if ((size_t)(end - at) < n) {
		size_t chunk = n > 65536 ? n : 65536;
		void *p = vt_sys_mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		at = p;
		end = at + chunk;
	}
	char *c = at;
	memcpy(c, s, n);
	at += n;
	return c;
}

bool vt_region_overflowed(void)
{
	return rgn.table_full_warned != 0;
}

uint32_t vt_region_count(void)
{
	return __atomic_load_n(&rgn.n_regions, __ATOMIC_ACQUIRE);
}

/* A construct's name: its prefix (r->name until now) and where it is in the source. */
static void resolve_code_locked(struct vt_region *r)
{
	const char *prefix = r->name ? r->name : "?";
	char buf[1024];
	if (!r->addr) {
		r->name = prefix;
		return;
	}
	int mod = r->module == UINT16_MAX ? -1 : r->module;
	struct vt_sym_info src = {0}, fn = {0};
	/* A return address: its call is the byte before. */
	vt_sym_line(r->addr - 1, mod, &src);
	if (src.file && src.line) {
		const char *base = strrchr(src.file, '/');
		snprintf(buf, sizeof(buf), "%s @%s:%u", prefix, base ? base + 1 : src.file,
			 src.line);
		r->file = src.file;
		r->line = src.line;
	} else {
		vt_sym_resolve(vt_sym_func_start(r->addr, mod), mod, &fn);
		if (fn.name)
			snprintf(buf, sizeof(buf), "%s @%s", prefix, fn.name);
		else
			snprintf(buf, sizeof(buf), "%s @0x%lx", prefix, (unsigned long)r->addr);
		free((void *)fn.file);
		free((void *)src.file);
		free((void *)fn.name);
	}
	r->name = strdup(buf);
	if (!r->name)
		r->name = prefix;
}

static void resolve_locked(uint32_t id)
{
	struct vt_region *r = vt_region_at(id);
	if (r->resolved)
		return;
	r->resolved = 1;
	if (r->kind == VT_REGION_CODE)
		return resolve_code_locked(r);
	if (r->kind != VT_REGION_ADDR)
		return;
	struct vt_sym_info si;
	vt_sym_resolve(r->addr, r->module == UINT16_MAX ? -1 : r->module, &si);
	if (!si.name) {
		char buf[32];
		snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)r->addr);
		si.name = strdup(buf);
	}
	r->name = si.name;
	r->file = si.file;
	r->line = si.line;
}

uint32_t vt_region_apply_filter(uint32_t id)
{
	struct vt_region *r = vt_region_at(id);
	r->limit = vt_filter_active() && r->name ? vt_filter_limit(r->name) : -1;
	return r->limit == 0 ? VT_REGION_FILTERED : 0;
}

/* Makes sure the page of id exists (mapped: no malloc, whose lock a signal handler's first
 * sight of a region might interrupt); false when no memory was left. Caller holds the
 * region lock. */
static bool page_locked(uint32_t id)
{
	struct vt_region **page = &vt_regtab.pages[id / VT_REGION_PAGE];
	if (*page)
		return true;
	if (id / VT_REGION_PAGE == VT_REGION_UNKNOWN / VT_REGION_PAGE) {
		__atomic_store_n(page, rgn.last_page, __ATOMIC_RELEASE);
		return true;
	}
	void *p = vt_sys_mmap(NULL, VT_REGION_PAGE * sizeof(struct vt_region),
			      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	__atomic_store_n(page, (struct vt_region *)p, __ATOMIC_RELEASE);
	return true;
}

static uint32_t new_id_locked(void)
{
	page_locked(VT_REGION_UNKNOWN);
	if (rgn.n_regions == VT_REGION_UNKNOWN) {
		if (!rgn.table_full_warned++)
			vt_warn("more than %u regions; further ones are recorded as 'unknown'",
				VT_REGION_UNKNOWN);
		return VT_REGION_UNKNOWN;
	}
	if (!page_locked(rgn.n_regions)) {
		if (!rgn.table_full_warned++)
			vt_warn("no memory for more regions after %u; further ones are recorded as "
				"'unknown'",
				rgn.n_regions);
		return VT_REGION_UNKNOWN;
	}
	return rgn.n_regions;
}

/* Fills a new region for a key (ctx: what the kind needs besides it); returns the filter
 * flags, or UINT32_MAX - id of an existing region that is the same. Caller holds
 * region_lock. */
typedef uint32_t (*make_fn)(uint32_t id, uintptr_t key, const void *ctx);

static uint32_t make_addr(uint32_t id, uintptr_t addr, const void *ctx)
{
	struct vt_region *r = vt_region_at(id);
	int mod = vt_sym_module_of(addr);
	r->addr = addr;
	r->kind = VT_REGION_ADDR;
	r->module = mod < 0 ? UINT16_MAX : (uint16_t)mod;
	r->limit = -1;
	/* With a filter the name decides now, once; without one it waits for finalize. */
	if (!vt_filter_active())
		return 0;
	resolve_locked(id);
	return vt_region_apply_filter(id);
}

static uint32_t make_name(uint32_t id, uintptr_t name_ptr, const void *ctx)
{
	const char *name = (const char *)name_ptr;
	/* The same name from another call site (another string) is the same region. */
	for (uint32_t other = 0; other < rgn.n_regions; other++) {
		struct vt_region *o = vt_region_at(other);
		if (o->kind == VT_REGION_USER && strcmp(o->name, name) == 0)
			return UINT32_MAX - other;
	}
	struct vt_region *r = vt_region_at(id);
	r->kind = VT_REGION_USER;
	r->name = copy_locked(name);
	if (!r->name)
		r->name = "unknown";
	r->resolved = 1;
	return vt_region_apply_filter(id);
}

/* A construct's code region (vt_region_insert_code): its address and how to name it. */
struct code_ctx {
	uintptr_t code;
	const char *prefix;
	uint8_t paradigm, role;
};

static uint32_t make_code(uint32_t id, uintptr_t key, const void *ctx)
{
	const struct code_ctx *c = ctx;
	struct vt_region *r = vt_region_at(id);
	int mod = c->code ? vt_sym_module_of(c->code) : -1;
	r->addr = c->code;
	r->kind = VT_REGION_CODE;
	r->module = mod < 0 ? UINT16_MAX : (uint16_t)mod;
	r->name = c->prefix; /* until resolve_code_locked makes the full name */
	r->paradigm = c->paradigm;
	r->role = c->role;
	r->limit = -1;
	return 0; /* no filter applies to a construct */
}

static uint32_t insert(uintptr_t key, make_fn make, const void *ctx)
{
	int saved = errno;
	sigset_t old;
	lock_regions(&old);
	uint32_t i = vt_slot_index(key);
	uint32_t val;
	for (;;) {
		uintptr_t k = vt_regtab.by_addr[i].key;
		if (k == key) {
			val = vt_regtab.by_addr[i].val;
			goto out;
		}
		if (k == 0)
			break;
		i = (i + 1) & (VT_ADDR_SLOTS - 1);
	}
	uint32_t id = new_id_locked();
	val = id;
	if (id != VT_REGION_UNKNOWN) {
		uint32_t flags = make(id, key, ctx);
		if (flags > VT_REGION_FILTERED) {
			/* An existing region under another key. */
			uint32_t other = UINT32_MAX - flags;
			val = other | (vt_region_at(other)->limit == 0 ? VT_REGION_FILTERED : 0);
		} else {
			val |= flags;
			__atomic_store_n(&rgn.n_regions, id + 1, __ATOMIC_RELEASE);
		}
	}
	vt_regtab.by_addr[i].val = val;
	__atomic_store_n(&vt_regtab.by_addr[i].key, key, __ATOMIC_RELEASE);
out:
	unlock_regions(&old);
	errno = saved;
	return val;
}

uint32_t vt_region_insert_code(uintptr_t code, uint32_t construct, const char *prefix,
			       uint8_t paradigm, uint8_t role)
{
	struct code_ctx c = {code, prefix, paradigm, role};
	return insert(vt_region_code_key(code, construct), make_code, &c);
}

uint32_t vt_region_insert_addr(uintptr_t addr)
{
	return insert(addr, make_addr, NULL);
}

uint32_t vt_region_insert_name(uintptr_t name_ptr)
{
	return insert(name_ptr, make_name, NULL);
}

/* Instrumented code skips both calls when the handle has VT_INST_SKIP (vt_inst.h): the
 * filtered bit, which a registered handle ((id | filtered bit) + 1) has exactly when the
 * region is filtered, since no id reaches it. */
_Static_assert(VT_INST_SKIP == VT_REGION_FILTERED && VT_REGION_UNKNOWN + 1 < VT_INST_SKIP,
	       "VT_INST_SKIP must be the filtered bit of a handle");

uint32_t vt_region_register_desc(struct vt_inst_desc *d)
{
	static int abi_warned;
	int saved = errno;
	sigset_t old;
	lock_regions(&old);
	uint32_t h = d->handle;
	if (h)
		goto out;
	/* ABI 1 has ABI 2's layout; its code calls whatever the handle says. */
	if (d->abi != VT_INST_ABI && d->abi != 1) {
		/* Another layout: nothing else in it can be trusted. */
		if (!abi_warned++)
			vt_warn(
			    "code instrumented by a compiler plugin of another vt version "
			    "(descriptor ABI %u, this runtime 1 to %u) is not recorded; rebuild it",
			    d->abi, VT_INST_ABI);
		page_locked(VT_REGION_UNKNOWN);
		h = (VT_REGION_UNKNOWN | VT_REGION_FILTERED) + 1;
	} else {
		uint32_t id = new_id_locked();
		h = id + 1;
		if (id != VT_REGION_UNKNOWN) {
			struct vt_region *r = vt_region_at(id);
			/* Copies: the descriptor may live in a library that is dlclosed later. */
			r->kind = VT_REGION_DESC;
			r->name = copy_locked(d->name ? d->name : "unknown");
			r->file = d->file ? copy_locked(d->file) : NULL;
			if (!r->name)
				r->name = "unknown";
			r->line = d->line;
			/* vt's own adapters (MPI) give paradigm and role; plugins give 0. */
			r->paradigm = (uint8_t)(d->reserved >> 8);
			r->role = (uint8_t)d->reserved;
			r->resolved = 1;
			h |= vt_region_apply_filter(id);
			__atomic_store_n(&rgn.n_regions, id + 1, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&d->handle, h, __ATOMIC_RELEASE);
out:
	unlock_regions(&old);
	errno = saved;
	return h;
}

void vt_region_set_source(uint32_t id, const char *file, int line)
{
	struct vt_region *r = vt_region_at(id & VT_REGION_ID_MASK);
	if (__atomic_load_n(&r->file, __ATOMIC_RELAXED) || !file)
		return;
	sigset_t old;
	lock_regions(&old);
	if (!r->file) {
		r->line = line > 0 ? (uint32_t)line : 0;
		__atomic_store_n(&r->file, copy_locked(file), __ATOMIC_RELAXED);
	}
	unlock_regions(&old);
}

int vt_region_module_of(uintptr_t addr)
{
	sigset_t old;
	lock_regions(&old);
	int m = vt_sym_module_of(addr);
	unlock_regions(&old);
	return m;
}

void vt_region_resolve_code(uintptr_t addr, int module, struct vt_sym_info *fn,
			    struct vt_sym_info *src)
{
	sigset_t old;
	lock_regions(&old);
	vt_sym_resolve(vt_sym_func_start(addr, module), module, fn);
	vt_sym_line(addr, module, src);
	unlock_regions(&old);
}

void vt_region_resolve_all(void)
{
	sigset_t old;
	lock_regions(&old);
	page_locked(VT_REGION_UNKNOWN);
	struct vt_region *unknown = vt_region_at(VT_REGION_UNKNOWN);
	if (!unknown->name) {
		unknown->name = "unknown";
		unknown->resolved = 1;
		unknown->limit = -1;
	}
	for (uint32_t id = 0; id < rgn.n_regions; id++)
		resolve_locked(id);
	unlock_regions(&old);
}

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static bool name_is(const struct name_slot *e, const char *key, uint64_t h, const char *s,
		    size_t len)
{
	return e->hash == h && e->len == len && memcmp(key, s, len) == 0;
}

uint32_t vt_region_of_string(const char *s, size_t len)
{
	uint64_t h = name_hash(s, len);
	uint32_t i = (uint32_t)(h >> 50) & (NAME_SLOTS - 1);
	for (;;) {
		const char *k = __atomic_load_n(&rgn.name_slots[i].key, __ATOMIC_ACQUIRE);
		if (!k)
			break;
		if (name_is(&rgn.name_slots[i], k, h, s, len))
			return rgn.name_slots[i].val;
		i = (i + 1) & (NAME_SLOTS - 1);
	}
	/* Not there: under the lock, look again from the same place and insert. */
	int saved = errno;
	pthread_mutex_lock(&rgn.names_lock);
	uint32_t val = VT_REGION_UNKNOWN;
	i = (uint32_t)(h >> 50) & (NAME_SLOTS - 1);
	for (;;) {
		struct name_slot *e = &rgn.name_slots[i];
		if (e->key && name_is(e, e->key, h, s, len)) {
			val = e->val;
			break;
		}
		if (e->key) {
			i = (i + 1) & (NAME_SLOTS - 1);
			continue;
		}
		if (rgn.n_names >= NAME_SLOTS / 2) {
			static bool said;
			if (!said)
				vt_warn("more than %u distinct region names given by content "
					"(perfstubs, Fortran); later ones are recorded as "
					"\"unknown\"",
					NAME_SLOTS / 2);
			said = true;
			break;
		}
		char *copy = malloc(len + 1);
		if (!copy)
			break;
		memcpy(copy, s, len);
		copy[len] = '\0';
		val = vt_region_of_name(copy);
		e->hash = h;
		e->len = (uint32_t)len;
		e->val = val;
		rgn.n_names++;
		__atomic_store_n(&e->key, copy, __ATOMIC_RELEASE);
		break;
	}
	pthread_mutex_unlock(&rgn.names_lock);
	if (val == VT_REGION_UNKNOWN) /* its page exists before the id is used */
		__atomic_store_n(&vt_regtab.pages[VT_REGION_UNKNOWN / VT_REGION_PAGE],
				 rgn.last_page, __ATOMIC_RELEASE);
	errno = saved;
	return val;
}
