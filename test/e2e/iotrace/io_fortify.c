/* SPDX-License-Identifier: BSD-3-Clause */
/* Calls that _FORTIFY_SOURCE turns into libc's checking forms: __open_2, __read_chk, __pread_chk.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* Flags and sizes the compiler cannot know: the fortified headers call the _chk forms. */
	int flags = argc > 5 ? O_RDWR : O_RDONLY;
	size_t n = (size_t)atoi(argc > 1 ? argv[1] : "48");
	char buf[64];
	/* Opened and closed three times first: one handle, taken again each time. */
	for (int i = 0; i < 3; i++)
		close(open("/proc/self/exe", flags));
	int fd = open("/proc/self/exe", flags);
	ssize_t a = read(fd, buf, n);
	ssize_t b = read(fd, buf, n / 2);
	ssize_t c = pread(fd, buf, n, 1);
	printf("read %zd %zd pread %zd close %d\n", a, b, c, close(fd));
	return 0;
}
