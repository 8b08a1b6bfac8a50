//! The scheduling core's front end for task sharing: where each `device(any)` instance runs —
//! token pools, in-flight slots, per-server queues and stealing (seed 002 §3.1, §3.3, §4.3;
//! docs/task-sharing.md "Scheduling"). Measured times per construct and server also feed the
//! core's [`Model`](super::model::Model) (and so `SPREAD_SCHED_PROFILE`), which seeds them.
//!
//! A *server* is a device or the host. An instance arrives with its candidates (the servers that
//! have a version for it, each with the tokens that version costs). If a candidate can take it now
//! (enough free tokens, or a free slot for a version that costs none, and nobody queued ahead
//! there), the policy picks one of those and the instance starts. Otherwise it is *assigned* to one
//! candidate's queue and waits; when a server frees capacity it first serves its own queue, and a
//! server whose queue is empty takes the oldest waiting instance of another queue that it can run
//! (the paper's stealing: GPUs took tasks first assigned to the host). Taking and returning tokens
//! happen under one lock, so a pool never goes below zero and concurrency can be counted exactly.
//!
//! Plain Rust: no FFI, no devices; the tests drive it with threads.

use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// Tokens of one pool (the paper's "over 100").
pub const POOL: u32 = 100;

/// What kind of server (also the order of preference on ties: accelerators first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The host's own cores (`omp_get_initial_device()`), no copies.
    Host,
    /// One of Spread's host devices (x86_64 image, memory of its own).
    Cpu,
    /// An NVIDIA GPU.
    Nvidia,
}

impl Kind {
    /// The name `if_device` and the trace use.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Host => "host",
            Kind::Cpu => "cpu",
            Kind::Nvidia => "nvidia",
        }
    }
}

/// How the token pools are shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pools {
    /// One pool of [`POOL`] tokens per server (default).
    PerServer,
    /// One pool for all servers (the literal reading of the paper's "total count").
    Global,
}

/// How a server is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The fastest expected finish: measured time per instance on each server (untried servers
    /// first), less the time the bytes already on a device save; default.
    Model,
    /// The paper's rule: most bytes already there, then the least used pool, accelerators first.
    Tokens,
    /// The first candidate that can take it (queues on the first candidate otherwise): for tests
    /// and to see stealing at work.
    First,
}

/// One server the dispatcher knows.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Its kind (aliases applied).
    pub kind: Kind,
    /// Instances that cost no tokens it runs at once.
    pub slots: u32,
    /// Instances it runs at once whatever their tokens (the host: its threads, since each
    /// instance has one at least).
    pub max_running: u32,
}

/// One candidate server of an instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Server index.
    pub server: usize,
    /// Index of the version that runs there.
    pub version: usize,
    /// Tokens it takes there (0..=100; 0: bounded by slots only).
    pub cost: u32,
    /// Estimated seconds saved by data already on the server (locality).
    pub saved: f64,
}

/// An instance's place: where it runs and how it got there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grant {
    /// Unique number of the instance.
    pub ticket: u64,
    /// The candidate it runs as.
    pub cand: Candidate,
    /// The server it was first assigned to, when it waited in a queue.
    pub assigned: Option<usize>,
    /// Taken from another server's queue.
    pub stolen: bool,
}

/// What an ending instance gives back ([`Dispatcher::release_with`]), and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Its tokens and slot, taken when it started; its time feeds the measured mean.
    Held(Duration),
    /// The tokens and slot it took over from the instances it followed; its time is not
    /// measured (it started when they ended, which is only known roughly).
    Followed(Duration),
    /// Nothing: it followed instances that have not all ended yet.
    Nothing(Duration),
}

/// Counters of one server.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Instances started.
    pub instances: u64,
    /// Of them, stolen from another server's queue.
    pub stolen: u64,
    /// Most tokens in use at once (of its own pool; of the global pool's share it held).
    pub max_tokens: u32,
    /// Most instances running at once.
    pub max_running: u32,
    /// Summed time of its instances.
    pub busy: Duration,
}

struct Server {
    spec: ServerSpec,
    used: u32,
    running: u32,
    queue: VecDeque<u64>,
    tally: Tally,
}

struct Waiter {
    site: usize,
    cands: Vec<Candidate>,
    assigned: usize,
    grant: Option<Grant>,
}

struct State {
    servers: Vec<Server>,
    global_used: u32,
    waiters: HashMap<u64, Waiter>,
    next: u64,
    /// Per (site, server): instances completed and their mean seconds (EMA).
    times: HashMap<(usize, usize), (u64, f64)>,
}

/// The dispatcher of all `device(any)` instances of the process.
pub struct Dispatcher {
    st: Mutex<State>,
    cv: Condvar,
    pools: Pools,
    policy: Policy,
    steal: bool,
}

/// Weight of the newest instance in a server's mean time.
const EMA: f64 = 0.3;

impl Dispatcher {
    /// A dispatcher over `servers`.
    pub fn new(servers: Vec<ServerSpec>, pools: Pools, policy: Policy, steal: bool) -> Self {
        Dispatcher {
            st: Mutex::new(State {
                servers: servers
                    .into_iter()
                    .map(|spec| Server {
                        spec,
                        used: 0,
                        running: 0,
                        queue: VecDeque::new(),
                        tally: Tally::default(),
                    })
                    .collect(),
                global_used: 0,
                waiters: HashMap::new(),
                next: 1,
                times: HashMap::new(),
            }),
            cv: Condvar::new(),
            pools,
            policy,
            steal,
        }
    }

    /// Places one instance of `site` (any number naming the construct) among `cands` (not
    /// empty), waiting until it can start. The caller runs it, then calls [`Dispatcher::release`].
    pub fn acquire(&self, site: usize, cands: Vec<Candidate>) -> Grant {
        self.acquire_with(site, cands, &|| false)
    }

    /// [`acquire`](Self::acquire), where the waiting thread may itself hold what it waits for:
    /// before each wait it calls `progress` (without the dispatcher's lock), which finishes one
    /// of the caller's instances still running (their release then frees tokens) and says
    /// whether there was one.
    pub fn acquire_with(
        &self,
        site: usize,
        cands: Vec<Candidate>,
        progress: &dyn Fn() -> bool,
    ) -> Grant {
        let mut st = self.st.lock();
        let ticket = st.next;
        st.next += 1;
        let free: Vec<Candidate> = cands
            .iter()
            .copied()
            .filter(|c| st.servers[c.server].queue.is_empty() && self.fits(&st, c))
            .collect();
        let mut sooner = None;
        if let Some(c) = self.choose(&st, site, &free) {
            sooner = self.sooner_when_busy(&st, site, &c, &cands);
            if sooner.is_none() {
                self.take(&mut st, &c, false);
                return Grant {
                    ticket,
                    cand: c,
                    assigned: None,
                    stolen: false,
                };
            }
        }
        let assigned = sooner.unwrap_or_else(|| self.assign(&st, site, &cands));
        st.servers[assigned].queue.push_back(ticket);
        st.waiters.insert(
            ticket,
            Waiter {
                site,
                cands,
                assigned,
                grant: None,
            },
        );
        loop {
            if let Some(g) = st.waiters.get_mut(&ticket).and_then(|w| w.grant.take()) {
                st.waiters.remove(&ticket);
                return g;
            }
            if parking_lot::MutexGuard::unlocked(&mut st, progress) {
                continue;
            }
            // The lock was let go: a grant made meanwhile has already notified.
            let granted = st.waiters.get(&ticket).is_some_and(|w| w.grant.is_some());
            if !granted {
                self.cv.wait(&mut st);
            }
        }
    }

    /// Places one instance of `site` as `cand` at once, taking nothing: it follows instances
    /// already running or queued on that server, whose work it waits for there and whose
    /// tokens and slot it takes over when the last of them ends ([`Dispatcher::release_with`]).
    /// Without this a thread that creates instances faster than they run (outside a parallel
    /// region) would wait for each instance's predecessors, and dependent chains would run one
    /// instance at a time.
    pub fn follow(&self, cand: Candidate) -> Grant {
        let mut st = self.st.lock();
        let ticket = st.next;
        st.next += 1;
        st.servers[cand.server].tally.instances += 1;
        Grant {
            ticket,
            cand,
            assigned: None,
            stolen: false,
        }
    }

    /// An instance placed by [`follow`](Self::follow) whose predecessors have all ended now
    /// holds its tokens and slot (over the pool if need be: it was placed already).
    pub fn charge_followed(&self, grant: &Grant) {
        let mut st = self.st.lock();
        self.charge(&mut st, &grant.cand);
    }

    /// The instance of `grant`, of `site`, ended after `took`: its tokens and slot come back and
    /// waiting instances that now fit start.
    pub fn release(&self, site: usize, grant: &Grant, took: Duration) {
        self.release_with(site, grant, Release::Held(took), &[]);
    }

    /// [`release`](Self::release) for any instance: what it held (`release` in [`Release`]),
    /// and the instances that followed it ([`follow`](Self::follow)) and now run, which take
    /// their tokens and slot before any waiting instance can (over the pool if need be: they
    /// were placed already).
    pub fn release_with(&self, site: usize, grant: &Grant, release: Release, hand_to: &[Grant]) {
        let mut st = self.st.lock();
        let c = grant.cand;
        let (held, took, learn) = match release {
            Release::Held(took) => (true, took, true),
            Release::Followed(took) => (true, took, false),
            Release::Nothing(took) => (false, took, false),
        };
        let s = &mut st.servers[c.server];
        s.tally.busy += took;
        if held {
            s.used -= c.cost.min(s.used);
            s.running = s.running.saturating_sub(1);
            if self.pools == Pools::Global {
                st.global_used -= c.cost.min(st.global_used);
            }
        }
        for g in hand_to {
            self.charge(&mut st, &g.cand);
        }
        if learn {
            Self::learn(&mut st, site, c.server, took);
        }
        self.dispatch(&mut st);
        drop(st);
        self.cv.notify_all();
    }

    /// Feeds one instance's time into the mean of `site` on `server`.
    fn learn(st: &mut State, site: usize, server: usize, took: Duration) {
        let t = st.times.entry((site, server)).or_insert((0, 0.0));
        let secs = took.as_secs_f64();
        // The second instance replaces the first: the first on a server pays what its first use
        // costs (loading the image there, first touches of fresh device memory).
        t.1 = if t.0 <= 1 {
            secs
        } else {
            EMA * secs + (1.0 - EMA) * t.1
        };
        t.0 += 1;
    }

    /// Instances holding tokens or a slot now, on every server.
    pub fn running(&self) -> usize {
        self.st
            .lock()
            .servers
            .iter()
            .map(|s| s.running as usize)
            .sum()
    }

    /// The counters of every server.
    pub fn tallies(&self) -> Vec<Tally> {
        self.st
            .lock()
            .servers
            .iter()
            .map(|s| s.tally.clone())
            .collect()
    }

    /// Zeroes the counters (not the tokens in use).
    pub fn reset_tallies(&self) {
        let mut st = self.st.lock();
        for s in &mut st.servers {
            s.tally = Tally {
                max_tokens: s.used,
                max_running: s.running,
                ..Tally::default()
            };
        }
    }

    /// Seeds the expected time of `site` on `server` (a profile), unless it was measured.
    pub fn seed(&self, site: usize, server: usize, secs: f64) {
        if secs.is_finite() && secs > 0.0 {
            self.st
                .lock()
                .times
                .entry((site, server))
                .or_insert((0, secs));
        }
    }

    /// Measured mean seconds per instance of `site` on `server`, when it ran one.
    #[cfg(test)]
    pub fn mean_time(&self, site: usize, server: usize) -> Option<f64> {
        self.st.lock().times.get(&(site, server)).map(|t| t.1)
    }

    fn free_tokens(&self, st: &State, server: usize) -> u32 {
        match self.pools {
            Pools::PerServer => POOL - st.servers[server].used.min(POOL),
            Pools::Global => POOL - st.global_used.min(POOL),
        }
    }

    fn fits(&self, st: &State, c: &Candidate) -> bool {
        if st.servers[c.server].running >= st.servers[c.server].spec.max_running.max(1) {
            return false;
        }
        if c.cost > 0 {
            self.free_tokens(st, c.server) >= c.cost
        } else {
            let s = &st.servers[c.server];
            s.running < s.spec.slots.max(1)
        }
    }

    fn take(&self, st: &mut State, c: &Candidate, stolen: bool) {
        self.charge(st, c);
        let s = &mut st.servers[c.server];
        s.tally.instances += 1;
        s.tally.stolen += u64::from(stolen);
    }

    /// Counts `c`'s tokens and slot as in use.
    fn charge(&self, st: &mut State, c: &Candidate) {
        if self.pools == Pools::Global {
            st.global_used += c.cost;
        }
        let s = &mut st.servers[c.server];
        s.used += c.cost;
        s.running += 1;
        s.tally.max_tokens = s.tally.max_tokens.max(s.used);
        s.tally.max_running = s.tally.max_running.max(s.running);
    }

    /// Expected seconds of one instance of `site` on `server`: measured, or `None` when it never
    /// ran one there.
    fn estimate(st: &State, site: usize, server: usize) -> Option<f64> {
        st.times.get(&(site, server)).map(|t| t.1)
    }

    /// The server an instance starts on now, among `free` (all can take it).
    fn choose(&self, st: &State, site: usize, free: &[Candidate]) -> Option<Candidate> {
        let load = |c: &Candidate| {
            let s = &st.servers[c.server];
            if c.cost > 0 {
                f64::from(s.used) / f64::from(POOL)
            } else {
                f64::from(s.running) / f64::from(s.spec.slots.max(1))
            }
        };
        // Ties: the least loaded, then accelerators, then the lowest number.
        let tie = |a: &Candidate, b: &Candidate| {
            load(a)
                .total_cmp(&load(b))
                .then(
                    st.servers[b.server]
                        .spec
                        .kind
                        .cmp(&st.servers[a.server].spec.kind),
                )
                .then(a.server.cmp(&b.server))
        };
        match self.policy {
            Policy::First => free.first().copied(),
            Policy::Tokens => free
                .iter()
                .min_by(|a, b| b.saved.total_cmp(&a.saved).then(tie(a, b)))
                .copied(),
            Policy::Model => {
                // Untried servers first, so that every one gets measured.
                let score = |c: &Candidate| {
                    Self::estimate(st, site, c.server).map_or(f64::NEG_INFINITY, |t| t - c.saved)
                };
                free.iter()
                    .min_by(|a, b| score(a).total_cmp(&score(b)).then(tie(a, b)))
                    .copied()
            }
        }
    }

    /// When `c` ends (from now) if the instance joins `c`'s server with `ahead` instances
    /// running or queued before it: the work ahead divided by how many the server runs at once,
    /// plus its own time, less what data already there saves. `None` when the site never ran
    /// there.
    fn finish(st: &State, site: usize, c: &Candidate, ahead: usize) -> Option<f64> {
        Self::estimate(st, site, c.server).map(|t| Self::finish_taking(st, c, t, ahead))
    }

    /// [`finish`](Self::finish) for an instance that takes `t` seconds there.
    fn finish_taking(st: &State, c: &Candidate, t: f64, ahead: usize) -> f64 {
        let s = &st.servers[c.server];
        let width = if c.cost > 0 {
            POOL / c.cost.max(1)
        } else {
            s.spec.slots.max(1)
        }
        .min(s.spec.max_running.max(1));
        ahead as f64 * t / f64::from(width.max(1)) + t - c.saved
    }

    /// Model policy: a busy candidate of another kind that would still end the instance sooner
    /// than `free` (which can start it now), by the measured times; the instance then waits for
    /// it. Servers of one kind run the same version: what tells their times apart is what else
    /// ran meanwhile, so an instance never waits for one of them while another is free. A thread
    /// that creates instances faster than they run (outside a parallel region, where nothing
    /// holds it) would otherwise send every instance the fastest server cannot take at once to a
    /// slower one: STREAM's copies made its device three times slower than the host, and it got
    /// most instances.
    fn sooner_when_busy(
        &self,
        st: &State,
        site: usize,
        free: &Candidate,
        cands: &[Candidate],
    ) -> Option<usize> {
        if self.policy != Policy::Model {
            return None;
        }
        // A free server measured only once gets a second instance before it is passed over: its
        // one time includes its first use (matmul's device instance took 13 ms against 6 after,
        // and the device then got no other instance in some runs).
        if st.times.get(&(site, free.server)).is_some_and(|t| t.0 == 1) {
            return None;
        }
        let own = Self::finish(st, site, free, 0)?;
        let kind = st.servers[free.server].spec.kind;
        cands
            .iter()
            .filter(|b| st.servers[b.server].spec.kind != kind)
            .filter_map(|b| {
                let s = &st.servers[b.server];
                let ahead = s.running as usize + s.queue.len();
                Self::finish(st, site, b, ahead).map(|f| (f, b.server))
            })
            .filter(|&(f, _)| f < own)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, server)| server)
    }

    /// Model policy: whether idle server `s` should take queued instance `ticket` (as `c`):
    /// when it is of the kind the instance waits for, never ran the site, or would end it no
    /// later than its own queue would.
    fn worth_stealing(&self, st: &State, ticket: u64, w: &Waiter, c: &Candidate) -> bool {
        if self.policy != Policy::Model
            || st.servers[c.server].spec.kind == st.servers[w.assigned].spec.kind
        {
            return true;
        }
        let Some(here) = Self::finish(st, w.site, c, 0) else {
            return true;
        };
        let Some(home) = w.cands.iter().find(|x| x.server == w.assigned) else {
            return true;
        };
        let s = &st.servers[w.assigned];
        let ahead = s.running as usize + s.queue.iter().take_while(|&&t| t != ticket).count();
        Self::finish(st, w.site, home, ahead).is_none_or(|there| here <= there)
    }

    /// The queue an instance that cannot start anywhere waits in.
    fn assign(&self, st: &State, site: usize, cands: &[Candidate]) -> usize {
        let first = cands.first().map_or(0, |c| c.server);
        match self.policy {
            Policy::First => first,
            Policy::Tokens => cands
                .iter()
                .min_by_key(|c| (st.servers[c.server].queue.len(), c.server))
                .map_or(first, |c| c.server),
            Policy::Model => {
                let known: Vec<f64> = cands
                    .iter()
                    .filter_map(|c| Self::estimate(st, site, c.server))
                    .collect();
                let typical = if known.is_empty() {
                    1.0
                } else {
                    known.iter().sum::<f64>() / known.len() as f64
                };
                // When it would end there, behind what runs and waits there.
                let finish = |c: &Candidate| {
                    let s = &st.servers[c.server];
                    let t = Self::estimate(st, site, c.server).unwrap_or(typical);
                    Self::finish_taking(st, c, t, s.running as usize + s.queue.len())
                };
                cands
                    .iter()
                    .min_by(|a, b| {
                        finish(a)
                            .total_cmp(&finish(b))
                            .then(a.server.cmp(&b.server))
                    })
                    .map_or(first, |c| c.server)
            }
        }
    }

    /// Starts every waiting instance that now fits: a server serves its own queue first, and an
    /// idle one (empty queue) steals the oldest instance it can run from the other queues.
    fn dispatch(&self, st: &mut State) {
        loop {
            let mut started = false;
            for s in 0..st.servers.len() {
                if let Some(&t) = st.servers[s].queue.front() {
                    let cand = st
                        .waiters
                        .get(&t)
                        .and_then(|w| w.cands.iter().find(|c| c.server == s).copied());
                    if let Some(c) = cand.filter(|c| self.fits(st, c)) {
                        st.servers[s].queue.pop_front();
                        self.grant(st, t, c, false);
                        started = true;
                    }
                    continue;
                }
                if !self.steal {
                    continue;
                }
                let mut best: Option<(u64, Candidate)> = None;
                for (&t, w) in &st.waiters {
                    if w.grant.is_some() || w.assigned == s {
                        continue;
                    }
                    if let Some(c) = w.cands.iter().find(|c| c.server == s) {
                        if self.fits(st, c)
                            && best.is_none_or(|(bt, _)| t < bt)
                            && self.worth_stealing(st, t, w, c)
                        {
                            best = Some((t, *c));
                        }
                    }
                }
                if let Some((t, c)) = best {
                    let from = st.waiters[&t].assigned;
                    st.servers[from].queue.retain(|&x| x != t);
                    self.grant(st, t, c, true);
                    started = true;
                }
            }
            if !started {
                return;
            }
        }
    }

    fn grant(&self, st: &mut State, ticket: u64, c: Candidate, stolen: bool) {
        self.take(st, &c, stolen);
        if let Some(w) = st.waiters.get_mut(&ticket) {
            w.grant = Some(Grant {
                ticket,
                cand: c,
                assigned: Some(w.assigned),
                stolen,
            });
        }
    }
}

#[cfg(test)]
mod tests;
