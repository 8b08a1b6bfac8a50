//! The executor threads every host device shares, and the work waiting for one.
//!
//! Host devices are the machine's own cores. With threads of their own per device, four devices
//! that work at once on two cores kept eight or more executors runnable beside the program's
//! threads: each hand-off waited for a time slice, and kernels time-sliced against each other
//! (Somier's half buffers: 17k context switches in 40 steps, 1.3x the one-device time). One pool
//! for all of them instead keeps about as many executors running as there are cores: work that
//! arrives while they are all busy waits in the queue, and an executor that finishes one job
//! takes the next without sleeping (or a thread about to wait for a job runs it itself when a
//! core is free for it, see [`Pool::take`]).
//!
//! Devices still run at once whenever a core is free, and a job never waits for a core that is
//! not really used: an executor whose job blocks (a kernel that sleeps or waits for another
//! device, a wait for a GPU's event) leaves its core idle. A watcher thread, awake only while jobs
//! wait, reads the busy executors' CPU-time clocks every [`Timing::watch`]: one that hardly ran
//! and sleeps now (not one waiting for a core, nor one whose kernel's team works while it waits
//! at the team's barrier, [`TeamScope`]) is blocked, and while fewer than the base are left
//! unblocked the watcher wakes or starts one more executor (also when no job was taken for
//! [`Timing::stall`]: executors spinning on each other). Once enough unblocked executors run
//! again, one that finishes a job steps back instead of taking the next, and executors beyond
//! the base end after [`Timing::retire`] idle.
//!
//! Wake-ups are signalled after the pool's lock is released: parking_lot moves a thread
//! notified under the lock onto the lock's queue, where it may be handed the lock while it still
//! waits for a core, and every thread that queues work then waits for it (the hand-split stencil
//! of `bench/stencil`: 1.1 ms per stall, 0.17 s against 0.11 s).

use crate::sys::thread_state::ThreadState;
use parking_lot::{Condvar, Mutex};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

thread_local! {
    /// On an executor: its slot's team flag.
    static TEAM: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Marks the calling executor as running a kernel with a team of several threads while it lives
/// (nothing on other threads). Such an executor may sleep at the team's barriers while its
/// team's threads compute or wait for a core: the watcher does not count it as blocked.
pub(crate) struct TeamScope(Option<Arc<AtomicBool>>);

impl TeamScope {
    /// Enters the scope on the calling thread.
    pub(crate) fn enter() -> Self {
        // At exit the main thread may run a last batch after its thread-locals were destroyed
        // (issue 43's exit panic): it is no executor then.
        let flag = TEAM.try_with(|t| t.borrow().clone()).ok().flatten();
        if let Some(f) = &flag {
            f.store(true, Ordering::Relaxed);
        }
        TeamScope(flag)
    }
}

impl Drop for TeamScope {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            f.store(false, Ordering::Relaxed);
        }
    }
}

/// Work an executor runs.
pub(super) trait Job: Send + Sync + 'static {
    /// Runs the job on the calling executor.
    fn run(self: Arc<Self>);
}

/// The pool's clocks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timing {
    /// How often the watcher looks at the executors while jobs wait.
    pub watch: Duration,
    /// Jobs waiting this long with none taken get one more executor, whatever the executors
    /// seem to do.
    pub stall: Duration,
    /// An executor beyond the base ends after this long without work.
    pub retire: Duration,
}

impl Timing {
    /// Host devices' pool: a blocked kernel's jobs wait about a millisecond for a replacement.
    pub const DEFAULT: Timing = Timing {
        watch: Duration::from_millis(1),
        stall: Duration::from_millis(50),
        retire: Duration::from_millis(100),
    };
}

/// Whether an executor that used `cpu` nanoseconds of CPU time over the watcher's `interval`
/// hardly ran: less than a quarter of it (a kernel that computes between short waits still
/// runs). Such an executor blocked if it sleeps now; one waiting for a core is runnable.
fn hardly_ran(cpu: u64, interval: Duration) -> bool {
    let interval = u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX);
    cpu < interval / 4
}

/// An executor's view of whether its jobs sleep. Reading its CPU clock is a system call, about
/// a microsecond: once per job it cost Somier's pipelines (thousands of short batches) 3-5 %. So
/// the clock is read only after a job long enough to tell (200 us), and the CPU time since the
/// last reading is charged to that job: short jobs in between only make it look busier, never
/// asleep.
struct SleepMeter {
    state: Option<Arc<ThreadState>>,
    /// The CPU clock at its last reading.
    cpu: Option<u64>,
}

impl SleepMeter {
    fn new(state: Option<Arc<ThreadState>>) -> Self {
        let cpu = state.as_ref().and_then(|t| t.cpu_ns());
        SleepMeter { state, cpu }
    }

    /// Whether the job that started at `start` and just ended hardly ran (it slept); `None` when
    /// it was too short to tell or the clock cannot be read.
    fn slept(&mut self, start: Instant) -> Option<bool> {
        let wall = start.elapsed();
        if wall < Duration::from_micros(200) {
            return None;
        }
        let now = self.state.as_ref()?.cpu_ns()?;
        let before = self.cpu.replace(now)?;
        Some(hardly_ran(now.saturating_sub(before), wall))
    }
}

/// What a pool tells its owner: host devices count it in the profile, tests count what they
/// check. Every method has an empty default.
pub(super) trait Hooks: Send + Sync + 'static {
    /// On each executor thread, before it runs anything.
    fn started(&self) {}
    /// The number of executors that run jobs at once when none blocks changed by `delta`.
    fn base_changed(&self, _delta: usize) {}
    /// An executor starts (`true`) or ends (`false`) running a job.
    fn running(&self, _starts: bool) {}
    /// An executor was woken or started because others blocked or stalled.
    fn added_for_blocked(&self) {}
}

/// Hooks that count nothing.
#[cfg(test)]
pub(super) struct NoHooks;

#[cfg(test)]
impl Hooks for NoHooks {}

/// What [`Pool::add_executor`] did.
enum Added {
    /// Claimed an idle executor: notify `work`.
    Woken,
    /// Started a new one.
    Started,
    /// Neither (at the most, or the thread could not start).
    None,
}

/// Executor threads and the jobs waiting for one.
pub(super) struct Pool<J: Job> {
    hooks: Arc<dyn Hooks>,
    state: Mutex<State<J>>,
    /// Executors wait on it for work.
    work: Condvar,
    /// Notified when an executor becomes idle or ends ([`Pool::stop_if_idle`] waits on it).
    settled: Condvar,
    /// The watcher waits on it for a backlog.
    backlog: Condvar,
    /// Most executors at once.
    max: usize,
    name: &'static str,
    timing: Timing,
}

struct State<J> {
    ready: VecDeque<Arc<J>>,
    /// Executors that run jobs at once when none blocks.
    base: usize,
    /// Executors started and not ended.
    threads: usize,
    /// Executors waiting for a job.
    idle: usize,
    /// Threads running a job they took themselves ([`Pool::take`]): they use a core as an
    /// executor would.
    here: usize,
    /// Idle executors notified and not awake yet (each will take a job).
    waking: usize,
    /// Set by [`Pool::stop_if_idle`]: idle executors and the watcher end.
    stopping: bool,
    /// Per executor slot: its thread, its CPU clock and state, and whether it runs a job.
    slots: Vec<Slot>,
    /// Jobs taken from the queue so far (the watcher's sign of progress).
    taken: u64,
    /// Busy executors the watcher last found blocked (0 when it is not watching).
    blocked: usize,
    /// The last job an executor ran long enough to tell hardly ran: it slept (a kernel waiting
    /// for a timer or another device), and those that follow probably do too.
    jobs_sleep: bool,
    watcher: Option<std::thread::JoinHandle<()>>,
    /// The watcher waits for jobs to wait (and only then needs a notification).
    watcher_waiting: bool,
}

#[derive(Default)]
struct Slot {
    handle: Option<std::thread::JoinHandle<()>>,
    /// Set by the executor once started; `None` when the system keeps no statistics.
    state: Option<Arc<ThreadState>>,
    /// Set while the executor runs a kernel with a team of several threads ([`TeamScope`]).
    team: Arc<AtomicBool>,
    busy: bool,
    /// The executor ended (its handle may still need joining).
    ended: bool,
}

impl<J> State<J> {
    /// Executors running a job or about to take one, less those blocked, and threads running a
    /// job themselves.
    fn active(&self) -> usize {
        (self.threads - (self.idle - self.waking)).saturating_sub(self.blocked) + self.here
    }

    /// Jobs that notified executors will take if the calling thread takes one of the queued
    /// ones, and the caller's (an executor woken for the job the caller takes finds none).
    fn committed_with_one_more(&self) -> usize {
        self.waking.min(self.ready.len().saturating_sub(1)) + 1
    }

    /// Threads running a job now, less the executors the watcher found blocked.
    fn running(&self) -> usize {
        (self.threads - self.idle).saturating_sub(self.blocked) + self.here
    }
}

/// A job a thread took from the queue to run itself ([`Pool::take`]), counted as running while
/// this lives; when it drops, jobs that waited behind it get executors.
pub(super) struct RunningHere<J: Job>(Arc<Pool<J>>);

impl<J: Job> Drop for RunningHere<J> {
    fn drop(&mut self) {
        let pool = &self.0;
        let mut st = pool.state.lock();
        st.here -= 1;
        let (wake, _) = pool.add_for_queued(&mut st, false);
        drop(st);
        for _ in 0..wake {
            pool.work.notify_one();
        }
    }
}

impl<J: Job> Pool<J> {
    /// A pool that runs `base` executors at once (more while some block), at most `max`, each
    /// telling `hooks` what they do; `name` names its threads.
    pub(super) fn new(
        name: &'static str,
        base: usize,
        max: usize,
        timing: Timing,
        hooks: Arc<dyn Hooks>,
    ) -> Arc<Self> {
        let base = base.max(1);
        hooks.base_changed(base);
        Arc::new(Pool {
            hooks,
            state: Mutex::new(State {
                ready: VecDeque::new(),
                base,
                threads: 0,
                idle: 0,
                here: 0,
                waking: 0,
                stopping: false,
                slots: Vec::new(),
                taken: 0,
                blocked: 0,
                jobs_sleep: false,
                watcher: None,
                watcher_waiting: false,
            }),
            work: Condvar::new(),
            settled: Condvar::new(),
            backlog: Condvar::new(),
            max: max.max(base),
            name,
            timing,
        })
    }

    /// Raises the base to at least `n` (devices whose kernels have threads of their own each
    /// expect to run when they have work).
    pub(super) fn base_at_least(&self, n: usize) {
        let mut st = self.state.lock();
        let base = st.base.max(n).min(self.max);
        self.hooks.base_changed(base - st.base);
        st.base = base;
    }

    /// Queues `job`; wakes or starts an executor for it when fewer than the base are active.
    /// Without any executor (none could start) the job runs here.
    pub(super) fn push(self: &Arc<Self>, job: Arc<J>) {
        let mut st = self.state.lock();
        st.stopping = false;
        st.ready.push_back(job);
        if st.active() < st.base {
            match self.add_executor(&mut st) {
                Added::Woken => {
                    drop(st);
                    self.work.notify_one();
                }
                Added::Started => {}
                Added::None if st.threads == 0 => {
                    let job = st.ready.pop_back();
                    drop(st);
                    if let Some(job) = job {
                        job.run();
                    }
                }
                Added::None => {}
            }
            return;
        }
        if st.watcher.is_none() {
            let pool = self.clone();
            let name = format!("{}.watch", self.name);
            if let Ok(h) = std::thread::Builder::new()
                .name(name)
                .spawn(move || pool.watch())
            {
                st.watcher = Some(h);
            }
        }
        if st.watcher_waiting {
            drop(st);
            self.backlog.notify_one();
        }
    }

    /// Claims an idle executor (the caller notifies `work` once it has released the lock: a
    /// thread notified while the lock is held is queued on the lock, and may be handed it while
    /// it waits for a core, stalling everyone behind it), or starts one below the most.
    fn add_executor(self: &Arc<Self>, st: &mut State<J>) -> Added {
        if st.idle > st.waking {
            st.waking += 1;
            return Added::Woken;
        }
        if st.threads >= self.max {
            return Added::None;
        }
        let slot = match st.slots.iter().position(|s| s.ended) {
            Some(i) => {
                // The thread that ended there is gone or going: nothing to wait for.
                if let Some(h) = st.slots[i].handle.take() {
                    let _ = h.join();
                }
                st.slots[i] = Slot::default();
                i
            }
            None => {
                st.slots.push(Slot::default());
                st.slots.len() - 1
            }
        };
        let pool = self.clone();
        let name = format!("{}.{slot}", self.name);
        let team = Arc::new(AtomicBool::new(false));
        let flag = team.clone();
        match std::thread::Builder::new()
            .name(name)
            .spawn(move || pool.executor(slot, flag))
        {
            Ok(h) => {
                st.threads += 1;
                // Counted busy from the start: it takes a job as soon as it runs.
                st.slots[slot] = Slot {
                    handle: Some(h),
                    state: None,
                    team,
                    busy: true,
                    ended: false,
                };
                Added::Started
            }
            Err(_) => {
                st.slots[slot].ended = true;
                Added::None
            }
        }
    }

    /// Wakes or starts one executor per queued job that no executor already woken will take, up
    /// to the base of unblocked ones (and one beyond it when `one_more`); how many to notify
    /// once the lock is released, and how many were added.
    fn add_for_queued(self: &Arc<Self>, st: &mut State<J>, one_more: bool) -> (usize, usize) {
        let (mut wake, mut added) = (0, 0);
        let mut unclaimed = st.ready.len().saturating_sub(st.waking);
        while unclaimed > 0 && (st.active() < st.base || (one_more && added == 0)) {
            match self.add_executor(st) {
                Added::Woken => wake += 1,
                Added::Started => {}
                Added::None => break,
            }
            added += 1;
            unclaimed -= 1;
        }
        (wake, added)
    }

    /// Takes `job` out of the queue for the calling thread to run, if no executor has taken it
    /// yet and a core is free for it: a thread about to wait for the job then runs it instead of
    /// waking an executor and waiting to be woken (two hand-offs saved), but not beside
    /// executors that already keep every core busy, nor in the place of one notified for
    /// another job. There it waits: an executor takes the job next, where a third kernel on two
    /// cores would only time-slice with theirs (the hand-split stencil of `bench/stencil`: the
    /// issuing thread ran a kernel at its `taskwait` while both executors woke for the next two,
    /// and the step's kernels took 1.5 to 2 times as long). When the last job an executor ran
    /// slept, cores do not count: jobs that sleep leave theirs free (`bench/nowait`'s eight
    /// threads, whose kernels sleep, each run their own at once). The job counts as running
    /// until the returned guard drops.
    pub(super) fn take(self: &Arc<Self>, job: &Arc<J>) -> Option<RunningHere<J>> {
        let mut st = self.state.lock();
        let i = st.ready.iter().position(|j| Arc::ptr_eq(j, job))?;
        if !st.jobs_sleep && st.running() + st.committed_with_one_more() > st.base {
            return None;
        }
        st.ready.remove(i);
        st.here += 1;
        Some(RunningHere(self.clone()))
    }

    fn executor(self: Arc<Self>, slot: usize, team: Arc<AtomicBool>) {
        TEAM.with(|t| *t.borrow_mut() = Some(team));
        self.hooks.started();
        let state = ThreadState::current().map(Arc::new);
        let mut st = self.state.lock();
        st.slots[slot].state = state.clone();
        let mut meter = SleepMeter::new(state);
        let mut ran = false;
        loop {
            // After a job, step back when more than the base run unblocked (executors the
            // watcher added while others blocked, and those run again).
            let step_back = std::mem::take(&mut ran) && st.active() > st.base;
            if !step_back {
                if let Some(job) = st.ready.pop_front() {
                    st.taken += 1;
                    st.slots[slot].busy = true;
                    let slept = parking_lot::MutexGuard::unlocked(&mut st, || {
                        self.hooks.running(true);
                        let start = Instant::now();
                        job.run();
                        self.hooks.running(false);
                        meter.slept(start)
                    });
                    if let Some(slept) = slept {
                        st.jobs_sleep = slept;
                    }
                    ran = true;
                    continue;
                }
            }
            st.slots[slot].busy = false;
            if st.stopping {
                return self.end(&mut st, slot);
            }
            st.idle += 1;
            self.settled.notify_all();
            let timed_out = self.work.wait_for(&mut st, self.timing.retire).timed_out();
            st.idle -= 1;
            st.waking = st.waking.saturating_sub(1).min(st.idle);
            if timed_out && st.ready.is_empty() && st.threads > st.base {
                return self.end(&mut st, slot);
            }
        }
    }

    fn end(&self, st: &mut State<J>, slot: usize) {
        st.threads -= 1;
        st.slots[slot].busy = false;
        st.slots[slot].ended = true;
        self.settled.notify_all();
    }

    /// While jobs wait: every [`Timing::watch`], counts the busy executors that blocked, and
    /// wakes or starts one more executor when fewer than the base are left unblocked, or when
    /// none took a job for [`Timing::stall`].
    fn watch(self: Arc<Self>) {
        let mut st = self.state.lock();
        let mut progress = (st.taken, Instant::now());
        loop {
            if st.stopping {
                return;
            }
            if st.ready.is_empty() {
                st.blocked = 0;
                st.watcher_waiting = true;
                self.backlog.wait(&mut st);
                st.watcher_waiting = false;
                progress = (st.taken, Instant::now());
                continue;
            }
            let busy: Vec<(usize, Arc<ThreadState>)> = st
                .slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.busy && !s.ended)
                .filter_map(|(i, s)| Some((i, s.state.clone()?)))
                .collect();
            let watch = self.timing.watch;
            let seen = parking_lot::MutexGuard::unlocked(&mut st, || {
                let before: Vec<Option<u64>> = busy.iter().map(|(_, t)| t.cpu_ns()).collect();
                std::thread::sleep(watch);
                busy.iter()
                    .zip(before)
                    .map(|((_, t), b)| match (b, t.cpu_ns()) {
                        // The state only for those that hardly ran (reading it costs a few us).
                        (Some(b), Some(a)) if hardly_ran(a.saturating_sub(b), watch) => {
                            t.runnable() == Some(false)
                        }
                        _ => false,
                    })
                    .collect::<Vec<bool>>()
            });
            if st.stopping {
                return;
            }
            st.blocked = busy
                .iter()
                .zip(seen)
                .filter(|((slot, t), blocked)| {
                    *blocked
                        && st.slots.get(*slot).is_some_and(|s| {
                            s.busy
                                && !s.team.load(Ordering::Relaxed)
                                && s.state.as_ref().is_some_and(|x| Arc::ptr_eq(x, t))
                        })
                })
                .count();
            if st.taken != progress.0 {
                progress = (st.taken, Instant::now());
            }
            let stalled = progress.1.elapsed() >= self.timing.stall;
            // One only when stalled: the clocks said nothing is blocked.
            let (wake, added) = self.add_for_queued(&mut st, stalled);
            for _ in 0..added {
                self.hooks.added_for_blocked();
            }
            if added > 0 {
                progress = (st.taken, Instant::now());
            }
            if wake > 0 {
                parking_lot::MutexGuard::unlocked(&mut st, || {
                    (0..wake).for_each(|_| {
                        self.work.notify_one();
                    })
                });
            }
        }
    }

    /// Executors started and not ended.
    #[cfg(test)]
    pub(super) fn threads(&self) -> usize {
        self.state.lock().threads
    }

    /// Jobs waiting for an executor.
    #[cfg(test)]
    pub(super) fn queued(&self) -> usize {
        self.state.lock().ready.len()
    }

    /// Ends the executors and the watcher and waits for them when no job is waiting and all
    /// executors are idle (else leaves them be: work still running at exit may wait for
    /// something that never comes). An executor that ran a kernel is a libomp root thread,
    /// whose descriptors libomp frees when the thread ends. A later job starts new executors.
    pub(super) fn stop_if_idle(&self) {
        let handles = {
            let mut st = self.state.lock();
            // An executor whose job has just completed (the program saw it and exits) is on its
            // way back to idle: give it a moment rather than leave it running into libomp's
            // shutdown.
            let deadline = Instant::now() + crate::exit::SETTLE;
            while st.ready.is_empty()
                && st.idle != st.threads
                && !self.settled.wait_until(&mut st, deadline).timed_out()
            {}
            if !st.ready.is_empty() || st.idle != st.threads {
                return;
            }
            let me = std::thread::current().id();
            let mine = |h: &std::thread::JoinHandle<()>| h.thread().id() == me;
            if st.slots.iter().flat_map(|s| &s.handle).any(mine)
                || st.watcher.as_ref().is_some_and(mine)
            {
                return; // a pool thread cannot join itself
            }
            st.stopping = true;
            let mut handles: Vec<_> = st
                .slots
                .iter_mut()
                .filter_map(|s| s.handle.take())
                .collect();
            handles.extend(st.watcher.take());
            for s in &mut st.slots {
                s.ended = true;
            }
            handles
        };
        self.work.notify_all();
        self.backlog.notify_all();
        for h in handles {
            let _ = h.join();
        }
        self.state.lock().slots.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A job that sleeps or computes for a while, counting how many run at once.
    struct Hold {
        compute: bool,
        ms: u64,
        now: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
        done: Mutex<bool>,
        finished: Condvar,
    }

    impl Job for Hold {
        fn run(self: Arc<Self>) {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(n, Ordering::SeqCst);
            let t0 = Instant::now();
            let d = Duration::from_millis(self.ms);
            if self.compute {
                while t0.elapsed() < d {
                    std::hint::spin_loop();
                }
            } else {
                std::thread::sleep(d);
            }
            self.now.fetch_sub(1, Ordering::SeqCst);
            *self.done.lock() = true;
            self.finished.notify_all();
        }
    }

    impl Hold {
        fn wait(&self) {
            let mut d = self.done.lock();
            while !*d {
                self.finished.wait(&mut d);
            }
        }
    }

    fn jobs(n: usize, compute: bool, ms: u64) -> (Vec<Arc<Hold>>, Arc<AtomicUsize>) {
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let v = (0..n)
            .map(|_| {
                Arc::new(Hold {
                    compute,
                    ms,
                    now: now.clone(),
                    most: most.clone(),
                    done: Mutex::new(false),
                    finished: Condvar::new(),
                })
            })
            .collect();
        (v, most)
    }

    /// Queues `job` on an idle pool and waits until an executor has taken it.
    fn push_taken(p: &Arc<Pool<Hold>>, job: &Arc<Hold>) {
        p.push(job.clone());
        while !p.state.lock().ready.is_empty() {
            std::thread::yield_now();
        }
    }

    fn pool(base: usize) -> Arc<Pool<Hold>> {
        Pool::new("test-pool", base, 16, Timing::DEFAULT, Arc::new(NoHooks))
    }

    #[test]
    fn computing_jobs_run_base_at_a_time() {
        let p = pool(1);
        let (js, most) = jobs(4, true, 10);
        for j in &js {
            p.push(j.clone());
        }
        js.iter().for_each(|j| j.wait());
        assert_eq!(
            most.load(Ordering::SeqCst),
            1,
            "one core's worth of executors"
        );
        p.stop_if_idle();
    }

    #[test]
    fn sleeping_jobs_get_more_executors() {
        // Jobs that sleep leave their core idle: the watcher adds executors until they overlap.
        let p = pool(1);
        let (js, most) = jobs(4, false, 200);
        for j in &js {
            p.push(j.clone());
        }
        js.iter().for_each(|j| j.wait());
        assert_eq!(most.load(Ordering::SeqCst), 4, "all four overlapped");
        p.stop_if_idle();
        assert_eq!(p.threads(), 0);
    }

    #[test]
    fn a_waiting_thread_runs_no_job_beside_executors_that_fill_the_cores() {
        let p = pool(1);
        let (js, most) = jobs(2, true, 20);
        push_taken(&p, &js[0]);
        p.push(js[1].clone());
        // The only executor computes the first job: the second waits for it, not beside it.
        assert!(p.take(&js[1]).is_none());
        js.iter().for_each(|j| j.wait());
        assert_eq!(most.load(Ordering::SeqCst), 1);
        p.stop_if_idle();
    }

    #[test]
    fn after_a_job_that_slept_a_waiting_thread_runs_its_job_beside_the_executors() {
        let p = pool(1);
        let (js, most) = jobs(3, false, 20);
        p.push(js[0].clone());
        js[0].wait();
        while !p.state.lock().jobs_sleep {
            std::thread::yield_now();
        }
        push_taken(&p, &js[1]);
        p.push(js[2].clone());
        // The executor sleeps in the second job: its core is free for the third.
        let here = p.take(&js[2]).expect("jobs sleep: cores do not count");
        js[2].clone().run();
        drop(here);
        js[1].wait();
        assert_eq!(most.load(Ordering::SeqCst), 2);
        p.stop_if_idle();
    }

    #[test]
    fn a_waiting_thread_takes_the_place_of_an_executor_not_awake_yet() {
        let p = pool(2);
        let (js, _) = jobs(3, true, 20);
        {
            let mut st = p.state.lock();
            // Two executors notified for two queued jobs, none awake yet.
            st.threads = 2;
            st.idle = 2;
            st.waking = 2;
            st.ready.extend(js[..2].iter().cloned());
        }
        let here = p
            .take(&js[1])
            .expect("a core is free: one notified executor finds no job");
        assert_eq!(p.state.lock().active(), 3, "counted until it drops");
        {
            let mut st = p.state.lock();
            st.ready.push_back(js[2].clone());
            // One executor awake and computing, the other still waking: no core for a third.
            st.idle = 1;
            st.waking = 1;
            st.slots.push(Slot {
                busy: true,
                ..Slot::default()
            });
        }
        drop(here);
        assert!(
            p.take(&js[2]).is_none(),
            "running, waking and the caller fill two cores"
        );
        let mut st = p.state.lock();
        st.threads = 0;
        st.idle = 0;
        st.waking = 0;
        st.ready.clear();
        st.slots.clear();
    }

    #[test]
    fn extra_executors_retire_when_idle() {
        let p = pool(1);
        let (js, _) = jobs(3, false, 100);
        for j in &js {
            p.push(j.clone());
        }
        js.iter().for_each(|j| j.wait());
        assert!(p.threads() > 1, "extras were added");
        let deadline = Instant::now() + Duration::from_secs(5);
        while p.threads() > 1 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(p.threads(), 1, "back to the base");
        p.stop_if_idle();
    }
}
