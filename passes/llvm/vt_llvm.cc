// SPDX-License-Identifier: BSD-3-Clause
// vt's LLVM pass plugin: each selected function calls vt_inst_enter/exit with a static descriptor.
//
// Loaded by clang with -fpass-plugin=vt_llvm.so (new pass manager). Two module passes:
// - at the start of the pipeline (registerPipelineStartEPCallback, which clang runs at -O0
//   too), before any inlining, the selection: each function is chosen or skipped (the reasons
//   below), and clang's -finstrument-functions marks are taken over;
// - at the end of the optimisation pipeline (registerOptimizerLastEPCallback), after
//   inlining, the calls go into the chosen functions that still exist out of line: an inlined
//   copy carries no call, a function inlined everywhere has no region (issue 30).
// LLVM 14 runs both at -O0 too (its -O0 pipeline calls the optimizer-last callbacks after
// the always-inliner). With -vt-inline=declared or all (the source view), the first pass
// instruments at once, as before issue 30: inlined copies then keep the calls, and counts
// are those of the source. Each function gets
// vt_inst_enter(&desc) at its entry and vt_inst_exit(&desc) before every return and every
// resume; with C++ exceptions, calls that may throw become invokes whose cleanup landing pad
// calls vt_inst_exit and resumes unwinding (llvm::EscapeEnumerator). Each call is guarded by
// the handle loaded once at entry (vt_inst.h, ABI 2): the enter and every exit run only when
// that one value lacks VT_INST_SKIP, so a function the run-time filter drops calls nothing
// after its first call, and a call skips its exit exactly when it skipped its enter.
//
// Options, given as -mllvm -vt-KEY=VALUE (clang parses -mllvm before it loads -fpass-plugin
// plugins, so the plugin must also be loaded with -Xclang -load -Xclang vt_llvm.so for them
// to be known; vtcc does both): -vt-filter=FILE, -vt-min-insns=N,
// -vt-inline=after|skip|declared|all, -vt-verbose. See docs/passes.md.

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/EscapeEnumerator.h"

#include <cxxabi.h>
#include <map>
#include <stddef.h>
#include <stdlib.h>
#include <string>

#include "vt/vt_inst.h"
#include "vt_pass_filter.h"

using namespace llvm;

namespace
{

enum InlineMode { InlineAfter, InlineSkip, InlineDeclared, InlineAll };

cl::opt<std::string> OptFilter("vt-filter", cl::desc("vt: compile-time filter file"),
			       cl::value_desc("file"), cl::init(""));
cl::opt<long> OptMinInsns("vt-min-insns",
			  cl::desc("vt: skip functions of fewer IR instructions than this"),
			  cl::value_desc("n"), cl::init(0));
cl::opt<InlineMode> OptInline(
    "vt-inline", cl::desc("vt: which inline functions to instrument"),
    cl::values(clEnumValN(InlineAfter, "after", "those left out of line after inlining"),
	       clEnumValN(InlineSkip, "skip", "after inlining, none declared inline"),
	       clEnumValN(InlineDeclared, "declared", "declared inline, not always_inline"),
	       clEnumValN(InlineAll, "all", "also always_inline ones")),
    cl::init(InlineAfter)); // docs/passes.md: why after
cl::list<std::string> OptSystemDirs("vt-system-dir",
				    cl::desc("vt: a directory of system headers (as -isystem DIR)"),
				    cl::value_desc("dir"), cl::ZeroOrMore);
cl::opt<bool> OptVerbose("vt-verbose", cl::desc("vt: say what is instrumented and why not"),
			 cl::init(false));

// clang's -finstrument-functions marks each function it would instrument with these (it
// leaves out no_instrument_function ones and those it makes itself, which LLVM IR has no
// other trace of); its instrumenter runs after this pass, so this pass takes the marks
// over and removes them. vtcc gives clang -finstrument-functions for that.
const char *const ClangEntryMark = "instrument-function-entry";
const char *const ClangExitMark = "instrument-function-exit";

// Marks a function this pass has instrumented, so that a second run (an LTO pipeline that
// calls the start callbacks again) does not instrument it twice.
const char *const DoneAttr = "vt-instrumented";

// Marks a function the selection chose, for the pass at the end of the pipeline.
const char *const ChosenAttr = "vt-chosen";

// Prefixes of compiler-made functions: static initialisers, thread-local wrappers, thunks,
// clang's terminate helper. Names starting with '.' (OpenMP outlined bodies, ...) are not C
// identifiers and are compiler-made too.
const char *const GeneratedPrefixes[] = {
    "__cxx_global_var_init",
    "__cxx_global_array_dtor",
    "_GLOBAL__",
    "__clang_call_terminate",
    "__dtor_",
    "__tls_init",
    "_ZTW",
    "_ZTH",
    "_ZThn",
    "_ZTv",
    "_ZTc",
};

// Where Debian's compilers find their system headers (GCC's DECL_IN_SYSTEM_HEADER has no
// equivalent in LLVM IR; the debug info's file is all there is). vtcc adds the directories
// of the command line's -isystem options with -vt-system-dir.
const char *const SystemDirs[] = {
    "/usr/include/",
    "/usr/local/include/",
    "/usr/lib/gcc/",
    "/usr/lib/llvm-",
};

std::string demangle(StringRef Sym)
{
	std::string S = Sym.str();
	int Status = -1;
	char *D = abi::__cxa_demangle(S.c_str(), nullptr, nullptr, &Status);
	if (Status == 0 && D)
		S = D;
	free(D);
	return S;
}

// The names compinst gives (runtime/src/regions/vt_symbols.c): C++ demangled by the C++ library's
// demangler, as the runtime does; Fortran module procedures (flang) as module::name;
// anything else by its symbol.
std::string regionName(const Function &F)
{
	StringRef Sym = F.getName();
	if (Sym.startswith("\1")) // an asm label: the rest is the symbol
		Sym = Sym.drop_front();
	if (Sym.startswith("__")) {
		size_t Sep = Sym.find("_MOD_", 2);
		if (Sep != StringRef::npos && Sep + 5 < Sym.size())
			return (Sym.substr(2, Sep - 2) + "::" + Sym.substr(Sep + 5)).str();
	}
	if (Sym.startswith("_Z"))
		return demangle(Sym);
	return Sym.str();
}

// File made absolute against Dir (the compilation's directory in the debug info), and Dir
// against the working directory. An absolute File stands alone: LLVM's path::append
// concatenates components, so "/cwd" + "/usr/include/x.h" would give /cwd/usr/include/x.h
// and hide system headers from the check.
std::string absolute(StringRef Dir, StringRef File)
{
	if (File.empty())
		return "";
	SmallString<256> P;
	if (sys::path::is_absolute(File)) {
		P = File;
	} else {
		if (Dir.empty() || !sys::path::is_absolute(Dir))
			sys::fs::current_path(P);
		sys::path::append(P, Dir, File);
	}
	// clang names its C++ headers /usr/bin/../lib/gcc/...: compare and report clean paths.
	sys::path::remove_dots(P, /*remove_dot_dot=*/true);
	return std::string(P.str());
}

struct Site {
	std::string Name;
	std::string File; // from the debug info; empty without -g
	unsigned Line = 0;
};

// The chosen functions of this compilation (symbol -> where): those the optimiser removed
// are reported by the last pass (verbose).
std::map<std::string, Site> Chosen;

class Instrumenter
{
      public:
	Instrumenter(Module &M) : M(M), Ctx(M.getContext())
	{
	}

	// Selection, at the start of the pipeline; Now: instrument at once.
	bool select(bool Now);
	// The chosen functions that are still there, at the end of the pipeline.
	bool instrumentChosen();
	// The functions instrumented by this object.
	const SmallVector<Function *, 64> &done() const
	{
		return Done;
	}

      private:
	Module &M;
	LLVMContext &Ctx;
	StructType *DescTy = nullptr;
	FunctionCallee EnterFn, ExitFn;
	struct vt_pass_filter *Filter = nullptr;
	Constant *CxxPersonality = nullptr;
	std::string TuFile;

	bool Marked = false; // the module has clang's -finstrument-functions marks
	SmallVector<Function *, 64> Done;

	bool setup();
	const char *skipReason(Function &F, const Site &S, std::string &Buf);
	GlobalVariable *descriptor(Function &F, const Site &S);
	Constant *string(const std::string &S);
	void instrument(Function &F, GlobalVariable *D, const Site &S);
	void report(const Site &S, const std::string &What);
};

bool Instrumenter::setup()
{
	if (!OptFilter.empty()) {
		char Err[1024];
		Filter = vt_pass_filter_load(OptFilter.c_str(), Err, sizeof(Err));
		if (!Filter) {
			Ctx.emitError(std::string("vt_llvm: ") + Err);
			return false;
		}
	}
	Type *I32 = Type::getInt32Ty(Ctx), *Str = Type::getInt8PtrTy(Ctx);
	// vt_inst.h's struct vt_inst_desc, checked against the header the runtime is built
	// with under this module's data layout (the plugin targets the machine it runs on).
	DescTy = StructType::create(Ctx, {I32, I32, Str, Str, I32, I32}, "struct.vt_inst_desc");
	const StructLayout *L = M.getDataLayout().getStructLayout(DescTy);
	const size_t Offsets[6] = {
	    offsetof(struct vt_inst_desc, handle), offsetof(struct vt_inst_desc, abi),
	    offsetof(struct vt_inst_desc, name),   offsetof(struct vt_inst_desc, file),
	    offsetof(struct vt_inst_desc, line),   offsetof(struct vt_inst_desc, reserved),
	};
	bool Same = L->getSizeInBytes() == sizeof(struct vt_inst_desc);
	for (unsigned I = 0; I < 6; I++)
		Same = Same && L->getElementOffset(I) == Offsets[I];
	if (!Same) {
		Ctx.emitError("vt_llvm: the descriptor layout of target " + M.getTargetTriple() +
			      " differs from vt_inst.h; vt traces only its own platform");
		return false;
	}
	// nounwind: the calls need no landing pads, and EscapeEnumerator leaves them alone.
	AttributeList Attrs =
	    AttributeList::get(Ctx, AttributeList::FunctionIndex, {Attribute::NoUnwind});
	FunctionType *FTy =
	    FunctionType::get(Type::getVoidTy(Ctx), {DescTy->getPointerTo()}, false);
	EnterFn = M.getOrInsertFunction("vt_inst_enter", FTy, Attrs);
	ExitFn = M.getOrInsertFunction("vt_inst_exit", FTy, Attrs);

	// The personality of cleanups added to C++ functions that have none yet: C++'s, as
	// clang would choose, when the module is C++ (it has mangled names).
	for (Function &F : M) {
		if (F.hasPersonalityFn()) {
			CxxPersonality = F.getPersonalityFn();
			break;
		}
	}
	if (!CxxPersonality) {
		for (Function &F : M) {
			if (F.getName().startswith("_Z")) {
				FunctionType *PTy = FunctionType::get(I32, true);
				FunctionCallee P =
				    M.getOrInsertFunction("__gxx_personality_v0", PTy);
				CxxPersonality = cast<Constant>(P.getCallee());
				break;
			}
		}
	}
	TuFile = absolute("", M.getSourceFileName());
	return true;
}

const char *Instrumenter::skipReason(Function &F, const Site &S, std::string &Buf)
{
	StringRef Sym = F.getName();
	const DISubprogram *SP = F.getSubprogram();

	if (Marked && !F.hasFnAttribute(ClangEntryMark))
		return "not marked by -finstrument-functions (no_instrument_function, or made by "
		       "the compiler)";
	if (F.hasFnAttribute(Attribute::Naked))
		return "naked (no code may be added)";
	if (Sym.startswith(".") || F.hasFnAttribute("thunk") || (SP && SP->isArtificial()))
		return "compiler-generated";
	for (const char *P : GeneratedPrefixes)
		if (Sym.startswith(P))
			return "compiler-generated";
	for (const char *D : SystemDirs)
		if (StringRef(S.File).startswith(D))
			return "declared in a system header";
	for (const std::string &D : OptSystemDirs)
		if (!D.empty() && StringRef(S.File).startswith(D) &&
		    (D.back() == '/' || StringRef(S.File).substr(D.size()).startswith("/")))
			return "declared in a system header";
	if (OptInline != InlineAll && F.hasFnAttribute(Attribute::AlwaysInline))
		return "always_inline";
	if (OptInline == InlineSkip && F.hasFnAttribute(Attribute::InlineHint))
		return "declared inline";
	if (OptMinInsns > 0) {
		long N = 0;
		for (const BasicBlock &BB : F)
			for (const Instruction &I : BB)
				if (!I.isDebugOrPseudoInst() && !I.isLifetimeStartOrEnd())
					N++;
		if (N < OptMinInsns) {
			Buf = "small (" + std::to_string(N) + " < " + std::to_string(OptMinInsns) +
			      " instructions)";
			return Buf.c_str();
		}
	}
	if (Filter) {
		// Without debug info the function's file is not known: its translation unit's
		// stands in for it.
		const std::string &File = S.File.empty() ? TuFile : S.File;
		int Line = 0;
		if (vt_pass_filter_limit(Filter, S.Name.c_str(), File.c_str(), &Line) == 0) {
			Buf = "filtered (" + OptFilter + ":" + std::to_string(Line) + ")";
			return Buf.c_str();
		}
	}
	return nullptr;
}

Constant *Instrumenter::string(const std::string &S)
{
	Constant *Init = ConstantDataArray::getString(Ctx, S);
	auto *GV = new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage, Init,
				      "__vt_str");
	GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
	GV->setAlignment(Align(1));
	return ConstantExpr::getPointerCast(GV, Type::getInt8PtrTy(Ctx));
}

// One writable descriptor per function. A function with external linkage may have copies in
// other objects (C++ inline functions and templates, available_externally bodies, an
// out-of-line definition elsewhere): its descriptor is a hidden linkonce_odr global in a
// comdat of its own, named after the symbol, so the linker keeps one per module and the
// program has one region for the function however many copies it has.
GlobalVariable *Instrumenter::descriptor(Function &F, const Site &S)
{
	Type *I32 = Type::getInt32Ty(Ctx);
	Constant *Fields[6] = {
	    ConstantInt::get(I32, 0),
	    ConstantInt::get(I32, VT_INST_ABI),
	    string(S.Name),
	    S.File.empty() ? Constant::getNullValue(Type::getInt8PtrTy(Ctx)) : string(S.File),
	    ConstantInt::get(I32, S.Line),
	    ConstantInt::get(I32, 0),
	};
	Constant *Init = ConstantStruct::get(DescTy, Fields);
	bool Shared = !F.hasLocalLinkage();
	StringRef Sym = F.getName();
	if (Sym.startswith("\1"))
		Sym = Sym.drop_front();
	auto *GV = new GlobalVariable(M, DescTy, false,
				      Shared ? GlobalValue::LinkOnceODRLinkage
					     : GlobalValue::PrivateLinkage,
				      Init, Shared ? "__vt_desc." + Sym : "__vt_desc");
	GV->setAlignment(Align(alignof(struct vt_inst_desc)));
	if (Shared) {
		GV->setVisibility(GlobalValue::HiddenVisibility);
		GV->setComdat(M.getOrInsertComdat(GV->getName()));
	}
	return GV;
}

void Instrumenter::instrument(Function &F, GlobalVariable *D, const Site &S)
{
	DebugLoc Loc;
	if (DISubprogram *SP = F.getSubprogram())
		Loc = DILocation::get(Ctx, SP->getScopeLine(), 0, SP);

	// The entry, after the entry block's static allocas (they must stay in the entry block):
	//   %vt.handle = load atomic desc.handle monotonic
	//   %vt.run = %vt.handle >= 0 (VT_INST_SKIP clear: vt_inst.h, ABI 2)
	//   if (%vt.run) vt_inst_enter(&desc)
	// Each exit tests the same %vt.run: a call skips its exit exactly when it skipped its
	// enter, whatever the runtime stores meanwhile.
	BasicBlock &EB = F.getEntryBlock();
	BasicBlock::iterator It = EB.getFirstInsertionPt();
	while (It != EB.end() && isa<AllocaInst>(*It) && cast<AllocaInst>(*It).isStaticAlloca())
		++It;
	SmallVector<AllocaInst *, 8> Late;
	for (auto J = It; J != EB.end(); ++J)
		if (auto *A = dyn_cast<AllocaInst>(&*J))
			if (A->isStaticAlloca())
				Late.push_back(A);
	for (AllocaInst *A : Late)
		A->moveBefore(&*It);
	Type *I32 = Type::getInt32Ty(Ctx);
	IRBuilder<> Entry(&*It);
	Entry.SetCurrentDebugLocation(Loc);
	LoadInst *H = Entry.CreateAlignedLoad(I32, Entry.CreateStructGEP(DescTy, D, 0),
					      Align(alignof(uint32_t)), "vt.handle");
	H->setAtomic(AtomicOrdering::Monotonic);
	static_assert(VT_INST_SKIP == 0x80000000u, "the test below is a sign test");
	Value *Run = Entry.CreateICmpSGE(H, ConstantInt::get(I32, 0), "vt.run");
	// Most instrumented functions are recorded; the branch predictor learns the others.
	MDNode *Likely = MDBuilder(Ctx).createBranchWeights(1000, 1);
	Instruction *Then = SplitBlockAndInsertIfThen(Run, &*It, false, Likely);
	IRBuilder<> Enter(Then);
	Enter.SetCurrentDebugLocation(Loc);
	Enter.CreateCall(EnterFn, {D});

	if (!F.hasPersonalityFn() && !F.doesNotThrow() && CxxPersonality)
		F.setPersonalityFn(CxxPersonality);
	// Every return and resume, then (once) a cleanup landing pad for calls that may throw.
	// The tests go in once the enumerator is done: it walks the blocks while it adds.
	SmallVector<CallInst *, 8> Exits;
	EscapeEnumerator EE(F, "vt.cleanup", /*HandleExceptions=*/true);
	while (IRBuilder<> *At = EE.Next()) {
		Instruction *Where = &*At->GetInsertPoint();
		At->SetCurrentDebugLocation(Where->getDebugLoc() ? Where->getDebugLoc() : Loc);
		CallInst *Exit = At->CreateCall(ExitFn, {D});
		// It reads no stack of this frame: the code generator may make the call before a
		// return a jump, as LLVM's tail call marking does for it before the optimiser's
		// end.
		if (isa<ReturnInst>(Where))
			Exit->setTailCall();
		Exits.push_back(Exit);
	}
	for (CallInst *Exit : Exits)
		Exit->moveBefore(SplitBlockAndInsertIfThen(Run, Exit, false, Likely));
	F.addFnAttr(DoneAttr);
	Done.push_back(&F);
}

void Instrumenter::report(const Site &S, const std::string &What)
{
	if (OptVerbose)
		errs() << "vt_llvm: " << (S.File.empty() ? TuFile : S.File) << ":" << S.Line << ": "
		       << S.Name << ": " << What << "\n";
}

Site siteOf(const Function &F)
{
	Site S;
	S.Name = regionName(F);
	if (const DISubprogram *SP = F.getSubprogram()) {
		S.File = absolute(SP->getDirectory(), SP->getFilename());
		S.Line = SP->getLine();
	}
	return S;
}

bool Instrumenter::select(bool Now)
{
	if (!setup())
		return false;
	SmallVector<Function *, 64> Work;
	for (Function &F : M) {
		Marked = Marked || F.hasFnAttribute(ClangEntryMark);
		if (!F.isDeclaration() && !F.hasFnAttribute(DoneAttr))
			Work.push_back(&F);
	}
	bool Changed = false;
	for (Function *F : Work) {
		Site S = siteOf(*F);
		std::string Buf;
		if (const char *Why = skipReason(*F, S, Buf)) {
			report(S, std::string("skipped: ") + Why);
			continue;
		}
		if (Now) {
			report(S, "instrumented");
			instrument(*F, descriptor(*F, S), S);
		} else {
			F->addFnAttr(ChosenAttr);
			Chosen[F->getName().str()] = S;
		}
		Changed = true;
	}
	// clang's instrumenter, which runs next, finds nothing left to do.
	for (Function &F : M) {
		if (F.hasFnAttribute(ClangEntryMark) || F.hasFnAttribute(ClangExitMark)) {
			F.removeFnAttr(ClangEntryMark);
			F.removeFnAttr(ClangExitMark);
			Changed = true;
		}
	}
	vt_pass_filter_free(Filter);
	Filter = nullptr;
	return Changed;
}

bool Instrumenter::instrumentChosen()
{
	SmallVector<Function *, 64> Work;
	for (Function &F : M)
		if (F.hasFnAttribute(ChosenAttr))
			Work.push_back(&F);
	if (Work.empty() && Chosen.empty())
		return false;
	if (!setup())
		return false;
	for (Function *F : Work) {
		F->removeFnAttr(ChosenAttr);
		Chosen.erase(F->getName().str());
		if (F->isDeclaration() || F->hasFnAttribute(DoneAttr))
			continue;
		Site S = siteOf(*F);
		report(S, "instrumented");
		instrument(*F, descriptor(*F, S), S);
	}
	for (const auto &KV : Chosen)
		report(KV.second, "skipped: inlined everywhere (no out-of-line copy left)");
	Chosen.clear();
	vt_pass_filter_free(Filter);
	Filter = nullptr;
	return !Work.empty();
}

bool sourceView()
{
	return OptInline == InlineDeclared || OptInline == InlineAll;
}

// The selection; it instruments at once in the source view.
struct VtSelectPass : PassInfoMixin<VtSelectPass> {
	bool Now;
	explicit VtSelectPass(bool Now) : Now(Now)
	{
	}

	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		return Instrumenter(M).select(Now) ? PreservedAnalyses::none()
						   : PreservedAnalyses::all();
	}

	// Runs on optnone functions (clang -O0) as on any other.
	static bool isRequired()
	{
		return true;
	}
};

struct VtInstrumentPass : PassInfoMixin<VtInstrumentPass> {
	bool Optimize;
	explicit VtInstrumentPass(bool Optimize) : Optimize(Optimize)
	{
	}

	PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM)
	{
		Instrumenter I(M);
		if (!I.instrumentChosen())
			return PreservedAnalyses::all();
		// When optimising: jump threading on the instrumented functions, as GCC's runs
		// after its plugin's pass, so that a small function's exit test follows from its
		// entry test and a skipped entry goes straight to the body and out.
		if (Optimize) {
			// By name: JumpThreading.h draws in a header GCC warns about (-Wcomment).
			FunctionPassManager FPM;
			if (Error E = PassBuilder().parsePassPipeline(FPM, "jump-threading")) {
				consumeError(std::move(E));
				return PreservedAnalyses::none();
			}
			FunctionAnalysisManager &FAM =
			    MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
			for (Function *F : I.done()) {
				if (F->hasOptNone())
					continue;
				FAM.invalidate(*F, PreservedAnalyses::none());
				FAM.invalidate(*F, FPM.run(*F, FAM));
			}
		}
		return PreservedAnalyses::none();
	}

	// Runs on optnone functions (clang -O0) as on any other.
	static bool isRequired()
	{
		return true;
	}
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "vt", VT_VERSION, [](PassBuilder &PB) {
			PB.registerPipelineStartEPCallback(
			    [](ModulePassManager &MPM, OptimizationLevel) {
				    MPM.addPass(VtSelectPass(sourceView()));
			    });
			PB.registerOptimizerLastEPCallback(
			    [](ModulePassManager &MPM, OptimizationLevel Level) {
				    MPM.addPass(VtInstrumentPass(Level != OptimizationLevel::O0));
			    });
		}};
}
