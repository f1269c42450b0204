/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-ctl's parsing: its command line and the registration files of traced processes. */
#ifndef VTCTL_PARSE_H
#define VTCTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* What a traced process says of itself in DIR/PID.reg (lifecycle/vt_ctl.c writes it). */
struct vtctl_reg {
	int pid;
	unsigned long long start; /* its start time, in clock ticks after boot (proc(5)) */
	int signal;
	int job;	/* the mpirun (mpiexec) pid, 0: none */
	char rank[16];	/* "-": not an MPI rank */
	char jobid[64]; /* Open MPI's job id, "-": none */
	char program[512];
	char archive[512];
};

/* Parses a registration's text: 0, or -1 when a line is malformed or pid, start or signal is
 * missing. Unknown keys are skipped (a newer runtime may add some). */
int vtctl_parse_reg(const char *text, struct vtctl_reg *out);

enum vtctl_cmd { VTCTL_LIST, VTCTL_STATUS, VTCTL_OFF, VTCTL_ON, VTCTL_SNAPSHOT };

struct vtctl_args {
	enum vtctl_cmd cmd;
	int pid;	 /* the target, 0 with a job */
	const char *job; /* --job JOBID|MPIRUN_PID, NULL: a pid */
	double timeout;	 /* seconds to wait for each answer */
	bool help;
};

/* Parses argv (after the program's name): 0, or -1 with one line naming the bad argument and
 * what was expected in err. */
int vtctl_parse_args(int argc, char **argv, struct vtctl_args *out, char *err, size_t len);

/* The word a command is sent as ("off", "status", ...). */
const char *vtctl_cmd_word(enum vtctl_cmd cmd);

/* Whether a registration belongs to job (its launcher's pid or Open MPI's job id). */
bool vtctl_in_job(const struct vtctl_reg *r, const char *job);

#endif
