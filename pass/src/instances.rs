//! `device(any)` instances (docs/spread-abi.md §6): the task of a `nowait` instance becomes a
//! hidden helper task, as clang makes the task of a `target nowait`.
//!
//! The driver lowers `target device(any) ... nowait` into `#pragma omp task` whose body first
//! calls `__spread_any_deferred()`. An explicit task created outside a parallel region runs at
//! once in libomp (its team is serialized), so the program's instances would run one after the
//! other; a target task (`__kmpc_omp_target_task_alloc`) goes to libomp's hidden helper threads
//! and runs asynchronously wherever it is created, and OpenMP's dependences and `taskwait` treat
//! it as any other task. Clang outlines the task body into a function that the task's entry calls:
//! an allocation whose entry calls (or is) a function that calls the marker is rewritten.

use std::collections::HashSet;

use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionValue};
use inkwell::AddressSpace;

use crate::ffi;
use crate::rewrite::{callee_name, value_operand, TARGET_TASK_ALLOC};

/// The marker call of a `nowait` instance's task body.
pub const DEFERRED_MARKER: &str = "__spread_any_deferred";
/// libomp's allocation of an explicit task.
pub const TASK_ALLOC: &str = "__kmpc_omp_task_alloc";

fn calls(func: FunctionValue<'_>) -> impl Iterator<Item = InstructionValue<'_>> {
    func.get_basic_block_iter()
        .flat_map(|b| b.get_instructions())
        .filter(|i| ffi::called_function(*i).is_some())
}

/// Makes the task of every `nowait` instance a hidden helper task; returns whether it changed
/// the module.
pub fn hide_instance_tasks(module: &Module<'_>) -> bool {
    if module.get_function(DEFERRED_MARKER).is_none() {
        return false;
    }
    let Some(alloc) = module.get_function(TASK_ALLOC) else {
        return false;
    };
    let functions: Vec<FunctionValue<'_>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    let marked: HashSet<String> = functions
        .iter()
        .filter(|f| calls(**f).any(|c| callee_name(c).as_deref() == Some(DEFERRED_MARKER)))
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    if marked.is_empty() {
        return false;
    }
    // Task entries: the marked functions and the functions that call one.
    let entries: HashSet<String> = functions
        .iter()
        .filter(|f| {
            marked.contains(f.get_name().to_str().unwrap_or(""))
                || calls(**f).any(|c| callee_name(c).is_some_and(|n| marked.contains(&n)))
        })
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
    let target_alloc = module.get_function(TARGET_TASK_ALLOC).unwrap_or_else(|| {
        let ty = ptr.fn_type(
            &[
                ptr.into(),
                i32t.into(),
                i32t.into(),
                i64t.into(),
                i64t.into(),
                ptr.into(),
                i64t.into(),
            ],
            false,
        );
        module.add_function(TARGET_TASK_ALLOC, ty, None)
    });
    let builder = ctx.create_builder();
    let mut changed = false;
    for func in &functions {
        let sites: Vec<InstructionValue<'_>> = calls(*func)
            .filter(|c| ffi::called_function(*c) == Some(alloc))
            .collect();
        for call in sites {
            let Some(BasicValueEnum::PointerValue(entry)) = value_operand(call, 5) else {
                continue;
            };
            let name = entry.get_name().to_string_lossy().into_owned();
            if !entries.contains(&name) {
                continue;
            }
            let mut args: Vec<BasicMetadataValueEnum<'_>> = Vec::new();
            for i in 0..6 {
                match value_operand(call, i) {
                    Some(v) => args.push(v.into()),
                    None => break,
                }
            }
            if args.len() != 6 {
                continue;
            }
            // Device -1: the task is not tied to a device (libomp only uses it for the
            // hidden helper decision).
            args.push(i64t.const_int(u64::MAX, true).into());
            builder.position_before(&call);
            let Ok(new) = builder.build_call(target_alloc, &args, "") else {
                continue;
            };
            let Some(new) = ffi::as_instruction(inkwell::values::AnyValue::as_any_value_enum(&new))
            else {
                continue;
            };
            new.set_debug_location(call.get_debug_location());
            call.replace_all_uses_with(&new);
            call.erase_from_basic_block();
            changed = true;
        }
    }
    changed
}
