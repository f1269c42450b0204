/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report's reading: one pass in time order, memory bounded by levels of detail. */
/*
 * vt-report's reading: one pass in time order over the trace layer. Slices (region
 * activations), messages and collective marks go to temporary files as they are closed or
 * matched, so memory stays bounded by the definitions, the stacks and the fixed-size levels
 * of detail: when the trace has more events than the budget, slices shorter than a bin of
 * the full view are summed into bins per location and depth (the region with the most time
 * there, how many, how busy), and only the longer ones are kept one by one. Counters are
 * binned the same way (last value, minimum and maximum per bin). The thread model (OpenMP
 * teams, locks, forks, tasks, pthreads) goes to a temporary file of its own, as items
 * [type, location, t0, t1, arg] (VT_REPORT_TH_*), and into libvtprof's thread model; the I/O
 * events into its I/O model.
 */
#include "vt_report.h"

#include <stdlib.h>
#include <string.h>

#include <inttypes.h>
#include <otf2/otf2.h>

static void on_event(void *user, const struct vtr_location *loc, enum vtr_event kind, uint64_t time)
{
	struct vt_report *r = user;
	(void)loc;
	(void)kind;
	r->events++;
	if (!r->any || time < r->ticks_min)
		r->ticks_min = time;
	if (!r->any || time > r->ticks_max)
		r->ticks_max = time;
	r->any = true;
}

static void on_io(void *user, const struct vtr_location *loc, const struct vtr_io_event *e)
{
	struct vt_report *r = user;
	vt_prof_io_event(r->io, loc, e);
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct vt_report *r = user;
	struct vt_report_stack *s = &r->stacks[loc->index];
	vt_prof_ctree_enter(r->ctree, loc, time, region);
	vt_prof_threads_enter(r->thr, loc, time, region);
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->f = vtr_xrealloc(s->f, s->cap, sizeof(*s->f));
	}
	s->f[s->depth].region = region;
	s->f[s->depth].enter = vtr_ticks_to_ns(r->t, time);
	s->depth++;
	if (s->depth > s->maxdepth)
		s->maxdepth = (uint32_t)s->depth;
}

static struct vt_report_bin *bin_of(struct vt_report *r, size_t loc, size_t depth, uint64_t ns)
{
	if (!r->bins_of[loc]) {
		size_t n = (size_t)VT_REPORT_MAX_DEPTH * r->nbins;
		r->bins_of[loc] = vtr_xcalloc(n, sizeof(struct vt_report_bin));
		for (size_t i = 0; i < n; i++)
			r->bins_of[loc][i].region = VTR_NONE;
	}
	if (depth >= VT_REPORT_MAX_DEPTH)
		depth = VT_REPORT_MAX_DEPTH - 1;
	uint64_t b = ns / r->bin_ns;
	if (b >= r->nbins)
		b = r->nbins - 1;
	return &r->bins_of[loc][depth * r->nbins + b];
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct vt_report *r = user;
	struct vt_report_stack *s = &r->stacks[loc->index];
	vt_prof_ctree_leave(r->ctree, loc, time, region, enter);
	vt_prof_threads_leave(r->thr, loc, time, region, enter);
	if (!s->depth)
		return;
	s->depth--;
	uint64_t begin = s->f[s->depth].enter, end = vtr_ticks_to_ns(r->t, time);
	if (end < begin)
		end = begin;
	region = s->f[s->depth].region;
	if (r->aggregated && end - begin < r->bin_ns) {
		struct vt_report_bin *b = bin_of(r, loc->index, s->depth, begin);
		uint64_t d = end - begin;
		b->count++;
		b->busy += d;
		/* The heaviest region of the bin: one candidate, replaced by a longer one. */
		if (b->region == region)
			b->best += d;
		else if (b->region == VTR_NONE || d > b->best) {
			b->region = region;
			b->best = d;
		}
		return;
	}
	fprintf(r->slices, ",[%zu,%" PRIu32 ",%zu,%" PRIu64 ",%" PRIu64 "]", loc->index, region,
		s->depth, begin, end);
	if (++r->nslices % 8 == 0)
		putc('\n', r->slices);
}

/* Index + 1 of key in an open-addressing table of capacity *cap (a power of two), 0 if absent;
 * with add, makes room (rehashing through keys_of) and returns the slot to fill. Keeps the
 * look-ups of series and rank pairs O(1) whatever their number. */
static uint64_t hash_key(uint64_t key)
{
	key *= 0x9E3779B97F4A7C15ull;
	return key ^ (key >> 29);
}

static uint32_t *slot_for(uint32_t **slots, size_t *cap, size_t used, uint64_t key,
			  uint64_t (*key_of)(const struct vt_report *, uint32_t),
			  const struct vt_report *r)
{
	if (2 * (used + 1) > *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		uint32_t *n = vtr_xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < *cap; i++) {
			if (!(*slots)[i])
				continue;
			size_t j = hash_key(key_of(r, (*slots)[i] - 1)) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = (*slots)[i];
		}
		free(*slots);
		*slots = n;
		*cap = ncap;
	}
	size_t j = hash_key(key) & (*cap - 1);
	while ((*slots)[j] && key_of(r, (*slots)[j] - 1) != key)
		j = (j + 1) & (*cap - 1);
	return &(*slots)[j];
}

static uint64_t series_key(const struct vt_report *r, uint32_t i)
{
	return (uint64_t)r->series[i].loc << 32 | r->series[i].member;
}

static uint64_t pair_key(const struct vt_report *r, uint32_t i)
{
	return (uint64_t)r->pairs[i].from << 32 | r->pairs[i].to;
}

static struct vt_report_series *series_of(struct vt_report *r, uint32_t loc, uint32_t member)
{
	uint32_t *slot = slot_for(&r->series_slots, &r->series_cap_slots, r->nseries,
				  (uint64_t)loc << 32 | member, series_key, r);
	if (*slot)
		return &r->series[*slot - 1];
	*slot = (uint32_t)r->nseries + 1;
	if (r->nseries == r->cap_series) {
		r->cap_series = r->cap_series ? 2 * r->cap_series : 16;
		r->series = vtr_xrealloc(r->series, r->cap_series, sizeof(*r->series));
	}
	struct vt_report_series *s = &r->series[r->nseries++];
	s->loc = loc;
	s->member = member;
	s->bins = vtr_xcalloc(r->series_bins, sizeof(*s->bins));
	return s;
}

static void on_metric(void *user, const struct vtr_location *loc, uint64_t time, uint32_t metric,
		      uint32_t n, const uint8_t *types, const void *values)
{
	struct vt_report *r = user;
	const struct vtr_metric_class *c =
	    metric < r->t->nmetric_classes && r->t->metric_classes[metric].defined
		? &r->t->metric_classes[metric]
		: NULL;
	uint64_t ns = vtr_ticks_to_ns(r->t, time);
	for (uint32_t i = 0; i < n && c && i < c->nmembers; i++) {
		if (c->members[i] == VTR_NONE)
			continue;
		const uint8_t *p = (const uint8_t *)values + 8 * (size_t)i;
		double v;
		if (types[i] == OTF2_TYPE_DOUBLE || types[i] == OTF2_TYPE_FLOAT) {
			memcpy(&v, p, 8);
		} else if (types[i] >= OTF2_TYPE_INT8 && types[i] <= OTF2_TYPE_INT64) {
			int64_t x;
			memcpy(&x, p, 8);
			v = (double)x;
		} else {
			uint64_t x;
			memcpy(&x, p, 8);
			v = (double)x;
		}
		if (v != v || v - v != 0)
			continue; /* NaN, infinite: nothing to plot */
		struct vt_report_series *s = series_of(r, (uint32_t)loc->index, c->members[i]);
		uint64_t b = ns / r->series_bin_ns;
		struct vt_report_point *pt = &s->bins[b < r->series_bins ? b : r->series_bins - 1];
		if (!pt->n || v < pt->min)
			pt->min = v;
		if (!pt->n || v > pt->max)
			pt->max = v;
		pt->n++;
		pt->t = ns;
		pt->last = v;
	}
}

static void on_message(void *user, const struct vtr_message *m)
{
	struct vt_report *r = user;
	uint32_t from = m->sender->rank, to = m->receiver->rank;
	uint32_t *slot = slot_for(&r->pair_slots, &r->pair_cap_slots, r->npairs,
				  (uint64_t)from << 32 | to, pair_key, r);
	size_t i = *slot ? *slot - 1 : r->npairs;
	if (!*slot) {
		*slot = (uint32_t)r->npairs + 1;
		if (r->npairs == r->cap_pairs) {
			r->cap_pairs = r->cap_pairs ? 2 * r->cap_pairs : 16;
			r->pairs = vtr_xrealloc(r->pairs, r->cap_pairs, sizeof(*r->pairs));
		}
		r->pairs[r->npairs++] = (struct vt_report_pair){.from = from, .to = to};
	}
	r->pairs[i].count++;
	r->pairs[i].bytes += m->bytes;
	int bucket = 0;
	for (uint64_t b = m->bytes; b; b >>= 1)
		bucket++;
	r->size_hist[bucket]++;
	if (r->nmessages >= r->opt->max_messages) {
		r->messages_left_out++;
		return;
	}
	fprintf(r->messages, ",[%zu,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 "]\n",
		m->sender->index, m->receiver->index, vtr_ticks_to_ns(r->t, m->send_begin),
		vtr_ticks_to_ns(r->t, m->recv_end), m->bytes, m->tag);
	r->nmessages++;
}

static void on_collective(void *user, const struct vtr_collective *c)
{
	struct vt_report *r = user;
	uint32_t op = c->op < VTR_COLL_OPS ? c->op : VTR_COLL_OPS;
	struct vt_report_coll *k = &r->colls[op];
	k->instances++;
	for (uint32_t i = 0; i < c->n; i++) {
		const struct vtr_coll_member *x = &c->members[i];
		k->time += x->end > x->begin ? x->end - x->begin : 0;
		k->sent += x->sent;
		k->received += x->received;
		if (r->nmarks >= r->opt->max_marks) {
			r->marks_left_out++;
			continue;
		}
		fprintf(r->marks, ",[%zu,%" PRIu32 ",%" PRIu64 ",%" PRIu64 "]\n",
			x->location->index, op, vtr_ticks_to_ns(r->t, x->begin),
			vtr_ticks_to_ns(r->t, x->end));
		r->nmarks++;
	}
}

static void on_sample(void *user, const struct vtr_location *loc, uint64_t time, uint32_t ctx)
{
	struct vt_report *r = user;
	(void)time;
	if (r->loc_samples && r->loc_samples[loc->index] && ctx < r->t->ncallctxs)
		r->loc_samples[loc->index][ctx]++;
}

/* ---- the thread model ---- */

static void push_open(struct vt_report_open *o, uint64_t t, uint64_t key, uint64_t key2)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4;
		o->o = vtr_xrealloc(o->o, o->cap, sizeof(*o->o));
	}
	o->o[o->n].t = t;
	o->o[o->n].key = key;
	o->o[o->n++].key2 = key2;
}

/* The latest entry of o with key (and key2, unless VTR_NONE64), or -1. */
static long find_open(const struct vt_report_open *o, uint64_t key, uint64_t key2)
{
	for (size_t i = o->n; i-- > 0;)
		if (o->o[i].key == key && (key2 == VTR_NONE64 || o->o[i].key2 == key2))
			return (long)i;
	return -1;
}

static void drop_open(struct vt_report_open *o, long i)
{
	memmove(&o->o[i], &o->o[i + 1], (o->n - (size_t)i - 1) * sizeof(*o->o));
	o->n--;
}

static void th_item(struct vt_report *r, int type, size_t loc, uint64_t t0, uint64_t t1,
		    uint64_t arg)
{
	if (r->nthreads >= r->opt->max_marks) {
		r->threads_left_out++;
		return;
	}
	fprintf(r->threads, ",[%d,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]\n", type, loc, t0,
		t1 < t0 ? t0 : t1, arg);
	r->nthreads++;
}

static void on_thread(void *user, const struct vtr_location *loc, const struct vtr_thread_event *e)
{
	struct vt_report *r = user;
	vt_prof_threads_event(r->thr, loc, e);
	uint64_t ns = vtr_ticks_to_ns(r->t, e->time);
	struct vt_report_open *teams = &r->teams[loc->index], *locks = &r->locks[loc->index];
	uint64_t lockkey = (uint64_t)e->paradigm << 32 | e->lock;
	long i;
	switch (e->kind) {
	case VTR_EV_ThreadFork:
		push_open(&r->forks_open, ns, loc->index, loc->group);
		th_item(r, VT_REPORT_TH_FORK, loc->index, ns, ns, e->threads);
		break;
	case VTR_EV_ThreadJoin:
		if ((i = find_open(&r->forks_open, loc->index, VTR_NONE64)) >= 0)
			drop_open(&r->forks_open, i);
		th_item(r, VT_REPORT_TH_JOIN, loc->index, ns, ns, 0);
		break;
	case VTR_EV_ThreadTeamBegin:
		push_open(teams, ns, e->comm, 0);
		/* the fork that made this team: the process's latest open one, on another thread */
		for (size_t k = r->forks_open.n; k-- > 0;)
			if (r->forks_open.o[k].key2 == loc->group) {
				if (r->forks_open.o[k].key != loc->index)
					th_item(r, VT_REPORT_TH_FORK_FLOW, r->forks_open.o[k].key,
						r->forks_open.o[k].t, ns, loc->index);
				break;
			}
		break;
	case VTR_EV_ThreadTeamEnd:
		if (teams->n) {
			teams->n--;
			th_item(r, VT_REPORT_TH_TEAM, loc->index, teams->o[teams->n].t, ns,
				teams->o[teams->n].key);
		}
		break;
	case VTR_EV_ThreadAcquireLock:
		push_open(locks, ns, lockkey, 0);
		if ((i = find_open(&r->releases, lockkey, VTR_NONE64)) >= 0) {
			if (r->releases.o[i].key2 != loc->index)
				th_item(r, VT_REPORT_TH_LOCK_FLOW, r->releases.o[i].key2,
					r->releases.o[i].t, ns, loc->index);
			drop_open(&r->releases, i);
		}
		break;
	case VTR_EV_ThreadReleaseLock:
		if ((i = find_open(locks, lockkey, VTR_NONE64)) >= 0) {
			th_item(r, VT_REPORT_TH_LOCK, loc->index, locks->o[i].t, ns, e->lock);
			drop_open(locks, i);
		}
		if ((i = find_open(&r->releases, lockkey, VTR_NONE64)) >= 0)
			drop_open(&r->releases, i);
		push_open(&r->releases, ns, lockkey, loc->index);
		break;
	case VTR_EV_ThreadTaskCreate:
		th_item(r, VT_REPORT_TH_TASK_CREATE, loc->index, ns, ns, e->generation);
		break;
	case VTR_EV_ThreadTaskComplete:
		th_item(r, VT_REPORT_TH_TASK_COMPLETE, loc->index, ns, ns, e->generation);
		break;
	case VTR_EV_ThreadCreate:
		th_item(r, VT_REPORT_TH_CREATE, loc->index, ns, ns, e->sequence);
		break;
	case VTR_EV_ThreadWait:
		th_item(r, VT_REPORT_TH_WAIT, loc->index, ns, ns, e->sequence);
		break;
	default:
		break;
	}
}

/* What is still open at a location's end ends there. */
static void on_location_end(void *user, const struct vtr_location *loc, uint64_t last)
{
	struct vt_report *r = user;
	uint64_t ns = vtr_ticks_to_ns(r->t, last);
	vt_prof_threads_end(r->thr, loc, last);
	struct vt_report_open *teams = &r->teams[loc->index], *locks = &r->locks[loc->index];
	while (teams->n) {
		teams->n--;
		th_item(r, VT_REPORT_TH_TEAM, loc->index, teams->o[teams->n].t, ns,
			teams->o[teams->n].key);
	}
	while (locks->n) {
		locks->n--;
		th_item(r, VT_REPORT_TH_LOCK, loc->index, locks->o[locks->n].t, ns,
			locks->o[locks->n].key & 0xffffffffu);
	}
}

static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct vt_report *r = user;
	(void)loc;
	(void)kind;
	(void)has_time;
	(void)time;
	(void)region;
	(void)message;
	r->problems++;
}

int vt_report_collect(struct vt_report *r, char *err, size_t errlen)
{
	struct vtr_trace *t = r->t;
	uint64_t defined_events = 0;
	for (size_t i = 0; i < t->nlocations; i++)
		defined_events += t->locations[i].events;
	/* The definitions say how many events there are; a trace that does not say is read as
	 * a long one, so that the page stays bounded whatever it holds. */
	r->aggregated = defined_events == 0 || defined_events > 2 * r->opt->budget;
	uint64_t span = vtr_ticks_to_ns(t, t->offset + t->length) + 1;
	if (!t->have_clock || t->length == 0)
		span = UINT64_MAX / 4;
	size_t nloc = t->nlocations ? t->nlocations : 1;
	uint64_t nb = r->opt->budget / (nloc * 8);
	r->nbins = (uint32_t)(nb < 16 ? 16 : nb > 4000 ? 4000 : nb);
	r->bin_ns = span / r->nbins + 1;
	uint64_t nseries = nloc * (t->nmetrics ? t->nmetrics : 1);
	uint64_t sb = r->opt->budget / nseries;
	r->series_bins = (uint32_t)(sb < 16 ? 16 : sb > 2000 ? 2000 : sb);
	r->series_bin_ns = span / r->series_bins + 1;
	r->bins_of = vtr_xcalloc(nloc, sizeof(*r->bins_of));
	r->stacks = vtr_xcalloc(nloc, sizeof(*r->stacks));
	r->ctree = vt_prof_ctree_new(nloc);
	r->slices = tmpfile();
	r->messages = tmpfile();
	r->marks = tmpfile();
	r->threads = tmpfile();
	r->thr = vt_prof_threads_new(t);
	r->io = vt_prof_io_new(t, VT_REPORT_IO_SLOWEST);
	r->teams = vtr_xcalloc(nloc, sizeof(*r->teams));
	r->locks = vtr_xcalloc(nloc, sizeof(*r->locks));
	/* Per-location samples only where they stay small: a few locations, bounded contexts. */
	size_t sampled = 0;
	for (size_t i = 0; i < r->prof->nlocations; i++)
		sampled += r->prof->locations[i].samples > 0;
	if (sampled > 1 && sampled <= VT_REPORT_FLAME_LOCATIONS &&
	    t->ncallctxs <= VT_REPORT_FLAME_CONTEXTS) {
		r->loc_samples = vtr_xcalloc(nloc, sizeof(*r->loc_samples));
		for (size_t i = 0; i < r->prof->nlocations && i < nloc; i++)
			if (r->prof->locations[i].samples)
				r->loc_samples[i] = vtr_xcalloc(t->ncallctxs, sizeof(uint64_t));
	}
	if (!r->slices || !r->messages || !r->marks || !r->threads) {
		snprintf(err, errlen, "cannot make temporary files");
		return -1;
	}
	const struct vtr_callbacks cb = {
	    .event = on_event,
	    .enter = on_enter,
	    .leave = on_leave,
	    .metric = on_metric,
	    .message = on_message,
	    .collective = on_collective,
	    .sample = on_sample,
	    .thread = on_thread,
	    .io = on_io,
	    .location_end = on_location_end,
	    .problem = on_problem,
	};
	if (vtr_read_merged(t, &cb, r) < 0) {
		snprintf(err, errlen, "%s", t->err);
		return -1;
	}
	vt_prof_io_end(r->io);
	/* The conversion never decreases: the extremes of the ticks are those of the ns. */
	if (r->any) {
		r->tmin = vtr_ticks_to_ns(t, r->ticks_min);
		r->tmax = vtr_ticks_to_ns(t, r->ticks_max);
	}
	return 0;
}

void vt_report_free(struct vt_report *r)
{
	size_t nloc = r->t ? r->t->nlocations : 0;
	for (size_t i = 0; r->stacks && i < nloc; i++)
		free(r->stacks[i].f);
	for (size_t i = 0; r->bins_of && i < nloc; i++)
		free(r->bins_of[i]);
	for (size_t i = 0; r->loc_samples && i < nloc; i++)
		free(r->loc_samples[i]);
	free(r->loc_samples);
	free(r->waits);
	free(r->critpath);
	for (size_t i = 0; r->teams && i < nloc; i++)
		free(r->teams[i].o);
	for (size_t i = 0; r->locks && i < nloc; i++)
		free(r->locks[i].o);
	free(r->teams);
	free(r->locks);
	free(r->releases.o);
	free(r->forks_open.o);
	vt_prof_threads_free(r->thr);
	vt_prof_io_free(r->io);
	free(r->stacks);
	free(r->bins_of);
	vt_prof_ctree_free(r->ctree);
	for (size_t i = 0; i < r->nseries; i++)
		free(r->series[i].bins);
	free(r->series);
	free(r->pairs);
	free(r->pair_slots);
	free(r->series_slots);
	if (r->slices)
		fclose(r->slices);
	if (r->messages)
		fclose(r->messages);
	if (r->marks)
		fclose(r->marks);
	if (r->threads)
		fclose(r->threads);
}
