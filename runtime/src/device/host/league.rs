//! `teams num_teams(N)` on a host device: a league of exactly N teams, however few cores.
//!
//! libomp forms at most `KMP_TEAMS_THREAD_LIMIT` teams (the number of cores) and says so with a
//! warning; `omp_get_num_teams()` then reports the smaller number and programs that give each
//! team a block of data leave the other blocks untouched. A host device instead runs a league
//! larger than the cores it may use as one libomp league of `P` teams (the teams that may run at
//! once) whose initial threads take the N logical teams in turn: each runs the `teams` region
//! once per logical team it takes, and the region's threads see the logical team through
//! `omp_get_team_num()`, `omp_get_num_teams()`, `distribute` (divided as over N teams,
//! [`crate::sched::league`]) and the teams reduction (a combine under a lock per logical team).
//! Teams of a league cannot synchronise with one another, so this is conforming.
//!
//! The image's code reaches this module because its imports of those libomp entry points are
//! renamed to Spread's stand-ins when the device loads it ([`prepare`]); code outside device
//! images, and images that call a league-dependent entry point Spread does not stand in for,
//! keep libomp's behaviour. The state is per thread: the logical team is set on the initial
//! thread that runs it and carried into the team's `parallel` regions, so host devices running
//! leagues at the same time do not see one another's.

use crate::image::imports;
use crate::sched::league as plan;
use crate::sys::{call, kmp};
use parking_lot::{Condvar, Mutex};
use std::borrow::Cow;
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// The libomp entry points an image's leagues go through, and the names of Spread's stand-ins
/// (`capi`), no longer than the originals so that the image's string table keeps its layout.
pub const RENAMES: &[(&str, &str)] = &[
    ("__kmpc_fork_teams", "__spread_lg_teams"),
    ("__kmpc_fork_call", "__spread_lg_fork"),
    ("__kmpc_push_num_teams", "__spread_lg_push"),
    ("__kmpc_push_num_teams_51", "__spread_lg_push_51"),
    ("__kmpc_for_static_init_4", "__spread_lg_static_4"),
    ("__kmpc_for_static_init_4u", "__spread_lg_static_4u"),
    ("__kmpc_for_static_init_8", "__spread_lg_static_8"),
    ("__kmpc_for_static_init_8u", "__spread_lg_static_8u"),
    ("__kmpc_reduce_nowait", "__spread_lg_red_nw"),
    ("__kmpc_reduce", "__spread_lg_r"),
    ("__kmpc_end_reduce_nowait", "__spread_lg_end_red_nw"),
    ("__kmpc_end_reduce", "__spread_lg_end_r"),
    ("omp_get_team_num", "__spread_lg_team"),
    ("omp_get_num_teams", "__spread_lg_nteam"),
];

/// League-dependent libomp entry points (by name prefix) that Spread does not stand in for; clang
/// 19 does not emit them for host images, other compilers may. An image importing one keeps
/// libomp's leagues, since its loops would be divided over the teams libomp formed.
const NOT_STOOD_IN_FOR: &[&str] = &[
    "__kmpc_dist_for_static_init_",
    "__kmpc_dist_dispatch_init_",
    "__kmpc_team_static_init_",
    "__kmpc_fork_call_if",
];

/// The image bytes a host device loads: with the league entry points renamed when the image
/// forms leagues (imports `__kmpc_fork_teams`) and calls nothing league-dependent that Spread
/// leaves to libomp; otherwise the bytes as they are.
pub fn prepare(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !cfg!(target_arch = "x86_64") {
        return Cow::Borrowed(bytes); // the stand-ins' argument capture is x86_64 code
    }
    let names = imports::imported(bytes);
    let forms_leagues = names.iter().any(|n| n == "__kmpc_fork_teams");
    let unhandled = names
        .iter()
        .any(|n| NOT_STOOD_IN_FOR.iter().any(|p| n.starts_with(p)));
    if !forms_leagues || unhandled {
        return Cow::Borrowed(bytes);
    }
    match imports::rename_imports(bytes, RENAMES) {
        Ok(renamed) => Cow::Owned(renamed),
        Err(_) => Cow::Borrowed(bytes), // libomp's leagues, as before
    }
}

/// The logical team a thread works for.
#[derive(Debug, Clone, Copy)]
struct Team {
    /// Its number in the league.
    num: i32,
    /// Teams in the whole league.
    total: i32,
}

/// The shape a `num_teams`/`thread_limit` clause pushed for the thread's next `teams` region.
#[derive(Debug, Clone, Copy)]
struct Shape {
    lower: i32,
    upper: i32,
    threads: i32,
}

thread_local! {
    /// The logical team the calling thread works for (`None`: outside a league Spread runs).
    static TEAM: Cell<Option<Team>> = const { Cell::new(None) };
    /// The shape pushed for the next `teams` region.
    static PENDING: Cell<Option<Shape>> = const { Cell::new(None) };
    /// Teams the running kernel may run at once (`None`: libomp's teams limit).
    static AT_ONCE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// libomp's limit on the threads of all teams of a league, `KMP_TEAMS_THREAD_LIMIT` (libomp's
/// own variable, read as libomp reads it), by default the processors libomp may use.
fn teams_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("KMP_TEAMS_THREAD_LIMIT")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| usize::try_from(kmp::num_procs()).unwrap_or(1))
    })
}

/// Runs a kernel with `share` threads for its teams (the device's share of the cores while
/// other host devices compute; `None` when it has the machine), which caps the teams formed at
/// once.
pub fn with_share<R>(share: Option<usize>, kernel: impl FnOnce() -> R) -> R {
    let previous = AT_ONCE.replace(share);
    let r = kernel();
    AT_ONCE.set(previous);
    r
}

/// Teams formed at once at most: the device's share, within libomp's limit.
fn at_once() -> usize {
    let limit = teams_limit();
    AT_ONCE.get().map_or(limit, |share| share.min(limit)).max(1)
}

/// `__kmpc_push_num_teams`: remembers `num_teams(teams) thread_limit(threads)` for the next
/// `teams` region (0: clause absent).
pub fn push_num_teams(teams: i32, threads: i32) {
    PENDING.set(Some(Shape {
        lower: teams,
        upper: teams,
        threads,
    }));
}

/// `__kmpc_push_num_teams_51`: remembers `num_teams(lower:upper) thread_limit(threads)`.
pub fn push_num_teams_51(lower: i32, upper: i32, threads: i32) {
    PENDING.set(Some(Shape {
        lower,
        upper,
        threads,
    }));
}

/// Runs the outlined function `micro` on one thread with the captured `args`, for `team`.
fn run_in(team: Option<Team>, micro: usize, gtid: usize, btid: usize, args: &[usize]) {
    let previous = TEAM.replace(team);
    // The argument count was checked before the region was forked.
    call::call_microtask(micro, gtid, btid, args);
    TEAM.set(previous);
}

/// Why a region cannot be forked.
fn check(args: &[usize], construct: &str) -> Result<(), String> {
    if args.len() + 2 > call::MAX_KERNEL_PARAMS {
        return Err(format!(
            "a {construct} region of a host-device kernel captures {} variables; at most {} are supported",
            args.len(),
            call::MAX_KERNEL_PARAMS - 2
        ));
    }
    Ok(())
}

/// `__kmpc_fork_teams(loc, argc, micro, args...)`: runs the `teams` region `micro` with the
/// shape pushed before it. A league larger than the teams that may run at once is one libomp
/// league of that many teams whose initial threads take the logical teams one after another
/// (the next free number, so that uneven teams balance), each running `micro` once per team.
pub fn fork_teams(loc: usize, micro: usize, args: &[usize]) -> Result<(), String> {
    check(args, "teams")?;
    let gtid = kmp::global_thread_num();
    let Some(shape) = PENDING.take() else {
        // No clause: libomp's default league, as written.
        return forked(kmp::fork_teams(loc, &|g, b| {
            run_in(None, micro, g, b, args)
        }));
    };
    let at_once = at_once();
    let total = plan::teams_for_bounds(shape.lower, shape.upper, at_once);
    let physical = plan::teams_at_once(total, at_once);
    if total <= physical {
        kmp::push_num_teams(loc, gtid, total, shape.threads);
        return forked(kmp::fork_teams(loc, &|g, b| {
            run_in(None, micro, g, b, args)
        }));
    }
    // Threads per team as libomp would cap them, asked for directly so that it does not warn
    // that it cannot form the team.
    let per_team = i32::try_from(teams_limit() / usize::try_from(physical).unwrap_or(1))
        .unwrap_or(i32::MAX)
        .max(1);
    let threads = if shape.threads > 0 {
        shape.threads.min(per_team)
    } else {
        0
    };
    kmp::push_num_teams(loc, gtid, physical, threads);
    let next = AtomicI32::new(0);
    forked(kmp::fork_teams(loc, &|g, b| loop {
        let num = next.fetch_add(1, Ordering::Relaxed);
        if num >= total {
            break;
        }
        run_in(Some(Team { num, total }), micro, g, b, args);
    }))
}

/// `__kmpc_fork_call(loc, argc, micro, args...)`: runs the `parallel` region `micro`, its
/// threads working for the forking thread's team.
pub fn fork_call(loc: usize, micro: usize, args: &[usize]) -> Result<(), String> {
    check(args, "parallel")?;
    let team = TEAM.get();
    forked(kmp::fork_call(loc, &|g, b| run_in(team, micro, g, b, args)))
}

fn forked(done: bool) -> Result<(), String> {
    if done {
        Ok(())
    } else {
        Err("libomp's fork entry points are not in the process".to_string())
    }
}

/// `omp_get_team_num()` as the calling thread's league defines it.
pub fn team_num() -> i32 {
    TEAM.get().map_or_else(kmp::team_num, |t| t.num)
}

/// `omp_get_num_teams()` as the calling thread's league defines it.
pub fn num_teams() -> i32 {
    TEAM.get().map_or_else(kmp::num_teams, |t| t.total)
}

/// For a `__kmpc_for_static_init_*` call with schedule `sched`: the calling team's logical
/// number and the league's size when the loop is a `distribute` of a league Spread runs (the
/// caller divides it with [`plan::distribute`]); `None` when libomp divides it.
pub fn distribute_team(sched: i32) -> Option<(i32, i32)> {
    let team = TEAM.get()?;
    plan::is_distribute(sched).then_some((team.num, team.total))
}

/// Held by the team combining its `reduction` variables into the originals.
static REDUCING: Mutex<bool> = Mutex::new(false);
static REDUCED: Condvar = Condvar::new();

/// Whether a `__kmpc_reduce(_nowait)` call is a `teams` construct's reduction in a league Spread
/// runs: its initial threads run several logical teams each, so libomp's reduction across the
/// league's teams (a barrier among them, with more than four) would not see each team once.
/// Such a call is a lock-protected combine instead (libomp's `critical` method): it waits for
/// the lock and returns true, and the caller combines and calls [`end_team_reduction`]. A
/// reduction of a `parallel` region inside a team (level 1 or more) is libomp's.
pub fn begin_team_reduction() -> bool {
    if TEAM.get().is_none() || kmp::level() > 0 {
        return false;
    }
    let mut busy = REDUCING.lock();
    while *busy {
        REDUCED.wait(&mut busy);
    }
    *busy = true;
    true
}

/// Ends a combine [`begin_team_reduction`] began; false when the call is libomp's.
pub fn end_team_reduction() -> bool {
    if TEAM.get().is_none() || kmp::level() > 0 {
        return false;
    }
    *REDUCING.lock() = false;
    REDUCED.notify_one();
    true
}
