/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI adapter's maps (runtime/mpi/vt_mpi_maps.c): 100k requests in flight completed in
 * a random order, handles that repeat (completed oldest first), persistent requests among
 * them, and the handle map under random sets and deletes against a plain array.
 */
#include "unit.h"
#include "vt_mpi_maps.h"

#include <stdlib.h>

#define N 100000

/* A fixed-seed generator: the same run every time. */
static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void requests_out_of_order(void)
{
	struct vt_reqmap m = {0};
	static uint64_t handle[N];
	static size_t order[N];
	int bad = 0;
	/* Handles as Open MPI's pointers would be: 16-byte aligned, distinct. */
	for (size_t i = 0; i < N; i++) {
		handle[i] = 0x7f0000000000ull + 16 * (uint64_t)i;
		struct vt_req *r = vt_reqmap_add(&m, handle[i], false);
		if (!r) {
			bad++;
			continue;
		}
		r->id = i + 1;
		r->tag = (int)(i % 1000);
		order[i] = i;
	}
	CHECK(!bad && m.n == N);
	for (size_t i = N - 1; i > 0; i--) {
		size_t j = (size_t)(next() % (i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	size_t found = 0;
	for (size_t k = 0; k < N; k++) {
		size_t i = order[k];
		struct vt_req *r = vt_reqmap_oldest(&m, handle[i]);
		if (r && r->id == i + 1 && r->tag == (int)(i % 1000) && r->handle == handle[i]) {
			found++;
			vt_reqmap_remove(&m, r);
		}
		/* Half way: what is left is still there, what went is gone. */
		if (k == N / 2) {
			CHECK(m.n == N - N / 2 - 1);
			CHECK(vt_reqmap_oldest(&m, handle[order[0]]) == NULL);
			CHECK(vt_reqmap_oldest(&m, handle[order[N - 1]]) != NULL);
		}
	}
	CHECK(found == N);
	CHECK(m.n == 0 && m.youngest.n == 0);
	CHECK(vt_reqmap_oldest(&m, handle[0]) == NULL);
	vt_reqmap_free(&m);
}

static void repeated_handles(void)
{
	struct vt_reqmap m = {0};
	/* MPI hands one handle to requests that completed at once: 1000 requests of handle 7,
	 * one persistent request of handle 9 between them, and one of handle 8. */
	for (uint64_t i = 1; i <= 1000; i++) {
		struct vt_req *r = vt_reqmap_add(&m, 7, false);
		r->id = i;
		if (i == 500) {
			struct vt_req *p = vt_reqmap_add(&m, 9, true);
			p->id = 5000;
			CHECK(p->persistent);
			struct vt_req *q = vt_reqmap_add(&m, 8, false);
			q->id = 6000;
		}
	}
	CHECK(m.n == 1002);
	/* Persistent requests have a map of their own: one, found without walking a ring. */
	CHECK(m.persistent.n == 1);
	CHECK(vt_reqmap_persistent(&m, 7) == NULL);
	struct vt_req *p = vt_reqmap_persistent(&m, 9);
	CHECK(p && p->id == 5000);
	/* Completed oldest first, every time. */
	int in_order = 1;
	for (uint64_t i = 1; i <= 1000; i++) {
		struct vt_req *r = vt_reqmap_oldest(&m, 7);
		if (!r || r->id != i)
			in_order = 0;
		if (r)
			vt_reqmap_remove(&m, r);
		/* New ones of the same handle go behind the older ones. */
		if (i == 10) {
			struct vt_req *late = vt_reqmap_add(&m, 7, false);
			late->id = 1001;
		}
	}
	CHECK(in_order);
	struct vt_req *late = vt_reqmap_oldest(&m, 7);
	CHECK(late && late->id == 1001);
	vt_reqmap_remove(&m, late);
	/* A persistent request restarts under its handle: found again, not removed. */
	p->active = true;
	CHECK(vt_reqmap_persistent(&m, 9) == p && p->active);
	/* Removing the youngest of a ring of two keeps the other. */
	struct vt_req *a = vt_reqmap_add(&m, 11, false), *b = vt_reqmap_add(&m, 11, false);
	a->id = 1;
	b->id = 2;
	vt_reqmap_remove(&m, b);
	CHECK(vt_reqmap_oldest(&m, 11) == a);
	vt_reqmap_remove(&m, a);
	/* A persistent request behind a non-persistent one of its handle (MPI reused the
	 * handle of a request vt did not see complete): found still, the ring's order kept. */
	struct vt_req *old = vt_reqmap_add(&m, 12, false), *pers = vt_reqmap_add(&m, 12, true);
	CHECK(vt_reqmap_persistent(&m, 12) == pers && vt_reqmap_oldest(&m, 12) == old);
	vt_reqmap_remove(&m, pers);
	CHECK(vt_reqmap_persistent(&m, 12) == NULL && vt_reqmap_oldest(&m, 12) == old);
	vt_reqmap_remove(&m, old);
	vt_reqmap_remove(&m, p);
	CHECK(m.persistent.n == 0 && vt_reqmap_persistent(&m, 9) == NULL);
	vt_reqmap_remove(&m, vt_reqmap_oldest(&m, 8));
	CHECK(m.n == 0 && m.youngest.n == 0);
	vt_reqmap_free(&m);
}

static void completions(void)
{
	struct vt_reqmap m = {0};
	/* 100 requests of one handle, an active persistent request, an inactive one. */
	for (uint64_t i = 1; i <= 100; i++)
		vt_reqmap_add(&m, 7, false)->id = i;
	struct vt_req *p = vt_reqmap_add(&m, 9, true);
	p->id = 500;
	p->active = true;
	vt_reqmap_add(&m, 10, true)->id = 600;
	struct vt_req out;
	int in_order = 1;
	for (uint64_t i = 1; i <= 100; i++) {
		if (!vt_reqmap_complete(&m, 7, &out) || out.id != i)
			in_order = 0;
		/* one of the same handle made meanwhile completes after the older ones */
		if (i == 50)
			vt_reqmap_add(&m, 7, false)->id = 101;
	}
	CHECK(in_order);
	CHECK(vt_reqmap_complete(&m, 7, &out) && out.id == 101);
	CHECK(!vt_reqmap_complete(&m, 7, &out));
	CHECK(!vt_reqmap_complete(&m, 8, &out));
	/* The persistent request completes once per start and stays. */
	CHECK(vt_reqmap_complete(&m, 9, &out) && out.id == 500 && out.active && out.persistent);
	CHECK(!p->active && vt_reqmap_persistent(&m, 9) == p);
	CHECK(vt_reqmap_complete(&m, 9, &out) && out.id == 500 && !out.active);
	CHECK(vt_reqmap_complete(&m, 10, &out) && out.id == 600 && !out.active);
	CHECK(m.n == 2 && m.youngest.n == 2 && m.persistent.n == 2);
	vt_reqmap_remove(&m, p);
	vt_reqmap_remove(&m, vt_reqmap_persistent(&m, 10));
	CHECK(m.n == 0 && m.youngest.n == 0 && m.persistent.n == 0);
	vt_reqmap_free(&m);
}

static void handle_map(void)
{
	/* Small keys (MPICH's ints) collide in few slots: sets and deletes at random, checked
	 * against a plain array after every step. */
	enum { KEYS = 2000, STEPS = 200000 };
	static uintptr_t want[KEYS];
	struct vt_u64map m = {0};
	int wrong = 0;
	size_t live = 0;
	for (int s = 0; s < STEPS; s++) {
		uint64_t k = next() % KEYS;
		if (next() % 3) {
			uintptr_t v = (uintptr_t)(next() | 1);
			if (vt_u64map_set(&m, 0x44000000u + k, (void *)v) < 0)
				wrong++;
			live += !want[k];
			want[k] = v;
		} else {
			uintptr_t v = (uintptr_t)vt_u64map_del(&m, 0x44000000u + k);
			if (v != want[k])
				wrong++;
			live -= !!want[k];
			want[k] = 0;
		}
		if (s % 1000 == 0)
			for (uint64_t j = 0; j < KEYS; j++)
				if ((uintptr_t)vt_u64map_get(&m, 0x44000000u + j) != want[j])
					wrong++;
	}
	CHECK(wrong == 0);
	CHECK(m.n == live);
	vt_u64map_free(&m);
}

int main(void)
{
	requests_out_of_order();
	repeated_handles();
	completions();
	handle_map();
	return unit_done();
}
