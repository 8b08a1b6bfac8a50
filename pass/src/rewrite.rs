//! The transformation of docs/spread-abi.md §3 on an LLVM module.
//!
//! For each `r = __spread_region_begin(...)` with exactly one matching
//! `__spread_region_end(r)` in the same function:
//!
//! ```text
//!   A:  ...; r = begin(...); br H            H:  n = __spread_chunk_next(r)
//!   R': <code between begin and end>             br (n != 0), R', E'
//!       ...; br H                            E': __spread_region_end(r); ...
//! ```
//!
//! and inside the region's blocks `__tgt_target_kernel` / `__tgt_target_data_*_mapper`
//! become `__spread_target_kernel(r, ...)` / `__spread_target_data_*_mapper(r, ...)`.
//! Regions that do not have that shape are reported as compile errors.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, FunctionType};
use inkwell::values::{
    AnyValue, BasicMetadataValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue,
    InstructionOpcode, InstructionValue, Operand, PointerValue,
};
use inkwell::{AddressSpace, IntPredicate};

use crate::construct::{self, Construct, RegionError, RegionStats};
use crate::ffi;
use crate::region::{self, BeginKind, Dominators, Graph, Point};
use crate::tasks::{self, TARGET_TASK_ALLOC};

/// `__spread_region_begin`.
pub const REGION_BEGIN: &str = "__spread_region_begin";
/// `__spread_region_end`.
pub const REGION_END: &str = "__spread_region_end";
/// `__spread_chunk_next`, called by the loop header the pass inserts.
pub const CHUNK_NEXT: &str = "__spread_chunk_next";
/// Instruction metadata put on a rewritten begin call, so that running the pass twice
/// does not wrap a region twice.
pub const REWRITTEN_MD: &str = "spread.rewritten";
/// The module flag that marks OpenMP device modules, which the pass leaves alone.
pub const DEVICE_FLAG: &str = "openmp-device";

/// What a redirected libomptarget call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// A kernel launch.
    Launch,
    /// A data transfer (begin/end/update mapper).
    Transfer,
}

/// The Spread entry point that replaces libomptarget entry point `name` inside a region.
pub fn replacement(name: &str) -> Option<(&'static str, CallKind)> {
    Some(match name {
        "__tgt_target_kernel" => ("__spread_target_kernel", CallKind::Launch),
        "__tgt_target_data_begin_mapper" => {
            ("__spread_target_data_begin_mapper", CallKind::Transfer)
        }
        "__tgt_target_data_end_mapper" => ("__spread_target_data_end_mapper", CallKind::Transfer),
        "__tgt_target_data_update_mapper" => {
            ("__spread_target_data_update_mapper", CallKind::Transfer)
        }
        _ => return None,
    })
}

/// Rewrites every spread region of `module`; returns whether the module changed.
/// Regions that cannot be rewritten are reported as compile errors through LLVM.
pub fn run_on_module(module: &Module<'_>) -> bool {
    if module.get_flag(DEVICE_FLAG).is_some() {
        return false;
    }
    let marked = tasks::mark_offloading_tasks(module);
    let Some(begin_fn) = module.get_function(REGION_BEGIN) else {
        return marked;
    };
    let end_fn = module.get_function(REGION_END);
    let ctx = module.get_context();
    let done_kind = ctx.get_kind_id(REWRITTEN_MD);
    let functions: Vec<FunctionValue<'_>> = module.get_functions().collect();
    let mut changed = marked;
    for func in functions {
        if func.count_basic_blocks() == 0 {
            continue;
        }
        // Everything about the function that does not depend on the region is computed once,
        // before any region is rewritten: each region then costs its own size.
        let plan = FnPlan::new(func, begin_fn, end_fn);
        let begins: Vec<InstructionValue<'_>> = plan
            .begin_calls
            .iter()
            .copied()
            .filter(|i| i.get_metadata(done_kind).is_none())
            .collect();
        for begin in begins {
            let construct = read_construct(module, begin);
            let where_ = construct.location().unwrap_or_else(|| {
                let name = func.get_name().to_string_lossy();
                match begin.get_debug_location() {
                    Some(loc) => format!("function '{name}', line {}", loc.get_line()),
                    None => format!("function '{name}'"),
                }
            });
            match rewrite_region(module, &ctx, &plan, begin) {
                Ok(stats) => {
                    changed = true;
                    begin.set_metadata(ctx.metadata_node(&[]), done_kind).ok();
                    ffi::emit_remark(begin, &construct::remark_message(&where_, &stats));
                }
                Err(RewriteError::Before(err)) => {
                    ffi::emit_error(func, &construct::error_message(&construct, &where_, &err));
                }
                Err(RewriteError::After(err)) => {
                    changed = true;
                    ffi::emit_error(func, &construct::error_message(&construct, &where_, &err));
                }
            }
        }
    }
    changed
}

/// A failure before (nothing changed) or after the IR was modified.
enum RewriteError {
    Before(RegionError),
    After(RegionError),
}

fn after<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> RewriteError + '_ {
    move |e| RewriteError::After(RegionError::Unsupported(format!("{what}: {e:?}")))
}

fn after_none(what: &str) -> RewriteError {
    RewriteError::After(RegionError::Unsupported(format!("internal error: {what}")))
}

/// All instructions of `func`, in order.
#[cfg(test)]
fn instructions<'ctx>(func: FunctionValue<'ctx>) -> impl Iterator<Item = InstructionValue<'ctx>> {
    func.get_basic_block_iter()
        .flat_map(|b| b.get_instructions())
}

/// The name of the function `inst` calls directly.
fn callee_name(inst: InstructionValue<'_>) -> Option<String> {
    ffi::called_function(inst).map(|f| f.get_name().to_string_lossy().into_owned())
}

fn value_operand<'ctx>(inst: InstructionValue<'ctx>, i: u32) -> Option<BasicValueEnum<'ctx>> {
    match inst.get_operand(i)? {
        Operand::Value(v) => Some(v),
        Operand::Block(_) => None,
    }
}

fn successors<'ctx>(block: BasicBlock<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let Some(term) = block.get_terminator() else {
        return Vec::new();
    };
    (0..term.get_num_operands())
        .filter_map(|i| match term.get_operand(i) {
            Some(Operand::Block(b)) => Some(b),
            _ => None,
        })
        .collect()
}

/// Reads the `__spread_construct_t` the begin call's first argument points at.
fn read_construct<'ctx>(module: &Module<'ctx>, begin: InstructionValue<'ctx>) -> Construct {
    let mut out = Construct::default();
    let Some(BasicValueEnum::PointerValue(p)) = value_operand(begin, 0) else {
        return out;
    };
    let Some(BasicValueEnum::StructValue(s)) = global_initializer(module, p) else {
        return out;
    };
    if let Some(BasicValueEnum::PointerValue(f)) = s.get_field_at_index(0) {
        if let Some(BasicValueEnum::ArrayValue(a)) = global_initializer(module, f) {
            if let Some(bytes) = a.as_const_string() {
                let bytes = bytes.split(|b| *b == 0).next().unwrap_or_default();
                out.file = Some(String::from_utf8_lossy(bytes).into_owned());
            }
        }
    }
    let int_field = |i| match s.get_field_at_index(i) {
        Some(BasicValueEnum::IntValue(v)) => v.get_sign_extended_constant(),
        _ => None,
    };
    out.line = int_field(1);
    out.kind = int_field(2);
    out
}

fn global_initializer<'ctx>(
    module: &Module<'ctx>,
    p: PointerValue<'ctx>,
) -> Option<BasicValueEnum<'ctx>> {
    let name = p.get_name().to_str().ok()?;
    if name.is_empty() {
        return None;
    }
    let g = module.get_global(name)?;
    if g.as_pointer_value() != p {
        return None;
    }
    g.get_initializer()
}

/// The begin call whose result `inst` is: the call itself, or (at -O0 and before mem2reg)
/// a load from a local variable that only ever receives that result.
fn origin_begin<'ctx>(
    inst: Option<InstructionValue<'ctx>>,
    begin_fn: FunctionValue<'ctx>,
    depth: u32,
) -> Option<InstructionValue<'ctx>> {
    let inst = inst?;
    if ffi::called_function(inst) == Some(begin_fn) {
        return Some(inst);
    }
    if depth == 0 || inst.get_opcode() != InstructionOpcode::Load {
        return None;
    }
    let slot = value_operand(inst, 0)?.as_instruction_value()?;
    if slot.get_opcode() != InstructionOpcode::Alloca {
        return None;
    }
    let mut stored = None;
    let mut next_use = slot.get_first_use();
    while let Some(u) = next_use {
        next_use = u.get_next_use();
        let user = ffi::as_instruction(u.get_user())?;
        match user.get_opcode() {
            InstructionOpcode::Load => {}
            InstructionOpcode::Store => {
                let to_slot = matches!(value_operand(user, 1), Some(v) if v.as_instruction_value() == Some(slot));
                let of_slot = matches!(value_operand(user, 0), Some(v) if v.as_instruction_value() == Some(slot));
                if !to_slot || of_slot || stored.is_some() {
                    return None;
                }
                stored = value_operand(user, 0);
            }
            InstructionOpcode::Call => {
                let name = callee_name(user)?;
                if !name.starts_with("llvm.lifetime.") {
                    return None;
                }
            }
            _ => return None,
        }
    }
    origin_begin(stored?.as_instruction_value(), begin_fn, depth - 1)
}

/// What the pass needs to know about a function's regions, computed in one sweep over the
/// function before any of them is rewritten (so that rewriting N regions is linear, not
/// quadratic, in N): its control-flow graph and dominators, where its begin calls are, and
/// the end calls of each begin. Rewriting a region splits blocks but leaves the other regions'
/// relations as they were, so the checks can all use the function as it was.
struct FnPlan<'ctx> {
    cfg: FnCfg<'ctx>,
    dom: Dominators,
    /// The begin calls, in order.
    begin_calls: Vec<InstructionValue<'ctx>>,
    /// Begin calls by block: instruction indices.
    begins_by_block: HashMap<usize, Vec<usize>>,
    /// Position of each begin and end call.
    points: HashMap<InstructionValue<'ctx>, Point>,
    /// The end calls of each begin.
    ends: HashMap<InstructionValue<'ctx>, Vec<InstructionValue<'ctx>>>,
}

impl<'ctx> FnPlan<'ctx> {
    fn new(
        func: FunctionValue<'ctx>,
        begin_fn: FunctionValue<'ctx>,
        end_fn: Option<FunctionValue<'ctx>>,
    ) -> Self {
        let cfg = FnCfg::new(func);
        let dom = Dominators::new(&cfg.graph.succs);
        let mut begin_calls = Vec::new();
        let mut begin_points = Vec::new();
        let mut end_calls = Vec::new();
        let mut points = HashMap::new();
        for (bi, block) in cfg.blocks.iter().enumerate() {
            for (ii, inst) in block.get_instructions().enumerate() {
                let Some(callee) = ffi::called_function(inst) else {
                    continue;
                };
                let at = Point {
                    block: bi,
                    index: ii,
                };
                if callee == begin_fn {
                    begin_calls.push(inst);
                    begin_points.push(at);
                    points.insert(inst, at);
                } else if Some(callee) == end_fn {
                    end_calls.push(inst);
                    points.insert(inst, at);
                }
            }
        }
        let mut ends: HashMap<InstructionValue<'ctx>, Vec<InstructionValue<'ctx>>> = HashMap::new();
        for end in end_calls {
            let arg = value_operand(end, 0).and_then(|v| v.as_instruction_value());
            if let Some(b) = origin_begin(arg, begin_fn, 4) {
                ends.entry(b).or_default().push(end);
            }
        }
        FnPlan {
            cfg,
            dom,
            begin_calls,
            begins_by_block: region::index_points(&begin_points),
            points,
            ends,
        }
    }
}

/// The blocks reachable from `start` without entering a block of `stop` (the region's blocks
/// once its loop is built), found from the region alone.
fn blocks_from<'ctx>(start: BasicBlock<'ctx>, stop: &[BasicBlock<'ctx>]) -> Vec<BasicBlock<'ctx>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut work = vec![start];
    while let Some(b) = work.pop() {
        if stop.contains(&b) || !seen.insert(b) {
            continue;
        }
        out.push(b);
        work.extend(successors(b));
    }
    out
}

/// Numbering of a function's blocks and its control-flow graph.
struct FnCfg<'ctx> {
    blocks: Vec<BasicBlock<'ctx>>,
    index: HashMap<BasicBlock<'ctx>, usize>,
    graph: Graph,
}

impl<'ctx> FnCfg<'ctx> {
    fn new(func: FunctionValue<'ctx>) -> Self {
        let blocks = func.get_basic_blocks();
        let index: HashMap<_, _> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let graph = Graph {
            succs: blocks
                .iter()
                .map(|b| {
                    successors(*b)
                        .iter()
                        .filter_map(|s| index.get(s).copied())
                        .collect()
                })
                .collect(),
            returns: blocks
                .iter()
                .map(|b| {
                    b.get_terminator().map(|t| t.get_opcode()) == Some(InstructionOpcode::Return)
                })
                .collect(),
        };
        FnCfg {
            blocks,
            index,
            graph,
        }
    }
}

/// What the checks of a region found: its end, the region handle `r` the begin returns, the
/// begin's block and function, and how the begin is called.
struct CheckedRegion<'ctx> {
    end: InstructionValue<'ctx>,
    r: PointerValue<'ctx>,
    begin_block: BasicBlock<'ctx>,
    func: FunctionValue<'ctx>,
    kind: BeginKind,
}

/// Rewrites one region (`__spread_region_begin` .. `__spread_region_end`) into a loop over its
/// chunks: checked first (nothing is modified until the checks pass), then the loop, then the
/// values that escape it, then its offloading calls.
fn rewrite_region<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    plan: &FnPlan<'ctx>,
    begin: InstructionValue<'ctx>,
) -> Result<RegionStats, RewriteError> {
    let c = check_region(plan, begin)?;
    let builder = ctx.create_builder();
    if let Some(loc) = begin.get_debug_location() {
        builder.set_current_debug_location(loc);
    }
    let (first, header, exit) = build_chunk_loop(module, ctx, &builder, begin, &c, plan)?;

    let region_blocks: Vec<BasicBlock<'ctx>> = blocks_from(first, &[header, exit]);
    // Static allocas that were behind the begin in the entry block stay static.
    if c.func.get_first_basic_block() == Some(c.begin_block) && c.kind == BeginKind::Call {
        hoist_static_allocas(&builder, c.begin_block, first);
    }
    demote_escaping(&region_blocks)?;
    redirect_calls(module, ctx, &builder, &region_blocks, c.r)
}

/// The checks of a region before anything is modified: one end, a pointer handle, a begin
/// called or invoked, and the shape `region::check_indexed` requires.
fn check_region<'ctx>(
    plan: &FnPlan<'ctx>,
    begin: InstructionValue<'ctx>,
) -> Result<CheckedRegion<'ctx>, RewriteError> {
    use RewriteError::Before;
    let ends: &[InstructionValue<'ctx>] = plan.ends.get(&begin).map_or(&[], |v| v.as_slice());
    let end = match ends {
        [] => return Err(Before(RegionError::NoEnd)),
        [end] => *end,
        more => return Err(Before(RegionError::MultipleEnds(more.len()))),
    };
    let r = PointerValue::try_from(begin).map_err(|_| {
        Before(RegionError::Unsupported(
            "__spread_region_begin does not return a pointer".into(),
        ))
    })?;

    let cfg = &plan.cfg;
    let not_found = || {
        Before(RegionError::Unsupported(
            "internal error: instruction outside the function".into(),
        ))
    };
    let begin_at = *plan.points.get(&begin).ok_or_else(not_found)?;
    let end_at = *plan.points.get(&end).ok_or_else(not_found)?;
    let begin_block = begin.get_parent().ok_or_else(not_found)?;
    let func = begin_block.get_parent().ok_or_else(not_found)?;
    let kind = match begin.get_opcode() {
        InstructionOpcode::Call => BeginKind::Call,
        InstructionOpcode::Invoke => {
            // Invoke operands: arguments..., normal destination, unwind destination, callee.
            let n = begin.get_num_operands();
            let normal = match n.checked_sub(3).and_then(|i| begin.get_operand(i)) {
                Some(Operand::Block(b)) => b,
                _ => {
                    return Err(Before(RegionError::Unsupported(
                        "malformed invoke of __spread_region_begin".into(),
                    )))
                }
            };
            BeginKind::Invoke {
                normal_dest: *cfg.index.get(&normal).ok_or_else(not_found)?,
            }
        }
        other => {
            return Err(Before(RegionError::Unsupported(format!(
                "__spread_region_begin is called by an unsupported instruction ({other:?})"
            ))))
        }
    };
    region::check_indexed(
        &cfg.graph,
        &plan.dom,
        begin_at,
        kind,
        end_at,
        &plan.begins_by_block,
    )
    .map_err(Before)?;
    Ok(CheckedRegion {
        end,
        r,
        begin_block,
        func,
        kind,
    })
}

/// The loop over chunks: a header block that asks `__spread_chunk_next(r)` for the next chunk
/// and enters the region's first block while there is one, else the block of the end; the
/// begin's block and the region's last block branch to the header. Returns the region's first
/// block, the header and the exit block.
fn build_chunk_loop<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    begin: InstructionValue<'ctx>,
    c: &CheckedRegion<'ctx>,
    plan: &FnPlan<'ctx>,
) -> Result<(BasicBlock<'ctx>, BasicBlock<'ctx>, BasicBlock<'ctx>), RewriteError> {
    let (end, r) = (c.end, c.r);
    // The end takes r itself: its operand may be a reload of r inside the region.
    if value_operand(end, 0) != Some(r.as_basic_value_enum()) {
        end.set_operand(0, r);
    }
    // A: the block ending right after the begin; R': the region's first block.
    let (pre, first) = match c.kind {
        BeginKind::Call => {
            let next = begin
                .get_next_instruction()
                .ok_or_else(|| after_none("begin without successor"))?;
            let first = ffi::split_before(next, "spread.region")
                .ok_or_else(|| after_none("cannot split after begin"))?;
            (c.begin_block, first)
        }
        BeginKind::Invoke { normal_dest } => {
            let normal = *plan
                .cfg
                .blocks
                .get(normal_dest)
                .ok_or_else(|| after_none("invoke destination"))?;
            let pre = ffi::split_edge(c.begin_block, normal)
                .ok_or_else(|| after_none("cannot split the begin's normal edge"))?;
            let term = pre
                .get_terminator()
                .ok_or_else(|| after_none("split edge without terminator"))?;
            let first = ffi::split_before(term, "spread.region")
                .ok_or_else(|| after_none("cannot split after begin"))?;
            (pre, first)
        }
    };
    // P: the region's last block; E': the block starting with the end.
    let last = end
        .get_parent()
        .ok_or_else(|| after_none("end outside a block"))?;
    let exit = ffi::split_before(end, "spread.end")
        .ok_or_else(|| after_none("cannot split before end"))?;

    let header = ctx.prepend_basic_block(first, "spread.chunk");
    let i32_type = ctx.i32_type();
    let ptr_type = ctx.ptr_type(AddressSpace::default());
    let next_type = i32_type.fn_type(&[ptr_type.into()], false);
    let next_fn = declare(module, CHUNK_NEXT, next_type);
    builder.position_at_end(header);
    let n = builder
        .build_indirect_call(
            next_type,
            next_fn.as_global_value().as_pointer_value(),
            &[r.into()],
            "spread.next",
        )
        .map_err(after("building the chunk loop"))?;
    let n = match n.try_as_basic_value() {
        inkwell::values::ValueKind::Basic(BasicValueEnum::IntValue(v)) => v,
        _ => return Err(after_none("__spread_chunk_next does not return an integer")),
    };
    let more = builder
        .build_int_compare(IntPredicate::NE, n, i32_type.const_zero(), "spread.more")
        .map_err(after("building the chunk loop"))?;
    builder
        .build_conditional_branch(more, first, exit)
        .map_err(after("building the chunk loop"))?;
    retarget(builder, pre, header)?;
    retarget(builder, last, header)?;
    Ok((first, header, exit))
}

/// Values computed in the region and used after it go through memory: the loop may run any
/// number of times, so their definitions no longer dominate those uses.
fn demote_escaping(region_blocks: &[BasicBlock<'_>]) -> Result<(), RewriteError> {
    let in_region: HashSet<BasicBlock<'_>> = region_blocks.iter().copied().collect();
    let escaping: Vec<InstructionValue<'_>> = region_blocks
        .iter()
        .flat_map(|b| b.get_instructions())
        .filter(|i| used_outside(*i, &in_region))
        .collect();
    for inst in escaping {
        if !ffi::demote_to_stack(inst) {
            return Err(RewriteError::After(RegionError::Unsupported(
                "a value computed inside the region that cannot be stored in memory is used \
                 after the region"
                    .into(),
            )));
        }
    }
    Ok(())
}

/// The region's offloading calls go to their chunk-aware versions, which take `r`; target
/// tasks are counted (their constructs start through Spread when the task runs).
fn redirect_calls<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    region_blocks: &[BasicBlock<'ctx>],
    r: PointerValue<'ctx>,
) -> Result<RegionStats, RewriteError> {
    let mut stats = RegionStats::default();
    let calls: Vec<(InstructionValue<'ctx>, String)> = region_blocks
        .iter()
        .flat_map(|b| b.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::Call)
        .filter_map(|i| callee_name(i).map(|n| (i, n)))
        .collect();
    for (call, name) in calls {
        if name == TARGET_TASK_ALLOC {
            stats.target_tasks += 1;
            continue;
        }
        let Some((new_name, kind)) = replacement(&name) else {
            continue;
        };
        redirect_call(module, ctx, builder, call, new_name, r)?;
        match kind {
            CallKind::Launch => stats.launches += 1,
            CallKind::Transfer => stats.transfers += 1,
        }
    }
    Ok(stats)
}

fn used_outside(inst: InstructionValue<'_>, region: &HashSet<BasicBlock<'_>>) -> bool {
    let mut next_use = inst.get_first_use();
    while let Some(u) = next_use {
        next_use = u.get_next_use();
        match ffi::as_instruction(u.get_user()).and_then(|i| i.get_parent()) {
            Some(b) if region.contains(&b) => {}
            _ => return true,
        }
    }
    false
}

/// Replaces the unconditional `br` that ends `block` by `br target`.
fn retarget<'ctx>(
    builder: &Builder<'ctx>,
    block: BasicBlock<'ctx>,
    target: BasicBlock<'ctx>,
) -> Result<(), RewriteError> {
    let term = block
        .get_terminator()
        .ok_or_else(|| after_none("split block without terminator"))?;
    if term.get_opcode() != InstructionOpcode::Br || term.get_num_operands() != 1 {
        return Err(after_none(
            "split block does not end in an unconditional branch",
        ));
    }
    let loc = term.get_debug_location();
    term.erase_from_basic_block();
    builder.position_at_end(block);
    let br = builder
        .build_unconditional_branch(target)
        .map_err(after("building the chunk loop"))?;
    if loc.is_some() {
        br.set_debug_location(loc);
    }
    Ok(())
}

fn hoist_static_allocas<'ctx>(
    builder: &Builder<'ctx>,
    entry: BasicBlock<'ctx>,
    from: BasicBlock<'ctx>,
) {
    let allocas: Vec<InstructionValue<'ctx>> = from
        .get_instructions()
        .filter(|i| i.get_opcode() == InstructionOpcode::Alloca)
        .filter(
            |i| matches!(value_operand(*i, 0), Some(BasicValueEnum::IntValue(n)) if n.is_const()),
        )
        .collect();
    if allocas.is_empty() {
        return;
    }
    let Some(anchor) = entry
        .get_instructions()
        .find(|i| i.get_opcode() != InstructionOpcode::Alloca)
    else {
        return;
    };
    for a in allocas {
        // (Inserting through a builder sets the name: keep the old one.)
        let name = a
            .get_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        a.remove_from_basic_block();
        builder.position_before(&anchor);
        builder.insert_instruction(&a, Some(&name));
    }
}

/// Gets `name` from the module, declaring it with `ty` if absent.
fn declare<'ctx>(module: &Module<'ctx>, name: &str, ty: FunctionType<'ctx>) -> FunctionValue<'ctx> {
    module
        .get_function(name)
        .unwrap_or_else(|| module.add_function(name, ty, None))
}

/// Replaces `call @old(args...)` by `call @new_name(r, args...)`.
fn redirect_call<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    call: InstructionValue<'ctx>,
    new_name: &str,
    r: PointerValue<'ctx>,
) -> Result<(), RewriteError> {
    let site = CallSiteValue::try_from(call).map_err(|_| after_none("not a call"))?;
    let old_type = site.get_called_fn_type();
    let mut params: Vec<BasicMetadataTypeEnum<'ctx>> =
        vec![ctx.ptr_type(AddressSpace::default()).into()];
    params.extend(old_type.get_param_types());
    let new_type = match old_type.get_return_type() {
        Some(ret) => ret.fn_type(&params, old_type.is_var_arg()),
        None => ctx.void_type().fn_type(&params, old_type.is_var_arg()),
    };
    let callee = declare(module, new_name, new_type);
    let nargs = site.count_arguments();
    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = vec![r.into()];
    for i in 0..nargs {
        let v = value_operand(call, i).ok_or_else(|| after_none("call argument is not a value"))?;
        args.push(v.into());
    }
    builder.position_before(&call);
    let new = builder
        .build_indirect_call(
            new_type,
            callee.as_global_value().as_pointer_value(),
            &args,
            "",
        )
        .map_err(after("redirecting a libomptarget call"))?;
    let new = ffi::as_instruction(new.as_any_value_enum())
        .ok_or_else(|| after_none("call is not an instruction"))?;
    new.set_debug_location(call.get_debug_location());
    let name = call
        .get_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if ffi::has_value(call) {
        call.replace_all_uses_with(&new);
    }
    call.erase_from_basic_block();
    if !name.is_empty() {
        // Best effort: a name is only cosmetic.
        new.set_name(&name).ok();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    #[test]
    fn replacements() {
        assert_eq!(
            replacement("__tgt_target_kernel"),
            Some(("__spread_target_kernel", CallKind::Launch))
        );
        for op in ["begin", "end", "update"] {
            let (name, kind) =
                replacement(&format!("__tgt_target_data_{op}_mapper")).expect("mapped");
            assert_eq!(name, format!("__spread_target_data_{op}_mapper"));
            assert_eq!(kind, CallKind::Transfer);
        }
        assert_eq!(replacement("__tgt_target_data_begin_nowait_mapper"), None);
        assert_eq!(replacement("__kmpc_fork_call"), None);
    }

    const DECLS: &str = r#"
%struct.C = type { ptr, i32, i32, i32, i32 }
@.str = private constant [4 x i8] c"a.c\00"
@c = internal constant %struct.C { ptr @.str, i32 7, i32 1, i32 0, i32 0 }
@loc = private constant i8 0
@id = private constant i8 0
declare ptr @__spread_region_begin(ptr, i64, i64, ptr, i32, i64)
declare void @__spread_region_end(ptr)
declare i32 @__spread_chunk_device(ptr)
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)
declare void @__tgt_target_data_begin_mapper(ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr)
declare i32 @__gxx_personality_v0(...)
declare void @may_throw()
"#;

    /// Parses `body` (plus [`DECLS`]), runs the pass, verifies the result and returns
    /// (changed, printed module).
    fn run(body: &str) -> (bool, String) {
        let ctx = Context::create();
        let text = format!("{DECLS}\n{body}");
        let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "test");
        let module = ctx.create_module_from_ir(buf).expect("test IR parses");
        let changed = run_on_module(&module);
        let printed = module.print_to_string().to_string();
        if let Err(e) = module.verify() {
            panic!("invalid IR after the pass: {e}\n{printed}");
        }
        (changed, printed)
    }

    fn function<'a>(printed: &'a str, name: &str) -> &'a str {
        let start = printed
            .find(&format!("@{name}("))
            .expect("function printed");
        let start = printed[..start].rfind("define").expect("definition");
        let len = printed[start..].find("\n}\n").expect("end of function");
        &printed[start..start + len]
    }

    #[test]
    fn straight_line_region() {
        let (changed, out) = run(r#"
define void @f(ptr %a) {
entry:
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
  %d = call i32 @__spread_chunk_device(ptr %r)
  %dev = sext i32 %d to i64
  call void @__tgt_target_data_begin_mapper(ptr @loc, i64 %dev, i32 1, ptr %a, ptr %a, ptr null, ptr null, ptr null, ptr null)
  %k = call i32 @__tgt_target_kernel(ptr @loc, i64 %dev, i32 1, i32 0, ptr @id, ptr %a)
  call void @__spread_region_end(ptr %r)
  ret void
}
"#);
        assert!(changed);
        let f = function(&out, "f");
        assert!(f.contains("spread.chunk:"), "{f}");
        assert!(f.contains("call i32 @__spread_chunk_next(ptr %r)"), "{f}");
        assert!(
            f.contains("br i1 %spread.more, label %spread.region, label %spread.end"),
            "{f}"
        );
        assert!(
            f.contains("call i32 @__spread_target_kernel(ptr %r, ptr @loc, i64 %dev"),
            "{f}"
        );
        assert!(
            f.contains("call void @__spread_target_data_begin_mapper(ptr %r, ptr @loc"),
            "{f}"
        );
        assert!(!f.contains("@__tgt_target"), "{f}");
        assert!(out.contains("declare i32 @__spread_chunk_next(ptr)"));
        // A second run finds nothing to do.
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(out.as_bytes(), "again");
        let module = ctx.create_module_from_ir(buf).expect("output parses");
        assert!(!run_on_module(&module));
    }

    #[test]
    fn values_used_after_the_region_are_demoted() {
        let (_, out) = run(r#"
define i32 @g(ptr %a) {
entry:
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
  %d = call i32 @__spread_chunk_device(ptr %r)
  %slot = alloca i32
  call void @__spread_region_end(ptr %r)
  store i32 1, ptr %slot
  ret i32 %d
}
"#);
        let f = function(&out, "g");
        // The static alloca that followed the begin stays in the entry block.
        let entry_end = f
            .find("br label %spread.chunk")
            .expect("entry branches to the header");
        assert!(f[..entry_end].contains("%slot = alloca i32"), "{f}");
        assert!(f.contains("%d.reload = load i32"), "{f}");
    }

    #[test]
    fn reload_through_memory_and_branches() {
        let (changed, out) = run(r#"
define void @h(i1 %c) {
entry:
  %rp = alloca ptr
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
  store ptr %r, ptr %rp
  br i1 %c, label %then, label %join
then:
  %r1 = load ptr, ptr %rp
  %d = call i32 @__spread_chunk_device(ptr %r1)
  br label %join
join:
  %x = phi i32 [ 0, %entry ], [ 1, %then ]
  %r2 = load ptr, ptr %rp
  call void @__spread_region_end(ptr %r2)
  ret void
}
"#);
        assert!(changed);
        let f = function(&out, "h");
        assert!(f.contains("call void @__spread_region_end(ptr %r)"), "{f}");
        assert!(f.contains("br label %spread.chunk"), "{f}");
    }

    #[test]
    fn invoke_begin() {
        let (changed, out) = run(r#"
define void @i() personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
          to label %cont unwind label %lpad
cont:
  invoke void @may_throw() to label %done unwind label %lpad
done:
  call void @__spread_region_end(ptr %r)
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
"#);
        assert!(changed);
        let f = function(&out, "i");
        assert!(f.contains("call i32 @__spread_chunk_next(ptr %r)"), "{f}");
    }

    #[test]
    fn two_regions_and_device_modules() {
        let body = r#"
define void @two() {
entry:
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
  call void @__spread_region_end(ptr %r)
  %s = call ptr @__spread_region_begin(ptr @c, i64 0, i64 10, ptr null, i32 0, i64 0)
  call void @__spread_region_end(ptr %s)
  ret void
}
"#;
        let (changed, out) = run(body);
        assert!(changed);
        let f = function(&out, "two");
        assert!(f.contains("call i32 @__spread_chunk_next(ptr %r)"), "{f}");
        assert!(f.contains("call i32 @__spread_chunk_next(ptr %s)"), "{f}");
        let device = format!(
            "{body}\n!llvm.module.flags = !{{!0}}\n!0 = !{{i32 7, !\"openmp-device\", i32 51}}\n"
        );
        let (changed, out) = run(&device);
        assert!(!changed);
        assert!(!out.contains("__spread_chunk_next"));
    }

    #[test]
    fn construct_fields() {
        let ctx = Context::create();
        let text = format!(
            "{DECLS}\ndefine void @f() {{\n  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 1, ptr null, i32 0, i64 0)\n  ret void\n}}\n"
        );
        let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "c");
        let module = ctx.create_module_from_ir(buf).expect("parses");
        let f = module.get_function("f").expect("f");
        let begin = instructions(f).next().expect("begin");
        let c = read_construct(&module, begin);
        assert_eq!(
            c,
            Construct {
                file: Some("a.c".into()),
                line: Some(7),
                kind: Some(1)
            }
        );
    }
}
