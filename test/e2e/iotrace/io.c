/* SPDX-License-Identifier: BSD-3-Clause */
/* Known POSIX I/O: sizes written and read per file, a failed open, a short read, a pipe, a dup. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[4096];

/* Writes 3 x 1000 bytes, 100 + 200 in one writev, 500 with pwrite: 3800 bytes. */
static void write_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 3; i++)
		printf("write %zd\n", write(fd, buf, 1000));
	struct iovec iov[2] = {{buf, 100}, {buf, 200}};
	printf("writev %zd\n", writev(fd, iov, 2));
	printf("pwrite %zd\n", pwrite(fd, buf, 500, 3300));
	printf("fsync %d\n", fsync(fd));
	printf("close %d\n", close(fd));
}

/* Reads it back in 1024-byte pieces (the fourth short, the fifth at the end), seeks, reads
 * 50 at 3790 (10 come), then 10 more through a dup of the descriptor. */
static void read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	for (int i = 0; i < 5; i++)
		printf("read %zd\n", read(fd, buf, 1024));
	printf("lseek %ld\n", (long)lseek(fd, 100, SEEK_SET));
	printf("pread %zd\n", pread(fd, buf, 50, 3790));
	int copy = dup(fd);
	printf("dup read %zd\n", read(copy, buf, 10));
	printf("close %d %d\n", close(copy), close(fd));
	/* fd is closed: EBADF, as without vt */
	errno = 0;
	ssize_t r = read(fd, buf, 10);
	printf("read closed %zd errno %d\n", r, errno);
}

int main(void)
{
	write_file("data.bin");
	read_file("data.bin");

	errno = 0;
	int bad = open("no/such/dir/file", O_RDONLY);
	printf("open missing %d errno %d\n", bad, errno);
	errno = 0;
	ssize_t r = write(-1, buf, 1);
	printf("write -1 %zd errno %d\n", r, errno);

	int p[2];
	if (pipe(p) != 0)
		return 1;
	printf("pipe write %zd\n", write(p[1], "hello", 5));
	printf("pipe read %zd\n", read(p[0], buf, 64));
	printf("close %d %d\n", close(p[1]), close(p[0]));

	printf("rename %d\n", rename("data.bin", "data2.bin"));
	printf("unlink %d\n", unlink("data2.bin"));
	errno = 0;
	int u = unlink("data2.bin");
	printf("unlink again %d errno %d\n", u, errno);
	return 0;
}
