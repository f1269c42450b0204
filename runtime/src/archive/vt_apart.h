/* SPDX-License-Identifier: BSD-3-Clause */
/* A piece of work run in a child process, so that its crash does not end the program. */
#ifndef VT_APART_H
#define VT_APART_H

/* What vt_apart_run says of the work. */
enum vt_apart {
	VT_APART_DONE,	   /* it ran in the child and returned 0 */
	VT_APART_FAILED,   /* it ran in the child and returned non-zero (it said why) */
	VT_APART_DIED,	   /* the child died: one line said so, naming what */
	VT_APART_STUCK,	   /* the child waited on a lock no thread of it could release: killed */
	VT_APART_NO_CHILD, /* no child could be made: run the work here */
};

/*
 * Runs work(arg) in a child process made without the program's fork handlers and without
 * SIGCHLD, the child's lines carrying the program's process id, and waits for it. A child
 * that sleeps on a lock without using the CPU (one another thread of the program held at
 * the fork: the child has no thread that could release it) is killed. what names the work
 * in the line about a child that died ("writing the trace X").
 */
enum vt_apart vt_apart_run(int (*work)(void *), void *arg, const char *what);

#endif
