/* SPDX-License-Identifier: BSD-3-Clause */
/* 250 files, file i (f000 ... f249) written with i + 1 bytes in one write, then removed. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char name[32], buf[256] = {0};
	for (int i = 0; i < 250; i++) {
		snprintf(name, sizeof(name), "f%03d", i);
		int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, (size_t)i + 1) != i + 1)
			return 1;
		close(fd);
		unlink(name);
	}
	return 0;
}
