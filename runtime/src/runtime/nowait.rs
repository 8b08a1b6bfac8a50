//! `nowait` constructs: one path for every device kind, and completion that Spread owns.
//!
//! The thread that encounters a `target ... nowait` construct (or a data construct with `nowait`)
//! decides its mapping and enqueues its copies and kernel on a stream of the device
//! ([`launch::InFlight`](super::launch::InFlight)), then submits the stream: host devices run it
//! on their executor threads, GPUs and remote devices on their own. What follows decides who
//! finishes the construct (waits for the device, then releases entries, restores host pointers,
//! frees firstprivates) and when:
//!
//! - **Owned** ([`Completion::Owned`]): Spread keeps the construct and libomp's target task
//!   completes at once. Spread's OMPT tool (`capi::ompt`) finishes owned constructs where OpenMP
//!   requires them complete: when the wait of a `taskwait` in the task that created them ends
//!   ([`Nowait::at_taskwait`]; every child has run by then), when the wait of a `taskgroup`'s end
//!   ends (those of its tasks: [`Nowait::at_taskgroup_end`]), before the thread that issued them
//!   arrives at a barrier ([`Nowait::at_barrier`]), when the wait at a barrier ends (those that
//!   tasks started while threads waited there: [`Nowait::at_barrier_end`]), before a sibling
//!   task whose `depend` clauses name theirs runs ([`Nowait::before_dependent`]; a target task
//!   the pass marked offloading instead orders its construct after them on the device:
//!   [`Nowait::predecessors`], [`Nowait::order_after`]), and at the program's exit. No thread
//!   polls or blocks per construct, no hidden helper thread is involved, and constructs from the
//!   initial thread (outside any parallel region) overlap.
//! - **Polled** ([`Completion::Polled`]): libomp's target task keeps an async handle and polls
//!   it (`__tgt_target_nowait_query`), as with libomptarget; the poll finishes the construct once
//!   its device work is done, and after [`BLOCK_AFTER_POLLS`] unfinished polls in a row waits
//!   for it (libomptarget's back-off). Used when Spread's tool does not run, and for target tasks
//!   with `depend` clauses inside a task team that the pass did not mark offloading (libomp
//!   orders them with their siblings; any of them may be an `if` clause's host branch).
//!
//! Each device has at most `SPREAD_STREAMS` constructs in flight on its streams; a construct
//! past that bound first finishes one of them (the device works on its own, so this never
//! waits for a thread).

use super::slot::thread_index;
use super::{DeviceSlot, Runtime};
use crate::error::Result;
use crate::location::{LazyLoc, SourceLoc};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::launch::InFlight;
use super::slot::StreamTicket;

/// How many `nowait` polls in a row found their construct still running on this thread; past
/// this the thread waits instead of polling (libomptarget's exponential back-off: a thread that
/// keeps finding work unfinished has nothing better to do). Halved on each completion.
pub const BLOCK_AFTER_POLLS: u32 = 5;

/// How often [`Nowait::finish_first_of_mine`] looks for a finished instance: well below an
/// instance's time, well above a system call's.
const FIRST_OF_MINE_POLL: std::time::Duration = std::time::Duration::from_micros(50);

thread_local! {
    static BUSY_POLLS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A `depend` item of a task: an address and whether the task writes it (`out`, `inout`,
/// `mutexinoutset`, `inoutset`) or only reads it (`in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dep {
    /// The item's address.
    pub addr: usize,
    /// Written (not only read).
    pub out: bool,
}

impl Dep {
    /// `omp_all_memory` (written): every item conflicts with it.
    pub const ALL_MEMORY: Dep = Dep { addr: 0, out: true };

    /// Whether a task with `self` must wait for a task with `other` (one of them writes).
    fn conflicts(&self, other: &Dep) -> bool {
        (self.addr == other.addr || self.addr == 0 || other.addr == 0) && (self.out || other.out)
    }
}

/// What the OMPT tool knows of the task that encountered a `nowait` construct.
#[derive(Debug, Clone)]
pub struct TaskFacts {
    /// The task that created it (its OMPT data's address): a `taskwait` there waits for it.
    pub parent: usize,
    /// Its `depend` clauses.
    pub deps: Vec<Dep>,
    /// The thread runs it while it waits at a barrier of the team whose parallel data is at
    /// this address: the construct must be finished before any thread leaves that barrier.
    pub barrier: Option<usize>,
    /// The innermost `taskgroup` the task was created in (the group's end waits for it).
    pub group: Option<Arc<Group>>,
    /// The private data (`[start, end)`: its firstprivate copies) of the explicit task that
    /// created the target task, which libomp frees when that task ends.
    pub parent_memory: Option<(usize, usize)>,
}

impl TaskFacts {
    /// Whether a construct whose host data lies in `ranges` (`[start, end)` each) uses the
    /// private data of the task that created it.
    pub fn uses_parent_memory(&self, mut ranges: impl Iterator<Item = (usize, usize)>) -> bool {
        self.parent_memory
            .is_some_and(|(lo, hi)| ranges.any(|(b, e)| b < hi && lo < e))
    }
}

/// A `taskgroup` region (its identity is its address): its end waits for the owned constructs
/// of the tasks created in it and in the groups nested in it.
#[derive(Debug)]
pub struct Group {
    outer: Option<Arc<Group>>,
}

impl Group {
    /// A group opened inside `outer` (`None`: in no group).
    pub fn open(outer: Option<Arc<Group>>) -> Arc<Group> {
        Arc::new(Group { outer })
    }

    /// Whether `self` is `g` or nested in it.
    pub fn within(self: &Arc<Self>, g: &Arc<Group>) -> bool {
        let mut at = Some(self);
        while let Some(x) = at {
            if Arc::ptr_eq(x, g) {
                return true;
            }
            at = x.outer.as_ref();
        }
        false
    }
}

/// How the caller completes a `nowait` construct it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Spread finishes it at a synchronization point: libomp's task completes now.
    Owned,
    /// libomp's task polls this handle through `__tgt_target_nowait_query`.
    Polled(usize),
}

/// The device work of a started construct, as the list of constructs sees it (a trait so that
/// the list's ordering is tested without a device).
trait Work: Send {
    /// Whether the device work may still run (false once it is done or has failed).
    fn running(&mut self) -> bool;
    /// Waits for the device work, then finishes the construct; its outcome.
    fn finish(self: Box<Self>) -> Result<()>;
}

/// A construct enqueued on a stream of its device, holding its place there.
struct Streamed {
    work: InFlight<'static>,
    ticket: StreamTicket<'static>,
}

impl Work for Streamed {
    fn running(&mut self) -> bool {
        matches!(self.work.query(), Ok(Some(false)))
    }

    fn finish(self: Box<Self>) -> Result<()> {
        let Streamed { work, ticket } = *self;
        let r = work.complete();
        drop(ticket);
        r
    }
}

/// A construct whose device work may still run, or that has finished with an outcome.
enum Stage {
    Running(Box<dyn Work>),
    Done(Result<()>),
}

/// What runs once an owned construct has finished: the release of the `device(any)` instance
/// whose arm it runs.
pub struct OnFinish {
    /// The instance's ticket: an instance that depends on this construct may follow it on its
    /// device ([`Predecessors::instances_on`]).
    pub instance: u64,
    /// The release.
    pub run: Box<dyn FnOnce() + Send>,
}

/// One started `nowait` construct.
struct Started {
    stage: Mutex<Stage>,
    device: usize,
    /// The end of its device work on its stream, for constructs that depend on it to wait for
    /// on the device (recorded for owned constructs with `depend` clauses).
    end: Option<crate::device::Event>,
    loc: LazyLoc,
    /// For owned constructs: who must see them complete.
    owner: Option<Owner>,
    /// The `device(any)` instance whose arm it runs (see [`OnFinish`]).
    instance: Option<u64>,
    on_finish: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

/// Where an owned construct must be complete.
struct Owner {
    parent: usize,
    thread: usize,
    deps: Vec<Dep>,
    /// Started while its thread waited at a barrier of this team.
    barrier: Option<usize>,
    /// The innermost `taskgroup` its task was created in.
    group: Option<Arc<Group>>,
    /// It uses the private data of `parent`, an explicit task: it finishes before that task
    /// ends ([`Nowait::at_task_end`]).
    pins_parent: bool,
}

impl Owner {
    /// Whether a sibling task (created by `parent`) with `deps` must wait for this construct.
    fn precedes(&self, parent: usize, deps: &[Dep]) -> bool {
        self.parent == parent
            && self
                .deps
                .iter()
                .any(|d| deps.iter().any(|e| d.conflicts(e)))
    }
}

impl Started {
    /// Finishes the construct if its device work is done (or, with `block`, once it is) and
    /// returns its outcome; `None` while it still runs. The construct is finished, its
    /// `on_finish` included, under its stage's lock: a thread that finds another finishing it
    /// waits until that is over, so whoever sees an outcome sees the construct complete.
    fn settle(&self, block: bool) -> Option<Result<()>> {
        let mut stage = self.stage.lock();
        if let Stage::Running(w) = &mut *stage {
            if !block && w.running() {
                return None;
            }
            let Stage::Running(w) = std::mem::replace(&mut *stage, Stage::Done(Ok(()))) else {
                unreachable!("matched above");
            };
            *stage = Stage::Done(w.finish());
            if self.owner.as_ref().is_some_and(|o| o.pins_parent) {
                PINNING.fetch_sub(1, Ordering::AcqRel);
            }
            if let Some(f) = self.on_finish.lock().take() {
                f();
            }
        }
        match &*stage {
            Stage::Done(r) => Some(r.clone()),
            Stage::Running(..) => None,
        }
    }

    /// Running and nobody finishing it right now.
    fn running_unlocked(&self) -> bool {
        self.stage
            .try_lock()
            .is_some_and(|st| matches!(*st, Stage::Running(..)))
    }

    /// Known to be finished (a construct being finished right now counts as running).
    fn finished(&self) -> bool {
        self.stage
            .try_lock()
            .is_some_and(|st| matches!(*st, Stage::Done(_)))
    }

    /// Known to be finished without a failure (one to report is not).
    fn finished_ok(&self) -> bool {
        self.stage
            .try_lock()
            .is_some_and(|st| matches!(*st, Stage::Done(Ok(()))))
    }
}

/// The process's `nowait` constructs.
#[derive(Default)]
pub struct Nowait {
    /// Polled constructs by handle.
    polled: Mutex<HashMap<usize, Arc<Started>>>,
    next_handle: AtomicUsize,
    /// Owned constructs not known to be finished, oldest first.
    owned: Mutex<Vec<Arc<Started>>>,
}

/// Owned constructs with `pins_parent` whose device work may still run: a task's end looks at
/// the owned list only when there are some ([`Nowait::at_task_end`]).
static PINNING: AtomicUsize = AtomicUsize::new(0);

/// Owned constructs a starting task depends on (see [`Nowait::predecessors`]).
#[derive(Default)]
pub struct Predecessors(Vec<Arc<Started>>);

impl Predecessors {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds `other`'s.
    pub fn extend(&mut self, other: Predecessors) {
        self.0.extend(other.0);
    }

    /// When every one is the arm of a `device(any)` instance on one device, with the end of its
    /// work recorded there (a construct enqueued on that device can wait for them on the
    /// device): that device and the instances' tickets.
    pub fn instances_on(&self) -> Option<(usize, Vec<u64>)> {
        let device = self.0.first()?.device;
        let mut tickets = Vec::with_capacity(self.0.len());
        for s in &self.0 {
            if s.device != device || s.end.is_none() {
                return None;
            }
            tickets.push(s.instance?);
        }
        Some((device, tickets))
    }
}

/// The failure of an owned construct, with its location: the program reports it and ends, as
/// for a failing synchronous construct (libomptarget's `mandatory` policy).
pub type Failure = (crate::error::Error, Option<SourceLoc>);

impl Nowait {
    /// Starts a `nowait` construct on `slot`: `op` decides its mapping and enqueues its work on
    /// a stream, which is then submitted to the device; `on_finish` runs once it has finished.
    /// `owner` (from Spread's OMPT tool, when the construct can be owned: see the module's docs)
    /// makes it owned; otherwise it is polled. A failure to enqueue is the construct's outcome
    /// (reported by its poll or synchronization point).
    ///
    /// `pins_parent`: the construct uses the private data of the explicit task that created it
    /// (see [`TaskFacts::uses_parent_memory`]); owned, it finishes before that task ends.
    pub fn start(
        &self,
        slot: &'static DeviceSlot,
        loc: LazyLoc,
        owner: Option<TaskFacts>,
        pins_parent: bool,
        on_finish: Option<OnFinish>,
        op: impl FnOnce() -> Result<InFlight<'static>>,
    ) -> Completion {
        let ticket = self.ticket(slot);
        let want_end = owner.as_ref().is_some_and(|o| !o.deps.is_empty());
        let mut end = None;
        let stage = match op().and_then(|mut w| {
            if want_end {
                end = w.end_event();
            }
            w.submitted()
        }) {
            Ok(work) => Stage::Running(Box::new(Streamed { work, ticket })),
            Err(e) => Stage::Done(Err(e)),
        };
        // Counted while its device work may run (`settle` takes it off).
        let pins_parent = pins_parent && owner.is_some() && matches!(stage, Stage::Running(..));
        if pins_parent {
            PINNING.fetch_add(1, Ordering::AcqRel);
        }
        let owner = owner.map(|t| Owner {
            parent: t.parent,
            thread: thread_index(),
            deps: t.deps,
            barrier: t.barrier,
            group: t.group,
            pins_parent,
        });
        let owned = owner.is_some();
        crate::profile::nowait_started(owned);
        let instance = on_finish.as_ref().map(|f| f.instance);
        let started = Arc::new(Started {
            stage: Mutex::new(stage),
            device: slot.id,
            end,
            loc,
            owner,
            instance,
            on_finish: Mutex::new(on_finish.map(|f| f.run)),
        });
        if owned {
            self.push_owned(started);
            Completion::Owned
        } else {
            let h = self.next_handle.fetch_add(1, Ordering::Relaxed) + 1;
            self.polled.lock().insert(h, started);
            Completion::Polled(h)
        }
    }

    /// Adds an owned construct to the list.
    fn push_owned(&self, started: Arc<Started>) {
        let mut list = self.owned.lock();
        // Constructs finished by back-pressure or device waits leave the list here, unless
        // they failed: a failure stays until a synchronization point reports it (dropped here,
        // a construct that failed to map, or whose device work failed, went unreported).
        list.retain(|s| !s.finished_ok());
        list.push(started);
    }

    /// A place on `slot`'s streams: when `SPREAD_STREAMS` constructs are in flight there, one of
    /// them is finished first.
    fn ticket(&self, slot: &'static DeviceSlot) -> StreamTicket<'static> {
        loop {
            if let Some(t) = slot.reserve_stream() {
                return t;
            }
            let victim = self
                .owned
                .lock()
                .iter()
                .find(|s| s.device == slot.id && s.running_unlocked())
                .cloned()
                .or_else(|| {
                    self.polled
                        .lock()
                        .values()
                        .find(|s| s.device == slot.id && s.running_unlocked())
                        .cloned()
                });
            match victim {
                // Its outcome stays for its poll or synchronization point.
                Some(s) => {
                    s.settle(true);
                }
                // Another thread is finishing one right now.
                None => std::thread::yield_now(),
            }
        }
    }

    /// A poll of handle `h` (`__tgt_target_nowait_query`): the construct's outcome and location
    /// once it is finished (the handle is then forgotten), `None` while it runs and for an
    /// unknown handle. Waits once the thread has found work unfinished [`BLOCK_AFTER_POLLS`]
    /// times in a row.
    pub fn poll(&self, h: usize) -> Option<(Result<()>, Option<SourceLoc>)> {
        let started = self.polled.lock().get(&h)?.clone();
        let busy = BUSY_POLLS.with(std::cell::Cell::get);
        let block = busy > BLOCK_AFTER_POLLS;
        if block {
            crate::profile::blocked_poll();
        }
        match started.settle(block) {
            Some(r) => {
                BUSY_POLLS.with(|b| b.set(busy / 2));
                self.polled.lock().remove(&h);
                Some((r, started.loc.get().cloned()))
            }
            None => {
                BUSY_POLLS.with(|b| b.set((busy + 1).min(2 * BLOCK_AFTER_POLLS)));
                None
            }
        }
    }

    /// Finishes every started construct of `device` (`wait device(d)`, a peer copy's order).
    /// Polled ones keep their outcome for their poll; owned ones report a failure.
    pub fn drain_device(&self, device: usize) -> std::result::Result<(), Failure> {
        let polled: Vec<_> = self
            .polled
            .lock()
            .values()
            .filter(|s| s.device == device)
            .cloned()
            .collect();
        for s in polled {
            s.settle(true);
        }
        self.finish_owned(|s| s.device == device)
    }

    /// `taskwait` in the task whose OMPT data is at `task`: its owned children finish.
    pub fn at_taskwait(&self, task: usize) -> std::result::Result<(), Failure> {
        self.finish_owned(|s| s.owner.as_ref().is_some_and(|o| o.parent == task))
    }

    /// The end of a `taskgroup`: the owned constructs of the tasks created in `group` (and in
    /// groups nested in it) finish; every owned construct when the group is not known.
    pub fn at_taskgroup_end(&self, group: Option<Arc<Group>>) -> std::result::Result<(), Failure> {
        let Some(g) = group else {
            return self.finish_owned(|_| true);
        };
        self.finish_owned(|s| {
            s.owner
                .as_ref()
                .is_some_and(|o| o.group.as_ref().is_some_and(|x| x.within(&g)))
        })
    }

    /// The explicit task whose OMPT data is at `task` ends: its owned child constructs that use
    /// its private data finish first, before libomp frees that data. (libomptarget keeps the
    /// data instead: a task's memory lives until its children, the target tasks, complete, and
    /// those complete with their device work; an owned construct's task completes at once.)
    pub fn at_task_end(&self, task: usize) -> std::result::Result<(), Failure> {
        if PINNING.load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        self.finish_owned(|s| {
            s.owner
                .as_ref()
                .is_some_and(|o| o.pins_parent && o.parent == task)
        })
    }

    /// A barrier: the owned constructs the calling thread started finish before it arrives, so
    /// that no thread leaves the barrier before all constructs of the team's tasks are done.
    pub fn at_barrier(&self) -> std::result::Result<(), Failure> {
        let me = thread_index();
        self.finish_owned(|s| s.owner.as_ref().is_some_and(|o| o.thread == me))
    }

    /// The wait at a barrier of the team whose parallel data is at `team` ends: the constructs
    /// that tasks started while threads waited there finish before the calling thread leaves.
    pub fn at_barrier_end(&self, team: usize) -> std::result::Result<(), Failure> {
        self.finish_owned(|s| s.owner.as_ref().is_some_and(|o| o.barrier == Some(team)))
    }

    /// A task with `deps`, created by `parent`, is about to run (or a `taskwait depend` to
    /// wait): the owned sibling constructs it depends on finish first.
    pub fn before_dependent(
        &self,
        parent: usize,
        deps: &[Dep],
    ) -> std::result::Result<(), Failure> {
        if deps.is_empty() {
            return Ok(());
        }
        self.finish_owned(|s| s.owner.as_ref().is_some_and(|o| o.precedes(parent, deps)))
    }

    /// The owned sibling constructs (created by `parent`) that a task with `deps` depends on
    /// and that may still run, for its construct to order itself after
    /// ([`order_after`](Self::order_after)) instead of its thread waiting for them when it starts.
    pub fn predecessors(&self, parent: usize, deps: &[Dep]) -> Predecessors {
        if deps.is_empty() {
            return Predecessors::default();
        }
        Predecessors(
            self.owned
                .lock()
                .iter()
                .filter(|s| {
                    s.owner.as_ref().is_some_and(|o| o.precedes(parent, deps)) && !s.finished()
                })
                .cloned()
                .collect(),
        )
    }

    /// Orders a construct about to be enqueued on `device` after `preds`: the ends of those on
    /// the same device are returned, for its stream to wait for
    /// ([`launch::after_events`](super::launch::after_events)); the others are finished now.
    pub fn order_after(
        &self,
        device: usize,
        preds: Predecessors,
    ) -> std::result::Result<Vec<crate::device::Event>, Failure> {
        let mut waits = Vec::new();
        let mut first = None;
        let mut finished = Vec::new();
        for s in preds.0 {
            match &s.end {
                Some(end) if s.device == device => waits.push(end.clone()),
                _ => {
                    if let Some(Err(e)) = s.settle(true) {
                        first.get_or_insert((e, s.loc.get().cloned()));
                    }
                    finished.push(s);
                }
            }
        }
        self.forget(&finished);
        first.map_or(Ok(waits), Err)
    }

    /// Finishes `preds` (their dependent runs other than as an owned construct).
    pub fn finish_predecessors(&self, preds: Predecessors) -> std::result::Result<(), Failure> {
        self.order_after(usize::MAX, preds).map(|_| ())
    }

    /// The program exits: every owned construct finishes.
    pub fn at_exit(&self) -> std::result::Result<(), Failure> {
        self.finish_owned(|_| true)
    }

    /// Finishes the oldest owned construct the calling thread started that has something to run
    /// once finished (a `device(any)` instance's release); false when there is none.
    pub fn finish_one_of_mine(&self) -> std::result::Result<bool, Failure> {
        let me = thread_index();
        let mine = self
            .owned
            .lock()
            .iter()
            .find(|s| {
                s.owner.as_ref().is_some_and(|o| o.thread == me) && s.on_finish.lock().is_some()
            })
            .cloned();
        let Some(s) = mine else {
            return Ok(false);
        };
        let r = s.settle(true);
        self.forget(std::slice::from_ref(&s));
        match r {
            Some(Err(e)) => Err((e, s.loc.get().cloned())),
            _ => Ok(true),
        }
    }

    /// Finishes the owned constructs the calling thread started that release a `device(any)`
    /// instance and whose device work is done, without waiting for any: the instances' tokens
    /// come back and their times are measured when they end, not at the next synchronization
    /// point (a thread that places instances faster than they run would otherwise see every
    /// server it used busy, and measure each instance's time as long as it placed others).
    /// Returns how many it finished and how many still run.
    pub fn finish_done_of_mine(&self) -> std::result::Result<(usize, usize), Failure> {
        let me = thread_index();
        let mine: Vec<Arc<Started>> = self
            .owned
            .lock()
            .iter()
            .filter(|s| s.owner.as_ref().is_some_and(|o| o.thread == me) && s.instance.is_some())
            .cloned()
            .collect();
        let mut done = Vec::new();
        let mut first = None;
        for s in &mine {
            if let Some(r) = s.settle(false) {
                if let Err(e) = r {
                    first.get_or_insert((e, s.loc.get().cloned()));
                }
                done.push(s.clone());
            }
        }
        if !done.is_empty() {
            self.forget(&done);
        }
        first.map_or(Ok((done.len(), mine.len() - done.len())), Err)
    }

    /// Waits until one of the owned instance constructs the calling thread started has finished
    /// (whichever ends first, not the oldest: an instance on a slow device must not make one
    /// on a fast server look as slow), and finishes every one that has; false when the thread
    /// has none. Polls every `FIRST_OF_MINE_POLL` (50 us), sleeping in between (a kernel's end is not
    /// signalled to the thread that placed it on every kind of device).
    pub fn finish_first_of_mine(&self) -> std::result::Result<bool, Failure> {
        loop {
            match self.finish_done_of_mine()? {
                (0, 0) => return Ok(false),
                (0, _) => std::thread::sleep(FIRST_OF_MINE_POLL),
                _ => return Ok(true),
            }
        }
    }

    /// Whether any owned construct may still run (a cheap check for the tool's callbacks).
    pub fn any_owned(&self) -> bool {
        !self.owned.lock().is_empty()
    }

    /// Finishes the owned constructs `which` selects, oldest first, outside the list's lock; the
    /// first failure. They leave the list only once finished: a construct that another thread
    /// is finishing right now is still found here, and waited for.
    fn finish_owned(&self, which: impl Fn(&Started) -> bool) -> std::result::Result<(), Failure> {
        let chosen: Vec<Arc<Started>> = self
            .owned
            .lock()
            .iter()
            .filter(|s| which(s))
            .cloned()
            .collect();
        if chosen.is_empty() {
            return Ok(());
        }
        let mut first = None;
        let me = thread_index();
        for s in &chosen {
            if s.owner.as_ref().is_some_and(|o| o.thread != me) {
                crate::profile::finished_elsewhere();
            }
            if let Some(Err(e)) = s.settle(true) {
                first.get_or_insert((e, s.loc.get().cloned()));
            }
        }
        self.forget(&chosen);
        first.map_or(Ok(()), Err)
    }

    /// Takes finished constructs out of the owned list.
    fn forget(&self, finished: &[Arc<Started>]) {
        self.owned
            .lock()
            .retain(|s| !finished.iter().any(|f| Arc::ptr_eq(f, s)));
    }
}

impl Runtime {
    /// Reports the failure of an owned construct and ends the program.
    fn report(&self, r: std::result::Result<(), Failure>) {
        if let Err((e, loc)) = r {
            crate::runtime::report::fatal_construct(self, &e, loc.as_ref());
        }
    }

    /// `taskwait` in the task whose OMPT data is at `task` (see [`Nowait::at_taskwait`]).
    pub fn nowait_at_taskwait(&self, task: usize) {
        self.report(self.nowait.at_taskwait(task));
    }

    /// The end of an explicit task (see [`Nowait::at_task_end`]).
    pub fn nowait_at_task_end(&self, task: usize) {
        self.report(self.nowait.at_task_end(task));
    }

    /// The end of a `taskgroup` (see [`Nowait::at_taskgroup_end`]).
    pub fn nowait_at_taskgroup_end(&self, group: Option<Arc<Group>>) {
        self.report(self.nowait.at_taskgroup_end(group));
    }

    /// A barrier (see [`Nowait::at_barrier`]).
    pub fn nowait_at_barrier(&self) {
        self.report(self.nowait.at_barrier());
    }

    /// Orders a construct on `device` after `preds` (see [`Nowait::order_after`]); the events its
    /// stream waits for.
    pub fn nowait_order_after(
        &self,
        device: usize,
        preds: Predecessors,
    ) -> Vec<crate::device::Event> {
        if preds.is_empty() {
            return Vec::new();
        }
        match self.nowait.order_after(device, preds) {
            Ok(w) => w,
            Err((e, loc)) => crate::runtime::report::fatal_construct(self, &e, loc.as_ref()),
        }
    }

    /// Finishes `preds` (see [`Nowait::finish_predecessors`]).
    pub fn nowait_finish_predecessors(&self, preds: Predecessors) {
        if !preds.is_empty() {
            self.report(self.nowait.finish_predecessors(preds));
        }
    }

    /// The predecessors of a starting task (see [`Nowait::predecessors`]).
    pub fn nowait_predecessors(&self, parent: usize, deps: &[Dep]) -> Predecessors {
        self.nowait.predecessors(parent, deps)
    }

    /// The wait at a barrier of team `team` ends (see [`Nowait::at_barrier_end`]).
    pub fn nowait_at_barrier_end(&self, team: usize) {
        self.report(self.nowait.at_barrier_end(team));
    }

    /// A task with `depend` clauses is about to run (see [`Nowait::before_dependent`]).
    pub fn nowait_before_dependent(&self, parent: usize, deps: &[Dep]) {
        self.report(self.nowait.before_dependent(parent, deps));
    }

    /// Every `nowait` construct of device `device` finishes (see [`Nowait::drain_device`]).
    pub fn nowait_drain_device(&self, device: usize) {
        self.report(self.nowait.drain_device(device));
    }

    /// The program exits: every owned construct finishes.
    pub fn nowait_at_exit(&self) {
        self.report(self.nowait.at_exit());
    }

    /// Finishes one owned construct of this thread that releases a `device(any)` instance (see
    /// [`Nowait::finish_one_of_mine`]); whether there was one.
    pub fn nowait_finish_one_of_mine(&self) -> bool {
        match self.nowait.finish_one_of_mine() {
            Ok(did) => did,
            Err((e, loc)) => crate::runtime::report::fatal_construct(self, &e, loc.as_ref()),
        }
    }

    /// Waits for the first of this thread's instance constructs to finish (see
    /// [`Nowait::finish_first_of_mine`]); whether there was one.
    pub fn nowait_finish_first_of_mine(&self) -> bool {
        match self.nowait.finish_first_of_mine() {
            Ok(did) => did,
            Err((e, loc)) => crate::runtime::report::fatal_construct(self, &e, loc.as_ref()),
        }
    }

    /// Finishes this thread's instance constructs whose device work is done (see
    /// [`Nowait::finish_done_of_mine`]).
    pub fn nowait_finish_done_of_mine(&self) {
        self.report(self.nowait.finish_done_of_mine().map(|_| ()));
    }

    /// Whether any owned construct may still run.
    pub fn nowait_any_owned(&self) -> bool {
        self.nowait.any_owned()
    }

    /// The process's `nowait` constructs: [`Nowait::start`] starts one.
    pub fn nowait(&self) -> &Nowait {
        &self.nowait
    }

    /// Completes a polled `nowait` handle (see [`Nowait::poll`]).
    pub fn poll_pending(&self, handle: usize) -> Option<(Result<()>, Option<SourceLoc>)> {
        self.nowait.poll(handle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Device work that says when its finishing starts and takes a while to finish.
    struct Slow {
        entered: mpsc::Sender<()>,
        done: Arc<AtomicBool>,
    }

    impl Work for Slow {
        fn running(&mut self) -> bool {
            !self.done.load(Ordering::SeqCst)
        }

        fn finish(self: Box<Self>) -> Result<()> {
            let _ = self.entered.send(());
            std::thread::sleep(Duration::from_millis(50));
            self.done.store(true, Ordering::SeqCst);
            Ok(())
        }
    }

    fn owned(parent: usize, work: Slow, on_finish: Option<OnFinish>) -> Arc<Started> {
        construct(owner(parent), 0, None, work, on_finish)
    }

    fn construct(
        owner: Owner,
        device: usize,
        end: Option<crate::device::Event>,
        work: Slow,
        on_finish: Option<OnFinish>,
    ) -> Arc<Started> {
        Arc::new(Started {
            stage: Mutex::new(Stage::Running(Box::new(work))),
            device,
            end,
            loc: LazyLoc::known(None),
            owner: Some(owner),
            instance: on_finish.as_ref().map(|f| f.instance),
            on_finish: Mutex::new(on_finish.map(|f| f.run)),
        })
    }

    /// Slow work whose finishing nobody watches, and its done flag.
    fn slow() -> (Slow, Arc<AtomicBool>) {
        let (entered, _) = mpsc::channel();
        let done = Arc::new(AtomicBool::new(false));
        (
            Slow {
                entered,
                done: done.clone(),
            },
            done,
        )
    }

    fn owner(parent: usize) -> Owner {
        Owner {
            parent,
            thread: thread_index(),
            deps: Vec::new(),
            barrier: None,
            group: None,
            pins_parent: false,
        }
    }

    /// A task's end finishes its constructs that use its private data, and only those.
    #[test]
    fn a_task_end_finishes_the_constructs_that_use_its_data() {
        let nowait = Nowait::default();
        let mut done = Vec::new();
        for (parent, pins) in [(7, true), (7, false), (8, true)] {
            let (w, d) = slow();
            done.push(d);
            if pins {
                PINNING.fetch_add(1, Ordering::AcqRel); // as `start` counts them
            }
            nowait.push_owned(construct(
                Owner {
                    pins_parent: pins,
                    ..owner(parent)
                },
                0,
                None,
                w,
                None,
            ));
        }
        assert!(nowait.at_task_end(7).is_ok());
        assert!(
            done[0].load(Ordering::SeqCst),
            "uses the ending task's data"
        );
        assert!(
            !done[1].load(Ordering::SeqCst),
            "the task's other construct"
        );
        assert!(!done[2].load(Ordering::SeqCst), "another task's");
        assert!(nowait.at_task_end(8).is_ok());
        assert!(done[2].load(Ordering::SeqCst));
        assert!(nowait.at_taskwait(7).is_ok());
        assert!(done[1].load(Ordering::SeqCst));
    }

    #[test]
    fn task_facts_see_their_parents_data() {
        let facts = |m| TaskFacts {
            parent: 1,
            deps: Vec::new(),
            barrier: None,
            group: None,
            parent_memory: m,
        };
        let f = facts(Some((0x1000, 0x1100)));
        assert!(f.uses_parent_memory([(0x5000, 0x6000), (0x10f8, 0x1108)].into_iter()));
        assert!(!f.uses_parent_memory([(0x1100, 0x1200), (0x800, 0x1000)].into_iter()));
        assert!(!facts(None).uses_parent_memory([(0x1000, 0x1100)].into_iter()));
    }

    /// A `taskgroup`'s end finishes the constructs of its tasks and of groups nested in it,
    /// and leaves those of other groups (another task's group running at the same time).
    #[test]
    fn a_taskgroup_end_finishes_its_own_constructs() {
        let nowait = Nowait::default();
        let outer = Group::open(None);
        let inner = Group::open(Some(outer.clone()));
        let other = Group::open(None);
        let mut done = Vec::new();
        for g in [&outer, &inner, &other] {
            let (w, d) = slow();
            done.push(d);
            nowait.push_owned(construct(
                Owner {
                    group: Some(g.clone()),
                    ..owner(1)
                },
                0,
                None,
                w,
                None,
            ));
        }
        assert!(nowait.at_taskgroup_end(Some(outer)).is_ok());
        assert!(done[0].load(Ordering::SeqCst), "the group's own construct");
        assert!(
            done[1].load(Ordering::SeqCst),
            "the nested group's construct"
        );
        assert!(!done[2].load(Ordering::SeqCst), "another group's construct");
        assert!(nowait.any_owned());
        assert!(nowait.at_taskgroup_end(None).is_ok());
        assert!(
            done[2].load(Ordering::SeqCst),
            "an unknown group finishes everything"
        );
    }

    /// The end of a barrier finishes the constructs started while threads waited at a barrier of
    /// that team, not those of another team.
    #[test]
    fn a_barrier_end_finishes_the_constructs_started_in_it() {
        let nowait = Nowait::default();
        let (w1, d1) = slow();
        let (w2, d2) = slow();
        for (team, w) in [(100, w1), (200, w2)] {
            nowait.push_owned(construct(
                Owner {
                    barrier: Some(team),
                    ..owner(1)
                },
                0,
                None,
                w,
                None,
            ));
        }
        assert!(nowait.at_barrier_end(100).is_ok());
        assert!(d1.load(Ordering::SeqCst));
        assert!(!d2.load(Ordering::SeqCst));
    }

    /// A starting task's predecessors on its construct's device are left running, their ends
    /// handed to its stream; those on other devices (or without a recorded end) finish first.
    #[test]
    fn predecessors_on_the_same_device_are_waited_for_on_the_device() {
        let nowait = Nowait::default();
        let w = |addr| Dep { addr, out: true };
        let mut done = Vec::new();
        for (device, end, addr) in [
            (0, Some(crate::device::Event::done()), 8),
            (1, Some(crate::device::Event::done()), 8),
            (0, None, 8),
            (0, Some(crate::device::Event::done()), 16),
        ] {
            let (work, d) = slow();
            done.push(d);
            nowait.push_owned(construct(
                Owner {
                    deps: vec![w(addr)],
                    ..owner(1)
                },
                device,
                end,
                work,
                None,
            ));
        }
        let preds = nowait.predecessors(
            1,
            &[Dep {
                addr: 8,
                out: false,
            }],
        );
        assert_eq!(preds.0.len(), 3, "the three constructs that write item 8");
        assert!(
            nowait.predecessors(2, &[w(8)]).is_empty(),
            "another task's children"
        );
        let waits = nowait.order_after(0, preds).expect("no failure");
        assert_eq!(waits.len(), 1);
        assert!(!done[0].load(Ordering::SeqCst), "same device: left running");
        assert!(done[1].load(Ordering::SeqCst), "another device: finished");
        assert!(done[2].load(Ordering::SeqCst), "no recorded end: finished");
        assert!(!done[3].load(Ordering::SeqCst), "another item: untouched");
    }

    /// A `taskwait` that comes while another thread (at a barrier, a `taskgroup`'s end) is
    /// finishing one of its children returns only once that child is finished.
    #[test]
    fn a_construct_finished_elsewhere_is_waited_for() {
        let nowait = Arc::new(Nowait::default());
        let (entered, started) = mpsc::channel();
        let done = Arc::new(AtomicBool::new(false));
        let released = Arc::new(AtomicBool::new(false));
        let r = released.clone();
        let release = OnFinish {
            instance: 1,
            run: Box::new(move || r.store(true, Ordering::SeqCst)),
        };
        let work = Slow {
            entered,
            done: done.clone(),
        };
        nowait.push_owned(owned(7, work, Some(release)));
        let other = {
            let nowait = nowait.clone();
            std::thread::spawn(move || nowait.at_taskgroup_end(None).is_ok())
        };
        started
            .recv()
            .expect("the other thread finishes the construct");
        assert!(nowait.at_taskwait(7).is_ok());
        assert!(
            done.load(Ordering::SeqCst),
            "taskwait returned before the device work"
        );
        assert!(
            released.load(Ordering::SeqCst),
            "taskwait returned before on_finish"
        );
        assert!(other.join().expect("no panic"));
        assert!(!nowait.any_owned());
    }

    /// A construct that failed when it started (its mapping, say) stays in the list when the
    /// next one is added, and its `taskwait` reports the failure (the list used to drop
    /// finished constructs, failed ones with them: a silent wrong result).
    #[test]
    fn a_failure_at_start_is_reported_at_the_sync_point() {
        let nowait = Nowait::default();
        let failed = Arc::new(Started {
            stage: Mutex::new(Stage::Done(Err(crate::error::Error::new(
                crate::error::ErrorKind::Extension,
                "explicit extension not allowed",
            )))),
            device: 0,
            end: None,
            loc: LazyLoc::known(None),
            owner: Some(owner(7)),
            instance: None,
            on_finish: Mutex::new(None),
        });
        nowait.push_owned(failed);
        let (w, _) = slow();
        nowait.push_owned(owned(7, w, None));
        let (e, _) = nowait.at_taskwait(7).expect_err("the failure is reported");
        assert_eq!(e.message, "explicit extension not allowed");
        assert!(!nowait.any_owned());
    }

    #[test]
    fn only_writes_conflict() {
        let r = |addr| Dep { addr, out: false };
        let w = |addr| Dep { addr, out: true };
        assert!(!r(8).conflicts(&r(8)));
        assert!(r(8).conflicts(&w(8)));
        assert!(w(8).conflicts(&r(8)));
        assert!(w(8).conflicts(&w(8)));
        assert!(!w(8).conflicts(&w(16)));
        assert!(Dep::ALL_MEMORY.conflicts(&r(8)));
        assert!(r(16).conflicts(&Dep::ALL_MEMORY));
    }
}
