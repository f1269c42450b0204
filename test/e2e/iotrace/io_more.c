/* SPDX-License-Identifier: BSD-3-Clause */
/* More POSIX I/O: v2 forms, fcntl, mmap, renameat2, failures, EINTR, sockets, /proc, fork. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[4096];

static void on_alarm(int sig)
{
	(void)sig;
}

/* A read of an empty pipe that a signal interrupts (no SA_RESTART): -1, EINTR. */
static void interrupted(void)
{
	int p[2];
	if (pipe(p) != 0)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 100000}};
	setitimer(ITIMER_REAL, &it, NULL);
	errno = 0;
	ssize_t r = read(p[0], buf, 1);
	printf("read interrupted %zd errno %d\n", r, errno);
	printf("close %d %d\n", close(p[0]), close(p[1]));
}

/* The file: 300 bytes by pwritev2, 20 by pwritev64; read back by preadv2, preadv64 and
 * pread through two fcntl duplicates; its flags changed; mapped twice. */
static void vectored(void)
{
	int fd = open("more.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	memset(buf, 'y', sizeof(buf));
	struct iovec two[2] = {{buf, 100}, {buf + 100, 200}};
	printf("pwritev2 %zd\n", pwritev2(fd, two, 2, 0, 0));
	struct iovec one[1] = {{buf, 20}};
	printf("pwritev64 %zd\n", pwritev64(fd, one, 1, 300));
	struct iovec halves[2] = {{buf, 50}, {buf + 50, 50}};
	printf("preadv2 %zd\n", preadv2(fd, halves, 2, 0, 0));
	struct iovec ten[1] = {{buf, 10}};
	printf("preadv64 %zd\n", preadv64(fd, ten, 1, 315));

	int d = fcntl(fd, F_DUPFD, 10);
	printf("F_DUPFD >= 10: %d\n", d >= 10);
	printf("pread dup %zd\n", pread(d, buf, 5, 0));
	int d2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	printf("pread dup2 %zd\n", pread(d2, buf, 7, 0));
	printf("F_SETFL %d\n", fcntl(fd, F_SETFL, O_APPEND));
	printf("F_GETFL append %d\n", (fcntl(fd, F_GETFL) & O_APPEND) != 0);
	printf("F_SETFD %d\n", fcntl(fd, F_SETFD, FD_CLOEXEC));
	errno = 0;
	int bad = fcntl(-1, F_DUPFD, 0);
	printf("F_DUPFD -1 %d errno %d\n", bad, errno);

	void *m = mmap(NULL, 320, PROT_READ, MAP_PRIVATE, fd, 0);
	printf("mmap private %d first %c\n", m != MAP_FAILED, m != MAP_FAILED ? *(char *)m : 0);
	munmap(m, 320);
	m = mmap(NULL, 320, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	printf("mmap shared %d\n", m != MAP_FAILED);
	munmap(m, 320);
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("mmap anonymous %d\n", anon != MAP_FAILED);
	munmap(anon, 4096);
	printf("close %d %d %d\n", close(d2), close(d), close(fd));

	/* Failures on a handle: a write on a read-only descriptor, a shared writable map of it. */
	int ro = open("more.bin", O_RDONLY);
	errno = 0;
	ssize_t w = write(ro, buf, 1);
	printf("write read-only %zd errno %d\n", w, errno);
	errno = 0;
	m = mmap(NULL, 320, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	printf("mmap read-only shared %d errno %d\n", m == MAP_FAILED, errno);
	printf("close %d\n", close(ro));
	printf("renameat2 %d\n",
	       renameat2(AT_FDCWD, "more.bin", AT_FDCWD, "more2.bin", RENAME_NOREPLACE));
	errno = 0;
	int again = renameat2(AT_FDCWD, "more.bin", AT_FDCWD, "more2.bin", RENAME_NOREPLACE);
	printf("renameat2 again %d errno %d\n", again, errno);
	printf("unlink %d\n", unlink("more2.bin"));
}

/* A file deleted while open (unlink, by the path it was opened with), then written; one
 * deleted after its close (unlinkat relative to the working directory). */
static void deleted(void)
{
	int fd = open("gone.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	printf("write %zd\n", write(fd, buf, 4));
	printf("unlink open %d\n", unlink("gone.bin"));
	printf("write %zd\n", write(fd, buf, 4));
	printf("close %d\n", close(fd));
	fd = open("gone2.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	printf("close %d\n", close(fd));
	printf("unlinkat %d\n", unlinkat(AT_FDCWD, "gone2.bin", 0));
}

/* A socket pair and /proc: descriptors of kinds of their own. */
static void others(void)
{
	int s[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0)
		return;
	printf("socket write %zd\n", write(s[0], "abc", 3));
	printf("socket read %zd\n", read(s[1], buf, 64));
	printf("close %d %d\n", close(s[0]), close(s[1]));
	int p = open("/proc/self/stat", O_RDONLY);
	printf("proc read some %d\n", read(p, buf, sizeof(buf)) > 0);
	printf("close %d\n", close(p));
}

/* A child forked without exec writes on its parent's descriptor and closes it. */
static int forked(void)
{
	int fd = open("fork.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	printf("parent write %zd\n", write(fd, buf, 10));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		ssize_t w = write(fd, buf, 100);
		close(fd);
		_exit(w == 100 ? 0 : 1);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	printf("child status %d\n", status);
	printf("parent write %zd\n", write(fd, buf, 20));
	printf("close %d\n", close(fd));
	printf("unlink %d\n", unlink("fork.bin"));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fork"))
		return forked();
	vectored();
	deleted();
	interrupted();
	others();
	return 0;
}
