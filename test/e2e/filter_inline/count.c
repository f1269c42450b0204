/* SPDX-License-Identifier: BSD-3-Clause */
/* e2e filter_inline: a preloaded shim counting vt_inst_enter/exit calls per descriptor. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt/vt_inst.h"

#define MAX_DESC 256

static struct {
	pthread_mutex_t lock;
	void (*enter)(struct vt_inst_desc *);
	void (*exit)(struct vt_inst_desc *);
	int n;
	struct {
		struct vt_inst_desc *desc;
		long enters, exits;
	} seen[MAX_DESC];
} cnt = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void count(struct vt_inst_desc *d, int is_enter)
{
	pthread_mutex_lock(&cnt.lock);
	if (!cnt.enter) {
		*(void **)&cnt.enter = dlsym(RTLD_NEXT, "vt_inst_enter");
		*(void **)&cnt.exit = dlsym(RTLD_NEXT, "vt_inst_exit");
	}
	int i = 0;
	while (i < cnt.n && cnt.seen[i].desc != d)
		i++;
	if (i == cnt.n && cnt.n < MAX_DESC)
		cnt.seen[cnt.n++].desc = d;
	if (i < MAX_DESC) {
		if (is_enter)
			cnt.seen[i].enters++;
		else
			cnt.seen[i].exits++;
	}
	pthread_mutex_unlock(&cnt.lock);
}

void vt_inst_enter(struct vt_inst_desc *d)
{
	count(d, 1);
	cnt.enter(d);
}

void vt_inst_exit(struct vt_inst_desc *d)
{
	count(d, 0);
	cnt.exit(d);
}

/* At exit: "NAME ENTERS EXITS" per descriptor into $COUNT_FILE. */
__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("COUNT_FILE");
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	pthread_mutex_lock(&cnt.lock);
	for (int i = 0; i < cnt.n; i++)
		fprintf(f, "%s %ld %ld\n", cnt.seen[i].desc->name, cnt.seen[i].enters,
			cnt.seen[i].exits);
	pthread_mutex_unlock(&cnt.lock);
	fclose(f);
}
