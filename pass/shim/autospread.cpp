// Spread pass plugin: the `spread-auto` device-job pass.
//
// clang-19 compiles a combined `target teams distribute parallel for` (and
// `... simd`, `target teams loop`, `target` + tightly nested `teams distribute
// parallel for`) into three functions:
//   K(dyn_ptr, args...)      the kernel: calls T (nvptx) or forks it (x86);
//   T(gtid*, btid*, caps...) the teams function: splits the normalized
//                            iterations [0, tripcount) over the teams with a
//                            distribute static init, calls P per chunk;
//   P(gtid*, btid*, prev.lb, prev.ub, caps...)
//                            the parallel function: splits a team's chunk
//                            [prev.lb, prev.ub] over the threads.
// (With -g each is a wrapper around a <name>_debug__ body: see debugBody.)
// A runtime can run one such launch as several launches on several devices if
//   (1) each launch runs only a window [lo, hi) of the iterations, and
//   (2) it knows which bytes of each kernel argument a window touches.
// For (1) this pass adds a global window per kernel and clamps the bounds in T
// and P to it; for (2) it analyses every memory access of P with
// ScalarEvolution on a clone of the module and embeds the result as a
// descriptor. A kernel the analysis cannot prove safe is left exactly as clang
// made it, with a missed-optimization remark that says why.
//
// The contract with the runtime (the window global, the descriptor layout) is
// documented in docs/pass.md, "Automatic spreading (spread-auto)".

#include "autospread.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;

namespace {

// The remark pass name (-Rpass=spread-auto). A string literal: remarks keep
// the pointer.
const char *const PassName = "spread-auto";

// Window and descriptor names; the runtime looks them up by kernel name.
const char *const WindowPrefix = "__spread_win_";
const char *const InfoPrefix = "__spread_kinfo_";
// hi of the default window: every iteration (normalized iterations fit in an
// i64), so an image runs unchanged on a runtime that never writes the window.
constexpr int64_t WindowAll = INT64_MAX;

// Descriptor (docs/pass.md): header, then one record per access form: 48
// bytes in version 1; version 2 (written only for a kernel with a record that
// needs it) adds a collapsed loop's divisor and the access's guards.
constexpr uint32_t InfoVersionAffine = 1;
constexpr uint32_t InfoVersionExtended = 2;
constexpr unsigned MaxGuards = 4;
enum AccessMode : uint32_t {
  ModeRead = 1,
  ModeWrite = 2,
  ModeReadWrite = 3, // the same affine form is read and written
  ModeWhole = 4,     // read-only argument with non-affine reads
  ModeReduce = 5,    // a scalar reduction variable: C0 = operator, C1 = type
  ModeReduceElements = 6, // an array updated atomically element by element: as 5
  ModeMerge = 7, // written by a grid kernel's teams: each block writes a copy
                 // of its own, whose changed bytes the runtime merges
};
// Header flags: the kernel is a grid kernel (its window counts teams).
constexpr uint32_t InfoFlagGrid = 1;

// Reduction operators and types as spread.h codes them (__SPREAD_RED_*,
// __SPREAD_TYPE_*), the runtime's Mode::Reduce. `-` is combined as `+`
// (OpenMP does), so the pass never emits 2.
enum RedOp : uint32_t {
  RedAdd = 1,
  RedMul = 3,
  RedMax = 4,
  RedMin = 5,
  RedBitAnd = 6,
  RedBitOr = 7,
  RedBitXor = 8,
  RedAnd = 9,
  RedOr = 10,
};
enum RedType : uint32_t {
  RedI8 = 1,
  RedI16 = 2,
  RedI32 = 3,
  RedI64 = 4,
  RedU8 = 5, // unsigned codes: only where signedness matters (min, max)
  RedF32 = 9,
  RedF64 = 10,
};

// A value a launch knows: C + SymCoeff * (by-value kernel argument SymParam,
// its low SymBits bits, sign-extended), or C without one (SymParam -1).
struct Expr {
  int64_t C = 0;
  int32_t SymParam = -1;
  uint32_t SymBits = 0;
  int64_t SymCoeff = 0;

  bool isZero() const { return C == 0 && SymParam < 0; }
  auto key() const { return std::make_tuple(C, SymParam, SymBits, SymCoeff); }
};

// The loop variables of a collapsed loop's normalized iteration iv = q * m + r
// (m = the divisor: the inner loops' iteration count); without a divisor
// q = 0, r = iv.
// VarOffset: the access's own byte offset (a bound the guard puts on it).
enum GuardVar : uint32_t { VarQ = 1, VarR = 2, VarOffset = 3 };

// A condition the access happens under: K * var + E >= 0.
struct Guard {
  uint32_t Var = VarR;
  int64_t K = 0;
  Expr E;

  auto key() const { return std::make_tuple(Var, K, E.key()); }
};

struct Record {
  uint32_t Param = 0; // kernel argument index, dyn_ptr not counted
  uint32_t Mode = 0;
  // byte offset = C0 + SymCoeff * sym + QCoeff * q + C1 * r
  int64_t C0 = 0;
  int64_t C1 = 0;
  int64_t Width = 0; // bytes accessed at that offset
  int32_t SymParam = -1;
  uint32_t SymBits = 0;
  int64_t SymCoeff = 0;
  Expr C1Sym;  // the symbolic part of C1 (C = 0), version 2
  Expr QCoeff; // zero without a divisor
  Expr Div;    // zero: none
  std::vector<Guard> Guards;

  bool extended() const {
    return !C1Sym.isZero() || !QCoeff.isZero() || !Div.isZero() ||
           !Guards.empty();
  }

  // Everything but the mode: records with the same key merge their modes.
  auto key() const {
    std::vector<decltype(Guard().key())> G;
    for (const Guard &X : Guards)
      G.push_back(X.key());
    return std::make_tuple(Param, SymParam, SymCoeff, SymBits, C1, C0, Width,
                           C1Sym.key(), QCoeff.key(), Div.key(), G);
  }
};

// ---------------------------------------------------------------------------
// clang's and the OpenMP runtimes' entry points

StringRef calleeName(const CallBase *CB) {
  if (const Function *F = CB->getCalledFunction())
    return F->getName();
  return "";
}

// The iteration variable's type, from the _4/_4u/_8/_8u suffix of a static
// init call (clang picks the variant from the loop's IV type).
struct IVType {
  unsigned Bits = 32;
  bool Signed = true;
};

std::optional<IVType> ivTypeOf(StringRef Name) {
  StringRef Suffix = Name.substr(Name.rfind('_') + 1);
  if (Suffix == "4")
    return IVType{32, true};
  if (Suffix == "4u")
    return IVType{32, false};
  if (Suffix == "8")
    return IVType{64, true};
  if (Suffix == "8u")
    return IVType{64, false};
  return std::nullopt;
}

// The worksharing init of a parallel loop (P), also used by x86 T.
bool isForStaticInit(StringRef N) {
  return N.starts_with("__kmpc_for_static_init_") && ivTypeOf(N);
}

// The distribute init in T: x86 uses the for variant with schedule 92, GPUs
// the distribute variant with schedule 91 (chunked by the block size).
bool isDistributeInit(StringRef N) {
  return isForStaticInit(N) ||
         (N.starts_with("__kmpc_distribute_static_init_") && ivTypeOf(N));
}

// An OpenMP runtime entry point. clang links the device runtime into nvptx
// modules as builtin bitcode when it finds libomptarget-nvptx-<arch>.bc (as
// a fat-binary build with LIBRARY_PATH pointing at LLVM's lib does), so these
// can be definitions at PipelineStart: they are still the runtime's, not the
// program's.
bool isRuntimeEntry(const Function &F) {
  StringRef N = F.getName();
  return N.starts_with("__kmpc_") || N.starts_with("omp_") ||
         N.starts_with("ompx_") || N.starts_with("__llvm_omp_");
}

// A function of the program itself (defined here, not the runtime's).
bool isProgramFunction(const Function *F) {
  return F && !F->isDeclaration() && !isRuntimeEntry(*F);
}

bool isForkTeams(const CallBase *CB) {
  return calleeName(CB) == "__kmpc_fork_teams";
}
bool isForkCall(const CallBase *CB) {
  return calleeName(CB) == "__kmpc_fork_call";
}
bool isParallel51(const CallBase *CB) {
  return calleeName(CB) == "__kmpc_parallel_51";
}

// Runtime calls clang emits for the combined constructs themselves; they only
// touch the runtime's state and the loop-bound slots they are given.
bool isBookkeepingCall(StringRef N) {
  static const char *const Names[] = {
      "__kmpc_for_static_fini",
      "__kmpc_distribute_static_fini",
      "__kmpc_global_thread_num",
      "__kmpc_get_hardware_num_threads_in_block",
      "__kmpc_get_hardware_thread_id_in_block",
      "__kmpc_get_warp_size",
      "__kmpc_is_spmd_exec_mode",
      "__kmpc_barrier",
      "__kmpc_barrier_simple_spmd",
      "__kmpc_alloc_shared",
      "__kmpc_free_shared",
      "__kmpc_push_num_threads",
      "__kmpc_push_num_teams",
      "__kmpc_push_num_teams_51",
      "__kmpc_push_proc_bind",
      "__kmpc_target_init",
      "__kmpc_target_deinit",
  };
  if (isDistributeInit(N))
    return true;
  return any_of(Names, [&](const char *S) { return N == S; });
}

// clang's reduction entry points (see KernelAnalysis::reductionSite). The
// argument of a reduce call that is the list of pointers to the private
// copies; -1 if N is not one.
int reduceListArg(StringRef N) {
  if (N == "__kmpc_reduce" || N == "__kmpc_reduce_nowait" ||
      N == "__kmpc_nvptx_teams_reduce_nowait_v2")
    return 4;
  if (N == "__kmpc_nvptx_parallel_reduce_nowait_v2")
    return 2;
  return -1;
}
bool isEndReduce(StringRef N) {
  return N == "__kmpc_end_reduce" || N == "__kmpc_end_reduce_nowait";
}
// The combiner and initializer of a `declare reduction` (x86:
// .omp_combiner., GPUs: _omp_combiner$).
bool isUserReduction(StringRef N) {
  return N.contains("omp_combiner") || N.contains("omp_initializer");
}
const char *const UserReduction =
    "a user-defined reduction (declare reduction)";

// Math library functions: pure apart from errno, which is per host thread and
// not data of the kernel. Also as __nv_* (libdevice) and __ocml_*_fNN.
bool isMathFunction(StringRef N) {
  if (N.consume_front("__nv_")) {
    // as is
  } else if (N.consume_front("__ocml_")) {
    if (!(N.consume_back("_f64") || N.consume_back("_f32") ||
          N.consume_back("_f16")))
      return false;
  }
  static const char *const Names[] = {
      "sqrt",   "cbrt",      "rsqrt",  "exp",       "exp2",  "exp10",
      "expm1",  "log",       "log2",   "log10",     "log1p", "pow",
      "sin",    "cos",       "tan",    "asin",      "acos",  "atan",
      "atan2",  "sinh",      "cosh",   "tanh",      "asinh", "acosh",
      "atanh",  "fabs",      "floor",  "ceil",      "trunc", "round",
      "rint",   "nearbyint", "fmod",   "remainder", "fmin",  "fmax",
      "fdim",   "fma",       "hypot",  "copysign",  "erf",   "erfc",
      "tgamma", "ldexp",     "scalbn", "logb",      "ilogb", "abs",
      "labs",   "llabs",     "lround", "llround",   "lrint", "llrint",
  };
  for (const char *S : Names) {
    StringRef Base(S);
    if (N == Base)
      return true;
    if (N.size() == Base.size() + 1 && N.starts_with(Base) &&
        (N.back() == 'f' || N.back() == 'l'))
      return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Kernels and the K -> T -> P chain

// The offload entry functions of the module: nvvm.annotations kernels,
// kernel calling conventions (amdgcn), and the x86 image's offload entries.
SmallVector<Function *, 8> findKernels(Module &M) {
  SmallPtrSet<Function *, 8> Set;
  if (NamedMDNode *NA = M.getNamedMetadata("nvvm.annotations")) {
    for (MDNode *N : NA->operands()) {
      if (N->getNumOperands() < 2)
        continue;
      auto *VM = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
      auto *Kind = dyn_cast_or_null<MDString>(N->getOperand(1).get());
      if (VM && Kind && Kind->getString() == "kernel")
        if (auto *F = dyn_cast<Function>(VM->getValue()->stripPointerCasts()))
          Set.insert(F);
    }
  }
  for (GlobalVariable &GV : M.globals()) {
    if (!GV.hasInitializer() || GV.getSection() != "omp_offloading_entries")
      continue;
    if (auto *CS = dyn_cast<ConstantStruct>(GV.getInitializer()))
      if (CS->getNumOperands() > 0)
        if (auto *F =
                dyn_cast<Function>(CS->getOperand(0)->stripPointerCasts()))
          Set.insert(F);
  }
  SmallVector<Function *, 8> Out;
  for (Function &F : M) {
    bool Kernel = Set.contains(&F) ||
                  F.getCallingConv() == CallingConv::PTX_Kernel ||
                  F.getCallingConv() == CallingConv::AMDGPU_KERNEL;
    if (Kernel && !F.isDeclaration() && F.arg_size() >= 1 &&
        F.getName().starts_with("__omp_offloading_"))
      Out.push_back(&F);
  }
  return Out;
}

// With -g, clang emits each of K, T and P as a wrapper that converts the
// captures (passed as uintptr) to their types and calls "<name>_debug__",
// which has the code and the debug info. The body of F is that function if F
// calls it, else F itself.
Function *debugBody(Function &F) {
  Function *Body = F.getParent()->getFunction((F.getName() + "_debug__").str());
  if (!Body || Body->isDeclaration() || Body == &F)
    return &F;
  for (User *U : Body->users())
    if (auto *CB = dyn_cast<CallBase>(U))
      if (CB->getCaller() == &F && CB->getCalledOperand() == Body)
        return Body;
  return &F;
}

struct Chain {
  Function *K = nullptr;
  Function *T = nullptr;
  Function *P = nullptr;
  // Where their code is: themselves, or their _debug__ bodies (-g).
  Function *KBody = nullptr;
  Function *TBody = nullptr;
  Function *PBody = nullptr;
  // In KBody: __kmpc_fork_teams(loc, n, T, caps...) or
  // T(gtid*, btid*, caps...).
  CallBase *TCall = nullptr;
  // In TBody: __kmpc_fork_call(loc, n, P, caps...) or
  // __kmpc_parallel_51(loc, gtid, if, nthreads, bind, P, wrapper, caps[], n).
  CallBase *PCall = nullptr;
  // Further parallel regions of T (their functions, with the calls that run
  // them): only a teams distribute whose body runs several parallel loops
  // (inlineParallelRegion) has them.
  SmallVector<std::pair<Function *, CallBase *>, 2> MoreP;

  // Every parallel region of T with the call that runs it: P, then MoreP.
  SmallVector<std::pair<Function *, CallBase *>, 4> regions() const {
    SmallVector<std::pair<Function *, CallBase *>, 4> R{{P, PCall}};
    R.append(MoreP.begin(), MoreP.end());
    return R;
  }
};

const char *const NoLoop = "no combined teams distribute parallel for loop";

// Starts C at kernel K: its body and the one teams function T it runs
// (forked on x86, called on GPUs), with TBody. False, with Why, if K runs a
// parallel region without teams or calls more than one function.
bool findTeamsFunction(Function &K, Chain &C, std::string &Why) {
  C = Chain();
  C.K = &K;
  C.KBody = debugBody(K);
  for (Instruction &I : instructions(*C.KBody)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      continue;
    Function *Callee = CB->getCalledFunction();
    Function *Target = nullptr;
    if (isForkTeams(CB) && CB->arg_size() >= 3)
      Target = dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts());
    else if (isForkCall(CB) || isParallel51(CB)) {
      Why = std::string(NoLoop) + " (a parallel region without teams)";
      return false;
    } else if (isProgramFunction(Callee))
      Target = Callee;
    if (!Target)
      continue;
    if (C.T) {
      Why = std::string(NoLoop) + " (the kernel calls more than one function)";
      return false;
    }
    C.T = Target;
    C.TCall = CB;
  }
  if (!C.T || C.T->isDeclaration()) {
    Why = NoLoop;
    return false;
  }
  C.TBody = debugBody(*C.T);
  return true;
}

// The parallel region a call forks (`__kmpc_fork_call` on x86,
// `__kmpc_parallel_51` on GPUs), or null.
Function *forkedRegion(CallBase &CB) {
  if (isForkCall(&CB) && CB.arg_size() >= 3)
    return dyn_cast<Function>(CB.getArgOperand(2)->stripPointerCasts());
  if (isParallel51(&CB) && CB.arg_size() >= 9)
    return dyn_cast<Function>(CB.getArgOperand(5)->stripPointerCasts());
  return nullptr;
}

// Whether parallel region Q is used only by the call Fork that runs it and,
// on GPUs, by the wrapper clang passes along with it (generic mode: the
// workers' state machine calls Q through `<Q>_wrapper`).
bool onlyForked(Function &Q, CallBase &Fork) {
  std::string Wrapper = Q.getName().str() + "_wrapper";
  for (User *U : Q.users()) {
    if (U == &Fork)
      continue;
    auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledOperand() != &Q ||
        CB->getFunction()->getName() != Wrapper)
      return false;
  }
  return true;
}

// Finds T and P from K. Refuses unless K runs exactly one teams function and
// that one exactly one parallel function, each used only there.
bool findChain(Function &K, Chain &C, std::string &Why) {
  if (!findTeamsFunction(K, C, Why))
    return false;
  for (Instruction &I : instructions(*C.TBody)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      continue;
    Function *Target = forkedRegion(*CB);
    if (!Target && CB->getCalledFunction() &&
        isUserReduction(CB->getCalledFunction()->getName())) {
      Why = UserReduction;
      return false;
    }
    if (!Target && isProgramFunction(CB->getCalledFunction())) {
      Why = std::string(NoLoop) + " (the teams region calls '" +
            demangle(calleeName(CB).str()) + "')";
      return false;
    }
    if (!Target)
      continue;
    if (C.P) {
      C.MoreP.push_back({Target, CB});
      continue;
    }
    C.P = Target;
    C.PCall = CB;
  }
  if (!C.P || C.P->isDeclaration()) {
    Why = std::string(NoLoop) + " (a teams region without a parallel loop)";
    return false;
  }
  C.PBody = debugBody(*C.P);
  // T and P are clang's outlined functions: one caller each, and P takes the
  // distribute chunk as its arguments 2 and 3.
  if (!C.T->hasLocalLinkage() || !C.T->hasOneUse() || !C.P->hasLocalLinkage() ||
      !onlyForked(*C.P, *C.PCall) || C.P->arg_size() < 2 ||
      C.PBody->arg_size() < 2 ||
      C.T->arg_size() < 2 || C.T == C.P || C.T == &K || C.P == &K) {
    Why = std::string(NoLoop) + " (unexpected outlined functions)";
    return false;
  }
  for (auto [Q, Call] : C.MoreP)
    if (Q->isDeclaration() || !Q->hasLocalLinkage() || !onlyForked(*Q, *Call) ||
        Q == C.P || Q == C.T || Q->arg_size() < 2) {
      Why = std::string(NoLoop) + " (unexpected outlined functions)";
      return false;
    }
  return true;
}

// On the clone: puts F's _debug__ body back into F (-g), so that the
// analysis sees the same chain as without -g. False if that fails.
bool inlineDebugBody(Function &F) {
  Function *Body = debugBody(F);
  if (Body == &F)
    return true;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && CB->getCalledOperand() == Body) {
      InlineFunctionInfo IFI;
      if (!InlineFunction(*CB, IFI).isSuccess())
        return false;
      // Its calls to the next function of the chain are now F's: drop the
      // body so that they have one caller again.
      if (Body->use_empty())
        Body->eraseFromParent();
      return true;
    }
  return false;
}

// The program's own functions called in the loop (`declare target` helpers,
// and at PipelineStart every function clang has not inlined yet, `static
// inline` ones included) are inlined into the clone's P, so that their
// accesses and hazards are analysed as the loop's. The real kernel keeps its
// calls: what the clone proves holds for them. The OpenMP runtime's entry
// points, math functions, declarations and reduction combiners stay calls
// for the checks that know them; budgets stop recursion.
void inlineProgramCalls(Function &F) {
  // A loop body of complex arithmetic calls a handful of helpers a hundred
  // times; a recursive function would be inlined forever (mutual recursion
  // stops at PerCallee).
  constexpr unsigned Budget = 4096, PerCallee = 512, MaxSize = 100000;
  DenseMap<const Function *, unsigned> Inlined;
  DenseMap<const Function *, bool> Recursive;
  auto SelfRecursive = [&](const Function *G) {
    auto [It, New] = Recursive.try_emplace(G, false);
    if (New)
      for (const Instruction &I : instructions(G))
        if (auto *CB = dyn_cast<CallBase>(&I);
            CB && CB->getCalledFunction() == G)
          It->second = true;
    return It->second;
  };
  auto Program = [&](CallBase *CB) {
    Function *Callee = CB->getCalledFunction();
    if (!isProgramFunction(Callee) || Callee == &F || Callee->isVarArg() ||
        Callee->isIntrinsic() || Inlined.lookup(Callee) >= PerCallee ||
        SelfRecursive(Callee))
      return false;
    StringRef N = Callee->getName();
    return !N.contains("omp_outlined") && !N.contains(".omp.") &&
           !isUserReduction(N) && !isMathFunction(N) &&
           !isBookkeepingCall(N);
  };
  // F's calls, then the calls each inlined body brings (InlinedCallSites),
  // so that F is scanned once rather than after every inline.
  std::deque<CallBase *> Work;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      Work.push_back(CB);
  for (unsigned Done = 0; Done < Budget && !Work.empty();) {
    CallBase *Next = Work.front();
    Work.pop_front();
    if (!Program(Next))
      continue;
    if (F.getInstructionCount() > MaxSize)
      return;
    Function *Callee = Next->getCalledFunction();
    InlineFunctionInfo IFI;
    if (!InlineFunction(*Next, IFI).isSuccess())
      return; // the call stays, and is refused with its name
    ++Inlined[Callee];
    ++Done;
    Work.insert(Work.end(), IFI.InlinedCallSites.begin(),
                IFI.InlinedCallSites.end());
  }
}

// ---------------------------------------------------------------------------
// Value tracing through the chain (on the clone)

// Where a value (or a pointer) comes from.
struct Source {
  enum KindTy {
    KernelArg, // kernel parameter Index (dyn_ptr not counted)
    Slot,      // the stack slot Alloca (pointer identity)
    ThreadId,  // the gtid/btid argument of T or P
    Other,     // something else; Stop is where tracing stopped
  } Kind = Other;
  unsigned Index = 0;
  AllocaInst *Alloca = nullptr;
  Value *Stop = nullptr;
};

class Tracer {
public:
  Tracer(const Chain &C, const DataLayout &DL) : C(C), DL(DL) {}

  // Follows V back through casts, T's and P's parameters, and loads from
  // read-only slots of K or T (captures by reference) to its source. Bits is
  // narrowed to the number of low bits that survive on the way (truncations,
  // masks, narrower loads), so that a by-value `int` that travels in an i64
  // slot comes back as a kernel argument with Bits = 32.
  Source resolve(Value *V, unsigned &Bits) {
    for (unsigned Step = 0; Step < 64; ++Step) {
      if (auto *A = dyn_cast<AllocaInst>(V))
        return slot(A);
      if (auto *Arg = dyn_cast<Argument>(V)) {
        Function *F = Arg->getParent();
        unsigned N = Arg->getArgNo();
        if (F == C.K)
          return N == 0 ? other(V) : kernelArg(N - 1);
        if (F != C.T && F != C.P)
          return other(V);
        if (N < 2)
          return threadId();
        Value *Actual = actualFor(F, N);
        if (!Actual)
          return other(V);
        V = Actual;
        continue;
      }
      if (auto *LI = dyn_cast<LoadInst>(V)) {
        Value *Stored = readFromSlot(LI);
        if (!Stored)
          return other(V);
        Bits = std::min<unsigned>(Bits, sizeInBits(LI->getType()));
        V = Stored;
        continue;
      }
      if (auto *CI = dyn_cast<CastInst>(V)) {
        switch (CI->getOpcode()) {
        case Instruction::Trunc:
          Bits = std::min<unsigned>(Bits, sizeInBits(CI->getType()));
          break;
        case Instruction::ZExt:
        case Instruction::SExt:
        case Instruction::BitCast:
        case Instruction::AddrSpaceCast:
        case Instruction::IntToPtr:
        case Instruction::PtrToInt:
          Bits = std::min<unsigned>(Bits, sizeInBits(CI->getSrcTy()));
          break;
        default:
          return other(V);
        }
        V = CI->getOperand(0);
        continue;
      }
      if (auto *FI = dyn_cast<FreezeInst>(V)) {
        V = FI->getOperand(0);
        continue;
      }
      if (auto *BO = dyn_cast<BinaryOperator>(V)) {
        // SROA turns "store i32, load i64" of a by-value capture into a mask.
        auto *Mask = dyn_cast<ConstantInt>(BO->getOperand(1));
        if (BO->getOpcode() == Instruction::And && Mask &&
            Mask->getValue().isMask()) {
          Bits = std::min<unsigned>(Bits, Mask->getValue().countr_one());
          V = BO->getOperand(0);
          continue;
        }
        return other(V);
      }
      if (auto *GEP = dyn_cast<GEPOperator>(V)) {
        if (!GEP->hasAllZeroIndices())
          return other(V);
        V = GEP->getPointerOperand();
        continue;
      }
      return other(V);
    }
    return other(V);
  }

  // The value a slot of K or T holds when T or P reads it: the slot must be
  // stored exactly once, before the call that hands it on, and only read
  // after that (clang's captures by reference in the nested target form).
  Value *readOnlySlotValue(AllocaInst *A) {
    auto It = SlotCache.find(A);
    if (It != SlotCache.end())
      return It->second;
    Value *V = computeSlotValue(A);
    SlotCache[A] = V;
    return V;
  }

  // The actual argument for parameter N (>= 2) of T or P.
  Value *actualFor(Function *F, unsigned N) {
    if (F == C.T) {
      unsigned Idx = isForkTeams(C.TCall) ? 3 + (N - 2) : N;
      return Idx < C.TCall->arg_size() ? C.TCall->getArgOperand(Idx) : nullptr;
    }
    if (F == C.P) {
      if (isForkCall(C.PCall)) {
        unsigned Idx = 3 + (N - 2);
        return Idx < C.PCall->arg_size() ? C.PCall->getArgOperand(Idx)
                                         : nullptr;
      }
      if (isParallel51(C.PCall))
        return argArrayElement(N - 2);
    }
    return nullptr;
  }

  unsigned sizeInBits(Type *Ty) const {
    return static_cast<unsigned>(DL.getTypeSizeInBits(Ty).getFixedValue());
  }

private:
  static Source kernelArg(unsigned I) {
    Source S;
    S.Kind = Source::KernelArg;
    S.Index = I;
    return S;
  }
  static Source slot(AllocaInst *A) {
    Source S;
    S.Kind = Source::Slot;
    S.Alloca = A;
    return S;
  }
  static Source threadId() {
    Source S;
    S.Kind = Source::ThreadId;
    return S;
  }
  static Source other(Value *V) {
    Source S;
    S.Stop = V;
    return S;
  }

  // What a load reads if it reads a read-only slot of K or T at offset 0.
  Value *readFromSlot(LoadInst *LI) {
    if (!LI->isSimple())
      return nullptr;
    unsigned PtrBits = 64;
    Source S = resolve(LI->getPointerOperand(), PtrBits);
    if (S.Kind != Source::Slot)
      return nullptr;
    Value *Stored = readOnlySlotValue(S.Alloca);
    if (!Stored || sizeInBits(LI->getType()) > sizeInBits(Stored->getType()))
      return nullptr;
    return Stored;
  }

  // nvptx: P's captures travel in T's `[N x ptr]` array, element I.
  Value *argArrayElement(unsigned I) {
    auto *Array =
        dyn_cast<AllocaInst>(C.PCall->getArgOperand(7)->stripPointerCasts());
    if (!Array || Array->getFunction() != C.T)
      return nullptr;
    const int64_t Want =
        static_cast<int64_t>(I) * static_cast<int64_t>(DL.getPointerSize());
    Value *Found = nullptr;
    for (StoreInst *SI : arrayStores(Array)) {
      int64_t Off = 0;
      if (!storeOffset(SI, Array, Off))
        return nullptr;
      if (Off != Want)
        continue;
      if (Found)
        return nullptr; // stored twice: not clang's pattern
      Found = SI->getValueOperand();
    }
    return Found;
  }

public:
  // The stores into an argument array (directly or through constant GEPs):
  // the parallel_51 captures, a reduce call's list of private copies.
  SmallVector<StoreInst *, 8> arrayStores(AllocaInst *Array) {
    SmallVector<StoreInst *, 8> Out;
    SmallVector<Value *, 8> Work{Array};
    while (!Work.empty()) {
      Value *V = Work.pop_back_val();
      for (User *U : V->users()) {
        if (auto *SI = dyn_cast<StoreInst>(U)) {
          if (SI->getPointerOperand() == V)
            Out.push_back(SI);
        } else if (isa<GEPOperator>(U) || isa<BitCastInst>(U) ||
                   isa<AddrSpaceCastInst>(U)) {
          Work.push_back(U);
        }
      }
    }
    return Out;
  }

  bool storeOffset(StoreInst *SI, AllocaInst *Base, int64_t &Off) const {
    APInt Offset(DL.getIndexTypeSizeInBits(SI->getPointerOperand()->getType()),
                 0);
    const Value *B = SI->getPointerOperand()->stripAndAccumulateConstantOffsets(
        DL, Offset, /*AllowNonInbounds=*/true);
    if (B != Base || !Offset.isSignedIntN(64))
      return false;
    Off = Offset.getSExtValue();
    return true;
  }

private:
  // Whether parameter N of G (T or P) is only read through, or handed on to
  // P where it is only read through.
  bool onlyReadThrough(Function *G, unsigned N, unsigned Depth = 0) {
    if (N >= G->arg_size() || Depth > 4)
      return false;
    SmallVector<Value *, 8> Work{G->getArg(N)};
    while (!Work.empty()) {
      Value *V = Work.pop_back_val();
      for (User *U : V->users()) {
        if (auto *LI = dyn_cast<LoadInst>(U)) {
          if (LI->getPointerOperand() == V && LI->isSimple())
            continue;
          return false;
        }
        if (isa<GEPOperator>(U) || isa<BitCastInst>(U) ||
            isa<AddrSpaceCastInst>(U)) {
          Work.push_back(U);
          continue;
        }
        if (G == C.T && !handedToP(V, U, Depth))
          return false;
        if (G != C.T)
          return false;
      }
    }
    return true;
  }

  // T hands V to P (as a fork_call argument or in the parallel_51 array);
  // true if P only reads through it.
  bool handedToP(Value *V, User *U, unsigned Depth) {
    if (U == C.PCall && isForkCall(C.PCall)) {
      for (unsigned I = 3; I < C.PCall->arg_size(); ++I)
        if (C.PCall->getArgOperand(I) == V &&
            !onlyReadThrough(C.P, I - 3 + 2, Depth + 1))
          return false;
      return C.PCall->getArgOperand(0) != V && C.PCall->getArgOperand(1) != V &&
             C.PCall->getArgOperand(2) != V;
    }
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getValueOperand() != V || !isParallel51(C.PCall))
        return false;
      auto *Array =
          dyn_cast<AllocaInst>(C.PCall->getArgOperand(7)->stripPointerCasts());
      int64_t Off = 0;
      if (!Array || !storeOffset(SI, Array, Off) || Off < 0 ||
          Off % static_cast<int64_t>(DL.getPointerSize()) != 0)
        return false;
      unsigned Elt = static_cast<unsigned>(
          Off / static_cast<int64_t>(DL.getPointerSize()));
      return onlyReadThrough(C.P, Elt + 2, Depth + 1);
    }
    return false;
  }

  Value *computeSlotValue(AllocaInst *A) {
    Function *F = A->getFunction();
    if (F != C.K && F != C.T)
      return nullptr;
    CallBase *HandOn = F == C.K ? C.TCall : C.PCall;
    Function *Callee = F == C.K ? C.T : C.P;
    if (!HandOn)
      return nullptr; // T with P inlined (a nested parallel loop)
    // The slot and its casts (amdgcn's stack is addrspace(5), used through
    // generic pointers).
    SmallVector<Value *, 4> Ptrs{A};
    for (unsigned I = 0; I < Ptrs.size(); ++I)
      for (User *U : Ptrs[I]->users())
        if (isa<AddrSpaceCastInst>(U) || isa<BitCastInst>(U))
          Ptrs.push_back(U);
    StoreInst *Only = nullptr;
    for (Value *Ptr : Ptrs) {
      for (User *U : Ptr->users()) {
        if (isa<AddrSpaceCastInst>(U) || isa<BitCastInst>(U))
          continue; // in Ptrs
        if (auto *SI = dyn_cast<StoreInst>(U)) {
          if (SI->getPointerOperand() == Ptr && SI->getValueOperand() != Ptr) {
            if (Only || !SI->isSimple())
              return nullptr;
            Only = SI;
            continue;
          }
          if (F == C.T && handedToP(Ptr, SI, 0))
            continue;
          return nullptr;
        }
        if (auto *LI = dyn_cast<LoadInst>(U)) {
          if (LI->getPointerOperand() == Ptr)
            continue;
          return nullptr;
        }
        if (auto *II = dyn_cast<IntrinsicInst>(U))
          if (II->isLifetimeStartOrEnd())
            continue;
        if (U != HandOn || HandOn->getCalledOperand() == Ptr)
          return nullptr;
        if (F == C.T) {
          if (!handedToP(Ptr, U, 0))
            return nullptr;
          continue;
        }
        // K hands the slot to T.
        for (unsigned I = 0; I < HandOn->arg_size(); ++I) {
          if (HandOn->getArgOperand(I) != Ptr)
            continue;
          if (isForkTeams(HandOn) && I < 3)
            return nullptr;
          unsigned Formal = isForkTeams(HandOn) ? I - 3 + 2 : I;
          if (!onlyReadThrough(Callee, Formal))
            return nullptr;
        }
      }
    }
    if (!Only)
      return nullptr;
    DominatorTree DT(*F);
    if (!DT.dominates(Only, HandOn))
      return nullptr;
    return Only->getValueOperand();
  }

  const Chain &C;
  const DataLayout &DL;
  DenseMap<AllocaInst *, Value *> SlotCache;
};

// ---------------------------------------------------------------------------
// Polynomials over SCEV atoms
//
// An address is linearized into a sum of monomials with integer coefficients.
// The atoms are SCEVUnknown values (arguments, loads of the loop-bound slots,
// ...) and the iteration count of the worksharing loop. Truncations and
// extensions are looked through: signed overflow is UB in the source (clang's
// nsw), unsigned IVs and 32-bit offsets are assumed not to wrap; the runtime
// checks that each derived section lies inside the mapped one.

using Monomial = std::vector<const void *>; // sorted atoms; {} = constant
using Poly = std::map<Monomial, int64_t>;

bool addScaled(Poly &Acc, const Poly &P, int64_t Scale) {
  for (const auto &[M, Coeff] : P) {
    int64_t Prod = 0, Sum = 0;
    if (__builtin_mul_overflow(Coeff, Scale, &Prod))
      return false;
    auto It = Acc.find(M);
    int64_t Old = It == Acc.end() ? 0 : It->second;
    if (__builtin_add_overflow(Old, Prod, &Sum))
      return false;
    if (Sum == 0) {
      if (It != Acc.end())
        Acc.erase(It);
    } else {
      Acc[M] = Sum;
    }
  }
  return true;
}

std::optional<Poly> multiply(const Poly &A, const Poly &B) {
  Poly Out;
  for (const auto &[MA, CA] : A) {
    for (const auto &[MB, CB] : B) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      if (M.size() > 3)
        return std::nullopt;
      std::sort(M.begin(), M.end());
      int64_t Prod = 0;
      if (__builtin_mul_overflow(CA, CB, &Prod))
        return std::nullopt;
      Poly Term{{M, Prod}};
      if (!addScaled(Out, Term, 1))
        return std::nullopt;
    }
  }
  return Out;
}

class Linearizer {
public:
  Linearizer(ScalarEvolution &SE, const Loop *L) : SE(SE), L(L) {}

  std::optional<Poly> run(const SCEV *S) { return lin(S, UINT_MAX, 0); }

  // The iteration count of the worksharing loop, as an atom.
  const void *iteration() const { return L; }

  // After the IV's own polynomial is known, uses of the IV phi as an opaque
  // value are replaced by it.
  void setIV(const PHINode *Phi, Poly P) {
    IVPhi = Phi;
    IVPoly = std::move(P);
  }

  // The quotient of the IV by the divisor, as an atom: a collapsed loop's
  // outer index (clang computes i = iv / m, j = iv - i * m from the
  // normalized iteration).
  const void *quotient() const { return &QuotientTag; }

  // The kernel's divisor m (loop-invariant), once known: divisions of the IV
  // by it become the quotient atom, remainders iv - m * quotient.
  void setDivisor(Poly D) { Div = std::move(D); }
  const std::optional<Poly> &divisor() const { return Div; }

  // The divisor of a division or remainder of the IV by a loop-invariant
  // value (an SDiv/UDiv/SRem/URem instruction), if V is one.
  std::optional<Poly> divisorOf(const Value *V) {
    auto *BO = dyn_cast<BinaryOperator>(V);
    if (!BO || !IVPhi)
      return std::nullopt;
    switch (BO->getOpcode()) {
    case Instruction::SDiv:
    case Instruction::UDiv:
    case Instruction::SRem:
    case Instruction::URem:
      break;
    default:
      return std::nullopt;
    }
    std::optional<Poly> Num = lin(SE.getSCEV(BO->getOperand(0)), UINT_MAX, 40);
    std::optional<Poly> Den = lin(SE.getSCEV(BO->getOperand(1)), UINT_MAX, 40);
    if (!Num || !Den || *Num != IVPoly || Den->empty() || moves(*Den))
      return std::nullopt;
    return Den;
  }

  // The narrowest width at which each atom was used (truncations above it).
  DenseMap<const Value *, unsigned> Bits;
  // When set, an affine recurrence of a loop nested in the worksharing loop
  // is linear in that loop's iteration count, an atom of its own (the Loop),
  // instead of a failure.
  bool NestedAtoms = false;
  // Set when an address moves with a loop other than the worksharing loop.
  bool SawOtherLoop = false;

private:
  bool moves(const Poly &P) const {
    for (const auto &[M, Coeff] : P)
      if (std::find(M.begin(), M.end(), iteration()) != M.end() ||
          std::find(M.begin(), M.end(), quotient()) != M.end())
        return true;
    return false;
  }

  // The quotient atom, or the remainder's polynomial, for a division of the
  // IV by the divisor (Rem: iv - m * q).
  std::optional<Poly> quotientTerm(bool Rem) {
    Poly Q{{Monomial{quotient()}, 1}};
    if (!Rem)
      return Q;
    std::optional<Poly> QM = multiply(Q, *Div);
    Poly R = IVPoly;
    if (!QM || !addScaled(R, *QM, -1))
      return std::nullopt;
    return R;
  }

  std::optional<Poly> lin(const SCEV *S, unsigned TruncBits, unsigned Depth) {
    if (Depth > 48)
      return std::nullopt;
    switch (S->getSCEVType()) {
    case scConstant: {
      const APInt &V = cast<SCEVConstant>(S)->getAPInt();
      if (!V.isSignedIntN(64))
        return std::nullopt;
      Poly P;
      if (!V.isZero())
        P[{}] = V.getSExtValue();
      return P;
    }
    case scTruncate:
      return lin(
          cast<SCEVCastExpr>(S)->getOperand(0),
          std::min<unsigned>(TruncBits, SE.getTypeSizeInBits(S->getType())),
          Depth + 1);
    case scZeroExtend:
    case scSignExtend:
    case scPtrToInt:
      return lin(cast<SCEVCastExpr>(S)->getOperand(0), TruncBits, Depth + 1);
    case scAddExpr: {
      Poly Sum;
      for (const SCEV *Op : cast<SCEVAddExpr>(S)->operands()) {
        std::optional<Poly> P = lin(Op, TruncBits, Depth + 1);
        if (!P || !addScaled(Sum, *P, 1))
          return std::nullopt;
      }
      return Sum;
    }
    case scMulExpr: {
      Poly Prod{{Monomial{}, 1}};
      for (const SCEV *Op : cast<SCEVMulExpr>(S)->operands()) {
        std::optional<Poly> P = lin(Op, TruncBits, Depth + 1);
        if (!P)
          return std::nullopt;
        std::optional<Poly> Next = multiply(Prod, *P);
        if (!Next)
          return std::nullopt;
        Prod = std::move(*Next);
      }
      return Prod;
    }
    case scAddRecExpr: {
      auto *AR = cast<SCEVAddRecExpr>(S);
      bool Nested = NestedAtoms && AR->getLoop() != L &&
                    L->contains(AR->getLoop());
      if (AR->getLoop() != L && !Nested) {
        SawOtherLoop = true;
        return std::nullopt;
      }
      if (!AR->isAffine())
        return std::nullopt;
      std::optional<Poly> Start = lin(AR->getStart(), TruncBits, Depth + 1);
      std::optional<Poly> Step =
          lin(AR->getStepRecurrence(SE), TruncBits, Depth + 1);
      if (!Start || !Step)
        return std::nullopt;
      const void *Count =
          Nested ? static_cast<const void *>(AR->getLoop()) : iteration();
      std::optional<Poly> Moved = multiply(*Step, Poly{{Monomial{Count}, 1}});
      if (!Moved || !addScaled(*Start, *Moved, 1))
        return std::nullopt;
      return Start;
    }
    case scUDivExpr: {
      auto *D = cast<SCEVUDivExpr>(S);
      if (!Div)
        return std::nullopt;
      std::optional<Poly> Num = lin(D->getLHS(), UINT_MAX, Depth + 1);
      std::optional<Poly> Den = lin(D->getRHS(), UINT_MAX, Depth + 1);
      if (!Num || !Den || *Num != IVPoly || *Den != *Div)
        return std::nullopt;
      return quotientTerm(false);
    }
    case scUnknown: {
      const Value *V = cast<SCEVUnknown>(S)->getValue();
      if (IVPhi && V == IVPhi)
        return IVPoly;
      if (Div) {
        if (std::optional<Poly> D = divisorOf(V); D && *D == *Div) {
          auto Op = cast<BinaryOperator>(V)->getOpcode();
          return quotientTerm(Op == Instruction::SRem ||
                              Op == Instruction::URem);
        }
      }
      unsigned W =
          std::min<unsigned>(TruncBits, SE.getTypeSizeInBits(S->getType()));
      auto It = Bits.find(V);
      Bits[V] = It == Bits.end() ? W : std::min(It->second, W);
      return Poly{{Monomial{V}, 1}};
    }
    default:
      return std::nullopt;
    }
  }

  ScalarEvolution &SE;
  const Loop *L;
  const PHINode *IVPhi = nullptr;
  Poly IVPoly;
  std::optional<Poly> Div;
  char QuotientTag = 0;
};

// ---------------------------------------------------------------------------
// The clone the analysis works on

class Workbench {
public:
  explicit Workbench(const Module &M) {
    Clone = CloneModule(M, VMap);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    for (Function &F : *Clone) {
      // -O0 marks everything optnone/noinline; the clone is ours to optimize.
      // (The program's functions P calls are inlined into the clone's P:
      // inlineProgramCalls.)
      F.removeFnAttr(Attribute::OptimizeNone);
      F.removeFnAttr(Attribute::NoInline);
      // The static inits only write through the slots they are given and do
      // not keep them: tell alias analysis, so that LICM can hoist the loads
      // of the stride slot out of the loop and SCEV sees an induction.
      // The device runtime's bodies (linked in as builtin bitcode, see
      // isRuntimeEntry) would be inlined into the chain and hide the loop
      // from the analysis: the clone sees the runtime as declarations, as
      // in a module compiled with -nogpulib.
      if (isRuntimeEntry(F) && !F.isDeclaration())
        F.deleteBody();
      if (F.isDeclaration() && isDistributeInit(F.getName()))
        for (unsigned I = 0; I < F.arg_size(); ++I)
          if (F.getArg(I)->getType()->isPointerTy())
            F.addParamAttr(I, Attribute::NoCapture);
      if (F.isDeclaration() && isDistributeInit(F.getName()))
        F.setMemoryEffects(MemoryEffects::argMemOnly());
    }
  }

  Function *map(Function *F) {
    auto It = VMap.find(F);
    if (It == VMap.end())
      return nullptr;
    return dyn_cast_or_null<Function>(It->second);
  }

  // Stage 1: promote clang's stack slots and clean up (all of K, T, P).
  // GPUs' generic mode keeps a teams region's variables that its parallel
  // regions share (and the pointers it hands them) in memory from
  // `__kmpc_alloc_shared`; on the clone they are stack slots like any other
  // (what OpenMPOpt's heap-to-stack does for SPMD kernels), so that the
  // cleanup forwards what is stored in them.
  void simplify(Function &F) {
    demoteSharedAllocs(F);
    FunctionPassManager FPM;
    FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
    FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false));
    FPM.addPass(SimplifyCFGPass());
    FPM.run(F, FAM);
  }

  // Stage 2 (P only): loop-invariant loads out of the loop, so that the
  // worksharing IV becomes an add recurrence.
  void hoist(Function &F) {
    FunctionPassManager FPM;
    FPM.addPass(LoopSimplifyPass());
    FPM.addPass(LCSSAPass());
    FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()),
                                                /*UseMemorySSA=*/true));
    FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false));
    FPM.run(F, FAM);
  }

  FunctionAnalysisManager &fam() { return FAM; }

  static void demoteSharedAllocs(Function &F) {
    SmallVector<CallBase *, 8> Allocs, Frees;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(CB);
        if (N == "__kmpc_alloc_shared" && isa<ConstantInt>(CB->getArgOperand(0)))
          Allocs.push_back(CB);
        else if (N == "__kmpc_free_shared")
          Frees.push_back(CB);
      }
    if (Allocs.empty())
      return;
    // Only when every free is of one of these allocations.
    SmallPtrSet<Value *, 8> Ours(Allocs.begin(), Allocs.end());
    for (CallBase *Free : Frees)
      if (!Ours.contains(Free->getArgOperand(0)->stripPointerCasts()))
        return;
    IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    for (CallBase *A : Allocs) {
      uint64_t Size = cast<ConstantInt>(A->getArgOperand(0))->getZExtValue();
      // A typed array, not a count: SROA splits only the former.
      AllocaInst *Slot = B.CreateAlloca(ArrayType::get(B.getInt8Ty(), Size));
      Slot->setAlignment(Align(16));
      Value *P = Slot;
      if (P->getType() != A->getType())
        P = B.CreateAddrSpaceCast(P, A->getType());
      A->replaceAllUsesWith(P);
      A->eraseFromParent();
    }
    for (CallBase *Free : Frees)
      Free->eraseFromParent();
  }

private:
  // Declaration order = reverse destruction order: the analysis managers go
  // before the pass builder they call into and the module they describe.
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Clone;
  PassBuilder PB;
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
};

// ---------------------------------------------------------------------------
// Reductions: naming the combination

// Inputs (target, private) on which the combinations the runtime knows give
// pairwise different results, signed and unsigned min and max included. Every
// value fits an i8.
constexpr unsigned NumRedTests = 8;
const int64_t IntTests[NumRedTests][2] = {{3, 5},  {5, 3}, {-2, 7}, {6, 3},
                                          {2, 1},  {0, 9}, {0, 0},  {12, -10}};
const double FPTests[NumRedTests][2] = {{1.5, 2.25}, {2.25, 1.5}, {-3.0, 0.5},
                                        {0.0, 4.0},  {2.0, 0.0},  {0.0, 0.0},
                                        {4.0, -0.5}, {-1.0, -2.0}};

// A scalar type the runtime can combine: an integer of 8 to 64 bits, float or
// double.
bool isReducibleType(Type *Ty) {
  if (auto *IT = dyn_cast<IntegerType>(Ty))
    return IT->getBitWidth() == 8 || IT->getBitWidth() == 16 ||
           IT->getBitWidth() == 32 || IT->getBitWidth() == 64;
  return Ty->isFloatTy() || Ty->isDoubleTy();
}

Constant *redTestValue(Type *Ty, unsigned T, bool Private) {
  if (Ty->isIntegerTy())
    return ConstantInt::get(Ty, IntTests[T][Private], /*IsSigned=*/true);
  return ConstantFP::get(Ty, FPTests[T][Private]);
}

// `a op b` as the runtime combines, for a = target, b = private (min and max
// as clang's combiner writes them: `a > b ? a : b`).
APInt intCombine(uint32_t Op, bool Unsigned, const APInt &A, const APInt &B) {
  unsigned W = A.getBitWidth();
  switch (Op) {
  case RedAdd:
    return A + B;
  case RedMul:
    return A * B;
  case RedMax:
    return (Unsigned ? A.ugt(B) : A.sgt(B)) ? A : B;
  case RedMin:
    return (Unsigned ? A.ult(B) : A.slt(B)) ? A : B;
  case RedBitAnd:
    return A & B;
  case RedBitOr:
    return A | B;
  case RedBitXor:
    return A ^ B;
  case RedAnd:
    return APInt(W, !A.isZero() && !B.isZero());
  default:
    return APInt(W, !A.isZero() || !B.isZero());
  }
}

APFloat fpCombine(uint32_t Op, const APFloat &A, const APFloat &B) {
  const fltSemantics &Sem = A.getSemantics();
  auto Bool = [&](bool V) {
    APFloat One(1.0), Zero(0.0);
    APFloat R = V ? One : Zero;
    bool Lost = false;
    R.convert(Sem, APFloat::rmNearestTiesToEven, &Lost);
    return R;
  };
  APFloat R = A;
  switch (Op) {
  case RedAdd:
    R.add(B, APFloat::rmNearestTiesToEven);
    return R;
  case RedMul:
    R.multiply(B, APFloat::rmNearestTiesToEven);
    return R;
  case RedMax:
    return A.compare(B) == APFloat::cmpGreaterThan ? A : B;
  case RedMin:
    return A.compare(B) == APFloat::cmpLessThan ? A : B;
  case RedAnd:
    return Bool(!A.isZero() && !B.isZero());
  default:
    return Bool(!A.isZero() || !B.isZero());
  }
}

// The operator and type codes of a combination of type Ty that gave Got[t]
// on test t; nullopt unless exactly one operator fits.
std::optional<std::pair<uint32_t, uint32_t>>
nameCombination(Type *Ty, const std::vector<Constant *> &Got) {
  struct Cand {
    uint32_t Op;
    bool Unsigned;
  };
  std::vector<Cand> Cands;
  if (Ty->isIntegerTy()) {
    Cands = {{RedAdd, false},    {RedMul, false},   {RedMax, false},
             {RedMax, true},     {RedMin, false},   {RedMin, true},
             {RedBitAnd, false}, {RedBitOr, false}, {RedBitXor, false},
             {RedAnd, false},    {RedOr, false}};
  } else {
    Cands = {{RedAdd, false}, {RedMul, false}, {RedMax, false},
             {RedMin, false}, {RedAnd, false}, {RedOr, false}};
  }
  std::optional<Cand> Found;
  for (const Cand &C : Cands) {
    bool All = true;
    for (unsigned T = 0; T < NumRedTests && All; ++T) {
      Constant *A = redTestValue(Ty, T, false), *B = redTestValue(Ty, T, true);
      if (auto *GI = dyn_cast_or_null<ConstantInt>(Got[T]))
        All = Ty->isIntegerTy() &&
              GI->getValue() == intCombine(C.Op, C.Unsigned,
                                           cast<ConstantInt>(A)->getValue(),
                                           cast<ConstantInt>(B)->getValue());
      else if (auto *GF = dyn_cast_or_null<ConstantFP>(Got[T]))
        All = !Ty->isIntegerTy() &&
              GF->getValue().bitwiseIsEqual(
                  fpCombine(C.Op, cast<ConstantFP>(A)->getValue(),
                            cast<ConstantFP>(B)->getValue()));
      else
        All = false;
    }
    if (!All)
      continue;
    if (Found)
      return std::nullopt;
    Found = C;
  }
  if (!Found)
    return std::nullopt;
  uint32_t TypeCode = RedF64;
  if (Ty->isFloatTy())
    TypeCode = RedF32;
  else if (Ty->isIntegerTy())
    TypeCode = RedI8 + Log2_32(Ty->getIntegerBitWidth() / 8) +
               (Found->Unsigned ? RedU8 - RedI8 : 0);
  return std::make_pair(Found->Op, TypeCode);
}

// Runs the code from block Start (entered from Prev) until control reaches
// Join or returns, on constants, with memory Mem (locations as LocOf names
// them). False if the code does anything else than arithmetic, loads and
// stores of those locations and intrinsics that fold (a call, a load of
// anything else, a loop that does not end).
bool interpret(BasicBlock *Start, BasicBlock *Prev, BasicBlock *Join,
               function_ref<const Value *(Value *)> LocOf,
               std::map<const Value *, Constant *> &Mem, const DataLayout &DL) {
  DenseMap<const Value *, Constant *> Vals;
  auto Get = [&](Value *V) -> Constant * {
    if (isa<ConstantInt>(V) || isa<ConstantFP>(V))
      return cast<Constant>(V);
    return Vals.lookup(V);
  };
  BasicBlock *BB = Start;
  unsigned Steps = 0;
  while (BB && Steps < 4096) {
    SmallVector<std::pair<PHINode *, Constant *>, 4> Phis;
    for (PHINode &Phi : BB->phis()) {
      int Idx = Phi.getBasicBlockIndex(Prev);
      Constant *C = Idx < 0 ? nullptr : Get(Phi.getIncomingValue(Idx));
      if (!C)
        return false;
      Phis.push_back({&Phi, C});
    }
    for (auto &[Phi, C] : Phis)
      Vals[Phi] = C;
    BasicBlock *Next = nullptr;
    for (Instruction &I : *BB) {
      if (isa<PHINode>(I) || isa<DbgInfoIntrinsic>(I))
        continue;
      if (++Steps >= 4096)
        return false;
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        const Value *L = LocOf(LI->getPointerOperand());
        auto It = L ? Mem.find(L) : Mem.end();
        if (It == Mem.end() || It->second->getType() != LI->getType())
          return false;
        Vals[LI] = It->second;
        continue;
      }
      if (auto *SI = dyn_cast<StoreInst>(&I)) {
        const Value *L = LocOf(SI->getPointerOperand());
        Constant *V = Get(SI->getValueOperand());
        if (!L || !V)
          return false;
        Mem[L] = V;
        continue;
      }
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (auto *II = dyn_cast<IntrinsicInst>(CB);
            II && (II->isLifetimeStartOrEnd() || II->isAssumeLikeIntrinsic()))
          continue;
        if (isEndReduce(calleeName(CB)))
          continue;
        Function *F = CB->getCalledFunction();
        if (!F || !F->isIntrinsic() || !canConstantFoldCallTo(CB, F))
          return false;
        SmallVector<Constant *, 4> Ops;
        for (Value *A : CB->args()) {
          Constant *C = Get(A);
          if (!C)
            return false;
          Ops.push_back(C);
        }
        Constant *R = ConstantFoldCall(CB, F, Ops);
        if (!R)
          return false;
        Vals[CB] = R;
        continue;
      }
      if (auto *Br = dyn_cast<BranchInst>(&I)) {
        if (Br->isUnconditional()) {
          Next = Br->getSuccessor(0);
        } else {
          auto *C = dyn_cast_or_null<ConstantInt>(Get(Br->getCondition()));
          if (!C)
            return false;
          Next = Br->getSuccessor(C->isOne() ? 0 : 1);
        }
        break;
      }
      if (auto *Sw = dyn_cast<SwitchInst>(&I)) {
        auto *C = dyn_cast_or_null<ConstantInt>(Get(Sw->getCondition()));
        if (!C)
          return false;
        Next = Sw->findCaseValue(C)->getCaseSuccessor();
        break;
      }
      if (isa<ReturnInst>(I))
        return true;
      if (I.isTerminator() || I.mayReadOrWriteMemory())
        return false;
      if (auto *FI = dyn_cast<FreezeInst>(&I)) {
        Constant *C = Get(FI->getOperand(0));
        if (!C)
          return false;
        Vals[FI] = C;
        continue;
      }
      SmallVector<Constant *, 4> Ops;
      for (Value *Op : I.operands()) {
        Constant *C = Get(Op);
        if (!C)
          return false;
        Ops.push_back(C);
      }
      Constant *R = ConstantFoldInstOperands(&I, Ops, DL);
      if (!R || !(isa<ConstantInt>(R) || isa<ConstantFP>(R)))
        return false;
      Vals[&I] = R;
    }
    if (!Next)
      return false;
    if (Next == Join)
      return true;
    Prev = BB;
    BB = Next;
  }
  return false;
}

// ---------------------------------------------------------------------------
// The analysis of one kernel (on the clone)

// An access's byte offset from its kernel argument, affine in the iteration.
struct Affine {
  int64_t C0 = 0;
  int64_t C1 = 0;
  int32_t SymParam = -1;
  uint32_t SymBits = 0;
  int64_t SymCoeff = 0;
  Expr C1Sym; // the symbolic part of C1 (C = 0): a row length
  Expr QCoeff;
  Expr Div;
  bool Linear = true; // the offset is C1 * iv + C0 (+ sym) without q
};

enum class AffineFail { NonAffine, OtherLoop, TwoSymbols };

std::string argName(unsigned I) { return "arg" + std::to_string(I); }

// The names the program gave the parameters of the kernel being analysed, where debug info
// (-g) has them: parameter index (dyn_ptr not counted) -> name. Set by readParamNames.
std::map<unsigned, std::string> ParamNames;

// A kernel parameter as a refusal names it: its source name where -g gave one ('x' (arg1)),
// else argN.
std::string argLabel(unsigned I) {
  auto It = ParamNames.find(I);
  if (It == ParamNames.end())
    return argName(I);
  return "'" + It->second + "' (" + argName(I) + ")";
}

// Reads the names of kernel K's parameters from the debug records of its _debug__ body (clang
// gives each parameter there a variable with its argument number: 1 is dyn_ptr).
void readParamNames(const Function &K) {
  ParamNames.clear();
  const Function *D = K.getParent()->getFunction((K.getName() + "_debug__").str());
  auto Take = [](const DILocalVariable *V) {
    if (V && V->getArg() >= 2 && !V->getName().empty())
      ParamNames.emplace(V->getArg() - 2, V->getName().str());
  };
  for (const Function *F : {D, &K}) {
    if (!F)
      continue;
    for (const Instruction &I : instructions(*F)) {
      if (auto *DVI = dyn_cast<DbgVariableIntrinsic>(&I))
        Take(DVI->getVariable());
      for (const DbgVariableRecord &R : filterDbgVars(I.getDbgRecordRange()))
        Take(R.getVariable());
    }
    if (!ParamNames.empty())
      return;
  }
}

// Where the access V is in the source, when debug info says: " (line N)", else "".
std::string lineOf(const Value *V) {
  auto *I = dyn_cast_or_null<Instruction>(V);
  if (!I || !I->getDebugLoc() || I->getDebugLoc().getLine() == 0)
    return "";
  return " (line " + std::to_string(I->getDebugLoc().getLine()) + ")";
}

class KernelAnalysis {
public:
  // Nested: C.P is C.T with the parallel region inlined (a `teams
  // distribute` whose body runs a `parallel for`: inlineParallelRegion); its
  // loop is the distribute loop.
  KernelAnalysis(Workbench &WB, const Chain &C, const DataLayout &DL,
                 bool Nested = false)
      : WB(WB), C(C), DL(DL), Tr(C, DL), Nested(Nested) {}

  // Fills Records, or Why with the reason the kernel stays on one device.
  bool run(std::vector<Record> &Records, std::string &Why);

private:
  bool refuse(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return false;
  }

  bool checkHazards(Function &F);
  bool checkCalls(Function &F);
  bool checkInstructions(Function &F);
  bool checkPlumbing();
  bool findIV();
  bool atomicReductions();
  bool checkOuterAccesses(Function &F);
  bool analyseAccesses();
  bool checkAddressValues();
  std::optional<unsigned> mappedBase(Value *Ptr);
  bool access(Instruction *At, Value *Ptr, bool IsWrite, int64_t Width);
  std::optional<std::vector<Affine>> affine(Value *Ptr, unsigned Param,
                                            AffineFail &Fail);
  std::optional<Affine> affineAt(const SCEV *Off, AffineFail &Fail);
  bool endpoints(const SCEV *S, Value *At, SmallVectorImpl<const SCEV *> &Out);
  bool monotoneIn(const SCEV *S, const Loop *L2);
  const SCEV *lastIteration(const Loop *L2, Value *At);
  const SCEV *stripEmptyMax(const SCEV *S);
  // A polynomial in the collapsed loop's variables (toQR).
  struct QR {
    Poly RC;
    Poly QC, Cst;
    bool UsesQ = false; // false: P is RC * iv + Cst
  };
  std::optional<QR> toQR(const Poly &P);
  std::optional<Expr> exprOf(const Poly &P, AffineFail &Fail);
  std::vector<Guard> guardsOf(Instruction *I, const SCEV *Off);
  std::optional<Guard> offsetGuard(const Poly &G, const SCEV *Off);
  bool buildRecords(std::vector<Record> &Records);

  // Reductions (KernelAnalysis::reductionSite).
  struct RedVar {
    const Value *Target = nullptr; // K's parameter (in T), T's copy (in P)
    AllocaInst *Private = nullptr; // the function's private copy
    uint32_t Op = 0, Type = 0;     // spread.h codes
    int64_t Width = 0;             // bytes
  };
  bool recogniseReductions();
  bool reductionSite(Function &F, std::vector<RedVar> &Vars);
  const Value *locationOf(Value *Ptr);
  // The instructions of clang's reduction code, which the other checks skip
  // (marked with metadata on the clone, so that the later cleanup of P
  // cannot leave a stale mark on another instruction).
  bool exempt(const Instruction &I) const {
    return ExemptKind && I.getMetadata(ExemptKind);
  }
  void markExempt(Instruction &I) {
    I.setMetadata(ExemptKind, MDNode::get(I.getContext(), {}));
  }
  unsigned ExemptKind = 0;
  std::vector<RedVar> TVars;
  DenseMap<const Value *, unsigned> TPrivates; // T's copy -> index in TVars
  std::map<unsigned, Record> Reductions;       // by kernel argument
  std::vector<AtomicRMWInst *> Atomics;        // P's atomic updates, for atomicReductions

  Workbench &WB;
  const Chain &C; // clone functions and calls
  const DataLayout &DL;
  Tracer Tr;
  bool Nested;
  std::string Why;

  CallBase *PInit = nullptr;
  AllocaInst *LbSlot = nullptr;
  PHINode *IVPhi = nullptr;
  Loop *IVLoop = nullptr;
  ScalarEvolution *SE = nullptr;
  DominatorTree *DT = nullptr;
  LoopInfo *LInfo = nullptr;
  std::unique_ptr<Linearizer> Lin;
  Poly IVPoly;

  struct ParamUse {
    std::vector<std::pair<Record, bool /*write*/>> Forms;
    bool Written = false;
    int64_t NonAffineReadWidth = 0; // > 0: the argument is read non-affinely
  };
  std::map<unsigned, ParamUse> Params;
};

// The calls that make a kernel unspreadable by what they are, whatever else
// the kernel does; empty if N is none of them.
std::string hazardOf(StringRef N) {
  std::string Shown = demangle(N.str());
  if (N.starts_with("__kmpc_reduce") || N.starts_with("__kmpc_end_reduce") ||
      (N.starts_with("__kmpc_nvptx_") && N.contains("reduce")) ||
      N.starts_with("__kmpc_reduction"))
    return "a reduction (calls " + Shown + ")";
  if (N.starts_with("__kmpc_critical") || N == "__kmpc_end_critical")
    return "a critical section (calls " + Shown + ")";
  if (N.starts_with("__kmpc_atomic") || N.starts_with("__atomic_"))
    return "an atomic update (calls " + Shown + ")";
  if (N == "__kmpc_flush")
    return "a memory fence (calls " + Shown + ")";
  if (N.starts_with("__kmpc_dispatch_"))
    return "a dynamic schedule (calls " + Shown + ")";
  if (N == "omp_get_team_num" || N == "omp_get_num_teams")
    return "a team-number query (" + Shown + ")";
  if (N == "omp_get_thread_num" || N == "omp_get_num_threads" ||
      N == "omp_get_max_threads" || N == "omp_get_thread_limit" ||
      N == "omp_get_team_size" || N == "omp_get_ancestor_thread_num" ||
      N == "omp_get_level" || N == "omp_get_active_level" ||
      N == "omp_in_parallel")
    return "a thread-number query (" + Shown + ")";
  return "";
}

// Reductions, critical sections, dynamic schedules, team and thread queries.
// Checked before anything else: the runtime calls that implement them (the
// GPU's warp masks for critical, ...) would otherwise be reported as unknown
// calls.
bool KernelAnalysis::checkHazards(Function &F) {
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I); CB && !exempt(*CB))
      if (std::string Why = hazardOf(calleeName(CB)); !Why.empty())
        return refuse(Why);
  return true;
}

// Every other call must be clang's bookkeeping, math, or memory(none).
bool KernelAnalysis::checkCalls(Function &F) {
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || CB == C.TCall || CB == C.PCall || exempt(*CB))
      continue;
    if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
      if (isa<MemIntrinsic>(II) || II->isLifetimeStartOrEnd() ||
          isa<DbgInfoIntrinsic>(II) || II->isAssumeLikeIntrinsic() ||
          II->doesNotAccessMemory())
        continue;
      switch (II->getIntrinsicID()) {
      case Intrinsic::stacksave:
      case Intrinsic::stackrestore:
      case Intrinsic::experimental_noalias_scope_decl:
        continue;
      default:
        return refuse("a call to '" + II->getCalledFunction()->getName().str() +
                      "' with unknown memory effects");
      }
    }
    Function *Callee = CB->getCalledFunction();
    if (!Callee)
      return refuse("an indirect call");
    StringRef N = Callee->getName();
    if (isBookkeepingCall(N) || isMathFunction(N) ||
        Callee->doesNotAccessMemory())
      continue;
    return refuse("a call to '" + demangle(N.str()) +
                  "' with unknown memory effects");
  }
  return true;
}

// Atomics and fences anywhere in the chain.
bool KernelAnalysis::checkInstructions(Function &F) {
  for (Instruction &I : instructions(F)) {
    if (exempt(I))
      continue;
    // P's atomic updates may be reductions (atomicReductions, once the loop is known).
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I); RMW && &F == C.P) {
      Atomics.push_back(RMW);
      continue;
    }
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
      return refuse("an atomic update" + lineOf(&I));
    if (isa<FenceInst>(I))
      return refuse("a memory fence");
    if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->isAtomic())
      return refuse("an atomic access");
    if (auto *SI = dyn_cast<StoreInst>(&I); SI && SI->isAtomic())
      return refuse("an atomic access");
    if (isa<VAArgInst>(I))
      return refuse("a va_arg");
  }
  return true;
}

// Whether V is (a cast of) a load of Slot.
bool loadsFrom(Value *V, Value *Slot) {
  while (V && isa<CastInst>(V))
    V = cast<CastInst>(V)->getOperand(0);
  auto *LI = dyn_cast_or_null<LoadInst>(V);
  return LI && LI->getPointerOperand()->stripPointerCasts() ==
                   Slot->stripPointerCasts();
}

// The combined-loop pattern: P's worksharing loop starts from the chunk T
// hands it (prev.lb, prev.ub), so that the window clamps in T and P bound
// the iterations, and the IV is the normalized iteration.
bool KernelAnalysis::checkPlumbing() {
  const std::string NoLoopWhy = NoLoop;
  CallBase *TInit = nullptr;
  for (Instruction &I : instructions(*C.T))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && isDistributeInit(calleeName(CB))) {
      if (TInit)
        return refuse(NoLoopWhy + " (more than one distribute loop)");
      TInit = CB;
    }
  if (!TInit)
    return refuse(NoLoopWhy + " (no distribute loop in the teams region)");
  if (!Nested && !C.MoreP.empty())
    return refuse(NoLoopWhy + " (more than one parallel region in the teams "
                           "region, one taking the distribute chunk)");
  if (Nested) {
    // The distribute loop is the loop; its iteration is the normalized one.
    PInit = TInit;
    LbSlot = dyn_cast<AllocaInst>(TInit->getArgOperand(4)->stripPointerCasts());
    return LbSlot || refuse(NoLoopWhy + " (unexpected distribute bounds)");
  }
  for (Instruction &I : instructions(*C.P))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && isForStaticInit(calleeName(CB))) {
      if (PInit)
        return refuse(NoLoopWhy + " (more than one worksharing loop)");
      PInit = CB;
    }
  if (!PInit)
    return refuse(NoLoopWhy +
                  " (no static worksharing loop in the parallel region)");
  if (PInit->arg_size() < 7)
    return refuse(NoLoopWhy);
  LbSlot = dyn_cast<AllocaInst>(PInit->getArgOperand(4)->stripPointerCasts());
  auto *UbSlot =
      dyn_cast<AllocaInst>(PInit->getArgOperand(5)->stripPointerCasts());
  if (!LbSlot || !UbSlot)
    return refuse(NoLoopWhy + " (unexpected worksharing bounds)");
  // The last stores to the bound slots before the init, in its block.
  auto StoredBefore = [&](AllocaInst *Slot) -> Value * {
    for (Instruction *I = PInit->getPrevNode(); I; I = I->getPrevNode())
      if (auto *SI = dyn_cast<StoreInst>(I))
        if (SI->getPointerOperand()->stripPointerCasts() == Slot)
          return SI->getValueOperand();
    return nullptr;
  };
  auto FromArg = [&](Value *V, unsigned N) {
    while (V && isa<CastInst>(V))
      V = cast<CastInst>(V)->getOperand(0);
    return V == C.P->getArg(N);
  };
  if (C.P->arg_size() < 4 || !FromArg(StoredBefore(LbSlot), 2) ||
      !FromArg(StoredBefore(UbSlot), 3))
    return refuse(NoLoopWhy + " (the parallel loop does not take the distribute "
                           "chunk)");
  // And T hands P its distribute bounds (loads of the init's lb/ub slots).
  if (!loadsFrom(Tr.actualFor(C.P, 2), TInit->getArgOperand(4)) ||
      !loadsFrom(Tr.actualFor(C.P, 3), TInit->getArgOperand(5)))
    return refuse(NoLoopWhy + " (the parallel loop does not take the distribute "
                           "chunk)");
  return true;
}

// The worksharing IV: the loop-header phi that starts at the lb slot's value
// after the init.
bool KernelAnalysis::findIV() {
  const std::string NoLoopWhy = NoLoop;
  auto &LI = WB.fam().getResult<LoopAnalysis>(*C.P);
  auto &DTree = WB.fam().getResult<DominatorTreeAnalysis>(*C.P);
  SE = &WB.fam().getResult<ScalarEvolutionAnalysis>(*C.P);
  for (Instruction &I : instructions(*C.P)) {
    // (Through address-space casts on amdgcn, whose stack is addrspace(5).)
    auto *Load = dyn_cast<LoadInst>(&I);
    if (!Load || Load->getPointerOperand()->stripPointerCasts() != LbSlot ||
        !DTree.dominates(PInit, Load))
      continue;
    for (User *LU : Load->users()) {
      auto *Phi = dyn_cast<PHINode>(LU);
      if (!Phi)
        continue;
      Loop *L = LI.getLoopFor(Phi->getParent());
      if (!L || L->getHeader() != Phi->getParent() || L->contains(Load))
        continue;
      if (IVPhi && IVPhi != Phi)
        return refuse(NoLoopWhy + " (two candidate loops)");
      IVPhi = Phi;
      IVLoop = L;
    }
  }
  if (!IVPhi)
    return refuse(NoLoopWhy + " (the worksharing loop was not found)");
  Lin = std::make_unique<Linearizer>(*SE, IVLoop);
  const SCEV *S = SE->getSCEV(IVPhi);
  auto *AR = dyn_cast<SCEVAddRecExpr>(S);
  std::optional<Poly> P;
  if (AR && AR->getLoop() == IVLoop)
    P = Lin->run(S);
  if (!P)
    return refuse(NoLoopWhy + " (the loop's induction is not affine)");
  IVPoly = *P;
  Lin->setIV(IVPhi, IVPoly);
  DT = &DTree;
  LInfo = &LI;
  // A collapsed loop: clang splits the normalized iteration with a division
  // (and a remainder) by the inner loops' iteration count. One divisor per
  // kernel; with several (collapse(3), or the program's own divisions by
  // other values) the quotients stay opaque, as before.
  std::optional<Poly> Div;
  for (BasicBlock *BB : IVLoop->blocks()) {
    for (Instruction &I : *BB) {
      std::optional<Poly> D = Lin->divisorOf(&I);
      if (!D)
        continue;
      if (Div && *Div != *D)
        return true;
      Div = D;
    }
  }
  if (Div)
    Lin->setDivisor(*Div);
  return true;
}

// Memory accesses of K and T: only clang's bookkeeping (their own slots, the
// thread ids, read-only slots of K) is allowed there, since every device
// would run them.
bool KernelAnalysis::checkOuterAccesses(Function &F) {
  for (Instruction &I : instructions(F)) {
    if (exempt(I))
      continue;
    SmallVector<std::pair<Value *, bool>, 2> Ptrs;
    if (auto *LI = dyn_cast<LoadInst>(&I))
      Ptrs.push_back({LI->getPointerOperand(), false});
    else if (auto *SI = dyn_cast<StoreInst>(&I))
      Ptrs.push_back({SI->getPointerOperand(), true});
    else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      Ptrs.push_back({MI->getDest(), true});
      if (auto *MT = dyn_cast<MemTransferInst>(MI))
        Ptrs.push_back({MT->getSource(), false});
    }
    for (auto [Ptr, IsWrite] : Ptrs) {
      Value *Obj = getUnderlyingObject(Ptr, 0);
      if (auto *CB = dyn_cast<CallBase>(Obj);
          CB && calleeName(CB) == "__kmpc_alloc_shared")
        continue;
      unsigned Bits = 64;
      Source S = Tr.resolve(Obj, Bits);
      if (S.Kind == Source::Slot && S.Alloca->getFunction() == &F)
        continue;
      if (!IsWrite && (S.Kind == Source::Slot || S.Kind == Source::ThreadId))
        continue;
      if (S.Kind == Source::KernelArg)
        return refuse("a memory access to " + argLabel(S.Index) +
                      " outside the parallel loop" + lineOf(Ptr));
      if (auto *GV = dyn_cast_or_null<GlobalVariable>(S.Stop)) {
        if (GV->isConstant() && !IsWrite)
          continue;
        return refuse("a non-constant global variable ('" +
                      demangle(GV->getName().str()) + "')");
      }
      return refuse("a memory access outside the parallel loop");
    }
  }
  return true;
}

// P in the collapsed loop's variables: RC * r + QC * q + Cst, where QC and
// Cst are polynomials in loop-invariant atoms. Without a divisor, r is the
// iteration and QC is zero.
std::optional<KernelAnalysis::QR> KernelAnalysis::toQR(const Poly &P) {
  // The iteration-dependent monomials of P must be RC times those of the IV.
  const void *It = Lin->iteration();
  auto Moves = [&](const Monomial &M) {
    return std::find(M.begin(), M.end(), It) != M.end();
  };
  Poly IVMoving, PMoving;
  for (const auto &[M, Coeff] : IVPoly)
    if (Moves(M))
      IVMoving[M] = Coeff;
  for (const auto &[M, Coeff] : P)
    if (Moves(M))
      PMoving[M] = Coeff;
  if (IVMoving.empty())
    return std::nullopt;
  QR Out;
  if (!PMoving.empty()) {
    // RC * (the IV's moving monomial) = P's moving part, RC a polynomial in
    // loop-invariant atoms (a row length: `a[i * n]`).
    if (IVMoving.size() != 1)
      return std::nullopt;
    const auto &[M0, IVC] = *IVMoving.begin();
    for (const auto &[M, Coeff] : PMoving) {
      Monomial Quot = M;
      for (const void *A : M0) {
        auto At = std::find(Quot.begin(), Quot.end(), A);
        if (At == Quot.end())
          return std::nullopt;
        Quot.erase(At);
      }
      if (Coeff % IVC != 0 ||
          std::find(Quot.begin(), Quot.end(), It) != Quot.end() ||
          !addScaled(Out.RC, Poly{{Quot, Coeff / IVC}}, 1))
        return std::nullopt;
    }
    std::optional<Poly> Check = multiply(Out.RC, IVMoving);
    if (!Check || *Check != PMoving)
      return std::nullopt;
  }
  Poly Rest = P;
  std::optional<Poly> Moved = multiply(Out.RC, IVPoly);
  if (!Moved || !addScaled(Rest, *Moved, -1))
    return std::nullopt;
  // iv = m * q + r: RC * iv contributes RC * m to q's coefficient.
  if (const std::optional<Poly> &Div = Lin->divisor()) {
    std::optional<Poly> RM = multiply(Out.RC, *Div);
    if (!RM || !addScaled(Out.QC, *RM, 1))
      return std::nullopt;
  }
  for (const auto &[M, Coeff] : Rest) {
    auto Q = std::find(M.begin(), M.end(), Lin->quotient());
    if (Q == M.end()) {
      Out.Cst[M] = Coeff;
      continue;
    }
    Monomial Without = M;
    Without.erase(Without.begin() + (Q - M.begin()));
    if (std::find(Without.begin(), Without.end(), Lin->quotient()) !=
        Without.end())
      return std::nullopt; // q * q
    if (!addScaled(Out.QC, Poly{{Without, Coeff}}, 1))
      return std::nullopt;
    Out.UsesQ = true;
  }
  return Out;
}

// A loop-invariant polynomial as a descriptor value: a constant and at most
// one by-value integer kernel argument.
std::optional<Expr> KernelAnalysis::exprOf(const Poly &P, AffineFail &Fail) {
  const void *It = Lin->iteration();
  Expr Out;
  std::map<unsigned, std::pair<int64_t, unsigned>> Syms; // param -> coeff, bits
  for (const auto &[M, Coeff] : P) {
    if (M.empty()) {
      Out.C = Coeff;
      continue;
    }
    if (M.size() != 1 || M[0] == It || M[0] == Lin->quotient())
      return std::nullopt;
    auto *V = const_cast<Value *>(static_cast<const Value *>(M[0]));
    unsigned Bits = Lin->Bits.lookup(V);
    Source SS = Tr.resolve(V, Bits);
    if (SS.Kind != Source::KernelArg ||
        !C.K->getArg(SS.Index + 1)->getType()->isIntegerTy())
      return std::nullopt;
    Bits = std::min<unsigned>(
        Bits, C.K->getArg(SS.Index + 1)->getType()->getIntegerBitWidth());
    auto [Entry, New] = Syms.insert({SS.Index, {0, Bits}});
    if (!New && Entry->second.second != Bits) {
      Fail = AffineFail::TwoSymbols;
      return std::nullopt;
    }
    if (__builtin_add_overflow(Entry->second.first, Coeff,
                               &Entry->second.first))
      return std::nullopt;
  }
  for (auto It2 = Syms.begin(); It2 != Syms.end();)
    It2 = It2->second.first == 0 ? Syms.erase(It2) : std::next(It2);
  if (Syms.size() > 1) {
    Fail = AffineFail::TwoSymbols;
    return std::nullopt;
  }
  if (!Syms.empty()) {
    const auto &[Param2, CoeffBits] = *Syms.begin();
    // The runtime reads the scalar from the low 32 or 64 bits of its slot.
    if (CoeffBits.second != 32 && CoeffBits.second != 64)
      return std::nullopt;
    Out.SymParam = static_cast<int32_t>(Param2);
    Out.SymCoeff = CoeffBits.first;
    Out.SymBits = CoeffBits.second;
  }
  return Out;
}

std::optional<std::vector<Affine>>
KernelAnalysis::affine(Value *Ptr, unsigned Param, AffineFail &Fail) {
  Fail = AffineFail::NonAffine;
  const SCEV *S = SE->getSCEV(Ptr);
  if (!S->getType()->isPointerTy())
    return std::nullopt;
  auto *Base = dyn_cast<SCEVUnknown>(SE->getPointerBase(S));
  if (!Base)
    return std::nullopt;
  unsigned BaseBits = 64;
  Source BS = Tr.resolve(Base->getValue(), BaseBits);
  if (BS.Kind != Source::KernelArg || BS.Index != Param)
    return std::nullopt;
  const SCEV *Off = SE->removePointerBase(S);
  if (isa<SCEVCouldNotCompute>(Off))
    return std::nullopt;
  // An access in a loop nested in the worksharing loop touches, in one
  // iteration, the bytes between its addresses at the nested loops' first
  // and last iterations.
  SmallVector<const SCEV *, 8> Ends;
  if (!endpoints(Off, Ptr, Ends)) {
    Fail = AffineFail::OtherLoop;
    return std::nullopt;
  }
  std::vector<Affine> Out;
  for (const SCEV *E : Ends) {
    std::optional<Affine> A = affineAt(E, Fail);
    if (!A)
      return std::nullopt;
    Out.push_back(*A);
  }
  return Out;
}

// Whether S moves monotonically with the iterations of nested loop L2 (an
// affine recurrence of L2 under additions, multiplications by values L2 does
// not change, casts and unsigned divisions by such values), so that its
// values in L2 lie between those at L2's first and last iterations.
bool KernelAnalysis::monotoneIn(const SCEV *S, const Loop *L2) {
  auto Contains = [&](const SCEV *X) {
    return SCEVExprContains(X, [&](const SCEV *Y) {
      auto *AR = dyn_cast<SCEVAddRecExpr>(Y);
      return AR && AR->getLoop() == L2;
    });
  };
  if (!Contains(S))
    return true;
  switch (S->getSCEVType()) {
  case scAddRecExpr: {
    auto *AR = cast<SCEVAddRecExpr>(S);
    return AR->getLoop() == L2 && AR->isAffine() &&
           !Contains(AR->getStart()) && !Contains(AR->getOperand(1));
  }
  case scAddExpr:
  case scMulExpr: {
    unsigned Moving = 0;
    for (const SCEV *Op : cast<SCEVNAryExpr>(S)->operands()) {
      if (!Contains(Op))
        continue;
      if (++Moving > 1 || !monotoneIn(Op, L2))
        return false;
    }
    return true;
  }
  case scTruncate:
  case scZeroExtend:
  case scSignExtend:
  case scPtrToInt:
    return monotoneIn(cast<SCEVCastExpr>(S)->getOperand(0), L2);
  case scUDivExpr: {
    auto *D = cast<SCEVUDivExpr>(S);
    return !Contains(D->getRHS()) && monotoneIn(D->getLHS(), L2);
  }
  default:
    return false;
  }
}

// The last iteration of nested loop L2 at which the code at At runs (an
// upper bound: the symbolic maximum where the exact count is unknown).
const SCEV *KernelAnalysis::lastIteration(const Loop *L2, Value *At) {
  // Where L2 tests an exit at its header and I runs after that test (clang's
  // loops before rotation), I runs one time less than that exit's count.
  auto *I = dyn_cast<Instruction>(At);
  BasicBlock *Header = L2->getHeader();
  auto *Br = dyn_cast<BranchInst>(Header->getTerminator());
  const SCEV *Last = SE->getCouldNotCompute();
  if (I && I->getParent() != Header && Br && Br->isConditional() &&
      L2->isLoopExiting(Header)) {
    BasicBlock *Stay = L2->contains(Br->getSuccessor(0)) ? Br->getSuccessor(0)
                                                          : Br->getSuccessor(1);
    if (DT->dominates(BasicBlockEdge(Header, Stay), I->getParent())) {
      const SCEV *Count = SE->getExitCount(L2, Header);
      if (!isa<SCEVCouldNotCompute>(Count))
        Last = SE->getMinusSCEV(stripEmptyMax(Count),
                                SE->getOne(Count->getType()));
    }
  }
  if (isa<SCEVCouldNotCompute>(Last)) {
    Last = SE->getBackedgeTakenCount(L2);
    if (isa<SCEVCouldNotCompute>(Last))
      Last = SE->getSymbolicMaxBackedgeTakenCount(L2);
    if (!isa<SCEVCouldNotCompute>(Last))
      Last = stripEmptyMax(Last);
  }
  return Last;
}

// A count k + smax(c, n) as k + n where k + c <= 0: where the smax picks c
// the loop runs nothing, and the range of a loop that runs nothing may be
// anything (`j <= i` gives 1 + smax(-1, i)).
const SCEV *KernelAnalysis::stripEmptyMax(const SCEV *S) {
  const SCEV *K = SE->getZero(S->getType());
  const SCEV *M = S;
  if (auto *Add = dyn_cast<SCEVAddExpr>(S);
      Add && Add->getNumOperands() == 2 && isa<SCEVConstant>(Add->getOperand(0))) {
    K = Add->getOperand(0);
    M = Add->getOperand(1);
  }
  auto *Max = dyn_cast<SCEVSMaxExpr>(M);
  if (!Max || Max->getNumOperands() != 2)
    return S;
  auto *C = dyn_cast<SCEVConstant>(Max->getOperand(0));
  auto *KC = cast<SCEVConstant>(K);
  if (!C || C->getAPInt().getBitWidth() > 64 ||
      KC->getAPInt().getSExtValue() + C->getAPInt().getSExtValue() > 0)
    return S;
  return SE->getAddExpr(K, Max->getOperand(1));
}

// S with every recurrence of a loop nested in the worksharing loop replaced
// by its first and last values, innermost loops first (up to 8 forms).
bool KernelAnalysis::endpoints(const SCEV *S, Value *At,
                               SmallVectorImpl<const SCEV *> &Out) {
  SmallVector<const SCEV *, 8> Work{S};
  while (!Work.empty()) {
    const SCEV *X = Work.pop_back_val();
    const Loop *Deepest = nullptr;
    SCEVExprContains(X, [&](const SCEV *Y) {
      auto *AR = dyn_cast<SCEVAddRecExpr>(Y);
      if (AR && AR->getLoop() != IVLoop && IVLoop->contains(AR->getLoop()) &&
          (!Deepest || AR->getLoop()->getLoopDepth() > Deepest->getLoopDepth()))
        Deepest = AR->getLoop();
      return false;
    });
    if (!Deepest) {
      if (Out.size() >= 8)
        return false;
      Out.push_back(X);
      continue;
    }
    if (!monotoneIn(X, Deepest))
      return false;
    const SCEV *Last = lastIteration(Deepest, At);
    if (isa<SCEVCouldNotCompute>(Last))
      return false;
    for (const SCEV *It : {SE->getZero(Last->getType()), Last}) {
      LoopToScevMapT Map;
      Map[Deepest] = It;
      const SCEV *Y = SCEVLoopAddRecRewriter::rewrite(X, Map, *SE);
      if (isa<SCEVCouldNotCompute>(Y) || Work.size() + Out.size() >= 8)
        return false;
      Work.push_back(Y);
    }
  }
  return true;
}

// One form of an access's offset (no nested loop left in it).
std::optional<Affine> KernelAnalysis::affineAt(const SCEV *Off,
                                               AffineFail &Fail) {
  Lin->SawOtherLoop = false;
  std::optional<Poly> A = Lin->run(Off);
  if (!A) {
    if (Lin->SawOtherLoop)
      Fail = AffineFail::OtherLoop;
    return std::nullopt;
  }
  std::optional<QR> Q = toQR(*A);
  if (!Q)
    return std::nullopt;
  std::optional<Expr> Cst = exprOf(Q->Cst, Fail);
  if (!Cst)
    return std::nullopt;
  std::optional<Expr> QC = exprOf(Q->QC, Fail);
  if (!QC)
    return std::nullopt;
  std::optional<Expr> RC = exprOf(Q->RC, Fail);
  if (!RC)
    return std::nullopt;
  Affine Out;
  Out.C1 = RC->C;
  Out.C1Sym = *RC;
  Out.C1Sym.C = 0;
  Out.C0 = Cst->C;
  Out.SymParam = Cst->SymParam;
  Out.SymBits = Cst->SymBits;
  Out.SymCoeff = Cst->SymCoeff;
  Out.QCoeff = *QC;
  Out.Linear = !Q->UsesQ;
  if (const std::optional<Poly> &D = Lin->divisor()) {
    AffineFail Ignored;
    std::optional<Expr> DE = exprOf(*D, Ignored);
    if (!DE)
      return std::nullopt;
    Out.Div = *DE;
  }
  return Out;
}

// G >= 0 (a polynomial over the loops' iteration counts, nested loops'
// included) as a bound on the access's offset Off: Off = A * G + B with B
// free of any loop, so Off >= B (A > 0) or Off <= B (A < 0).
std::optional<Guard> KernelAnalysis::offsetGuard(const Poly &G,
                                                 const SCEV *Off) {
  Lin->NestedAtoms = true;
  std::optional<Poly> O = Lin->run(Off);
  Lin->NestedAtoms = false;
  if (!O)
    return std::nullopt;
  auto Loopy = [&](const Monomial &M) {
    for (const void *A : M) {
      if (A == Lin->iteration() || A == Lin->quotient())
        return true;
      for (const Loop *L2 : IVLoop->getLoopsInPreorder())
        if (A == static_cast<const void *>(L2))
          return true;
    }
    return false;
  };
  // A from one moving monomial of G; then every moving monomial must agree.
  int64_t A = 0;
  for (const auto &[M, Coeff] : G) {
    if (!Loopy(M))
      continue;
    auto It = O->find(M);
    if (It == O->end() || It->second % Coeff != 0)
      return std::nullopt;
    A = It->second / Coeff;
    break;
  }
  if (A == 0)
    return std::nullopt;
  Poly B = *O;
  if (!addScaled(B, G, -A))
    return std::nullopt;
  for (const auto &[M, Coeff] : B)
    if (Loopy(M))
      return std::nullopt;
  AffineFail Ignored;
  std::optional<Expr> E = exprOf(B, Ignored);
  if (!E)
    return std::nullopt;
  Guard Gd;
  Gd.Var = VarOffset;
  // A > 0: Off - B >= 0; A < 0: B - Off >= 0.
  Gd.K = A > 0 ? 1 : -1;
  Gd.E = *E;
  if (A > 0) {
    Gd.E.C = -Gd.E.C;
    Gd.E.SymCoeff = -Gd.E.SymCoeff;
  }
  return Gd;
}

// The conditions I executes under, from the branches of the worksharing
// loop's body that dominate it: comparisons of loop variables with
// loop-invariant values that the collapsed loop's q or r alone decides. A
// condition the analysis cannot express is left out (the access then counts
// for more iterations than it runs: a larger section, never a smaller one).
std::vector<Guard> KernelAnalysis::guardsOf(Instruction *I, const SCEV *Off) {
  std::vector<Guard> Out;
  BasicBlock *BB = I->getParent();
  if (!DT || !LInfo || !IVLoop->contains(BB))
    return Out;
  auto Push = [&](const Guard &Gd) {
    if (Out.size() < MaxGuards &&
        none_of(Out, [&](const Guard &O) { return O.key() == Gd.key(); }))
      Out.push_back(Gd);
  };
  // One fact: X pred Y holds (signed predicates; eq as two).
  auto Fact = [&](CmpInst::Predicate Pred, Value *X, Value *Y) {
    if (!X->getType()->isIntegerTy())
      return;
    std::optional<Poly> PX = Lin->run(SE->getSCEV(X));
    std::optional<Poly> PY = Lin->run(SE->getSCEV(Y));
    // G >= 0 with G = X - Y - 1 (sgt), X - Y (sge), Y - X - 1 (slt), Y - X (sle).
    auto Add = [&](bool XMinusY, int64_t Minus) {
      auto Gap = [&](const Poly &A, const Poly &B) -> std::optional<Poly> {
        Poly G = XMinusY ? A : B;
        if (!addScaled(G, XMinusY ? B : A, -1) ||
            !addScaled(G, Poly{{Monomial{}, 1}}, -Minus))
          return std::nullopt;
        return G;
      };
      // A condition on a nested loop's variable (`if (b * BS + t < n)`)
      // bounds the access's offset where the offset moves with it.
      auto NestedFact = [&]() {
        Lin->NestedAtoms = true;
        std::optional<Poly> NX = Lin->run(SE->getSCEV(X));
        std::optional<Poly> NY = Lin->run(SE->getSCEV(Y));
        Lin->NestedAtoms = false;
        if (!NX || !NY || !Off)
          return;
        if (std::optional<Poly> G = Gap(*NX, *NY))
          if (std::optional<Guard> Gd = offsetGuard(*G, Off))
            Push(*Gd);
      };
      if (!PX || !PY)
        return NestedFact();
      std::optional<Poly> G = Gap(*PX, *PY);
      if (!G)
        return;
      std::optional<QR> Q = toQR(*G);
      if (!Q)
        return NestedFact();
      Guard Gd;
      auto Constant = [](const Poly &X) {
        return X.size() == 1 && X.begin()->first.empty();
      };
      if (Constant(Q->RC) && Q->QC.empty()) {
        Gd.Var = VarR;
        Gd.K = Q->RC.begin()->second;
      } else if (Q->RC.empty() && Constant(Q->QC) && Lin->divisor()) {
        Gd.Var = VarQ;
        Gd.K = Q->QC.begin()->second;
      } else {
        return NestedFact();
      }
      AffineFail Ignored;
      std::optional<Expr> E = exprOf(Q->Cst, Ignored);
      if (!E)
        return;
      Gd.E = *E;
      Push(Gd);
    };
    switch (Pred) {
    case CmpInst::ICMP_SGT:
      return Add(true, 1);
    case CmpInst::ICMP_SGE:
      return Add(true, 0);
    case CmpInst::ICMP_SLT:
      return Add(false, 1);
    case CmpInst::ICMP_SLE:
      return Add(false, 0);
    case CmpInst::ICMP_EQ:
      Add(true, 0);
      return Add(false, 0);
    default:
      return;
    }
  };
  // The facts a condition gives where it is Holds.
  std::function<void(Value *, bool, unsigned)> Facts = [&](Value *Cond,
                                                           bool Holds,
                                                           unsigned Depth) {
    if (Depth > 8)
      return;
    if (auto *Cmp = dyn_cast<ICmpInst>(Cond)) {
      Fact(Holds ? Cmp->getPredicate() : Cmp->getInversePredicate(),
           Cmp->getOperand(0), Cmp->getOperand(1));
      return;
    }
    Value *A = nullptr, *B = nullptr;
    using namespace PatternMatch;
    if (match(Cond, m_Not(m_Value(A))))
      return Facts(A, !Holds, Depth + 1);
    if (Holds && match(Cond, m_LogicalAnd(m_Value(A), m_Value(B)))) {
      Facts(A, true, Depth + 1);
      return Facts(B, true, Depth + 1);
    }
    if (!Holds && match(Cond, m_LogicalOr(m_Value(A), m_Value(B)))) {
      Facts(A, false, Depth + 1);
      return Facts(B, false, Depth + 1);
    }
  };
  DomTreeNode *N = DT->getNode(BB);
  for (; N && N->getIDom(); N = N->getIDom()) {
    // Branches of nested loops too: a condition on the worksharing loop's
    // variables holds for the whole iteration (one on a nested loop's does
    // not linearize and gives no fact).
    BasicBlock *D = N->getIDom()->getBlock();
    if (!IVLoop->contains(D))
      break;
    auto *Br = dyn_cast<BranchInst>(D->getTerminator());
    if (!Br || !Br->isConditional() ||
        Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    for (unsigned Succ = 0; Succ < 2; ++Succ)
      if (DT->dominates(BasicBlockEdge(D, Br->getSuccessor(Succ)), BB))
        Facts(Br->getCondition(), Succ == 0, 0);
  }
  return Out;
}

// One load or store (or memory intrinsic) of P.
bool KernelAnalysis::access(Instruction *At, Value *Ptr, bool IsWrite,
                            int64_t Width) {
  if (Width <= 0)
    return true; // touches no byte
  Value *Obj = getUnderlyingObject(Ptr, 0);
  if (auto *CB = dyn_cast<CallBase>(Obj);
      CB && calleeName(CB) == "__kmpc_alloc_shared")
    return true; // team-local memory
  unsigned Bits = 64;
  Source S = Tr.resolve(Obj, Bits);
  switch (S.Kind) {
  case Source::Slot:
    if (S.Alloca->getFunction() == C.P || !IsWrite)
      return true; // private, or a read of a capture by reference
    return refuse("a write to a variable of the target region");
  case Source::ThreadId:
    if (!IsWrite)
      return true;
    return refuse("a write through the thread id");
  case Source::Other:
    if (auto *GV = dyn_cast_or_null<GlobalVariable>(S.Stop)) {
      if (GV->isConstant() && !IsWrite)
        return true; // the same on every device
      return refuse("a non-constant global variable ('" +
                    demangle(GV->getName().str()) + "')");
    }
    if (isa_and_nonnull<LoadInst>(S.Stop))
      return refuse("a pointer loaded from memory (a struct member or a "
                    "pointer array)");
    return refuse("an access through a pointer the pass cannot trace");
  case Source::KernelArg:
    break;
  }
  if (Bits < DL.getPointerSizeInBits())
    return refuse("an access through a pointer the pass cannot trace");
  unsigned Param = S.Index;
  ParamUse &PU = Params[Param];
  AffineFail Fail = AffineFail::NonAffine;
  std::optional<std::vector<Affine>> Forms = affine(Ptr, Param, Fail);
  if (!Forms) {
    if (!IsWrite) {
      PU.NonAffineReadWidth = std::max(PU.NonAffineReadWidth, Width);
      return true;
    }
    switch (Fail) {
    case AffineFail::OtherLoop:
      return refuse("a write to " + argLabel(Param) +
                    " in a loop nested in the parallel loop whose range the "
                    "pass cannot bound" +
                    lineOf(At));
    case AffineFail::TwoSymbols:
      return refuse("more than one symbolic term in a write to " +
                    argLabel(Param) + lineOf(At));
    case AffineFail::NonAffine:
      return refuse("a non-affine write to " + argLabel(Param) + lineOf(At));
    }
  }
  const SCEV *Off = SE->removePointerBase(SE->getSCEV(Ptr));
  std::vector<Guard> Guards =
      guardsOf(At, isa<SCEVCouldNotCompute>(Off) ? nullptr : Off);
  for (const Affine &A : *Forms) {
    if (IsWrite && A.C1 == 0 && A.C1Sym.isZero())
      return refuse("a write to " + argLabel(Param) +
                    (A.Linear ? " at an address that does not depend on the "
                                "iteration"
                              : " at an address that only the outer loop of "
                                "the collapsed loops moves") +
                    lineOf(At));
    Record R;
    R.Param = Param;
    R.C0 = A.C0;
    R.C1 = A.C1;
    R.Width = Width;
    R.SymParam = A.SymParam;
    R.SymBits = A.SymBits;
    R.SymCoeff = A.SymCoeff;
    R.C1Sym = A.C1Sym;
    R.Guards = Guards;
    // An offset linear in the iteration needs the divisor only for its
    // guards (descriptors stay version 1 where nothing needs more).
    if (!A.Linear || !R.Guards.empty()) {
      R.QCoeff = A.QCoeff;
      R.Div = A.Div;
    }
    PU.Forms.push_back({R, IsWrite});
  }
  PU.Written |= IsWrite;
  return true;
}

bool KernelAnalysis::analyseAccesses() {
  for (Instruction &I : instructions(*C.P)) {
    if (exempt(I))
      continue;
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if (!access(LI, LI->getPointerOperand(), false,
                  DL.getTypeStoreSize(LI->getType()).getFixedValue()))
        return false;
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!access(SI, SI->getPointerOperand(), true,
                  DL.getTypeStoreSize(SI->getValueOperand()->getType())
                      .getFixedValue()))
        return false;
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      auto *Len = dyn_cast<ConstantInt>(MI->getLength());
      Value *DestObj = getUnderlyingObject(MI->getDest(), 0);
      unsigned Bits = 64;
      Source DS = Tr.resolve(DestObj, Bits);
      bool Private = DS.Kind == Source::Slot && DS.Alloca->getFunction() == C.P;
      if (!Private && (!Len || !Len->getValue().isSignedIntN(63)))
        return refuse("a memory copy of unknown size");
      int64_t Width = Len ? Len->getSExtValue() : 0;
      if (Len && Width == 0)
        continue; // touches nothing
      if (!access(MI, MI->getDest(), true, Width))
        return false;
      if (auto *MT = dyn_cast<MemTransferInst>(MI)) {
        if (!Len)
          return refuse("a memory copy of unknown size");
        if (!access(MI, MT->getSource(), false, Width))
          return false;
      }
    }
  }
  return true;
}

// The kernel argument whose mapped data Ptr points into, if any.
std::optional<unsigned> KernelAnalysis::mappedBase(Value *Ptr) {
  if (!Ptr->getType()->isPointerTy())
    return std::nullopt;
  unsigned Bits = 64;
  Source S = Tr.resolve(getUnderlyingObject(Ptr, 0), Bits);
  if (S.Kind != Source::KernelArg ||
      !C.K->getArg(S.Index + 1)->getType()->isPointerTy())
    return std::nullopt;
  return S.Index;
}

// Every device runs its blocks on its own copy of the mapped data, at its own
// address: a kernel that turns such an address into a value (`buf[i] =
// (uintptr_t)&buf[i]`, or comparing buf[i] with it) or stores the pointer
// computes something else on each device than on one. The difference of two
// addresses into the same argument is the same everywhere and stays allowed.
bool KernelAnalysis::checkAddressValues() {
  auto SameBaseDifference = [&](User *U, unsigned Base) {
    auto *BO = dyn_cast<BinaryOperator>(U);
    if (!BO || BO->getOpcode() != Instruction::Sub)
      return false;
    for (Value *Op : BO->operands()) {
      auto *PI = dyn_cast<PtrToIntInst>(Op);
      if (!PI || mappedBase(PI->getOperand(0)) != Base)
        return false;
    }
    return true;
  };
  for (Instruction &I : instructions(*C.P)) {
    if (exempt(I))
      continue;
    if (auto *PI = dyn_cast<PtrToIntInst>(&I)) {
      std::optional<unsigned> Base = mappedBase(PI->getOperand(0));
      if (!Base)
        continue;
      for (User *U : PI->users())
        if (!SameBaseDifference(U, *Base))
          return refuse("the address of " + argLabel(*Base) +
                        " used as a value (each device holds its own copy "
                        "at its own address)" + lineOf(PI));
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      std::optional<unsigned> Base = mappedBase(SI->getValueOperand());
      if (!Base)
        continue;
      unsigned Bits = 64;
      Source D = Tr.resolve(getUnderlyingObject(SI->getPointerOperand(), 0),
                            Bits);
      if (D.Kind == Source::Slot && D.Alloca->getFunction() == C.P)
        continue; // a private pointer variable
      return refuse("the address of " + argLabel(*Base) +
                    " stored to memory (each device holds its own copy at "
                    "its own address)" + lineOf(SI));
    }
  }
  return true;
}

bool KernelAnalysis::buildRecords(std::vector<Record> &Records) {
  for (auto &[Param, PU] : Params) {
    if (PU.NonAffineReadWidth > 0) {
      if (PU.Written)
        return refuse("a non-affine read of " + argLabel(Param) +
                      ", which is also written");
      // The runtime maps the whole section; the affine reads add nothing.
      Record R;
      R.Param = Param;
      R.Mode = ModeWhole;
      R.Width = PU.NonAffineReadWidth;
      Records.push_back(R);
      continue;
    }
    std::map<decltype(Record().key()), Record> Merged;
    for (auto &[R, IsWrite] : PU.Forms) {
      Record &M = Merged.try_emplace(R.key(), R).first->second;
      M.Mode |= IsWrite ? ModeWrite : ModeRead;
    }
    for (auto &[Key, R] : Merged)
      Records.push_back(R);
  }
  // The runtime gives each block a copy of a reduction variable of its own:
  // no other record may name the argument.
  for (auto &[Param, R] : Reductions) {
    if (Params.count(Param))
      return refuse("a reduction variable (" + argLabel(Param) +
                    ") that the loop also accesses");
    Records.push_back(R);
  }
  std::stable_sort(
      Records.begin(), Records.end(),
      [](const Record &A, const Record &B) { return A.Param < B.Param; });
  return true;
}

// The location a pointer names exactly (offset 0): a kernel parameter of
// the clone's K, or a stack slot; null otherwise.
const Value *KernelAnalysis::locationOf(Value *Ptr) {
  unsigned Bits = 64;
  Source S = Tr.resolve(Ptr, Bits);
  if (S.Kind == Source::KernelArg && Bits >= DL.getPointerSizeInBits())
    return C.K->getArg(S.Index + 1);
  if (S.Kind == Source::Slot)
    return S.Alloca;
  return nullptr;
}

// clang-19 lowers `reduction(op: s)` the same way at the end of T and of P:
// a private copy of s (F's alloca, started at op's identity) stands for s in
// the region; at its end the list of pointers to the private copies goes to
// the runtime's reduce call, and where that returns 1 the code clang inlines
// combines each copy into the variable F received, its "target" (in T the
// kernel argument, that is the program's variable; in P, T's copy):
//   x86:  r = __kmpc_reduce[_nowait](loc, gtid, n, size, list, func, lock)
//         switch r: 1 -> target = target op copy; __kmpc_end_reduce*
//                   2 -> atomics (or a critical section) on target
//   GPUs: r = __kmpc_nvptx_parallel_reduce_nowait_v2(loc, size, list, ...)  P
//         r = __kmpc_nvptx_teams_reduce_nowait_v2(loc, buf, n, size, list,
//                                                 ...)                      T
//         if (r == 1) target = target op copy
// This finds the copies and targets, names each op by running the combination
// on constants (so that -O0's branches and -O2's selects read the same), checks
// that the code of the other paths touches nothing else, and marks all of it
// exempt from the other checks. Vars stays empty without a reduce call.
bool KernelAnalysis::reductionSite(Function &F, std::vector<RedVar> &Vars) {
  const std::string Cannot = "a reduction the pass cannot follow";
  const bool InT = &F == C.T;
  CallBase *Call = nullptr;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      StringRef N = calleeName(CB);
      if (isUserReduction(N))
        return refuse(UserReduction);
      if (reduceListArg(N) < 0)
        continue;
      if (Call)
        return refuse(Cannot + " (two reduce calls in one region)");
      Call = CB;
    }
  if (!Call)
    return true;

  // The list of private copies: element k is the address of copy k.
  // (A `[N x ptr]` slot: the call's size argument is the list's size on x86
  // but the variables' on GPUs.)
  StringRef Name = calleeName(Call);
  unsigned ListArg = reduceListArg(Name);
  AllocaInst *List = nullptr;
  if (Call->arg_size() > ListArg)
    List =
        dyn_cast<AllocaInst>(Call->getArgOperand(ListArg)->stripPointerCasts());
  auto *ListTy = List ? dyn_cast<ArrayType>(List->getAllocatedType()) : nullptr;
  const int64_t PtrBytes = DL.getPointerSize();
  if (!List || List->getFunction() != &F || List->isArrayAllocation() ||
      !ListTy || !ListTy->getElementType()->isPointerTy() ||
      DL.getTypeStoreSize(ListTy->getElementType()) != uint64_t(PtrBytes) ||
      ListTy->getNumElements() == 0 || ListTy->getNumElements() > 64)
    return refuse(Cannot + " (its list of private copies)");
  std::vector<Value *> Elems(ListTy->getNumElements(), nullptr);
  for (StoreInst *SI : Tr.arrayStores(List)) {
    int64_t Off = 0;
    if (!Tr.storeOffset(SI, List, Off) || Off < 0 || Off % PtrBytes != 0 ||
        Off / PtrBytes >= static_cast<int64_t>(Elems.size()) ||
        Elems[Off / PtrBytes])
      return refuse(Cannot + " (its list of private copies)");
    Elems[Off / PtrBytes] = SI->getValueOperand();
  }
  SmallPtrSet<const Value *, 8> Privates;
  for (Value *E : Elems) {
    if (!E)
      return refuse(Cannot + " (its list of private copies)");
    auto *A = dyn_cast<AllocaInst>(E->stripPointerCasts());
    // An array section's copy is an array, or a pointer into one, and a
    // variable-length one adds its length to the list.
    if (!A || A->getFunction() != &F || A->isArrayAllocation() ||
        A->getAllocatedType()->isArrayTy())
      return refuse("an array reduction (a reduction over an array section; "
                    "only scalar variables are spread)");
    Type *Ty = A->getAllocatedType();
    if (!isReducibleType(Ty)) {
      std::string TyName;
      raw_string_ostream OS(TyName);
      Ty->print(OS);
      return refuse("a reduction over a type the pass cannot name ('" +
                    OS.str() + "')");
    }
    if (!Privates.insert(A).second)
      return refuse(Cannot + " (its list of private copies)");
    RedVar V;
    V.Private = A;
    V.Width = static_cast<int64_t>(DL.getTypeStoreSize(Ty).getFixedValue());
    Vars.push_back(V);
  }

  // Where the result goes: 1 -> Combine, 2 -> Atomic (x86), else Join.
  BasicBlock *Combine = nullptr, *Atomic = nullptr, *Join = nullptr;
  Instruction *Branch = nullptr;
  for (User *U : Call->users()) {
    if (Branch)
      return refuse(Cannot + " (the use of its result)");
    if (auto *SW = dyn_cast<SwitchInst>(U); SW && SW->getCondition() == Call) {
      Branch = SW;
      Join = SW->getDefaultDest();
      for (auto &Case : SW->cases()) {
        if (Case.getCaseValue()->equalsInt(1) && !Combine)
          Combine = Case.getCaseSuccessor();
        else if (Case.getCaseValue()->equalsInt(2) && !Atomic)
          Atomic = Case.getCaseSuccessor();
        else
          return refuse(Cannot + " (the use of its result)");
      }
      continue;
    }
    auto *Cmp = dyn_cast<ICmpInst>(U);
    auto *One = Cmp ? dyn_cast<ConstantInt>(Cmp->getOperand(1)) : nullptr;
    if (Cmp && Cmp->getPredicate() == ICmpInst::ICMP_EQ &&
        Cmp->getOperand(0) == Call && One && One->isOne() &&
        Cmp->hasOneUse())
      if (auto *Br = dyn_cast<BranchInst>(Cmp->user_back());
          Br && Br->isConditional()) {
        Branch = Br;
        Combine = Br->getSuccessor(0);
        Join = Br->getSuccessor(1);
        markExempt(*Cmp);
        continue;
      }
    return refuse(Cannot + " (the use of its result)");
  }
  if (!Branch || !Combine || Combine == Join || Atomic == Join ||
      Combine == Atomic)
    return refuse(Cannot + " (the use of its result)");
  BasicBlock *From = Branch->getParent();

  // The blocks from a path's start to Join, entered only from the branch.
  auto Region = [&](BasicBlock *Start, SmallVectorImpl<BasicBlock *> &Out) {
    SmallPtrSet<BasicBlock *, 16> Seen{Start};
    Out.push_back(Start);
    for (unsigned I = 0; I < Out.size(); ++I) {
      if (Out.size() > 64)
        return false;
      for (BasicBlock *S : successors(Out[I])) {
        if (S == Join)
          continue;
        if (S == From)
          return false;
        if (Seen.insert(S).second)
          Out.push_back(S);
      }
    }
    for (BasicBlock *BB : Out)
      for (BasicBlock *Pred : predecessors(BB))
        if (Pred != From && !Seen.contains(Pred))
          return false;
    return true;
  };
  SmallVector<BasicBlock *, 8> CombineBlocks, AtomicBlocks;
  if (!Region(Combine, CombineBlocks) ||
      (Atomic && !Region(Atomic, AtomicBlocks)))
    return refuse(Cannot + " (the shape of its combination)");
  SmallPtrSet<BasicBlock *, 16> InCombine(CombineBlocks.begin(),
                                          CombineBlocks.end());

  // Locations: a target (in T a kernel argument, in P a copy of T's), one of
  // F's copies, a slot of F's own (scratch), anything else.
  enum LocKind { LocTarget, LocPrivate, LocScratch, LocOther };
  auto Classify = [&](Value *Ptr) {
    const Value *L = locationOf(Ptr);
    if (!L)
      return LocOther;
    if (InT ? isa<Argument>(L) : TPrivates.count(L) != 0)
      return LocTarget;
    if (Privates.contains(L))
      return LocPrivate;
    if (auto *A = dyn_cast<AllocaInst>(L); A && A->getFunction() == &F)
      return LocScratch;
    return LocOther;
  };
  auto AllowedCall = [&](CallBase *CB, bool Critical) {
    if (auto *II = dyn_cast<IntrinsicInst>(CB))
      return II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II) ||
             II->isAssumeLikeIntrinsic() || II->doesNotAccessMemory();
    StringRef N = calleeName(CB);
    return isEndReduce(N) ||
           (Critical && (N == "__kmpc_critical" || N == "__kmpc_end_critical"));
  };

  // The combination: plain loads and stores of targets, copies and scratch.
  std::vector<const Value *> Targets;
  DenseMap<const Value *, SmallVector<StoreInst *, 2>> TargetStores;
  for (BasicBlock *BB : CombineBlocks)
    for (Instruction &I : *BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (!AllowedCall(CB, false))
          return refuse(Cannot + " (its combination calls '" +
                        demangle(calleeName(CB).str()) + "')");
        continue;
      }
      auto *LI = dyn_cast<LoadInst>(&I);
      auto *SI = dyn_cast<StoreInst>(&I);
      if ((LI && !LI->isSimple()) || (SI && !SI->isSimple()) ||
          (!LI && !SI && I.mayReadOrWriteMemory()))
        return refuse(Cannot + " (an atomic access in its combination)");
      if (!LI && !SI)
        continue;
      Value *Ptr = LI ? LI->getPointerOperand() : SI->getPointerOperand();
      LocKind K = Classify(Ptr);
      if (K == LocOther) {
        // `target` + nested `teams ... reduction(op: s)` without a map of s:
        // s is firstprivate to the target region, a slot of K.
        if (auto *A = dyn_cast_or_null<AllocaInst>(locationOf(Ptr));
            A && A->getFunction() == C.K)
          return refuse("a reduction into a variable the target region does "
                        "not map (its firstprivate copy)");
        if (!SI)
          return refuse(Cannot + " (its combination reads memory the pass "
                                 "cannot place)");
        return refuse(Cannot + (InT ? " (its combination writes memory that "
                                      "is not a kernel argument)"
                                    : " (its combination writes memory other "
                                      "than the teams region's copy)"));
      }
      if (SI && K == LocTarget) {
        const Value *L = locationOf(Ptr);
        auto &Stores = TargetStores[L];
        if (Stores.empty())
          Targets.push_back(L);
        Stores.push_back(SI);
      }
    }

  // Which copy each target is combined with: the one whose loads feed the
  // values stored into it (through scratch slots too).
  DenseMap<const Value *, const Value *> CopyOf; // target -> copy
  DenseMap<const Value *, const Value *> TargetOf;
  for (const Value *T : Targets) {
    SmallPtrSet<const Value *, 4> Found;
    SmallPtrSet<Value *, 32> Seen;
    SmallVector<Value *, 16> Work;
    for (StoreInst *SI : TargetStores[T])
      Work.push_back(SI->getValueOperand());
    while (!Work.empty()) {
      Value *V = Work.pop_back_val();
      auto *I = dyn_cast<Instruction>(V);
      if (!Seen.insert(V).second || !I || !InCombine.contains(I->getParent()))
        continue;
      if (auto *LI = dyn_cast<LoadInst>(I)) {
        const Value *L = locationOf(LI->getPointerOperand());
        if (Privates.contains(L))
          Found.insert(L);
        else if (Classify(LI->getPointerOperand()) == LocScratch)
          for (BasicBlock *BB : CombineBlocks)
            for (Instruction &J : *BB)
              if (auto *SJ = dyn_cast<StoreInst>(&J);
                  SJ && locationOf(SJ->getPointerOperand()) == L)
                Work.push_back(SJ->getValueOperand());
        continue;
      }
      for (Value *Op : I->operands())
        Work.push_back(Op);
    }
    if (Found.size() != 1)
      return refuse(Cannot + " (a variable combined with " +
                    (Found.empty() ? "no" : "several") + " private copies)");
    const Value *Copy = *Found.begin();
    if (TargetOf.count(Copy))
      return refuse(Cannot + " (a private copy combined into two variables)");
    TargetOf[Copy] = T;
    CopyOf[T] = Copy;
    for (StoreInst *SI : TargetStores[T])
      if (SI->getValueOperand()->getType() !=
          cast<AllocaInst>(Copy)->getAllocatedType())
        return refuse(Cannot + " (a variable stored with another type)");
  }
  for (RedVar &V : Vars) {
    auto It = TargetOf.find(V.Private);
    if (It == TargetOf.end())
      return refuse(Cannot + " (a private copy that is not combined)");
    V.Target = It->second;
  }

  // Name each operator: run the combination on the test inputs.
  std::vector<std::vector<Constant *>> Got(
      Vars.size(), std::vector<Constant *>(NumRedTests, nullptr));
  auto LocOf = [&](Value *Ptr) { return locationOf(Ptr); };
  for (unsigned T = 0; T < NumRedTests; ++T) {
    std::map<const Value *, Constant *> Mem;
    for (RedVar &V : Vars) {
      Type *Ty = V.Private->getAllocatedType();
      Mem[V.Target] = redTestValue(Ty, T, false);
      Mem[V.Private] = redTestValue(Ty, T, true);
    }
    if (!interpret(Combine, From, Join, LocOf, Mem, DL))
      return refuse(Cannot + " (its combination is not arithmetic the pass "
                             "can evaluate)");
    for (unsigned K = 0; K < Vars.size(); ++K)
      Got[K][T] = Mem[Vars[K].Target];
  }
  for (unsigned K = 0; K < Vars.size(); ++K) {
    auto Named = nameCombination(Vars[K].Private->getAllocatedType(), Got[K]);
    if (!Named) {
      std::string TyName;
      raw_string_ostream OS(TyName);
      Vars[K].Private->getAllocatedType()->print(OS);
      // (_Bool and bool are i8 that clang converts to i1 and back.)
      return refuse("a reduction whose operator the pass cannot name (over " +
                    OS.str() + ")");
    }
    std::tie(Vars[K].Op, Vars[K].Type) = *Named;
  }

  // x86's other path: atomics on the targets (or plain accesses in a critical
  // section), the copies and scratch, nothing else.
  SmallPtrSet<const Value *, 8> TargetSet(Targets.begin(), Targets.end());
  for (BasicBlock *BB : AtomicBlocks)
    for (Instruction &I : *BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (!AllowedCall(CB, true))
          return refuse(Cannot + " (its atomic path calls '" +
                        demangle(calleeName(CB).str()) + "')");
        continue;
      }
      Value *Ptr = nullptr;
      if (auto *LI = dyn_cast<LoadInst>(&I))
        Ptr = LI->getPointerOperand();
      else if (auto *SI = dyn_cast<StoreInst>(&I))
        Ptr = SI->getPointerOperand();
      else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        Ptr = RMW->getPointerOperand();
      else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
        Ptr = CX->getPointerOperand();
      else if (I.mayReadOrWriteMemory())
        return refuse(Cannot + " (its atomic path)");
      if (!Ptr)
        continue;
      LocKind K = Classify(Ptr);
      if (K == LocOther ||
          (K == LocTarget && !TargetSet.contains(locationOf(Ptr))))
        return refuse(Cannot + " (its atomic path accesses memory the pass "
                               "cannot place)");
    }

  // All of it is clang's reduction: the other checks skip it.
  markExempt(*Call);
  markExempt(*Branch);
  if (Name == "__kmpc_nvptx_teams_reduce_nowait_v2")
    if (auto *Buf = dyn_cast<CallBase>(Call->getArgOperand(1));
        Buf && calleeName(Buf) == "__kmpc_reduction_get_fixed_buffer")
      markExempt(*Buf);
  for (BasicBlock *BB : CombineBlocks)
    for (Instruction &I : *BB)
      markExempt(I);
  for (BasicBlock *BB : AtomicBlocks)
    for (Instruction &I : *BB)
      markExempt(I);
  return true;
}

// The reductions of T and P. T's targets are the kernel arguments that get a
// mode-5 record; P must combine into T's copies with the same operators.
bool KernelAnalysis::recogniseReductions() {
  const std::string Cannot = "a reduction the pass cannot follow";
  ExemptKind = C.K->getContext().getMDKindID("spread.reduction");
  if (!reductionSite(*C.T, TVars))
    return false;
  for (unsigned K = 0; K < TVars.size(); ++K)
    TPrivates[TVars[K].Private] = K;
  std::vector<RedVar> PVars;
  if (!reductionSite(*C.P, PVars))
    return false;
  if (TVars.empty() != PVars.empty())
    return refuse(Cannot + " (in only one of the teams and parallel regions)");
  for (const RedVar &V : PVars) {
    const RedVar &TV = TVars[TPrivates.lookup(V.Target)];
    if (TV.Op != V.Op || TV.Type != V.Type)
      return refuse(Cannot + " (the teams and parallel regions combine "
                             "differently)");
  }
  for (const RedVar &V : TVars) {
    Record R;
    R.Param = cast<Argument>(V.Target)->getArgNo() - 1;
    R.Mode = ModeReduce;
    R.C0 = V.Op;
    R.C1 = V.Type;
    R.Width = V.Width;
    if (!Reductions.emplace(R.Param, R).second)
      return refuse(Cannot + " (two reductions into " + argLabel(R.Param) +
                    ")");
  }
  return true;
}

// An atomic update of one location of a mapped variable that no iteration
// moves (`#pragma omp atomic` `s += x[i]`) is a reduction into it: each block
// updates a copy of its own that starts from the operator's identity, and the
// runtime combines the copies into the variable, as for a reduction clause.
// Updates of an array's elements (a histogram) are the same element by element:
// each block gets a whole copy of the array, combined element by element.
// Captures (the old value used) and exchanges stay refused: per-block copies
// would change what they compute.
bool KernelAnalysis::atomicReductions() {
  for (AtomicRMWInst *RMW : Atomics) {
    std::string At = lineOf(RMW);
    if (!IVLoop || !IVLoop->contains(RMW->getParent()))
      return refuse("an atomic update outside the parallel loop" + At);
    if (!RMW->use_empty())
      return refuse("an atomic capture (the value before the update is used)" + At);
    uint32_t Op = 0;
    bool Unsigned = false;
    switch (RMW->getOperation()) {
    case AtomicRMWInst::Add:
    case AtomicRMWInst::Sub:
    case AtomicRMWInst::FAdd:
    case AtomicRMWInst::FSub:
      Op = RedAdd;
      break;
    case AtomicRMWInst::UMax:
      Unsigned = true;
      [[fallthrough]];
    case AtomicRMWInst::Max:
    case AtomicRMWInst::FMax:
      Op = RedMax;
      break;
    case AtomicRMWInst::UMin:
      Unsigned = true;
      [[fallthrough]];
    case AtomicRMWInst::Min:
    case AtomicRMWInst::FMin:
      Op = RedMin;
      break;
    case AtomicRMWInst::And:
      Op = RedBitAnd;
      break;
    case AtomicRMWInst::Or:
      Op = RedBitOr;
      break;
    case AtomicRMWInst::Xor:
      Op = RedBitXor;
      break;
    default:
      return refuse("an atomic update that is not a reduction (" +
                    AtomicRMWInst::getOperationName(RMW->getOperation()).str() +
                    ")" + At);
    }
    Type *Ty = RMW->getValOperand()->getType();
    unsigned IntBits = Ty->isIntegerTy() ? Ty->getIntegerBitWidth() : 0;
    bool IntOk = IntBits >= 8 && IntBits <= 64 && isPowerOf2_32(IntBits);
    if (!IntOk && !Ty->isFloatTy() && !Ty->isDoubleTy())
      return refuse("an atomic update of a type the runtime cannot combine" + At);
    Value *Ptr = RMW->getPointerOperand();
    unsigned Bits = 64;
    Source S = Tr.resolve(getUnderlyingObject(Ptr, 0), Bits);
    if (S.Kind != Source::KernelArg || Bits < DL.getPointerSizeInBits())
      return refuse("an atomic update of memory the loop does not map" + At);
    unsigned Param = S.Index;
    AffineFail Fail = AffineFail::NonAffine;
    std::optional<std::vector<Affine>> Forms = affine(Ptr, Param, Fail);
    // One location: the variable itself. Anything else updates elements of
    // the array (a histogram): each block gets a whole copy of the array.
    const Affine *A = Forms && Forms->size() == 1 ? &Forms->front() : nullptr;
    bool Scalar = A && A->C1 == 0 && A->C1Sym.isZero() && A->Linear &&
                  A->C0 == 0 && A->SymParam < 0;
    Record R;
    R.Param = Param;
    R.Mode = Scalar ? ModeReduce : ModeReduceElements;
    R.C0 = Op;
    R.C1 = Ty->isFloatTy()    ? RedF32
           : Ty->isDoubleTy() ? RedF64
                              : RedI8 + Log2_32(IntBits / 8) +
                                    (Unsigned ? RedU8 - RedI8 : 0);
    R.Width = DL.getTypeStoreSize(Ty).getFixedValue();
    auto [It, New] = Reductions.emplace(Param, R);
    if (!New && (It->second.Mode != R.Mode || It->second.C0 != R.C0 ||
                 It->second.C1 != R.C1 || It->second.Width != R.Width))
      return refuse("updates of " + argLabel(Param) +
                    " that combine differently" + At);
  }
  return true;
}

bool KernelAnalysis::run(std::vector<Record> &Records, std::string &WhyOut) {
  if (Nested) {
    // T holds the loop: its accesses are the loop's. (Reductions in this
    // form are refused as calls.)
    bool Ok = checkHazards(*C.T) && checkHazards(*C.K) &&
              checkInstructions(*C.T) && checkInstructions(*C.K) &&
              checkCalls(*C.T) && checkCalls(*C.K) && checkPlumbing() &&
              checkOuterAccesses(*C.K);
    if (Ok) {
      WB.hoist(*C.P);
      Ok = findIV() && atomicReductions() && analyseAccesses() &&
           checkAddressValues() && buildRecords(Records);
    }
    if (!Ok)
      WhyOut = Why.empty() ? "the analysis failed" : Why;
    return Ok;
  }
  // Reductions first: the other checks skip the code that implements them.
  bool Ok = recogniseReductions() && checkHazards(*C.P) &&
            checkHazards(*C.T) && checkHazards(*C.K) &&
            checkInstructions(*C.P) && checkInstructions(*C.T) &&
            checkInstructions(*C.K) && checkCalls(*C.P) && checkCalls(*C.T) &&
            checkCalls(*C.K) && checkPlumbing() && checkOuterAccesses(*C.K) &&
            checkOuterAccesses(*C.T);
  if (Ok) {
    WB.hoist(*C.P);
    Ok = findIV() && atomicReductions() && analyseAccesses() &&
         checkAddressValues() &&
         buildRecords(Records);
  }
  if (!Ok)
    WhyOut = Why.empty() ? "the analysis failed" : Why;
  return Ok;
}

// ---------------------------------------------------------------------------
// A parallel loop nested in the distribute loop (on the clone)

// Whether T hands P its distribute chunk (the combined construct), on the
// simplified clone: P's arguments 2 and 3 are loads of the distribute init's
// bound slots.
bool takesChunk(const Chain &C, const DataLayout &DL) {
  CallBase *TInit = nullptr;
  for (Instruction &I : instructions(*C.T))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && isDistributeInit(calleeName(CB)))
      TInit = CB;
  if (!TInit || TInit->arg_size() < 7 || C.P->arg_size() < 4)
    return false;
  Tracer Tr(C, DL);
  return loadsFrom(Tr.actualFor(C.P, 2), TInit->getArgOperand(4)) &&
         loadsFrom(Tr.actualFor(C.P, 3), TInit->getArgOperand(5));
}

// Whether every parallel region of T is a statically scheduled worksharing
// loop (else the kernel is no nested parallel loop, and the usual analysis
// says why: a thread-number query, ...).
bool nestedCandidate(const Chain &C) {
  for (auto [Q, Call] : C.regions()) {
    bool Static = false;
    for (Instruction &I : instructions(*Q))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(CB);
        Static |= isForStaticInit(N);
        if (N.starts_with("__kmpc_dispatch_"))
          return false;
      }
    if (!Static)
      return false;
  }
  return true;
}

// A `teams distribute` whose body runs a `parallel for` over bounds of its
// own: on the clone, P is inlined where T forks it and its worksharing inits
// are erased, so that its loop runs its whole range (the union of what the
// threads run) once per distribute iteration, and T is the function whose
// loop the analysis describes. False if that cannot be done.
// Makes each loop of F whose header phi steps by a marked chunk increment
// (inlineParallelRegion) leave after its first iteration: its latch goes to
// its exit. True if it changed F.
bool chunkLoopsOnce(Function &F, unsigned ChunkKind) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  bool Changed = false;
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *Header = L->getHeader(), *Latch = L->getLoopLatch();
    BasicBlock *Exit = L->getUniqueExitBlock();
    if (!Latch || !Exit || !isa<PHINode>(Header->front()) || !Exit->phis().empty())
      continue;
    auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    if (!Br || Br->isConditional())
      continue;
    bool Steps = any_of(Header->phis(), [&](PHINode &Phi) {
      auto *In = dyn_cast<Instruction>(Phi.getIncomingValueForBlock(Latch));
      return In && In->getMetadata(ChunkKind);
    });
    if (!Steps)
      continue;
    Header->removePredecessor(Latch);
    Br->setSuccessor(0, Exit);
    Changed = true;
  }
  return Changed;
}

bool inlineParallelRegion(Workbench &WB, Chain &C, const DataLayout &DL) {
  SmallPtrSet<CallBase *, 8> Before;
  for (Instruction &I : instructions(*C.T))
    if (auto *CB = dyn_cast<CallBase>(&I))
      Before.insert(CB);
  for (auto [P, Fork] : C.regions()) {
    // The Tracer finds the actual arguments of the region it is given.
    Chain One = C;
    One.P = P;
    One.PCall = Fork;
    Tracer Tr(One, DL);
    IRBuilder<> B(Fork);
    if (!C.T->getArg(0)->getType()->isPointerTy() ||
        !C.T->getArg(1)->getType()->isPointerTy() ||
        P->getArg(0)->getType() != C.T->getArg(0)->getType() ||
        P->getArg(1)->getType() != C.T->getArg(1)->getType())
      return false;
    SmallVector<Value *, 8> Args{C.T->getArg(0), C.T->getArg(1)};
    for (unsigned N = 2; N < P->arg_size(); ++N) {
      Value *A = Tr.actualFor(P, N);
      Type *Want = P->getArg(N)->getType();
      if (!A)
        return false;
      Type *Have = A->getType();
      if (Have == Want)
        ;
      else if (Have->isPointerTy() && Want->isIntegerTy())
        A = B.CreatePtrToInt(A, Want);
      else if (Have->isIntegerTy() && Want->isPointerTy())
        A = B.CreateIntToPtr(A, Want);
      else if (Have->isIntegerTy() && Want->isIntegerTy())
        A = B.CreateZExtOrTrunc(A, Want);
      else if (Have->isPointerTy() && Want->isPointerTy())
        A = B.CreatePointerBitCastOrAddrSpaceCast(A, Want);
      else
        return false;
      Args.push_back(A);
    }
    CallInst *Direct = B.CreateCall(P, Args);
    Fork->eraseFromParent();
    Before.erase(Fork);
    InlineFunctionInfo IFI;
    if (!InlineFunction(*Direct, IFI).isSuccess())
      return false;
  }
  SmallVector<CallBase *, 4> Inits, Reduces;
  for (Instruction &I : instructions(*C.T))
    if (auto *CB = dyn_cast<CallBase>(&I); CB && !Before.contains(CB)) {
      StringRef N = calleeName(CB);
      if (isForStaticInit(N) || N == "__kmpc_for_static_fini" ||
          isEndReduce(N))
        Inits.push_back(CB);
      else if (reduceListArg(N) >= 0)
        Reduces.push_back(CB);
      else if (N.starts_with("__kmpc_dispatch_"))
        return false; // a dynamic schedule: its bounds are not in the code
    }
  if (Inits.empty())
    return false;
  // A region's reduction (into a variable of the teams region: `float m`
  // per distribute iteration): run by one thread, its private copy is the
  // result, combined directly (the reduce call's 1); the atomic path goes
  // with the cleanup. A reduction into mapped data becomes a write the
  // analysis judges as any other.
  for (CallBase *CB : Reduces) {
    if (!CB->getType()->isIntegerTy())
      return false;
    CB->replaceAllUsesWith(ConstantInt::get(CB->getType(), 1));
    CB->eraseFromParent();
  }
  // GPUs run a parallel loop as chunks: after the inner loop, `lb +=
  // stride; ub += stride` and back while lb <= ub. Without the init, lb and
  // ub are the whole range, so the first chunk is all of it: the increments
  // (the users of the stride slot's loads) are marked, and once the cleanup
  // has made them values, the loop they step runs once (chunkLoopsOnce).
  LLVMContext &Ctx = C.T->getContext();
  unsigned ChunkKind = Ctx.getMDKindID("spread.chunk.step");
  for (CallBase *CB : Inits) {
    if (isForStaticInit(calleeName(CB)) && CB->arg_size() >= 7)
      for (User *U : CB->getArgOperand(6)->users())
        if (auto *LI = dyn_cast<LoadInst>(U))
          for (User *Step : LI->users())
            if (auto *Add = dyn_cast<BinaryOperator>(Step);
                Add && Add->getOpcode() == Instruction::Add)
              Add->setMetadata(ChunkKind, MDNode::get(Ctx, {}));
    CB->eraseFromParent();
  }
  C.P = C.T;
  C.PBody = C.TBody;
  C.PCall = nullptr;
  C.MoreP.clear();
  WB.simplify(*C.T);
  if (chunkLoopsOnce(*C.T, ChunkKind))
    WB.simplify(*C.T);
  return true;
}

// ---------------------------------------------------------------------------
// The transformation (on the real module)

struct ClampPlan {
  CallBase *TInit = nullptr;
  AllocaInst *Lb = nullptr, *Ub = nullptr;
  AllocaInst *Last =
      nullptr; // null when the loop's last iteration is a constant
  IVType TType;
  IVType PType;
  bool Nested = false; // no clamp in P (inlineParallelRegion)
};

// Finds the slots the clamps go to in clang's unoptimized T and P.
bool planClamps(const Chain &C, ClampPlan &Plan, std::string &Why,
                bool Nested) {
  const std::string NoPattern = "the clamp pattern was not found";
  for (Instruction &I : instructions(*C.TBody))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && isDistributeInit(calleeName(CB))) {
      if (Plan.TInit) {
        Why = NoPattern + " (two distribute inits)";
        return false;
      }
      Plan.TInit = CB;
    }
  CallBase *PInit = nullptr;
  for (Instruction &I : instructions(*C.PBody))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && isForStaticInit(calleeName(CB))) {
      if (PInit) {
        Why = NoPattern + " (two worksharing inits)";
        return false;
      }
      PInit = CB;
    }
  if (!Plan.TInit || !PInit || Plan.TInit->arg_size() < 7) {
    Why = NoPattern;
    return false;
  }
  Plan.Nested = Nested;
  Plan.TType = *ivTypeOf(calleeName(Plan.TInit));
  Plan.PType = *ivTypeOf(calleeName(PInit));
  Type *TTy = IntegerType::get(C.TBody->getContext(), Plan.TType.Bits);
  auto SlotOfType = [&](Value *V) -> AllocaInst * {
    auto *A = dyn_cast<AllocaInst>(V->stripPointerCasts());
    return A && A->getAllocatedType() == TTy && A->getFunction() == C.TBody
               ? A
               : nullptr;
  };
  Plan.Lb = SlotOfType(Plan.TInit->getArgOperand(4));
  Plan.Ub = SlotOfType(Plan.TInit->getArgOperand(5));
  if (!Plan.Lb || !Plan.Ub) {
    Why = NoPattern + " (the distribute bounds are not stack slots)";
    return false;
  }
  // clang stores the loop's last iteration into .omp.comb.ub from a slot
  // (.capture_expr.) that the GPU distribute loop also tests.
  Value *Stored = nullptr;
  for (Instruction *I = Plan.TInit->getPrevNode(); I && !Stored;
       I = I->getPrevNode())
    if (auto *SI = dyn_cast<StoreInst>(I))
      if (SI->getPointerOperand()->stripPointerCasts() == Plan.Ub)
        Stored = SI->getValueOperand();
  if (auto *Load = dyn_cast_or_null<LoadInst>(Stored)) {
    Plan.Last = SlotOfType(Load->getPointerOperand());
    if (!Plan.Last) {
      Why = NoPattern + " (the last iteration is not in a stack slot)";
      return false;
    }
  } else if (!isa_and_nonnull<ConstantInt>(Stored)) {
    Why = NoPattern + " (no upper bound stored before the distribute init)";
    return false;
  }
  Type *I64 = Type::getInt64Ty(C.PBody->getContext());
  if (Nested)
    return true; // P's loop has bounds of its own: T's clamps bound it
  if (C.PBody->arg_size() < 4 || C.PBody->getArg(2)->getType() != I64 ||
      C.PBody->getArg(3)->getType() != I64) {
    Why = NoPattern + " (the parallel function's bounds are not i64)";
    return false;
  }
  return true;
}

// v = clamp(v) in the IV's type, compared as i64.
Value *clampValue(IRBuilder<> &B, Value *V, IVType Ty, Value *Lo,
                  Value *HiLast) {
  Type *I64 = B.getInt64Ty();
  Value *W = V;
  if (V->getType() != I64)
    W = Ty.Signed ? B.CreateSExt(V, I64) : B.CreateZExt(V, I64);
  if (Lo)
    W = B.CreateBinaryIntrinsic(Intrinsic::smax, W, Lo);
  if (HiLast)
    W = B.CreateBinaryIntrinsic(Intrinsic::smin, W, HiLast);
  return W;
}

void clampSlot(IRBuilder<> &B, AllocaInst *Slot, IVType Ty, Value *Lo,
               Value *HiLast, const char *Name) {
  Type *SlotTy = Slot->getAllocatedType();
  Value *V = B.CreateLoad(SlotTy, Slot, Name);
  Value *W = clampValue(B, V, Ty, Lo, HiLast);
  B.CreateStore(B.CreateTrunc(W, SlotTy), Slot);
}

struct Window {
  Value *Lo, *Hi, *Last;
};

Window loadWindow(IRBuilder<> &B, GlobalVariable *Win) {
  Type *I64 = B.getInt64Ty();
  Type *ArrTy = Win->getValueType();
  Value *Lo = B.CreateLoad(I64, B.CreateConstInBoundsGEP2_32(ArrTy, Win, 0, 0),
                           "spread.lo");
  Value *Hi = B.CreateLoad(I64, B.CreateConstInBoundsGEP2_32(ArrTy, Win, 0, 1),
                           "spread.hi");
  return {Lo, Hi, B.CreateSub(Hi, B.getInt64(1), "spread.last")};
}

unsigned globalAddressSpace(const Module &M) {
  Triple TT(M.getTargetTriple());
  // Device globals the host runtime looks up live in the global space.
  return TT.isNVPTX() || TT.isAMDGPU() ? 1 : 0;
}

void applyClamps(const Chain &C, const ClampPlan &Plan, GlobalVariable *Win) {
  // (a), (b): before the distribute init, lb = max(lb, lo),
  // ub = min(ub, hi-1), last = min(last, hi-1).
  IRBuilder<> B(Plan.TInit);
  Window W = loadWindow(B, Win);
  clampSlot(B, Plan.Lb, Plan.TType, W.Lo, nullptr, "spread.lb");
  clampSlot(B, Plan.Ub, Plan.TType, nullptr, W.Last, "spread.ub");
  if (Plan.Last)
    clampSlot(B, Plan.Last, Plan.TType, nullptr, W.Last, "spread.lastiter");
  if (Plan.Nested)
    return;
  // (c): at P's entry, prev.lb = max(prev.lb, lo), prev.ub = min(prev.ub,
  // hi-1), whatever schedule P uses.
  BasicBlock &Entry = C.PBody->getEntryBlock();
  BasicBlock::iterator At = Entry.getFirstInsertionPt();
  while (At != Entry.end() && isa<AllocaInst>(*At))
    ++At;
  IRBuilder<> PB(&Entry, At);
  Window PW = loadWindow(PB, Win);
  for (unsigned N : {2u, 3u}) {
    Argument *A = C.PBody->getArg(N);
    SmallVector<Use *, 4> Uses;
    for (Use &U : A->uses())
      Uses.push_back(&U);
    Value *V = A;
    if (Plan.PType.Bits < 64)
      V = PB.CreateTrunc(A, PB.getIntNTy(Plan.PType.Bits));
    Value *Clamped = clampValue(PB, V, Plan.PType, N == 2 ? PW.Lo : nullptr,
                                N == 3 ? PW.Last : nullptr);
    Clamped->setName(N == 2 ? "spread.prev.lb" : "spread.prev.ub");
    for (Use *U : Uses)
      U->set(Clamped);
  }
}

GlobalVariable *addWindow(Module &M, StringRef Kernel, bool Grid = false) {
  LLVMContext &Ctx = M.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  SmallVector<Constant *, 3> Words{ConstantInt::get(I64, 0),
                                   ConstantInt::get(I64, WindowAll)};
  if (Grid)
    Words.push_back(ConstantInt::get(I64, 0));
  auto *Ty = ArrayType::get(I64, Words.size());
  Constant *Init = ConstantArray::get(Ty, Words);
  auto *GV = new GlobalVariable(
      M, Ty, /*isConstant=*/false, GlobalValue::ExternalLinkage, Init,
      WindowPrefix + Kernel.str(), nullptr, GlobalValue::NotThreadLocal,
      globalAddressSpace(M));
  GV->setVisibility(GlobalValue::ProtectedVisibility);
  GV->setAlignment(Align(8));
  return GV;
}

// ---------------------------------------------------------------------------
// Grid kernels: teams indexed by their team number (CUDA-style ports)
//
//   #pragma omp target teams num_teams(G) thread_limit(B)
//   { float s[B];
//   #pragma omp parallel
//     { int i = omp_get_team_num() * B + omp_get_thread_num(); ... } }
//
// has no loop to cut: the teams are the units. A window [lo, hi) of the league
// runs as a league of hi - lo teams whose omp_get_team_num() is lo plus their
// own and whose omp_get_num_teams() is the whole league's G (the runtime
// writes {lo, hi, G}; the image's default {0, max, 0} changes nothing). The
// addresses need not be analysed: teams cannot synchronise with one another,
// so in a race-free kernel no team reads what another writes, and each
// location is written by one team at most. Each block therefore gets every
// argument it touches whole, writes into a copy of its own, and the runtime
// merges the bytes each block changed (ModeMerge). What the pass proves: the
// kernel touches memory only through its mapped arguments and the teams' own
// variables, with no atomics, reductions or critical sections on mapped data
// (a merge would keep one team's update) and no other calls with effects.

bool isTeamQuery(StringRef N) {
  return N == "omp_get_team_num" || N == "omp_get_num_teams";
}

// Calls the teams and threads of a grid kernel may make among themselves.
bool isTeamLocalCall(StringRef N) {
  static const char *const Names[] = {
      "__kmpc_single",        "__kmpc_end_single", "__kmpc_master",
      "__kmpc_end_master",    "__kmpc_masked",     "__kmpc_end_masked",
      "omp_get_thread_num",   "omp_get_num_threads",
      "omp_get_max_threads",  "omp_get_thread_limit",
      "omp_get_team_size",    "omp_get_level",     "omp_get_active_level",
      "omp_in_parallel",      "omp_get_team_num",  "omp_get_num_teams",
      "__kmpc_parallel_level", "__kmpc_get_hardware_num_blocks",
      "__kmpc_for_static_fini",
  };
  return isForStaticInit(N) || any_of(Names, [&](const char *S) { return N == S; });
}

// C++: clang calls the runtime's queries with `invoke` and ends their
// landing pads in std::terminate; the program stops there, so what that path
// calls changes no result.
bool isTerminatePath(StringRef N) {
  return N == "__cxa_begin_catch" || N == "_ZSt9terminatev" ||
         N == "__clang_call_terminate";
}

// The functions of a grid kernel whose code the window rewrite touches: K, T
// and every parallel region, as their bodies (-g).
SmallVector<Function *, 6> gridBodies(const Chain &C) {
  SmallVector<Function *, 6> Out{C.KBody, C.TBody};
  if (C.P) {
    Out.push_back(C.PBody);
    for (auto [Q, Call] : C.MoreP)
      Out.push_back(debugBody(*Q));
  }
  return Out;
}

bool isTeamOrThreadQuery(StringRef N) {
  return isTeamQuery(N) || N == "omp_get_thread_num" ||
         N == "omp_get_num_threads";
}

// Whether F calls a query Is names, itself or through the program's functions
// it calls (not parallel regions).
bool reachesQuery(Function &F, bool (*Is)(StringRef),
                  DenseMap<Function *, bool> &Memo) {
  auto [It, New] = Memo.try_emplace(&F, false);
  if (!New)
    return It->second; // known, or on the current path (a cycle adds nothing)
  bool Found = false;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      Function *G = CB->getCalledFunction();
      if (Is(calleeName(CB)) ||
          (G && isProgramFunction(G) && !G->getName().contains("omp_outlined") &&
           reachesQuery(*G, Is, Memo)))
        Found = true;
    }
  Memo[&F] = Found;
  return Found;
}

// Whether the teams or threads of the kernel ask who they are (a team's
// threads dividing its work by their number: a grid of one or more teams),
// in its own code or in the program's functions it calls.
bool queriesTeamOrThread(ArrayRef<Function *> Fs) {
  DenseMap<Function *, bool> Memo;
  return any_of(Fs, [&](Function *F) {
    return reachesQuery(*F, isTeamOrThreadQuery, Memo);
  });
}

// K forks a teams function T with no distribute loop (that is the loop
// form's) whose code or parallel regions (any number) ask their team or
// thread numbers.
bool findGridChain(Function &K, Chain &C) {
  std::string Unused;
  if (!findTeamsFunction(K, C, Unused) || !C.T->hasLocalLinkage() ||
      !C.T->hasOneUse() || C.T->arg_size() < 2 || C.T == &K)
    return false;
  for (Instruction &I : instructions(*C.TBody)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      continue;
    if (isDistributeInit(calleeName(CB)))
      return false;
    Function *Target = forkedRegion(*CB);
    if (!Target)
      continue;
    if (Target->isDeclaration() || !Target->hasLocalLinkage() ||
        !onlyForked(*Target, *CB) || Target->arg_size() < 2 ||
        Target == C.T || Target == &K)
      return false;
    if (!C.P) {
      C.P = Target;
      C.PCall = CB;
    } else {
      C.MoreP.push_back({Target, CB});
    }
  }
  if (C.P)
    C.PBody = debugBody(*C.P);
  return queriesTeamOrThread(gridBodies(C));
}

class GridAnalysis {
public:
  GridAnalysis(const Chain &C, const DataLayout &DL) : C(C), DL(DL) {}

  // Fills Records (one per touched argument), or Why.
  bool run(std::vector<Record> &Records, std::string &WhyOut) {
    SmallVector<std::pair<Function *, CallBase *>, 4> Regions;
    if (C.P)
      Regions = C.regions();
    bool Ok = scan(*C.K, C) && scan(*C.T, C);
    for (auto [Q, Call] : Regions) {
      if (!Ok)
        break;
      // The Tracer finds the actual arguments of the region its chain names.
      Chain R = C;
      R.P = R.PBody = Q;
      R.PCall = Call;
      R.MoreP.clear();
      Ok = scan(*Q, R);
    }
    if (!Ok) {
      WhyOut = Why;
      return false;
    }
    for (auto &[Param, Written] : Touched) {
      Record R;
      R.Param = Param;
      R.Mode = Written ? ModeMerge : ModeWhole;
      R.Width = 1;
      Records.push_back(R);
    }
    return true;
  }

private:
  enum class Kind { Local, Arg, Constant, Bad };
  struct Where {
    Kind K = Kind::Bad;
    unsigned Arg = 0;
  };

  bool refuse(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return false;
  }

  // Where the memory Ptr points at lives, seen from the scanned function's
  // chain: an argument
  // when any of its possible objects is one (all the same argument), Bad when
  // one cannot be traced.
  Where locate(Value *Ptr) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs, nullptr, 0);
    Where Out{Kind::Local, 0};
    for (const Value *O : Objs) {
      Where W{Kind::Bad, 0};
      if (isa<AllocaInst>(O)) {
        W.K = Kind::Local;
      } else if (auto *GV = dyn_cast<GlobalVariable>(O)) {
        W.K = GV->isConstant() ? Kind::Constant : Kind::Bad;
      } else {
        W = follow(const_cast<Value *>(O));
      }
      if (W.K == Kind::Bad || (W.K == Kind::Arg && Out.K == Kind::Arg &&
                               W.Arg != Out.Arg))
        return Where{};
      if (W.K == Kind::Arg || (W.K == Kind::Constant && Out.K == Kind::Local))
        Out = W;
    }
    return Out;
  }

  // Where pointer V comes from: a mapped argument, the team's or a thread's
  // own memory, or Bad.
  Where follow(Value *V) {
    unsigned Bits = 64;
    Source S = Tr->resolve(V, Bits);
    if (S.Kind == Source::KernelArg &&
        C.K->getArg(S.Index + 1)->getType()->isPointerTy())
      return {Kind::Arg, S.Index};
    if (S.Kind == Source::Slot || S.Kind == Source::ThreadId)
      return {Kind::Local, 0};
    return {};
  }

  // One access of F: a load, a store, a memory intrinsic's operand.
  bool access(Instruction &I, Value *Ptr, bool IsWrite) {
    Where W = locate(Ptr);
    switch (W.K) {
    case Kind::Local:
      return true;
    case Kind::Constant:
      if (!IsWrite)
        return true;
      [[fallthrough]];
    case Kind::Bad:
      if (auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(Ptr, 0)))
        return refuse("an access to the global variable '" +
                      GV->getName().str() +
                      "' (a grid kernel's teams share only mapped data)" +
                      lineOf(&I));
      return refuse("an access through a pointer the pass cannot trace" +
                    lineOf(&I));
    case Kind::Arg:
      Touched[W.Arg] |= IsWrite;
      return true;
    }
    return true;
  }

  // F's instructions, its pointers traced through chain R (one Tracer for
  // the function: it keeps what it found about the slots).
  bool scan(Function &F, const Chain &R) {
    Tracer FTr(R, DL);
    Tr = &FTr;
    for (Instruction &I : instructions(F)) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (!call(*CB))
          return false;
        continue;
      }
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        if (LI->isAtomic() && locate(LI->getPointerOperand()).K != Kind::Local)
          return refuse("an atomic access to mapped data" + lineOf(&I));
        if (!access(I, LI->getPointerOperand(), false))
          return false;
      } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
        if (SI->isAtomic() && locate(SI->getPointerOperand()).K != Kind::Local)
          return refuse("an atomic access to mapped data" + lineOf(&I));
        if (!access(I, SI->getPointerOperand(), true))
          return false;
        // A mapped address kept in memory other than the team's own
        // variables: each device holds its copy at its own address.
        if (SI->getValueOperand()->getType()->isPointerTy() &&
            locate(SI->getValueOperand()).K == Kind::Arg &&
            locate(SI->getPointerOperand()).K != Kind::Local)
          return refuse("a mapped address stored to memory" + lineOf(&I));
      } else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
        Value *Ptr = isa<AtomicRMWInst>(I)
                         ? cast<AtomicRMWInst>(I).getPointerOperand()
                         : cast<AtomicCmpXchgInst>(I).getPointerOperand();
        if (locate(Ptr).K != Kind::Local)
          return refuse("an atomic update of mapped data (teams would each "
                        "update a copy of their own)" +
                        lineOf(&I));
      } else if (auto *PI = dyn_cast<PtrToIntInst>(&I)) {
        if (locate(PI->getOperand(0)).K == Kind::Arg)
          return refuse("the address of a mapped argument used as a value "
                        "(each device holds its own copy at its own "
                        "address)" +
                        lineOf(&I));
      } else if (isa<VAArgInst>(I)) {
        return refuse("a va_arg");
      }
    }
    return true;
  }

  bool call(CallBase &CB) {
    if (&CB == C.TCall)
      return true;
    if (C.P)
      for (auto [Q, Call] : C.regions())
        if (&CB == Call)
          return true;
    if (auto *MI = dyn_cast<MemIntrinsic>(&CB)) {
      if (!access(CB, MI->getRawDest(), true))
        return false;
      if (auto *MT = dyn_cast<MemTransferInst>(MI))
        return access(CB, MT->getRawSource(), false);
      return true;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(&CB)) {
      if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II) ||
          II->isAssumeLikeIntrinsic() || II->doesNotAccessMemory())
        return true;
      switch (II->getIntrinsicID()) {
      case Intrinsic::stacksave:
      case Intrinsic::stackrestore:
      case Intrinsic::experimental_noalias_scope_decl:
        return true;
      default:
        return refuse("a call to '" +
                      II->getCalledFunction()->getName().str() +
                      "' with unknown memory effects");
      }
    }
    Function *Callee = CB.getCalledFunction();
    if (!Callee)
      return refuse("an indirect call");
    StringRef N = Callee->getName();
    if (isTeamLocalCall(N) || isBookkeepingCall(N) || isMathFunction(N) ||
        isTerminatePath(N) || Callee->doesNotAccessMemory())
      return true;
    if (std::string H = hazardOf(N); !H.empty())
      return refuse(H);
    return refuse("a call to '" + demangle(N.str()) +
                  "' with unknown memory effects");
  }

  const Chain &C;
  const DataLayout &DL;
  std::string Why;
  std::map<unsigned, bool> Touched; // argument -> written
  Tracer *Tr = nullptr;               // the scanned function's
};

// The grid analysis on the clone: K, T and the parallel regions with their
// -g bodies put back and the program's functions inlined (the real kernel gets
// its own copies of those that ask the team number: specializeHelpers).
bool analyseGrid(Workbench &WB, const Chain &Real, const DataLayout &DL,
                 std::vector<Record> &Records, std::string &Why) {
  Chain Clone;
  Function *K = WB.map(Real.K);
  if (!K || !inlineDebugBody(*K) || !findGridChain(*K, Clone) ||
      Clone.T != WB.map(Real.T) || !inlineDebugBody(*Clone.T)) {
    Why = "the teams region could not be followed";
    return false;
  }
  SmallVector<Function *, 4> Regions;
  if (Clone.P)
    for (auto [Q, Call] : Clone.regions())
      Regions.push_back(Q);
  for (Function *Q : Regions)
    if (!inlineDebugBody(*Q)) {
      Why = "the teams region could not be followed";
      return false;
    }
  inlineProgramCalls(*Clone.T);
  for (Function *Q : Regions)
    inlineProgramCalls(*Q);
  SmallVector<Function *, 6> All{Clone.K, Clone.T};
  All.append(Regions.begin(), Regions.end());
  for (Function *F : All)
    WB.simplify(*F);
  // The cleanup may have rewritten the calls: find the chain again.
  if (!findGridChain(*Clone.K, Clone) || Clone.T != WB.map(Real.T)) {
    Why = "the teams region could not be followed";
    return false;
  }
  return GridAnalysis(Clone, DL).run(Records, Why);
}

// The program's functions a grid kernel calls that ask the team number,
// directly or through further calls (`declare target` helpers: HeCBench pns's
// `int blockIdx_x = omp_get_team_num();` in a function of its own).
bool reachesTeamQuery(Function &F, DenseMap<Function *, bool> &Memo) {
  return reachesQuery(F, isTeamQuery, Memo);
}

// Gives the kernel copies of its own of the program's functions that reach a
// team query (one per function, calls among them redirected), so that the
// window's rewrite reaches their queries and no other caller sees it. Bodies
// grows by the copies.
void specializeHelpers(SmallVectorImpl<Function *> &Bodies, StringRef Kernel) {
  DenseMap<Function *, bool> Memo;
  DenseMap<Function *, Function *> Copies;
  for (unsigned I = 0; I < Bodies.size(); ++I) {
    SmallVector<CallBase *, 8> Calls;
    for (Instruction &Ins : instructions(*Bodies[I]))
      if (auto *CB = dyn_cast<CallBase>(&Ins))
        Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      Function *G = CB->getCalledFunction();
      if (!G || !isProgramFunction(G) || G->getName().contains("omp_outlined") ||
          !reachesTeamQuery(*G, Memo))
        continue;
      Function *&Copy = Copies[G];
      if (!Copy) {
        ValueToValueMapTy VM;
        Copy = CloneFunction(G, VM);
        Copy->setName(G->getName() + ".spread.grid." + Kernel);
        Copy->setLinkage(GlobalValue::InternalLinkage);
        Bodies.push_back(Copy);
      }
      CB->setCalledFunction(Copy);
    }
  }
}

// On the real module: team numbers through the window, the league's size
// from it, and (x86) the teams pushed for the window's width.
void applyGridWindow(const Chain &C, GlobalVariable *Win) {
  Type *ArrTy = Win->getValueType();
  auto Word = [&](IRBuilder<> &B, unsigned I, const char *Name) {
    return B.CreateLoad(B.getInt64Ty(),
                        B.CreateConstInBoundsGEP2_32(ArrTy, Win, 0, I), Name);
  };
  SmallVector<Function *, 8> Bodies = gridBodies(C);
  specializeHelpers(Bodies, C.K->getName());
  SmallVector<CallBase *, 8> Calls;
  for (Function *F : Bodies)
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(CB);
        if (isTeamQuery(N) || N == "__kmpc_push_num_teams" ||
            N == "__kmpc_push_num_teams_51")
          Calls.push_back(CB);
      }
  for (CallBase *CB : Calls) {
    StringRef N = calleeName(CB);
    if (N.starts_with("__kmpc_push_num_teams")) {
      // Before the push: (league != 0 ? hi - lo : n) for each count.
      IRBuilder<> B(CB);
      Value *Lo = Word(B, 0, "spread.grid.lo");
      Value *Hi = Word(B, 1, "spread.grid.hi");
      Value *League = Word(B, 2, "spread.grid.league");
      Value *Cut = B.CreateICmpNE(League, B.getInt64(0));
      Value *Width = B.CreateSub(Hi, Lo);
      unsigned Last = N.ends_with("_51") ? 3 : 2;
      for (unsigned A = 2; A <= Last; ++A) {
        Value *Old = CB->getArgOperand(A);
        Value *W = B.CreateTrunc(Width, Old->getType());
        CB->setArgOperand(A, B.CreateSelect(Cut, W, Old, "spread.grid.teams"));
      }
      continue;
    }
    // (C++ invokes the queries; they do not throw: a call, then the rewrite.)
    if (auto *II = dyn_cast<InvokeInst>(CB))
      CB = changeToCall(II);
    IRBuilder<> B(CB->getNextNode());
    SmallVector<Use *, 4> Uses;
    for (Use &U : CB->uses())
      Uses.push_back(&U);
    Value *New;
    if (N == "omp_get_team_num") {
      Value *Lo = B.CreateTrunc(Word(B, 0, "spread.grid.lo"), CB->getType());
      New = B.CreateAdd(CB, Lo, "spread.grid.team");
    } else {
      Value *League = Word(B, 2, "spread.grid.league");
      New = B.CreateSelect(B.CreateICmpNE(League, B.getInt64(0)),
                           B.CreateTrunc(League, CB->getType()), CB,
                           "spread.grid.nteams");
    }
    for (Use *U : Uses)
      U->set(New);
  }
}

void putLE(std::string &Out, uint64_t V, unsigned Bytes) {
  for (unsigned I = 0; I < Bytes; ++I)
    Out.push_back(static_cast<char>((V >> (8 * I)) & 0xff));
}

void putExpr(std::string &Out, const Expr &E) {
  putLE(Out, static_cast<uint64_t>(E.C), 8);
  putLE(Out, static_cast<uint32_t>(E.SymParam), 4);
  putLE(Out, E.SymBits, 4);
  putLE(Out, static_cast<uint64_t>(E.SymCoeff), 8);
}

std::string encode(const std::vector<Record> &Records, uint32_t Flags) {
  bool Extended = any_of(Records, [](const Record &R) { return R.extended(); });
  std::string Out = "SPRD";
  putLE(Out, Extended ? InfoVersionExtended : InfoVersionAffine, 4);
  putLE(Out, Records.size(), 4);
  putLE(Out, Flags, 4);
  for (const Record &R : Records) {
    putLE(Out, R.Param, 4);
    putLE(Out, R.Mode, 4);
    putLE(Out, static_cast<uint64_t>(R.C0), 8);
    putLE(Out, static_cast<uint64_t>(R.C1), 8);
    putLE(Out, static_cast<uint64_t>(R.Width), 8);
    putLE(Out, static_cast<uint32_t>(R.SymParam), 4);
    putLE(Out, R.SymBits, 4);
    putLE(Out, static_cast<uint64_t>(R.SymCoeff), 8);
    if (!Extended)
      continue;
    putExpr(Out, R.QCoeff);
    putExpr(Out, R.Div);
    putLE(Out, static_cast<uint32_t>(R.C1Sym.SymParam), 4);
    putLE(Out, R.C1Sym.SymBits, 4);
    putLE(Out, static_cast<uint64_t>(R.C1Sym.SymCoeff), 8);
    putLE(Out, R.Guards.size(), 4);
    putLE(Out, 0, 4);
    for (unsigned G = 0; G < MaxGuards; ++G) {
      if (G >= R.Guards.size()) {
        Out.append(40, '\0');
        continue;
      }
      putLE(Out, R.Guards[G].Var, 4);
      putLE(Out, 0, 4);
      putLE(Out, static_cast<uint64_t>(R.Guards[G].K), 8);
      putExpr(Out, R.Guards[G].E);
    }
  }
  return Out;
}

void addInfo(Module &M, StringRef Kernel, const std::vector<Record> &Records,
             uint32_t Flags = 0) {
  Constant *Init = ConstantDataArray::getString(M.getContext(),
                                                encode(Records, Flags),
                                                /*AddNull=*/false);
  auto *GV = new GlobalVariable(
      M, Init->getType(), /*isConstant=*/true, GlobalValue::ExternalLinkage,
      Init, InfoPrefix + Kernel.str(), nullptr, GlobalValue::NotThreadLocal,
      globalAddressSpace(M));
  GV->setVisibility(GlobalValue::ProtectedVisibility);
  GV->setAlignment(Align(8));
  // Nothing in the image refers to it; the runtime reads it by name.
  appendToUsed(M, {GV});
}

// ---------------------------------------------------------------------------
// Remarks

// "saxpy, line 4" from __omp_offloading_<dev>_<file>_<function>_l<line>.
std::string sourceName(StringRef K) {
  if (!K.consume_front("__omp_offloading_"))
    return "";
  for (int I = 0; I < 2; ++I) {
    size_t U = K.find('_');
    if (U == StringRef::npos)
      return "";
    K = K.drop_front(U + 1);
  }
  size_t L = K.rfind("_l");
  if (L == StringRef::npos || L == 0)
    return "";
  StringRef Line = K.drop_front(L + 2);
  if (Line.empty() || !all_of(Line, isDigit))
    return "";
  return demangle(K.take_front(L).str()) + ", line " + Line.str();
}

std::string signedTerm(int64_t Coeff, const std::string &Atom, bool First) {
  std::string Out;
  if (Coeff < 0)
    Out = "-";
  else if (!First)
    Out = "+";
  uint64_t Mag = Coeff < 0 ? 0 - static_cast<uint64_t>(Coeff)
                           : static_cast<uint64_t>(Coeff);
  if (Atom.empty())
    return Out + std::to_string(Mag);
  return Out + (Mag == 1 ? "" : std::to_string(Mag) + "*") + Atom;
}

// spread.h's spelling of a reduction operator, and a type's.
std::string redOpName(int64_t Op) {
  static const char *const Names[] = {"?", "+", "-", "*",  "max", "min",
                                      "&", "|", "^", "&&", "||"};
  return Op >= 1 && Op <= 10 ? Names[Op] : "?";
}
std::string redTypeName(int64_t Ty) {
  static const char *const Names[] = {"?",   "i8",  "i16", "i32",
                                      "i64", "u8",  "u16", "u32",
                                      "u64", "float", "double"};
  return Ty >= 1 && Ty <= 10 ? Names[Ty] : "?";
}

// "3+2*arg0": an expression of the descriptor.
std::string exprText(const Expr &E) {
  std::string Out;
  if (E.C != 0 || E.SymParam < 0 || E.SymCoeff == 0)
    Out = signedTerm(E.C, "", true);
  if (E.SymParam >= 0 && E.SymCoeff != 0)
    Out += signedTerm(E.SymCoeff, argName(E.SymParam), Out.empty());
  return Out;
}

// arg1:rw[4*i+4, 4B], arg2:whole, arg0:reduce(+, double),
// arg2:r[4096*q+8*r-8, 8B; if q-1 >= 0] (q and r: the remark gives the divisor)
std::string describe(const Record &R) {
  std::string Out = argName(R.Param) + ":";
  switch (R.Mode) {
  case ModeRead:
    Out += "r";
    break;
  case ModeWrite:
    Out += "w";
    break;
  case ModeReadWrite:
    Out += "rw";
    break;
  case ModeReduce:
    return Out + "reduce(" + redOpName(R.C0) + ", " + redTypeName(R.C1) + ")";
  case ModeReduceElements:
    return Out + "reduce-elements(" + redOpName(R.C0) + ", " +
           redTypeName(R.C1) + ")";
  case ModeMerge:
    return Out + "merge";
  default:
    return Out + "whole";
  }
  // With a divisor m the iteration is i = m*q + r: the offset is in q and r.
  bool Collapsed = !R.Div.isZero();
  std::string Form;
  if (!R.QCoeff.isZero())
    Form += (R.QCoeff.SymParam >= 0 ? "(" + exprText(R.QCoeff) + ")*q"
                                    : signedTerm(R.QCoeff.C, "q", true));
  if (!R.C1Sym.isZero()) {
    Expr C1 = R.C1Sym;
    C1.C = R.C1;
    Form += std::string(Form.empty() ? "" : "+") + "(" + exprText(C1) + ")*" +
            (Collapsed ? "r" : "i");
  } else if (R.C1 != 0) {
    Form += signedTerm(R.C1, Collapsed ? "r" : "i", Form.empty());
  }
  if (R.C0 != 0)
    Form += signedTerm(R.C0, "", Form.empty());
  if (R.SymParam >= 0 && R.SymCoeff != 0)
    Form += signedTerm(R.SymCoeff, argName(R.SymParam), Form.empty());
  if (Form.empty())
    Form = "0";
  Out += "[" + Form + ", " + std::to_string(R.Width) + "B";
  for (const Guard &G : R.Guards) {
    std::string Var = G.Var == VarQ        ? "q"
                      : G.Var == VarOffset ? "offset"
                                           : (Collapsed ? "r" : "i");
    std::string Rest = G.E.isZero() ? "" : exprText(G.E);
    if (!Rest.empty() && Rest[0] != '-')
      Rest = "+" + Rest;
    Out += "; if " + signedTerm(G.K, Var, true) + Rest + " >= 0";
  }
  return Out + "]";
}

// " arg1:r[...] arg2:w[...]", the spread remark's list of records.
std::string describeAll(const std::vector<Record> &Records) {
  std::string List;
  for (const Record &R : Records)
    List += " " + describe(R);
  return Records.empty() ? " (no memory accessed)" : List;
}

template <typename RemarkT>
void emitRemark(Function &K, StringRef RemarkName, const std::string &Msg) {
  OptimizationRemarkEmitter ORE(&K);
  ORE.emit([&]() {
    // The kernel's first debug location is the directive's (with -g or
    // -gline-tables-only); otherwise the function's.
    for (Instruction &I : instructions(K))
      if (const DebugLoc &DL = I.getDebugLoc())
        return RemarkT(PassName, RemarkName, DL, &K.getEntryBlock()) << Msg;
    return RemarkT(PassName, RemarkName, &K) << Msg;
  });
}

std::string withSource(const std::string &Msg, StringRef Kernel) {
  std::string Src = sourceName(Kernel);
  return Src.empty() ? Msg : Msg + " [" + Src + "]";
}

} // namespace

namespace spread {

PreservedAnalyses SpreadAutoPass::run(Module &M, ModuleAnalysisManager &) {
  if (!M.getModuleFlag("openmp-device"))
    return PreservedAnalyses::all();
  // Kernels that already have a window were done by an earlier run.
  SmallVector<Function *, 8> Todo;
  for (Function *K : findKernels(M))
    if (!M.getNamedValue(WindowPrefix + K->getName().str()) &&
        !M.getNamedValue(InfoPrefix + K->getName().str()))
      Todo.push_back(K);
  if (Todo.empty())
    return PreservedAnalyses::all();

  // One clone for the module, made when the first kernel has a chain. Each
  // kernel's K, T and P are found on the real module and mapped into the
  // clone; the windows and clamps added for earlier kernels touch only their
  // own functions.
  std::unique_ptr<Workbench> WB;
  bool Changed = false;
  for (Function *K : Todo) {
    std::string Why;
    std::vector<Record> Records;
    readParamNames(*K);
    StringRef KName = K->getName();
    if (Chain Grid; findGridChain(*K, Grid)) {
      if (!WB)
        WB = std::make_unique<Workbench>(M);
      if (!analyseGrid(*WB, Grid, M.getDataLayout(), Records, Why)) {
        emitRemark<OptimizationRemarkMissed>(
            *K, "KernelNotSpread",
            withSource("kernel " + KName.str() + " runs on one device: " +
                           Why + " (a grid kernel: its teams divide the "
                                 "work by their numbers)",
                       KName));
        continue;
      }
      applyGridWindow(Grid, addWindow(M, KName, /*Grid=*/true));
      addInfo(M, KName, Records, InfoFlagGrid);
      Changed = true;
      emitRemark<OptimizationRemark>(
          *K, "KernelSpread",
          withSource("kernel " + KName.str() +
                         " can be spread over devices by its teams (a grid "
                         "kernel):" +
                         describeAll(Records),
                     KName));
      continue;
    }
    Chain Real;
    ClampPlan Plan;
    bool Nested = false;
    bool Ok = findChain(*K, Real, Why);
    if (Ok) {
      if (!WB)
        WB = std::make_unique<Workbench>(M);
      Chain Clone;
      Clone.K = WB->map(Real.K);
      // -g: the clone gets the _debug__ bodies back into K, T and P.
      std::string Unused;
      Ok = Clone.K && inlineDebugBody(*Clone.K) &&
           findChain(*Clone.K, Clone, Unused) && Clone.T == WB->map(Real.T) &&
           Clone.P == WB->map(Real.P) &&
           Clone.MoreP.size() == Real.MoreP.size() &&
           inlineDebugBody(*Clone.T) && inlineDebugBody(*Clone.P);
      for (auto [Q, Call] : Clone.MoreP)
        Ok = Ok && inlineDebugBody(*Q);
      if (Ok) {
        // (The further regions' bodies after the first's: findChain below
        // sees them again.)
        SmallVector<Function *, 2> More;
        for (auto [Q, Call] : Clone.MoreP)
          More.push_back(Q);
        inlineProgramCalls(*Clone.P);
        for (Function *Q : More)
          inlineProgramCalls(*Q);
        WB->simplify(*Clone.K);
        WB->simplify(*Clone.T);
        WB->simplify(*Clone.P);
        for (Function *Q : More)
          WB->simplify(*Q);
        // The calls may have been rewritten by the cleanup: find them again.
        Ok = findChain(*Clone.K, Clone, Unused) && Clone.T == WB->map(Real.T) &&
             Clone.P == WB->map(Real.P) && Clone.KBody == Clone.K &&
             Clone.TBody == Clone.T && Clone.PBody == Clone.P &&
             Clone.MoreP.size() == More.size();
      }
      if (!Ok)
        Why = NoLoop;
      if (Ok && !takesChunk(Clone, M.getDataLayout()) &&
          nestedCandidate(Clone)) {
        Nested = true;
        Ok = inlineParallelRegion(*WB, Clone, M.getDataLayout());
        if (!Ok)
          Why = "no combined teams distribute parallel for loop (the "
                "parallel loop does not take the distribute chunk, and its "
                "own bounds could not be followed)";
      }
      if (Ok) {
        KernelAnalysis KA(*WB, Clone, M.getDataLayout(), Nested);
        Ok = KA.run(Records, Why);
      }
    }
    if (Ok)
      Ok = planClamps(Real, Plan, Why, Nested);
    StringRef Name = K->getName();
    if (!Ok) {
      emitRemark<OptimizationRemarkMissed>(
          *K, "KernelNotSpread",
          withSource("kernel " + Name.str() + " runs on one device: " + Why,
                     Name));
      continue;
    }
    GlobalVariable *Win = addWindow(M, Name);
    applyClamps(Real, Plan, Win);
    addInfo(M, Name, Records);
    Changed = true;
    std::string List = describeAll(Records);
    auto Div = find_if(Records, [](const Record &R) { return !R.Div.isZero(); });
    if (Div != Records.end())
      List += " (collapsed: q, r = i / m, i % m with m = " +
              exprText(Div->Div) + ")";
    emitRemark<OptimizationRemark>(
        *K, "KernelSpread",
        withSource("kernel " + Name.str() +
                       " can be spread over devices:" + List,
                   Name));
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace spread
