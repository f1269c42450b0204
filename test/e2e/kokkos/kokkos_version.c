/* SPDX-License-Identifier: BSD-3-Clause */
/* Calls libvt's Kokkos hooks as a Kokkos of the interface version argv[1] would. */
/* argv[2]: profile regions pushed inside each other, then popped; a second thread launches
 * its own kernel in its own region meanwhile. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct kk_device_info {
	size_t device_id;
};

void kokkosp_init_library(const int load_seq, const uint64_t version, const uint32_t n_devices,
			  struct kk_device_info *devices);
void kokkosp_finalize_library(void);
void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *id);
void kokkosp_end_parallel_for(const uint64_t id);
void kokkosp_push_profile_region(const char *name);
void kokkosp_pop_profile_region(void);

static void *worker(void *arg)
{
	(void)arg;
	uint64_t id = 0;
	kokkosp_push_profile_region("worker region");
	kokkosp_begin_parallel_for("worker kernel", 0, &id);
	kokkosp_end_parallel_for(id);
	kokkosp_pop_profile_region();
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t version = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	int depth = argc > 2 ? atoi(argv[2]) : 0;
	kokkosp_init_library(0, version, 0, NULL);
	for (int i = 0; i < depth; i++)
		kokkosp_push_profile_region("nested");
	for (int i = 0; i < depth; i++)
		kokkosp_pop_profile_region();
	uint64_t id = 12345;
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	kokkosp_push_profile_region("outer");
	kokkosp_begin_parallel_for("kernel", 0, &id);
	kokkosp_end_parallel_for(id);
	kokkosp_pop_profile_region();
	kokkosp_finalize_library();
	printf("id %s\n", id ? "given" : "none");
	return 0;
}
