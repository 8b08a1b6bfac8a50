//! A process's communication thread and what other threads share with it.
//!
//! One thread per process makes every transport call (so MPI needs no more than
//! `MPI_THREAD_FUNNELED`, and a long kernel or copy never delays a heartbeat). Other threads
//! append messages to a per-destination batch ([`Link::post`]) and wait for replies and signals
//! on condition variables. Batches leave when a message needs to arrive now (`urgent`: requests,
//! synchronizations, events), when they grow past [`BATCH_BYTES`], or [`BATCH_DELAY`] after their
//! first message, so a construct's commands to one rank travel as one message. Messages nobody
//! waits for ([`Link::post_lazy`]: an event forgotten) start no delay: they go with the next
//! batch. When there is
//! nothing to do the thread backs off from spinning to sleeps of up to a millisecond, so an idle
//! rank does not burn a core.

use super::protocol::{self, Msg};
use crate::error::{Error, ErrorKind, Result};
use crate::sys::transport::{Place, Transport};
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A batch this large leaves at once.
pub const BATCH_BYTES: usize = 1 << 20;
/// A batch nobody flushed leaves this long after its first message.
pub const BATCH_DELAY: Duration = Duration::from_micros(100);
/// Longest sleep of an idle communication thread.
const MAX_SLEEP: Duration = Duration::from_millis(1);
/// How long an idle thread keeps spinning before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

/// What a process does with the messages it receives (the head and the workers differ).
pub trait Handler: Send + Sync {
    /// A message from `src`, on the communication thread (must not block for long).
    fn handle(&self, link: &Link, src: usize, msg: Msg);
    /// Called on every turn of the communication thread (heartbeats, deadlines).
    fn tick(&self, link: &Link, now: Instant);
}

/// When a queued message's batch leaves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leave {
    /// At once (someone waits for it).
    Now,
    /// Within [`BATCH_DELAY`], with what follows it meanwhile.
    Soon,
    /// With the next batch that leaves for another reason.
    WithNext,
}

/// The answer to a request.
type Answer = std::result::Result<Vec<u64>, (ErrorKind, String)>;

#[derive(Default)]
struct Outbox {
    batch: Vec<u8>,
    since: Option<Instant>,
    urgent: bool,
    /// Messages and batches sent (statistics), and messages per kind.
    messages: u64,
    batches: u64,
    bytes: u64,
    kinds: [u64; protocol::KINDS],
}

/// Traffic to one rank, for `SPREAD_INFO=remote` and the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Protocol messages sent.
    pub messages: u64,
    /// Transport messages (batches) sent.
    pub batches: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Protocol messages sent per kind (`protocol::kind_name` names them).
    pub kinds: [u64; protocol::KINDS],
}

/// State shared by a process's threads and its communication thread.
pub struct Link {
    /// Where this process is.
    pub place: Place,
    outboxes: Vec<Mutex<Outbox>>,
    /// The communication thread (the link is made on it), for `post` to wake.
    comm: std::thread::Thread,
    answers: Mutex<HashMap<u64, Option<Answer>>>,
    answered: Condvar,
    /// Events that fired and peer transfers that landed (ids from the head's one counter).
    signals: Mutex<HashSet<u64>>,
    /// The times at which events fire, where they are wanted (OMPT trace records).
    times: Mutex<HashMap<u64, u64>>,
    signalled: Condvar,
    /// Where the bytes of pending device-to-host copies go: request → (address, length).
    landing: Mutex<HashMap<u64, (usize, usize)>>,
    /// Signalled when a landing place is done with (its bytes arrived, or it was given up).
    landed: Condvar,
    next_id: AtomicU64,
    /// When each rank was last heard from (milliseconds since `start`).
    last_heard: Vec<AtomicU64>,
    start: Instant,
    failure: Mutex<Option<String>>,
    /// How long a batch nobody flushed waits ([`BATCH_DELAY`]; tests lengthen it).
    batch_delay: parking_lot::RwLock<Duration>,
    /// A failure ends the job (MPI runs); in-process tests only report it.
    pub fatal: AtomicBool,
    stopping: AtomicBool,
    /// Threads of this process waiting for an answer, a signal or running a command: the
    /// communication thread spins (yielding) rather than sleeps while there are any.
    expecting: std::sync::atomic::AtomicUsize,
}

/// Counts a thread as waiting on the link while alive.
pub struct Expecting<'a>(&'a Link);

impl Drop for Expecting<'_> {
    fn drop(&mut self) {
        self.0.expecting.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Link {
    /// Marks the calling thread as waiting on the link until the guard drops.
    pub fn expecting(&self) -> Expecting<'_> {
        self.expecting.fetch_add(1, Ordering::Relaxed);
        self.wake();
        Expecting(self)
    }

    /// The link of the communication thread that calls this.
    fn new(place: Place) -> Self {
        let n = place.size;
        Link {
            outboxes: (0..n).map(|_| Mutex::new(Outbox::default())).collect(),
            comm: std::thread::current(),
            answers: Mutex::new(HashMap::new()),
            answered: Condvar::new(),
            signals: Mutex::new(HashSet::new()),
            times: Mutex::new(HashMap::new()),
            signalled: Condvar::new(),
            landing: Mutex::new(HashMap::new()),
            landed: Condvar::new(),
            // Ids carry the rank that made them, so workers' and the head's never collide.
            next_id: AtomicU64::new(((place.rank as u64) << 48) | 1),
            last_heard: (0..n).map(|_| AtomicU64::new(0)).collect(),
            start: Instant::now(),
            failure: Mutex::new(None),
            fatal: AtomicBool::new(false),
            batch_delay: parking_lot::RwLock::new(BATCH_DELAY),
            expecting: std::sync::atomic::AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            place,
        }
    }

    /// A fresh id for a request, an event or a peer transfer.
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn wake(&self) {
        self.comm.unpark();
    }

    /// Queues `msg` for `dest`; `urgent` sends its batch now.
    pub fn post(&self, dest: usize, msg: &Msg, urgent: bool) -> Result<()> {
        self.post_with(dest, urgent, |b| protocol::append(b, msg))
    }

    /// Queues `msg` for `dest` to leave with the next batch sent there for another reason (or
    /// when the job ends): nobody waits for it, so it never makes a batch of its own.
    pub fn post_lazy(&self, dest: usize, msg: &Msg) -> Result<()> {
        self.queue(dest, Leave::WithNext, |b| protocol::append(b, msg))
    }

    /// Sends what is queued for `dest` now (someone waits for a message that need not have
    /// left when it was queued: an event's record).
    pub fn flush(&self, dest: usize) {
        let Some(ob) = self.outboxes.get(dest) else {
            return;
        };
        let pending = {
            let mut ob = ob.lock();
            ob.urgent |= !ob.batch.is_empty();
            ob.urgent
        };
        if pending {
            self.wake();
        }
    }

    /// Queues the message `write` appends to the batch for `dest`.
    pub fn post_with(
        &self,
        dest: usize,
        urgent: bool,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Result<()> {
        let leave = if urgent { Leave::Now } else { Leave::Soon };
        self.queue(dest, leave, write)
    }

    fn queue(&self, dest: usize, leave: Leave, write: impl FnOnce(&mut Vec<u8>)) -> Result<()> {
        self.check()?;
        let Some(ob) = self.outboxes.get(dest) else {
            return Err(Error::new(
                ErrorKind::Backend,
                format!("no MPI rank {dest} in a job of {}", self.place.size),
            ));
        };
        let flush = {
            let mut ob = ob.lock();
            let at = ob.batch.len();
            write(&mut ob.batch);
            ob.messages += 1;
            if let Some(k) = protocol::kind_at(&ob.batch[at..]) {
                ob.kinds[k] += 1;
            }
            if leave != Leave::WithNext {
                ob.since.get_or_insert_with(Instant::now);
            }
            ob.urgent |= leave == Leave::Now || ob.batch.len() >= BATCH_BYTES;
            ob.urgent
        };
        if flush {
            self.wake();
        }
        Ok(())
    }

    /// Sends `dest` request `body` and waits for its answer.
    pub fn request(&self, dest: usize, body: protocol::Request) -> Answer {
        let req = self.send_request(dest, body)?;
        self.wait_answer(req)
    }

    /// Sends `dest` request `body` now; [`wait_answer`](Self::wait_answer) waits for its answer.
    pub fn send_request(
        &self,
        dest: usize,
        body: protocol::Request,
    ) -> std::result::Result<u64, (ErrorKind, String)> {
        let req = self.next_id();
        self.answers.lock().insert(req, None);
        if let Err(e) = self.post(dest, &Msg::Request { req, body }, true) {
            self.answers.lock().remove(&req);
            return Err((e.kind, e.message));
        }
        Ok(req)
    }

    /// Whether the answer to request `req` has come (or the job failed, which answers it).
    pub fn answered(&self, req: u64) -> bool {
        matches!(self.answers.lock().get(&req), Some(Some(_))) || self.failed().is_some()
    }

    /// Waits for the answer to request `req` (from [`send_request`](Self::send_request)).
    pub fn wait_answer(&self, req: u64) -> Answer {
        let _waiting = self.expecting();
        let mut answers = self.answers.lock();
        loop {
            if let Some(Some(_)) = answers.get(&req) {
                return answers
                    .remove(&req)
                    .flatten()
                    .unwrap_or_else(|| Err((ErrorKind::Backend, "lost answer".into())));
            }
            if let Some(f) = self.failed() {
                answers.remove(&req);
                return Err((ErrorKind::Backend, f));
            }
            self.answered
                .wait_for(&mut answers, Duration::from_millis(100));
        }
    }

    /// Records the answer to request `req` (communication thread).
    pub fn answer(&self, req: u64, answer: Answer) {
        let mut a = self.answers.lock();
        if let Some(slot) = a.get_mut(&req) {
            *slot = Some(answer);
            self.answered.notify_all();
        }
    }

    /// Marks event `id` as done at `time` (its rank's [`wall_ns`]), kept where [`Link::time`]
    /// was asked for it.
    pub fn signal_at(&self, id: u64, time: u64) {
        if let Some(t) = self.times.lock().get_mut(&id) {
            *t = time;
        }
        self.signal(id);
    }

    /// Keeps the time at which event `id` fires, for [`Link::time`].
    pub fn keep_time(&self, id: u64) {
        self.times.lock().insert(id, 0);
    }

    /// The time at which event `id` fired (kept by [`Link::keep_time`]; `None`: not known),
    /// forgotten once asked.
    pub fn time(&self, id: u64) -> Option<u64> {
        self.times.lock().remove(&id).filter(|&t| t != 0)
    }

    /// Marks event or transfer `id` as done.
    pub fn signal(&self, id: u64) {
        self.signals.lock().insert(id);
        self.signalled.notify_all();
    }

    /// Whether `id` was signalled.
    pub fn signalled(&self, id: u64) -> bool {
        self.signals.lock().contains(&id)
    }

    /// Forgets `id` (its event is gone).
    pub fn forget(&self, id: u64) {
        self.signals.lock().remove(&id);
    }

    /// Waits until `id` is signalled, or the job failed.
    pub fn wait_signal(&self, id: u64) -> Result<()> {
        if self.signalled(id) {
            return Ok(());
        }
        let _waiting = self.expecting();
        let mut s = self.signals.lock();
        loop {
            if s.contains(&id) {
                return Ok(());
            }
            if let Some(f) = self.failed() {
                return Err(Error::new(ErrorKind::Backend, f));
            }
            self.signalled.wait_for(&mut s, Duration::from_millis(100));
        }
    }

    /// Registers where the bytes of device-to-host copy `req` land.
    pub fn expect_data(&self, req: u64, dst: usize, len: usize) {
        self.landing.lock().insert(req, (dst, len));
    }

    /// Gives up the landing place of `req` (the stream's synchronization, for what never
    /// arrived: a failed stream).
    pub fn take_landing(&self, req: u64) -> Option<(usize, usize)> {
        let taken = self.landing.lock().remove(&req);
        self.landed.notify_all();
        taken
    }

    /// Writes the bytes of device-to-host copy `req` where they land (the communication thread);
    /// the place stays registered until they are written, for [`Link::wait_landed`].
    pub fn land(&self, req: u64, data: &[u8]) {
        let mut l = self.landing.lock();
        if let Some(&(dst, len)) = l.get(&req) {
            crate::sys::access::transfer(dst, data.as_ptr() as usize, len.min(data.len()));
            l.remove(&req);
        }
        drop(l);
        self.landed.notify_all();
    }

    /// Waits until no pending device-to-host copy lands in `[begin, begin + len)`: a copy to a
    /// device reads host memory when it is queued (its bytes travel in the batch), so bytes an
    /// earlier construct is still bringing back must be there first (a `nowait` construct that
    /// `depend`s on another's results: it sent the host's older values; cluster-mode fuzzer).
    pub fn wait_landed(&self, begin: usize, len: usize) -> Result<()> {
        let end = begin.saturating_add(len);
        let overlaps = |l: &HashMap<u64, (usize, usize)>| {
            l.values()
                .any(|&(d, n)| d < end && begin < d.saturating_add(n))
        };
        let mut l = self.landing.lock();
        if !overlaps(&l) {
            return Ok(());
        }
        let _waiting = self.expecting();
        loop {
            // The copies may still sit in batches nobody flushed.
            drop(l);
            for dest in 0..self.outboxes.len() {
                self.flush(dest);
            }
            l = self.landing.lock();
            if !overlaps(&l) {
                return Ok(());
            }
            if let Some(f) = self.failed() {
                return Err(Error::new(ErrorKind::Backend, f));
            }
            self.landed.wait_for(&mut l, Duration::from_millis(100));
        }
    }

    /// The job failed: every waiter returns this message from now on.
    pub fn fail(&self, message: String) {
        self.failure.lock().get_or_insert(message);
        self.answered.notify_all();
        self.signalled.notify_all();
    }

    /// The failure, as an error, if the job failed.
    pub fn check(&self) -> Result<()> {
        match self.failed() {
            Some(f) => Err(Error::new(ErrorKind::Backend, f)),
            None => Ok(()),
        }
    }

    /// The failure, if the job failed. When failures are fatal the communication thread is
    /// ending the job with the message: the calling thread waits for that rather than report a
    /// second error of its own.
    fn failed(&self) -> Option<String> {
        let f = self.failure.lock().clone();
        if f.is_some() && self.fatal.load(Ordering::Relaxed) {
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        f
    }

    /// Seconds since `rank` was last heard from.
    pub fn silent_for(&self, rank: usize, now: Instant) -> Duration {
        let ms = self
            .last_heard
            .get(rank)
            .map_or(0, |a| a.load(Ordering::Relaxed));
        now.saturating_duration_since(self.start + Duration::from_millis(ms))
    }

    /// What was sent to each rank so far.
    pub fn traffic(&self) -> Vec<Traffic> {
        self.outboxes
            .iter()
            .map(|o| {
                let o = o.lock();
                Traffic {
                    messages: o.messages,
                    batches: o.batches,
                    bytes: o.bytes,
                    kinds: o.kinds,
                }
            })
            .collect()
    }

    /// Sets how long an unflushed batch waits before it leaves.
    pub fn set_batch_delay(&self, d: Duration) {
        *self.batch_delay.write() = d;
    }

    /// Asks the communication thread to send what is queued, finish and leave the job.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.wake();
    }
}

/// Takes the batches due for sending.
fn due_batches(link: &Link, now: Instant) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    let delay = *link.batch_delay.read();
    for (dest, ob) in link.outboxes.iter().enumerate() {
        let mut ob = ob.lock();
        let due = ob.urgent
            || ob
                .since
                .is_some_and(|t| now.saturating_duration_since(t) >= delay)
            || (link.stopping.load(Ordering::Acquire) && !ob.batch.is_empty());
        if due && !ob.batch.is_empty() {
            let b = std::mem::take(&mut ob.batch);
            ob.batches += 1;
            ob.bytes += b.len() as u64;
            ob.since = None;
            ob.urgent = false;
            out.push((dest, b));
        }
    }
    out
}

/// Starts the communication thread: it makes the transport with `open` (MPI initialises on the
/// thread that will make every call), tells the caller where the process is, then serves with
/// the handler the caller sends back once it knows its role.
pub fn start<F>(open: F) -> Result<(Arc<Link>, HandlerSlot, std::thread::JoinHandle<()>)>
where
    F: FnOnce() -> std::result::Result<Box<dyn Transport>, String> + Send + 'static,
{
    let (placed_tx, placed_rx) = std::sync::mpsc::channel();
    let (handler_tx, handler_rx) = std::sync::mpsc::channel::<Option<Arc<dyn Handler>>>();
    let thread = std::thread::Builder::new()
        .name("spread-remote".into())
        .spawn(move || {
            let mut transport = match open() {
                Ok(t) => t,
                Err(e) => {
                    let _ = placed_tx.send(Err(e));
                    return;
                }
            };
            let link = Arc::new(Link::new(transport.place().clone()));
            if placed_tx.send(Ok(link.clone())).is_err() {
                transport.finalize();
                return;
            }
            match handler_rx.recv() {
                Ok(Some(handler)) => run(&link, &mut *transport, &*handler),
                _ => transport.finalize(),
            }
        })
        .map_err(|e| {
            Error::new(
                ErrorKind::Backend,
                format!("cannot start the remote communication thread: {e}"),
            )
        })?;
    match placed_rx.recv() {
        Ok(Ok(link)) => Ok((link, HandlerSlot(handler_tx), thread)),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(Error::new(ErrorKind::Backend, e))
        }
        Err(_) => {
            let _ = thread.join();
            Err(Error::new(
                ErrorKind::Backend,
                "the remote communication thread ended during start-up",
            ))
        }
    }
}

/// Hands the communication thread its handler (or none: it then leaves the job at once).
pub struct HandlerSlot(std::sync::mpsc::Sender<Option<Arc<dyn Handler>>>);

impl HandlerSlot {
    /// Starts serving with `handler`.
    pub fn serve(self, handler: Option<Arc<dyn Handler>>) {
        let _ = self.0.send(handler);
    }
}

/// The communication thread's loop.
fn run(link: &Link, transport: &mut dyn Transport, handler: &dyn Handler) {
    let mut idle_since = Instant::now();
    let abort = |transport: &mut dyn Transport, why: String| -> ! {
        eprintln!("spread: error: {why}");
        transport.abort(70)
    };
    loop {
        let now = Instant::now();
        let mut busy = false;
        for (dest, batch) in due_batches(link, now) {
            busy = true;
            if let Err(e) = transport.send(dest, batch) {
                abort(transport, format!("sending to MPI rank {dest} failed: {e}"));
            }
        }
        let in_flight = match transport.progress() {
            Ok(n) => n,
            Err(e) => abort(transport, format!("an MPI send failed: {e}")),
        };
        // A bounded number per turn, so that sends and deadlines keep being served.
        for _ in 0..64 {
            match transport.poll() {
                Ok(Some((src, batch))) => {
                    busy = true;
                    if let Some(a) = link.last_heard.get(src) {
                        let ms = now.saturating_duration_since(link.start).as_millis() as u64;
                        a.store(ms, Ordering::Relaxed);
                    }
                    match protocol::decode(batch) {
                        Ok(msgs) => {
                            for m in msgs {
                                handler.handle(link, src, m);
                            }
                        }
                        Err(e) => abort(
                            transport,
                            format!("a corrupt message came from MPI rank {src}: {e}"),
                        ),
                    }
                }
                Ok(None) => break,
                Err(e) => abort(transport, format!("receiving failed: {e}")),
            }
        }
        handler.tick(link, now);
        if link.fatal.load(Ordering::Relaxed) {
            if let Some(f) = link.failure.lock().clone() {
                abort(transport, f);
            }
        }
        if link.stopping.load(Ordering::Acquire)
            && in_flight == 0
            && link.outboxes.iter().all(|o| o.lock().batch.is_empty())
        {
            transport.finalize();
            return;
        }
        if busy || in_flight > 0 {
            idle_since = now;
            if in_flight > 0 {
                std::thread::yield_now();
            }
            continue;
        }
        if link.expecting.load(Ordering::Relaxed) > 0 {
            // An answer is due soon: keep polling, but let the threads that produce it run.
            std::thread::yield_now();
            continue;
        }
        let idle = now.saturating_duration_since(idle_since);
        if idle < SPIN {
            std::thread::yield_now();
        } else {
            // Woken early by `post` (unpark) when a batch must leave.
            std::thread::park_timeout((idle / 4).clamp(SPIN, MAX_SLEEP));
        }
    }
}

/// The wall clock in nanoseconds since the Unix epoch: when an event fired, as its rank tells
/// the head (the head turns it into its own monotonic time; ranks on other nodes are as far
/// apart as their clocks).
pub fn wall_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}
