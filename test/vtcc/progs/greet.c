/* SPDX-License-Identifier: BSD-3-Clause */
/* The second file of the vtcc build tests' C program. */
int vtcc_test_greet(int n);

int vtcc_test_greet(int n)
{
	return n + 1;
}
