//! Marks the target tasks whose body starts its construct through the offload runtime.
//!
//! Clang lowers `target ... nowait` (and a target construct with `depend` clauses) to a target
//! task: `__kmpc_omp_target_task_alloc(..., entry, device)` then `__kmpc_omp_task[_with_deps]`.
//! With an `if` clause it emits two such tasks, one whose entry calls `__tgt_target_kernel` (or
//! a `__tgt_target_data_*` entry point) and one whose entry runs the region's host version and
//! never calls the runtime. Spread's runtime only sees the tasks through OMPT, which does not
//! tell them apart; yet it may order a construct after the constructs its task depends on on
//! the device (without a thread waiting) only when the task's body is sure to reach the runtime,
//! which then decides the host fallback itself (docs/runtime.md, "`nowait` and the execution
//! model").
//!
//! So before each allocation whose entry reaches a libomptarget entry point (through direct
//! calls to functions defined in the module) the pass adds a call to the runtime's
//! `__spread_offloading_task()`, which marks the next target task the thread creates. The
//! function is declared `extern_weak` and called only when it is defined: a program built with
//! the plugin still runs on stock libomptarget.

use std::collections::HashSet;

use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValueEnum, FunctionValue, InstructionValue, Operand};

use crate::ffi;

/// libomp's allocation of a target task.
pub const TARGET_TASK_ALLOC: &str = "__kmpc_omp_target_task_alloc";
/// The runtime's marker (`runtime/src/capi/ompt/tasks.rs`).
pub const OFFLOADING_MARK: &str = "__spread_offloading_task";
/// The module-local function called instead of the marker when the runtime lacks it.
const NO_MARK: &str = "spread.offloading.none";
/// The argument of the allocation that is the task's entry function.
const ENTRY_ARG: u32 = 5;
/// How deep the pass follows calls from a task's entry (clang's entry calls the outlined task
/// body, which calls the runtime; inlining may have merged them).
const MAX_DEPTH: usize = 4;

/// Whether `name` is a libomptarget entry point that starts a construct.
fn is_offload_entry(name: &str) -> bool {
    name == "__tgt_target_kernel"
        || name.starts_with("__tgt_target_data_")
        || name.starts_with("__tgt_target_kernel_")
}

/// Whether `func`, or a function it calls directly (up to `depth` calls away), calls a
/// libomptarget entry point.
fn reaches_offload(func: FunctionValue<'_>, depth: usize, seen: &mut HashSet<String>) -> bool {
    let name = func.get_name().to_string_lossy().into_owned();
    if !seen.insert(name) {
        return false;
    }
    for inst in func
        .get_basic_block_iter()
        .flat_map(|b| b.get_instructions())
    {
        let Some(callee) = ffi::called_function(inst) else {
            continue;
        };
        if is_offload_entry(&callee.get_name().to_string_lossy()) {
            return true;
        }
        if depth > 0 && callee.count_basic_blocks() > 0 && reaches_offload(callee, depth - 1, seen)
        {
            return true;
        }
    }
    false
}

/// The entry function a target task allocation passes.
fn entry_of<'ctx>(
    module: &Module<'ctx>,
    alloc: InstructionValue<'ctx>,
) -> Option<FunctionValue<'ctx>> {
    let Some(Operand::Value(BasicValueEnum::PointerValue(p))) = alloc.get_operand(ENTRY_ARG) else {
        return None;
    };
    let name = p.get_name().to_str().ok()?.to_owned();
    module.get_function(&name)
}

/// The calls to `__kmpc_omp_target_task_alloc` in `module` whose task's entry offloads.
fn offloading_allocs<'ctx>(module: &Module<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut found = Vec::new();
    for func in module.get_functions() {
        for inst in func
            .get_basic_block_iter()
            .flat_map(|b| b.get_instructions())
        {
            let is_alloc = ffi::called_function(inst)
                .is_some_and(|f| f.get_name().to_bytes() == TARGET_TASK_ALLOC.as_bytes());
            if !is_alloc {
                continue;
            }
            let offloads = entry_of(module, inst)
                .is_some_and(|e| reaches_offload(e, MAX_DEPTH, &mut HashSet::new()));
            if offloads && !already_marked(inst) {
                found.push(inst);
            }
        }
    }
    found
}

/// Whether the instruction before `alloc` is the marker's call (the pass already ran).
fn already_marked(alloc: InstructionValue<'_>) -> bool {
    alloc.get_previous_instruction().is_some_and(|p| {
        p.get_opcode() == inkwell::values::InstructionOpcode::Call && is_mark_call(p)
    })
}

fn is_mark_call(call: InstructionValue<'_>) -> bool {
    // The marker is called through a `select`: its operand names the select.
    let n = call.get_num_operands();
    n > 0
        && matches!(call.get_operand(n - 1), Some(Operand::Value(BasicValueEnum::PointerValue(p)))
            if p.get_name().to_bytes().starts_with(b"spread.mark"))
}

/// Adds the marker's call before every offloading target task allocation of `module`; returns
/// whether the module changed.
pub fn mark_offloading_tasks(module: &Module<'_>) -> bool {
    if module.get_function(TARGET_TASK_ALLOC).is_none() {
        return false;
    }
    let allocs = offloading_allocs(module);
    if allocs.is_empty() {
        return false;
    }
    let ctx = module.get_context();
    let void_fn = ctx.void_type().fn_type(&[], false);
    let mark = module.get_function(OFFLOADING_MARK).unwrap_or_else(|| {
        module.add_function(OFFLOADING_MARK, void_fn, Some(Linkage::ExternalWeak))
    });
    let none = module.get_function(NO_MARK).unwrap_or_else(|| {
        let f = module.add_function(NO_MARK, void_fn, Some(Linkage::Private));
        let b = ctx.create_builder();
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let _ = b.build_return(None);
        f
    });
    let builder = ctx.create_builder();
    let mut changed = false;
    for alloc in allocs {
        builder.position_before(&alloc);
        let mark_ptr = mark.as_global_value().as_pointer_value();
        let Ok(defined) = builder.build_is_not_null(mark_ptr, "spread.mark.defined") else {
            continue;
        };
        let Ok(callee) = builder.build_select(
            defined,
            mark_ptr,
            none.as_global_value().as_pointer_value(),
            "spread.mark",
        ) else {
            continue;
        };
        if builder
            .build_indirect_call(void_fn, callee.into_pointer_value(), &[], "")
            .is_ok()
        {
            changed = true;
        }
    }
    changed
}
