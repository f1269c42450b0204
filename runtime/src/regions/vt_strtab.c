/* SPDX-License-Identifier: BSD-3-Clause */
/* An open-addressing table of owned strings. */
#include "regions/vt_strtab.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int grow(struct vt_strtab *t)
{
	/* Small at first: most tables hold a few strings (an empty program's, 4), and a large
	 * first table was 12 KiB zeroed per table at the end of every run. */
	size_t cap = t->cap ? 2 * t->cap : 64;
	char **keys = calloc(cap, sizeof(*keys));
	uint32_t *ids = calloc(cap, sizeof(*ids));
	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->keys[i])
			continue;
		size_t j = hash(t->keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = t->keys[i];
		ids[j] = t->ids[i];
	}
	free(t->keys);
	free(t->ids);
	t->keys = keys;
	t->ids = ids;
	t->cap = cap;
	return 0;
}

uint32_t vt_strtab_find(const struct vt_strtab *t, const char *s)
{
	if (!t->cap)
		return UINT32_MAX;
	for (size_t j = hash(s) & (t->cap - 1); t->keys[j]; j = (j + 1) & (t->cap - 1))
		if (strcmp(t->keys[j], s) == 0)
			return t->ids[j];
	return UINT32_MAX;
}

uint32_t vt_strtab_ref(struct vt_strtab *t, const char *s)
{
	if (!s)
		return OTF2_UNDEFINED_STRING;
	uint32_t id = vt_strtab_find(t, s);
	if (id != UINT32_MAX)
		return id;
	char *copy = strdup(s);
	if (!copy || (2 * (t->n + 1) > t->cap && grow(t) < 0)) {
		free(copy);
		return OTF2_UNDEFINED_STRING;
	}
	size_t j = hash(s) & (t->cap - 1);
	while (t->keys[j])
		j = (j + 1) & (t->cap - 1);
	t->keys[j] = copy;
	t->ids[j] = t->n;
	if (t->w)
		OTF2_GlobalDefWriter_WriteString(t->w, t->n, copy);
	return t->n++;
}

void vt_strtab_free(struct vt_strtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->ids);
	t->keys = NULL;
	t->ids = NULL;
	t->cap = t->n = 0;
}
