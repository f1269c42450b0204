/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A library that exports PAPI software-defined events (sde_lib.h) of every kind, library
 * "Sdelib":
 *   iterations  a registered counter (long long, delta): the library's own variable
 *   residual    a registered counter (double, instant)
 *   allocs      a created counter, incremented by papi_sde_inc_counter
 *   work_total  a group: the sum of iterations and allocs
 *   pending     a callback counter: the library's function answers
 *   sizes       a recorder of long long values (and its sizes:CNT)
 * They are registered when the library is loaded (before the program's first event, so PAPI
 * never sees them as placeholders), and sdelib_step(i) moves each by a known amount.
 */
#include <sde_lib.h>

static long long iterations;
static double residual = 1.0;
static void *allocs, *sizes;
static long long pending_items;

static long long pending(void *param)
{
	return *(long long *)param;
}

static papi_handle_t define(papi_sde_fptr_struct_t *f)
{
	papi_handle_t h = f->init("Sdelib");
	f->register_counter(h, "iterations", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
			    &iterations);
	f->describe_counter(h, "iterations", "steps taken");
	f->register_counter(h, "residual", PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_double,
			    &residual);
	f->create_counter(h, "allocs", PAPI_SDE_DELTA, &allocs);
	f->add_counter_to_group(h, "iterations", "work_total", PAPI_SDE_SUM);
	f->add_counter_to_group(h, "allocs", "work_total", PAPI_SDE_SUM);
	f->register_counter_cb(h, "pending", PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long,
			       pending, &pending_items);
	f->create_recorder(h, "sizes", sizeof(long long), papi_sde_compare_long_long, &sizes);
	return h;
}

/* What papi_native_avail and vt-info --metrics call to list the events without running. */
papi_handle_t papi_sde_hook_list_events(papi_sde_fptr_struct_t *f)
{
	return define(f);
}

__attribute__((constructor)) static void sdelib_init(void)
{
	papi_sde_fptr_struct_t f;
	POPULATE_SDE_FPTR_STRUCT(f);
	define(&f);
}

void sdelib_step(int i)
{
	iterations += 1;
	residual = 1.0 / (i + 2);
	papi_sde_inc_counter(allocs, 2);
	pending_items = 10 * i;
	long long size = 100 + i;
	papi_sde_record(sizes, sizeof(size), &size);
}
