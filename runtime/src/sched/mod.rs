//! The scheduling core: the work units of one execution of a construct (the chunks of a
//! `target spread`, the tasks of a compute-unit region) handed to resources (devices, compute
//! units) by a policy, with the time each unit took fed back (docs/schedules.md).
//!
//! Two ways to consume a [`Scheduler`]: *push* ([`Scheduler::pick`]), where one thread deals units
//! and the scheduler chooses the resource (a spread region's chunk loop: the chunk's device is
//! chosen when the chunk is dealt, not when the region begins), and *pull*
//! ([`Scheduler::next_for`]), where each resource's own thread asks for its next unit (compute
//! units). Units are produced on demand: a 2^40-iteration loop with chunk 1 builds no list.
//!
//! Policies: `static` (seed 000's round-robin chunks, or one even block per resource), `dynamic`
//! (the next unit goes to a resource with room; in push mode, fewer than [`MAX_IN_FLIGHT`] units
//! in flight), and the model-based `adaptive` and `static_opt` (seed 004's STATIC-opt): contiguous
//! blocks sized from per-resource rates learnt on completed units ([`model`]), so that all
//! resources finish together and neighbouring units stay on one resource. Without rates yet, the
//! execution measures them under `dynamic`.

pub mod league;
pub mod model;
pub mod sharing;
mod split;
mod static_rule;

pub use static_rule::{Chunk, Schedule};

use model::{Learn, Model, Observation};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Units a resource may have in flight under push-mode `dynamic` before the next unit goes to
/// another one: two, so that a device has its next unit queued while it runs one.
pub const MAX_IN_FLIGHT: usize = 2;

/// A scheduling policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Fixed before the execution: chunks round-robin, or one even block per resource.
    Static,
    /// Each unit to a resource with room when it is dealt.
    Dynamic,
    /// Blocks sized from rates learnt on every execution.
    Adaptive,
    /// Blocks sized from a profile, or from the rates of the first execution, then fixed.
    StaticOpt,
}

impl Kind {
    /// The kind of spread.h's `__SPREAD_SCHED_*` code; `Ok(None)` for the default (0).
    pub fn from_code(code: i32) -> Result<Option<Kind>, i32> {
        match code {
            0 => Ok(None),
            1 => Ok(Some(Kind::Static)),
            2 => Ok(Some(Kind::Dynamic)),
            3 => Ok(Some(Kind::Adaptive)),
            4 => Ok(Some(Kind::StaticOpt)),
            other => Err(other),
        }
    }

    /// The kind as the clauses spell it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Static => "static",
            Kind::Dynamic => "dynamic",
            Kind::Adaptive => "adaptive",
            Kind::StaticOpt => "static_opt",
        }
    }
}

/// A schedule as a clause or `SPREAD_SCHEDULE` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The policy.
    pub kind: Kind,
    /// The chunk size; 0: the policy's default.
    pub chunk: i64,
}

impl Spec {
    /// The schedule of a construct: its clause (spread.h's `code`), else `default`
    /// (`SPREAD_SCHEDULE`), else `static`; a `chunk` argument above 0 wins over the default's.
    /// `Err` carries a code this runtime does not know.
    pub fn resolve(code: i32, chunk: i64, default: Option<Spec>) -> Result<Spec, i32> {
        Ok(match (Kind::from_code(code)?, default) {
            (Some(kind), _) => Spec { kind, chunk },
            (None, Some(d)) => Spec {
                kind: d.kind,
                chunk: if chunk > 0 { chunk } else { d.chunk },
            },
            (None, None) => Spec {
                kind: Kind::Static,
                chunk,
            },
        })
    }

    /// Parses `KIND[,CHUNK]` (`SPREAD_SCHEDULE`); `None` when malformed.
    pub fn parse(v: &str) -> Option<Spec> {
        let (k, c) = match v.split_once(',') {
            Some((k, c)) => (k.trim(), Some(c.trim())),
            None => (v.trim(), None),
        };
        let kind = match k {
            "static" => Kind::Static,
            "dynamic" => Kind::Dynamic,
            "adaptive" => Kind::Adaptive,
            "static_opt" => Kind::StaticOpt,
            _ => return None,
        };
        let chunk = match c {
            None => 0,
            Some(c) => c.parse::<i64>().ok().filter(|&c| c > 0)?,
        };
        Some(Spec { kind, chunk })
    }
}

/// How a scheduler's units are consumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One thread deals units and the scheduler picks the resource ([`Scheduler::pick`]);
    /// `observed`: whether unit completions are reported (a `nowait` spread region's chunks run
    /// in tasks the scheduler never hears of, so `dynamic` cannot wait for room there).
    Push {
        /// Completions are reported through [`Scheduler::complete`].
        observed: bool,
    },
    /// Each resource asks for its own units ([`Scheduler::next_for`]).
    Pull,
}

/// An execution resource as the scheduler sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Its key in the model (`device 1`, `host`, `cpu 4`, `gpu 1`): resources with one key are
    /// assumed equally fast.
    pub key: String,
    /// Its units run on the dealing thread itself (the host in a spread device list): in push
    /// mode such a resource takes a `dynamic` unit only when no other one has room.
    pub inline: bool,
}

/// A unit of work: iterations `[lo, hi)` for resource number `resource`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// First iteration.
    pub lo: i64,
    /// One past the last iteration.
    pub hi: i64,
    /// Index of the resource in the scheduler's list.
    pub resource: usize,
}

/// What one resource did in an execution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Units completed.
    pub units: u64,
    /// Iterations completed.
    pub iterations: u64,
    /// Time spent on them.
    pub busy: Duration,
}

struct ResState {
    res: Resource,
    in_flight: AtomicUsize,
    units: AtomicU64,
    iterations: AtomicU64,
    busy_ns: AtomicU64,
    /// When its last unit completed (push mode: a unit queued behind another starts then).
    last_done: Mutex<Option<Instant>>,
}

enum Deal {
    /// Seed 000's rule in dealing order (push).
    Static(Schedule),
    /// Chunk `k` of the range to resource `k % n`, each resource counting its own (pull).
    RoundRobin { chunk: i64, next: Vec<u128> },
    /// Resource `r` owns `[bounds[r], bounds[r + 1])`, cut into pieces of `chunk` (0: whole).
    Blocks {
        bounds: Vec<i64>,
        chunk: i64,
        cursor: Vec<i64>,
    },
    /// One shared cursor.
    Dynamic { chunk: i64, cursor: i64 },
}

impl Deal {
    /// Blocks `[bounds[r], bounds[r + 1])`, each resource starting at its block's first unit.
    fn blocks(bounds: Vec<i64>, chunk: i64) -> Deal {
        let cursor = bounds[..bounds.len().saturating_sub(1)].to_vec();
        Deal::Blocks {
            bounds,
            chunk,
            cursor,
        }
    }
}

/// One execution of a construct under one policy.
pub struct Scheduler {
    lb: i64,
    ub: i64,
    res: Vec<ResState>,
    deal: Mutex<Deal>,
    wake: Condvar,
    /// Whether a push-mode `pick` may wait for room (completions are reported).
    wait_for_room: bool,
    /// The construct's model key and how this execution teaches the model.
    learn: Option<(String, Learn)>,
    /// The policy this execution deals by (an `adaptive` one without rates measures under
    /// `dynamic`).
    effective: Kind,
}

/// Number of iterations of `[lb, ub)` (0 when empty).
fn length(lb: i64, ub: i64) -> u128 {
    if ub > lb {
        u128::from(ub.abs_diff(lb))
    } else {
        0
    }
}

/// `lb + k` clamped to `ub` (`k` may exceed the range).
fn offset(lb: i64, k: u128, ub: i64) -> i64 {
    let v = i128::from(lb).saturating_add(i128::try_from(k).unwrap_or(i128::MAX));
    v.min(i128::from(ub)) as i64
}

impl Scheduler {
    /// A scheduler for `[lb, ub)` over `resources` (at least one) by `spec`; `construct` keys
    /// the model (`file:line`). `default_chunk` is `dynamic`'s chunk when `spec` gives none.
    pub fn new(
        model: &Model,
        construct: &str,
        spec: Spec,
        (lb, ub): (i64, i64),
        resources: Vec<Resource>,
        mode: Mode,
        default_chunk: i64,
    ) -> Scheduler {
        let n = resources.len().max(1);
        let total = length(lb, ub);
        let observed = !matches!(mode, Mode::Push { observed: false });
        let even_blocks =
            |chunk: i64| Deal::blocks(bounds_of(lb, ub, &even_split(total, n)), chunk);
        let static_deal = |chunk: i64| match mode {
            Mode::Push { .. } => Deal::Static(Schedule::new(
                lb,
                ub,
                (0..n as i32).collect::<Vec<_>>(),
                chunk,
            )),
            Mode::Pull if chunk > 0 => Deal::RoundRobin {
                chunk,
                next: vec![0; n],
            },
            Mode::Pull => even_blocks(0),
        };
        let dynamic_chunk = if spec.chunk > 0 {
            spec.chunk
        } else {
            default_chunk.max(1)
        };
        let (deal, effective, learn) = match spec.kind {
            Kind::Static => (static_deal(spec.chunk), Kind::Static, None),
            Kind::Dynamic if observed => (
                Deal::Dynamic {
                    chunk: dynamic_chunk,
                    cursor: lb,
                },
                Kind::Dynamic,
                None,
            ),
            // No completions to wait for: the chunks are dealt round-robin.
            Kind::Dynamic => (static_deal(dynamic_chunk), Kind::Static, None),
            Kind::Adaptive | Kind::StaticOpt => {
                let keys: Vec<String> = resources.iter().map(|r| r.key.clone()).collect();
                let how = if spec.kind == Kind::Adaptive {
                    Learn::Always
                } else {
                    Learn::Once
                };
                match model.rates(construct, &keys) {
                    Some(rates) => {
                        // Units of `chunk` iterations (one when none is given).
                        let unit = u128::try_from(spec.chunk.max(1)).unwrap_or(1);
                        let units = total.div_ceil(unit);
                        let previous = model.last_split(construct, &keys);
                        let counts = match (spec.kind, previous) {
                            (Kind::StaticOpt, Some(p)) if p.iter().sum::<u128>() == units => p,
                            (_, p) => {
                                let best = split::split(units, &rates);
                                split::keep_if_close(p.as_deref(), best, units, &rates)
                            }
                        };
                        model.set_split(construct, &keys, &counts);
                        let iters: Vec<u128> =
                            counts.iter().map(|c| c.saturating_mul(unit)).collect();
                        (
                            Deal::blocks(bounds_of(lb, ub, &iters), spec.chunk),
                            spec.kind,
                            Some((construct.to_string(), how)),
                        )
                    }
                    None if observed => {
                        // Measure under dynamic: about 16 units per resource.
                        let chunk = if spec.chunk > 0 {
                            spec.chunk
                        } else {
                            i64::try_from(total / (16 * n as u128))
                                .unwrap_or(i64::MAX)
                                .max(1)
                        };
                        (
                            Deal::Dynamic { chunk, cursor: lb },
                            Kind::Dynamic,
                            Some((construct.to_string(), how)),
                        )
                    }
                    None => (even_blocks(spec.chunk), Kind::Static, None),
                }
            }
        };
        let dynamic = matches!(deal, Deal::Dynamic { .. });
        Scheduler {
            lb,
            ub,
            res: resources
                .into_iter()
                .map(|res| ResState {
                    res,
                    in_flight: AtomicUsize::new(0),
                    units: AtomicU64::new(0),
                    iterations: AtomicU64::new(0),
                    busy_ns: AtomicU64::new(0),
                    last_done: Mutex::new(None),
                })
                .collect(),
            deal: Mutex::new(deal),
            wake: Condvar::new(),
            // Only a dynamic deal waits for room: a static or block deal is fixed, and its
            // completions are worth hearing only to a policy that learns.
            wait_for_room: matches!(mode, Mode::Push { observed: true }) && dynamic,
            learn,
            effective,
        }
    }

    /// The policy this execution deals by: the requested one, except that `adaptive` and
    /// `static_opt` measure under `dynamic` until they have rates, and `dynamic` deals
    /// round-robin when completions are not observed.
    pub fn effective(&self) -> Kind {
        self.effective
    }

    /// Whether the execution needs to hear of completed units (it waits for room or learns).
    pub fn needs_completions(&self) -> bool {
        self.wait_for_room || self.learn.is_some()
    }

    /// Whether what is dealt next depends on when units complete (dynamic waits for room,
    /// adaptive and profile-guided schedules learn rates); a static deal only counts them.
    pub fn deals_by_completions(&self) -> bool {
        self.learn.is_some() || self.effective != Kind::Static
    }

    /// Push mode: the next unit and the resource that takes it; `None` when all are dealt.
    /// Under `dynamic` this waits until some resource has room.
    pub fn pick(&self) -> Option<Unit> {
        let mut d = self.deal.lock();
        let unit = match &mut *d {
            Deal::Static(s) => s.next().map(|c| Unit {
                lo: c.lo,
                hi: c.hi,
                resource: c.device as usize,
            }),
            Deal::RoundRobin { .. } => None,
            Deal::Blocks {
                bounds,
                chunk,
                cursor,
            } => {
                // The resource furthest behind in its block goes next; on a tie, resources that
                // run on the dealing thread go last, so that the others have work meanwhile.
                let mut best: Option<(f64, bool, usize)> = None;
                for r in 0..self.res.len() {
                    let size = length(bounds[r], bounds[r + 1]);
                    if cursor[r] >= bounds[r + 1] || size == 0 {
                        continue;
                    }
                    let done = length(bounds[r], cursor[r]) as f64 / size as f64;
                    let cand = (done, self.res[r].res.inline, r);
                    if best.is_none_or(|b| (cand.0, cand.1) < (b.0, b.1)) {
                        best = Some(cand);
                    }
                }
                best.map(|(_, _, r)| take_block(bounds, *chunk, cursor, r))
            }
            Deal::Dynamic { .. } => loop {
                let Deal::Dynamic { chunk, cursor } = &mut *d else {
                    break None;
                };
                if *cursor >= self.ub {
                    break None;
                }
                if let Some(r) = self.room() {
                    let lo = *cursor;
                    let hi = lo.saturating_add(*chunk).min(self.ub);
                    *cursor = hi;
                    break Some(Unit {
                        lo,
                        hi,
                        resource: r,
                    });
                }
                // Woken by `complete`, which takes the deal lock before notifying.
                self.wake.wait_for(&mut d, Duration::from_millis(50));
            },
        };
        drop(d);
        if let Some(u) = unit {
            self.res[u.resource]
                .in_flight
                .fetch_add(1, Ordering::AcqRel);
        }
        unit
    }

    /// The resource a push-mode dynamic unit goes to now, if any has room.
    fn room(&self) -> Option<usize> {
        let free = |r: &ResState| r.in_flight.load(Ordering::Acquire) < MAX_IN_FLIGHT;
        let least = |inline: bool| {
            (0..self.res.len())
                .filter(|&r| self.res[r].res.inline == inline && free(&self.res[r]))
                .min_by_key(|&r| self.res[r].in_flight.load(Ordering::Acquire))
        };
        if !self.wait_for_room {
            return Some(0);
        }
        least(false).or_else(|| least(true))
    }

    /// Pull mode: resource `r`'s next unit; `None` when it gets no more.
    pub fn next_for(&self, r: usize) -> Option<Unit> {
        let n = self.res.len();
        if r >= n {
            return None;
        }
        let mut d = self.deal.lock();
        let unit = match &mut *d {
            Deal::Static(_) => None,
            Deal::RoundRobin { chunk, next } => {
                let k = next[r].saturating_mul(n as u128).saturating_add(r as u128);
                let start = k.saturating_mul(*chunk as u128);
                if start >= length(self.lb, self.ub) {
                    None
                } else {
                    next[r] += 1;
                    let lo = offset(self.lb, start, self.ub);
                    Some(Unit {
                        lo,
                        hi: lo.saturating_add(*chunk).min(self.ub),
                        resource: r,
                    })
                }
            }
            Deal::Blocks {
                bounds,
                chunk,
                cursor,
            } => (cursor[r] < bounds[r + 1]).then(|| take_block(bounds, *chunk, cursor, r)),
            Deal::Dynamic { chunk, cursor } => (*cursor < self.ub).then(|| {
                let lo = *cursor;
                let hi = lo.saturating_add(*chunk).min(self.ub);
                *cursor = hi;
                Unit {
                    lo,
                    hi,
                    resource: r,
                }
            }),
        };
        drop(d);
        if unit.is_some() {
            self.res[r].in_flight.fetch_add(1, Ordering::AcqRel);
        }
        unit
    }

    /// Unit `u` is done after `busy` of work on its resource.
    pub fn complete(&self, u: Unit, busy: Duration) {
        let s = &self.res[u.resource];
        s.units.fetch_add(1, Ordering::Relaxed);
        s.iterations
            .fetch_add(length(u.lo, u.hi) as u64, Ordering::Relaxed);
        s.busy_ns.fetch_add(
            u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        *s.last_done.lock() = Some(Instant::now());
        s.in_flight.fetch_sub(1, Ordering::AcqRel);
        if self.wait_for_room {
            // Under the deal lock, so that a `pick` between its check and its wait sees it.
            drop(self.deal.lock());
            self.wake.notify_all();
        }
    }

    /// Unit `u`, queued at `queued` behind its resource's earlier units, is done now: its time
    /// is counted from when the resource became free for it.
    pub fn complete_queued(&self, u: Unit, queued: Instant) {
        let now = Instant::now();
        let start = match *self.res[u.resource].last_done.lock() {
            Some(t) if t > queued => t,
            _ => queued,
        };
        self.complete(u, now.saturating_duration_since(start));
    }

    /// What each resource did so far, in list order.
    pub fn tallies(&self) -> Vec<Tally> {
        self.res
            .iter()
            .map(|s| Tally {
                units: s.units.load(Ordering::Relaxed),
                iterations: s.iterations.load(Ordering::Relaxed),
                busy: Duration::from_nanos(s.busy_ns.load(Ordering::Relaxed)),
            })
            .collect()
    }

    /// Ends the execution: teaches `model` the rates measured, if the policy learns.
    pub fn finish(&self, model: &Model) {
        let Some((construct, how)) = &self.learn else {
            return;
        };
        let obs: Vec<Observation> = self
            .res
            .iter()
            .zip(self.tallies())
            .map(|(s, t)| Observation {
                key: s.res.key.clone(),
                units: t.iterations,
                busy: t.busy,
            })
            .collect();
        model.learn(construct, &obs, *how);
    }
}

/// Resource `r`'s next piece of its block.
fn take_block(bounds: &[i64], chunk: i64, cursor: &mut [i64], r: usize) -> Unit {
    let lo = cursor[r];
    let end = bounds[r + 1];
    let hi = if chunk > 0 {
        lo.saturating_add(chunk).min(end)
    } else {
        end
    };
    cursor[r] = hi;
    Unit {
        lo,
        hi,
        resource: r,
    }
}

/// Iteration counts of an even division of `total` into `n`: the first `total % n` one more.
fn even_split(total: u128, n: usize) -> Vec<u128> {
    let n = n.max(1) as u128;
    (0..n)
        .map(|i| total / n + u128::from(i < total % n))
        .collect()
}

/// Block bounds from per-resource iteration counts (the last block ends at `ub`).
fn bounds_of(lb: i64, ub: i64, counts: &[u128]) -> Vec<i64> {
    // An empty range (`ub <= lb`) gives every resource the empty block at `lb`.
    let end = ub.max(lb);
    let mut b = Vec::with_capacity(counts.len() + 1);
    let mut at = 0u128;
    b.push(lb);
    for &c in counts {
        at = at.saturating_add(c);
        b.push(offset(lb, at, end));
    }
    if let Some(last) = b.last_mut() {
        *last = end;
    }
    b
}

#[cfg(test)]
mod tests;
