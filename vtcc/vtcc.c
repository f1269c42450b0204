/* SPDX-License-Identifier: BSD-3-Clause */
/* vtcc, vtcxx, vtfort: run the real compiler with vt's instrumentation and runtime added. */
#include "vtcc_dirs.h"
#include "vtcc_omp.h"
#include "vtcc_paths.h"
#include "vtcc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Status for wrong use of vtcc itself; the compiler's own statuses pass through unchanged. */
#define VTCC_EXIT_USAGE 2
/* Status when the compiler cannot be started, as a shell reports a missing command. */
#define VTCC_EXIT_NOEXEC 127

enum vtcc_lang_id { VTCC_LANG_C, VTCC_LANG_CXX, VTCC_LANG_FORTRAN };

struct vtcc_lang {
	const char *name;     /* for messages */
	const char *driver;   /* the program name that selects this language */
	const char *compiler; /* default underlying compiler */
	const char *env;      /* environment variable naming the compiler */
	const char *option;   /* -vt: option naming the compiler */
};

static const struct vtcc_lang vtcc_langs[] = {
    [VTCC_LANG_C] = {"C", "vtcc", "cc", "VT_CC", "-vt:cc"},
    [VTCC_LANG_CXX] = {"C++", "vtcxx", "c++", "VT_CXX", "-vt:cxx"},
    [VTCC_LANG_FORTRAN] = {"Fortran", "vtfort", "gfortran", "VT_FC", "-vt:fc"},
};
#define VTCC_NLANGS (sizeof(vtcc_langs) / sizeof(vtcc_langs[0]))

/* What the command line asks the compiler to do, which decides what vtcc adds. */
enum vtcc_step {
	VTCC_STEP_INFO,	      /* no input (--version, -print-*, nothing at all): add nothing */
	VTCC_STEP_PREPROCESS, /* -E, or -M/-MM without -MD/-MMD: the include path and VTRACE */
	VTCC_STEP_COMPILE,    /* -c, -S, -fsyntax-only, -r: compile flags only */
	VTCC_STEP_LINK,	      /* anything that links (maybe compiling too): compile + link flags */
};

enum vtcc_family { VTCC_FAMILY_UNKNOWN, VTCC_FAMILY_GNU, VTCC_FAMILY_LLVM };

struct vtcc;

/* An instrumentation method of -vt:inst. */
struct vtcc_inst {
	const char *name;
	bool vtrace; /* define VTRACE, which switches the user API macros on */
	/* Adds the method's compile flags; NULL when it has none. */
	void (*compile_flags)(struct vtcc *d, struct vtcc_argv *out);
	const char *help;
	/* For a compiler plugin: the compilers it plugs into, its file in the plugin directory,
	 * and the compiler version it was built for ("" when vt was built without it). */
	enum vtcc_family plugin_family;
	const char *plugin_file;
	const char *built_for;
};

struct vtcc {
	const struct vtcc_lang *lang;
	const char *compiler;
	const struct vtcc_inst *inst;
	bool mt, show, verbose, version, help;
	bool mpi_on, mpi_off;	   /* -vt:mpi, -vt:nompi; neither: an MPI wrapper means MPI */
	const char *mpi_lib;	   /* after vtcc_resolve_mpi: "vt-mpi", "vt-mpich", or NULL */
	const char *mpi_why;	   /* how the MPI mode was decided, for -vt:version */
	enum vtcc_omp_runtime omp; /* -vt:openmp-runtime, else $VT_OPENMP_RUNTIME, else libomp */
	struct vtcc_argv user;	   /* every argument that is not vtcc's, in order */
	/* Words before the compiler in VT_CC or -vt:cc ("ccache gcc"): a launcher. */
	struct vtcc_argv launcher;
	char *self;		   /* canonical path of this program */
	char *compiler_path;	   /* canonical path of the compiler, NULL if not found */
	bool in_build_tree, moved; /* see vtcc_dirs.h */
	const char *incdir, *libdir, *plugindir, *gompdir;
	enum vtcc_family family;
	/* Options of the compiler plugins (NULL when not given); see docs/passes.md. */
	const char *filter;	   /* -vt:filter, made absolute */
	const char *min_insns;	   /* -vt:min-insns */
	const char *inline_mode;   /* -vt:inline */
	const char *plugin_option; /* the first of those given, for messages */
	/* Why the default method is not a plugin; NULL when it is, or before it is decided. */
	const char *fallback;
};

/* An option of vtcc. Adding one is adding an entry here (and its apply function if new). */
struct vtcc_option {
	const char *name;
	const char *arg; /* the value's name in the help, NULL for a flag */
	void (*apply)(struct vtcc *d, const struct vtcc_option *o, const char *value);
	size_t field; /* for vtcc_opt_flag: offset of the member it sets */
	int lang;     /* for vtcc_opt_compiler: the language whose compiler it names */
	const char *help;
};

static void vtcc_compinst_flags(struct vtcc *d, struct vtcc_argv *out);
static void vtcc_gcc_flags(struct vtcc *d, struct vtcc_argv *out);
static void vtcc_llvm_flags(struct vtcc *d, struct vtcc_argv *out);

/* The first entry is the default; it is decided per compiler when flags are needed. */
static const struct vtcc_inst vtcc_insts[] = {
    {.name = "auto",
     .vtrace = true,
     .help = "the plugin for the compiler (gcc or llvm) if vt has one that fits it, else "
	     "compinst (default)"},
    {.name = "gcc",
     .vtrace = true,
     .compile_flags = vtcc_gcc_flags,
     .help = "vt's GCC plugin (gcc, g++, gfortran): a static descriptor per function",
     .plugin_family = VTCC_FAMILY_GNU,
     .plugin_file = "vt_gcc.so",
     .built_for = VTCC_GCC_PLUGIN_VERSION},
    {.name = "llvm",
     .vtrace = true,
     .compile_flags = vtcc_llvm_flags,
     .help = "vt's LLVM pass plugin (clang, clang++): a static descriptor per function",
     .plugin_family = VTCC_FAMILY_LLVM,
     .plugin_file = "vt_llvm.so",
     .built_for = VTCC_LLVM_PLUGIN_MAJOR},
    {.name = "compinst",
     .vtrace = true,
     .compile_flags = vtcc_compinst_flags,
     .help = "the compiler's -finstrument-functions"},
    {.name = "manual",
     .vtrace = true,
     .help = "only the user API (VT_USER_START/END), compiled with -DVTRACE"},
    {.name = "none", .vtrace = false, .help = "no instrumentation; link the runtime only"},
};
#define VTCC_NINSTS	   (sizeof(vtcc_insts) / sizeof(vtcc_insts[0]))
#define VTCC_INST_AUTO	   (&vtcc_insts[0])
#define VTCC_INST_COMPINST (&vtcc_insts[3])

static void vtcc_opt_compiler(struct vtcc *d, const struct vtcc_option *o, const char *value);
static void vtcc_opt_inst(struct vtcc *d, const struct vtcc_option *o, const char *value);
static void vtcc_opt_flag(struct vtcc *d, const struct vtcc_option *o, const char *value);
static void vtcc_opt_plugin(struct vtcc *d, const struct vtcc_option *o, const char *value);
static void vtcc_opt_openmp(struct vtcc *d, const struct vtcc_option *o, const char *value);

static const struct vtcc_option vtcc_options[] = {
    {.name = "-vt:cc",
     .arg = "CMD",
     .apply = vtcc_opt_compiler,
     .lang = VTCC_LANG_C,
     .help = "underlying C compiler (default: $VT_CC, else cc)"},
    {.name = "-vt:cxx",
     .arg = "CMD",
     .apply = vtcc_opt_compiler,
     .lang = VTCC_LANG_CXX,
     .help = "underlying C++ compiler (default: $VT_CXX, else c++)"},
    {.name = "-vt:fc",
     .arg = "CMD",
     .apply = vtcc_opt_compiler,
     .lang = VTCC_LANG_FORTRAN,
     .help = "underlying Fortran compiler (default: $VT_FC, else gfortran)"},
    {.name = "-vt:inst",
     .arg = "METHOD",
     .apply = vtcc_opt_inst,
     .help = "instrumentation method, one of:"},
    {.name = "-vt:filter",
     .arg = "FILE",
     .apply = vtcc_opt_plugin,
     .field = offsetof(struct vtcc, filter),
     .help = "compile-time filter file (plugins only): functions it gives LIMIT 0 are not "
	     "instrumented"},
    {.name = "-vt:min-insns",
     .arg = "N",
     .apply = vtcc_opt_plugin,
     .field = offsetof(struct vtcc, min_insns),
     .help = "plugins only: skip functions of fewer than N instructions (default 0)"},
    {.name = "-vt:inline",
     .arg = "WHICH",
     .apply = vtcc_opt_plugin,
     .field = offsetof(struct vtcc, inline_mode),
     .help = "plugins only: after (default: instrument the functions left out of line "
	     "after inlining, none of the inlined copies), skip (the same, without the functions "
	     "declared inline), or the source view before inlining, where every inlined copy "
	     "enters and leaves: declared (functions declared inline too, not always_inline "
	     "ones) or all"},
    {.name = "-vt:mpi",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, mpi_on),
     .help = "MPI program: link vt's MPI wrappers (the default when the compiler is an MPI "
	     "wrapper such as mpicc, mpicxx, mpifort, mpicc.mpich)"},
    {.name = "-vt:nompi",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, mpi_off),
     .help = "do not link vt's MPI wrappers, even with an MPI compiler wrapper"},
    {.name = "-vt:openmp-runtime",
     .arg = "RT",
     .apply = vtcc_opt_openmp,
     .help = "OpenMP runtime of gcc, g++, gfortran -fopenmp: libomp (LLVM's, with OpenMP "
	     "events; default) in place of libgomp, or libgomp (GCC's, without); default "
	     "$VT_OPENMP_RUNTIME, else libomp"},
    {.name = "-vt:mt",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, mt),
     .help = "multi-threaded program: add -pthread when compiling and linking"},
    {.name = "-vt:show",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, show),
     .help = "print the compiler command that would run, run nothing"},
    {.name = "-vt:verbose",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, verbose),
     .help = "print the compiler command on stderr, then run it"},
    {.name = "-vt:version",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, version),
     .help = "print vt's version and the underlying compiler"},
    {.name = "-vt:help",
     .apply = vtcc_opt_flag,
     .field = offsetof(struct vtcc, help),
     .help = "print this help"},
};
#define VTCC_NOPTIONS (sizeof(vtcc_options) / sizeof(vtcc_options[0]))

/* Options of the other drivers' languages are not this driver's. */
static bool vtcc_option_applies(const struct vtcc *d, const struct vtcc_option *o)
{
	return o->apply != vtcc_opt_compiler || &vtcc_langs[o->lang] == d->lang;
}

static void vtcc_opt_compiler(struct vtcc *d, const struct vtcc_option *o, const char *value)
{
	const struct vtcc_lang *want = &vtcc_langs[o->lang];

	if (want != d->lang)
		vtcc_die(VTCC_EXIT_USAGE, "%s names the %s compiler of %s; %s takes %s CMD",
			 o->name, want->name, want->driver, vtcc_prog, d->lang->option);
	if (!*value)
		vtcc_die(VTCC_EXIT_USAGE, "%s: the compiler command is empty", o->name);
	d->compiler = value;
}

static void vtcc_opt_inst(struct vtcc *d, const struct vtcc_option *o, const char *value)
{
	char list[256] = "";

	for (size_t i = 0; i < VTCC_NINSTS; i++) {
		if (!strcmp(value, vtcc_insts[i].name)) {
			d->inst = &vtcc_insts[i];
			return;
		}
		if (strlen(list) + strlen(vtcc_insts[i].name) + 2 < sizeof(list)) {
			strcat(list, i ? "|" : "");
			strcat(list, vtcc_insts[i].name);
		}
	}
	vtcc_die(VTCC_EXIT_USAGE, "%s: unknown method '%s'; valid methods: %s", o->name, value,
		 list);
}

static void vtcc_opt_flag(struct vtcc *d, const struct vtcc_option *o, const char *value)
{
	(void)value;
	*(bool *)((char *)d + o->field) = true;
}

/* The options only a compiler plugin can follow, checked here so that the compiler never
 * sees a bad value; whether a plugin is used is decided later (vtcc_resolve_inst). */
static void vtcc_opt_plugin(struct vtcc *d, const struct vtcc_option *o, const char *value)
{
	const char **field = (const char **)((char *)d + o->field);

	if (field == &d->filter) {
		char *abs = realpath(value, NULL);
		FILE *f = abs ? fopen(abs, "r") : NULL;

		if (!f)
			vtcc_die(VTCC_EXIT_USAGE, "%s %s: cannot read the filter file: %s", o->name,
				 value, strerror(errno));
		fclose(f);
		value = abs;
	} else if (field == &d->min_insns) {
		char *end;
		long n = strtol(value, &end, 10);

		if (!*value || *end || n < 0 || n > 1000000000L)
			vtcc_die(VTCC_EXIT_USAGE,
				 "%s '%s': expected a number of instructions (0 or more)", o->name,
				 value);
	} else if (strcmp(value, "after") && strcmp(value, "skip") && strcmp(value, "declared") &&
		   strcmp(value, "all")) {
		vtcc_die(VTCC_EXIT_USAGE, "%s '%s': expected after, skip, declared or all", o->name,
			 value);
	}
	*field = value;
	if (!d->plugin_option)
		d->plugin_option = o->name;
}

static void vtcc_opt_openmp(struct vtcc *d, const struct vtcc_option *o, const char *value)
{
	d->omp = vtcc_omp_parse(o->name, value);
	if (d->omp == VTCC_OMP_LIBOMP && !*vtcc_omp_libomp())
		vtcc_die(VTCC_EXIT_USAGE, "%s libomp: vt was built without LLVM's libomp", o->name);
}

static void vtcc_usage(const struct vtcc *d)
{
	printf("usage: %s [-vt:OPTION ...] [COMPILER ARGUMENTS ...]\n"
	       "Runs the %s compiler (%s) with vt's instrumentation and runtime added.\n"
	       "Arguments that do not start with -vt: go to the compiler unchanged, in order.\n\n"
	       "options:\n",
	       vtcc_prog, d->lang->name, d->compiler);
	for (size_t i = 0; i < VTCC_NOPTIONS; i++) {
		const struct vtcc_option *o = &vtcc_options[i];
		char head[64];

		if (!vtcc_option_applies(d, o))
			continue;
		snprintf(head, sizeof(head), "%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		printf("  %-18s %s\n", head, o->help);
		if (o->apply == vtcc_opt_inst) {
			for (size_t j = 0; j < VTCC_NINSTS; j++)
				printf("  %-18s   %-9s %s%s\n", "", vtcc_insts[j].name,
				       vtcc_insts[j].help,
				       vtcc_insts[j].built_for && !*vtcc_insts[j].built_for
					   ? " [not built]"
					   : "");
		}
	}
	printf("\nenvironment: %s names the compiler (overridden by %s).\n", d->lang->env,
	       d->lang->option);
	printf("exit status: the compiler's; %d for a wrong -vt: option; %d if the compiler "
	       "cannot run.\n",
	       VTCC_EXIT_USAGE, VTCC_EXIT_NOEXEC);
}

static void vtcc_unknown_option(const struct vtcc *d, const char *arg)
{
	char list[512] = "";

	for (size_t i = 0; i < VTCC_NOPTIONS; i++) {
		if (!vtcc_option_applies(d, &vtcc_options[i]))
			continue;
		if (strlen(list) + strlen(vtcc_options[i].name) + 2 < sizeof(list)) {
			strcat(list, *list ? " " : "");
			strcat(list, vtcc_options[i].name);
		}
	}
	vtcc_die(VTCC_EXIT_USAGE, "unknown option '%s'; valid options: %s", arg, list);
}

static void vtcc_parse(struct vtcc *d, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct vtcc_option *o = NULL;

		if (strncmp(arg, "-vt:", 4) != 0) {
			vtcc_argv_push(&d->user, arg);
			continue;
		}
		for (size_t j = 0; j < VTCC_NOPTIONS && !o; j++)
			if (!strcmp(arg, vtcc_options[j].name))
				o = &vtcc_options[j];
		if (!o)
			vtcc_unknown_option(d, arg);
		if (o->arg && i + 1 >= argc)
			vtcc_die(VTCC_EXIT_USAGE, "%s needs an argument %s; see -vt:help", o->name,
				 o->arg);
		o->apply(d, o, o->arg ? argv[++i] : NULL);
	}
}

static const struct vtcc_lang *vtcc_lang_of(const char *prog)
{
	size_t plen = strlen(prog);

	/* Match the end of the name, so that prefixed names (x86_64-vtcc) work too. */
	for (size_t i = 0; i < VTCC_NLANGS; i++) {
		size_t dlen = strlen(vtcc_langs[i].driver);

		if (plen >= dlen && !strcmp(prog + plen - dlen, vtcc_langs[i].driver))
			return &vtcc_langs[i];
	}
	return &vtcc_langs[VTCC_LANG_C];
}

/* Options whose value is the next argument; the value must not be read as a mode flag
 * (think of "-o -c" or "-Xlinker -r"). */
static bool vtcc_takes_value(const char *a)
{
	static const char *const with_value[] = {
	    "-o",	  "-x",	      "-I",	     "-L",
	    "-D",	  "-U",	      "-J",	     "-MF",
	    "-MT",	  "-MQ",      "-T",	     "-u",
	    "-z",	  "-Xlinker", "-Xassembler", "-Xpreprocessor",
	    "-Xclang",	  "-include", "-imacros",    "-isystem",
	    "-idirafter", "-iquote",  "-iprefix",    "-isysroot",
	    "-aux-info",  "--param",
	};

	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (!strcmp(a, with_value[i]))
			return true;
	return false;
}

/* Options after which the compiler only reports something and compiles nothing. */
static bool vtcc_is_info(const char *a)
{
	return !strcmp(a, "--version") || !strcmp(a, "-dumpversion") ||
	       !strcmp(a, "-dumpfullversion") || !strcmp(a, "-dumpmachine") ||
	       !strcmp(a, "-dumpspecs") || !strcmp(a, "--help") || !strncmp(a, "--help=", 7) ||
	       !strcmp(a, "--target-help") || !strncmp(a, "-print-", 7) ||
	       !strncmp(a, "--print-", 8);
}

/* Decides the step from the user's arguments, reading @files but passing them on as given. */
static enum vtcc_step vtcc_classify(const struct vtcc_argv *user, bool *is_static)
{
	struct vtcc_argv scan = {0};
	bool pre = false, dep = false, dep_compile = false, compile = false, info = false;

	for (size_t i = 0; i < user->n; i++) {
		const char *a = user->v[i];

		if (a[0] == '@' && vtcc_rsp_expand(a + 1, &scan, 1))
			continue;
		vtcc_argv_push(&scan, a);
	}
	*is_static = false;
	for (size_t i = 0; i < scan.n; i++) {
		const char *a = scan.v[i];

		if (a[0] != '-')
			continue;
		if (vtcc_takes_value(a)) {
			/* "cc a.c -o": the compiler says what is missing; vt adds nothing that
			 * the option could take for its value (it once took -L...). */
			if (i + 1 >= scan.n)
				return VTCC_STEP_INFO;
			i++;
			continue;
		}
		if (!strcmp(a, "-E"))
			pre = true;
		else if (!strcmp(a, "-M") || !strcmp(a, "-MM"))
			dep = true;
		else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
			dep_compile = true;
		else if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-fsyntax-only") ||
			 !strcmp(a, "-r"))
			compile = true;
		else if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
			*is_static = true;
		else if (vtcc_is_info(a))
			info = true;
	}
	/* "cc -v" alone prints the version; with inputs it is a verbose compile. */
	if (info || scan.n == 0 || (scan.n == 1 && !strcmp(scan.v[0], "-v")))
		return VTCC_STEP_INFO;
	if (pre || (dep && !dep_compile))
		return VTCC_STEP_PREPROCESS;
	return compile ? VTCC_STEP_COMPILE : VTCC_STEP_LINK;
}

static bool vtcc_llvm_name(const char *name)
{
	return strstr(name, "clang") || strstr(name, "flang");
}

/* Runs "CMD ARG" with stdin and stderr on /dev/null and returns the first size - 1 bytes of
 * its stdout in buf (empty if it could not run). */
static void vtcc_capture(const char *cmd, const char *arg, char *buf, size_t size)
{
	int fds[2];
	pid_t pid;
	size_t len = 0;
	int status;

	buf[0] = '\0';
	if (pipe(fds) != 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		close(fds[0]);
		close(fds[1]);
		execlp(cmd, cmd, arg, (char *)NULL);
		_exit(VTCC_EXIT_NOEXEC);
	}
	close(fds[1]);
	/* Read to the end (keeping the first part) so the child never blocks on a full pipe. */
	for (;;) {
		char chunk[4096];
		ssize_t got = read(fds[0], chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t take = (size_t)got < size - 1 - len ? (size_t)got : size - 1 - len;
		memcpy(buf + len, chunk, take);
		len += take;
	}
	close(fds[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Asks an MPI wrapper which compiler it runs: "--version" is passed through to it. */
static bool vtcc_version_says_llvm(const char *cmd)
{
	char buf[65536];

	vtcc_capture(cmd, "--version", buf, sizeof(buf));
	return strstr(buf, "clang") != NULL;
}

/* GCC and LLVM differ in the options vtcc adds. Decided from the names first (the command
 * and what it resolves to, e.g. cc -> clang), and only for MPI wrappers by running them. */
static enum vtcc_family vtcc_family(struct vtcc *d)
{
	const char *base = vtcc_basename(d->compiler);

	if (d->family != VTCC_FAMILY_UNKNOWN)
		return d->family;
	if (vtcc_llvm_name(base) ||
	    (d->compiler_path && vtcc_llvm_name(vtcc_basename(d->compiler_path))) ||
	    (!strncmp(base, "mpi", 3) && vtcc_version_says_llvm(d->compiler)))
		d->family = VTCC_FAMILY_LLVM;
	else
		d->family = VTCC_FAMILY_GNU;
	return d->family;
}

/* Whether a command name is one of the MPI compiler wrappers (mpicc, mpicxx, mpic++,
 * mpiCC, mpif77, mpif90, mpifort), with or without a suffix such as .openmpi or .mpich. */
static bool vtcc_mpi_wrapper_name(const char *base)
{
	static const char *const names[] = {"mpicc",  "mpicxx", "mpic++", "mpiCC",
					    "mpif77", "mpif90", "mpifort"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(base, names[i], n) && (!base[n] || base[n] == '.' || base[n] == '-'))
			return true;
	}
	return false;
}

/*
 * MPI mode and which of vt's MPI libraries matches the MPI (Open MPI and MPICH differ in
 * ABI). From the names first (the command, and what it resolves to: Debian's mpicc is a
 * link to mpicc.openmpi or mpicc.mpich through the alternatives), else by asking the
 * wrapper: Open MPI's answers -showme:version, MPICH's does not.
 */
static void vtcc_resolve_mpi(struct vtcc *d)
{
	const char *base = vtcc_basename(d->compiler);
	const char *real = d->compiler_path ? vtcc_basename(d->compiler_path) : base;
	bool wrapper = vtcc_mpi_wrapper_name(base) || vtcc_mpi_wrapper_name(real);

	d->mpi_lib = NULL;
	if (d->mpi_off) {
		d->mpi_why = "off (-vt:nompi)";
		return;
	}
	if (!d->mpi_on && !wrapper) {
		d->mpi_why = "off (not an MPI compiler wrapper; -vt:mpi turns it on)";
		return;
	}
	if (strstr(base, "mpich") || strstr(real, "mpich")) {
		d->mpi_lib = "vt-mpich";
	} else if (strstr(base, "openmpi") || strstr(real, "openmpi")) {
		d->mpi_lib = "vt-mpi";
	} else if (wrapper) {
		char buf[4096];
		vtcc_capture(d->compiler, "-showme:version", buf, sizeof(buf));
		d->mpi_lib = strstr(buf, "Open MPI") ? "vt-mpi" : "vt-mpich";
	} else {
		/* -vt:mpi with a plain compiler: Debian's default MPI. */
		d->mpi_lib = "vt-mpi";
	}
	d->mpi_why = d->mpi_on ? "on (-vt:mpi)" : "on (MPI compiler wrapper)";
}

static void vtcc_compinst_flags(struct vtcc *d, struct vtcc_argv *out)
{
	vtcc_argv_push(out, "-finstrument-functions");
	/* clang rejects the exclude list; gcc and gfortran use it to skip inline functions of
	 * system headers. */
	if (vtcc_family(d) == VTCC_FAMILY_GNU)
		vtcc_argv_push(out, "-finstrument-functions-exclude-file-list=/usr/include");
}

/* The compiler's version, as the plugins need it: gcc's full version (a GCC plugin loads only
 * into the GCC it was built for), clang's major version (an LLVM plugin links the libLLVM of
 * its major version). An MPI wrapper passes the option to the compiler it runs. */
static char *vtcc_compiler_version(struct vtcc *d, enum vtcc_family family)
{
	char buf[256];
	size_t n;

	/* Debian's (and apt.llvm.org's) clang is /usr/lib/llvm-N/bin/clang: its path says the
	 * major version, which saves running it (about 35 ms per compilation). */
	if (family == VTCC_FAMILY_LLVM && d->compiler_path) {
		const char *p = strstr(d->compiler_path, "/llvm-");

		if (p) {
			n = strspn(p + 6, "0123456789");
			if (n && n < sizeof(buf) && p[6 + n] == '/') {
				memcpy(buf, p + 6, n);
				buf[n] = '\0';
				return vtcc_xstrdup(buf);
			}
		}
	}
	vtcc_capture(d->compiler, family == VTCC_FAMILY_GNU ? "-dumpfullversion" : "-dumpversion",
		     buf, sizeof(buf));
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	if (family == VTCC_FAMILY_LLVM)
		buf[strcspn(buf, ".")] = '\0';
	return vtcc_xstrdup(buf);
}

static char *vtcc_plugin_path(const struct vtcc *d, const struct vtcc_inst *p)
{
	return vtcc_xasprintf("%s/%s", d->plugindir, p->plugin_file);
}

/* Why plugin p cannot instrument for this compiler, or NULL when it can. */
static const char *vtcc_plugin_problem(struct vtcc *d, const struct vtcc_inst *p)
{
	const char *kind = p->plugin_family == VTCC_FAMILY_GNU ? "GCC" : "LLVM";
	const char *cc = p->plugin_family == VTCC_FAMILY_GNU ? "gcc" : "clang";
	char *path, *version;

	if (!*p->built_for)
		return vtcc_xasprintf("vt was built without its %s plugin", kind);
	path = vtcc_plugin_path(d, p);
	if (access(path, R_OK) != 0)
		return vtcc_xasprintf("vt's %s plugin %s is missing", kind, path);
	if (vtcc_family(d) != p->plugin_family)
		return vtcc_xasprintf("vt's %s plugin needs %s, and '%s' is not %s", kind, cc,
				      d->compiler, cc);
	version = vtcc_compiler_version(d, p->plugin_family);
	if (!*version)
		return vtcc_xasprintf("vt's %s plugin is for %s %s, and '%s' does not tell its "
				      "version (%s)",
				      kind, cc, p->built_for, d->compiler,
				      p->plugin_family == VTCC_FAMILY_GNU ? "-dumpfullversion"
									  : "-dumpversion");
	if (strcmp(version, p->built_for) != 0)
		return vtcc_xasprintf("vt's %s plugin is for %s %s, and '%s' is version %s", kind,
				      cc, p->built_for, d->compiler, version);
	return NULL;
}

/* Decides the default method for this compiler, checks an explicit plugin, and that the
 * plugin options have a plugin to go to. Runs the compiler once (its version) when a plugin
 * is in question; nothing for manual, none or compinst. */
static void vtcc_resolve_inst(struct vtcc *d)
{
	const char *why = NULL;

	if (d->inst == VTCC_INST_AUTO) {
		const struct vtcc_inst *plugin = NULL;

		for (size_t i = 0; i < VTCC_NINSTS && !plugin; i++)
			if (vtcc_insts[i].plugin_file &&
			    vtcc_insts[i].plugin_family == vtcc_family(d))
				plugin = &vtcc_insts[i];
		why = plugin ? vtcc_plugin_problem(d, plugin) : "no plugin for this compiler";
		d->inst = why ? VTCC_INST_COMPINST : plugin;
		d->fallback = why;
	} else if (d->inst->plugin_file) {
		why = vtcc_plugin_problem(d, d->inst);
		if (why)
			vtcc_die(VTCC_EXIT_USAGE, "-vt:inst %s: %s; use -vt:inst compinst",
				 d->inst->name, why);
	}
	if (d->plugin_option && !d->inst->plugin_file)
		vtcc_die(VTCC_EXIT_USAGE,
			 "%s needs a compiler plugin (-vt:inst gcc or llvm), and the method is "
			 "%s%s%s%s",
			 d->plugin_option, d->inst->name, why ? " (" : "", why ? why : "",
			 why ? ")" : "");
}

static void vtcc_gcc_flags(struct vtcc *d, struct vtcc_argv *out)
{
	/* GCC takes the plugin's name up to the first '-' of -fplugin-arg-NAME-KEY, hence
	 * vt_gcc; and it refuses a second '=' in the value. */
	vtcc_argv_push(out, vtcc_xasprintf("-fplugin=%s", vtcc_plugin_path(d, d->inst)));
	if (d->filter && strchr(d->filter, '='))
		vtcc_die(VTCC_EXIT_USAGE,
			 "-vt:filter %s: GCC cannot pass a path with '=' to a "
			 "plugin; rename or link the file",
			 d->filter);
	if (d->filter)
		vtcc_argv_push(out, vtcc_xasprintf("-fplugin-arg-vt_gcc-filter=%s", d->filter));
	if (d->min_insns)
		vtcc_argv_push(out,
			       vtcc_xasprintf("-fplugin-arg-vt_gcc-min-insns=%s", d->min_insns));
	if (d->inline_mode)
		vtcc_argv_push(out,
			       vtcc_xasprintf("-fplugin-arg-vt_gcc-inline=%s", d->inline_mode));
}

/* The -isystem directories of the command line (absolute), which the LLVM plugin cannot
 * see in LLVM IR: GCC's plugin knows a declaration's system-header status by itself. */
static void vtcc_system_dirs(const struct vtcc *d, struct vtcc_argv *dirs)
{
	struct vtcc_argv scan = {0};

	for (size_t i = 0; i < d->user.n; i++) {
		const char *a = d->user.v[i];

		if (a[0] == '@' && vtcc_rsp_expand(a + 1, &scan, 1))
			continue;
		vtcc_argv_push(&scan, a);
	}
	for (size_t i = 0; i < scan.n; i++) {
		const char *dir = NULL;
		char *abs;

		if (!strcmp(scan.v[i], "-isystem") && i + 1 < scan.n)
			dir = scan.v[++i];
		else if (!strncmp(scan.v[i], "-isystem", 8) && scan.v[i][8])
			dir = scan.v[i] + 8;
		if (dir && (abs = realpath(dir, NULL)))
			vtcc_argv_push(dirs, abs);
	}
}

/*
 * What clang needs besides the plugin itself:
 * - -finstrument-functions only marks the functions clang would instrument, leaving out
 *   no_instrument_function ones and those it makes itself, which LLVM IR has no other
 *   trace of; the plugin runs first, takes the marks over and removes them, so clang's own
 *   instrumentation finds nothing to do;
 * - -Rpass with a pattern no pass has turns on clang's location tracking (debug metadata
 *   that is never emitted): without -g the plugin then still knows each function's file
 *   and line, whether it comes from a system header, and whether it is artificial;
 * - options: clang parses -mllvm options before it loads -fpass-plugin plugins, so a plugin
 *   with options is loaded early too (-load), and its options exist by then.
 * What goes to clang's cc1 goes through -Xclang, which the driver does not call unused in a
 * step that only links.
 */
static void vtcc_llvm_flags(struct vtcc *d, struct vtcc_argv *out)
{
	char *path = vtcc_plugin_path(d, d->inst);
	const char *opts[3] = {NULL, NULL, NULL};
	struct vtcc_argv sysdirs = {0};

	vtcc_argv_push(out, "-finstrument-functions");
	vtcc_argv_push(out, vtcc_xasprintf("-fpass-plugin=%s", path));
	vtcc_argv_push(out, "-Xclang");
	vtcc_argv_push(out, "-Rpass=^vt-locations$");
	if (d->filter)
		opts[0] = vtcc_xasprintf("-vt-filter=%s", d->filter);
	if (d->min_insns)
		opts[1] = vtcc_xasprintf("-vt-min-insns=%s", d->min_insns);
	if (d->inline_mode)
		opts[2] = vtcc_xasprintf("-vt-inline=%s", d->inline_mode);
	vtcc_system_dirs(d, &sysdirs);
	if (!opts[0] && !opts[1] && !opts[2] && !sysdirs.n)
		return;
	vtcc_argv_push(out, "-Xclang");
	vtcc_argv_push(out, "-load");
	vtcc_argv_push(out, "-Xclang");
	vtcc_argv_push(out, path);
	for (size_t i = 0; i < 3 + sysdirs.n; i++) {
		const char *opt =
		    i < 3 ? opts[i] : vtcc_xasprintf("-vt-system-dir=%s", sysdirs.v[i - 3]);

		if (!opt)
			continue;
		vtcc_argv_push(out, "-Xclang");
		vtcc_argv_push(out, "-mllvm");
		vtcc_argv_push(out, "-Xclang");
		vtcc_argv_push(out, opt);
	}
}

/* A vtcc in its own build directory uses the build tree's runtime, any other the installed
 * one (moved along with vtcc's prefix: vtcc_dirs.h); so an installed vtcc works from any
 * directory and a build-tree one needs no install. */
static void vtcc_locate_runtime(struct vtcc *d)
{
	struct vtcc_dirs dirs;

	vtcc_dirs_find(d->self, &dirs);
	d->in_build_tree = dirs.in_build_tree;
	d->moved = dirs.moved;
	d->incdir = dirs.incdir;
	d->libdir = dirs.libdir;
	d->plugindir = dirs.plugindir;
	d->gompdir = dirs.gompdir;
}

/* What the preprocessor needs to see the same source as the compile step: tools that
 * preprocess first (ccache, distcc, dependency scanners) then agree with it. */
static void vtcc_preprocess_flags(struct vtcc *d, struct vtcc_argv *out)
{
	vtcc_argv_push(out, vtcc_xasprintf("-I%s", d->incdir));
	if (d->inst->vtrace)
		vtcc_argv_push(out, "-DVTRACE");
}

static void vtcc_compile_flags(struct vtcc *d, struct vtcc_argv *out)
{
	vtcc_resolve_inst(d);
	vtcc_preprocess_flags(d, out);
	if (d->inst->compile_flags)
		d->inst->compile_flags(d, out);
	if (d->mt)
		vtcc_argv_push(out, "-pthread");
}

static void vtcc_link_flags(struct vtcc *d, struct vtcc_argv *out)
{
	vtcc_argv_push(out, vtcc_xasprintf("-L%s", d->libdir));
	vtcc_argv_push(out, vtcc_xasprintf("-Wl,-rpath,%s", d->libdir));
	/* Programs instrumented only by the compiler reference libvt through hooks the linker
	 * may not count as a need; keep libvt regardless, and leave the user's --as-needed
	 * setting as it was for what follows. */
	vtcc_argv_push(out, "-Wl,--push-state,--no-as-needed");
	/* The MPI wrappers come first: they call into libvt. */
	vtcc_resolve_mpi(d);
	if (d->mpi_lib)
		vtcc_argv_push(out, vtcc_xasprintf("-l%s", d->mpi_lib));
	vtcc_argv_push(out, "-lvt");
	vtcc_argv_push(out, "-Wl,--pop-state");
	if (d->mt)
		vtcc_argv_push(out, "-pthread");
	struct vtcc_omp_link omp =
	    vtcc_omp_decide(&d->user, vtcc_family(d) == VTCC_FAMILY_GNU, d->omp);
	vtcc_omp_link_flags(&omp, d->gompdir, out);
}

static void vtcc_print_version(struct vtcc *d)
{
	printf("%s (vt) %s\n", vtcc_prog, VTCC_VERSION);
	printf("%s compiler: %s", d->lang->name, d->compiler);
	if (d->compiler_path && strcmp(d->compiler_path, d->compiler))
		printf(" (%s)", d->compiler_path);
	else if (!d->compiler_path)
		printf(" (not found)");
	printf("\nruntime: %s (%s)\n", d->libdir,
	       d->in_build_tree ? "build tree"
	       : d->moved	? "installed, moved"
				: "installed");
	vtcc_resolve_inst(d);
	printf("instrumentation: %s", d->inst->name);
	if (d->inst->plugin_file) {
		char *path = vtcc_plugin_path(d, d->inst);
		printf(" (plugin %s)", path);
		free(path);
	}
	if (d->fallback)
		printf(" (no plugin: %s)", d->fallback);
	printf("\n");
	vtcc_resolve_mpi(d);
	printf("MPI: %s", d->mpi_why);
	if (d->mpi_lib)
		printf(", links lib%s.so", d->mpi_lib);
	if (vtcc_family(d) == VTCC_FAMILY_LLVM)
		printf("\nOpenMP: the compiler's (clang -fopenmp links libomp)\n");
	else if (d->omp == VTCC_OMP_LIBGOMP || !*vtcc_omp_libomp())
		printf("\nOpenMP: libgomp (%s): no OpenMP events\n",
		       *vtcc_omp_libomp() ? "chosen" : "vt was built without libomp");
	else
		printf("\nOpenMP: -fopenmp links %s in place of libgomp\n", vtcc_omp_libomp());
}

/*
 * "ccache gcc", "distcc cc": words before the last are a launcher that runs the compiler,
 * the last word is the compiler (its family and plugins decide vt's flags). Words are
 * separated by blanks; quotes are not interpreted, so a compiler path with blanks cannot
 * have a launcher.
 */
static void vtcc_split_launcher(struct vtcc *d)
{
	if (!strpbrk(d->compiler, " \t"))
		return;
	char *copy = vtcc_xasprintf("%s", d->compiler);
	char *last = NULL;
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (last)
			vtcc_argv_push(&d->launcher, last);
		last = w;
	}
	if (!last)
		vtcc_die(VTCC_EXIT_USAGE, "the %s compiler command '%s' has no word", d->lang->name,
			 d->compiler);
	d->compiler = last;
}

int main(int argc, char **argv)
{
	struct vtcc d = {0};
	struct vtcc_argv cmd = {0};
	enum vtcc_step step;
	const char *env;
	bool is_static;

	if (argc > 0 && argv[0] && *argv[0])
		vtcc_prog = vtcc_basename(argv[0]);
	d.lang = vtcc_lang_of(vtcc_prog);
	d.inst = &vtcc_insts[0];
	env = getenv(d.lang->env);
	d.compiler = env && *env ? env : d.lang->compiler;
	env = getenv("VT_OPENMP_RUNTIME");
	d.omp = env && *env ? vtcc_omp_parse("VT_OPENMP_RUNTIME", env) : VTCC_OMP_LIBOMP;
	if (d.omp == VTCC_OMP_LIBOMP && !*vtcc_omp_libomp())
		d.omp = VTCC_OMP_LIBGOMP;

	vtcc_parse(&d, argc, argv);
	vtcc_split_launcher(&d);
	if (d.mpi_on && d.mpi_off)
		vtcc_die(VTCC_EXIT_USAGE, "-vt:mpi and -vt:nompi contradict each other; give one");
	if (d.help) {
		vtcc_usage(&d);
		return 0;
	}

	d.self = realpath("/proc/self/exe", NULL);
	d.compiler_path = vtcc_which(d.compiler);
	vtcc_locate_runtime(&d);
	if (d.version) {
		vtcc_print_version(&d);
		return 0;
	}
	if (d.self && d.compiler_path && !strcmp(d.self, d.compiler_path))
		vtcc_die(VTCC_EXIT_USAGE,
			 "the %s compiler '%s' is %s itself; name a real compiler with %s or %s",
			 d.lang->name, d.compiler, vtcc_prog, d.lang->env, d.lang->option);

	step = vtcc_classify(&d.user, &is_static);
	if (step == VTCC_STEP_LINK && is_static) {
		char *archive = vtcc_xasprintf("%s/libvt.a", d.libdir);

		if (access(archive, R_OK) != 0)
			vtcc_die(VTCC_EXIT_USAGE,
				 "-static needs a static vt runtime, but %s does not exist; "
				 "link without -static",
				 archive);
		free(archive);
	}

	vtcc_argv_append(&cmd, &d.launcher);
	vtcc_argv_push(&cmd, d.compiler);
	if (step >= VTCC_STEP_COMPILE)
		vtcc_compile_flags(&d, &cmd);
	else if (step == VTCC_STEP_PREPROCESS)
		vtcc_preprocess_flags(&d, &cmd);
	vtcc_argv_append(&cmd, &d.user);
	if (step == VTCC_STEP_LINK)
		vtcc_link_flags(&d, &cmd);

	if (d.show) {
		vtcc_print_command(stdout, &cmd);
		return ferror(stdout) ? 1 : 0;
	}
	if (d.verbose)
		vtcc_print_command(stderr, &cmd);
	fflush(stdout);
	execvp(cmd.v[0], (char *const *)cmd.v);
	if (d.launcher.n)
		vtcc_die(VTCC_EXIT_NOEXEC,
			 "cannot run '%s', the launcher of the %s compiler %s: %s", cmd.v[0],
			 d.lang->name, d.compiler, strerror(errno));
	vtcc_die(VTCC_EXIT_NOEXEC, "cannot run the %s compiler '%s': %s", d.lang->name, d.compiler,
		 strerror(errno));
}
