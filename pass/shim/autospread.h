// Spread pass plugin: the `spread-auto` device-job pass (autospread.cpp).
//
// Declared here so that shim.cpp can register it next to `spread`.

#ifndef SPREAD_PASS_AUTOSPREAD_H
#define SPREAD_PASS_AUTOSPREAD_H

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace spread {

// Makes the combined kernels of an OpenMP device module spreadable over
// several devices: a window global and three clamps bound the iterations a
// launch runs, and a descriptor tells the runtime which bytes of each kernel
// argument an iteration range touches (docs/pass.md, "Automatic spreading").
// Modules without the "openmp-device" module flag are left alone.
struct SpreadAutoPass : llvm::PassInfoMixin<SpreadAutoPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  // The window must be in every image of a kernel that has a descriptor, at
  // every -O level: optnone and opt-bisect must not skip the pass.
  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "spread-auto"; }
};

} // namespace spread

#endif
