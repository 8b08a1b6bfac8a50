//! `target spread` regions: a construct's iteration range cut into chunks over a device list,
//! each chunk's launches and transfers queued on its device, the region ending when all are done
//! (docs/spread-abi.md).
//!
//! Under a static schedule the dealing thread decides each chunk's mapping and enqueues its
//! copies and kernel on a stream of the chunk's device (a GPU's, a remote device's, a host
//! device's executors), and the next chunk goes on at once, so devices work at the same time
//! and chunk i+1's copies overlap chunk i's kernel; [`WINDOW`] earlier chunks per device stay in
//! flight while the next is enqueued, the oldest finished first, the rest when the region
//! ends. A chunk whose sections overlap those of a chunk in flight (halos of
//! adjacent chunks on one device) first lets the chunks in flight finish. Schedules that deal by
//! completions (dynamic, adaptive, profile-guided) finish each chunk before the next, so they
//! measure it.

use crate::error::{Error, ErrorKind, Result};
use crate::location::SourceLoc;
use crate::queue::Queue;
use crate::reduction;
use crate::runtime::{DeviceSlot, Policy, Runtime};
use crate::sched::model::Model;
use crate::sched::{Chunk, Kind, Mode, Resource, Scheduler, Spec, Unit};
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Instant;

/// `__spread_construct_t::kind` of a kernel launch spread by `SPREAD_AUTO` (not in spread.h:
/// only the runtime makes such constructs, see [`crate::auto`]).
pub const KIND_AUTO: i32 = 9;

/// `__SPREAD_FLAG_NOWAIT`.
pub const FLAG_NOWAIT: i32 = 1;

/// The static description of a spread construct (`__spread_construct_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Construct {
    /// Source file of the pragma, as the user wrote it.
    pub file: Arc<str>,
    /// Line of the pragma.
    pub line: i32,
    /// `__SPREAD_KIND_*`.
    pub kind: i32,
    /// `__SPREAD_FLAG_*`.
    pub flags: i32,
    /// `__SPREAD_SCHED_*`: the schedule the construct names (0: none).
    pub schedule: i32,
}

impl Construct {
    /// The construct's name as the user wrote it.
    pub fn name(&self) -> &'static str {
        match self.kind {
            1 => "target spread",
            2 => "target data spread",
            3 => "target enter data spread",
            4 => "target exit data spread",
            5 => "target update spread",
            8 => "teams",
            KIND_AUTO => "target region spread by SPREAD_AUTO",
            _ => "spread construct",
        }
    }

    /// The construct's event in `LIBOMPTARGET_PROFILE`'s time trace (`crate::time_trace`).
    pub fn event_name(&self) -> &'static str {
        match self.kind {
            1 => "Spread: target spread",
            2 => "Spread: target data spread",
            3 => "Spread: target enter data spread",
            4 => "Spread: target exit data spread",
            5 => "Spread: target update spread",
            KIND_AUTO => "Spread: SPREAD_AUTO kernel",
            _ => "Spread: spread construct",
        }
    }

    /// The construct's source location, for error reports.
    pub fn location(&self) -> SourceLoc {
        SourceLoc {
            file: self.file.to_string(),
            function: String::new(),
            line: u32::try_from(self.line).unwrap_or(0),
            column: 0,
        }
    }

    /// Whether the construct's range comes from a `range(start:length)` clause (the data
    /// constructs) rather than from a loop.
    fn has_range_clause(&self) -> bool {
        (2..=5).contains(&self.kind)
    }

    /// `FILE:LINE`.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// `"target spread FILE:LINE"`: how messages and trace labels name the construct (formatted
/// only when one is written, not per execution).
impl std::fmt::Display for Construct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}:{}", self.name(), self.file, self.line)
    }
}

/// How many of a device's earlier chunks an overlap message names (the most recent ones).
const OVERLAP_HISTORY: usize = 4;

/// Operations one device's queue may hold before the thread queuing a region's chunks helps to
/// run them, so that a region with many chunks does not queue them all at once.
const MAX_QUEUED: usize = 256;

/// Earlier chunk operations of a region kept in flight on one asynchronous device while the next
/// is enqueued (see the module's docs): enough for one chunk's copies in, another's kernel and
/// a third's copies back.
pub const WINDOW: usize = 3;

/// A chunk operation enqueued on an asynchronous device and not finished yet.
struct Streamed {
    work: crate::runtime::launch::InFlight<'static>,
    /// Its sequence number and label, to report its failure as its own.
    seq: u64,
    what: Construct,
    chunk: Chunk,
    /// The chunk's unit, when this is its last operation and the scheduler counts completions
    /// (with when the unit's first operation was queued).
    unit: Option<(Arc<Scheduler>, Unit, Instant)>,
}

impl Streamed {
    /// Waits for the operation and finishes it; a failure goes to `failure` under its own
    /// sequence number.
    fn finish(self, failure: &Failure) {
        let Streamed {
            work,
            seq,
            what,
            chunk,
            unit,
        } = self;
        let device = work.device();
        if let Err(e) = work.complete() {
            record_failure(failure, seq, chunk_failure(e, &what, chunk, device));
        }
        if let Some((sched, u, queued)) = unit {
            sched.complete_queued(u, queued);
        }
    }
}

/// `e`, the failure of an operation of `chunk` of `what` on `device`, with where it ran; for a
/// kernel that faulted on the device (a GPU's illegal address, which names neither kernel nor
/// address), also what to check, as for a host device's fault (`runtime/fault.rs`).
fn chunk_failure(e: Error, what: &Construct, chunk: Chunk, device: usize) -> Error {
    let (lo, hi) = (chunk.lo, chunk.hi);
    let fault = e.kind == ErrorKind::DeviceFault;
    let e = e.context(format!("in {what} chunk [{lo},{hi}) on device {device}"));
    if !fault {
        return e;
    }
    e.context(format!(
        "a kernel on device {device} accessed memory outside the device's data while {what} chunk [{lo},{hi}) or a later chunk in flight there ran (the device names neither the kernel nor the address): check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)"
    ))
}

/// The failure of the earliest operation (in queuing order) that failed, with its sequence number.
type Failure = Arc<Mutex<Option<(u64, Error)>>>;

/// Keeps `e` when no operation queued before `seq` failed.
fn record_failure(failure: &Failure, seq: u64, e: Error) {
    let mut first = failure.lock();
    if !matches!(first.as_ref(), Some((s, _)) if *s < seq) {
        *first = Some((seq, e));
    }
}

/// One device's chunk operations in flight (see [`WINDOW`]), oldest first, and the end of the
/// last kernel the region enqueued there.
#[derive(Default)]
struct DeviceWindow {
    ops: std::collections::VecDeque<Streamed>,
    /// A region's kernels on one device run one after another, in dealing order (seed 003's
    /// in-order device queue; chunks of one device may share a reduction partial or a
    /// `declare target` variable), while their copies overlap other chunks' kernels.
    last_kernel: Option<crate::device::Event>,
}

type Window = Arc<Mutex<DeviceWindow>>;

/// Finishes the operations of `window` but the newest `keep`, oldest first, outside its lock.
fn finish_all_but(window: &Window, keep: usize, failure: &Failure) {
    let older: Vec<Streamed> = {
        let mut w = window.lock();
        let n = w.ops.len().saturating_sub(keep);
        w.ops.drain(..n).collect()
    };
    for s in older {
        s.finish(failure);
    }
}

/// What deals a region's chunks.
enum Dealer {
    /// The whole range is one chunk on the list's only device (a static schedule without a
    /// chunk size on one device, as in `target spread ... devices(d)`): dealt without a
    /// scheduler, so that such a construct costs about what the `target` construct it then is.
    Whole(Option<Unit>),
    /// The scheduler of the construct's policy.
    Sched(Arc<Scheduler>),
}

impl Dealer {
    /// The next unit; `None` when all are dealt (see [`Scheduler::pick`]).
    fn pick(&mut self) -> Option<Unit> {
        match self {
            Dealer::Whole(u) => u.take(),
            Dealer::Sched(s) => s.pick(),
        }
    }

    /// The scheduler, if there is one.
    fn scheduler(&self) -> Option<&Arc<Scheduler>> {
        match self {
            Dealer::Whole(_) => None,
            Dealer::Sched(s) => Some(s),
        }
    }

    /// See [`Scheduler::effective`].
    fn effective(&self) -> Kind {
        match self {
            Dealer::Whole(_) => Kind::Static,
            Dealer::Sched(s) => s.effective(),
        }
    }

    /// See [`Scheduler::needs_completions`].
    fn needs_completions(&self) -> bool {
        matches!(self, Dealer::Sched(s) if s.needs_completions())
    }

    /// See [`Scheduler::deals_by_completions`].
    fn deals_by_completions(&self) -> bool {
        matches!(self, Dealer::Sched(s) if s.deals_by_completions())
    }
}

/// One execution of a spread construct.
///
/// Its memory does not depend on its number of chunks: the schedule produces chunks on demand,
/// only the last operation queued on each device is kept (device queues are FIFO), and overlap
/// messages name at most `OVERLAP_HISTORY` earlier chunks per device.
pub struct Region {
    /// The construct this region executes.
    pub construct: Construct,
    /// The sections this execution's chunks map, so that a neighbour's halo is told from
    /// another execution's mapping (`crate::presence`).
    pub sections: Arc<Sections>,
    /// The region whose chunk loop the beginning thread was in when this one began (the C
    /// ABI's record of the dealing thread, `capi/spread_exports.rs`), restored at its end.
    pub dealing_outer: usize,
    /// Deals the chunks: resource `i` is device `devices[i]`.
    dealer: Dealer,
    devices: Vec<i32>,
    /// The current chunk's unit, its first queued operation's time and queue (none yet), and
    /// when it was dealt (both times only when `track`); completed when the next chunk is asked
    /// for.
    unit: Option<Unit>,
    /// Chunks dealt so far: the current chunk's number, from 1 (its reduction partials').
    dealt: usize,
    unit_queued: Option<(Instant, &'static Queue)>,
    unit_dealt: Option<Instant>,
    /// Whether completions are reported to the scheduler (it waits for room or learns).
    track: bool,
    model: Arc<Model>,
    current: Chunk,
    /// Whether the current chunk was printed for `SPREAD_INFO=chunks`.
    reported: bool,
    info_chunks: bool,
    /// The earlier chunks on the current chunk's device, once the current chunk queued an
    /// operation (then the chunk is in `history` too); `Some(None)` when there were none.
    earlier: Option<Option<Arc<Earlier>>>,
    /// Per device: the most recent chunks that queued operations on it. Distinct devices (and
    /// queues) are at most those of the list: the region allocates nothing that grows with its
    /// chunks (these two are reserved for the list on first use).
    history: Vec<DeviceHistory>,
    /// Per device queue used: the last operation queued there.
    lanes: Vec<Lane>,
    /// Operations queued so far (their sequence numbers).
    queued: u64,
    /// The failure of the earliest queued operation that failed, with its sequence number.
    failure: Failure,
    /// Per asynchronous device: the chunk operations still in flight (see [`WINDOW`]).
    windows: Vec<(usize, Window)>,
    /// The window the current chunk's operations went to, if they were streamed.
    unit_window: Option<Window>,
    /// The reduction variables, handed to the program by [`Region::reductions`].
    reductions: Option<Box<Reductions>>,
    /// Variables registered in the current chunk so far (registration repeats per chunk).
    registered: usize,
    /// Whether the program holds a pointer to `reductions` (it then frees them).
    reductions_taken: bool,
    /// Operations run on the calling thread at once: the region has one device and waits for
    /// its chunks at its end.
    inline_ops: bool,
    /// The first of the region's [token](Region::device_token) slots, once one is asked for.
    token_base: Option<usize>,
    /// Per entry of the device list: whether its token's owner is registered.
    tokens_told: Vec<bool>,
    /// The construct as its chunks' kernels are reported if they fault (`crate::origin`).
    site: Arc<crate::origin::Site>,
    /// The construct in `LIBOMPTARGET_PROFILE`'s time trace (recorded when the region goes).
    timed: Option<crate::time_trace::Scope>,
}

/// Slots of the token arena (see [`Region::device_token`]).
pub const TOKEN_SLOTS: usize = 4096;

/// The token arena: only the slots' addresses are used (libomp's dependence tracking reads
/// nothing at them).
static TOKENS: [u8; TOKEN_SLOTS] = [0; TOKEN_SLOTS];

/// The next region's first token slot.
static NEXT_TOKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The construct and device each token slot was last given to.
static TOKEN_OWNERS: Mutex<Option<std::collections::HashMap<usize, TokenOwner>>> = Mutex::new(None);

/// A chunk token's construct, device and execution's sections ([`chunk_of_token`]).
type TokenOwner = (Construct, i32, Arc<Sections>);

/// The sections the chunks of one execution of a spread construct map (device, first host
/// byte, bytes): a neighbouring chunk's halo overlaps one of them by design
/// (`crate::presence`). Owned by the execution's region and its `nowait` chunk tokens, so it
/// goes with them.
#[derive(Default)]
pub struct Sections(Mutex<std::collections::HashSet<(usize, usize, usize)>>);

impl Sections {
    /// Notes that a chunk maps `args`' sections on `device`.
    pub fn note(&self, device: usize, args: &crate::runtime::mapping::MapArgs) {
        let mut sections = self.0.lock();
        for i in 0..args.len() {
            if let Ok(size) = usize::try_from(args.sizes[i]) {
                if size > 0 && args.begins[i] != 0 {
                    sections.insert((device, args.begins[i], size));
                }
            }
        }
    }

    /// Whether a chunk of this execution mapped `size` bytes at host `begin` on `device`.
    pub fn holds(&self, device: usize, begin: usize, size: usize) -> bool {
        self.0.lock().contains(&(device, begin, size))
    }
}

/// The spread construct, device and execution's sections ([`Region::sections`]) whose
/// `nowait` chunk a target task with `depend` items at `addrs` is, if one of them is a chunk
/// token (see [`Region::device_token`]).
pub fn chunk_of_token(mut addrs: impl Iterator<Item = usize>) -> Option<TokenOwner> {
    let lo = std::ptr::addr_of!(TOKENS) as usize;
    let token = addrs.find(|&a| a >= lo && a < lo + TOKEN_SLOTS)?;
    TOKEN_OWNERS.lock().as_ref()?.get(&token).cloned()
}

/// The reduction variables of one execution of a spread construct and their per-device
/// partials; freed by [`Reductions::finish`] once every chunk is complete.
pub struct Reductions {
    vars: Vec<reduction::Var>,
}

impl Reductions {
    /// Combines every variable's partials into it (device-list order).
    pub fn finish(self) {
        for v in &self.vars {
            // The original is the program's variable the lowering named (`&s`, `sizeof s`),
            // alive until the construct's reductions are finished.
            v.fold_into_original();
        }
    }
}

/// The last operation a region queued on one device queue.
struct Lane {
    queue: &'static crate::queue::Queue,
    last: crate::device::Event,
}

/// The most recent chunks of a region that queued operations on one device.
#[derive(Clone, Copy)]
struct DeviceHistory {
    device: i32,
    /// Ring: the device's chunk number `j` is at `j % OVERLAP_HISTORY`.
    recent: [Chunk; OVERLAP_HISTORY],
    /// Chunks recorded so far.
    count: u64,
}

/// The chunks that queued operations on a device before a given chunk: the most recent ones
/// and how many came before those.
struct Earlier {
    /// The most recent ones, oldest first: `recent[..kept]`.
    recent: [Chunk; OVERLAP_HISTORY],
    kept: usize,
    older: u64,
}

impl DeviceHistory {
    fn new(device: i32) -> Self {
        let none = Chunk {
            lo: 0,
            hi: 0,
            device,
        };
        DeviceHistory {
            device,
            recent: [none; OVERLAP_HISTORY],
            count: 0,
        }
    }

    fn earlier(&self) -> Earlier {
        let kept = self.count.min(OVERLAP_HISTORY as u64);
        let first = self.count - kept;
        let mut recent = self.recent;
        for (i, j) in (first..self.count).enumerate() {
            recent[i] = self.recent[(j % OVERLAP_HISTORY as u64) as usize];
        }
        Earlier {
            recent,
            kept: kept as usize,
            older: first,
        }
    }

    fn record(&mut self, c: Chunk) {
        self.recent[(self.count % OVERLAP_HISTORY as u64) as usize] = c;
        self.count += 1;
    }
}

impl Earlier {
    /// The context line of an explicit-extension error of `chunk` on `device`, if earlier
    /// chunks mapped data there.
    fn overlap_message(&self, chunk: Chunk, device: usize) -> Option<String> {
        if self.kept == 0 {
            return None;
        }
        let list: Vec<String> = self.recent[..self.kept]
            .iter()
            .map(|c| format!("[{},{})", c.lo, c.hi))
            .collect();
        let older = match self.older {
            0 => String::new(),
            n => format!(" (and {n} earlier chunk(s) there)"),
        };
        Some(format!(
            "the data of chunk [{},{}) overlaps data mapped for chunk(s) {} on device {device}{older}: chunks on one device must not map overlapping sections",
            chunk.lo,
            chunk.hi,
            list.join(", ")
        ))
    }
}

/// The error of a data construct whose `range` clause has the negative length `len` (found by
/// [`Region::begin`], or earlier by the lowering's range check).
pub fn negative_range(construct: &Construct, len: i128) -> Error {
    Error::new(
        ErrorKind::Invalid,
        format!(
            "the range of the {} at {} has a negative length ({len})",
            construct.name(),
            construct.at()
        ),
    )
}

impl Region {
    /// Starts a region over `[lb, ub)` on `devices` (empty: every device in number order) with
    /// the static schedule of `chunk` (0: one contiguous chunk per device). Without the pass the
    /// region stays one chunk, the whole range on the first device.
    ///
    /// Errors name the construct and its location: a device that does not exist, a negative
    /// chunk size, a data construct's `range` with a negative length, a range of more
    /// iterations than an `int64_t` counts. (A loop whose end is below its start has no
    /// iteration, as in C.)
    pub fn begin(
        rt: &Runtime,
        construct: Construct,
        lb: i64,
        ub: i64,
        devices: Vec<i32>,
        chunk: i64,
    ) -> Result<Region> {
        let spec = Self::checked_spec(rt, &construct, lb, ub, &devices, chunk)?;
        let list = Self::device_list(rt, devices, spec);
        let current = Chunk {
            lo: lb,
            hi: ub.max(lb),
            device: list[0],
        };
        let observed = construct.flags & FLAG_NOWAIT == 0;
        let dealer = Self::make_dealer(rt, &construct, spec, (lb, ub), &list, observed);
        if !construct.has_range_clause() {
            Self::share_cores(rt, (lb, ub), &list);
        }
        let track = observed && dealer.needs_completions();
        let inline_ops = observed && list.iter().all(|&d| d == list[0]);
        let site = Arc::new(crate::origin::Site {
            what: construct.name(),
            file: construct.file.clone(),
            line: construct.line,
        });
        let timed = crate::time_trace::scope(construct.event_name(), || {
            format!(
                "{} at {};Devices={list:?}",
                construct.name(),
                construct.at()
            )
        });
        Ok(Region {
            dealing_outer: 0,
            construct,
            sections: Arc::default(),
            dealer,
            devices: list,
            unit: None,
            dealt: 0,
            unit_queued: None,
            unit_dealt: None,
            track,
            model: rt.sched_model.clone(),
            current,
            reported: false,
            info_chunks: rt.config.info_chunks,
            earlier: None,
            history: Vec::new(),
            lanes: Vec::new(),
            queued: 0,
            failure: Arc::new(Mutex::new(None)),
            windows: Vec::new(),
            unit_window: None,
            reductions: None,
            registered: 0,
            reductions_taken: false,
            inline_ops,
            token_base: None,
            tokens_told: Vec::new(),
            site,
            timed,
        })
    }

    /// Checks the construct's clauses, in the order their errors have always been reported
    /// (devices, chunk size, schedule, range), and resolves its schedule: a construct that
    /// fails here has changed nothing yet.
    #[inline]
    fn checked_spec(
        rt: &Runtime,
        construct: &Construct,
        lb: i64,
        ub: i64,
        devices: &[i32],
        chunk: i64,
    ) -> Result<Spec> {
        let n = rt.num_devices();
        for &d in devices {
            if d < 0 || d as usize > n {
                return Err(Error::new(
                    ErrorKind::BadDevice,
                    format!(
                        "device {d} in the devices clause of the {} at {} does not exist (the runtime has {n} devices; the host is omp_get_initial_device() = {n})",
                        construct.name(),
                        construct.at()
                    ),
                ));
            }
        }
        if chunk < 0 {
            return Err(Error::new(
                ErrorKind::Mapping,
                format!(
                    "chunk size {chunk} of the {} at {} is negative",
                    construct.name(),
                    construct.at()
                ),
            ));
        }
        let spec = match Spec::resolve(construct.schedule, chunk, rt.config.schedule) {
            // Data constructs always deal statically (seed 000: their chunks must meet the
            // compute chunks' devices).
            Ok(_) if construct.has_range_clause() => Spec {
                kind: Kind::Static,
                chunk,
            },
            Ok(spec) => spec,
            Err(code) => {
                return Err(Error::new(
                    ErrorKind::Invalid,
                    format!(
                        "unknown schedule code {code} for the {} at {} (the program and libspread_rt.so disagree on spread.h)",
                        construct.name(),
                        construct.at()
                    ),
                ))
            }
        };
        if ub < lb && construct.has_range_clause() {
            return Err(negative_range(construct, i128::from(ub) - i128::from(lb)));
        }
        if ub > lb && ub.abs_diff(lb) > i64::MAX as u64 {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "the range [{lb},{ub}) of the {} at {} has more iterations than an int64_t counts (omp_spread_size)",
                    construct.name(),
                    construct.at()
                ),
            ));
        }
        Ok(spec)
    }

    /// The devices the chunks go to, in dealing order: the `devices` clause's (every device
    /// when it is empty, the host alone when offloading is off), without repeats for the
    /// policies that measure or wait (a static schedule deals by position in the list, a
    /// device listed twice getting two shares).
    #[inline]
    fn device_list(rt: &Runtime, devices: Vec<i32>, spec: Spec) -> Vec<i32> {
        let n = rt.num_devices();
        let mut list: Vec<i32> = if rt.policy() == Policy::Disabled || n == 0 {
            // Offloading is disabled (or there is no device): every chunk runs on the host.
            vec![rt.initial_device() as i32]
        } else if devices.is_empty() {
            (0..n as i32).collect()
        } else {
            devices
        };
        if spec.kind != Kind::Static {
            // A device listed twice is one resource to a policy that measures or waits.
            let mut seen = Vec::with_capacity(list.len());
            list.retain(|d| {
                let first = !seen.contains(d);
                seen.push(*d);
                first
            });
        }
        list
    }

    /// Who deals the chunks: no scheduler at all for the common one-device, one-block
    /// construct (it then costs about what a `target` construct does), the policy's scheduler
    /// otherwise.
    #[inline]
    fn make_dealer(
        rt: &Runtime,
        construct: &Construct,
        spec: Spec,
        (lb, ub): (i64, i64),
        list: &[i32],
        observed: bool,
    ) -> Dealer {
        if spec.kind == Kind::Static && spec.chunk <= 0 && list.len() == 1 {
            // One device, one block: the range is one chunk (see `Dealer::Whole`).
            Dealer::Whole((ub > lb).then_some(Unit {
                lo: lb,
                hi: ub,
                resource: 0,
            }))
        } else {
            Dealer::Sched(Arc::new(Self::make_scheduler(
                rt,
                construct,
                spec,
                (lb, ub),
                list,
                observed,
            )))
        }
    }

    /// For a compute construct that deals chunks to several devices at once: their host
    /// devices share the cores from the first kernel on (`Device::expect_kernels`), instead
    /// of the first chunk's kernel forking a team over every core and time-slicing with the
    /// next ones (bench/spread/scaling's default-threads row: 0.93x one device before).
    /// (With offloading disabled the list is the host alone.)
    #[inline]
    fn share_cores(rt: &Runtime, (lb, ub): (i64, i64), list: &[i32]) {
        let mut distinct = list.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let iterations = ub.saturating_sub(lb).max(0) as u64;
        if distinct.len() > 1 && iterations >= distinct.len() as u64 {
            for &d in &distinct {
                if let Ok(slot) = rt.device(i64::from(d)) {
                    slot.dev.expect_kernels();
                }
            }
        }
    }

    /// The scheduler of a region over `list` by `spec`; `observed`: the region waits for its
    /// chunks (no `nowait`).
    fn make_scheduler(
        rt: &Runtime,
        construct: &Construct,
        spec: Spec,
        (lb, ub): (i64, i64),
        list: &[i32],
        observed: bool,
    ) -> Scheduler {
        let host = rt.initial_device() as i32;
        // Model keys only for the policies that learn: a static construct allocates no strings.
        let learns = matches!(spec.kind, Kind::Adaptive | Kind::StaticOpt);
        let resources: Vec<Resource> = list
            .iter()
            .map(|&d| Resource {
                key: match (learns, d == host) {
                    (false, _) => String::new(),
                    (true, true) => "host".to_string(),
                    (true, false) => format!("device {d}"),
                },
                inline: d == host,
            })
            .collect();
        let model_key = if learns {
            construct.at()
        } else {
            String::new()
        };
        // Dynamic's default: about 8 chunks per device, each chunk costing a launch.
        let per = (list.len() as u64).saturating_mul(8).max(1);
        let default_chunk = i64::try_from(ub.abs_diff(lb) / per)
            .unwrap_or(i64::MAX)
            .max(1);
        Scheduler::new(
            &rt.sched_model,
            &model_key,
            spec,
            (lb, ub),
            resources,
            Mode::Push { observed },
            default_chunk,
        )
    }

    /// Reports the current chunk complete to the scheduler: once its queued operations are done
    /// (a job after them on its queue), or now when it queued none (a host chunk ran inline).
    fn complete_unit(&mut self) {
        let Some(u) = self.unit.take() else {
            return;
        };
        let window = self.unit_window.take();
        if !self.track {
            return;
        }
        let streamed = window.is_some();
        let Some(here) = self.dealer.scheduler() else {
            return;
        };
        let sched = here.clone();
        let chunk = self.current;
        let queued_at = self.unit_queued.take();
        let dealt = self.unit_dealt.take().unwrap_or_else(Instant::now);
        let queued = queued_at.map_or(dealt, |(t, _)| t);
        // Run after the chunk's last operation: it completes the unit, or, when that operation
        // is in flight on a stream, leaves the completion to it (see `Streamed::finish`).
        let done = move || {
            let last = window.as_ref().map(|w| w.lock());
            match last {
                Some(mut w) => match w.ops.back_mut().filter(|s| s.chunk == chunk) {
                    Some(op) => op.unit = Some((sched, u, queued)),
                    None => {
                        // Already finished (pushed out of the window): done by now.
                        drop(w);
                        sched.complete_queued(u, queued);
                    }
                },
                None => sched.complete_queued(u, queued),
            }
            Ok(())
        };
        match queued_at {
            Some((_, queue)) => {
                let ev = queue.submit(done);
                // `end` waits for it with the chunk's operations.
                if let Some(l) = self.lanes.iter_mut().find(|l| std::ptr::eq(l.queue, queue)) {
                    l.last = ev;
                }
            }
            // The operations ran on this thread.
            None if streamed => {
                let _ = done();
            }
            None => here.complete(u, dealt.elapsed()),
        }
    }

    /// Advances to the next chunk (the loop the pass inserts); false when none is left. Under
    /// `dynamic` this waits until a device has room for it.
    pub fn advance(&mut self) -> bool {
        self.complete_unit();
        self.registered = 0;
        let Some(u) = self.dealer.pick() else {
            return false;
        };
        self.unit = Some(u);
        self.dealt += 1;
        // The clock is read only for a schedule that hears of completions.
        self.unit_dealt = self.track.then(Instant::now);
        self.current = Chunk {
            lo: u.lo,
            hi: u.hi,
            device: self.devices[u.resource],
        };
        self.reported = false;
        self.earlier = None;
        if let Ok(d) = usize::try_from(self.current.device) {
            crate::profile::chunk(d, self.current.len().unsigned_abs());
        }
        true
    }

    /// The current chunk; the first query of each chunk prints it with `SPREAD_INFO=chunks`.
    pub fn current(&mut self) -> Chunk {
        if self.info_chunks && !self.reported {
            self.reported = true;
            eprintln!(
                "spread: {} chunk [{},{}) -> device {}{}",
                self.construct.at(),
                self.current.lo,
                self.current.hi,
                self.current.device,
                match self.dealer.effective() {
                    Kind::Static => String::new(),
                    k => format!(" ({})", k.name()),
                }
            );
        }
        self.current
    }

    /// An address that stands for the current chunk's device in this region: the chunks of a
    /// `nowait` construct are target tasks that depend on it (`inout`), so that libomp starts
    /// those of one device in dealing order. The address is a slot of an arena no program data
    /// lives in ([`chunk_of_token`] tells a chunk's task by it); two live regions share a slot
    /// only when more than [`TOKEN_SLOTS`] (region, device) pairs came between them, which
    /// orders their chunks, nothing more.
    pub fn device_token(&mut self) -> usize {
        let d = self.current.device;
        let i = self.devices.iter().position(|&x| x == d).unwrap_or(0);
        let base = *self.token_base.get_or_insert_with(|| {
            NEXT_TOKEN.fetch_add(self.devices.len(), std::sync::atomic::Ordering::Relaxed)
        });
        let slot = (base + i) % TOKEN_SLOTS;
        let addr = std::ptr::addr_of!(TOKENS[slot]) as usize;
        if self.tokens_told.len() < self.devices.len() {
            self.tokens_told.resize(self.devices.len(), false);
        }
        if !self.tokens_told[i] {
            self.tokens_told[i] = true;
            TOKEN_OWNERS
                .lock()
                .get_or_insert_with(Default::default)
                .insert(addr, (self.construct.clone(), d, self.sections.clone()));
        }
        addr
    }

    /// Registers reduction variable number `k` of the current chunk (the lowering registers the
    /// construct's variables in every chunk; the first chunk's registration counts, later ones
    /// must repeat it).
    pub fn register_reduction(
        &mut self,
        op: i32,
        ty: i32,
        original: usize,
        size: usize,
    ) -> Result<()> {
        let k = self.registered;
        self.registered += 1;
        let what = &self.construct;
        let resources = self.devices.len();
        let reds = self
            .reductions
            .get_or_insert_with(|| Box::new(Reductions { vars: Vec::new() }));
        match reds.vars.get(k) {
            Some(v) if v.same(op, ty, original) => Ok(()),
            Some(_) => Err(Error::new(
                ErrorKind::Invalid,
                format!("reduction variable {k} of the {what} changed between chunks"),
            )),
            None => {
                let v =
                    reduction::Var::new(&what.to_string(), (op, ty), original, size, resources)?;
                reds.vars.push(v);
                Ok(())
            }
        }
    }

    /// The current chunk's partial of reduction variable `k`: its own, so that no chunk reads
    /// a partial another chunk in flight writes. (One per device, shared by the device's chunks
    /// through their `tofrom` maps, lost every chunk's result but the last one's of a remote
    /// device: a chunk's copy in is read when it is enqueued, before the chunk ahead of it on
    /// the device has copied its result back.)
    pub fn reduction_partial(&mut self, k: usize) -> Result<*mut u64> {
        let r = self.dealt.saturating_sub(1);
        let what = &self.construct;
        match self
            .reductions
            .as_mut()
            .and_then(|reds| reds.vars.get_mut(k))
        {
            Some(v) => Ok(v.partial(r)),
            None => Err(Error::new(
                ErrorKind::Invalid,
                format!("reduction variable {k} of the {what} was not registered"),
            )),
        }
    }

    /// The region's reductions, for the program to finish once the chunks are complete; the
    /// same object on every call (the lowering asks in every chunk). `None` without any.
    pub fn reductions(&mut self) -> Option<*mut Reductions> {
        self.reductions_taken = self.reductions.is_some();
        self.reductions
            .as_mut()
            .map(|b| &mut **b as *mut Reductions)
    }

    /// The chunks that queued operations on the current chunk's device before it; the first
    /// call for a chunk records the chunk in its device's history.
    fn earlier(&mut self) -> Option<Arc<Earlier>> {
        if let Some(e) = &self.earlier {
            return e.clone();
        }
        let chunk = self.current;
        let h = match self.history.iter().position(|h| h.device == chunk.device) {
            Some(i) => &mut self.history[i],
            None => {
                if self.history.capacity() == 0 {
                    self.history.reserve_exact(self.devices.len());
                }
                self.history.push(DeviceHistory::new(chunk.device));
                let last = self.history.len() - 1;
                &mut self.history[last]
            }
        };
        let e = (h.count > 0).then(|| Arc::new(h.earlier()));
        h.record(chunk);
        self.earlier = Some(e.clone());
        e
    }

    /// Queues `op` for the current chunk on `slot`'s worker. When the queue is long, the
    /// calling thread first helps to run it, so a region's queued work stays bounded.
    pub fn submit(
        &mut self,
        slot: &'static DeviceSlot,
        op: impl FnOnce() -> Result<()> + Send + 'static,
    ) {
        let job = self.job(slot, op);
        if self.inline_ops {
            // One device: nothing to overlap, so the operation runs here, as a `target`
            // construct's would (a worker thread would cost a hand-off per construct, and its
            // kernel's libomp team would compete with this thread's spinning one).
            let _ = job();
            return;
        }
        let queue = slot.queue();
        if queue.pending() >= MAX_QUEUED {
            queue.run_while_longer_than(MAX_QUEUED / 2);
        }
        if self.track && self.unit_queued.is_none() {
            self.unit_queued = Some((Instant::now(), queue));
        }
        let ev = queue.submit(job);
        match self.lanes.iter_mut().find(|l| std::ptr::eq(l.queue, queue)) {
            Some(l) => l.last = ev,
            None => {
                if self.lanes.capacity() == 0 {
                    self.lanes.reserve_exact(self.devices.len());
                }
                self.lanes.push(Lane { queue, last: ev })
            }
        }
    }

    /// `op` for the current chunk as a job: labelled for the trace, its failure recorded under
    /// its sequence number with the chunk and device (and, for an overlap, the earlier chunks).
    fn job(
        &mut self,
        slot: &'static DeviceSlot,
        op: impl FnOnce() -> Result<()> + Send + 'static,
    ) -> impl FnOnce() -> Result<()> + Send + 'static {
        let chunk = self.current;
        let earlier = self.earlier();
        let what = self.construct.clone();
        let seq = self.queued;
        self.queued += 1;
        let failure = self.failure.clone();
        let device = slot.id;
        // The chunk its kernels are reported with if they fault (`crate::origin`).
        let origin = crate::origin::Origin::Chunk(self.site.clone(), chunk.lo, chunk.hi);
        move || {
            let _origin = crate::origin::enter(origin);
            let label = || format!("{what} chunk [{},{})", chunk.lo, chunk.hi);
            let run = || crate::trace::with_label(crate::trace::enabled().then(label), op);
            let r =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorKind::Backend,
                        "an asynchronous device operation panicked",
                    ))
                });
            r.map_err(|e| {
                let mut e = chunk_failure(e, &what, chunk, device);
                if e.kind == ErrorKind::Extension {
                    if let Some(m) = earlier
                        .as_ref()
                        .and_then(|e| e.overlap_message(chunk, device))
                    {
                        e = e.context(m);
                    }
                }
                record_failure(&failure, seq, e.clone());
                e
            })
        }
    }

    /// Runs `op` for the current chunk on `slot`: `op` decides the chunk's mapping and enqueues
    /// its work, which the device runs while the calling thread deals the next chunks; the
    /// region finishes it later (see [`WINDOW`]). Under schedules that learn from completion
    /// times (and on a device that works inside its calls) the whole operation is queued on the
    /// device's queue instead, whose worker finishes it, so that completions are reported as
    /// they happen.
    pub fn submit_streamed(
        &mut self,
        slot: &'static DeviceSlot,
        op: impl FnOnce() -> Result<crate::runtime::launch::InFlight<'static>> + Clone + Send + 'static,
    ) {
        // One host device, waited for at the end: its streams would run on an executor while
        // this thread waits, so each chunk runs here instead, as a `target` construct's would
        // (see `submit`). A GPU or remote device still gets streams: copies overlap kernels.
        let here = self.inline_ops && slot.dev.host_addressable();
        if here || self.dealer.deals_by_completions() || !slot.dev.asynchronous() {
            return self.submit(slot, move || op()?.complete());
        }
        let window = match self.windows.iter().find(|(d, _)| *d == slot.id) {
            Some((_, w)) => w.clone(),
            None => {
                let w = Window::default();
                self.windows.push((slot.id, w.clone()));
                w
            }
        };
        self.unit_window = Some(window.clone());
        let (seq, what, chunk, failure) = (
            self.queued,
            self.construct.clone(),
            self.current,
            self.failure.clone(),
        );
        // The dealing thread decides the chunk's mapping and enqueues its work: the device
        // runs it while the next chunks are dealt (seed 003: the host only enqueues).
        let job = self.job(slot, move || {
            let prev = window.lock().last_kernel.take();
            let (work, last) = crate::runtime::launch::kernels_after(prev, || {
                // A retry maps again from the program's arguments.
                let retry = op.clone();
                match op() {
                    // Sections of earlier chunks in flight on this device (a halo one element
                    // wide, say) stay mapped until those chunks finish: finished, they no longer
                    // overlap. What still overlaps afterwards is the program's error.
                    Err(e) if e.kind == ErrorKind::Extension && !window.lock().ops.is_empty() => {
                        finish_all_but(&window, 0, &failure);
                        retry()
                    }
                    r => r,
                }
            });
            window.lock().last_kernel = last;
            let work = work?.submitted()?;
            // A region's operations are enqueued by the dealing thread, one after another, so the
            // window is never contended.
            window.lock().ops.push_back(Streamed {
                work,
                seq,
                what,
                chunk,
                unit: None,
            });
            finish_all_but(&window, WINDOW, &failure);
            Ok(())
        });
        let _ = job();
    }

    /// Waits for every queued operation; the error of the first one (in queuing order) that
    /// failed, if any.
    pub fn end(mut self) -> Result<()> {
        self.complete_unit();
        // The program finishes the reductions (after this returns, or in a task): they leave
        // with it.
        if let Some(r) = self.reductions.take() {
            if self.reductions_taken {
                // Freed by `Reductions::finish` through the pointer the program holds.
                let _ = Box::into_raw(r);
            }
        }
        for lane in &self.lanes {
            // Queues are FIFO: once the last operation is done, so are the earlier ones. The
            // waiting thread works through the queue too (see `Queue::run_until`); failures
            // are collected in `failure`, in queuing order.
            let _ = lane.queue.run_until(&lane.last);
        }
        // The construct's time in the time trace ends with its chunks.
        drop(self.timed.take());
        for (_, w) in std::mem::take(&mut self.windows) {
            finish_all_but(&w, 0, &self.failure);
        }
        if let Some(sched) = self.dealer.scheduler() {
            sched.finish(&self.model);
        }
        let first = self.failure.lock().take();
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn rt(n: usize) -> Runtime {
        Runtime::new(Config::from_lookup(|k| {
            (k == "SPREAD_HOST_DEVICES").then(|| n.to_string())
        }))
    }

    fn construct() -> Construct {
        Construct {
            file: "a.c".into(),
            line: 7,
            kind: 1,
            flags: 0,
            schedule: 0,
        }
    }

    #[test]
    fn without_the_pass_one_chunk_covers_the_range() {
        let rt = rt(4);
        let mut r = Region::begin(&rt, construct(), 1, 13, vec![2, 0, 1], 4).expect("valid");
        assert_eq!(
            r.current(),
            Chunk {
                lo: 1,
                hi: 13,
                device: 2
            }
        );
        r.end().expect("nothing pending");
    }

    /// One device without a chunk size: the whole range is one chunk, dealt without a
    /// scheduler (an empty range none); with a chunk size the scheduler deals the pieces.
    #[test]
    fn one_device_without_a_chunk_size_is_one_chunk() {
        let rt = rt(4);
        let chunks = |lb, ub, chunk| {
            let mut r = Region::begin(&rt, construct(), lb, ub, vec![3], chunk).expect("valid");
            assert_eq!(matches!(r.dealer, Dealer::Whole(_)), chunk == 0);
            let mut seen = Vec::new();
            while r.advance() {
                seen.push(r.current());
            }
            r.end().expect("nothing queued");
            seen
        };
        let c = |lo, hi| Chunk { lo, hi, device: 3 };
        assert_eq!(chunks(-5, 1000, 0), vec![c(-5, 1000)]);
        assert_eq!(chunks(7, 7, 0), vec![]);
        assert_eq!(chunks(9, 2, 0), vec![]);
        assert_eq!(chunks(0, 10, 4), vec![c(0, 4), c(4, 8), c(8, 10)]);
    }

    #[test]
    fn the_pass_loop_visits_every_chunk() {
        let rt = rt(4);
        let mut r = Region::begin(&rt, construct(), 1, 13, vec![2, 0, 1], 4).expect("valid");
        let mut seen = Vec::new();
        while r.advance() {
            seen.push(r.current());
        }
        assert_eq!(
            seen,
            vec![
                Chunk {
                    lo: 1,
                    hi: 5,
                    device: 2
                },
                Chunk {
                    lo: 5,
                    hi: 9,
                    device: 0
                },
                Chunk {
                    lo: 9,
                    hi: 13,
                    device: 1
                }
            ]
        );
    }

    #[test]
    fn bad_device_lists_are_errors_naming_the_construct() {
        let rt = rt(2);
        let e = Region::begin(&rt, construct(), 0, 10, vec![0, 5], 0)
            .err()
            .expect("device 5 is bad");
        assert!(
            e.message
                .contains("device 5 in the devices clause of the target spread at a.c:7"),
            "{}",
            e.message
        );
        let e = Region::begin(&rt, construct(), 0, 10, vec![-1], 0)
            .err()
            .expect("negative");
        assert_eq!(e.kind, ErrorKind::BadDevice);
    }

    /// A runtime that lives as long as the device slots regions queue work on.
    fn static_rt(n: usize) -> &'static Runtime {
        Box::leak(Box::new(rt(n)))
    }

    fn construct_of_kind(kind: i32) -> Construct {
        Construct {
            kind,
            ..construct()
        }
    }

    #[test]
    fn negative_range_lengths_of_data_constructs_are_errors_naming_the_construct() {
        let rt = rt(2);
        let e = Region::begin(&rt, construct_of_kind(5), 10, 4, vec![0, 1], 1)
            .err()
            .expect("negative length");
        assert_eq!(e.kind, ErrorKind::Invalid);
        assert!(
            e.message.contains(
                "the range of the target update spread at a.c:7 has a negative length (-6)"
            ),
            "{}",
            e.message
        );
        // A loop whose end is below its start runs no iteration, as in C.
        let mut r = Region::begin(&rt, construct(), 10, 4, vec![0, 1], 1).expect("empty loop");
        assert!(!r.advance());
        assert_eq!(r.current().len(), 0);
        r.end().expect("nothing queued");
    }

    #[test]
    fn ranges_longer_than_an_int64_are_errors_naming_the_construct() {
        let rt = rt(2);
        let e = Region::begin(&rt, construct_of_kind(3), i64::MIN, 1, vec![], 0)
            .err()
            .expect("too long");
        assert!(
            e.message.contains("target enter data spread at a.c:7"),
            "{}",
            e.message
        );
        // The longest range an int64_t counts is fine, also at the end of i64.
        let mut r = Region::begin(&rt, construct(), 0, i64::MAX, vec![1, 0], 0).expect("valid");
        assert!(r.advance());
        assert_eq!(r.current().len(), i64::MAX / 2 + 1);
        let mut r =
            Region::begin(&rt, construct(), i64::MAX - 10, i64::MAX, vec![1, 0], 4).expect("valid");
        let mut n = 0;
        while r.advance() {
            n += r.current().len();
        }
        assert_eq!(n, 10);
    }

    #[test]
    fn many_chunks_keep_the_region_and_the_queues_bounded() {
        let rt = static_rt(2);
        let mut r = Region::begin(rt, construct(), 0, 1 << 40, vec![], 1).expect("valid");
        let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
        for _ in 0..100_000 {
            assert!(r.advance());
            let slot = &rt.devices[r.current().device as usize];
            let done = done.clone();
            r.submit(slot, move || {
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(())
            });
            assert!(slot.queue().pending() <= MAX_QUEUED + 1);
        }
        assert_eq!(r.current().lo, 99_999);
        assert_eq!(r.history.len(), 2);
        assert_eq!(r.lanes.len(), 2);
        // Reserved once for the device list, never grown.
        assert_eq!((r.history.capacity(), r.lanes.capacity()), (2, 2));
        r.end().expect("all succeed");
        assert_eq!(done.load(std::sync::atomic::Ordering::Relaxed), 100_000);
    }

    #[test]
    fn the_first_failure_in_queuing_order_is_reported() {
        let rt = static_rt(2);
        let mut r = Region::begin(rt, construct(), 0, 40, vec![0, 1], 1).expect("valid");
        while r.advance() {
            let c = r.current();
            let slot = &rt.devices[c.device as usize];
            r.submit(slot, move || {
                if c.lo == 7 || c.lo == 30 {
                    Err(Error::new(ErrorKind::Backend, format!("boom {}", c.lo)))
                } else {
                    Ok(())
                }
            });
        }
        let e = r.end().expect_err("chunk 7 fails");
        assert_eq!(e.message, "boom 7");
        assert_eq!(
            e.context,
            vec!["in target spread a.c:7 chunk [7,8) on device 1".to_string()]
        );
    }

    #[test]
    fn overlap_errors_name_the_most_recent_chunks_of_the_device() {
        let rt = static_rt(2);
        let mut r = Region::begin(rt, construct_of_kind(3), 0, 100, vec![0, 1], 1).expect("valid");
        while r.advance() {
            let c = r.current();
            let slot = &rt.devices[c.device as usize];
            r.submit(slot, move || {
                if c.lo == 50 {
                    Err(Error::new(
                        ErrorKind::Extension,
                        "explicit extension not allowed: host address specified is ...",
                    ))
                } else {
                    Ok(())
                }
            });
        }
        let e = r.end().expect_err("chunk 50 fails");
        assert_eq!(
            e.context,
            vec![
                "in target enter data spread a.c:7 chunk [50,51) on device 0".to_string(),
                "the data of chunk [50,51) overlaps data mapped for chunk(s) [42,43), [44,45), [46,47), [48,49) on device 0 (and 21 earlier chunk(s) there): chunks on one device must not map overlapping sections".to_string()
            ]
        );
        // The second chunk of a device names the first, as before.
        let mut r = Region::begin(rt, construct_of_kind(3), 8, 56, vec![1], 8).expect("valid");
        while r.advance() {
            let c = r.current();
            r.submit(&rt.devices[1], move || {
                if c.lo == 16 {
                    Err(Error::new(
                        ErrorKind::Extension,
                        "explicit extension not allowed",
                    ))
                } else {
                    Ok(())
                }
            });
        }
        let e = r.end().expect_err("chunk 16 fails");
        assert_eq!(
            e.context[1],
            "the data of chunk [16,24) overlaps data mapped for chunk(s) [8,16) on device 1: chunks on one device must not map overlapping sections"
        );
    }

    #[test]
    fn a_panicking_operation_is_an_error_of_its_chunk() {
        let rt = static_rt(1);
        let mut r = Region::begin(rt, construct(), 0, 3, vec![0], 1).expect("valid");
        while r.advance() {
            let c = r.current();
            r.submit(&rt.devices[0], move || {
                assert!(c.lo != 1, "chunk 1 panics");
                Ok(())
            });
        }
        let e = r.end().expect_err("chunk 1 panics");
        assert_eq!(e.message, "an asynchronous device operation panicked");
        assert_eq!(
            e.context,
            vec!["in target spread a.c:7 chunk [1,2) on device 0".to_string()]
        );
    }

    #[test]
    fn empty_device_list_means_all_devices() {
        let rt = rt(3);
        let mut r = Region::begin(&rt, construct(), 0, 6, vec![], 0).expect("valid");
        let mut devs = Vec::new();
        while r.advance() {
            devs.push(r.current().device);
        }
        assert_eq!(devs, vec![0, 1, 2]);
    }
}
