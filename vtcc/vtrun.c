/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vtrun: runs a program nobody rebuilt with vt's runtime preloaded. libvt records what needs
 * no compiler (the user API and perfstubs of its libraries, counter plugins, PAPI, rusage,
 * samples)
 * and, for a program linked with MPI, libvt-mpi (Open MPI) or libvt-mpich records its MPI
 * calls: mpirun -np 4 vtrun ./app. -vt:NAME VALUE sets VT_NAME for the run. A program that
 * needs GCC's libgomp (no OMPT) gets LLVM's libomp preloaded in its place, when libomp has
 * every function the program takes from libgomp (VT_OPENMP_RUNTIME=libgomp keeps libgomp).
 *
 * When the program cannot be traced this way (statically linked, setuid, the runtime
 * missing) vtrun says so in one line and runs it untouched: vtrun never stops a program
 * from running. Its exit status is the program's (127 when it cannot be started).
 */
#include "base/vt_config.h"
#include "vtcc_dirs.h"
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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_head[] =
    "Usage: vtrun [-vt:OPTION VALUE]... [--] PROGRAM [ARGS]...\n"
    "Runs PROGRAM with vt's runtime preloaded (libvt, and libvt-mpi or libvt-mpich\n"
    "when PROGRAM links MPI): its MPI calls, the user API and perfstubs of its\n"
    "libraries, counter plugins, PAPI and rusage counters are traced, without\n"
    "rebuilding it; with -vt:sampling yes, call-path samples of every thread.\n"
    "An OpenMP program built with gcc (libgomp, which has no OMPT) gets LLVM's libomp\n"
    "preloaded, when it has every libgomp function PROGRAM uses, so that its OpenMP\n"
    "events are recorded; -vt:openmp-runtime libgomp keeps libgomp (docs/openmp.md).\n"
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
	bool gomp;	 /* needs GCC's libgomp */
	bool omp;	 /* needs an OpenMP runtime with OMPT (LLVM's libomp, Intel's libiomp5) */
};

/* Reads what matters of the program's ELF headers: dynamic (an interpreter), and the MPI
 * library it needs directly. */
static struct program_kind inspect(const char *path)
{
	struct program_kind k = {false, false, NULL, false, false};
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
				else if (s && strncmp(s, "libgomp.so", 10) == 0)
					k.gomp = true;
				else if (s && (strncmp(s, "libomp.so", 9) == 0 ||
					       strncmp(s, "libiomp5.so", 11) == 0))
					k.omp = true;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return k;
}

/* Strings "name@version" ("name@" unversioned), unsorted: a few hundred at most. */
struct symset {
	char **v;
	size_t n, cap;
};

static void symset_add(struct symset *s, const char *name, const char *ver)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		char **v = realloc(s->v, s->cap * sizeof(*v));
		if (!v)
			return;
		s->v = v;
	}
	size_t len = strlen(name) + strlen(ver) + 2;
	if ((s->v[s->n] = malloc(len)))
		snprintf(s->v[s->n++], len, "%s@%s", name, ver);
}

static bool symset_has(const struct symset *s, const char *sym)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], sym) == 0)
			return true;
	return false;
}

#define VER_MAX 1024

/*
 * The dynamic symbols of the ELF file at path, with their versions: those it defines
 * (need == NULL), or those it takes from the library whose name starts with need (the
 * version requirements name the library). Returns false when path is no readable ELF file.
 */
static bool elf_symbols(const char *path, const char *need, struct symset *out)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	const char *ver[VER_MAX] = {0}, *file[VER_MAX] = {0};
	Elf_Data *syms = NULL, *versym = NULL;
	size_t symlink = 0, nsyms = 0;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!gelf_getshdr(scn, &sh) || !d)
			continue;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			syms = d;
			symlink = sh.sh_link;
			nsyms = sh.sh_size / sh.sh_entsize;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versym = d;
		} else if (sh.sh_type == SHT_GNU_verdef) {
			GElf_Verdef vd;
			GElf_Verdaux va;
			for (size_t off = 0; gelf_getverdef(d, (int)off, &vd); off += vd.vd_next) {
				if (vd.vd_ndx < VER_MAX &&
				    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
					ver[vd.vd_ndx] = elf_strptr(elf, sh.sh_link, va.vda_name);
				if (!vd.vd_next)
					break;
			}
		} else if (sh.sh_type == SHT_GNU_verneed) {
			GElf_Verneed vn;
			GElf_Vernaux va;
			for (size_t off = 0; gelf_getverneed(d, (int)off, &vn); off += vn.vn_next) {
				const char *f = elf_strptr(elf, sh.sh_link, vn.vn_file);
				size_t a = off + vn.vn_aux;
				for (unsigned i = 0;
				     i < vn.vn_cnt && gelf_getvernaux(d, (int)a, &va);
				     i++, a += va.vna_next) {
					if (va.vna_other < VER_MAX) {
						ver[va.vna_other] =
						    elf_strptr(elf, sh.sh_link, va.vna_name);
						file[va.vna_other] = f;
					}
					if (!va.vna_next)
						break;
				}
				if (!vn.vn_next)
					break;
			}
		}
	}
	for (size_t i = 0; syms && i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Versym vs = 0;
		if (!gelf_getsym(syms, (int)i, &sym) || !sym.st_name)
			continue;
		if (versym)
			gelf_getversym(versym, (int)i, &vs);
		unsigned idx = vs & 0x7fff;
		const char *name = elf_strptr(elf, symlink, sym.st_name);
		const char *v = idx < VER_MAX && ver[idx] ? ver[idx] : "";
		if (!name)
			continue;
		if (!need && sym.st_shndx != SHN_UNDEF)
			symset_add(out, name, v);
		else if (need && sym.st_shndx == SHN_UNDEF && idx < VER_MAX && file[idx] &&
			 strncmp(file[idx], need, strlen(need)) == 0)
			symset_add(out, name, v);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return elf != NULL;
}

/*
 * Whether LLVM's libomp can stand in for libgomp under the program at path: it must define
 * everything the program takes from libgomp, with the same version (a symbol it lacks would
 * still come from libgomp, and two runtimes would share one team). Else *missing gets the
 * first symbol it lacks.
 */
static bool libomp_covers(const char *path, char *missing, size_t size)
{
	struct symset want = {0}, have = {0};
	bool ok = elf_symbols(path, "libgomp.so", &want) && elf_symbols(VTCC_LIBOMP, NULL, &have);
	snprintf(missing, size, "%s", ok ? "" : "(its symbols cannot be read)");
	for (size_t i = 0; ok && i < want.n; i++)
		if (!symset_has(&have, want.v[i])) {
			snprintf(missing, size, "%s", want.v[i]);
			ok = false;
		}
	for (size_t i = 0; i < want.n; i++)
		free(want.v[i]);
	for (size_t i = 0; i < have.n; i++)
		free(have.v[i]);
	free(want.v);
	free(have.v);
	return ok;
}

/* The OpenMP runtime VT_OPENMP_RUNTIME (or -vt:openmp-runtime) asks for: true for libomp
 * (the default), false for libgomp; -1 for a value that is neither. */
static int want_libomp(void)
{
	const char *v = getenv("VT_OPENMP_RUNTIME");
	if (!v || !*v || strcmp(v, "libomp") == 0)
		return 1;
	return strcmp(v, "libgomp") == 0 ? 0 : -1;
}

/* Kokkos loads the tool library its variables name (KOKKOS_TOOLS_LIBS from Kokkos 4 on,
 * KOKKOS_PROFILE_LIBRARY before): naming the preloaded libvt, the loader hands Kokkos that
 * copy. A tool the user named stays; VT_KOKKOS=no names none. */
static void kokkos_tool(const char *libvt)
{
	static const char *const no[] = {"no", "false", "off", "0"};
	const char *v = getenv("VT_KOKKOS");
	for (size_t i = 0; v && i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(v, no[i]) == 0)
			return;
	const char *tools = getenv("KOKKOS_TOOLS_LIBS"),
		   *profile = getenv("KOKKOS_PROFILE_LIBRARY");
	if ((tools && *tools) || (profile && *profile))
		return;
	setenv("KOKKOS_TOOLS_LIBS", libvt, 1);
	setenv("KOKKOS_PROFILE_LIBRARY", libvt, 1);
}

/* The runtime's directory: the build tree's for a vtrun of the build tree, else the
 * installed one, moved along with vtrun's prefix (as vtcc decides: vtcc_dirs.h). */
static const char *runtime_dir(void)
{
	char *self = realpath("/proc/self/exe", NULL);
	struct vtcc_dirs dirs;

	vtcc_dirs_find(self, &dirs);
	free(self);
	return dirs.libdir;
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
	/* The libraries by their sonames: what the runtime package (libvt0) holds, without the
	 * development links. */
	snprintf(vt, sizeof(vt), "%s/libvt.so.0", dir);
	if (!why && access(vt, R_OK) != 0)
		why = "cannot be traced: vt's runtime libvt.so.0 is missing";
	if (!why && k.mpi) {
		snprintf(mpi, sizeof(mpi), "%s/lib%s.so.0", dir, k.mpi);
		if (access(mpi, R_OK) != 0) {
			fprintf(stderr,
				"vtrun: %s links %s, but %s is missing: its MPI calls are not "
				"traced\n",
				path, strcmp(k.mpi, "vt-mpi") == 0 ? "Open MPI" : "MPICH", mpi);
			mpi[0] = '\0';
		}
	}
	/* A program built with gcc -fopenmp needs libgomp, which has no OMPT: LLVM's libomp,
	 * preloaded, takes its place when it has everything the program uses of it. */
	const char *omp = "";
	char missing[256];
	int libomp = want_libomp();
	if (libomp < 0) {
		fprintf(stderr, "vtrun: VT_OPENMP_RUNTIME='%s': expected libomp or libgomp\n",
			getenv("VT_OPENMP_RUNTIME"));
		return 2;
	}
	if (!why && k.gomp && !k.omp && libomp && *VTCC_LIBOMP) {
		if (libomp_covers(path, missing, sizeof(missing)))
			omp = VTCC_LIBOMP;
		else
			fprintf(stderr,
				"vtrun: %s uses %s of libgomp, which LLVM's libomp lacks: it runs "
				"on libgomp, without OpenMP events\n",
				path, missing);
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
	size_t len = strlen(vt) + strlen(mpi) + strlen(omp) + (old ? strlen(old) : 0) + 4;
	char *preload = malloc(len);
	if (!preload)
		return run_untouched(prog);
	snprintf(preload, len, "%s%s%s%s%s%s%s", mpi, *mpi ? ":" : "", vt, *omp ? ":" : "", omp,
		 old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	kokkos_tool(vt);
	execv(path, prog);
	fprintf(stderr, "vtrun: cannot start %s: %s\n", path, strerror(errno));
	free(path);
	return 127;
}
