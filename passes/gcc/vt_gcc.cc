// SPDX-License-Identifier: BSD-3-Clause
// vt's GCC plugin: each selected function calls vt_inst_enter/exit with its own static descriptor.
//
// Two passes. The first ("vt_select") runs once per function among GCC's lowering passes,
// just before "lower" (control flow lowering), where GCC's own -finstrument-functions puts its
// calls: the body is then still the single GIMPLE_BIND the gimplifier made, before any
// inlining. It chooses the functions to instrument (or says why not).
//
// By default (inline=after or skip) the second ("vt_inst") puts the calls in: it runs after
// the IPA passes (the inliner among them), first among the passes on each function that GCC
// still compiles out of line (before "ehdisp", at every -O level), so an inlined copy carries
// no call and a function inlined everywhere has no region (issue 30). The IL is then a CFG in
// SSA form with EH lowered: vt_inst_enter(&desc) goes on the edge out of the entry block,
// vt_inst_exit(&desc) before each return and each resx that resumes unwinding in the caller
// (the end of a cleanup, C++ destructors of locals); update_ssa renames the virtual operands.
// An exception passing through a function without a cleanup of its own leaves no Leave: the
// runtime closes its region at the next Leave below it (docs/passes.md).
//
// In every mode each call is guarded by the handle loaded once at entry (vt_inst.h, ABI 2):
// "h = desc.handle; if (!(h & VT_INST_SKIP)) vt_inst_enter(&desc)", and the same test of the
// same h before each vt_inst_exit, so a function the run-time filter drops calls nothing
// after its first call, and a call skips its exit exactly when it skipped its enter.
//
// With inline=declared or all (the source view) the first pass instruments at once, as before
// issue 30: the body is wrapped as
//
//     vt_inst_enter(&desc);
//     try { BODY } finally { vt_inst_exit(&desc); }
//
// and GCC's EH lowering then places the exit call on every path out of the function: each
// return and, with exceptions, a cleanup landing pad that calls it and resumes unwinding.
// Inlined copies carry the calls with them, so counts stay those of the source.
//
// Options (-fplugin-arg-vt_gcc-KEY[=VALUE]; GCC splits the plugin name at its first '-',
// hence the underscore in the name): filter=FILE, min-insns=N,
// inline=after|skip|declared|all, verbose. See docs/passes.md.

#include "gcc-plugin.h"
#include "plugin-version.h"

// GCC's plugin headers depend on each other's order: kept as GCC's own sources have them.
// clang-format off
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "stringpool.h"
#include "attribs.h"
#include "cgraph.h"
#include "stor-layout.h"
#include "langhooks.h"
#include "diagnostic-core.h"
#include "file-prefix-map.h"
#include "tree-inline.h"
#include "tree-eh.h"
#include "tree-cfg.h"
#include "tree-ssa-operands.h"
#include "tree-into-ssa.h"
#include "tree-phinodes.h"
#include "ssa.h"
#include "cfgloop.h"
#include "ggc.h"
// clang-format on

#include <cxxabi.h>
#include <map>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>

#include "vt/vt_inst.h"
#include "vt_pass_filter.h"

#define VT_EXPORT __attribute__((visibility("default")))

// GCC loads only plugins that declare this; vt's BSD-3-Clause licence is GPL-compatible.
VT_EXPORT int plugin_is_GPL_compatible;

namespace
{

enum inline_mode {
	INLINE_AFTER,	 // after inlining, what remains out of line; not always_inline (default)
	INLINE_SKIP,	 // after inlining, neither functions declared inline nor always_inline
	INLINE_DECLARED, // functions declared inline, but not always_inline ones
	INLINE_ALL,	 // every function, always_inline ones too
};

struct options {
	const char *filter_path = nullptr;
	struct vt_pass_filter *filter = nullptr;
	long min_insns = 0;
	/* After inlining: the functions the program calls, not those inlined into their
	 * callers; docs/passes.md has the measurement behind this default. */
	enum inline_mode inl = INLINE_AFTER;
	bool verbose = false;
};

options opts;

// Reports an error through GCC's diagnostics (so the compilation fails) as one
// "vt_gcc: ..." line; formatted here since GCC's own format checks want its quoting style.
__attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "vt_gcc: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	error("%s", buf);
}

unsigned n_private; // numbers the private descriptors of this translation unit

// The source view: the first pass instruments, before inlining. So it does with -flto: the
// IPA passes, the inliner among them, then run in the link step's lto1, where this plugin is
// not loaded (docs/passes.md).
bool source_view()
{
	return opts.inl == INLINE_DECLARED || opts.inl == INLINE_ALL || flag_lto;
}

// The functions the first pass chose, by DECL_UID, for the second.
struct chosen_fn {
	std::string name, file;
	int line = 0;
	tree desc = NULL_TREE; // made by the second pass; kept alive by the varpool
	bool done = false;
};
std::map<int, chosen_fn> chosen;

// Trees made once per compilation, kept alive across garbage collections by the roots below.
tree desc_type;
tree desc_fields[6]; // handle, abi, name, file, line, reserved: vt_inst.h's order
tree enter_fn, exit_fn;

const struct ggc_root_tab vt_roots[] = {
    {&desc_type, 1, sizeof(desc_type), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&desc_fields[0], 6, sizeof(desc_fields[0]), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&enter_fn, 1, sizeof(enter_fn), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&exit_fn, 1, sizeof(exit_fn), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB,
};

// The record type of struct vt_inst_desc, checked field by field against the header the
// runtime is compiled with: the plugin runs on the machine it targets (no cross plugin).
bool build_desc_type()
{
	static const struct {
		const char *name;
		size_t offset;
		bool pointer;
	} layout[6] = {
	    {"handle", offsetof(struct vt_inst_desc, handle), false},
	    {"abi", offsetof(struct vt_inst_desc, abi), false},
	    {"name", offsetof(struct vt_inst_desc, name), true},
	    {"file", offsetof(struct vt_inst_desc, file), true},
	    {"line", offsetof(struct vt_inst_desc, line), false},
	    {"reserved", offsetof(struct vt_inst_desc, reserved), false},
	};
	tree cstr = build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
	tree chain = NULL_TREE;

	desc_type = make_node(RECORD_TYPE);
	for (int i = 0; i < 6; i++) {
		tree f = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(layout[i].name),
				    layout[i].pointer ? cstr : uint32_type_node);
		desc_fields[i] = f;
		// finish_builtin_struct takes the fields in reverse order.
		DECL_CHAIN(f) = chain;
		chain = f;
	}
	finish_builtin_struct(desc_type, "vt_inst_desc", chain, NULL_TREE);
	bool same = tree_to_uhwi(TYPE_SIZE_UNIT(desc_type)) == sizeof(struct vt_inst_desc);
	for (int i = 0; i < 6; i++)
		same = same && int_byte_position(desc_fields[i]) == (HOST_WIDE_INT)layout[i].offset;
	if (!same)
		return false;

	// void vt_inst_enter(struct vt_inst_desc *), nothrow: the calls need no EH edges.
	tree fntype =
	    build_function_type_list(void_type_node, build_pointer_type(desc_type), NULL_TREE);
	enter_fn = build_fn_decl("vt_inst_enter", fntype);
	exit_fn = build_fn_decl("vt_inst_exit", fntype);
	return true;
}

// ---------------------------------------------------------------------------------------
// What the runtime calls the function, and where it is

bool is_fortran()
{
	return lang_hooks.name && strstr(lang_hooks.name, "Fortran") != NULL;
}

// The names compinst gives (runtime/src/regions/vt_symbols.c, docs/dev/contracts.md): C++ demangled
// by the C++ library's demangler (the runtime's), gfortran module procedures as
// module::name, other Fortran procedures by their source name, anything else by its symbol.
std::string region_name(tree fndecl)
{
	const char *sym = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));
	if (sym[0] == '*') // a user's asm label: the symbol is the rest, verbatim
		sym++;
	if (sym[0] == '_' && sym[1] == '_') {
		const char *sep = strstr(sym + 2, "_MOD_");
		if (sep && sep[5])
			return std::string(sym + 2, sep - sym - 2) + "::" + (sep + 5);
	}
	if (is_fortran() && DECL_NAME(fndecl))
		return IDENTIFIER_POINTER(DECL_NAME(fndecl));
	if (sym[0] == '_' && sym[1] == 'Z') {
		int status = -1;
		char *d = abi::__cxa_demangle(sym, NULL, NULL, &status);
		if (status == 0 && d) {
			std::string s(d);
			free(d);
			return s;
		}
		free(d);
	}
	return sym;
}

// The absolute path of the function's file, mapped by -fdebug-prefix-map and
// -ffile-prefix-map as GCC maps it in the debug info the runtime reads for compinst.
std::string source_file(tree fndecl)
{
	const char *f = DECL_SOURCE_FILE(fndecl);
	if (!f || !*f)
		return "";
	std::string path = f;
	if (path[0] != '/' && path[0] != '<') {
		const char *cwd = getpwd();
		if (cwd)
			path = std::string(cwd) + "/" + path;
	}
	return remap_debug_filename(path.c_str());
}

// ---------------------------------------------------------------------------------------
// Selection

// Returns why fndecl is not instrumented, or NULL when it is.
const char *skip_reason(tree fndecl, const std::string &name, const std::string &file,
			gimple_seq body, std::string &buf)
{
	tree attrs = DECL_ATTRIBUTES(fndecl);
	bool is_main = DECL_NAME(fndecl) && MAIN_NAME_P(DECL_NAME(fndecl));

	// The attribute, not DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT: the gimplifier sets that on
	// every function it has seen when -finstrument-functions is off.
	if (lookup_attribute("no_instrument_function", attrs))
		return "no_instrument_function";
	if (lookup_attribute("naked", attrs))
		return "naked (no code may be added)";
	// Artificial: made by the compiler (static initialisers, implicit members, thunks, ...),
	// except gfortran's C main(), which the contract names as a region.
	if (DECL_ARTIFICIAL(fndecl) && !is_main)
		return "compiler-generated";
	if (DECL_IN_SYSTEM_HEADER(fndecl))
		return "declared in a system header";
	if (opts.inl != INLINE_ALL && lookup_attribute("always_inline", attrs))
		return "always_inline";
	if (opts.inl == INLINE_SKIP && DECL_DECLARED_INLINE_P(fndecl))
		return "declared inline";
	if (opts.min_insns > 0) {
		int n = estimate_num_insns_seq(body, &eni_size_weights);
		if (n < opts.min_insns) {
			buf = "small (" + std::to_string(n) + " < " +
			      std::to_string(opts.min_insns) + " instructions)";
			return buf.c_str();
		}
	}
	if (opts.filter) {
		int line = 0;
		if (vt_pass_filter_limit(opts.filter, name.c_str(), file.c_str(), &line) == 0) {
			buf = std::string("filtered (") + opts.filter_path + ":" +
			      std::to_string(line) + ")";
			return buf.c_str();
		}
	}
	return NULL;
}

// ---------------------------------------------------------------------------------------
// The descriptor and the calls

tree string_cst(const std::string &s)
{
	tree lit = build_string_literal(s.size() + 1, s.c_str());
	// build_string_literal gives a char *; the field is const char *.
	return fold_convert(TREE_TYPE(desc_fields[2]), lit);
}

// One writable struct vt_inst_desc for fndecl. A public function may have copies in other
// objects (C++ inline functions and templates, extern inline bodies, an out-of-line
// definition elsewhere): its descriptor is a hidden weak symbol named after the function's
// symbol, so the linker resolves every reference to one per module, and the program has one
// region for the function however many copies it has. Other functions get a private one.
tree make_descriptor(tree fndecl, const std::string &name, const std::string &file, int line)
{
	const char *sym = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));
	if (sym[0] == '*')
		sym++;
	bool shared = TREE_PUBLIC(fndecl);
	std::string id =
	    shared ? std::string("__vt_desc.") + sym : "__vt_desc." + std::to_string(++n_private);

	tree var = build_decl(DECL_SOURCE_LOCATION(fndecl), VAR_DECL, get_identifier(id.c_str()),
			      desc_type);
	SET_DECL_ASSEMBLER_NAME(var, get_identifier(id.c_str()));
	TREE_STATIC(var) = 1;
	TREE_PUBLIC(var) = 0;
	DECL_EXTERNAL(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	DECL_IGNORED_P(var) = 1;
	TREE_USED(var) = 1;
	TREE_ADDRESSABLE(var) = 1;
	TREE_READONLY(var) = 0; // the runtime stores the region id in it

	vec<constructor_elt, va_gc> *v = NULL;
	tree u32 = uint32_type_node;
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[0], build_int_cst(u32, 0));
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[1], build_int_cst(u32, VT_INST_ABI));
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[2], string_cst(name));
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[3],
			       file.empty() ? null_pointer_node : string_cst(file));
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[4], build_int_cst(u32, line > 0 ? line : 0));
	CONSTRUCTOR_APPEND_ELT(v, desc_fields[5], build_int_cst(u32, 0));
	tree init = build_constructor(desc_type, v);
	TREE_CONSTANT(init) = 1;
	TREE_STATIC(init) = 1;
	DECL_INITIAL(var) = init;

	if (shared) {
		// Weak, not comdat: GCC gives a writable comdat object STB_GNU_UNIQUE binding,
		// which would keep a dlclose()d library in memory. A weak hidden definition
		// merges just as well; the copies the linker does not pick stay as dead bytes.
		TREE_PUBLIC(var) = 1;
		DECL_WEAK(var) = 1;
		DECL_VISIBILITY(var) = VISIBILITY_HIDDEN;
		DECL_VISIBILITY_SPECIFIED(var) = 1;
	}
	varpool_node::finalize_decl(var);
	return var;
}

gimple *call(tree fn, tree desc, location_t loc)
{
	gcall *c = gimple_build_call(fn, 1, build_fold_addr_expr(desc));
	gimple_set_location(c, loc);
	return c;
}

// The descriptor's handle, read once per call (volatile: the runtime stores it once, from
// another thread perhaps, and the value read is the one both tests use).
tree handle_ref(tree desc)
{
	tree ref = build3(COMPONENT_REF, uint32_type_node, desc, desc_fields[0], NULL_TREE);
	TREE_THIS_VOLATILE(ref) = 1;
	return ref;
}

// "h > VT_INST_SKIP - 1": the runtime said the function is filtered (vt_inst.h, ABI 2).
gcond *skip_test(tree h, tree t_label, tree f_label)
{
	return gimple_build_cond(GT_EXPR, h, build_int_cst(uint32_type_node, VT_INST_SKIP - 1),
				 t_label, f_label);
}

void report(const char *what, const std::string &name, const std::string &file, int line)
{
	if (opts.verbose)
		fprintf(stderr, "vt_gcc: %s:%d: %s: %s\n", file.c_str(), line, name.c_str(), what);
}

const pass_data vt_select_data = {
    GIMPLE_PASS,
    "vt_select", // name (-fdump-tree-vt_select)
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any, // properties_required
    0,
    0,
    0,
    0,
};

class vt_select_pass : public gimple_opt_pass
{
      public:
	vt_select_pass(gcc::context *ctx) : gimple_opt_pass(vt_select_data, ctx)
	{
	}

	unsigned int execute(function *fun) final override
	{
		tree fndecl = fun->decl;
		gimple_seq body = gimple_body(fndecl);

		// Built on first use: GCC's type nodes do not exist yet when plugin_init runs.
		if (!desc_type && !build_desc_type()) {
			fail("the descriptor layout GCC computes differs from vt_inst.h");
			return 0;
		}
		if (!enter_fn)
			return 0;

		// The gimplifier leaves exactly one GIMPLE_BIND; anything else is not ours.
		if (!body || gimple_seq_first(body) != gimple_seq_last(body) ||
		    gimple_code(gimple_seq_first_stmt(body)) != GIMPLE_BIND)
			return 0;

		std::string name = region_name(fndecl);
		std::string file = source_file(fndecl);
		int line = DECL_SOURCE_LINE(fndecl);
		std::string buf;
		const char *why = skip_reason(fndecl, name, file, body, buf);
		if (why) {
			report((std::string("skipped: ") + why).c_str(), name, file, line);
			return 0;
		}
		if (!source_view()) {
			chosen_fn &c = chosen[DECL_UID(fndecl)];
			c.name = name;
			c.file = file;
			c.line = line;
			return 0;
		}
		report("instrumented", name, file, line);

		// h = desc.handle; if (h <= SKIP - 1) vt_inst_enter(&desc);
		// try { BODY } finally { if (h <= SKIP - 1) vt_inst_exit(&desc); }
		tree desc = make_descriptor(fndecl, name, file, line);
		location_t at = DECL_SOURCE_LOCATION(fndecl), end = fun->function_end_locus;
		tree h = create_tmp_var(uint32_type_node, "vt_handle");
		gimple_seq cleanup = NULL;
		tree run_exit = create_artificial_label(end), done = create_artificial_label(end);
		gimple_seq_add_stmt(&cleanup, skip_test(h, done, run_exit));
		gimple_seq_add_stmt(&cleanup, gimple_build_label(run_exit));
		gimple_seq_add_stmt(&cleanup, call(exit_fn, desc, end));
		gimple_seq_add_stmt(&cleanup, gimple_build_label(done));
		gimple *tf = gimple_build_try(body, cleanup, GIMPLE_TRY_FINALLY);
		gimple_seq seq = NULL;
		tree run_enter = create_artificial_label(at), entered = create_artificial_label(at);
		gimple *load = gimple_build_assign(h, handle_ref(desc));
		gimple_set_location(load, at);
		gimple_seq_add_stmt(&seq, load);
		gimple_seq_add_stmt(&seq, skip_test(h, entered, run_enter));
		gimple_seq_add_stmt(&seq, gimple_build_label(run_enter));
		gimple_seq_add_stmt(&seq, call(enter_fn, desc, at));
		gimple_seq_add_stmt(&seq, gimple_build_label(entered));
		gimple_seq_add_stmt(&seq, tf);
		gimple_seq top = NULL;
		gimple_seq_add_stmt(&top, gimple_build_bind(NULL_TREE, seq, NULL_TREE));
		gimple_set_body(fndecl, top);
		return 0;
	}
};

const pass_data vt_inst_data = {
    GIMPLE_PASS,
    "vt_inst", // name (-fdump-tree-vt_inst)
    OPTGROUP_NONE,
    TV_NONE,
    PROP_cfg | PROP_ssa, // properties_required
    0,
    0,
    0,
    0,
};

// What the first pass chose for fndecl, or NULL: an IPA clone (constprop, isra) is the
// function it was cloned from, a part split off by partial inlining is not chosen (the
// function's entry, wherever it remains, records the call).
chosen_fn *chosen_for(tree fndecl)
{
	cgraph_node *node = cgraph_node::get(fndecl);
	if (node && node->split_part)
		return NULL;
	for (int i = 0; fndecl && i < 8; i++) {
		auto it = chosen.find(DECL_UID(fndecl));
		if (it != chosen.end())
			return &it->second;
		node = cgraph_node::get(fndecl);
		tree from = node ? node->former_clone_of : NULL_TREE;
		fndecl = from && from != fndecl ? from : NULL_TREE;
	}
	return NULL;
}

// The decl whose symbol names the descriptor: the function itself, not its clone.
tree origin_of(tree fndecl, const chosen_fn *c)
{
	for (int i = 0; fndecl && i < 8; i++) {
		if (chosen.count(DECL_UID(fndecl)) && &chosen[DECL_UID(fndecl)] == c)
			return fndecl;
		cgraph_node *node = cgraph_node::get(fndecl);
		fndecl = node ? node->former_clone_of : NULL_TREE;
	}
	return NULL_TREE;
}

// head ends with one normal edge to its successor: puts "if (h <= SKIP - 1) CALL" on it,
// a test at the end of head and the call in a block of its own. At -O1 and more GCC's jump
// threading, which runs after this pass, then gives a small function a path without either
// test when the entry skipped.
void guard(basic_block head, tree h, gimple *call)
{
	edge e = single_succ_edge(head);
	basic_block next = e->dest;
	basic_block callbb = split_edge(e);
	gimple_stmt_iterator cg = gsi_start_bb(callbb);
	gsi_insert_after(&cg, call, GSI_NEW_STMT);
	gimple_stmt_iterator hg = gsi_last_bb(head);
	gsi_insert_after(&hg, skip_test(h, NULL_TREE, NULL_TREE), GSI_NEW_STMT);

	edge run = single_succ_edge(head);
	run->flags &= ~EDGE_FALLTHRU;
	run->flags |= EDGE_FALSE_VALUE;
	edge skip = make_edge(head, next, EDGE_TRUE_VALUE);
	// Most instrumented functions are recorded; the branch predictor learns the others.
	skip->probability = profile_probability::unlikely();
	run->probability = skip->probability.invert();
	callbb->count = head->count.apply_probability(run->probability);
	edge from_call = single_succ_edge(callbb);
	for (gphi_iterator pi = gsi_start_phis(next); !gsi_end_p(pi); gsi_next(&pi)) {
		gphi *phi = pi.phi();
		add_phi_arg(phi, PHI_ARG_DEF_FROM_EDGE(phi, from_call), skip,
			    gimple_phi_arg_location_from_edge(phi, from_call));
	}
}

class vt_inst_pass : public gimple_opt_pass
{
      public:
	vt_inst_pass(gcc::context *ctx) : gimple_opt_pass(vt_inst_data, ctx)
	{
	}

	bool gate(function *) final override
	{
		return !source_view() && !chosen.empty();
	}

	unsigned int execute(function *fun) final override
	{
		chosen_fn *c = chosen_for(fun->decl);
		if (!c || !enter_fn)
			return 0;
		tree origin = origin_of(fun->decl, c);
		if (!origin)
			return 0;
		if (!c->desc)
			c->desc = make_descriptor(origin, c->name, c->file, c->line);
		if (!c->done)
			report("instrumented", c->name, c->file, c->line);
		c->done = true;

		// Exits: before each return, and before each resx that leaves the function
		// (no landing pad of this function catches it: unwinding resumes in the caller).
		auto_vec<gimple *> exits;
		basic_block bb;
		FOR_EACH_BB_FN(bb, fun)
		{
			gimple *last = last_stmt(bb);
			if (last &&
			    (gimple_code(last) == GIMPLE_RETURN ||
			     (gimple_code(last) == GIMPLE_RESX && lookup_stmt_eh_lp(last) == 0)))
				exits.safe_push(last);
		}
		// Entry: on the edge out of the entry block, so that it runs once per call:
		// h = desc.handle; if (h <= SKIP - 1) vt_inst_enter(&desc). Each exit tests the
		// same h: a call skips its exit exactly when it skipped its enter.
		tree h = make_ssa_name(uint32_type_node);
		location_t at = DECL_SOURCE_LOCATION(origin);
		basic_block test = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
		gimple *load = gimple_build_assign(h, handle_ref(c->desc));
		gimple_set_location(load, at);
		gimple_stmt_iterator gsi = gsi_start_bb(test);
		gsi_insert_after(&gsi, load, GSI_NEW_STMT);
		guard(test, h, call(enter_fn, c->desc, at));
		for (gimple *last : exits) {
			location_t loc = gimple_location(last);
			gimple_stmt_iterator prev = gsi_for_stmt(last);
			gsi_prev(&prev);
			basic_block head = gimple_bb(last);
			if (!gsi_end_p(prev))
				split_block(head, gsi_stmt(prev));
			else
				split_block_after_labels(head);
			guard(head, h,
			      call(exit_fn, c->desc,
				   loc != UNKNOWN_LOCATION ? loc : fun->function_end_locus));
		}
		free_dominance_info(CDI_DOMINATORS);
		free_dominance_info(CDI_POST_DOMINATORS);
		if (current_loops)
			loops_state_set(LOOPS_NEED_FIXUP);
		mark_virtual_operands_for_renaming(fun);
		cgraph_edge::rebuild_edges();
		return TODO_update_ssa_only_virtuals;
	}
};

// Verbose: the chosen functions that no pass saw, because the optimiser left no copy.
void finish_unit(void *, void *)
{
	for (auto &kv : chosen)
		if (!kv.second.done)
			report("skipped: inlined everywhere (no out-of-line copy left)",
			       kv.second.name, kv.second.file, kv.second.line);
	chosen.clear();
}

bool parse_args(const struct plugin_name_args *info)
{
	bool ok = true;
	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key, *val = info->argv[i].value;
		char *end;
		if (!strcmp(key, "filter") && val && *val) {
			opts.filter_path = val;
		} else if (!strcmp(key, "min-insns") && val) {
			opts.min_insns = strtol(val, &end, 10);
			if (!*val || *end || opts.min_insns < 0) {
				fail("min-insns='%s': expected a number of instructions (0 or "
				     "more)",
				     val);
				ok = false;
			}
		} else if (!strcmp(key, "inline") && val) {
			if (!strcmp(val, "after"))
				opts.inl = INLINE_AFTER;
			else if (!strcmp(val, "skip"))
				opts.inl = INLINE_SKIP;
			else if (!strcmp(val, "declared"))
				opts.inl = INLINE_DECLARED;
			else if (!strcmp(val, "all"))
				opts.inl = INLINE_ALL;
			else {
				fail("inline='%s': expected after, skip, declared or all", val);
				ok = false;
			}
		} else if (!strcmp(key, "verbose") && !val) {
			opts.verbose = true;
		} else {
			fail("unknown or incomplete option '-fplugin-arg-%s-%s%s%s'; "
			     "valid: filter=FILE, min-insns=N, "
			     "inline=after|skip|declared|all, verbose",
			     info->base_name, key, val ? "=" : "", val ? val : "");
			ok = false;
		}
	}
	return ok;
}

} // namespace

VT_EXPORT int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	static struct plugin_info about = {
	    VT_VERSION,
	    "vt: calls vt_inst_enter/vt_inst_exit with a static descriptor in every selected "
	    "function. Options: filter=FILE, min-insns=N, inline=after|skip|declared|all, "
	    "verbose",
	};

	if (!plugin_default_version_check(version, &gcc_version)) {
		fail("this plugin was built for GCC %s, not %s; rebuild vt or use "
		     "-vt:inst compinst",
		     gcc_version.basever, version->basever);
		return 1;
	}
	register_callback(info->base_name, PLUGIN_INFO, NULL, &about);
	if (!parse_args(info))
		return 0; // the error fails the compilation; nothing is registered
	if (opts.filter_path) {
		char err[1024];
		opts.filter = vt_pass_filter_load(opts.filter_path, err, sizeof(err));
		if (!opts.filter) {
			fail("%s", err);
			return 0;
		}
	}
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  const_cast<ggc_root_tab *>(vt_roots));

	struct register_pass_info pass;
	pass.pass = new vt_select_pass(g);
	pass.reference_pass_name = "lower";
	pass.ref_pass_instance_number = 1;
	pass.pos_op = PASS_POS_INSERT_BEFORE;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
	if (opts.inl != INLINE_DECLARED && opts.inl != INLINE_ALL) {
		// After the IPA passes: the first of the passes GCC runs on each function it
		// still compiles, before EH dispatch is lowered (there at every -O level).
		struct register_pass_info late;
		late.pass = new vt_inst_pass(g);
		late.reference_pass_name = "ehdisp";
		late.ref_pass_instance_number = 1;
		late.pos_op = PASS_POS_INSERT_BEFORE;
		register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &late);
		register_callback(info->base_name, PLUGIN_FINISH_UNIT, finish_unit, NULL);
	}
	return 0;
}
