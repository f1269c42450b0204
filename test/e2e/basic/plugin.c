// SPDX-License-Identifier: BSD-3-Clause
// e2e "basic": a library the program dlopen()s, calls and dlclose()s before it exits.
int plugin_fn(int i);

static volatile int plugin_sink;

int plugin_fn(int i)
{
	plugin_sink += 2 * i;
	return plugin_sink;
}
