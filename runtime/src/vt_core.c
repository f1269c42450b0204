/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's lifecycle: configuration, timer, archive at load time; the trace at exit. */
#include "vt_core.h"
#include "vt_clock.h"
#include "vt_config.h"
#include "vt_filter.h"
#include "vt_log.h"
#include "vt_mpi_iface.h"
#include "vt_otf2.h"
#include "vt_plugin.h"
#include "vt_region.h"
#include "vt_symbols.h"
#include "vt_thread.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

int vt_state = VT_STATE_NEW;
int vt_mpi_mode;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

/* A forked child must not write into its parent's archive; it runs untraced. */
static void fork_child(void)
{
	vt_state = VT_STATE_OFF;
	vt_tls.pos = vt_tls.end = NULL;
	vt_tls.state = VT_TLS_OFF;
	vt_info("forked child: not traced");
}

static int start(void)
{
	if (vt_config_load() < 0)
		return -1;
	if (!vt_cfg.on) {
		vt_info("VT_ON=no: not tracing");
		return -1;
	}
	if (vt_cfg.filter_spec && vt_filter_load(vt_cfg.filter_spec) < 0)
		return -1;
	vt_clock_init(vt_cfg.timer);
	vt_thread_init();
	/* With the MPI adapter loaded, rank 0 names the archive once MPI_Init has run. */
	vt_mpi_mode = dlsym(RTLD_DEFAULT, VT_MPI_ADAPTER_SYMBOL) != NULL;
	if (!vt_mpi_mode && vt_otf2_open() < 0)
		return -1;
	/* Plugins load before the first location, which adds their counters. */
	vt_plugin_init();
	vt_info("tracing with timer %s (%s), %lu-byte buffers", vt_clock_name(), vt_clock_reason(),
		(unsigned long)vt_cfg.buffer_size);
	return 0;
}

void vt_init(void)
{
	pthread_mutex_lock(&state_lock);
	if (vt_state == VT_STATE_NEW) {
		vt_state = VT_STATE_INITIALISING;
		int rc = start();
		if (rc == 0) {
			atexit(vt_finalize);
			pthread_atfork(NULL, NULL, fork_child);
		}
		__atomic_store_n(&vt_state, rc == 0 ? VT_STATE_ON : VT_STATE_OFF,
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&state_lock);
}

void vt_finalize(void)
{
	pthread_mutex_lock(&state_lock);
	if (vt_state != VT_STATE_ON) {
		pthread_mutex_unlock(&state_lock);
		return;
	}
	vt_state = VT_STATE_FINALIZING;
	pthread_mutex_unlock(&state_lock);

	const struct vt_mpi_ops *mpi = vt_mpi_ops();
	if (vt_mpi_attached() && !mpi) {
		/* MPI_Init ran but MPI_Finalize did not (a rank returned from main, or exit):
		 * the archive can only be closed together with the other ranks. */
		vt_warn("MPI_Finalize was not called: the events of this process are not "
			"written");
		vt_state = VT_STATE_DONE;
		return;
	}
	/* An MPI program that never called MPI_Init writes a trace of its own. */
	if (!vt_otf2_ready() && vt_otf2_open() < 0) {
		vt_state = VT_STATE_DONE;
		return;
	}

	uint64_t end = vt_clock_now();
	vt_clock_finish();
	vt_plugin_stop_sync();
	struct vt_loc *locs = vt_thread_finalize(end);
	vt_plugin_finalize(end);
	vt_region_resolve_all();
	if (mpi)
		vt_otf2_close_mpi(locs, end, mpi);
	else
		vt_otf2_close(locs, end);
	vt_sym_finish();
	vt_filter_free();
	vt_state = VT_STATE_DONE;
}

void vt_core_switch_off(void)
{
	vt_state = VT_STATE_OFF;
	vt_thread_switch_off();
}

/* At load, on the main thread: the main thread becomes location 0 and bad input is
 * reported before the program prints anything. */
__attribute__((constructor)) static void vt_load(void)
{
	vt_thread_begin(&vt_tls);
}
