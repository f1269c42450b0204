/* SPDX-License-Identifier: BSD-3-Clause */
/* exec* and daemon() end the process without running atexit handlers: write the trace first. */
#include "base/vt_state.h"
#include "interpose/vt_interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))

extern char **environ;

/*
 * The trace of this process ends here: if the exec fails, the process goes on untraced.
 * A forked child is already off (see lifecycle/vt_core.c), so its exec leaves the parent's trace
 * alone.
 */
static void before_exec(const char *what)
{
	if (vt_core_state() != VT_STATE_ON)
		return;
	/* A vfork child (or posix_spawn's, or clone(CLONE_VM)'s) runs in its parent's memory:
	 * finalising here would end the parent's trace. Its pid tells it apart, since the
	 * fork handlers that switch a forked child off do not run for it. */
	if (getpid() != vt_core_pid())
		return;
	if (vt_interpose_hooks.exec)
		vt_interpose_hooks.exec(what);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

static void *next(const char *name)
{
	return vt_interpose_next(name);
}

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	before_exec("execve");
	return ((execve_fn)next("execve"))(path, argv, envp);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
	before_exec("execv");
	return ((execve_fn)next("execve"))(path, argv, environ);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	before_exec("execvpe");
	return ((execvpe_fn)next("execvpe"))(file, argv, envp);
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
	before_exec("execvp");
	return ((execvpe_fn)next("execvpe"))(file, argv, environ);
}

/* The list forms: count the arguments, then collect them and call the vector forms. */
static size_t count_args(va_list ap)
{
	va_list c;
	size_t n = 0;
	va_copy(c, ap);
	while (va_arg(c, char *))
		n++;
	va_end(c);
	return n;
}

/* argv gets first, the n arguments in *ap and the terminating NULL. */
static void fill_args(char **argv, const char *first, va_list *ap, size_t n)
{
	argv[0] = (char *)first;
	for (size_t i = 1; i <= n + 1; i++)
		argv[i] = va_arg(*ap, char *);
}

VT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	size_t n = count_args(ap);
	char *argv[n + 2];
	fill_args(argv, arg, &ap, n);
	va_end(ap);
	return execv(path, argv);
}

VT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	size_t n = count_args(ap);
	char *argv[n + 2];
	fill_args(argv, arg, &ap, n);
	va_end(ap);
	return execvp(file, argv);
}

VT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	size_t n = count_args(ap);
	char *argv[n + 2];
	fill_args(argv, arg, &ap, n);
	char **envp = va_arg(ap, char **);
	va_end(ap);
	return execve(path, argv, envp);
}

/*
 * daemon(): its parent calls _exit inside libc, so no atexit handler writes its trace, and
 * the daemon itself is a forked child, which vt does not trace: the archive was left empty.
 * The same steps as libc's daemon, with the parent's trace written before its _exit: the
 * events up to daemon() are kept (docs/security.md).
 */
typedef int (*daemon_fn)(int, int);

VT_EXPORT int daemon(int nochdir, int noclose)
{
	if (vt_core_state() != VT_STATE_ON || getpid() != vt_core_pid() ||
	    !vt_interpose_hooks.daemon_parent)
		return ((daemon_fn)next("daemon"))(nochdir, noclose);
	pid_t child = fork();
	if (child < 0)
		return -1;
	if (child > 0) {
		vt_interpose_hooks.daemon_parent((int)child);
		_exit(0);
	}
	if (setsid() < 0)
		return -1;
	if (!nochdir && chdir("/") < 0) {
		/* libc's daemon ignores it too */
	}
	if (!noclose) {
		int fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			return 0; /* as libc: nothing to redirect to, the daemon goes on */
		struct stat st;
		if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
			close(fd);
			errno = ENODEV;
			return -1;
		}
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}
