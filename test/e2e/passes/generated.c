// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": a file the test's compile-time filter excludes as a whole ("file:" pattern).
static volatile long gen_sink;

__attribute__((noinline)) void gen_alpha(long i)
{
	gen_sink += i;
}

__attribute__((noinline)) void gen_beta(long i)
{
	gen_sink -= i;
}
