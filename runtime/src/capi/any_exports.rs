//! The C ABI of `target device(any)` (spread.h "task sharing"; docs/task-sharing.md): the
//! `__spread_any_*` calls of the driver's lowering and the `spread_any_*` routines.

use super::guard::guard;
use crate::any::dispatch::Kind;
use crate::any::{self, MapItem, Site, Version};
use crate::runtime;
use crate::runtime::nowait::{Predecessors, TaskFacts};
use crate::runtime::report;
use crate::sys::kmp;
use crate::sys::mem;
use std::ffi::{c_char, c_int, c_void};

/// `__spread_any_version_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct VersionC {
    pub kind: i32,
    pub subarch: i32,
    pub arm: i32,
    pub flags: i32,
}

/// `__spread_any_site_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SiteC {
    pub file: *const c_char,
    pub line: i32,
    pub column: i32,
    pub nversions: i32,
    pub versions: *const VersionC,
}

/// `__spread_any_map_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MapC {
    pub ptr: *const c_void,
    pub bytes: i64,
    pub kind: i32,
}

impl Default for MapC {
    fn default() -> Self {
        MapC {
            ptr: std::ptr::null(),
            bytes: 0,
            kind: 0,
        }
    }
}

/// [`runtime::HOST_SHARE_DEVICE`] as the pick's `int32_t` device field holds it.
const HOST_SHARE_DEVICE_C: i32 = runtime::HOST_SHARE_DEVICE as i32;

/// `__spread_any_pick_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PickC {
    pub device: i32,
    pub arm: i32,
    pub threads: i32,
    pub reserved: i32,
    pub ticket: *mut c_void,
}

/// `spread_any_stats_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct StatsC {
    pub device: i32,
    pub kind: i32,
    pub instances: i64,
    pub stolen: i64,
    pub bytes_in: i64,
    pub bytes_out: i64,
    pub max_tokens: i32,
    pub max_running: i32,
    pub busy_seconds: f64,
}

const KIND_HOST: i32 = 1;
const KIND_CPU: i32 = 2;
const KIND_NVIDIA: i32 = 3;
const FLAG_FALLBACK: i32 = 1;
const MAP_TO: i32 = 1;
const MAP_FROM: i32 = 2;
const NOWAIT: i32 = 1;
const IF_FALSE: i32 = 2;

fn kind_code(k: Kind) -> i32 {
    match k {
        Kind::Host => KIND_HOST,
        Kind::Cpu => KIND_CPU,
        Kind::Nvidia => KIND_NVIDIA,
    }
}

/// Decodes a site descriptor; a malformed one (wrong kinds, no versions) is fatal, naming it.
fn site_of(c: &SiteC) -> Site {
    let n = usize::try_from(c.nversions).unwrap_or(0);
    // SAFETY: a site descriptor the lowering emitted (spread-abi.md, `__spread_any_site_t`), a
    // constant of the program: `file` is null or a NUL-terminated string literal, and `versions`
    // its array of `nversions` `__spread_any_version_t`s.
    let (file, versions) = unsafe {
        (
            mem::c_string(c.file).unwrap_or_else(|| "unknown".into()),
            mem::array(c.versions, n),
        )
    };
    let versions: Vec<Version> = versions
        .into_iter()
        .map(|v| {
            let kind = match v.kind {
                KIND_HOST => Kind::Host,
                KIND_CPU => Kind::Cpu,
                KIND_NVIDIA => Kind::Nvidia,
                other => report::fatal(
                    1,
                    &format!(
                        "spread: device(any) at {file}:{}: version of unknown kind {other} (was the file lowered by another spread-cc?)",
                        c.line
                    ),
                ),
            };
            Version {
                kind,
                subarch: u32::try_from(v.subarch).unwrap_or(0),
                arm: v.arm,
                fallback: v.flags & FLAG_FALLBACK != 0,
            }
        })
        .collect();
    if versions.is_empty() {
        report::fatal(
            1,
            &format!(
                "spread: device(any) at {file}:{}: the construct has no versions",
                c.line
            ),
        );
    }
    Site::new(
        file,
        u32::try_from(c.line).unwrap_or(0),
        u32::try_from(c.column).unwrap_or(0),
        versions,
    )
}

/// Chooses where one instance of a `target device(any)` construct runs and takes its tokens.
#[no_mangle]
pub extern "C" fn __spread_any_acquire(
    site: *const SiteC,
    costs: *const i64,
    maps: *const MapC,
    nmaps: i32,
    flags: i32,
) -> PickC {
    guard("__spread_any_acquire", || {
        let rt = runtime::get();
        // What the instance's task depends on and did not wait for (an instance task run at
        // once): followed on its device, or finished before the instance is placed.
        let after = super::ompt::instance_predecessors();
        // As `__spread_any_async` decides: the arm will run asynchronously, and this thread
        // goes on creating instances (outside a parallel region).
        let runs_ahead = flags & NOWAIT != 0 && async_instance_task().is_some();
        let after = if runs_ahead {
            after
        } else {
            rt.nowait_finish_predecessors(after);
            Predecessors::default()
        };
        // SAFETY: `site` is null or the lowering's constant `__spread_any_site_t` for the
        // construct (spread-abi.md).
        let Some(sc) = (unsafe { mem::read(site) }) else {
            report::fatal(
                1,
                "spread: __spread_any_acquire received no site description",
            )
        };
        let state = any::get(rt);
        let key = site as usize;
        let site = state.site(rt, key, || site_of(&sc));
        // SAFETY: `__spread_any_acquire`'s contract (spread-abi.md): `costs` is null or has one
        // entry per version of the site (`site.versions` holds all `nversions` of them), and
        // `maps` is null or the lowering's array of `nmaps` `__spread_any_map_t`s, both alive for
        // the duration of the call.
        let (costs, maps) = unsafe {
            (
                mem::array(costs, site.versions.len()),
                mem::array(maps, usize::try_from(nmaps).unwrap_or(0)),
            )
        };
        let items: Vec<MapItem> = maps
            .into_iter()
            .filter(|m| !m.ptr.is_null() && m.bytes > 0)
            .map(|m| MapItem {
                ptr: m.ptr as usize,
                bytes: usize::try_from(m.bytes).unwrap_or(0),
                to: m.kind & MAP_TO != 0,
                from: m.kind & MAP_FROM != 0,
            })
            .collect();
        let nowait = flags & NOWAIT != 0;
        let ahead = runs_ahead.then(|| usize::try_from(kmp::max_threads()).unwrap_or(1));
        let req = any::Request {
            key,
            site: site.clone(),
            costs,
            items,
            nowait,
            ahead,
            if_false: flags & IF_FALSE != 0,
        };
        match state.acquire(rt, req, after) {
            Ok((p, follows)) => {
                FOLLOWS.with(|f| *f.borrow_mut() = follows);
                if p.ticket != 0 {
                    any::enter_instance(true);
                    // Errors of the arm's constructs name the instance's construct, which
                    // the driver located (clang's `ident_t` has no location without `-g`).
                    let scope =
                        crate::origin::enter(crate::origin::Origin::Instance(site.origin.clone()));
                    let _ = ORIGINS.try_with(|o| o.borrow_mut().push(scope));
                }
                // A host version's parallel construct is nested when the instance runs in a
                // team's task: it gets its threads only if one more active level is allowed. The
                // setting is the instance's (restored by release for an undeferred one).
                let mut restore = 0;
                if p.device == rt.initial_device() && p.threads > 1 {
                    let (need, old) = (kmp::active_level() + 1, kmp::max_active_levels());
                    if old < need {
                        kmp::set_max_active_levels(need);
                        restore = old + 1;
                    }
                }
                PickC {
                    device: i32::try_from(p.device).unwrap_or(i32::MAX),
                    arm: p.arm,
                    threads: i32::try_from(p.threads).unwrap_or(i32::MAX),
                    reserved: restore,
                    // The ticket travels as an opaque number in the pointer-sized field.
                    ticket: p.ticket as usize as *mut c_void,
                }
            }
            Err(e) => report::fatal_construct(rt, &e, None),
        }
    })
}

/// The instance ended: returns its tokens, feeds the model, and (lazy coherence) records where
/// its outputs are.
#[no_mangle]
pub extern "C" fn __spread_any_release(pick: *mut PickC) {
    guard("__spread_any_release", || {
        // SAFETY: `pick` is null or the lowering's local holding what `__spread_any_acquire`
        // returned (spread-abi.md), alive for the duration of the call.
        let Some(p) = (unsafe { mem::read(pick as *const PickC) }) else {
            return;
        };
        if p.reserved > 0 {
            kmp::set_max_active_levels(p.reserved - 1);
        }
        let ticket = p.ticket as usize as u64;
        if ticket == 0 {
            return;
        }
        any::enter_instance(false);
        let _ = ORIGINS.try_with(|o| o.borrow_mut().pop());
        if handed_over(ticket) {
            return; // released when its `target nowait` finishes
        }
        release_ticket(ticket);
    })
}

fn release_ticket(ticket: u64) {
    let rt = runtime::get();
    if let Err(e) = any::get(rt).release(rt, ticket) {
        report::fatal_construct(rt, &e, None)
    }
}

thread_local! {
    /// The origins of the instances this thread runs, innermost last (set by acquire, given
    /// back by release).
    static ORIGINS: std::cell::RefCell<Vec<crate::origin::Scope>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The instance whose arm runs as a `target nowait` now (`__spread_any_async`), until that
    /// construct starts and takes it over.
    static BOUND: std::cell::RefCell<Option<(u64, TaskFacts, Predecessors)>> =
        const { std::cell::RefCell::new(None) };
    /// What the instance placed last on this thread follows on its device (see
    /// `any::Any::acquire`), until its arm's construct takes it (`__spread_any_async`).
    static FOLLOWS: std::cell::RefCell<Predecessors> =
        std::cell::RefCell::new(Predecessors::default());
    /// Instances whose `target nowait` took them over: their release is the construct's.
    static HANDED: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether `ticket`'s release was handed to its construct (and forgets it); an instance whose
/// arm never started a construct (it ran on the host) is released by its caller after all.
fn handed_over(ticket: u64) -> bool {
    BOUND.with(|b| {
        let mut b = b.borrow_mut();
        if b.as_ref().is_some_and(|(t, _, _)| *t == ticket) {
            *b = None;
        }
    });
    HANDED.with(|h| {
        let mut h = h.borrow_mut();
        match h.iter().position(|&t| t == ticket) {
            Some(i) => {
                h.swap_remove(i);
                true
            }
            None => false,
        }
    })
}

/// Whether the `target nowait` starting on this thread is an instance's asynchronous arm.
pub(super) fn instance_bound() -> bool {
    BOUND.with(|b| b.borrow().is_some())
}

/// For a `target nowait` starting on this thread: the `device(any)` instance it runs for, if its
/// arm was made asynchronous (the construct is then owned in the instance's name and releases
/// the instance when it finishes).
/// With it, the constructs of other instances it follows on its device, for it to wait for there.
pub(super) fn take_instance() -> Option<(TaskFacts, crate::runtime::nowait::OnFinish, Predecessors)>
{
    let (ticket, facts, follows) = BOUND.with(|b| b.borrow_mut().take())?;
    HANDED.with(|h| h.borrow_mut().push(ticket));
    Some((
        facts,
        crate::runtime::nowait::OnFinish {
            instance: ticket,
            run: Box::new(move || release_ticket(ticket)),
        },
        follows,
    ))
}

/// Whether an instance's arm runs as a `target nowait` (the lowering's test): a `nowait`
/// instance on a device, in a task Spread can complete asynchronously (its tool runs and the task
/// runs at once, outside a task team). The instances a thread creates outside a parallel region
/// then overlap; inside one, the team's threads run them.
#[no_mangle]
pub extern "C" fn __spread_any_async(pick: *mut PickC) -> c_int {
    guard("__spread_any_async", || {
        let rt = runtime::get();
        let follows = FOLLOWS.with(|f| std::mem::take(&mut *f.borrow_mut()));
        match bind_async(rt, pick) {
            Some((ticket, facts)) => {
                BOUND.with(|b| *b.borrow_mut() = Some((ticket, facts, follows)));
                1
            }
            None => {
                // The arm runs here and now: what the instance follows finishes first.
                rt.nowait_finish_predecessors(follows);
                0
            }
        }
    })
}

/// [`__spread_any_async`]'s decision: the instance's ticket and task when its arm runs as a
/// `target nowait` (a host pick moved to the host share).
fn bind_async(rt: &runtime::Runtime, pick: *mut PickC) -> Option<(u64, TaskFacts)> {
    // SAFETY: as in `__spread_any_release`: null or the lowering's `__spread_any_pick_t`.
    let p = unsafe { mem::read(pick as *const PickC) }?;
    let ticket = p.ticket as usize as u64;
    if ticket == 0 {
        return None;
    }
    let facts = async_instance_task()?;
    if i64::from(p.device) == rt.initial_device() {
        // A host instance would run on this thread, which would place nothing more until it
        // ends: the host share runs it with the host's memory instead.
        rt.host_share()?;
        let moved = PickC {
            device: HOST_SHARE_DEVICE_C,
            ..p
        };
        // SAFETY: `pick` is the lowering's `__spread_any_pick_t` local read above (not null),
        // which its arm reads the device number from after this call.
        unsafe { mem::write_array(pick, &[moved]) };
    }
    Some((ticket, facts))
}

/// The instance task the calling thread runs, when an instance's arm can run asynchronously
/// from it: a task Spread can complete (its tool runs) that is not in a task team (there the
/// team's threads run the instances at once).
fn async_instance_task() -> Option<TaskFacts> {
    if kmp::async_handle_slot().is_some() {
        return None;
    }
    super::ompt::instance_task()
}

/// Marks the task the calling thread creates next as a `device(any)` instance's with `nowait`
/// (the lowering calls it right before the instance's `#pragma omp task` when it has `depend`
/// clauses): created outside a parallel region, the task runs at once, and instead of waiting
/// there for the instances it depends on, its instance may follow them on their device
/// (`any::Any::acquire`).
#[no_mangle]
pub extern "C" fn __spread_any_instance_next() {
    guard("__spread_any_instance_next", || {
        super::ompt::next_task_is_instance();
    })
}

/// First call of a `nowait` instance's task. libomp runs a task created outside a parallel
/// region at once (its team is serialized); the instance's arm then runs as a `target nowait`
/// Spread owns (`__spread_any_async`), so such instances still overlap. Without Spread's OMPT
/// tool they cannot, and this says so, once, instead of letting the program lose its
/// concurrency silently.
#[no_mangle]
pub extern "C" fn __spread_any_deferred() {
    guard("__spread_any_deferred", || {
        static WARNED: std::sync::Once = std::sync::Once::new();
        if kmp::level() == 0 && super::ompt::instance_task().is_none() {
            WARNED.call_once(|| {
                eprintln!(
                    "spread: warning: device(any) nowait instances created outside a parallel region run one after the other, as they are created: Spread's OMPT tool does not run (OMP_TOOL=disabled, another tool, SPREAD_NOWAIT=libomp or libomp's hidden helpers on); create them in '#pragma omp parallel' + '#pragma omp single' to share them over the host and the devices at once"
                )
            });
        }
    })
}

/// Per-server statistics of `device(any)` instances: devices, then the host.
#[no_mangle]
pub extern "C" fn spread_any_stats(out: *mut StatsC, n: c_int) -> c_int {
    guard("spread_any_stats", || {
        let rt = runtime::get();
        let initial = i32::try_from(rt.initial_device()).unwrap_or(i32::MAX);
        let stats = any::get(rt).stats();
        let room = usize::try_from(n).unwrap_or(0).min(stats.len());
        let big = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let rows: Vec<StatsC> = stats[..room]
            .iter()
            .map(|s| StatsC {
                device: s
                    .device
                    .map_or(initial, |d| i32::try_from(d).unwrap_or(i32::MAX)),
                kind: s.kind.map_or(0, kind_code),
                instances: big(s.tally.instances),
                stolen: big(s.tally.stolen),
                bytes_in: big(s.bytes_in),
                bytes_out: big(s.bytes_out),
                max_tokens: i32::try_from(s.tally.max_tokens).unwrap_or(i32::MAX),
                max_running: i32::try_from(s.tally.max_running).unwrap_or(i32::MAX),
                busy_seconds: s.tally.busy.as_secs_f64(),
            })
            .collect();
        // SAFETY: the caller passes room for `n` elements (spread.h); `rows` has at most `n`,
        // and write_array skips a null `out`.
        unsafe { mem::write_array(out, &rows) };
        c_int::try_from(stats.len()).unwrap_or(c_int::MAX)
    })
}

/// Zeroes the statistics of `spread_any_stats`.
#[no_mangle]
pub extern "C" fn spread_any_stats_reset() {
    guard("spread_any_stats_reset", || {
        any::get(runtime::get()).reset_stats();
    })
}

/// Brings every `device(any)` output home (lazy coherence).
#[no_mangle]
pub extern "C" fn spread_any_flush() {
    guard("spread_any_flush", || {
        let rt = runtime::get();
        if let Err(e) = any::get(rt).flush(rt) {
            report::fatal_construct(rt, &e, None)
        }
    })
}
