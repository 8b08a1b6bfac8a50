//! Joining the MPI job: rank 0 becomes the head and gathers the workers' devices; other ranks
//! become workers and serve until the head ends. Also the head's side of failure detection.

use super::link::{self, Handler, HandlerSlot, Link};
use super::protocol::{self, DeviceDesc, Msg};
use super::worker::{Worker, WorkerHandler};
use super::RemoteDevice;
use crate::config::RemoteSettings;
use crate::device::Device;
use crate::sys::transport::Transport;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What this process is in the job.
enum Role {
    Head {
        link: Arc<Link>,
        thread: Mutex<Option<JoinHandle<()>>>,
    },
    Worker {
        link: Arc<Link>,
        slot: Mutex<Option<HandlerSlot>>,
        thread: Mutex<Option<JoinHandle<()>>>,
        settings: RemoteSettings,
    },
}

static ROLE: OnceLock<Role> = OnceLock::new();

/// What a worker said in its hello: its host, process id and devices.
type Hello = (String, u32, Vec<DeviceDesc>);

/// A worker rank as the head knows it.
#[derive(Debug, Clone)]
struct RankInfo {
    host: String,
    /// Its process id on `host`.
    pid: u32,
    /// The head's numbers for its devices.
    devices: Vec<usize>,
}

/// The head's handler: answers, landed bytes, fired events, and deadlines.
pub struct HeadHandler {
    hellos: Mutex<BTreeMap<usize, Hello>>,
    hello_cv: Condvar,
    ranks: OnceLock<Vec<Option<RankInfo>>>,
    timeout: Duration,
}

impl HeadHandler {
    /// A head that ends the run when a worker is silent for `timeout`.
    pub fn new(timeout: Duration) -> Self {
        HeadHandler {
            hellos: Mutex::new(BTreeMap::new()),
            hello_cv: Condvar::new(),
            ranks: OnceLock::new(),
            timeout,
        }
    }

    /// Waits until every worker said hello, or `timeout` passed, or the link failed.
    pub fn wait_hellos(
        &self,
        link: &Link,
        workers: usize,
    ) -> Result<BTreeMap<usize, Hello>, String> {
        let deadline = Instant::now() + self.timeout;
        let mut h = self.hellos.lock();
        while h.len() < workers {
            link.check().map_err(|e| e.message)?;
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<String> = (1..=workers)
                    .filter(|r| !h.contains_key(r))
                    .map(|r| r.to_string())
                    .collect();
                return Err(format!(
                    "MPI rank(s) {} did not report their devices within {:.0} s (SPREAD_REMOTE_TIMEOUT): is every rank running the same program with SPREAD_REMOTE=mpi?",
                    missing.join(", "),
                    self.timeout.as_secs_f64()
                ));
            }
            self.hello_cv
                .wait_for(&mut h, (deadline - now).min(Duration::from_millis(100)));
        }
        Ok(std::mem::take(&mut *h))
    }

    /// "remote devices 1, 2 (MPI rank 1, host n1)", or the rank alone before its hello.
    /// Whether worker `rank` runs on this host and its process no longer exists.
    fn process_gone(&self, link: &Link, rank: usize) -> bool {
        self.ranks
            .get()
            .and_then(|r| r.get(rank))
            .and_then(Option::as_ref)
            .filter(|info| info.host == link.place.host && info.pid != 0)
            .and_then(|info| crate::sys::proc::exists(info.pid))
            == Some(false)
    }

    fn describe(&self, rank: usize) -> String {
        match self
            .ranks
            .get()
            .and_then(|r| r.get(rank))
            .and_then(Option::as_ref)
        {
            Some(info) if !info.devices.is_empty() => {
                let ids: Vec<String> = info.devices.iter().map(usize::to_string).collect();
                format!(
                    "remote device{} {} (MPI rank {rank}, host {})",
                    if ids.len() > 1 { "s" } else { "" },
                    ids.join(", "),
                    info.host
                )
            }
            Some(info) => format!("MPI rank {rank} (host {}, no devices)", info.host),
            None => format!("MPI rank {rank} (host ?)"),
        }
    }
}

impl Handler for HeadHandler {
    fn handle(&self, link: &Link, src: usize, msg: Msg) {
        match msg {
            Msg::Hello { host, pid, devices } => {
                self.hellos.lock().insert(src, (host, pid, devices));
                self.hello_cv.notify_all();
            }
            Msg::Reply { req, values } => link.answer(req, Ok(values)),
            Msg::Failed { req, kind, message } => link.answer(req, Err((kind, message))),
            Msg::Data { req, data } => link.land(req, &data),
            Msg::Fired { event, time } => link.signal_at(event, time),
            _ => {}
        }
    }

    fn tick(&self, link: &Link, now: Instant) {
        if link.fatal.load(Ordering::Relaxed) && crate::sys::mpi::sigterm_arrived() {
            // The launcher ends every rank when one failed (killed, crashed, exited): name the
            // ranks by how long they have been silent, the failed one is usually first.
            let mut ranks: Vec<(Duration, usize)> = (1..link.place.size)
                .map(|r| (link.silent_for(r, now), r))
                .collect();
            ranks.sort_by(|a, b| b.cmp(a));
            let heard: Vec<String> = ranks
                .iter()
                .map(|&(d, r)| format!("{} {:.1} s ago", self.describe(r), d.as_secs_f64()))
                .collect();
            // Workers on this host are looked at (their process is gone, or not yet): the
            // failed one is named where it can be; on other hosts only the silence tells.
            let gone: Vec<String> = (1..link.place.size)
                .filter(|&r| self.process_gone(link, r))
                .map(|r| self.describe(r))
                .collect();
            let failed = if gone.is_empty() {
                String::new()
            } else {
                format!("{} died (its process is gone); ", gone.join(", "))
            };
            eprintln!(
                "spread: error: the run was ended by SIGTERM (an MPI launcher sends it to every rank when one of them failed); {failed}last heard from: {}",
                heard.join("; ")
            );
            crate::sys::mpi::exit_now(143);
        }
        for rank in 1..link.place.size {
            let silent = link.silent_for(rank, now);
            if silent > self.timeout {
                link.fail(format!(
                    "{} stopped responding: nothing heard from it for {:.1} s (SPREAD_REMOTE_TIMEOUT={}); ending the run",
                    self.describe(rank),
                    silent.as_secs_f64(),
                    self.timeout.as_secs_f64()
                ));
            }
        }
    }
}

/// Joins the MPI job. On the head, returns the workers' devices numbered from `first_id`; on a
/// worker, sends the head `local` (this rank's devices) and returns none: the worker serves
/// once the program has registered its images ([`serve_if_worker`]).
pub fn discover(
    first_id: usize,
    local: &[Box<dyn Device>],
    settings: &RemoteSettings,
) -> Result<Vec<Box<dyn Device>>, String> {
    let lib = settings.lib.clone();
    let opened = link::start(move || {
        crate::sys::mpi::MpiTransport::open(lib.as_deref())
            .map(|t| Box::new(t) as Box<dyn Transport>)
    });
    let (link, slot, thread) = match opened {
        Ok(x) => x,
        Err(e) => {
            // Cluster mode was asked for and cannot be had: going on would run the program on
            // this rank's devices alone (on a worker rank: a second copy of the program).
            eprintln!("spread: error: SPREAD_REMOTE=mpi: {}", e.message);
            crate::sys::mpi::exit_now(1);
        }
    };
    let workers = link.place.size.saturating_sub(1);
    if link.place.rank > 0 {
        // The hello describes this rank's devices; it leaves when the worker starts serving.
        let _ = link.post(0, &hello(&link, local), true);
        let _ = ROLE.set(Role::Worker {
            link,
            slot: Mutex::new(Some(slot)),
            thread: Mutex::new(Some(thread)),
            settings: settings.clone(),
        });
        return Ok(Vec::new());
    }
    if workers == 0 {
        slot.serve(None);
        let _ = thread.join();
        let why = "SPREAD_REMOTE=mpi but this is the only MPI rank (start the program with mpirun -np 1+W); no remote devices";
        eprintln!("spread: warning: {why}");
        return Err(why.into());
    }
    link.fatal.store(true, Ordering::Relaxed);
    crate::sys::mpi::catch_sigterm();
    let devices = match start_head(&link, slot, first_id, settings.timeout) {
        Ok(d) => d,
        Err(why) => {
            // The communication thread ends the job with the message.
            let _ = thread.join();
            return Err(why);
        }
    };
    let _ = ROLE.set(Role::Head {
        link,
        thread: Mutex::new(Some(thread)),
    });
    Ok(devices)
}

/// Makes this process the head: serves `link` with a [`HeadHandler`], waits for every worker's
/// hello and returns their devices, numbered from `first_id`.
pub fn start_head(
    link: &Arc<Link>,
    slot: HandlerSlot,
    first_id: usize,
    timeout: Duration,
) -> Result<Vec<Box<dyn Device>>, String> {
    let handler = Arc::new(HeadHandler::new(timeout));
    slot.serve(Some(handler.clone()));
    let workers = link.place.size.saturating_sub(1);
    let hellos = handler.wait_hellos(link, workers).inspect_err(|why| {
        link.fail(why.clone());
    })?;
    let mut devices: Vec<Box<dyn Device>> = Vec::new();
    let mut ranks = vec![None; link.place.size];
    for (rank, (host, pid, descs)) in hellos {
        let mut ids = Vec::new();
        for (i, desc) in descs.into_iter().enumerate() {
            let id = first_id + devices.len();
            ids.push(id);
            devices.push(Box::new(RemoteDevice::new(
                id,
                link.clone(),
                rank,
                &host,
                i as u16,
                desc,
            )));
        }
        if let Some(&first) = ids.first() {
            let _ = link.post(
                rank,
                &Msg::Welcome {
                    first_device: first as u64,
                },
                true,
            );
        }
        if let Some(r) = ranks.get_mut(rank) {
            *r = Some(RankInfo {
                host,
                pid,
                devices: ids,
            });
        }
    }
    let _ = handler.ranks.set(ranks);
    Ok(devices)
}

/// Makes this process a worker serving `host`'s devices over `link` (its hello was posted);
/// `report_crashes`: a crash of the process prints which devices failed (see
/// `crate::sys::mpi::report_crashes`).
pub fn start_worker(
    link: &Arc<Link>,
    slot: HandlerSlot,
    host: Arc<dyn super::worker::Host>,
    heartbeat: Duration,
    fault: Option<crate::config::Fault>,
    report_crashes: bool,
) -> Arc<Worker> {
    let worker = Worker::new(host, heartbeat, fault);
    if report_crashes {
        worker.report_crashes();
    }
    slot.serve(Some(Arc::new(WorkerHandler(worker.clone(), link.clone()))));
    worker
}

/// The hello a worker sends first: its host and devices.
pub fn hello(link: &Link, local: &[Box<dyn Device>]) -> Msg {
    Msg::Hello {
        host: link.place.host.clone(),
        pid: std::process::id(),
        devices: local
            .iter()
            .map(|d| super::worker::describe(&**d))
            .collect(),
    }
}

/// On a worker rank: serves this rank's devices (`host`: the runtime's devices and images) until the head ends, then leaves the process
/// (the program's `main` never runs here). Returns at once on the head and without MPI.
pub fn serve_if_worker(host: Arc<dyn super::worker::Host>) {
    let Some(Role::Worker {
        link,
        slot,
        thread,
        settings,
    }) = ROLE.get()
    else {
        return;
    };
    let Some(slot) = slot.lock().take() else {
        return;
    };
    crate::sys::mpi::report_crashes(&format!(
        "spread: error: remote worker (MPI rank {}, host {}) failed: ",
        link.place.rank, link.place.host
    ));
    let heartbeat = (settings.timeout / 4).min(Duration::from_secs(1));
    let worker = start_worker(link, slot, host, heartbeat, settings.fault, true);
    worker.wait_done();
    link.stop();
    if let Some(t) = thread.lock().take() {
        let _ = t.join();
    }
    crate::sys::mpi::exit_now(0)
}

/// Whether this process is a worker rank of cluster mode (it serves its devices to the head
/// and runs none of the program's constructs).
pub fn is_worker() -> bool {
    matches!(ROLE.get(), Some(Role::Worker { .. }))
}

/// On the head: tells the workers the program ended and leaves the MPI job (at exit). With
/// `report`, first prints what was sent to each rank (`SPREAD_INFO=remote`).
pub fn at_exit(report: bool) {
    let Some(Role::Head { link, thread }) = ROLE.get() else {
        return;
    };
    let Some(t) = thread.lock().take() else {
        return;
    };
    if report {
        for (rank, t) in link.traffic().iter().enumerate().skip(1) {
            let mut kinds: Vec<(u64, &str)> = (0..t.kinds.len())
                .filter(|&k| t.kinds[k] > 0)
                .map(|k| (t.kinds[k], protocol::kind_name(k)))
                .collect();
            kinds.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            let kinds: Vec<String> = kinds.iter().map(|(n, k)| format!("{k} {n}")).collect();
            eprintln!(
                "spread: info: remote: MPI rank {rank}: {} messages in {} batches, {} bytes ({})",
                t.messages,
                t.batches,
                t.bytes,
                kinds.join(", ")
            );
        }
    }
    // Every worker answers before the head leaves the job: MPI_Finalize would wait forever for a
    // worker that hangs, while here the communication thread still names it after the timeout.
    for rank in 1..link.place.size {
        let _ = link.request(rank, super::protocol::Request::Leave);
    }
    link.stop();
    let _ = t.join();
}
