/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vtrun: runs a program nobody rebuilt with vt's runtime preloaded. libvt records what needs
 * no compiler (the user API and perfstubs of its libraries, counter plugins, PAPI, rusage,
 * samples)
 * and, for a program linked with MPI, libvt-mpi (Open MPI) or libvt-mpich records its MPI
 * calls: mpirun -np 4 vtrun ./app. -vt:NAME VALUE sets VT_NAME for the run.
 *
 * When the program cannot be traced this way (statically linked, setuid, the runtime
 * missing) vtrun says so in one line and runs it untouched: vtrun never stops a program
 * from running. Its exit status is the program's (127 when it cannot be started).
 */
#include "base/vt_config.h"
#include "vtcc_paths.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_head[] =
    "Usage: vtrun [-vt:OPTION VALUE]... [--] PROGRAM [ARGS]...\n"
    "Runs PROGRAM with vt's runtime preloaded (libvt, and libvt-mpi or libvt-mpich\n"
    "when PROGRAM links MPI): its MPI calls, the user API and perfstubs of its\n"
    "libraries, counter plugins, PAPI and rusage counters are traced, without\n"
    "rebuilding it; with -vt:sampling yes, call-path samples of every thread.\n"
    "Under MPI: mpirun -np 4 vtrun ./app.\n"
    "\n"
    "Options (each sets the variable of docs/environment.md for this run):\n";

static const char usage_tail[] =
    "  --help          print this help\n"
    "  --version       print the version\n"
    "\n"
    "A statically linked or setuid PROGRAM cannot have a library preloaded: vtrun says\n"
    "so and runs it untraced. Exit status: PROGRAM's; 127 when it cannot be started;\n"
    "2 on a usage error.\n";

/* "-vt:buffer-size" for VT_BUFFER_SIZE; NULL for variables that are not VT_*. */
static const char *option_of(const char *var, char *buf, size_t size)
{
	if (strncmp(var, "VT_", 3) != 0)
		return NULL;
	size_t n = (size_t)snprintf(buf, size, "-vt:");
	for (const char *c = var + 3; *c && n + 1 < size; c++)
		buf[n++] = *c == '_' ? '-' : (char)tolower((unsigned char)*c);
	buf[n] = '\0';
	return buf;
}

static void usage(FILE *f)
{
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	fputs(usage_head, f);
	for (size_t i = 0; i < n; i++) {
		char opt[128];
		if (option_of(t[i].name, opt, sizeof(opt)))
			fprintf(f, "  %-34s %s (e.g. %s)\n", opt, t[i].name, t[i].example);
	}
	fputs(usage_tail, f);
}

/* The VT_* variable of option -vt:NAME, or NULL. */
static const char *var_of(const char *opt)
{
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	for (size_t i = 0; i < n; i++) {
		char o[128];
		if (option_of(t[i].name, o, sizeof(o)) && strcmp(o, opt) == 0)
			return t[i].name;
	}
	return NULL;
}

/* PROGRAM as execvp would find it, or NULL. */
static char *find_program(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? strdup(prog) : NULL;
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	char *found = NULL;
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char full[PATH_MAX];
		snprintf(full, sizeof(full), "%s/%s", *d ? d : ".", prog);
		if (access(full, X_OK) == 0)
			found = strdup(full);
	}
	free(copy);
	return found;
}

struct program_kind {
	bool elf, dynamic;
	const char *mpi; /* "vt-mpi" (Open MPI), "vt-mpich", or NULL */
};

/* Reads what matters of the program's ELF headers: dynamic (an interpreter), and the MPI
 * library it needs directly. */
static struct program_kind inspect(const char *path)
{
	struct program_kind k = {false, false, NULL};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return k;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nph) == 0) {
		k.elf = true;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				k.dynamic = true;
		}
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
				continue;
			Elf_Data *data = elf_getdata(scn, NULL);
			for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Dyn d;
				if (!gelf_getdyn(data, (int)i, &d) || d.d_tag != DT_NEEDED)
					continue;
				const char *s = elf_strptr(elf, sh.sh_link, d.d_un.d_val);
				if (s && strncmp(s, "libmpich", 8) == 0)
					k.mpi = "vt-mpich";
				else if (s && !k.mpi && strncmp(s, "libmpi.so", 9) == 0)
					k.mpi = "vt-mpi";
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return k;
}

/* The runtime's directory: the build tree's for a vtrun of the build tree, else the
 * installed one (as vtcc decides). */
static const char *runtime_dir(void)
{
	char *self = realpath("/proc/self/exe", NULL), *build = realpath(VTCC_BUILD_DIR, NULL);
	bool in_build = false;
	if (self && build) {
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		in_build = strcmp(self, build) == 0;
	}
	free(self);
	free(build);
	return in_build ? VTCC_BUILD_LIBDIR : VTCC_INSTALL_LIBDIR;
}

static int run_untouched(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "vtrun: cannot start %s: %s\n", argv[0], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "--version") == 0) {
			printf("vtrun (vt) %s\n", VTCC_VERSION);
			return 0;
		}
		if (strncmp(a, "-vt:", 4) != 0)
			break;
		const char *var = var_of(a);
		if (!var) {
			fprintf(stderr, "vtrun: unknown option '%s' (vtrun --help lists them)\n",
				a);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "vtrun: %s needs a value (the value of %s)\n", a, var);
			return 2;
		}
		setenv(var, argv[++i], 1);
	}
	if (i >= argc) {
		fprintf(stderr, "vtrun: no program given (vtrun --help)\n");
		return 2;
	}
	char **prog = argv + i;
	char *path = find_program(prog[0]);
	if (!path) {
		fprintf(stderr, "vtrun: %s: no such program (or not executable)\n", prog[0]);
		return 127;
	}
	struct stat st;
	struct program_kind k = inspect(path);
	const char *why = NULL;
	if (stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		why = "is setuid or setgid: the loader ignores LD_PRELOAD for it";
	else if (k.elf && !k.dynamic)
		why = "is statically linked: no library can be preloaded into it";
	const char *dir = runtime_dir();
	char vt[PATH_MAX], mpi[PATH_MAX] = "";
	snprintf(vt, sizeof(vt), "%s/libvt.so", dir);
	if (!why && access(vt, R_OK) != 0)
		why = "cannot be traced: vt's runtime libvt.so is missing";
	if (!why && k.mpi) {
		snprintf(mpi, sizeof(mpi), "%s/lib%s.so", dir, k.mpi);
		if (access(mpi, R_OK) != 0) {
			fprintf(stderr,
				"vtrun: %s links %s, but %s is missing: its MPI calls are not "
				"traced\n",
				path, strcmp(k.mpi, "vt-mpi") == 0 ? "Open MPI" : "MPICH", mpi);
			mpi[0] = '\0';
		}
	}
	if (why) {
		fprintf(stderr, "vtrun: %s %s; running it untraced\n", path, why);
		free(path);
		return run_untouched(prog);
	}
	if (!k.elf)
		fprintf(stderr,
			"vtrun: %s is not an ELF program (a script?): libvt is preloaded into it "
			"and into what it starts\n",
			path);
	/* libvt-mpi first: its MPI functions come before the MPI library's. */
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(vt) + strlen(mpi) + (old ? strlen(old) : 0) + 3;
	char *preload = malloc(len);
	if (!preload)
		return run_untouched(prog);
	snprintf(preload, len, "%s%s%s%s%s", mpi, *mpi ? ":" : "", vt, old && *old ? ":" : "",
		 old && *old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	execv(path, prog);
	fprintf(stderr, "vtrun: cannot start %s: %s\n", path, strerror(errno));
	free(path);
	return 127;
}
