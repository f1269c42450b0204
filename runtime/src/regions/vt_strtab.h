/* SPDX-License-Identifier: BSD-3-Clause */
/* Interned strings with dense ids: OTF2 string definitions, or plain keys -> ids. */
#ifndef VT_STRTAB_H
#define VT_STRTAB_H

#include <otf2/otf2.h>
#include <stdint.h>

struct vt_strtab {
	OTF2_GlobalDefWriter *w; /* NULL: only ids, no definitions written */
	char **keys;		 /* copies, owned */
	uint32_t *ids;
	size_t cap;
	uint32_t n;
};

/* The id of s (NULL: OTF2_UNDEFINED_STRING), defining it on first sight. */
uint32_t vt_strtab_ref(struct vt_strtab *t, const char *s);

/* The id of s if it is in the table, else UINT32_MAX. */
uint32_t vt_strtab_find(const struct vt_strtab *t, const char *s);

void vt_strtab_free(struct vt_strtab *t);

#endif
