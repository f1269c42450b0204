/* SPDX-License-Identifier: BSD-3-Clause */
/* Code address -> module at first sight; module + address -> name, file, line later (elfutils). */
#ifndef VT_SYMBOLS_H
#define VT_SYMBOLS_H

#include <stdint.h>

/*
 * The module (executable or shared object) that holds addr, recorded the first time it is
 * seen, so that names resolve even after a dlclose. Caller holds the region lock.
 * Returns the module index or -1.
 */
int vt_sym_module_of(uintptr_t addr);

struct vt_sym_info {
	const char *name; /* malloc'd, or NULL when unknown */
	const char *file; /* malloc'd, or NULL without debug info */
	uint32_t line;
};

/* Resolves addr in module; caller holds the region lock. */
void vt_sym_resolve(uintptr_t addr, int module, struct vt_sym_info *out);

/* The source line of addr itself (not its function's), from the line table; out->name stays
 * NULL. Caller holds the region lock. */
void vt_sym_line(uintptr_t addr, int module, struct vt_sym_info *out);

/* The start of the function (ELF symbol) holding addr; addr when there is none. A sampled
 * address inside inlined code names its function from there, as an instrumented function's
 * entry does. Caller holds the region lock. */
uintptr_t vt_sym_func_start(uintptr_t addr, int module);

/* The file of a module (NULL: none). */
const char *vt_sym_module_path(int module);

/* Releases elfutils' state (finalize). */
void vt_sym_finish(void);

#endif
