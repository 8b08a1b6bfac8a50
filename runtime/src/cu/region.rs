//! One execution of a compute-unit region (the paper's Fig. 13 transformation, driven by the
//! lowering of docs/compute-units.md): the CUs, the scheduler that hands their tasks out (the
//! shared scheduling core in pull mode, one resource per CU), and which thread is which CU.
//!
//! One region is active at a time in the process (`ACTIVE`): its CU threads bind themselves
//! to their CU ([`enter`]), and threads of nested parallel regions find their CU through their
//! ancestor at the CU level (`omp_get_ancestor_thread_num(cu_level)`, digest §2), so the queries
//! need nothing from the program.

use super::layout::{self, ComputeUnit, Descriptor, Layout, Limits};
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Runtime;
use crate::sched::model::Model;
use crate::sched::{Kind, Mode, Resource, Scheduler, Spec, Tally, Unit};
use crate::spread::Construct;
use crate::sys::kmp;
use parking_lot::{Mutex, RwLock};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The chunk of `dynamic`, `adaptive` and `static_opt` when neither the clause nor
/// `SPREAD_SCHEDULE` gives one: one task (one iteration, the paper's zone) per unit.
pub const DEFAULT_CHUNK: i64 = 1;

/// One execution of a compute-unit region.
pub struct CuRegion {
    /// The construct (kind `__SPREAD_KIND_CU`).
    pub construct: Construct,
    /// `FILE:LINE` of the construct: the model key and the prefix of its messages.
    pub at: String,
    /// Its compute units.
    pub layout: Layout,
    sched: Scheduler,
    /// `omp_get_level()` of the CU threads (set by the first `enter`; -1 before).
    level: AtomicI32,
    /// Per CU: the unit it works on and when it got it (the paper's get → commit).
    in_flight: Vec<Mutex<Option<(Unit, Instant)>>>,
    /// Per CU: whether its thread entered.
    entered: Vec<AtomicBool>,
    info_chunks: bool,
}

/// What one CU did in a region (`spread_cu_last_stats`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuStats {
    /// The CU.
    pub cu: ComputeUnit,
    /// Units, iterations and busy time.
    pub tally: Tally,
}

/// The region whose CUs run now, if any.
static ACTIVE: RwLock<Option<Arc<CuRegion>>> = RwLock::new(None);

/// What the CUs of the last region that ended did.
static LAST_STATS: Mutex<Vec<CuStats>> = Mutex::new(Vec::new());

thread_local! {
    /// The region and CU the calling thread runs, between its `enter` and `leave`.
    static BOUND: RefCell<Option<(Arc<CuRegion>, usize)>> = const { RefCell::new(None) };
}

/// The schedule of a construct ([`Spec::resolve`]), with a task per unit by default for the
/// policies that are not static.
pub fn spec_of(code: i32, chunk: i64, default: Option<Spec>) -> std::result::Result<Spec, i32> {
    let mut spec = Spec::resolve(code, chunk, default)?;
    if spec.chunk == 0 && spec.kind != Kind::Static {
        // A task per unit, so that a task's time is what the model learns (seed 004 profiles
        // the average task time per configuration) and dynamic balances task by task.
        spec.chunk = DEFAULT_CHUNK;
    }
    Ok(spec)
}

impl CuRegion {
    /// A region of `construct` over `[lb, ub)` with descriptors `cuds`, scheduled by the
    /// construct's schedule (`__SPREAD_SCHED_*`) and `chunk`; `model` keeps the rates.
    ///
    /// Errors name the construct: those of [`layout::evaluate`], a negative chunk, an unknown
    /// schedule code, a range of more iterations than an `int64_t` counts.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rt: &Runtime,
        model: &Model,
        construct: Construct,
        (lb, ub): (i64, i64),
        cuds: &[Descriptor],
        chunk: i64,
        thread_limit: i32,
    ) -> Result<CuRegion> {
        let at = construct.at();
        let what = format!("teams at {at}");
        let layout = layout::evaluate(
            &what,
            cuds,
            Limits {
                thread_limit,
                num_devices: rt.num_devices(),
                cu_devices: rt.config.cu_devices.as_deref(),
            },
        )?;
        if chunk < 0 {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("the dist_schedule chunk size {chunk} of the {what} is negative"),
            ));
        }
        if ub > lb && ub.abs_diff(lb) > i64::MAX as u64 {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "the range [{lb},{ub}) of the {what} has more iterations than an int64_t counts"
                ),
            ));
        }
        let spec = spec_of(construct.schedule, chunk, rt.config.schedule).map_err(|code| {
            Error::new(
                ErrorKind::Invalid,
                format!("the {what} has an unknown dist_schedule kind (code {code})"),
            )
        })?;
        let resources = layout
            .cus
            .iter()
            .map(|cu| Resource {
                key: cu.model_key(),
                inline: false,
            })
            .collect();
        let sched = Scheduler::new(
            model,
            &at,
            spec,
            (lb, ub),
            resources,
            Mode::Pull,
            DEFAULT_CHUNK,
        );
        let n = layout.cus.len();
        Ok(CuRegion {
            construct,
            at,
            layout,
            sched,
            level: AtomicI32::new(-1),
            in_flight: (0..n).map(|_| Mutex::new(None)).collect(),
            entered: (0..n).map(|_| AtomicBool::new(false)).collect(),
            info_chunks: rt.config.info_chunks,
        })
    }

    /// Threads of the parallel region that runs the CUs: one per CU.
    pub fn num_threads(&self) -> usize {
        self.layout.cus.len()
    }

    /// The policy the scheduler deals by (`static_opt` measures under `dynamic` first).
    pub fn effective_schedule(&self) -> Kind {
        self.sched.effective()
    }

    fn error(&self, msg: String) -> Error {
        Error::new(ErrorKind::Invalid, msg)
    }

    /// Binds CU `cu` (the calling thread's number among `team` threads at nesting `level`).
    fn bind(&self, cu: i32, team: i32, level: i32) -> Result<usize> {
        let n = self.num_threads();
        if usize::try_from(team).ok() != Some(n) {
            return Err(self.error(format!(
                "the parallel region that runs the compute units of the teams at {} has {team} threads, not the {n} its compute units need (one each): check OMP_THREAD_LIMIT, OMP_DYNAMIC and the levels of parallelism around the construct",
                self.at
            )));
        }
        let id = usize::try_from(cu).ok().filter(|&c| c < n).ok_or_else(|| {
            self.error(format!(
                "thread {cu} entered the compute units of the teams at {}, which has {n}",
                self.at
            ))
        })?;
        if self.entered[id].swap(true, Ordering::AcqRel) {
            return Err(self.error(format!(
                "compute unit {id} of the teams at {} was entered twice",
                self.at
            )));
        }
        self.level.store(level, Ordering::Release);
        Ok(id)
    }

    /// CU `cu`'s next unit, completing one it left uncommitted.
    pub fn next(&self, cu: usize) -> Option<Unit> {
        self.settle(cu);
        let u = self.sched.next_for(cu)?;
        *self.in_flight[cu].lock() = Some((u, Instant::now()));
        if self.info_chunks {
            crate::info::spread_line(&format!(
                "{} task [{},{}) -> cu {cu} ({})",
                self.at,
                u.lo,
                u.hi,
                self.layout.cus[cu].describe()
            ));
        }
        Some(u)
    }

    /// CU `cu`'s current unit is done (a GPU CU synchronizes with its devices first, so its
    /// busy time includes the device work, as the paper's get → commit).
    pub fn commit(&self, rt: &Runtime, cu: usize) {
        if self.layout.cus[cu].is_gpu() {
            synchronize_cu(rt, &self.layout.cus[cu]);
        }
        self.settle(cu);
    }

    /// Reports CU `cu`'s unit in flight, if any, as completed now.
    fn settle(&self, cu: usize) {
        if let Some((u, start)) = self.in_flight[cu].lock().take() {
            self.sched.complete(u, start.elapsed());
        }
    }

    /// Ends the execution: teaches the model, returns what each CU did.
    fn finish(&self, model: &Model) -> Vec<CuStats> {
        for cu in 0..self.num_threads() {
            self.settle(cu);
        }
        self.sched.finish(model);
        self.layout
            .cus
            .iter()
            .cloned()
            .zip(self.sched.tallies())
            .map(|(cu, tally)| CuStats { cu, tally })
            .collect()
    }
}

/// `omp_synchronize()` for `cu`: the calling thread's `target nowait` tasks, then the queues
/// of the CU's devices (a CPU CU has only the tasks).
pub fn synchronize_cu(rt: &Runtime, cu: &ComputeUnit) {
    kmp::taskwait();
    for &d in cu.devices() {
        if let Ok(slot) = rt.device(i64::from(d)) {
            rt.drain(slot);
        }
    }
}

/// A handle of the C ABI: the address of the active region.
pub type Handle = usize;

fn handle_of(r: &Arc<CuRegion>) -> Handle {
    Arc::as_ptr(r) as usize
}

/// Starts a region (`__spread_cu_begin`) and makes it the active one; returns its handle.
///
/// Besides [`CuRegion::new`]'s errors: a region inside (or beside) another active one. Raises
/// `max-active-levels` so that the CU threads and their CPU CUs' nested regions are active.
#[allow(clippy::too_many_arguments)]
pub fn begin(
    rt: &Runtime,
    construct: Construct,
    range: (i64, i64),
    cuds: &[Descriptor],
    chunk: i64,
    thread_limit: i32,
) -> Result<Handle> {
    let at = construct.at();
    // Cloned out first: `current` takes the lock again.
    let outer = ACTIVE.read().clone();
    if let Some(outer) = outer {
        let inside = current().is_some();
        return Err(Error::new(
            ErrorKind::Unsupported,
            if inside {
                format!(
                    "the teams at {at} begins inside a compute unit of the teams at {}: nested compute-unit regions are not supported",
                    outer.at
                )
            } else {
                format!(
                    "the teams at {at} begins while the compute units of the teams at {} run: one compute-unit region at a time",
                    outer.at
                )
            },
        ));
    }
    let region = CuRegion::new(
        rt,
        &rt.sched_model,
        construct,
        range,
        cuds,
        chunk,
        thread_limit,
    )?;
    // Before any CU thread exists: libomp must not start its helpers while CUs fork teams.
    kmp::start_hidden_helpers();
    // The CU threads' region and their CPU CUs' nested regions must both be active.
    let needed = kmp::active_level() + 2;
    if kmp::max_active_levels() < needed {
        kmp::set_max_active_levels(needed);
    }
    let region = Arc::new(region);
    let mut active = ACTIVE.write();
    if let Some(outer) = active.as_ref() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "the teams at {at} begins while the compute units of the teams at {} run: one compute-unit region at a time",
                outer.at
            ),
        ));
    }
    let h = handle_of(&region);
    *active = Some(region);
    Ok(h)
}

/// The active region if `h` is its handle.
pub fn active(h: Handle) -> Option<Arc<CuRegion>> {
    ACTIVE
        .read()
        .as_ref()
        .filter(|r| handle_of(r) == h)
        .cloned()
}

/// The region and CU the calling thread entered, if `h` is that region.
fn bound(h: Handle) -> Option<(Arc<CuRegion>, usize)> {
    BOUND.with(|b| {
        b.borrow()
            .as_ref()
            .filter(|(r, _)| handle_of(r) == h)
            .map(|(r, c)| (r.clone(), *c))
    })
}

/// Misuse of the ABI: a handle that is not the active region's, or a thread that did not enter.
fn misuse(entry: &str, what: &str) -> Error {
    Error::new(
        ErrorKind::Invalid,
        format!("{entry} received {what} (the lowering of a teams construct is out of step with the runtime)"),
    )
}

/// `__spread_cu_num_threads`.
pub fn num_threads(h: Handle) -> Result<usize> {
    active(h)
        .map(|r| r.num_threads())
        .ok_or_else(|| misuse("__spread_cu_num_threads", "no active region"))
}

/// `__spread_cu_enter`: the calling thread becomes CU `omp_get_thread_num()`.
pub fn enter(h: Handle) -> Result<()> {
    let r = active(h).ok_or_else(|| misuse("__spread_cu_enter", "no active region"))?;
    let id = r.bind(kmp::thread_num(), kmp::num_threads(), kmp::level())?;
    BOUND.with(|b| *b.borrow_mut() = Some((r, id)));
    Ok(())
}

/// `__spread_cu_next`: the calling CU's next unit.
pub fn next(h: Handle) -> Result<Option<Unit>> {
    let (r, cu) =
        bound(h).ok_or_else(|| misuse("__spread_cu_next", "a thread that is no compute unit"))?;
    Ok(r.next(cu))
}

/// `__spread_cu_commit`.
pub fn commit(rt: &Runtime, h: Handle) -> Result<()> {
    let (r, cu) =
        bound(h).ok_or_else(|| misuse("__spread_cu_commit", "a thread that is no compute unit"))?;
    r.commit(rt, cu);
    Ok(())
}

/// `__spread_cu_leave`: the calling thread is no CU any more.
pub fn leave(h: Handle) -> Result<()> {
    let (r, cu) =
        bound(h).ok_or_else(|| misuse("__spread_cu_leave", "a thread that is no compute unit"))?;
    r.settle(cu);
    BOUND.with(|b| *b.borrow_mut() = None);
    Ok(())
}

/// `__spread_cu_end`: the region is no longer active; teaches the model and keeps the stats
/// (printed with `SPREAD_INFO=chunks`).
pub fn end(rt: &Runtime, h: Handle) -> Result<()> {
    let r = {
        let mut active = ACTIVE.write();
        match active.as_ref() {
            Some(r) if handle_of(r) == h => active.take(),
            _ => None,
        }
    }
    .ok_or_else(|| misuse("__spread_cu_end", "no active region"))?;
    let stats = r.finish(&rt.sched_model);
    if r.info_chunks {
        for s in &stats {
            let what = match &s.cu.kind {
                layout::Kind::Cpu { cpus } => format!("cpu, {cpus} CPUs"),
                layout::Kind::Gpu { .. } => s.cu.describe(),
            };
            crate::info::spread_line(&format!(
                "{} cu {} ({what}): {} units, {} iterations, busy {:.3} ms",
                r.at,
                s.cu.id,
                s.tally.units,
                s.tally.iterations,
                s.tally.busy.as_secs_f64() * 1e3
            ));
        }
    }
    *LAST_STATS.lock() = stats;
    Ok(())
}

/// What the CUs of the last region that ended did.
pub fn last_stats() -> Vec<CuStats> {
    LAST_STATS.lock().clone()
}

/// The region and CU of the calling thread: the one it entered, else (a thread of a parallel
/// region nested in a CU) its ancestor's at the CU level of the active region.
pub fn current() -> Option<(Arc<CuRegion>, usize)> {
    if let Some(b) = BOUND.try_with(|b| b.borrow().clone()).ok().flatten() {
        return Some(b);
    }
    let r = ACTIVE.read().clone()?;
    let level = r.level.load(Ordering::Acquire);
    if level < 1 || kmp::level() <= level {
        return None;
    }
    let cu = usize::try_from(kmp::ancestor_thread_num(level)).ok()?;
    // The ancestor entered: a thread of an unrelated team at this depth is no CU's.
    (cu < r.num_threads() && r.entered[cu].load(Ordering::Acquire)).then_some((r, cu))
}

#[cfg(test)]
mod tests;
