/* SPDX-License-Identifier: BSD-3-Clause */
/* A library with one PAPI software-defined event, Benchsde::count (a registered long long),
 * registered when it is loaded: what the vt-papi-sde1 variant reads at every event. */
#include <sde_lib.h>

static long long count;

__attribute__((constructor)) static void benchsde_init(void)
{
	papi_handle_t h = papi_sde_init("Benchsde");
	papi_sde_register_counter(h, "count", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
				  &count);
}

/* Moves the counter (papi-read calls it once, so the event has a value). */
__attribute__((visibility("default"))) void benchsde_touch(void);

void benchsde_touch(void)
{
	count++;
}
