//! The FFI layer, and the only module with `unsafe` code.
//!
//! * `llvmGetPassPluginInfo`, the symbol `opt`/`clang` look up when they load the plugin;
//!   its callback lives in the C++ shim (`shim/shim.cpp`), which registers the pass.
//! * [`run_module_pass`], the body of `spread_pass_run_on_module` (in lib.rs), which the
//!   shim's pass calls for each host module: it wraps the module without taking ownership and
//!   runs the pass it is given (lib.rs gives `rewrite::run_on_module`), with panics caught at
//!   the boundary.
//! * Safe wrappers for the shim's IR utilities and diagnostics, and the few queries the
//!   inkwell API lacks.

use std::ffi::{c_char, c_int, c_void};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{
    LLVMGetCalledValue, LLVMGetTypeKind, LLVMIsACallBrInst, LLVMIsACallInst, LLVMIsAFunction,
    LLVMIsAInstruction, LLVMIsAInvokeInst, LLVMTypeOf,
};
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::module::Module;
use inkwell::values::{
    AnyValueEnum, AsValueRef, FunctionValue, InstructionOpcode, InstructionValue,
};

/// Mirror of `llvm::PassPluginLibraryInfo` (llvm/Passes/PassPlugin.h, LLVM 19).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    /// `void (*)(llvm::PassBuilder &)`.
    register_pass_builder_callbacks: unsafe extern "C" fn(*mut c_void),
}

extern "C" {
    fn spread_shim_plugin_api_version() -> u32;
    fn spread_shim_register_callbacks(pass_builder: *mut c_void);
    fn spread_shim_split_before(
        inst: LLVMValueRef,
        name: *const c_char,
        len: usize,
    ) -> LLVMBasicBlockRef;
    fn spread_shim_split_edge(from: LLVMBasicBlockRef, to: LLVMBasicBlockRef) -> LLVMBasicBlockRef;
    fn spread_shim_demote_to_stack(inst: LLVMValueRef) -> c_int;
    fn spread_shim_remark(inst: LLVMValueRef, msg: *const c_char, len: usize);
    fn spread_shim_error(func: LLVMValueRef, msg: *const c_char, len: usize);
}

const PLUGIN_NAME: &[u8] = b"spread\0";
const PLUGIN_VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// Entry point of the plugin, looked up by `opt -load-pass-plugin` and `clang -fpass-plugin`.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        // SAFETY: a plain C function of the shim without arguments or preconditions.
        api_version: unsafe { spread_shim_plugin_api_version() },
        plugin_name: PLUGIN_NAME.as_ptr().cast(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_pass_builder_callbacks: spread_shim_register_callbacks,
    }
}

/// A pass over one host module: returns whether it changed the module.
pub type ModulePass = fn(&Module<'_>) -> bool;

/// Runs `pass` on the module that the shim's `spread` pass hands to
/// `spread_pass_run_on_module` (lib.rs) for every module without the `openmp-device` flag:
/// `module` is that module or null (then nothing runs). Returns nonzero when the module
/// changed. A panic aborts the process with a message.
pub fn run_module_pass(module: LLVMModuleRef, pass: ModulePass) -> c_int {
    if module.is_null() {
        return 0;
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `module` is the live `llvm::Module` the pass manager hands to the shim's
        // pass for the duration of this call (lib.rs's `spread_pass_run_on_module`, the only
        // caller, passes on what the shim gives it). `ManuallyDrop` keeps inkwell from
        // disposing it: the module belongs to clang/opt.
        let module = ManuallyDrop::new(unsafe { Module::new(module) });
        pass(&module)
    }));
    match result {
        Ok(changed) => c_int::from(changed),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            eprintln!("spread: internal error in the pass plugin: {what}");
            std::process::abort();
        }
    }
}

/// Splits the block of `inst` before `inst`; returns the new block (named `name`), which
/// starts with `inst` and holds the rest of the old block. PHI nodes of the successors are
/// updated. `None` if `inst` is not in a block with a terminator or is a PHI node.
pub fn split_before<'ctx>(inst: InstructionValue<'ctx>, name: &str) -> Option<BasicBlock<'ctx>> {
    let block = inst.get_parent()?;
    block.get_terminator()?;
    if inst.get_opcode() == InstructionOpcode::Phi {
        return None;
    }
    // SAFETY: `inst` is a live instruction of a well-formed block (checked above), which
    // is what `BasicBlock::splitBasicBlock` requires; `name` is valid for `name.len()`
    // bytes during the call. The result is a block of the same function and context, so
    // it lives as long as `'ctx`.
    unsafe {
        BasicBlock::new(spread_shim_split_before(
            inst.as_value_ref(),
            name.as_ptr().cast(),
            name.len(),
        ))
    }
}

/// Puts a new block on the control-flow edge `from -> to`; returns it (`None` if LLVM
/// cannot split that edge).
pub fn split_edge<'ctx>(from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) -> Option<BasicBlock<'ctx>> {
    let term = from.get_terminator()?;
    let is_edge = (0..term.get_num_operands()).any(
        |i| matches!(term.get_operand(i), Some(inkwell::values::Operand::Block(b)) if b == to),
    );
    if !is_edge {
        return None;
    }
    // SAFETY: both blocks are live blocks of one function and `from` has a terminator with
    // `to` as a successor (checked above), as `llvm::SplitEdge` requires. A null result
    // becomes `None`.
    unsafe { BasicBlock::new(spread_shim_split_edge(from.as_mut_ptr(), to.as_mut_ptr())) }
}

/// Replaces every use of `inst` by a load from a new stack slot (stored after `inst`).
/// Returns false (and changes nothing) for values that cannot live in memory.
pub fn demote_to_stack(inst: InstructionValue<'_>) -> bool {
    if inst.get_parent().is_none() {
        return false;
    }
    // SAFETY: `inst` is a live instruction inside a function; the shim checks the type
    // (token values cannot be demoted) before calling `llvm::DemoteRegToStack`.
    unsafe { spread_shim_demote_to_stack(inst.as_value_ref()) != 0 }
}

/// Emits the optimisation remark `msg` of pass `spread` at `inst`
/// (shown with `-Rpass=spread` / `-pass-remarks=spread`).
pub fn emit_remark(inst: InstructionValue<'_>, msg: &str) {
    if inst.get_parent().is_none() {
        return;
    }
    // SAFETY: `inst` is a live instruction inside a function; `msg` is valid for
    // `msg.len()` bytes for the duration of the call (the shim copies it).
    unsafe { spread_shim_remark(inst.as_value_ref(), msg.as_ptr().cast(), msg.len()) }
}

/// Reports the compile error `msg` through the LLVMContext of `func`. In `opt` this prints
/// the message and exits with status 1; clang reports it as an error and fails the job.
pub fn emit_error(func: FunctionValue<'_>, msg: &str) {
    // SAFETY: `func` is a live function; `msg` is valid for `msg.len()` bytes for the
    // duration of the call (the shim copies it).
    unsafe { spread_shim_error(func.as_value_ref(), msg.as_ptr().cast(), msg.len()) }
}

/// The instruction behind a value, if it is one.
pub fn as_instruction<'ctx>(value: AnyValueEnum<'ctx>) -> Option<InstructionValue<'ctx>> {
    let raw = value.as_value_ref();
    // SAFETY: `raw` comes from a live inkwell value; `LLVMIsAInstruction` only inspects it.
    let inst = unsafe { LLVMIsAInstruction(raw) };
    if inst.is_null() {
        None
    } else {
        // SAFETY: `inst` is non-null, so it is an instruction of the same context.
        Some(unsafe { InstructionValue::new(inst) })
    }
}

/// The function a `call`/`invoke` calls directly, if any.
pub fn called_function<'ctx>(inst: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    let raw = inst.as_value_ref();
    // SAFETY: `raw` is a live instruction; the `LLVMIsA*` queries only inspect it.
    let is_call = unsafe {
        !LLVMIsACallInst(raw).is_null()
            || !LLVMIsAInvokeInst(raw).is_null()
            || !LLVMIsACallBrInst(raw).is_null()
    };
    if !is_call {
        return None;
    }
    // SAFETY: `raw` is a call base (checked above), for which `LLVMGetCalledValue` is defined.
    let callee = unsafe { LLVMGetCalledValue(raw) };
    // SAFETY: `callee` is a live value; `LLVMIsAFunction` only inspects it.
    if callee.is_null() || unsafe { LLVMIsAFunction(callee) }.is_null() {
        return None;
    }
    // SAFETY: `callee` is a function (checked above) of the same context.
    unsafe { FunctionValue::new(callee) }
}

/// Whether `inst` produces a value (its type is not `void`).
pub fn has_value(inst: InstructionValue<'_>) -> bool {
    // SAFETY: `inst` is a live instruction; these calls only inspect its type.
    unsafe { LLVMGetTypeKind(LLVMTypeOf(inst.as_value_ref())) != LLVMTypeKind::LLVMVoidTypeKind }
}
