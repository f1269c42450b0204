/* SPDX-License-Identifier: BSD-3-Clause */
/* Markers and properties of the program, until they go with the definitions (vt_annot.h). */
#include "defs/vt_annot.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct marker {
	uint64_t ts;
	uint32_t index;
	char *category, *text;
	uint32_t severity;
};

struct property {
	char *name, *value;
};

static struct {
	pthread_mutex_t lock;
	struct marker *markers;
	size_t n_markers, cap_markers;
	struct property *props;
	size_t n_props, cap_props;
} ann = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Room for one more of n in *v (capacity *cap); false when memory ran out. */
static bool room(void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 16;
	void *p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

void vt_annot_marker(uint64_t ts, uint32_t index, const char *category, uint32_t severity,
		     const char *text)
{
	int saved = errno;
	char *c = strdup(category ? category : "marker"), *t = strdup(text ? text : "");
	pthread_mutex_lock(&ann.lock);
	if (c && t &&
	    room((void **)&ann.markers, ann.n_markers, &ann.cap_markers, sizeof(*ann.markers))) {
		ann.markers[ann.n_markers++] = (struct marker){ts, index, c, t, severity};
		c = t = NULL;
	}
	pthread_mutex_unlock(&ann.lock);
	free(c);
	free(t);
	errno = saved;
}

void vt_annot_property(const char *name, const char *value)
{
	int saved = errno;
	char *v = strdup(value ? value : "");
	char *n = NULL;
	pthread_mutex_lock(&ann.lock);
	size_t i = 0;
	while (i < ann.n_props && strcmp(ann.props[i].name, name) != 0)
		i++;
	if (v && i < ann.n_props) {
		free(ann.props[i].value);
		ann.props[i].value = v;
		v = NULL;
	} else if (v && (n = strdup(name)) &&
		   room((void **)&ann.props, ann.n_props, &ann.cap_props, sizeof(*ann.props))) {
		ann.props[ann.n_props++] = (struct property){n, v};
		v = n = NULL;
	}
	pthread_mutex_unlock(&ann.lock);
	free(v);
	free(n);
	errno = saved;
}

void vt_annot_put_defs(struct vt_defs_buf *b, uint64_t (*ref_of)(uint32_t index))
{
	pthread_mutex_lock(&ann.lock);
	for (size_t i = 0; i < ann.n_markers; i++) {
		const struct marker *m = &ann.markers[i];
		union vt_def d = {
		    .marker = {m->ts, ref_of(m->index), m->category, m->text, m->severity}};
		vt_defs_put(b, VT_DEF_MARKER, &d);
	}
	for (size_t i = 0; i < ann.n_props; i++) {
		union vt_def d = {.property = {ann.props[i].name, ann.props[i].value}};
		vt_defs_put(b, VT_DEF_PROPERTY, &d);
	}
	pthread_mutex_unlock(&ann.lock);
}
