/* SPDX-License-Identifier: BSD-3-Clause */
/* A user's "counter plugin": loading it at all runs its constructor, which leaves a file
 * saying with which effective user id it ran. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void ran(void)
{
	const char *path = getenv("USERPLUGIN_MARKER");
	if (!path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	char line[64];
	int n = snprintf(line, sizeof(line), "loaded with euid %d\n", (int)geteuid());
	if (write(fd, line, (size_t)n) < 0)
		_exit(99);
	close(fd);
}
