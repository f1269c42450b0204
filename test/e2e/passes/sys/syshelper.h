// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": a header the test includes with -isystem, as a library's header would be.
#ifndef SYSHELPER_H
#define SYSHELPER_H

static volatile int sys_sink;

// Not inline: only its header's being a system header keeps it from being instrumented.
__attribute__((noinline, unused)) static void sys_helper(int i)
{
	sys_sink += i;
}

#endif
