/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-ctl's parsing alone: its command line and the registration files the runtime writes. */
#include "unit.h"
#include "vtctl_parse.h"

#include <string.h>

static int args(struct vtctl_args *a, char *err, int argc, ...)
{
	char *argv[8];
	__builtin_va_list ap;
	__builtin_va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = __builtin_va_arg(ap, char *);
	__builtin_va_end(ap);
	err[0] = 0;
	return vtctl_parse_args(argc, argv, a, err, 256);
}

static void test_args(void)
{
	struct vtctl_args a;
	char err[256];
	CHECK(args(&a, err, 2, "off", "123") == 0 && a.cmd == VTCTL_OFF && a.pid == 123 && !a.job &&
	      a.timeout == 30);
	CHECK(args(&a, err, 3, "on", "--job", "4711") == 0 && a.cmd == VTCTL_ON && a.pid == 0 &&
	      strcmp(a.job, "4711") == 0);
	CHECK(args(&a, err, 4, "--timeout", "2.5", "status", "9") == 0 && a.cmd == VTCTL_STATUS &&
	      a.timeout == 2.5);
	CHECK(args(&a, err, 1, "list") == 0 && a.cmd == VTCTL_LIST);
	CHECK(args(&a, err, 2, "snapshot", "1") == 0 && a.cmd == VTCTL_SNAPSHOT);
	CHECK(strcmp(vtctl_cmd_word(VTCTL_SNAPSHOT), "snapshot") == 0);
	CHECK(args(&a, err, 1, "--help") == 0 && a.help);
	/* Bad input: one line naming it and what was expected. */
	CHECK(args(&a, err, 0) < 0 && strstr(err, "no command"));
	CHECK(args(&a, err, 2, "pause", "1") < 0 &&
	      strcmp(err, "unknown command 'pause'; expected list, status, off, on or snapshot") ==
		  0);
	CHECK(args(&a, err, 1, "off") < 0 && strstr(err, "needs a process id"));
	CHECK(args(&a, err, 2, "off", "0") < 0 && strstr(err, "'0' is not a process id"));
	CHECK(args(&a, err, 2, "off", "-5") < 0 && strstr(err, "unknown option '-5'") == NULL);
	CHECK(args(&a, err, 2, "off", "12x") < 0 && strstr(err, "'12x' is not a process id"));
	CHECK(args(&a, err, 2, "off", "99999999999") < 0);
	CHECK(args(&a, err, 3, "off", "1", "2") < 0 && strstr(err, "unexpected argument '2'"));
	CHECK(args(&a, err, 2, "off", "--job") < 0 && strstr(err, "--job needs"));
	CHECK(args(&a, err, 2, "list", "1") < 0 && strstr(err, "list takes no argument"));
	CHECK(args(&a, err, 3, "--timeout", "0", "list") < 0 && strstr(err, "--timeout '0'"));
	CHECK(args(&a, err, 3, "--timeout", "x", "list") < 0);
	CHECK(args(&a, err, 1, "--timeout") < 0 && strstr(err, "needs a number"));
	CHECK(args(&a, err, 2, "--force", "list") < 0 && strstr(err, "unknown option '--force'"));
}

static void test_reg(void)
{
	struct vtctl_reg r;
	const char *full = "pid=42\nstart=123456\nprogram=/bin/app\narchive=/t/app.vt.otf2\n"
			   "signal=12\nrank=3\njob=4711\njobid=2811\nfuture=kept out\n";
	CHECK(vtctl_parse_reg(full, &r) == 0);
	CHECK(r.pid == 42 && r.start == 123456 && r.signal == 12 && r.job == 4711);
	CHECK(strcmp(r.rank, "3") == 0 && strcmp(r.jobid, "2811") == 0);
	CHECK(strcmp(r.program, "/bin/app") == 0 && strcmp(r.archive, "/t/app.vt.otf2") == 0);
	CHECK(vtctl_in_job(&r, "4711") && vtctl_in_job(&r, "2811") && !vtctl_in_job(&r, "47"));
	/* No trailing newline, the optional keys absent: defaults. */
	CHECK(vtctl_parse_reg("pid=7\nstart=1\nsignal=10", &r) == 0 && r.job == 0 &&
	      strcmp(r.rank, "-") == 0 && strcmp(r.jobid, "-") == 0 && !vtctl_in_job(&r, "-"));
	/* Missing or malformed required keys. */
	CHECK(vtctl_parse_reg("pid=7\nstart=1\n", &r) < 0);
	CHECK(vtctl_parse_reg("pid=7\nsignal=12\n", &r) < 0);
	CHECK(vtctl_parse_reg("pid=x\nstart=1\nsignal=12\n", &r) < 0);
	CHECK(vtctl_parse_reg("pid=7\nstart=1\nsignal=99\n", &r) < 0);
	CHECK(vtctl_parse_reg("pid=7\nstart=1\nsignal=12\njob=-1\n", &r) < 0);
	CHECK(vtctl_parse_reg("pid=7\nstart=1\nsignal=12\nno equals sign\n", &r) < 0);
	CHECK(vtctl_parse_reg("", &r) < 0);
	/* A value longer than its field is cut, not overflowed. */
	char big[2048] = "pid=7\nstart=1\nsignal=12\nrank=";
	memset(big + strlen(big), '9', 600);
	CHECK(vtctl_parse_reg(big, &r) == 0 && strlen(r.rank) == sizeof(r.rank) - 1);
}

int main(void)
{
	test_args();
	test_reg();
	return unit_done();
}
