/* SPDX-License-Identifier: BSD-3-Clause */
/* libotf2's gethostid() answered from the host name while vt writes the anchor. */
/*
 * The host id in the trace id. libotf2 hashes gethostid() into the trace id when it writes
 * the anchor, at the program's exit; glibc's gethostid, without /etc/hostid, looks the host
 * name up through the name service (nsswitch: files, then DNS), which may wait for a
 * network at exit. While vt writes the anchor it answers that call itself, from the host
 * name, on its own thread only; every other call, the program's, goes to libc.
 */
#include "interpose/vt_hostid.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

static __thread int answering;

void vt_hostid_begin(void)
{
	answering = 1;
}

void vt_hostid_end(void)
{
	answering = 0;
}

/* The host name's FNV-1a hash: stable per host, which is all a trace id needs of it. */
static long own_hostid(void)
{
	char host[256] = "";
	int saved = errno;
	gethostname(host, sizeof(host) - 1);
	errno = saved;
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)host; *p; p++)
		h = (h ^ *p) * 16777619u;
	return (long)(int32_t)h;
}

__attribute__((visibility("default"), no_instrument_function)) long gethostid(void)
{
	static long (*real)(void);
	if (answering)
		return own_hostid();
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "gethostid");
	return real ? real() : own_hostid();
}
