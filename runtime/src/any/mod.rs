//! Task sharing over host and devices (seed 002; docs/task-sharing.md): each instance of a
//! `target device(any)` construct runs on the host's cores, on a host device or on a GPU, chosen
//! when the instance is ready.
//!
//! The driver lowers a construct into a task whose body asks [`Any::acquire`] where to run, runs the
//! version (switch arm) for that kind of device with `target device(chosen)`, and calls
//! [`Any::release`]. This module turns the construct's versions into candidate servers, hands them to
//! the scheduling core's [`dispatch::Dispatcher`] (tokens, slots, queues, stealing, the measured
//! time per instance, fed to and seeded from the core's model), keeps the [`coherence::Directory`] in lazy mode and counts what each server did.
//!
//! Decisions the paper leaves open (docs/task-sharing.md "Open questions, settled"): one token
//! pool of 100 per server (`SPREAD_TOKEN_POOL=global` for one pool); an omitted `resources` costs
//! nothing and is bounded by the server's slots (`SPREAD_ANY_SLOTS`); with no candidate the
//! construct's host version runs on the host, with a warning once per construct.

pub mod arm;
pub mod coherence;

/// The dispatcher lives in the scheduling core.
pub use crate::sched::sharing as dispatch;

use crate::error::Result;
use crate::runtime::nowait::Predecessors;
use crate::runtime::Runtime;
use dispatch::{Candidate, Dispatcher, Grant, Kind, Release, ServerSpec};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// One version of a construct (`__spread_any_version_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version {
    /// The kind of device it is for.
    pub kind: Kind,
    /// NVIDIA: the lowest compute capability it is for (`sm_90` → 90); 0: any.
    pub subarch: u32,
    /// The switch arm that runs it.
    pub arm: i32,
    /// Runs only under `if(false)` or when no device is a candidate.
    pub fallback: bool,
}

/// A `target device(any)` construct (`__spread_any_site_t`).
#[derive(Debug, Clone)]
pub struct Site {
    /// Source file.
    pub file: String,
    /// Line of its pragma.
    pub line: u32,
    /// Column of `device(any)`.
    pub column: u32,
    /// Its versions.
    pub versions: Vec<Version>,
    /// Its key in the scheduling core's model: `device(any) FILE:LINE:COL`.
    pub model_key: String,
    /// What its instances' device work is reported with (`crate::origin`).
    pub origin: std::sync::Arc<crate::origin::Site>,
}

impl Site {
    /// The construct at `file:line:column` with `versions`.
    pub fn new(file: String, line: u32, column: u32, versions: Vec<Version>) -> Self {
        let model_key = format!("device(any) {file}:{line}:{column}");
        let origin = std::sync::Arc::new(crate::origin::Site {
            what: "target device(any)",
            file: file.as_str().into(),
            line: i32::try_from(line).unwrap_or(i32::MAX),
        });
        Site {
            file,
            line,
            column,
            versions,
            model_key,
            origin,
        }
    }

    /// `FILE:LINE:COL`.
    pub fn at(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One mapped range of an instance (`__spread_any_map_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapItem {
    /// First byte.
    pub ptr: usize,
    /// Length in bytes.
    pub bytes: usize,
    /// The instance reads it (`to`, `tofrom`).
    pub to: bool,
    /// The instance writes it (`from`, `tofrom`).
    pub from: bool,
}

use crate::config::sharing::slot_index as kind_index;
/// The settings live with the others (`config`), read and checked at start-up.
pub use crate::config::sharing::{Coherence, Settings};

/// What one server did (see `spread_any_stats_t`).
#[derive(Debug, Clone, Default)]
pub struct ServerStats {
    /// Device number, or `None` for the host.
    pub device: Option<usize>,
    /// Kind it served as.
    pub kind: Option<Kind>,
    /// Counters of the dispatcher.
    pub tally: dispatch::Tally,
    /// Bytes copied to it.
    pub bytes_in: u64,
    /// Bytes copied back from it.
    pub bytes_out: u64,
}

struct Server {
    device: Option<usize>,
    kind: Kind,
    /// It computes on this process's cores (the host, a host device of this rank), as the
    /// thread that creates instances does.
    own_cores: bool,
    /// NVIDIA compute capability (`u32::MAX` for an alias: every version fits).
    capability: u32,
    /// `device N` or `host`: its name in the trace and its model key.
    name: String,
}

/// An instance between acquire and release.
struct Ticket {
    site: Arc<Site>,
    site_key: usize,
    grant: Grant,
    items: Vec<MapItem>,
    nowait: bool,
    /// When it started (for one that follows others, when the last of them ended).
    start: Instant,
    /// It follows instances on its server ([`Dispatcher::follow`]): how many of them have not
    /// ended; it holds tokens and a slot only once none is left.
    pending: usize,
    /// Instances that follow this one (their tickets).
    followers: Vec<u64>,
    /// It was placed following others (its tokens and slot, once held, were handed over).
    followed: bool,
}

/// The process's task-sharing state.
pub struct Any {
    settings: Settings,
    servers: Vec<Server>,
    dispatcher: Dispatcher,
    directory: coherence::Directory,
    sites: Mutex<HashMap<usize, Arc<Site>>>,
    tickets: Mutex<HashMap<u64, Ticket>>,
    next_ticket: AtomicU64,
    bytes: Mutex<Vec<(u64, u64)>>,
    warned: Mutex<HashSet<(usize, u8)>>,
}

/// Nominal bytes per second of a host-device copy, to weigh data already on a device against
/// measured instance times (locality).
const COPY_BYTES_PER_SEC: f64 = 8e9;

/// One instance asking where to run.
#[derive(Debug, Clone)]
pub struct Request {
    /// The site's key (its descriptor's address).
    pub key: usize,
    /// The site.
    pub site: Arc<Site>,
    /// `resources` values, one per version.
    pub costs: Vec<i64>,
    /// Mapped ranges with a known extent.
    pub items: Vec<MapItem>,
    /// The construct has `nowait`.
    pub nowait: bool,
    /// Instances in flight at once when the creating thread runs ahead of them (a `nowait`
    /// instance created outside a parallel region, whose arm runs asynchronously): the team a
    /// `parallel` region would have, whose threads would each run one. `None` inside a team.
    pub ahead: Option<usize>,
    /// Its `if` clause is false.
    pub if_false: bool,
}

/// What [`Any::acquire`] tells the lowered code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// Device number for `target device(...)`, or the initial device.
    pub device: i64,
    /// Switch arm.
    pub arm: i32,
    /// Threads of a host version's parallel construct.
    pub threads: u32,
    /// Ticket for [`Any::release`] (0: nothing to release).
    pub ticket: u64,
}

/// The process's task-sharing state, created on first use.
static ANY: OnceLock<Any> = OnceLock::new();

impl Any {
    fn new(rt: &Runtime, settings: Settings) -> Self {
        let mut servers: Vec<Server> = rt
            .devices
            .iter()
            .map(|slot| {
                let info = slot.dev.info();
                let own_cores = slot.dev.computes_on_own_cores();
                match info.kind {
                    crate::config::DeviceKind::Host => Server {
                        device: Some(slot.id),
                        kind: Kind::Cpu,
                        own_cores,
                        capability: 0,
                        name: format!("device {}", slot.id),
                    },
                    crate::config::DeviceKind::Cuda => Server {
                        device: Some(slot.id),
                        kind: Kind::Nvidia,
                        own_cores,
                        name: format!("device {}", slot.id),
                        capability: info
                            .details
                            .iter()
                            .find(|(k, _)| k == "Compute Capabilities")
                            .and_then(|(_, v)| v.trim_start_matches("sm_").parse().ok())
                            .unwrap_or(0),
                    },
                }
            })
            .collect();
        for &(d, k) in &settings.alias {
            match servers.get_mut(d) {
                Some(s) if s.kind == Kind::Cpu => {
                    s.kind = k;
                    s.capability = u32::MAX;
                }
                _ => eprintln!(
                    "spread: warning: SPREAD_KIND_ALIAS: device {d} is not a host device; ignored"
                ),
            }
        }
        servers.push(Server {
            device: None,
            kind: Kind::Host,
            own_cores: true,
            capability: 0,
            name: "host".into(),
        });
        let specs = servers
            .iter()
            .map(|s| ServerSpec {
                kind: s.kind,
                slots: settings.slots[kind_index(s.kind)],
                max_running: if s.kind == Kind::Host {
                    settings.host_threads
                } else {
                    u32::MAX
                },
            })
            .collect();
        let n = servers.len();
        Any {
            dispatcher: Dispatcher::new(specs, settings.pools, settings.policy, settings.steal),
            settings,
            servers,
            directory: coherence::Directory::new(),
            sites: Mutex::new(HashMap::new()),
            tickets: Mutex::new(HashMap::new()),
            next_ticket: AtomicU64::new(1),
            bytes: Mutex::new(vec![(0, 0); n]),
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// The site registered under `key` (the descriptor's address), parsed by `parse` the first
    /// time; its expected times then come from the scheduling core's model (a loaded profile).
    pub fn site(&self, rt: &Runtime, key: usize, parse: impl FnOnce() -> Site) -> Arc<Site> {
        let mut sites = self.sites.lock();
        if let Some(site) = sites.get(&key) {
            return Arc::clone(site);
        }
        let site = Arc::new(parse());
        let keys: Vec<String> = self.servers.iter().map(|s| s.name.clone()).collect();
        if let Some(rates) = rt.sched_model.rates(&site.model_key, &keys) {
            for (server, rate) in rates.into_iter().enumerate() {
                if rate > 0.0 {
                    self.dispatcher.seed(key, server, 1.0 / rate);
                }
            }
        }
        sites.insert(key, Arc::clone(&site));
        site
    }

    fn warn_once(&self, key: usize, what: u8, msg: impl FnOnce() -> String) {
        if self.warned.lock().insert((key, what)) {
            eprintln!("spread: warning: {}", msg());
        }
    }

    /// The version of `site` that `server` runs best, if any: for a GPU the highest listed
    /// compute capability it has, then an entry without one.
    fn version_for(&self, site: &Site, server: &Server) -> Option<usize> {
        site.versions
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.fallback && v.kind == server.kind)
            .filter(|(_, v)| v.kind != Kind::Nvidia || v.subarch <= server.capability)
            .max_by_key(|(_, v)| v.subarch)
            .map(|(i, _)| i)
    }

    /// The host version of `site` (listed or fallback), if it has one.
    fn host_version(site: &Site) -> Option<usize> {
        site.versions
            .iter()
            .position(|v| v.kind == Kind::Host && !v.fallback)
            .or_else(|| site.versions.iter().position(|v| v.kind == Kind::Host))
    }

    fn host_threads(&self, cost: u32) -> u32 {
        let width = self.settings.host_threads.max(1);
        if cost > 0 {
            ((width * cost).div_ceil(dispatch::POOL)).max(1)
        } else {
            (width / self.settings.slots[0].max(1)).max(1)
        }
    }

    fn clamp_cost(&self, key: usize, site: &Site, raw: i64) -> u32 {
        if (0..=i64::from(dispatch::POOL)).contains(&raw) {
            return raw as u32;
        }
        self.warn_once(key, 1, || {
            format!(
                "device(any) at {}: resources({raw}) is outside 0..100; using {}",
                site.at(),
                raw.clamp(0, 100)
            )
        });
        raw.clamp(0, i64::from(dispatch::POOL)) as u32
    }

    /// Chooses where one instance runs (see `__spread_any_acquire`).
    ///
    /// `after`: the owned constructs the instance depends on that may still run (its task did
    /// not wait for them: `capi::ompt::instance_predecessors`). When they are all instances on
    /// one server that has a version of this one, and this one runs asynchronously there, it
    /// follows them: it is placed there at once, its tokens and slot are theirs once they end,
    /// and the returned predecessors are what its construct waits for on the device. Otherwise
    /// they are finished first, as if its task had waited for them.
    pub fn acquire(
        &self,
        rt: &Runtime,
        req: Request,
        after: Predecessors,
    ) -> Result<(Pick, Predecessors)> {
        let Request {
            key,
            site,
            costs,
            items,
            nowait,
            ahead,
            if_false,
        } = req;
        let initial = rt.initial_device();
        // The host version, outside the token accounting.
        let on_host = || Pick {
            device: initial,
            arm: Self::host_version(&site).map_or(0, |v| site.versions[v].arm),
            threads: self.host_threads(0),
            ticket: 0,
        };
        // On the host outside the token accounting: lazy outputs of earlier instances come home
        // first, as before any host instance (it reads and writes the host's copy).
        let fallback = |after: Predecessors| -> Result<(Pick, Predecessors)> {
            rt.nowait_finish_predecessors(after);
            if self.settings.coherence == Coherence::Lazy {
                let m = self
                    .directory
                    .reclaim(rt, &items)
                    .map_err(|e| e.context(format!("device(any) at {}", site.at())))?;
                self.count(&m);
            }
            Ok((on_host(), Predecessors::default()))
        };
        if if_false {
            // if(false): the host, as OpenMP's host fallback.
            return fallback(after);
        }
        let cands = self.candidates(rt, key, &site, &costs, &items);
        if cands.is_empty() {
            self.warn_once(key, 0, || {
                format!(
                    "device(any) at {}: no device has a version of it ({}); its instances run on the host",
                    site.at(),
                    self.kinds_text()
                )
            });
            return fallback(after);
        }
        let (grant, after, follows) = self.grant(rt, key, after, cands, ahead);
        let server = grant.cand.server;
        let version = site.versions[grant.cand.version];
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let device = self.servers[server].device;
        let moved = match self.move_inputs(rt, device, &items) {
            Ok(m) => m,
            Err(e) => {
                let took = if follows.is_empty() {
                    Release::Held(Duration::ZERO)
                } else {
                    Release::Nothing(Duration::ZERO)
                };
                rt.nowait_finish_predecessors(after);
                self.dispatcher.release_with(key, &grant, took, &[]);
                return Err(e.context(format!("device(any) at {}", site.at())));
            }
        };
        self.count(&moved);
        if rt.config.info_any {
            self.tell_pick(&site, ticket, &grant, &moved);
        }
        self.tickets.lock().insert(
            ticket,
            Ticket {
                site: Arc::clone(&site),
                site_key: key,
                grant,
                items,
                nowait,
                start: Instant::now(),
                pending: 0,
                followers: Vec::new(),
                followed: !follows.is_empty(),
            },
        );
        if !follows.is_empty() {
            self.follow(ticket, &follows);
        }
        let pick = Pick {
            device: device.map_or(initial, |d| d as i64),
            arm: version.arm,
            threads: if device.is_none() {
                self.host_threads(grant.cand.cost)
            } else {
                0
            },
            ticket,
        };
        Ok((pick, after))
    }

    /// The servers that have a version of `site`, each with its version's cost and the time the
    /// data it already holds would save (what [`Dispatcher`] weighs).
    fn candidates(
        &self,
        rt: &Runtime,
        key: usize,
        site: &Site,
        costs: &[i64],
        items: &[MapItem],
    ) -> Vec<Candidate> {
        self.servers
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let v = self.version_for(site, s)?;
                let cost = self.clamp_cost(key, site, costs.get(v).copied().unwrap_or(0));
                let saved = match s.device {
                    None => 0.0,
                    Some(d) => {
                        let bytes = match self.settings.coherence {
                            Coherence::Lazy => self.directory.valid_bytes(d, items),
                            Coherence::Copy => present_bytes(rt, d, items),
                        };
                        bytes as f64 / COPY_BYTES_PER_SEC
                    }
                };
                Some(Candidate {
                    server: i,
                    version: v,
                    cost,
                    saved,
                })
            })
            .collect()
    }

    /// Tokens on one of `cands` for a new instance: on the server its predecessors `after` run
    /// on when it can follow them there (then `after` stays to be waited for by the device, with
    /// their tickets), else wherever the dispatcher grants once `after` are finished.
    fn grant(
        &self,
        rt: &Runtime,
        key: usize,
        after: Predecessors,
        cands: Vec<Candidate>,
        ahead: Option<usize>,
    ) -> (Grant, Predecessors, Vec<u64>) {
        // The instances this thread placed that have ended give their tokens back now.
        rt.nowait_finish_done_of_mine();
        if let Some((cand, tickets)) = self.to_follow(rt, &after, &cands) {
            return (self.dispatcher.follow(cand), after, tickets);
        }
        rt.nowait_finish_predecessors(after);
        // A thread that runs ahead of its instances places a new one only while fewer run than
        // a team would run (in `parallel` + `single` each team thread runs one instance at a
        // time, and takes the next one when it is free), or than there are servers that add
        // cores of their own (each may always have one: the paper's Fig. 2 written in `main`
        // keeps every device busy at once). Placing further ahead sends instances to whatever
        // server is free at the moment they are created, however slow ([`beyond_team`]).
        if let Some(team) = ahead {
            let cap = team.max(beyond_team(&self.servers, &cands)).max(1);
            while self.dispatcher.running() >= cap && rt.nowait_finish_first_of_mine() {}
        }
        // Instances this thread started as `target nowait` hold tokens until they are
        // finished: waiting for tokens, the thread finishes its own first.
        let grant = self
            .dispatcher
            .acquire_with(key, cands, &|| rt.nowait_finish_one_of_mine());
        (grant, Predecessors::default(), Vec::new())
    }

    /// Brings the instance's inputs `items` where it runs (`device`, or the host for `None`)
    /// under the coherence setting, and says what moved (under `copy` the construct's own map
    /// does the copies: what is not there already is counted).
    fn move_inputs(
        &self,
        rt: &Runtime,
        device: Option<usize>,
        items: &[MapItem],
    ) -> Result<coherence::Moved> {
        match (self.settings.coherence, device) {
            (Coherence::Lazy, Some(d)) => self.directory.prepare(rt, d, items),
            (Coherence::Lazy, None) => self.directory.reclaim(rt, items),
            (Coherence::Copy, Some(d)) => {
                let absent: Vec<MapItem> = items
                    .iter()
                    .filter(|it| present_bytes(rt, d, std::slice::from_ref(*it)) == 0)
                    .copied()
                    .collect();
                let sum = |f: fn(&MapItem) -> bool| -> u64 {
                    absent.iter().filter(|i| f(i)).map(|i| i.bytes as u64).sum()
                };
                Ok(coherence::Moved {
                    into: vec![(d, sum(|i| i.to))],
                    out: vec![(d, sum(|i| i.from))],
                })
            }
            (Coherence::Copy, None) => Ok(coherence::Moved::default()),
        }
    }

    /// `SPREAD_INFO=any`'s line for a placed instance.
    fn tell_pick(&self, site: &Site, ticket: u64, grant: &Grant, moved: &coherence::Moved) {
        let version = site.versions[grant.cand.version];
        let moved_in: u64 = moved.into.iter().map(|m| m.1).sum();
        let moved_out: u64 = moved.out.iter().map(|m| m.1).sum();
        let how = match (grant.assigned, grant.stolen) {
            (Some(a), true) => format!(", stolen from {}", self.servers[a].name),
            (Some(_), false) => ", after waiting".to_string(),
            _ => String::new(),
        };
        crate::info::spread_line(&format!(
            "device(any) {} instance {ticket} -> {} ({}, arm {}, tokens {}/{}{how}), moved in {moved_in} B, out {moved_out} B",
            site.at(),
            self.servers[grant.cand.server].name,
            version.kind.name(),
            version.arm,
            grant.cand.cost,
            dispatch::POOL,
        ));
    }

    /// The server whose instances `after` all run on, and their tickets, when the instance
    /// (with candidates `cands`) can follow them there (see [`Any::acquire`]). Not under lazy
    /// coherence: the directory learns where an instance's outputs are only when it ends.
    fn to_follow(
        &self,
        rt: &Runtime,
        after: &Predecessors,
        cands: &[Candidate],
    ) -> Option<(Candidate, Vec<u64>)> {
        if after.is_empty() || self.settings.coherence != Coherence::Copy {
            return None;
        }
        let (device, tickets) = after.instances_on()?;
        let share = rt.host_share().map(|s| s.id);
        let server = self.servers.iter().position(|s| match s.device {
            Some(d) => d == device,
            None => share == Some(device),
        })?;
        let cand = cands.iter().find(|c| c.server == server).copied()?;
        Some((cand, tickets))
    }

    /// Instance `ticket` follows the instances `preds`: it holds their tokens and slot once the
    /// last of them has ended (it starts holding them now if they all have).
    fn follow(&self, ticket: u64, preds: &[u64]) {
        let mut tickets = self.tickets.lock();
        let mut pending = 0;
        for p in preds {
            if let Some(t) = tickets.get_mut(p) {
                t.followers.push(ticket);
                pending += 1;
            }
        }
        let Some(t) = tickets.get_mut(&ticket) else {
            return;
        };
        t.pending = pending;
        if pending == 0 {
            t.start = Instant::now();
            let grant = t.grant;
            drop(tickets);
            self.dispatcher.charge_followed(&grant);
        }
    }

    /// The instance of `ticket` ended (see `__spread_any_release`).
    pub fn release(&self, rt: &Runtime, ticket: u64) -> Result<()> {
        // Followers whose last predecessor this was start holding what it held.
        let (t, hand_to) = {
            let mut tickets = self.tickets.lock();
            let Some(t) = tickets.remove(&ticket) else {
                return Ok(()); // host fallback: nothing was taken
            };
            let mut hand_to = Vec::new();
            for f in &t.followers {
                if let Some(ft) = tickets.get_mut(f) {
                    ft.pending = ft.pending.saturating_sub(1);
                    if ft.pending == 0 {
                        ft.start = Instant::now();
                        hand_to.push(ft.grant);
                    }
                }
            }
            (t, hand_to)
        };
        let took = t.start.elapsed();
        let release = if t.pending > 0 {
            // It ended before what it followed did (finished out of order): it held nothing.
            Release::Nothing(took)
        } else if t.followed {
            Release::Followed(took)
        } else {
            Release::Held(took)
        };
        let mut result = Ok(());
        if let (Coherence::Lazy, Some(d)) = (
            self.settings.coherence,
            self.servers[t.grant.cand.server].device,
        ) {
            self.directory.produced(d, &t.items);
            // Checked here, not at start: libomp starts its tool at its first parallel region.
            if !crate::sys::ompt::sync_points_seen() {
                self.warn_once(0, 2, || {
                    "SPREAD_COHERENCE=lazy: taskwait, taskgroup and barriers are not observed (another OMPT tool is loaded, or OpenMP's tool interface is off); device(any) outputs come home only at spread_any_flush(), after an instance without nowait, before a host instance and at exit".to_string()
                });
            }
            if !t.nowait {
                // After a construct without nowait the host may read its outputs and write its
                // inputs too, as OpenMP's copy semantics allow: a device copy of an input kept
                // valid here would feed the next instance the value from before such a write
                // (the task-sharing fuzzer's host writes after instances without nowait).
                match self.directory.reclaim(rt, &t.items) {
                    Ok(m) => self.count(&m),
                    Err(e) => result = Err(e.context(format!("device(any) at {}", t.site.at()))),
                }
            }
        }
        self.dispatcher
            .release_with(t.site_key, &t.grant, release, &hand_to);
        if !matches!(release, Release::Held(_)) {
            return result;
        }
        rt.sched_model.learn(
            &t.site.model_key,
            &[crate::sched::model::Observation {
                key: self.servers[t.grant.cand.server].name.clone(),
                units: 1,
                busy: took,
            }],
            crate::sched::model::Learn::Always,
        );
        result
    }

    /// Brings every output home and releases the directory's mappings (lazy mode; nothing to
    /// do otherwise).
    pub fn flush(&self, rt: &Runtime) -> Result<()> {
        if !self.needs_flush() {
            return Ok(());
        }
        let m = self.directory.flush(rt)?;
        self.count(&m);
        Ok(())
    }

    /// Whether a flush has work to do.
    pub fn needs_flush(&self) -> bool {
        self.settings.coherence == Coherence::Lazy && self.directory.has_ranges()
    }

    fn count(&self, m: &coherence::Moved) {
        let mut b = self.bytes.lock();
        for &(d, n) in &m.into {
            b[d].0 += n;
        }
        for &(d, n) in &m.out {
            b[d].1 += n;
        }
    }

    fn kinds_text(&self) -> String {
        let mut kinds: Vec<&str> = self.servers.iter().map(|s| s.kind.name()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        format!("available: {}", kinds.join(", "))
    }

    /// Per-server statistics: devices in order, then the host.
    pub fn stats(&self) -> Vec<ServerStats> {
        let tallies = self.dispatcher.tallies();
        let bytes = self.bytes.lock();
        self.servers
            .iter()
            .zip(tallies)
            .enumerate()
            .map(|(i, (s, tally))| ServerStats {
                device: s.device,
                kind: Some(s.kind),
                tally,
                bytes_in: bytes[i].0,
                bytes_out: bytes[i].1,
            })
            .collect()
    }

    /// Zeroes the statistics.
    pub fn reset_stats(&self) {
        self.dispatcher.reset_tallies();
        for b in self.bytes.lock().iter_mut() {
            *b = (0, 0);
        }
    }
}

/// Bytes of `items` already mapped on device `d`.
fn present_bytes(rt: &Runtime, d: usize, items: &[MapItem]) -> u64 {
    let Ok(slot) = rt.device(d as i64) else {
        return 0;
    };
    items
        .iter()
        .filter(|it| {
            it.bytes > 0 && crate::cu::placement::target_on(slot, it.ptr, it.bytes).is_some()
        })
        .map(|it| it.bytes as u64)
        .sum()
}

thread_local! {
    /// Instances the current thread is inside of (between acquire and release).
    static IN_INSTANCE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Marks the current thread as running an instance (or not), so that the sync points of the
/// instance's own parallel regions do not flush.
pub fn enter_instance(inside: bool) {
    IN_INSTANCE.with(|c| {
        c.set(if inside {
            c.get() + 1
        } else {
            c.get().saturating_sub(1)
        })
    });
}

/// Whether the current thread runs an instance.
pub fn in_instance() -> bool {
    IN_INSTANCE.with(|c| c.get() > 0)
}

/// The process's task-sharing state if it was created.
pub fn started() -> Option<&'static Any> {
    ANY.get()
}

/// The process's task-sharing state, created on first use from the environment.
pub fn get(rt: &Runtime) -> &'static Any {
    ANY.get_or_init(|| {
        crate::runtime::hooks::at_exit(flush_at_exit);
        Any::new(rt, rt.config.sharing.clone())
    })
}

/// A `taskwait`, `taskgroup` or barrier of the program ended (seen through OMPT): in lazy mode,
/// every output comes home.
pub fn flush_at_sync_point() {
    let Some(a) = started() else { return };
    if !a.needs_flush() {
        return;
    }
    let rt = crate::runtime::get();
    if let Err(e) = a.flush(rt) {
        crate::runtime::report::fatal_construct(rt, &e, None)
    }
}

/// The program exits: in lazy mode, every output comes home first.
pub fn flush_at_exit(rt: &Runtime) {
    if let Some(a) = started() {
        if let Err(e) = a.flush(rt) {
            eprintln!(
                "spread: warning: device(any) outputs could not be brought home at exit: {e}"
            );
        }
    }
}

/// How many of `cands` may each hold an instance beyond what a team would run: GPUs and
/// remote devices, whose cores are their own; host devices too when the host itself is not
/// a candidate. When it is, host devices only share its cores (and add copies): STREAM from
/// `main` on two 1-thread host devices and 2 cores then sent a third tile chain to a host
/// device while the host ran two, and the hybrid took 0.58-0.76 times the host alone
/// (0.80-1.02 with them not counted, 0.99-1.01 in `parallel` + `single`).
fn beyond_team(servers: &[Server], cands: &[Candidate]) -> usize {
    let host_candidate = cands.iter().any(|c| servers[c.server].device.is_none());
    cands
        .iter()
        .filter(|c| {
            let s = &servers[c.server];
            s.device.is_some() && !(host_candidate && s.own_cores)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(device: Option<usize>, kind: Kind, own_cores: bool) -> Server {
        Server {
            device,
            kind,
            own_cores,
            capability: 0,
            name: String::new(),
        }
    }

    fn cands(servers: &[usize]) -> Vec<Candidate> {
        servers
            .iter()
            .map(|&server| Candidate {
                server,
                version: 0,
                cost: 50,
                saved: 0.0,
            })
            .collect()
    }

    #[test]
    fn host_devices_add_no_instances_beyond_a_team_when_the_host_is_a_candidate() {
        // Two host devices, a GPU, a remote host device, the host.
        let servers = [
            server(Some(0), Kind::Cpu, true),
            server(Some(1), Kind::Cpu, true),
            server(Some(2), Kind::Nvidia, false),
            server(Some(3), Kind::Cpu, false),
            server(None, Kind::Host, true),
        ];
        // With the host: only the GPU and the remote device have cores of their own.
        assert_eq!(beyond_team(&servers, &cands(&[0, 1, 2, 3, 4])), 2);
        assert_eq!(beyond_team(&servers, &cands(&[0, 1, 4])), 0);
        assert_eq!(beyond_team(&servers, &cands(&[4])), 0);
        // Without it, every device may hold one (the paper's Fig. 2 from `main`).
        assert_eq!(beyond_team(&servers, &cands(&[0, 1, 2, 3])), 4);
        assert_eq!(beyond_team(&servers, &cands(&[0, 1])), 2);
    }
}
