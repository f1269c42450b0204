/* SPDX-License-Identifier: BSD-3-Clause */
/* argv[1] threads, one after the other, each calling work() 10 times; then the process's
 * virtual size is compared with the limit the test set (RLIMIT_AS). argv[2], if given
 * (PREFIX/FILE): a file made at the end of main where vt would put a link, in the archive vt
 * is writing: PREFIX/FILE inside vt's private directory $VT_PFORM_GDIR/.PREFIX.vt-XXXXXX. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

__attribute__((noinline)) static void work(int i)
{
	sink += i;
}

static void *run(void *arg)
{
	for (int i = 0; i < 10; i++)
		work(i);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0) {
			printf("thread %d could not be created\n", i);
			return 1;
		}
		pthread_join(t, NULL);
	}
	printf("%d threads\n", n);
	if (argc > 2 && getenv("VT_PFORM_GDIR")) {
		const char *gdir = getenv("VT_PFORM_GDIR");
		char path[4096], want[300];
		snprintf(want, sizeof(want), ".%.*s.vt-", (int)strcspn(argv[2], "/"), argv[2]);
		snprintf(path, sizeof(path), "%s/%s", gdir, argv[2]);
		DIR *d = opendir(gdir);
		for (struct dirent *e; d && (e = readdir(d));)
			if (strncmp(e->d_name, want, strlen(want)) == 0)
				snprintf(path, sizeof(path), "%s/%s/%s", gdir, e->d_name, argv[2]);
		if (d)
			closedir(d);
		FILE *f = fopen(path, "w");
		if (!f || fputs("planted\n", f) < 0 || fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
