/* SPDX-License-Identifier: BSD-3-Clause */
/* The thread model: per thread the time in parallel regions, barriers, tasks and locks. */
/*
 * The thread model from the regions' roles and the thread-model events: per location the
 * time in parallel regions, barriers, tasks, taskwaits, critical regions, pthread calls and
 * held locks, the tasks created and completed; per parallel or barrier region and location
 * its calls, time and (parallel regions) the time in the barriers directly inside, for the
 * spread over the threads (vt-profile --threads, vt-report's thread section). Memory: the
 * definitions (constructs x locations), each location's stack and open locks.
 */
#include "threads.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a region counts as, by its role and paradigm. */
enum cat { C_NONE, C_PARALLEL, C_BARRIER, C_TASK, C_TASKWAIT, C_CRITICAL, C_PTHREAD, C_N };

struct frame {
	uint32_t region;
	enum cat cat;
	uint64_t wait; /* a parallel region's: time in barriers directly inside */
};

struct held {
	uint32_t paradigm, lock;
	uint64_t since;
};

struct lstate {
	struct frame *f;
	size_t depth, cap;
	uint32_t open[C_N]; /* open activations per category: only the outermost counts */
	size_t parallel;    /* the innermost open parallel region's frame + 1, 0: none */
	struct held *locks; /* held now */
	size_t nlocks, caplocks;
};

struct priv {
	uint8_t *cat;	       /* per region */
	uint32_t *construct;   /* per region: its construct index, VTR_NONE */
	struct lstate *states; /* per location */
};

static enum cat cat_of(const struct vtr_region *r)
{
	if (!r->defined)
		return C_NONE;
	switch (r->role) {
	case OTF2_REGION_ROLE_PARALLEL:
		return C_PARALLEL;
	case OTF2_REGION_ROLE_BARRIER:
	case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
		return C_BARRIER;
	case OTF2_REGION_ROLE_TASK:
	case OTF2_REGION_ROLE_TASK_UNTIED:
		return C_TASK;
	case OTF2_REGION_ROLE_TASK_WAIT:
		return C_TASKWAIT;
	case OTF2_REGION_ROLE_CRITICAL:
		return C_CRITICAL;
	default:
		return r->paradigm == OTF2_PARADIGM_PTHREAD ? C_PTHREAD : C_NONE;
	}
}

struct vt_prof_threads *vt_prof_threads_new(const struct vtr_trace *t)
{
	struct vt_prof_threads *m = vtr_xcalloc(1, sizeof(*m));
	struct priv *p = vtr_xcalloc(1, sizeof(*p));
	m->t = t;
	m->priv = p;
	m->nlocations = t->nlocations;
	m->locs = vtr_xcalloc(t->nlocations + 1, sizeof(*m->locs));
	p->states = vtr_xcalloc(t->nlocations + 1, sizeof(*p->states));
	p->cat = vtr_xcalloc(t->nregions + 1, 1);
	p->construct = vtr_xcalloc(t->nregions + 1, sizeof(uint32_t));
	m->constructs = vtr_xcalloc(t->nregions + 1, sizeof(uint32_t));
	m->construct_kind = vtr_xcalloc(t->nregions + 1, sizeof(*m->construct_kind));
	for (size_t r = 0; r < t->nregions; r++) {
		enum cat c = cat_of(&t->regions[r]);
		p->cat[r] = (uint8_t)c;
		p->construct[r] = VTR_NONE;
		if (c == C_PARALLEL || c == C_BARRIER) {
			p->construct[r] = (uint32_t)m->nconstructs;
			m->construct_kind[m->nconstructs] =
			    c == C_PARALLEL ? VT_PROF_PARALLEL : VT_PROF_BARRIER;
			m->constructs[m->nconstructs++] = (uint32_t)r;
		}
	}
	m->cells = vtr_xcalloc(m->nconstructs * t->nlocations + 1, sizeof(*m->cells));
	return m;
}

void vt_prof_threads_enter(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t time,
			   uint32_t region)
{
	struct priv *p = m->priv;
	struct lstate *s = &p->states[l->index];
	(void)time;
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->f = vtr_xrealloc(s->f, s->cap, sizeof(*s->f));
	}
	enum cat c = region < m->t->nregions ? (enum cat)p->cat[region] : C_NONE;
	s->f[s->depth++] = (struct frame){.region = region, .cat = c};
	s->open[c]++;
	if (c == C_PARALLEL)
		s->parallel = s->depth;
	if (c != C_NONE)
		m->locs[l->index].any = m->any = true;
}

void vt_prof_threads_leave(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t time,
			   uint32_t region, uint64_t enter)
{
	struct priv *p = m->priv;
	struct lstate *s = &p->states[l->index];
	if (!s->depth)
		return;
	struct frame f = s->f[--s->depth];
	region = f.region;
	enum cat c = f.cat;
	uint64_t dur = time > enter ? time - enter : 0;
	struct vt_prof_thr_loc *loc = &m->locs[l->index];
	bool outermost = --s->open[c] == 0;
	if (c == C_PARALLEL) {
		/* the next parallel region further out, if any */
		size_t i = s->depth;
		while (i > 0 && s->f[i - 1].cat != C_PARALLEL)
			i--;
		s->parallel = i;
	}
	uint32_t k = region < m->t->nregions ? p->construct[region] : VTR_NONE;
	if (k != VTR_NONE) {
		struct vt_prof_thr_cell *cell = &m->cells[k * m->nlocations + l->index];
		cell->calls++;
		cell->time += dur;
		cell->wait += f.wait;
	}
	if (c == C_BARRIER && outermost && s->parallel)
		s->f[s->parallel - 1].wait += dur;
	if (!outermost)
		return;
	switch (c) {
	case C_PARALLEL:
		loc->parallel += dur;
		break;
	case C_BARRIER:
		loc->barrier += dur;
		break;
	case C_TASK:
		loc->task += dur;
		break;
	case C_TASKWAIT:
		loc->taskwait += dur;
		break;
	case C_CRITICAL:
		loc->critical += dur;
		break;
	case C_PTHREAD:
		loc->pthread += dur;
		break;
	default:
		break;
	}
}

static void release(struct vt_prof_thr_loc *loc, struct lstate *s, size_t i, uint64_t time)
{
	loc->lock_held += time > s->locks[i].since ? time - s->locks[i].since : 0;
	s->locks[i] = s->locks[--s->nlocks];
}

void vt_prof_threads_event(struct vt_prof_threads *m, const struct vtr_location *l,
			   const struct vtr_thread_event *e)
{
	struct priv *p = m->priv;
	struct lstate *s = &p->states[l->index];
	struct vt_prof_thr_loc *loc = &m->locs[l->index];
	/* vt writes ThreadBegin and ThreadEnd on every thread but the first: alone they are not
	 * worth a table */
	if (e->kind != VTR_EV_ThreadBegin && e->kind != VTR_EV_ThreadEnd)
		loc->any = m->any = true;
	switch (e->kind) {
	case VTR_EV_ThreadFork:
		loc->forks++;
		break;
	case VTR_EV_ThreadTeamBegin:
		loc->teams++;
		break;
	case VTR_EV_ThreadTaskCreate:
		loc->tasks_created++;
		break;
	case VTR_EV_ThreadTaskSwitch:
		loc->task_switches++;
		break;
	case VTR_EV_ThreadTaskComplete:
		loc->tasks_completed++;
		break;
	case VTR_EV_ThreadCreate:
		loc->threads_created++;
		break;
	case VTR_EV_ThreadWait:
		loc->threads_waited++;
		break;
	case VTR_EV_ThreadAcquireLock:
		loc->locks++;
		if (s->nlocks == s->caplocks) {
			s->caplocks = s->caplocks ? 2 * s->caplocks : 4;
			s->locks = vtr_xrealloc(s->locks, s->caplocks, sizeof(*s->locks));
		}
		s->locks[s->nlocks++] = (struct held){e->paradigm, e->lock, e->time};
		break;
	case VTR_EV_ThreadReleaseLock:
		/* the latest acquisition of that lock (a recursive lock: the inner one) */
		for (size_t i = s->nlocks; i-- > 0;)
			if (s->locks[i].paradigm == e->paradigm && s->locks[i].lock == e->lock) {
				release(loc, s, i, e->time);
				break;
			}
		break;
	default:
		break;
	}
}

void vt_prof_threads_end(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t last)
{
	struct priv *p = m->priv;
	struct lstate *s = &p->states[l->index];
	while (s->nlocks)
		release(&m->locs[l->index], s, s->nlocks - 1, last);
}

static void on_enter(void *user, const struct vtr_location *l, uint64_t time, uint32_t region)
{
	vt_prof_threads_enter(user, l, time, region);
}

static void on_leave(void *user, const struct vtr_location *l, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	vt_prof_threads_leave(user, l, time, region, enter);
}

static void on_thread(void *user, const struct vtr_location *l, const struct vtr_thread_event *e)
{
	vt_prof_threads_event(user, l, e);
}

static void on_end(void *user, const struct vtr_location *l, uint64_t last)
{
	vt_prof_threads_end(user, l, last);
}

struct vt_prof_threads *vt_prof_threads_read(struct vtr_trace *t, char *err, size_t errlen)
{
	struct vt_prof_threads *m = vt_prof_threads_new(t);
	const struct vtr_callbacks cb = {
	    .enter = on_enter, .leave = on_leave, .thread = on_thread, .location_end = on_end};
	if (vtr_read_locations(t, &cb, m) == 0)
		return m;
	snprintf(err, errlen, "%s", t->err);
	vt_prof_threads_free(m);
	return NULL;
}

void vt_prof_threads_values(const struct vt_prof_threads *m, size_t c, bool wait, uint64_t *vals,
			    uint64_t *calls)
{
	for (size_t i = 0; i < m->nlocations; i++) {
		const struct vt_prof_thr_cell *x = &m->cells[c * m->nlocations + i];
		calls[i] = x->calls;
		if (m->construct_kind[c] == VT_PROF_BARRIER)
			vals[i] = x->time;
		else
			vals[i] = wait ? x->wait : x->time > x->wait ? x->time - x->wait : 0;
	}
}

struct vt_prof_spread vt_prof_spread_of(const uint64_t *vals, const uint64_t *calls, size_t n)
{
	struct vt_prof_spread s = {0};
	for (size_t i = 0; i < n; i++) {
		if (calls && !calls[i])
			continue;
		if (!s.locations || vals[i] < s.min) {
			s.min = vals[i];
			s.min_loc = i;
		}
		if (!s.locations || vals[i] > s.max) {
			s.max = vals[i];
			s.max_loc = i;
		}
		s.sum += vals[i];
		s.locations++;
	}
	if (s.locations) {
		s.mean = (double)s.sum / (double)s.locations;
		s.ratio = s.mean > 0 ? (double)s.max / s.mean : 1.0;
		s.excess = (double)s.max - s.mean;
	}
	return s;
}

void vt_prof_threads_free(struct vt_prof_threads *m)
{
	if (!m)
		return;
	struct priv *p = m->priv;
	for (size_t i = 0; i < m->nlocations; i++) {
		free(p->states[i].f);
		free(p->states[i].locks);
	}
	free(p->states);
	free(p->cat);
	free(p->construct);
	free(p);
	free(m->locs);
	free(m->constructs);
	free(m->construct_kind);
	free(m->cells);
	free(m);
}
