//! Automatic spreading (`SPREAD_AUTO`, docs/auto-spread.md): a plain `target teams distribute
//! parallel for` launch of a kernel the pass plugin marked spreadable runs as blocks of its
//! iteration space over several devices.
//!
//! The pass gives each such kernel a window global (`__spread_win_<kernel>`, the normalized
//! iterations `[lo, hi)` the kernel runs, everything by default) and a descriptor of its accesses
//! ([`kinfo`]). Here a launch becomes a construct of the scheduling core ([`crate::spread`]):
//! each block, on its device, writes the window, launches the kernel with the sections its
//! iterations touch and puts the window back. Anything the plan cannot prove safe is refused,
//! and a refusal is the program's own launch, unchanged: a refusal never changes results.

mod churn;
mod grid;
pub mod kinfo;
mod ranges;
pub mod report;
pub mod resident;

use crate::device::LaunchConfig;
use crate::error::{Error, ErrorKind, Result};
use crate::location::SourceLoc;
use crate::reduction;
use crate::runtime::mapping::MapArgs;
use crate::runtime::{DeviceSlot, Runtime};
use crate::spread::{Construct, Region, KIND_AUTO};
use kinfo::{Entry, KernelInfo, Plan};
use parking_lot::Mutex;
use report::Decision;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Name prefix of the pass plugin's window globals.
pub const WINDOW_PREFIX: &str = "__spread_win_";

/// The window a kernel runs with when it is not spread: every iteration.
const FULL: [i64; 2] = [0, i64::MAX];

/// What is known of a kernel: its descriptor, or why it has none usable.
type Known = std::result::Result<Arc<KernelInfo>, String>;

/// Descriptors by host region id (parsed once per kernel).
fn descriptors() -> &'static Mutex<HashMap<usize, Option<Known>>> {
    static D: OnceLock<Mutex<HashMap<usize, Option<Known>>>> = OnceLock::new();
    D.get_or_init(Default::default)
}

/// Ping-pong records by host region id.
fn churn() -> &'static Mutex<HashMap<usize, churn::Churn>> {
    static C: OnceLock<Mutex<HashMap<usize, churn::Churn>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// One lock per (device, kernel): held from a block's window write until the window is back to
/// [`FULL`], so launches of one kernel on one device never see another's window.
fn window_lock(device: usize, region: usize) -> Arc<Mutex<()>> {
    type Locks = Mutex<HashMap<(usize, usize), Arc<Mutex<()>>>>;
    static L: OnceLock<Locks> = OnceLock::new();
    L.get_or_init(Default::default)
        .lock()
        .entry((device, region))
        .or_default()
        .clone()
}

/// The descriptor of the kernel of `region`: `None` when the pass gave it none (not compiled
/// with the plugin, or not spreadable), `Some(Err)` when its images disagree or it is corrupt.
fn descriptor(rt: &Runtime, region: usize) -> Option<Known> {
    if let Some(k) = descriptors().lock().get(&region) {
        return k.clone();
    }
    let known = rt.kernel_name(region).and_then(|name| {
        let all = rt.kernel_descriptors(&name);
        let first = all.first()?;
        Some(if all.iter().any(|d| d != first) {
            Err(format!(
                "the images of kernel {name} carry different descriptors"
            ))
        } else {
            KernelInfo::parse(first)
                .map(Arc::new)
                .map_err(|e| format!("kernel {name}: {e}"))
        })
    });
    descriptors().lock().insert(region, known.clone());
    known
}

/// How a launch went through automatic spreading.
pub enum Outcome {
    /// Not a kernel for automatic spreading (`SPREAD_AUTO` off, or no descriptor): the caller
    /// launches it as usual.
    NotMine,
    /// Done here: spread, or refused and run as written (synchronously, as the window lock
    /// requires).
    Done(Result<()>),
}

/// `__tgt_target_kernel` of host region id `region`: spreads it when `SPREAD_AUTO` is on, the
/// kernel has a descriptor and the plan holds. `device` is the construct's `device` clause (-1
/// without one), `slot` where it would run.
pub fn target_kernel(
    rt: &'static Runtime,
    slot: &'static DeviceSlot,
    device: i64,
    region: usize,
    args: &mut MapArgs,
    cfg: &LaunchConfig,
    loc: &dyn Fn() -> Option<SourceLoc>,
) -> Outcome {
    let Some(wanted) = rt.config.auto.as_ref() else {
        return Outcome::NotMine;
    };
    let name = rt.kernel_name(region).unwrap_or_else(|| Arc::from("?"));
    let at = || {
        loc().map_or_else(
            || format!("kernel {name}"),
            |l| format!("{}:{}: kernel {name}", l.file, l.line),
        )
    };
    // SPREAD_INFO=auto: each kernel's decision the first time it takes it (`report`).
    let say = |decision: Decision, text: &dyn Fn() -> String| {
        rt.config.info_auto && report::launch(region, &at, decision, text)
    };
    let resident = resident::resident_sections(args);
    let Some(known) = descriptor(rt, region) else {
        if resident.iter().any(Option::is_some) {
            // Data kept resident by Spread: the launch runs on its device, which first gets
            // the current value of what it maps.
            say(Decision::Resident { device: slot.id }, &|| {
                format!(
                    "runs on device {} (no descriptor) over resident data",
                    slot.id
                )
            });
            return Outcome::Done(run_whole(rt, slot, region, args, cfg, &resident));
        }
        say(Decision::NoDescriptor, &|| {
            "has no descriptor: built without the pass plugin, or refused by it (see -Rpass-missed=spread-auto)".to_string()
        });
        return Outcome::NotMine;
    };
    match decide(rt, known, wanted, device, region, args, cfg, &resident) {
        Ok((devices, plan, left_out)) => {
            let blocks_shown = say(Decision::Spread(devices.clone()), &|| {
                // Why a device is not among them (a GPU whose image has no window, say).
                let why = if left_out.is_empty() {
                    String::new()
                } else {
                    format!(" (left out: {})", left_out.join("; "))
                };
                let unit = if plan.grid() { "teams" } else { "iterations" };
                format!(
                    "spread over devices {:?}: {} {unit}{why}",
                    devices,
                    plan.tripcount()
                )
            });
            let construct = Construct {
                file: Arc::from(loc().map_or_else(|| name.to_string(), |l| l.file)),
                line: loc().map_or(0, |l| i32::try_from(l.line).unwrap_or(0)),
                kind: KIND_AUTO,
                flags: 0,
                schedule: 0,
            };
            Outcome::Done(spread(
                rt,
                construct,
                &devices,
                region,
                args,
                cfg,
                plan,
                resident,
                (&at, blocks_shown),
            ))
        }
        Err(why) => {
            let device = slot.id;
            say(
                Decision::Refused {
                    device,
                    why: why.clone(),
                },
                &|| format!("runs on device {device}: {why}"),
            );
            Outcome::Done(run_whole(rt, slot, region, args, cfg, &resident))
        }
    }
}

/// The devices and the plan of a launch that can be spread, with why each other device was left
/// out, or why it cannot be spread.
#[allow(clippy::too_many_arguments)]
fn decide(
    rt: &Runtime,
    known: Known,
    wanted: &[i32],
    device: i64,
    region: usize,
    args: &MapArgs,
    cfg: &LaunchConfig,
    resident: &[Option<(usize, usize)>],
) -> std::result::Result<(Vec<i32>, Plan, Vec<String>), String> {
    let info = known?;
    if let Some(why) = churn().lock().get(&region).and_then(churn::Churn::reason) {
        return Err(why);
    }
    if device != -1 {
        return Err(format!("the construct names device({device})"));
    }
    if args.mappers.iter().any(|&m| m != 0) {
        return Err("a map clause has a user-defined mapper".into());
    }
    // A grid kernel's blocks are windows of its league of teams, each of which handles about
    // as many elements as it has threads.
    let (tripcount, team_weight) = if info.grid {
        let threads = u64::from(cfg.thread_limit[0].max(1));
        (grid::league(cfg)?, threads)
    } else {
        (cfg.tripcount, 1)
    };
    let unit = if info.grid { "team(s)" } else { "iterations" };
    if info.grid && tripcount < 2 {
        return Err(format!(
            "a grid kernel's league of {tripcount} team: nothing to cut"
        ));
    }
    // Each block at least SPREAD_AUTO_MIN iterations: a block costs a launch. (Checked on the
    // iterations alone first; below, on the elements they handle.)
    if tripcount < 2 * rt.config.auto_min.max(1)
        && info.most_elements_per_iteration() <= 1
        && team_weight <= 1
    {
        return Err(too_small(tripcount, 1, rt.config.auto_min, unit));
    }
    let (mut devices, left_out) = devices_for(rt, wanted, region)?;
    if info.grid {
        grid::exact_leagues(rt, &devices)?;
    }
    let entries: Vec<Entry> = (0..args.len())
        .map(|i| {
            // A pointer into resident data passed without a section (clang's implicit
            // zero-length map of a captured pointer): the object is its mapping.
            let (begin, size) = match resident.get(i).copied().flatten() {
                Some((lo, hi)) if args.sizes[i] == 0 => (lo, (hi - lo) as i64),
                _ => (args.begins[i], args.sizes[i]),
            };
            Entry {
                base: args.bases[i],
                begin,
                size,
                types: args.types[i],
            }
        })
        .collect();
    // A map entry's name as the program wrote it, where the build keeps map names.
    let declared = |i: usize| args.names.get(i).and_then(|&n| crate::info::declared(n));
    let plan = Plan::new(&info, &entries, tripcount).map_err(|r| r.named(declared))?;
    // Read-only entries sharing host bytes get one section per block: all of them in the same
    // resident object, or none.
    for group in plan.shared() {
        let home = |i: usize| resident.get(i).copied().flatten();
        if let Some(&j) = group.iter().find(|&&j| home(j) != home(group[0])) {
            return Err(format!(
                "map entries {} and {j} overlap in host memory, and only one of them lives in an enclosing target data",
                group[0]
            ));
        }
    }
    // An iteration that handles a row (an inner loop, a nested parallel loop) counts as the
    // elements it handles.
    let weight = plan.elements_per_iteration().max(team_weight);
    let fit = tripcount.saturating_mul(weight) / rt.config.auto_min.max(1);
    if fit < 2 {
        return Err(too_small(tripcount, weight, rt.config.auto_min, unit));
    }
    devices.truncate(usize::try_from(fit.min(tripcount)).unwrap_or(usize::MAX));
    // A reduction's partials are combined into the program's variable on the host: a variable
    // that lives on the devices (resident data of an enclosing `target data`) would keep its
    // device value and lose them (HeCBench's scatterAdd, mr, randomAccess: histograms and
    // counters inside `target data`).
    if let Some(r) = plan
        .reductions()
        .into_iter()
        .find(|r| resident.get(r.entry).copied().flatten().is_some())
    {
        let name = declared(r.entry).map_or(String::new(), |n| format!(" {n}"));
        return Err(format!(
            "map entry {}{name} is reduced (a reduction clause or atomic updates) but lives on the devices (data of an enclosing target data): the blocks' partial results would be combined on the host",
            r.entry
        ));
    }
    // A grid kernel's written arrays are merged on the host from the blocks' copies: an array
    // that lives on the devices would keep its device value.
    if let Some(&i) = plan
        .merges()
        .iter()
        .find(|&&i| resident.get(i).copied().flatten().is_some())
    {
        let name = declared(i).map_or(String::new(), |n| format!(" {n}"));
        return Err(format!(
            "map entry {i}{name} is written by a grid kernel's teams but lives on the devices (data of an enclosing target data): the blocks' copies are merged on the host"
        ));
    }
    let others: Vec<Entry> = entries
        .iter()
        .zip(resident)
        .filter(|(_, r)| r.is_none())
        .map(|(e, _)| *e)
        .collect();
    if let Some(why) = present_anywhere(rt, &devices, &others) {
        return Err(why);
    }
    Ok((devices, plan, left_out))
}

/// The reason a launch too small to spread stays on its device (`unit`: what its blocks cut,
/// iterations or a grid kernel's teams).
fn too_small(tripcount: u64, weight: u64, min: u64, unit: &str) -> String {
    let each = if weight > 1 {
        format!(" of {weight} elements each")
    } else {
        String::new()
    };
    format!("{tripcount} {unit}{each}, fewer than two blocks of SPREAD_AUTO_MIN={min}")
}

/// A data construct under `SPREAD_AUTO`: arrays a construct without a `device` clause keeps
/// resident become [`resident`] objects; `None` when automatic spreading is off or the
/// construct is not one for them (the caller runs it as usual).
pub fn data(
    rt: &Runtime,
    kind: resident::DataKind,
    device: i64,
    args: &MapArgs,
) -> Option<Result<()>> {
    rt.config.auto.as_ref()?;
    // Under unified shared memory every device reaches the host's copy: nothing to distribute.
    if rt.usm() {
        return None;
    }
    resident::data(rt, kind, device, args)
}

/// The devices to spread over: `SPREAD_AUTO`'s list or every device, less those without the
/// kernel or its window (each with the reason); at least two.
fn devices_for(
    rt: &Runtime,
    wanted: &[i32],
    region: usize,
) -> std::result::Result<(Vec<i32>, Vec<String>), String> {
    let listed: Vec<i32> = if wanted.is_empty() {
        (0..rt.num_devices() as i32).collect()
    } else {
        wanted.to_vec()
    };
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for d in listed {
        let Ok(slot) = rt.device(i64::from(d)) else {
            skipped.push(format!("device {d} does not exist"));
            continue;
        };
        match window_of(rt, slot, region) {
            Ok(_) => out.push(d),
            Err(why) => skipped.push(why),
        }
    }
    if out.len() < 2 {
        let mut why = format!("{} device(s) can run its blocks", out.len());
        if !skipped.is_empty() {
            why.push_str(&format!(" ({})", skipped.join("; ")));
        }
        return Err(why);
    }
    Ok((out, skipped))
}

/// The device address of the kernel's window on `slot` (looked up once per device and kernel),
/// or why the device cannot run its blocks.
fn window_of(rt: &Runtime, slot: &DeviceSlot, region: usize) -> std::result::Result<usize, String> {
    type Windows = Mutex<HashMap<(usize, usize), std::result::Result<usize, String>>>;
    static W: OnceLock<Windows> = OnceLock::new();
    let w = W.get_or_init(Default::default);
    if let Some(r) = w.lock().get(&(slot.id, region)) {
        return r.clone();
    }
    let d = slot.id;
    let r = if !slot.has_kernel(rt, region) {
        Err(format!("device {d} has no image with the kernel"))
    } else {
        let name = rt.kernel_name(region).unwrap_or_else(|| Arc::from("?"));
        match slot.image_global(rt, &format!("{WINDOW_PREFIX}{name}")) {
            Ok(Some(addr)) => Ok(addr),
            Ok(None) => Err(format!("device {d}'s image has no window for the kernel")),
            Err(e) => Err(format!("device {d}: {e}")),
        }
    };
    w.lock().insert((d, region), r.clone());
    r
}

/// Why the launch's data cannot be cut: a section already mapped on one of `devices` (by
/// `target data` or `enter data`: its current copy may be there, not on the host).
fn present_anywhere(rt: &Runtime, devices: &[i32], entries: &[Entry]) -> Option<String> {
    for &d in devices {
        let slot = rt.device(i64::from(d)).ok()?;
        let table = slot.table.lock();
        for (i, e) in entries.iter().enumerate() {
            if e.types & 0x100 != 0 || e.size <= 0 {
                continue;
            }
            if table.lookup(e.begin, e.size as usize).entry.is_some() {
                return Some(format!(
                    "map entry {i} is already present on device {d} (target data / enter data keeps it there)"
                ));
            }
        }
    }
    None
}

/// Sets `slot`'s window of the kernel (`[lo, hi)`, and a grid kernel's league) and waits for
/// the copy.
fn set_window(slot: &DeviceSlot, addr: usize, window: &[i64]) -> Result<()> {
    let bytes: Vec<u8> = window.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut st = slot.stream()?;
    slot.dev
        .copy_to_device(addr, bytes.as_ptr() as usize, bytes.len(), &mut st)?;
    slot.dev.synchronize(&mut st)
}

/// The launch as the program wrote it, on `slot`, with the full window (never changed by a
/// block while the lock is free).
fn run_whole(
    rt: &Runtime,
    slot: &DeviceSlot,
    region: usize,
    args: &mut MapArgs,
    cfg: &LaunchConfig,
    resident: &[Option<(usize, usize)>],
) -> Result<()> {
    let lock = window_lock(slot.id, region);
    let _held = lock.lock();
    // A kernel without a descriptor may write any of it (a present entry's map type does not
    // say).
    let sections: Vec<(usize, usize, bool)> = resident
        .iter()
        .flatten()
        .map(|&(lo, hi)| (lo, hi, true))
        .collect();
    with_resident(rt, slot, &sections, || slot.launch(rt, region, args, cfg)).map(|_| ())
}

/// Runs `launch` with the resident `sections` (`[lo, hi)`, written or not) current on `slot`
/// before, and the written ones current only there after. Returns the bytes brought from other
/// devices.
fn with_resident(
    rt: &Runtime,
    slot: &DeviceSlot,
    sections: &[(usize, usize, bool)],
    launch: impl FnOnce() -> Result<()>,
) -> Result<usize> {
    let mut peer = 0;
    for &(lo, hi, _) in sections {
        peer += resident::fetch(rt, slot, lo, hi)?;
    }
    launch()?;
    for &(lo, hi, writes) in sections {
        if writes {
            resident::wrote(slot.id, lo, hi);
        }
    }
    Ok(peer)
}

/// One block: window `[lo, hi)` (of iterations, or of a grid kernel's league of `league` teams),
/// the block's sections, the kernel, the full window again. Returns the resident bytes brought
/// from other devices.
#[allow(clippy::too_many_arguments)]
fn run_block(
    rt: &Runtime,
    slot: &DeviceSlot,
    region: usize,
    mut args: MapArgs,
    cfg: &LaunchConfig,
    (lo, hi): (u64, u64),
    league: Option<u64>,
    resident: &[(usize, usize, bool)],
) -> Result<usize> {
    let addr = window_of(rt, slot, region).map_err(|why| Error::new(ErrorKind::Image, why))?;
    let lock = window_lock(slot.id, region);
    let _held = lock.lock();
    let mut cfg = *cfg;
    let full: &[i64] = match league {
        Some(n) => {
            set_window(slot, addr, &[lo as i64, hi as i64, n as i64])?;
            cfg.num_teams[0] = u32::try_from(hi - lo).unwrap_or(u32::MAX);
            &grid::FULL
        }
        None => {
            set_window(slot, addr, &[lo as i64, hi as i64])?;
            cfg.tripcount = hi - lo;
            &FULL
        }
    };
    let r = with_resident(rt, slot, resident, || {
        slot.launch(rt, region, &mut args, &cfg)
    });
    let reset = set_window(slot, addr, full);
    r.and_then(|bytes| reset.map(|()| bytes))
}

/// Deals the launch's blocks over `devices` and waits for them. `kernel` names the kernel in
/// messages; with `show_blocks` (its decision was just reported) each block is printed too.
#[allow(clippy::too_many_arguments)]
fn spread(
    rt: &'static Runtime,
    construct: Construct,
    devices: &[i32],
    region: usize,
    args: &MapArgs,
    cfg: &LaunchConfig,
    plan: Plan,
    resident: Vec<Option<(usize, usize)>>,
    (kernel, show_blocks): (&dyn Fn() -> String, bool),
) -> Result<()> {
    let tripcount = plan.tripcount();
    let league = plan.grid().then_some(tripcount);
    let mut copies = plan.grid().then(|| grid::Copies::new(&plan));
    let plan = Arc::new(plan);
    let what = format!("{} at {}", construct.name(), construct.at());
    let mut reductions = plan
        .reductions()
        .into_iter()
        .map(|r| {
            let var =
                reduction::Var::elements(&what, (r.op, r.ty), r.original, r.size, devices.len())?;
            Ok((r.entry, var))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut reg = Region::begin(rt, construct, 0, tripcount as i64, devices.to_vec(), 0)?;
    let mut blocks = 0;
    // Resident bytes the blocks use, and those brought to them from other devices.
    let mut used = 0usize;
    let peer = Arc::new(AtomicUsize::new(0));
    while reg.advance() {
        let chunk = reg.current();
        if chunk.hi <= chunk.lo {
            continue;
        }
        let (lo, hi) = (chunk.lo as u64, chunk.hi as u64);
        let slot = rt.device(i64::from(chunk.device))?;
        let mut block = args.clone();
        let mut sections = Vec::new();
        for (i, s) in plan.block(lo, hi).into_iter().enumerate() {
            block.begins[i] = s.begin;
            block.sizes[i] = s.size;
            block.types[i] = s.types;
            if resident[i].is_some() {
                sections.push((s.begin, s.begin + s.size as usize, s.writes));
                used += s.size as usize;
            }
        }
        // Each block reduces into a partial of its own, starting from the identity.
        for (i, var) in &mut reductions {
            let p = var.partial(blocks) as usize;
            block.bases[*i] = p;
            block.begins[*i] = p;
        }
        // A grid kernel's block writes into copies of its own, at the same offsets from the
        // pointer the kernel receives.
        for (i, at) in copies.as_mut().map(grid::Copies::block).unwrap_or_default() {
            block.bases[i] = at.wrapping_add(args.bases[i].wrapping_sub(args.begins[i]));
            block.begins[i] = at;
        }
        blocks += 1;
        if show_blocks {
            eprintln!(
                "spread: auto: block [{lo},{hi}) -> device {}:{}",
                chunk.device,
                plan.describe_block(lo, hi)
            );
        }
        let cfg = *cfg;
        let peer = peer.clone();
        reg.submit(slot, move || {
            let bytes = run_block(rt, slot, region, block, &cfg, (lo, hi), league, &sections)?;
            peer.fetch_add(bytes, Ordering::Relaxed);
            Ok(())
        });
    }
    reg.end()?;
    let moved = peer.load(Ordering::Relaxed);
    let mut churn = churn().lock();
    let record = churn.entry(region).or_default();
    if record.record(moved as u64, used as u64) && rt.config.info_auto {
        if let Some(why) = record.reason() {
            eprintln!("spread: auto: {}: {why}", kernel());
        }
    }
    drop(churn);
    for (_, var) in &reductions {
        // The program's variable, mapped by the launch: alive for its whole call.
        var.fold_into_original();
    }
    if let Some(copies) = copies {
        copies.merge();
    }
    Ok(())
}
