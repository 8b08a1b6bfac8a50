//! Spread's LLVM 19 pass plugin (`libspread_pass.so`).
//!
//! Loaded with `opt-19 -load-pass-plugin=libspread_pass.so -passes=spread` or
//! `clang-19 -fpass-plugin=libspread_pass.so` (where it runs at the start of the default
//! pipeline of every host module), the `spread` pass turns each region marked by
//! `__spread_region_begin` / `__spread_region_end` into a loop over the region's chunks and
//! redirects the region's kernel launches and data transfers to Spread's runtime
//! (docs/spread-abi.md §3, docs/pass.md); it also marks the target tasks whose body reaches the
//! offload runtime ([`tasks`]).
//!
//! Layout: [`construct`] and [`region`] are plain Rust (construct descriptions, messages,
//! control-flow checks); `rewrite` does the IR work with inkwell; `ffi` is the only module
//! with `unsafe` code (the plugin's `llvmGetPassPluginInfo`, the C++ shim in
//! `shim/shim.cpp`, the IR queries inkwell lacks). The shim's pass calls
//! `spread_pass_run_on_module`, here, which runs `rewrite` through `ffi`.
//!
//! The shipped plugin leaves LLVM's symbols undefined (inkwell feature
//! `llvm19-1-no-llvm-linking`), so test binaries cannot link the IR code in that
//! configuration: plain `cargo test` covers the plain-Rust modules, and
//! `cargo test -p spread-pass --no-default-features --features test-llvm` (libLLVM linked
//! dynamically) also runs the IR tests.
//!
//! # Layers
//!
//! Top to bottom; a module imports only modules listed after it (checked by
//! `runtime/tests/layers.rs`):
//!
//! 1. IR rewriting: `rewrite` (the transformation, with inkwell)
//! 2. Target tasks: `tasks` (marks the target tasks whose body reaches the offload runtime)
//! 3. Region analysis: `region` (control flow between a region's begin and end)
//! 4. Constructs: `construct` (what a region's construct says, the pass's messages)
//! 5. LLVM bindings: `ffi` (the shim and the LLVM C API; the only `unsafe` code)

// Without LLVM to link against, unit tests only build the plain-Rust modules, some of
// whose items are then used by the IR code only.
#![cfg_attr(all(test, not(feature = "test-llvm")), allow(dead_code))]

pub mod construct;
pub mod region;

#[cfg(any(not(test), feature = "test-llvm"))]
mod ffi;
#[cfg(any(not(test), feature = "test-llvm"))]
pub mod rewrite;
#[cfg(any(not(test), feature = "test-llvm"))]
pub mod tasks;

/// Called by the shim's `spread` pass for every module without the `openmp-device` flag: runs
/// [`rewrite::run_on_module`] on it. Returns nonzero when the module changed. A panic aborts
/// the process with a message.
#[cfg(any(not(test), feature = "test-llvm"))]
#[no_mangle]
pub extern "C" fn spread_pass_run_on_module(
    module: inkwell::llvm_sys::prelude::LLVMModuleRef,
) -> std::ffi::c_int {
    ffi::run_module_pass(module, rewrite::run_on_module)
}
