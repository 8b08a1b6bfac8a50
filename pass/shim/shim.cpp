// Spread pass plugin: the C++ side.
//
// Everything that needs LLVM's C++ API lives here and nowhere else:
//   * registering the `spread` module pass (host modules) and the
//     `spread-auto` module pass (device modules, autospread.cpp) with the new
//     pass manager (pipeline parsing for `opt -passes=spread` and
//     `opt -passes=spread-auto`, PipelineStart for clang);
//   * the few IR utilities the C API lacks (block splitting that keeps PHI
//     nodes right, edge splitting, demotion of a value to a stack slot);
//   * diagnostics: optimisation remarks (-Rpass=spread / -pass-remarks=spread)
//     and compile errors reported through the LLVMContext.
// The transformation itself is written in Rust (src/), which is called
// through spread_pass_run_on_module().

#include "autospread.h"

#include "llvm-c/Core.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace llvm;

extern "C" {
// Implemented in Rust (src/ffi.rs). Returns nonzero when the module changed.
int spread_pass_run_on_module(LLVMModuleRef M);
}

namespace {

// An error diagnostic of our own kind. Clang reports plugin-kind diagnostics
// as "error: <message>"; opt's default handler prints "error: <message>" and
// exits with status 1.
class SpreadErrorDiagnostic : public DiagnosticInfo {
public:
  explicit SpreadErrorDiagnostic(std::string Msg)
      : DiagnosticInfo(kind(), DS_Error), Msg(std::move(Msg)) {}
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }
  static int kind() {
    static const int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
  static bool classof(const DiagnosticInfo *DI) {
    return DI->getKind() == kind();
  }

private:
  std::string Msg;
};

struct SpreadPass : PassInfoMixin<SpreadPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    // Device modules (module flag "openmp-device") are skipped on the Rust side.
    if (spread_pass_run_on_module(wrap(&M)) == 0)
      return PreservedAnalyses::all();
    return PreservedAnalyses::none();
  }
  // The rewrite is what the user asked for with `spread`: do not let
  // opt-bisect or optnone instrumentation skip it.
  static bool isRequired() { return true; }
  static StringRef name() { return "spread"; }
};

} // namespace

extern "C" {

// LLVM_PLUGIN_API_VERSION as compiled against, for the Rust-side
// llvmGetPassPluginInfo().
uint32_t spread_shim_plugin_api_version() { return LLVM_PLUGIN_API_VERSION; }

// The PassPluginLibraryInfo::RegisterPassBuilderCallbacks callback.
void spread_shim_register_callbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "spread") {
          MPM.addPass(SpreadPass());
          return true;
        }
        if (Name == "spread-auto") {
          MPM.addPass(spread::SpreadAutoPass());
          return true;
        }
        return false;
      });
  // Clang: run on the unoptimised IR at the start of the default pipeline
  // (once per module and pipeline; the Rust side also skips regions it has
  // already rewritten, so running twice is harmless). `spread` only works on
  // host modules and `spread-auto` only on device modules, where clang's
  // stack slots are still intact for its clamps; it skips kernels that
  // already have a window.
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(SpreadPass());
        MPM.addPass(spread::SpreadAutoPass());
      });
}

// Splits the block of `I` before `I`; returns the new block, named `Name`,
// which starts with `I`. PHI nodes of the successors are updated.
LLVMBasicBlockRef spread_shim_split_before(LLVMValueRef I, const char *Name,
                                           size_t Len) {
  Instruction *Inst = unwrap<Instruction>(I);
  return wrap(Inst->getParent()->splitBasicBlock(Inst->getIterator(),
                                                 StringRef(Name, Len)));
}

// Puts a new block on the edge From -> To (also for invoke edges and critical
// edges); returns it.
LLVMBasicBlockRef spread_shim_split_edge(LLVMBasicBlockRef From,
                                         LLVMBasicBlockRef To) {
  return wrap(SplitEdge(unwrap(From), unwrap(To)));
}

// Replaces every use of the instruction by a load from a new stack slot in
// the entry block, stored right after the definition. Returns 0 (and does
// nothing) for values that cannot be stored (tokens).
int spread_shim_demote_to_stack(LLVMValueRef I) {
  Instruction *Inst = unwrap<Instruction>(I);
  if (Inst->getType()->isTokenTy() || Inst->getType()->isVoidTy())
    return 0;
  DemoteRegToStack(*Inst);
  return 1;
}

// Emits an optimisation remark of pass "spread" located at instruction I.
void spread_shim_remark(LLVMValueRef I, const char *Msg, size_t Len) {
  Instruction *Inst = unwrap<Instruction>(I);
  OptimizationRemarkEmitter ORE(Inst->getFunction());
  ORE.emit([&]() {
    return OptimizationRemark("spread", "RegionRewritten", Inst)
           << StringRef(Msg, Len);
  });
}

// Reports a compile error through the context of function F.
void spread_shim_error(LLVMValueRef F, const char *Msg, size_t Len) {
  Function *Fn = unwrap<Function>(F);
  Fn->getContext().diagnose(SpreadErrorDiagnostic(std::string(Msg, Len)));
}

} // extern "C"
