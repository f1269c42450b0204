/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugin-read: the plugin's own work of the benchmark's synchronous variants, without vt:
 * loads a synchronous VampirTrace-interface plugin, adds one counter on this thread and
 * times N calls of get_current_value through the function pointer, as vt calls it.
 *
 *   plugin-read LIB.so COUNTER [N]      prints "read_ns=X" (ns per call, N default 10^7)
 */
#include <vampirtrace/vt_plugin_cntr.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s LIB.so COUNTER [N]\n", argv[0]);
		return 2;
	}
	long n = argc > 3 ? atol(argv[3]) : 10000000L;
	void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	vt_plugin_cntr_info (*get)(void) =
	    dl ? (vt_plugin_cntr_info(*)(void))dlsym(dl, "get_info") : NULL;
	if (!get) {
		fprintf(stderr, "plugin-read: %s: %s\n", argv[1], dl ? "no get_info" : dlerror());
		return 1;
	}
	vt_plugin_cntr_info info = get();
	if (info.synch != VT_PLUGIN_CNTR_SYNCH || info.init() != 0) {
		fprintf(stderr, "plugin-read: %s is not a working synchronous plugin\n", argv[1]);
		return 1;
	}
	int32_t id = info.add_counter(argv[2]);
	if (id < 0) {
		fprintf(stderr, "plugin-read: add_counter(%s) = %d\n", argv[2], id);
		return 1;
	}
	/* Through a volatile pointer: the call stays indirect, as in vt. */
	uint64_t (*volatile read)(int32_t) = info.get_current_value;
	volatile uint64_t sink = 0;
	read(id);
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		sink += read(id);
	double t1 = now_ns();
	printf("read_ns=%.3f\n", (t1 - t0) / (double)n);
	if (info.finalize)
		info.finalize();
	return sink == 0;
}
