/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's compiler-plugin ABI: the descriptors and enter/exit calls the plugins emit. */
/*
 * The entry points compiler plugins call: one static descriptor per instrumented function.
 *
 * vt's GCC plugin and LLVM pass emit, for each selected function, a descriptor in a
 * writable data section and calls to vt_inst_enter(&desc) at entry and vt_inst_exit(&desc)
 * at every exit. The runtime registers the descriptor on its first call (name, file, line
 * are then copied into the region table) and caches the region in desc->handle, so no
 * address is ever looked up for such code. This header is the one layout both plugins and
 * the runtime use; changing its layout or the meaning of a field changes VT_INST_ABI.
 *
 * ABI 2 (issue 30) gives code a meaning to read in the handle: once the runtime has stored
 * a handle with VT_INST_SKIP set, it records nothing for the function, ever, so the
 * function may skip both calls. Plugins of ABI 2 load the handle once at entry and test
 * that value, kept in a local, at the entry and at every exit: a call skips its exit exactly
 * when it skipped its enter, whatever the handle becomes in between. The runtime stores a
 * handle once, from 0 to its final value, and never clears it. ABI 1 descriptors (the same
 * layout, whose code always calls) are still accepted.
 */
#ifndef VT_VT_INST_H
#define VT_VT_INST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VT_INST_ABI 2

/* The handle's bit that says the function is filtered (never recorded). The other values
 * of a registered handle have it clear. */
#define VT_INST_SKIP 0x80000000u

struct vt_inst_desc {
	uint32_t handle;  /* 0 until the runtime registers it; then VT_INST_SKIP or not, for good */
	uint32_t abi;	  /* VT_INST_ABI of the plugin that wrote the descriptor */
	const char *name; /* the name users expect (C++: demangled) */
	const char *file; /* source file, or NULL */
	uint32_t line;	  /* first line of the function, or 0 */
	uint32_t reserved; /* 0; vt's own adapters put OTF2's paradigm << 8 | role here */
};

/* Enter and leave the function described by desc. Never fail, never change errno. */
void vt_inst_enter(struct vt_inst_desc *desc);
void vt_inst_exit(struct vt_inst_desc *desc);

#ifdef __cplusplus
}
#endif

#endif
