/* SPDX-License-Identifier: BSD-3-Clause */
/* Name resolution with elfutils, off the hot path, once per address. */
#include "regions/vt_symbols.h"
#include "base/vt_log.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODULES 4096

/* A compilation unit's address range, for modules without .debug_aranges (clang's). */
struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};

struct module {
	char *path;
	struct cu_range *cus; /* sorted by lo; built on the first miss */
	size_t n_cus;
	int cus_built;
	uintptr_t bias;	  /* link_map l_addr: load address minus link-time address */
	uintptr_t lo, hi; /* range the module covers, to skip dladdr for later addresses */
	Dwfl_Module *dwfl_mod;
	int reported;
};

/*
 * elfutils is loaded when the first name is resolved, not with libvt: a run whose trace has
 * no address to name (an empty program, or one instrumented by the plugins with names
 * compiled in) never maps libdw, libelf and their compression libraries, nor relocates them.
 * The functions used, looked up once; each call below goes through this table (the macros
 * after it).
 */
#define VT_DW_FUNCS(X)                                                                             \
	X(dwarf_attr_integrate)                                                                    \
	X(dwarf_decl_file)                                                                         \
	X(dwarf_decl_line)                                                                         \
	X(dwarf_diename)                                                                           \
	X(dwarf_filesrc)                                                                           \
	X(dwarf_formudata)                                                                         \
	X(dwarf_getscopes)                                                                         \
	X(dwarf_getsrc_die)                                                                        \
	X(dwarf_getsrcfiles)                                                                       \
	X(dwarf_lineno)                                                                            \
	X(dwarf_linesrc)                                                                           \
	X(dwarf_nextcu)                                                                            \
	X(dwarf_offdie)                                                                            \
	X(dwarf_ranges)                                                                            \
	X(dwarf_srclang)                                                                           \
	X(dwarf_tag)                                                                               \
	X(dwfl_begin)                                                                              \
	X(dwfl_build_id_find_debuginfo)                                                            \
	X(dwfl_build_id_find_elf)                                                                  \
	X(dwfl_end)                                                                                \
	X(dwfl_errmsg)                                                                             \
	X(dwfl_module_addrdie)                                                                     \
	X(dwfl_module_addrinfo)                                                                    \
	X(dwfl_module_addrname)                                                                    \
	X(dwfl_module_getdwarf)                                                                    \
	X(dwfl_offline_section_address)                                                            \
	X(dwfl_report_begin_add)                                                                   \
	X(dwfl_report_elf)                                                                         \
	X(dwfl_report_end)                                                                         \
	X(dwfl_standard_find_debuginfo)

/* elfutils' library by its soname (stable since elfutils 0.1xx). */
#define VT_LIBDW "libdw.so.1"

#define VT_DW_MEMBER(f) __typeof__(f) *f;
struct dw_fns {
	VT_DW_FUNCS(VT_DW_MEMBER)
};

static struct {
	struct module modules[MAX_MODULES];
	int n_modules;
	Dwfl *dwfl;
	int dw_state; /* 0 not tried, 1 loaded, -1 not loadable */
	struct dw_fns dw;
	Dwfl_Callbacks callbacks; /* elfutils keeps the pointer as long as the Dwfl lives */
} elf;

/* Loads elfutils on the first call; false (said once) when it cannot be. */
static bool dw_load(void)
{
	if (elf.dw_state)
		return elf.dw_state > 0;
	elf.dw_state = -1;
	void *lib = dlopen(VT_LIBDW, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		vt_info("no function names: cannot load %s: %s", VT_LIBDW, dlerror());
		return false;
	}
	bool ok = true;
#define VT_DW_LOOKUP(f) ok = ok && (*(void **)&elf.dw.f = dlsym(lib, #f)) != NULL;
	VT_DW_FUNCS(VT_DW_LOOKUP)
#undef VT_DW_LOOKUP
	if (!ok) {
		vt_info("no function names: %s lacks a function vt uses", VT_LIBDW);
		return false;
	}
	elf.dw_state = 1;
	return true;
}

/* Every elfutils call below goes through the table. */
#define VT_DW_CALL(f)		     (*elf.dw.f)
#define dwarf_attr_integrate	     VT_DW_CALL(dwarf_attr_integrate)
#define dwarf_decl_file		     VT_DW_CALL(dwarf_decl_file)
#define dwarf_decl_line		     VT_DW_CALL(dwarf_decl_line)
#define dwarf_diename		     VT_DW_CALL(dwarf_diename)
#define dwarf_filesrc		     VT_DW_CALL(dwarf_filesrc)
#define dwarf_formudata		     VT_DW_CALL(dwarf_formudata)
#define dwarf_getscopes		     VT_DW_CALL(dwarf_getscopes)
#define dwarf_getsrc_die	     VT_DW_CALL(dwarf_getsrc_die)
#define dwarf_getsrcfiles	     VT_DW_CALL(dwarf_getsrcfiles)
#define dwarf_lineno		     VT_DW_CALL(dwarf_lineno)
#define dwarf_linesrc		     VT_DW_CALL(dwarf_linesrc)
#define dwarf_nextcu		     VT_DW_CALL(dwarf_nextcu)
#define dwarf_offdie		     VT_DW_CALL(dwarf_offdie)
#define dwarf_ranges		     VT_DW_CALL(dwarf_ranges)
#define dwarf_srclang		     VT_DW_CALL(dwarf_srclang)
#define dwarf_tag		     VT_DW_CALL(dwarf_tag)
#define dwfl_begin		     VT_DW_CALL(dwfl_begin)
#define dwfl_build_id_find_debuginfo VT_DW_CALL(dwfl_build_id_find_debuginfo)
#define dwfl_build_id_find_elf	     VT_DW_CALL(dwfl_build_id_find_elf)
#define dwfl_end		     VT_DW_CALL(dwfl_end)
#define dwfl_errmsg		     VT_DW_CALL(dwfl_errmsg)
#define dwfl_module_addrdie	     VT_DW_CALL(dwfl_module_addrdie)
#define dwfl_module_addrinfo	     VT_DW_CALL(dwfl_module_addrinfo)
#define dwfl_module_addrname	     VT_DW_CALL(dwfl_module_addrname)
#define dwfl_module_getdwarf	     VT_DW_CALL(dwfl_module_getdwarf)
#define dwfl_offline_section_address VT_DW_CALL(dwfl_offline_section_address)
#define dwfl_report_begin_add	     VT_DW_CALL(dwfl_report_begin_add)
#define dwfl_report_elf		     VT_DW_CALL(dwfl_report_elf)
#define dwfl_report_end		     VT_DW_CALL(dwfl_report_end)
#define dwfl_standard_find_debuginfo VT_DW_CALL(dwfl_standard_find_debuginfo)

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup("/proc/self/exe");
	buf[n] = '\0';
	return strdup(buf);
}

/* The address range of a loaded object, from its program headers. */
static void module_range(struct link_map *lm, uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
	Dl_info info;
	if (!dladdr((void *)lm->l_ld, &info) || !info.dli_fbase)
		return;
	const ElfW(Ehdr) *eh = info.dli_fbase;
	const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t a = lm->l_addr + ph[i].p_vaddr, b = a + ph[i].p_memsz;
		if (!*lo || a < *lo)
			*lo = a;
		if (b > *hi)
			*hi = b;
	}
}

int vt_sym_module_of(uintptr_t addr)
{
	for (int i = 0; i < elf.n_modules; i++)
		if (addr >= elf.modules[i].lo && addr < elf.modules[i].hi)
			return i;

	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return -1;
	for (int i = 0; i < elf.n_modules; i++)
		if (elf.modules[i].bias == lm->l_addr && elf.modules[i].lo == 0)
			return i;
	if (elf.n_modules == MAX_MODULES)
		return -1;
	struct module *m = &elf.modules[elf.n_modules];
	m->path = (lm->l_name && lm->l_name[0]) ? strdup(lm->l_name) : self_exe();
	m->bias = lm->l_addr;
	module_range(lm, &m->lo, &m->hi);
	vt_debug("module %d: %s at bias %#lx", elf.n_modules, m->path, (unsigned long)m->bias);
	return elf.n_modules++;
}

/*
 * Separate debug info by build id (Debian's -dbgsym packages), but not through debuginfod
 * unless the user asked for it: elfutils' standard search loads libdebuginfod, and with it
 * curl, GnuTLS and Kerberos (~6 MiB, ~30 ms), for every binary without debug info.
 */
static int find_debuginfo(Dwfl_Module *mod, void **user, const char *modname, Dwarf_Addr base,
			  const char *file, const char *debuglink, GElf_Word crc, char **found)
{
	static int debuginfod = -1;
	if (debuginfod < 0) {
		/* elfutils' own variable, read where elfutils would read it. */
		const char *urls = secure_getenv("DEBUGINFOD_URLS");
		debuginfod = urls && *urls;
	}
	if (debuginfod)
		return dwfl_standard_find_debuginfo(mod, user, modname, base, file, debuglink, crc,
						    found);
	return dwfl_build_id_find_debuginfo(mod, user, modname, base, file, debuglink, crc, found);
}

static Dwfl_Module *dwfl_module_for(int idx)
{
	struct module *m = &elf.modules[idx];

	if (m->reported)
		return m->dwfl_mod;
	m->reported = 1;
	if (!elf.dwfl) {
		if (!dw_load())
			return NULL;
		elf.callbacks = (Dwfl_Callbacks){
		    .find_elf = dwfl_build_id_find_elf,
		    .find_debuginfo = find_debuginfo,
		    .section_address = dwfl_offline_section_address,
		};
		if (!(elf.dwfl = dwfl_begin(&elf.callbacks)))
			return NULL;
	}
	dwfl_report_begin_add(elf.dwfl);
	m->dwfl_mod = dwfl_report_elf(elf.dwfl, m->path, m->path, -1, m->bias, false);
	dwfl_report_end(elf.dwfl, NULL, NULL);
	if (!m->dwfl_mod)
		vt_info("no symbols for %s: %s", m->path, dwfl_errmsg(-1));
	return m->dwfl_mod;
}

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void build_cu_index(struct module *m, Dwarf *dw)
{
	size_t cap = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;

	m->cus_built = 1;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die die;
		if (dwarf_offdie(dw, off + hsize, &die)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&die, it, &base, &lo, &hi)) > 0) {
				if (m->n_cus == cap) {
					cap = cap ? 2 * cap : 64;
					struct cu_range *c = realloc(m->cus, cap * sizeof(*c));
					if (!c)
						return;
					m->cus = c;
				}
				m->cus[m->n_cus++] = (struct cu_range){lo, hi, off + hsize};
			}
		}
		off = next;
	}
	qsort(m->cus, m->n_cus, sizeof(*m->cus), cu_cmp);
}

/* The CU holding addr: elfutils' own look-up, else a search of the module's CU ranges. */
static Dwarf_Die *find_cu(struct module *m, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *mem,
			  Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu)
		return cu;
	Dwarf *dw = dwfl_module_getdwarf(mod, bias);
	if (!dw)
		return NULL;
	if (!m->cus_built)
		build_cu_index(m, dw);
	Dwarf_Addr a = addr - *bias;
	size_t lo = 0, hi = m->n_cus;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->cus[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges may nest or overlap a little; look back from the last start <= a. */
	for (size_t i = lo; i-- > 0;)
		if (a >= m->cus[i].lo && a < m->cus[i].hi)
			return dwarf_offdie(dw, m->cus[i].die, mem);
	return NULL;
}

/*
 * The declaring file of a DIE. DWARF 5 numbers the primary file 0, which elfutils 0.188's
 * dwarf_decl_file refuses (0 meant "none" before DWARF 5): clang 14's default output.
 */
static const char *decl_file(Dwarf_Die *die, Dwarf_Die *cu)
{
	const char *f = dwarf_decl_file(die);
	if (f)
		return f;
	Dwarf_Attribute mem;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;
	if (!dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &mem), &idx) &&
	    !dwarf_getsrcfiles(cu, &files, &n) && idx < n)
		return dwarf_filesrc(files, idx, NULL, NULL);
	return NULL;
}

/* C++ names through the program's own libstdc++, if it has one: C programs need none. */
static char *demangle(const char *sym)
{
	typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
	static demangle_fn fn;
	static int looked;
	int status = -1;

	if (!looked) {
		fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		/* A C++ program that needs nothing of libstdc++ does not load it (clang++ with
		 * --as-needed): load it for the demangler only. */
		void *lib;
		if (!fn && (lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
			fn = (demangle_fn)dlsym(lib, "__cxa_demangle");
		looked = 1;
	}
	if (!fn)
		return NULL;
	char *s = fn(sym, NULL, NULL, &status);
	return status == 0 ? s : (free(s), NULL);
}

/* Fortran: the source name from DWARF, with its module as "module::name". */
static char *fortran_name(Dwarf_Die *scopes, int n)
{
	const char *fn = NULL, *mod = NULL;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram && !fn)
			fn = dwarf_diename(&scopes[i]);
		else if (tag == DW_TAG_module && fn && !mod)
			mod = dwarf_diename(&scopes[i]);
	}
	if (!fn)
		return NULL;
	char *s;
	if (mod) {
		if (asprintf(&s, "%s::%s", mod, fn) < 0)
			return NULL;
		return s;
	}
	return strdup(fn);
}

void vt_sym_resolve(uintptr_t addr, int module, struct vt_sym_info *out)
{
	memset(out, 0, sizeof(*out));
	Dwfl_Module *mod = module >= 0 ? dwfl_module_for(module) : NULL;
	if (!mod)
		return;

	const char *sym = dwfl_module_addrname(mod, addr);
	Dwarf_Addr bias = 0;
	Dwarf_Die cu_mem;
	Dwarf_Die *cu = find_cu(&elf.modules[module], mod, addr, &cu_mem, &bias);
	int lang = cu ? dwarf_srclang(cu) : -1;
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;

	/* gfortran's module procedures: __MODULE_MOD_NAME, whatever the debug info says. */
	const char *mod_sep =
	    sym && sym[0] == '_' && sym[1] == '_' ? strstr(sym + 2, "_MOD_") : NULL;
	char *name = NULL;
	if (mod_sep && mod_sep[5] &&
	    asprintf(&name, "%.*s::%s", (int)(mod_sep - sym - 2), sym + 2, mod_sep + 5) >= 0)
		out->name = name;
	bool fortran = lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 ||
		       lang == DW_LANG_Fortran95 || lang == DW_LANG_Fortran03 ||
		       lang == DW_LANG_Fortran08;
	if (!out->name && fortran)
		out->name = fortran_name(scopes, n);
	if (!out->name && sym && sym[0] == '_' && sym[1] == 'Z')
		out->name = demangle(sym);
	/* An ELF symbol's version (__libc_start_main@@GLIBC_2.34) is not part of its name. */
	if (!out->name && sym)
		out->name = strndup(sym, strcspn(sym, "@"));

	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		int line = 0;
		const char *file = decl_file(&scopes[i], cu);
		dwarf_decl_line(&scopes[i], &line);
		if (file) {
			out->file = strdup(file);
			out->line = (uint32_t)line;
		}
		break;
	}
	free(scopes);
	if (!out->file) {
		/* No subprogram DIE: the line table, through the CU found above. */
		Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;
		int line = 0;
		const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		if (file && dwarf_lineno(l, &line) == 0) {
			out->file = strdup(file);
			out->line = (uint32_t)line;
		}
	}
}

uintptr_t vt_sym_func_start(uintptr_t addr, int module)
{
	Dwfl_Module *mod = module >= 0 ? dwfl_module_for(module) : NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	if (!mod || !dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL))
		return addr;
	return addr - off;
}

void vt_sym_line(uintptr_t addr, int module, struct vt_sym_info *out)
{
	memset(out, 0, sizeof(*out));
	Dwfl_Module *mod = module >= 0 ? dwfl_module_for(module) : NULL;
	if (!mod)
		return;
	Dwarf_Addr bias = 0;
	Dwarf_Die cu_mem;
	Dwarf_Die *cu = find_cu(&elf.modules[module], mod, addr, &cu_mem, &bias);
	Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;
	int line = 0;
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (file && dwarf_lineno(l, &line) == 0) {
		out->file = strdup(file);
		out->line = (uint32_t)line;
	}
}

const char *vt_sym_module_path(int module)
{
	return module >= 0 && module < elf.n_modules ? elf.modules[module].path : NULL;
}

void vt_sym_finish(void)
{
	if (elf.dwfl)
		dwfl_end(elf.dwfl);
	elf.dwfl = NULL;
	for (int i = 0; i < elf.n_modules; i++) {
		elf.modules[i].reported = 0;
		elf.modules[i].dwfl_mod = NULL;
		free(elf.modules[i].cus);
		elf.modules[i].cus = NULL;
		elf.modules[i].n_cus = 0;
		elf.modules[i].cus_built = 0;
	}
}
