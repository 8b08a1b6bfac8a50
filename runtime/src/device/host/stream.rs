//! A host device's streams: seed 003's in-order queues on the machine's own cores.
//!
//! The thread that issues a construct only records its copies and kernel as operations on the
//! construct's stream. They run when the stream is synchronized, on the synchronizing thread (a
//! construct that waits for its work pays no hand-off: it would cost more than a small launch),
//! or, once the stream is submitted (`nowait` work, spread chunks), on an executor thread while
//! the issuing thread goes on. Executors are shared by the host devices and sized by the cores
//! ([`super::pool`]; a pinned device has its own); batches of different streams run on them at
//! once, a stream's operations in order.
//!
//! Order between streams comes from events: an event is a [`Mark`] at a point of a stream, and
//! an operation waiting for a mark not reached yet parks its batch on the mark instead of blocking
//! its executor, so that executors can never all wait for batches queued behind them. A thread
//! running a stream itself simply waits.

use super::pool::{Job, Pool};
use super::HostKernels;
use crate::device::{Event, EventImpl, KernelHandle, LaunchConfig, Stream};
use crate::error::{Error, ErrorKind, Result};
use crate::sys::access;
use crate::trace;
use parking_lot::{Condvar, Mutex};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;

/// A kernel's parameters, inline for the usual few: a launch allocates nothing for them.
pub(super) type KernelParams = SmallVec<[usize; 8]>;

/// One recorded operation.
pub(super) enum Op {
    /// A copy between host-addressable memory (host data or any host device's memory).
    Copy {
        dst: usize,
        src: usize,
        len: usize,
        /// Direction, for the trace and the profile.
        dir: crate::profile::Dir,
        label: Option<String>,
        /// Its OMPT trace record, completed when it has run.
        tool: Option<Box<crate::ompt::Pending>>,
    },
    /// Sets `len` bytes at `dst` to `byte`.
    Fill { dst: usize, byte: u8, len: usize },
    /// A kernel with its parameters (`dyn_ptr` first).
    Kernel {
        kernel: KernelHandle,
        params: KernelParams,
        cfg: LaunchConfig,
        label: Option<String>,
        /// What it was launched for (a fault inside it is reported with it; `None` when the
        /// device reports no faults).
        origin: Option<crate::origin::Origin>,
        /// Its OMPT trace record, completed when it has run.
        tool: Option<Box<crate::ompt::Pending>>,
    },
    /// The stream goes on once everything before `Event` on its own stream has run.
    Wait(Event),
    /// Everything before this point has run: waiters on the mark may go on.
    Signal(Arc<Mark>),
}

impl Op {
    fn is_kernel(&self) -> bool {
        matches!(self, Op::Kernel { .. })
    }
}

/// A point in a host stream (what an [`Event`] of a host device records).
#[derive(Default)]
pub(super) struct Mark {
    state: Mutex<MarkState>,
    reached: Condvar,
}

#[derive(Default)]
struct MarkState {
    done: bool,
    /// Batches that stopped at an operation waiting for this mark, resumed when it is reached.
    parked: Vec<Arc<Batch>>,
    /// The submitted batch that reaches the mark: a thread about to wait for the mark runs it
    /// itself when no executor has started it ([`Mark::wait_running`]).
    reached_by: std::sync::Weak<Batch>,
}

impl Mark {
    fn is_done(&self) -> bool {
        self.state.lock().done
    }

    fn wait(&self) {
        let mut st = self.state.lock();
        while !st.done {
            self.reached.wait(&mut st);
        }
    }

    /// Waits for the mark, first running the batch that reaches it on the calling thread when
    /// no executor has started that batch ([`Batch::run_here`]). A thread that waits would
    /// otherwise hand the batch to an executor and be woken by it: two thread switches per
    /// construct, each of which costs a scheduler slice when other programs hold the cores
    /// (HeCBench all-pairs-distance, a `nowait` kernel and a kernel that waits for it 10,000
    /// times: 1.3 s alone, 45 s beside two busy loops).
    fn wait_running(&self) {
        self.wait_trying(|| {
            let batch = self.state.lock().reached_by.upgrade();
            if let Some(b) = batch.filter(|b| b.waits_for_nothing()) {
                b.run_here();
            }
        });
    }

    /// Waits for the mark, calling `try_run` first and again now and then while it waits (every
    /// 1 ms at first, then less often, at most every 16 ms): a core may free up while the batch
    /// that reaches the mark still waits for one, and when every executor the pool may have is
    /// blocked (a kernel waiting for another device's), the waiting thread is the only one left
    /// to run it.
    fn wait_trying(&self, mut try_run: impl FnMut()) {
        let mut patience = std::time::Duration::from_millis(1);
        while !self.is_done() {
            try_run();
            if self.wait_for(patience) {
                return;
            }
            patience = (patience * 2).min(std::time::Duration::from_millis(16));
        }
    }

    /// Records that `batch` reaches the mark.
    fn reached_by(&self, batch: &Arc<Batch>) {
        self.state.lock().reached_by = Arc::downgrade(batch);
    }

    /// Waits at most `timeout` for the mark; whether it is reached.
    fn wait_for(&self, timeout: std::time::Duration) -> bool {
        let mut st = self.state.lock();
        if !st.done {
            let _ = self.reached.wait_for(&mut st, timeout);
        }
        st.done
    }

    /// Parks `batch` until the mark is reached; false when it already is (then run on).
    fn park(&self, batch: &Arc<Batch>) -> bool {
        let mut st = self.state.lock();
        if st.done {
            return false;
        }
        st.parked.push(batch.clone());
        true
    }

    /// Marks the point reached; resumes the batches parked on it.
    fn signal(&self) {
        let _none = self.signal_keeping(None);
    }

    /// As [`Mark::signal`], except that one batch of `pool` parked on the mark is returned
    /// instead of queued: an executor that reaches the end of its batch runs it next itself. A
    /// chain of constructs on one device (a kernel after the kernel it depends on) then stays
    /// on one thread instead of waking another executor per link and waiting for a core for it
    /// (Somier's half buffers: six such links per device and buffer).
    fn signal_keeping(&self, pool: Option<&Arc<Pool<Batch>>>) -> Option<Arc<Batch>> {
        let parked = {
            let mut st = self.state.lock();
            st.done = true;
            std::mem::take(&mut st.parked)
        };
        self.reached.notify_all();
        let mut kept = None;
        for b in parked {
            if kept.is_none() && pool.is_some_and(|p| Arc::ptr_eq(p, &b.runner.pool)) {
                kept = Some(b);
            } else {
                b.runner.pool.push(b.clone());
            }
        }
        kept
    }
}

/// A mark is the [`EventImpl`] of host devices.
impl EventImpl for Mark {
    fn query(&self) -> Result<bool> {
        Ok(self.is_done())
    }
    fn synchronize(&self) -> Result<()> {
        self.wait();
        Ok(())
    }
}

/// The host mark behind `ev`, if a host device recorded it.
fn host_mark(ev: &Event) -> Option<&Mark> {
    (ev.backend()? as &dyn std::any::Any).downcast_ref::<Mark>()
}

/// A submitted part of a stream: its operations, run by an executor (possibly in several goes,
/// when it parks on a mark), and its end.
pub(super) struct Batch {
    ops: Mutex<VecDeque<Op>>,
    /// The first failure; later copies and kernels are skipped (marks are still signalled).
    failed: Mutex<Option<Error>>,
    /// Reached when every operation has run.
    end: Arc<Mark>,
    runner: Runner,
}

impl Batch {
    fn done(&self) -> bool {
        self.end.is_done()
    }

    /// Waits for the batch's end; its outcome.
    fn wait(&self) -> Result<()> {
        self.end.wait();
        self.failed.lock().clone().map_or(Ok(()), Err)
    }

    /// Runs the batch here if it can ([`Batch::run_here`]), or waits for its end, trying again
    /// now and then ([`Mark::wait_trying`]). Its outcome.
    fn run_here_or_wait(self: &Arc<Self>) -> Result<()> {
        self.end.wait_trying(|| {
            self.run_here();
        });
        self.wait()
    }

    /// Whether every event the batch's operations wait for has been reached. A thread waiting for
    /// a mark in the middle of a batch runs only such a batch: one that waits for work the thread
    /// itself has still to issue would block it for good (an executor parks the batch instead).
    fn waits_for_nothing(&self) -> bool {
        self.ops
            .lock()
            .iter()
            .all(|op| !matches!(op, Op::Wait(ev) if !ev.query().unwrap_or(false)))
    }

    /// Runs the batch on the calling thread when no executor has started it, its kernels can run
    /// here and a core is free for it ([`Pool::take`]); false when it cannot.
    fn run_here(self: &Arc<Self>) -> bool {
        let kernels = &*self.runner.kernels;
        let runnable = self
            .ops
            .lock()
            .iter()
            .all(|op| !matches!(op, Op::Kernel { cfg, .. } if !kernels.runs_here(cfg)));
        if !runnable {
            return false;
        }
        let Some(_running) = self.runner.pool.take(self) else {
            return false;
        };
        crate::profile::batch(kernels.device(), false);
        let _submitted = super::activity::Submitted::enter();
        loop {
            let Some(op) = self.ops.lock().pop_front() else {
                break;
            };
            let failed = self.failed.lock().is_some();
            if let Err(e) = run_op(kernels, op, failed) {
                self.failed.lock().get_or_insert(e);
            }
        }
        self.end.signal();
        true
    }

    /// Runs the batch's operations on an executor until it ends or parks on a mark, then the
    /// batches of the same pool its end resumed ([`Mark::signal_keeping`]), one after another.
    fn execute(self: &Arc<Self>) {
        crate::profile::batch(self.runner.kernels.device(), true);
        let mut next = self.run_part();
        while let Some(b) = next {
            next = b.run_part();
        }
    }

    /// Runs the batch's operations until it ends or parks; a batch its last operations resumed
    /// for this executor to run next.
    fn run_part(self: &Arc<Self>) -> Option<Arc<Batch>> {
        let mut next = None;
        loop {
            let Some(op) = self.ops.lock().pop_front() else {
                return match next {
                    Some(b) => {
                        self.end.signal();
                        Some(b)
                    }
                    None => self.end.signal_keeping(Some(&self.runner.pool)),
                };
            };
            match &op {
                Op::Wait(ev) => {
                    if let Some(mark) = host_mark(ev) {
                        if mark.park(self) {
                            return None; // resumed by the mark's signal, on some executor
                        }
                        continue;
                    }
                }
                // The batch's last operation (an event the next construct waits for).
                Op::Signal(m) if next.is_none() && self.ops.lock().is_empty() => {
                    next = m.signal_keeping(Some(&self.runner.pool));
                    continue;
                }
                _ => {}
            }
            let failed = self.failed.lock().is_some();
            if let Err(e) = run_op(&*self.runner.kernels, op, failed) {
                self.failed.lock().get_or_insert(e);
            }
        }
    }
}

/// Runs one operation on the calling thread (a wait blocks it); copies and kernels are skipped
/// after a failure of the stream.
fn run_op(kernels: &dyn HostKernels, op: Op, failed: bool) -> Result<()> {
    match op {
        Op::Signal(m) => m.signal(),
        Op::Wait(ev) => match host_mark(&ev) {
            Some(mark) => mark.wait_running(),
            None => ev.synchronize()?,
        },
        _ if failed => {}
        Op::Copy {
            dst,
            src,
            len,
            dir,
            label,
            tool,
        } => crate::ompt::run_traced(tool, || {
            trace::with_label(label, || {
                let _span = trace::transfer(kernels.device(), dir, len);
                access::transfer(dst, src, len);
            })
        }),
        Op::Fill { dst, byte, len } => access::fill(dst, byte, len),
        Op::Kernel {
            kernel,
            params,
            cfg,
            label,
            origin,
            tool,
        } => crate::ompt::run_traced(tool, || {
            trace::with_label(label, || kernels.run(kernel, &params, &cfg, origin))
        })?,
    }
    Ok(())
}

/// What a host device's streams run on: its kernels and the executor threads that run submitted
/// batches.
#[derive(Clone)]
pub(super) struct Runner {
    pub(super) kernels: Arc<dyn HostKernels>,
    pub(super) pool: Arc<Pool<Batch>>,
}

impl Job for Batch {
    fn run(self: Arc<Self>) {
        self.execute();
    }
}

/// The backend state of a host device's [`Stream`]: operations not submitted yet and the last
/// submitted batch.
#[derive(Default)]
pub(super) struct HostStream {
    ops: Vec<Op>,
    batch: Option<Arc<Batch>>,
}

impl HostStream {
    /// The host state of `s` (created on first use for a stream made without the device).
    pub(super) fn of(s: &mut Stream) -> &mut HostStream {
        if !s.backend.as_ref().is_some_and(|b| b.is::<HostStream>()) {
            s.backend = Some(Box::new(HostStream::default()));
        }
        match s
            .backend
            .as_mut()
            .and_then(|b| b.downcast_mut::<HostStream>())
        {
            Some(h) => h,
            None => unreachable!("set above"),
        }
    }

    /// Appends `op`.
    pub(super) fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// Whether everything recorded so far has run.
    fn idle(&self) -> bool {
        self.ops.is_empty() && self.batch.as_ref().is_none_or(|b| b.done())
    }

    /// An event at the current end of the stream: done at once when nothing is pending.
    pub(super) fn record(&mut self) -> Event {
        if self.idle() {
            return Event::done();
        }
        let m = Arc::new(Mark::default());
        self.ops.push(Op::Signal(m.clone()));
        Event::new(m)
    }

    /// Hands the recorded operations to an executor of `runner` (after the previous batch).
    pub(super) fn submit(&mut self, runner: &Runner) {
        if self.ops.is_empty() {
            return;
        }
        let mut ops: VecDeque<Op> = std::mem::take(&mut self.ops).into();
        if let Some(prev) = self.batch.take().filter(|b| !b.done()) {
            ops.push_front(Op::Wait(Event::new(prev.end.clone())));
        }
        let batch = Arc::new(Batch {
            ops: Mutex::new(ops),
            failed: Mutex::new(None),
            end: Arc::new(Mark::default()),
            runner: runner.clone(),
        });
        batch.end.reached_by(&batch);
        for op in batch.ops.lock().iter() {
            if let Op::Signal(m) = op {
                m.reached_by(&batch);
            }
        }
        self.batch = Some(batch.clone());
        runner.pool.push(batch);
    }

    /// Whether everything recorded so far has run; what is recorded and not submitted is
    /// submitted first.
    pub(super) fn done(&mut self, runner: &Runner) -> bool {
        self.submit(runner);
        self.batch.as_ref().is_none_or(|b| b.done())
    }

    /// Runs or waits for everything recorded so far; the stream's first failure. Operations not
    /// submitted run on the calling thread, unless a kernel among them cannot run here (a
    /// `teams` kernel called from inside a parallel region): then an executor runs them.
    pub(super) fn synchronize(&mut self, runner: &Runner) -> Result<()> {
        let kernels = &*runner.kernels;
        if self
            .ops
            .iter()
            .any(|op| matches!(op, Op::Kernel { cfg, .. } if !kernels.runs_here(cfg)))
        {
            self.submit(runner);
        }
        let earlier = match self.batch.take() {
            Some(b) => b.run_here_or_wait(),
            None => Ok(()),
        };
        let mut failed = earlier.as_ref().err().cloned();
        // Drained, not taken: the stream keeps its capacity for the next construct.
        let mut ops = std::mem::take(&mut self.ops);
        for op in ops.drain(..) {
            let skip = failed.is_some() && (op.is_kernel() || matches!(op, Op::Copy { .. }));
            if let Err(e) = run_op(kernels, op, skip) {
                failed.get_or_insert(e);
            }
        }
        self.ops = ops;
        failed.map_or(Ok(()), Err)
    }
}

/// The error of an operation a host device refuses when it is recorded.
pub(super) fn refused(device: usize, what: String) -> Error {
    Error::new(ErrorKind::Backend, format!("host device {device}: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Kernels that log their first parameter; kernel 7 waits until the gate opens.
    struct Log {
        log: Mutex<Vec<usize>>,
        gate: Arc<(Mutex<bool>, Condvar)>,
        started: AtomicUsize,
        /// The thread each logged kernel ran on.
        threads: Mutex<Vec<std::thread::ThreadId>>,
    }

    impl HostKernels for Log {
        fn device(&self) -> usize {
            0
        }
        fn run(
            &self,
            kernel: KernelHandle,
            params: &[usize],
            _cfg: &LaunchConfig,
            _origin: Option<crate::origin::Origin>,
        ) -> Result<()> {
            if kernel.0 == 7 {
                let mut open = self.gate.0.lock();
                while !*open {
                    self.gate.1.wait(&mut open);
                }
            }
            if kernel.0 == 9 {
                return Err(Error::new(ErrorKind::Backend, "kernel 9 fails"));
            }
            self.log.lock().push(params[0]);
            self.threads.lock().push(std::thread::current().id());
            Ok(())
        }
        fn runs_here(&self, cfg: &LaunchConfig) -> bool {
            cfg.tripcount != 1 // kernels made by `remote_kernel` run on executors only
        }
    }

    impl super::super::pool::Hooks for Log {
        fn started(&self) {
            self.started.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn pool(max: usize) -> (Runner, Arc<Log>) {
        let log = Arc::new(Log {
            log: Mutex::new(Vec::new()),
            gate: Arc::new((Mutex::new(false), Condvar::new())),
            started: AtomicUsize::new(0),
            threads: Mutex::new(Vec::new()),
        });
        let pool = Pool::new(
            "test-host",
            max,
            max,
            super::super::pool::Timing::DEFAULT,
            log.clone(),
        );
        let runner = Runner {
            kernels: log.clone(),
            pool,
        };
        (runner, log)
    }

    fn kernel(k: usize, value: usize) -> Op {
        Op::Kernel {
            kernel: KernelHandle(k),
            params: smallvec::smallvec![value],
            cfg: LaunchConfig {
                num_teams: [1; 3],
                teams: false,
                thread_limit: [0; 3],
                tripcount: 0,
                dyn_cgroup_mem: 0,
            },
            label: None,
            origin: None,
            tool: None,
        }
    }

    /// A kernel the calling thread cannot run (as a `teams` kernel inside a parallel region).
    fn remote_kernel(k: usize, value: usize) -> Op {
        match kernel(k, value) {
            Op::Kernel {
                kernel,
                params,
                mut cfg,
                label,
                origin,
                tool,
            } => {
                cfg.tripcount = 1;
                Op::Kernel {
                    kernel,
                    params,
                    cfg,
                    label,
                    origin,
                    tool,
                }
            }
            op => op,
        }
    }

    /// A pool of one executor, and a stream whose kernel holds it until the gate opens.
    fn one_executor_blocked() -> (Runner, Arc<Log>, HostStream) {
        let (p, log) = pool(1);
        let mut busy = HostStream::default();
        busy.push(remote_kernel(7, 1));
        busy.submit(&p);
        while log.started.load(Ordering::SeqCst) == 0 || p.pool.queued() != 0 {
            std::thread::yield_now();
        }
        (p, log, busy)
    }

    fn open(log: &Log) {
        *log.gate.0.lock() = true;
        log.gate.1.notify_all();
    }

    /// Opens the gate from another thread after `delay`.
    fn open_after(log: &Arc<Log>, delay: std::time::Duration) {
        let log = log.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            open(&log);
        });
    }

    #[test]
    fn a_thread_about_to_wait_runs_a_batch_no_executor_took() {
        let (p, log, mut busy) = one_executor_blocked();
        let mut s = HostStream::default();
        s.push(kernel(1, 2));
        s.submit(&p);
        // The pool's only executor is blocked (the watcher sees it, and the pool may have no
        // other): the waiting thread runs the batch itself.
        s.synchronize(&p).expect("runs here");
        assert_eq!(*log.log.lock(), vec![2]);
        open(&log);
        busy.synchronize(&p).expect("busy");
        assert_eq!(*log.log.lock(), vec![2, 1]);
    }

    #[test]
    fn a_thread_waiting_for_another_streams_event_runs_that_streams_batch() {
        let (p, log, mut busy) = one_executor_blocked();
        // A `nowait` construct's stream, submitted, and a construct that waits for its end.
        let mut a = HostStream::default();
        a.push(kernel(1, 2));
        let ev = a.record();
        a.submit(&p);
        let mut b = HostStream::default();
        b.push(Op::Wait(ev));
        b.push(kernel(1, 3));
        // Without the waiting thread's help the batch would wait for the executor: let it end
        // after a while, so that such a build fails below instead of hanging.
        open_after(&log, std::time::Duration::from_secs(2));
        b.synchronize(&p).expect("runs here");
        assert_eq!(*log.log.lock(), vec![2, 3]);
        let me = std::thread::current().id();
        assert_eq!(
            *log.threads.lock(),
            vec![me, me],
            "both ran on the waiting thread"
        );
        open(&log);
        busy.synchronize(&p).expect("the blocked kernel ends");
    }

    #[test]
    fn a_waiting_thread_leaves_a_batch_that_waits_for_work_not_issued_yet() {
        let (p, log, mut busy) = one_executor_blocked();
        // y: recorded, not issued yet; x: a mark in its middle, then a wait for y's end.
        let mut y = HostStream::default();
        y.push(kernel(1, 5));
        let y_end = y.record();
        let mut x = HostStream::default();
        x.push(kernel(1, 2));
        let x_mid = x.record();
        x.push(Op::Wait(y_end));
        x.push(kernel(1, 3));
        x.submit(&p);
        open_after(&log, std::time::Duration::from_millis(200));
        // Running x here would block this thread at y's end, which only it can issue.
        let mut t = HostStream::default();
        t.push(Op::Wait(x_mid));
        t.synchronize(&p)
            .expect("x's first half runs on the executor");
        y.synchronize(&p).expect("y runs here");
        x.synchronize(&p).expect("x's second half runs once y has");
        busy.synchronize(&p).expect("the blocked kernel ends");
        let order: Vec<usize> = log.log.lock().iter().copied().filter(|v| *v != 1).collect();
        assert_eq!(order, vec![2, 5, 3]);
    }

    #[test]
    fn a_synchronized_stream_runs_on_the_calling_thread_in_order() {
        let (p, log) = pool(2);
        let mut s = HostStream::default();
        for i in 0..5 {
            s.push(kernel(1, i));
        }
        assert!(!s.idle());
        s.synchronize(&p).expect("runs");
        assert_eq!(*log.log.lock(), vec![0, 1, 2, 3, 4]);
        assert_eq!(log.started.load(Ordering::SeqCst), 0, "no executor started");
        assert!(
            s.record().backend().is_none(),
            "an idle stream's event is done"
        );
    }

    #[test]
    fn a_submitted_stream_runs_on_an_executor_while_the_caller_goes_on() {
        let (p, log) = pool(2);
        let mut s = HostStream::default();
        s.push(kernel(7, 1)); // waits for the gate
        let ev = s.record();
        s.submit(&p);
        assert!(!ev.query().expect("query"));
        assert!(!s.done(&p), "the kernel waits for the gate");
        open(&log);
        ev.synchronize().expect("reached");
        s.synchronize(&p).expect("ok");
        assert!(s.done(&p));
        assert_eq!(*log.log.lock(), vec![1]);
    }

    #[test]
    fn waits_park_instead_of_blocking_every_executor() {
        // One executor. Stream b waits for stream a's mark; b is submitted first, so with a
        // blocking wait the only executor would wait for a batch queued behind it.
        let (p, log) = pool(1);
        let mut a = HostStream::default();
        a.push(remote_kernel(1, 10));
        let ev = a.record();
        let mut b = HostStream::default();
        b.push(Op::Wait(ev));
        b.push(remote_kernel(1, 20));
        b.submit(&p);
        a.submit(&p);
        b.synchronize(&p).expect("b");
        a.synchronize(&p).expect("a");
        assert_eq!(*log.log.lock(), vec![10, 20]);
        drop(log);
    }

    #[test]
    fn the_executor_that_reaches_a_mark_runs_the_batch_parked_on_it() {
        for _ in 0..10 {
            let (p, log) = pool(4);
            let mut a = HostStream::default();
            a.push(remote_kernel(7, 10)); // waits for the gate
            let ev = a.record();
            a.submit(&p);
            let mut b = HostStream::default();
            b.push(Op::Wait(ev.clone()));
            b.push(remote_kernel(1, 20));
            b.submit(&p);
            // b parks on a's mark (on another executor: a's is held by the gate).
            let mark = host_mark(&ev).expect("a host mark");
            while mark.state.lock().parked.is_empty() {
                std::thread::yield_now();
            }
            open(&log);
            b.synchronize(&p).expect("b");
            a.synchronize(&p).expect("a");
            assert_eq!(*log.log.lock(), vec![10, 20]);
            let t = log.threads.lock();
            assert_eq!(t[0], t[1], "b ran on a's executor, not after a hand-off");
        }
    }

    #[test]
    fn a_reached_mark_hands_one_batch_of_the_callers_pool_back() {
        let (p1, l1) = pool(1);
        let (p2, l2) = pool(1);
        let batch = |p: &Runner, v| {
            Arc::new(Batch {
                ops: Mutex::new(VecDeque::from([remote_kernel(1, v)])),
                failed: Mutex::new(None),
                end: Arc::new(Mark::default()),
                runner: p.clone(),
            })
        };
        let (x1, x2, y) = (batch(&p1, 1), batch(&p1, 2), batch(&p2, 3));
        let m = Mark::default();
        for b in [&x1, &x2, &y] {
            assert!(m.park(b));
        }
        let kept = m
            .signal_keeping(Some(&p1.pool))
            .expect("one of p1's batches");
        assert!(Arc::ptr_eq(&kept, &x1));
        // The others were queued on their own pools, which run them.
        y.wait().expect("y ran on p2");
        x2.wait().expect("x2 ran on p1");
        assert_eq!((*l1.log.lock()).clone(), vec![2]);
        assert_eq!(*l2.log.lock(), vec![3]);
        assert!(!kept.done(), "the kept batch is left to the caller");
        assert!(m.signal_keeping(None).is_none(), "nothing parked any more");
    }

    #[test]
    fn streams_run_at_once_on_several_executors() {
        let (p, log) = pool(4);
        let mut blocked = HostStream::default();
        blocked.push(remote_kernel(7, 1));
        blocked.submit(&p);
        let mut other = HostStream::default();
        other.push(remote_kernel(1, 2));
        other.submit(&p);
        // The second stream finishes while the first still waits for the gate.
        other.synchronize(&p).expect("other");
        assert_eq!(*log.log.lock(), vec![2]);
        open(&log);
        blocked.synchronize(&p).expect("blocked");
        assert_eq!(*log.log.lock(), vec![2, 1]);
    }

    #[test]
    fn a_failure_skips_later_work_signals_marks_and_is_reported() {
        let (p, log) = pool(1);
        let mut s = HostStream::default();
        s.push(kernel(9, 0));
        s.push(kernel(1, 5));
        let ev = s.record();
        s.submit(&p);
        ev.synchronize()
            .expect("the mark is reached despite the failure");
        let e = s.synchronize(&p).expect_err("fails");
        assert!(e.message.contains("kernel 9 fails"), "{}", e.message);
        assert!(
            log.log.lock().is_empty(),
            "the kernel after the failure did not run"
        );
        // The stream can be used again.
        s.push(kernel(1, 6));
        s.synchronize(&p).expect("fresh work runs");
        assert_eq!(*log.log.lock(), vec![6]);
    }

    #[test]
    fn batches_of_one_stream_stay_in_order() {
        let (p, log) = pool(4);
        let mut s = HostStream::default();
        s.push(kernel(7, 1));
        s.submit(&p);
        s.push(kernel(1, 2));
        s.submit(&p); // against the contract, but kept in order: waits for the first batch
        open(&log);
        s.synchronize(&p).expect("ok");
        assert_eq!(*log.log.lock(), vec![1, 2]);
    }

    #[test]
    fn idle_executors_stop_and_new_ones_start_on_demand() {
        let (p, log) = pool(2);
        let mut s = HostStream::default();
        s.push(remote_kernel(1, 1));
        s.submit(&p);
        s.synchronize(&p).expect("ok");
        // The executor may still be on its way back to idle (as when the program exits right
        // after its last wait): stopping waits for it.
        p.pool.stop_if_idle();
        assert_eq!(p.pool.threads(), 0);
        s.push(remote_kernel(1, 2));
        s.submit(&p);
        s.synchronize(&p).expect("ok");
        assert_eq!(*log.log.lock(), vec![1, 2]);
        assert_eq!(log.started.load(Ordering::SeqCst), 2);
    }
}
