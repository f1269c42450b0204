/* SPDX-License-Identifier: BSD-3-Clause */
/* Does not compile, on purpose: the vtcc tests check that the compiler's errors pass through. */
int main(void)
{
	return 0
}
