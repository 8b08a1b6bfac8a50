//! One worker thread and one FIFO queue per device (seed 003): asynchronous work on a device runs
//! in submission order on its worker, so the program's thread goes on meanwhile.
//!
//! Synchronous constructs do not pass through the queue: they run on the calling thread, as each
//! host thread has an implicit stream of its own in libomptarget. Handing a synchronous launch
//! to another thread and back would cost more than the launch itself.

use crate::device::{Event, EventImpl};
use crate::error::Result;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;

type Job = Box<dyn FnOnce() -> Result<()> + Send>;

/// Completion of one queued job: what the [`Event`] its submission returns refers to.
#[derive(Default)]
struct JobDone {
    state: Mutex<Option<Result<()>>>,
    done: Condvar,
}

impl JobDone {
    /// Whether the job has finished.
    pub fn is_done(&self) -> bool {
        self.state.lock().is_some()
    }

    /// Blocks until the job has finished and returns its outcome.
    pub fn wait(&self) -> Result<()> {
        let mut s = self.state.lock();
        while s.is_none() {
            self.done.wait(&mut s);
        }
        s.clone().unwrap_or(Ok(()))
    }

    fn complete(&self, r: Result<()>) {
        *self.state.lock() = Some(r);
        self.done.notify_all();
    }
}

/// A queued job's completion is a device event like any other: its outcome is the job's.
impl EventImpl for JobDone {
    fn query(&self) -> Result<bool> {
        Ok(self.is_done())
    }
    fn synchronize(&self) -> Result<()> {
        self.wait()
    }
}

#[derive(Default)]
struct State {
    jobs: VecDeque<(Job, Arc<JobDone>)>,
    /// A job is running on the worker.
    busy: bool,
    worker_started: bool,
    /// Workers are numbered as they start; those numbered below `retired` end when they find no
    /// job (see [`Queue::stop_if_idle`]).
    generation: u64,
    retired: u64,
}

/// A device's FIFO queue and its worker.
pub struct Queue {
    name: String,
    inner: Arc<(Mutex<State>, Condvar)>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Queue {
    /// A queue whose worker thread is started on the first submission.
    pub fn new(name: impl Into<String>) -> Self {
        Queue {
            name: name.into(),
            inner: Arc::new((Mutex::new(State::default()), Condvar::new())),
            worker: Mutex::new(None),
        }
    }

    /// Appends `job`; it runs after every job submitted before it.
    pub fn submit(&self, job: impl FnOnce() -> Result<()> + Send + 'static) -> Event {
        let ev = Arc::new(JobDone::default());
        let (lock, cv) = &*self.inner;
        let mut st = lock.lock();
        st.jobs.push_back((Box::new(job), ev.clone()));
        if !st.worker_started {
            st.worker_started = true;
            st.generation += 1;
            let (inner, generation) = (self.inner.clone(), st.generation);
            let spawned = std::thread::Builder::new()
                .name(self.name.clone())
                .spawn(move || worker(inner, generation));
            match spawned {
                Ok(handle) => *self.worker.lock() = Some(handle),
                Err(_) => {
                    // Without a worker the queue still makes progress: the job runs here.
                    st.worker_started = false;
                    if let Some((job, ev)) = st.jobs.pop_back() {
                        drop(st);
                        ev.complete(job());
                        return Event::new(ev);
                    }
                }
            }
        }
        cv.notify_all();
        Event::new(ev)
    }

    /// Blocks until every job submitted so far has finished (`wait device(d)`).
    pub fn drain(&self) {
        let (lock, cv) = &*self.inner;
        let mut st = lock.lock();
        while !st.jobs.is_empty() || st.busy {
            cv.wait(&mut st);
        }
    }

    /// Blocks until `ev` (a job of this queue) has finished, running queued jobs on the calling
    /// thread meanwhile whenever the device is free. A thread that must wait anyway does the work
    /// itself instead of waiting for the worker to be scheduled, which can take a time slice when
    /// libomp's idle threads spin on every core. Jobs still run one at a time, in FIFO order.
    pub fn run_until(&self, ev: &Event) -> Result<()> {
        let (lock, cv) = &*self.inner;
        loop {
            let mut st = lock.lock();
            if ev.query().unwrap_or(true) {
                drop(st);
                return ev.synchronize();
            }
            if let Some((job, jev)) = take_next(&mut st) {
                drop(st);
                run_job(&self.inner, job, jev);
                continue;
            }
            // `ev` was checked under the queue lock, and its completion notifies `cv` after it.
            cv.wait(&mut st);
        }
    }

    /// Runs queued jobs on the calling thread (or waits for the worker) until at most `n` jobs
    /// are waiting or running. A thread that queues work faster than the device completes it
    /// calls this to keep the queue, and the memory its jobs hold, bounded.
    pub fn run_while_longer_than(&self, n: usize) {
        let (lock, cv) = &*self.inner;
        loop {
            let mut st = lock.lock();
            if st.jobs.len() + usize::from(st.busy) <= n {
                return;
            }
            if let Some((job, jev)) = take_next(&mut st) {
                drop(st);
                run_job(&self.inner, job, jev);
                continue;
            }
            // A job is running elsewhere; its completion notifies `cv`.
            cv.wait(&mut st);
        }
    }

    /// Ends the worker thread and waits for it, when no job is waiting or running (otherwise
    /// leaves it be: a job still running at exit may wait for something that never comes).
    /// `Runtime::unregister` calls this when the program's last image goes (at exit): a worker
    /// that has run a kernel is a libomp root thread, and libomp frees a root's descriptors when
    /// the thread ends, not when the process does (valgrind reported them as definitely lost). A
    /// later submission starts a new worker.
    pub fn stop_if_idle(&self) {
        let handle = {
            let (lock, cv) = &*self.inner;
            let mut st = lock.lock();
            // A job that has just completed its event is still `busy` until its worker takes
            // the lock again: the program may exit in between. Give it a moment.
            let deadline = std::time::Instant::now() + crate::exit::SETTLE;
            while st.busy && st.jobs.is_empty() && !cv.wait_until(&mut st, deadline).timed_out() {}
            if !st.worker_started || !st.jobs.is_empty() || st.busy {
                return;
            }
            let mut worker = self.worker.lock();
            // Never from the worker itself (a job that unloads a library): it cannot join itself.
            let current = std::thread::current().id();
            let stoppable = match worker.as_ref() {
                Some(h) => h.thread().id() != current,
                None => false,
            };
            if !stoppable {
                return;
            }
            st.retired = st.generation + 1;
            st.worker_started = false;
            cv.notify_all();
            worker.take()
        };
        if let Some(h) = handle {
            let _ = h.join();
        }
    }

    /// Jobs waiting or running.
    pub fn pending(&self) -> usize {
        let st = self.inner.0.lock();
        st.jobs.len() + usize::from(st.busy)
    }
}

/// Runs one popped job and marks the queue free again.
fn run_job(inner: &(Mutex<State>, Condvar), job: Job, ev: Arc<JobDone>) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|_| {
        Err(crate::error::Error::new(
            crate::error::ErrorKind::Backend,
            "an asynchronous device operation panicked",
        ))
    });
    ev.complete(r);
    let (lock, cv) = inner;
    lock.lock().busy = false;
    cv.notify_all();
}

/// Takes the next job if no job is running (one job at a time keeps the FIFO order).
fn take_next(st: &mut State) -> Option<(Job, Arc<JobDone>)> {
    if st.busy {
        return None;
    }
    let j = st.jobs.pop_front()?;
    st.busy = true;
    Some(j)
}

fn worker(inner: Arc<(Mutex<State>, Condvar)>, generation: u64) {
    let (lock, cv) = &*inner;
    loop {
        let (job, ev) = {
            let mut st = lock.lock();
            loop {
                if let Some(j) = take_next(&mut st) {
                    break j;
                }
                if generation < st.retired {
                    return;
                }
                cv.wait(&mut st);
            }
        };
        run_job(&inner, job, ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, ErrorKind};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Submits `n` jobs that log their number; returns the log and the events.
    fn logging_jobs(q: &Queue, n: usize) -> (Arc<Mutex<Vec<usize>>>, Vec<Event>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let events = (0..n)
            .map(|i| {
                let log = log.clone();
                q.submit(move || {
                    log.lock().push(i);
                    Ok(())
                })
            })
            .collect();
        (log, events)
    }

    #[test]
    fn jobs_run_in_submission_order() {
        let q = Queue::new("test-queue");
        let (log, events) = logging_jobs(&q, 100);
        q.drain();
        assert!(events.iter().all(|e| e.query().expect("query")));
        assert_eq!(*log.lock(), (0..100).collect::<Vec<_>>());
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn a_waiting_thread_runs_jobs_in_order() {
        let q = Queue::new("test-queue-help");
        let (log, events) = logging_jobs(&q, 50);
        q.run_until(&events[49]).expect("ok");
        assert!(events.iter().all(|e| e.query().expect("query")));
        assert_eq!(*log.lock(), (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn a_long_queue_is_shortened_by_the_submitting_thread() {
        let q = Queue::new("test-queue-bound");
        let (log, events) = logging_jobs(&q, 200);
        q.run_while_longer_than(10);
        assert!(q.pending() <= 10, "{}", q.pending());
        q.run_until(&events[199]).expect("ok");
        assert_eq!(*log.lock(), (0..200).collect::<Vec<_>>());
        q.run_while_longer_than(0);
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn an_idle_worker_stops_and_a_new_one_starts_on_demand() {
        let q = Queue::new("test-queue-stop");
        let worker_of = |q: &Queue| {
            let id = Arc::new(Mutex::new(None));
            let id2 = id.clone();
            q.submit(move || {
                *id2.lock() = Some(std::thread::current().id());
                Ok(())
            })
            .synchronize()
            .expect("ok");
            let id = id.lock().expect("ran");
            id
        };
        let first = worker_of(&q);
        q.drain();
        q.stop_if_idle(); // joins the worker: returns only once it has ended
        assert!(q.worker.lock().is_none());
        let (log, events) = logging_jobs(&q, 20);
        q.drain();
        assert!(events.iter().all(|e| e.query().expect("query")));
        assert_eq!(*log.lock(), (0..20).collect::<Vec<_>>());
        let second = worker_of(&q);
        assert_ne!(first, second, "a new worker runs the jobs after a stop");
        q.stop_if_idle();
        q.stop_if_idle(); // no worker: nothing to do
    }

    #[test]
    fn a_worker_on_its_way_back_from_its_last_job_is_stopped() {
        // As at the program's exit right after its last wait: the job's event has completed,
        // its worker may not have marked the queue free yet.
        for _ in 0..50 {
            let q = Queue::new("test-queue-settle");
            q.submit(|| Ok(())).synchronize().expect("ok");
            q.stop_if_idle();
            assert!(q.worker.lock().is_none(), "the worker was left running");
        }
    }

    #[test]
    fn a_busy_worker_is_not_stopped() {
        let q = Queue::new("test-queue-busy");
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let g = gate.clone();
        let ev = q.submit(move || {
            let mut open = g.0.lock();
            while !*open {
                g.1.wait(&mut open);
            }
            Ok(())
        });
        q.stop_if_idle(); // returns without joining (after exit::SETTLE): a job is running
        assert!(q.worker.lock().is_some());
        *gate.0.lock() = true;
        gate.1.notify_all();
        ev.synchronize().expect("ok");
    }

    #[test]
    fn errors_reach_the_event() {
        let q = Queue::new("test-queue-err");
        let ev = q.submit(|| Err(Error::new(ErrorKind::Backend, "boom")));
        assert_eq!(
            ev.synchronize().map_err(|e| e.message),
            Err("boom".to_string())
        );
        let ok = q.submit(|| Ok(()));
        assert!(ok.synchronize().is_ok());
    }

    #[test]
    fn work_runs_off_the_calling_thread() {
        let q = Queue::new("test-queue-async");
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let ran = Arc::new(AtomicUsize::new(0));
        let (g, r) = (gate.clone(), ran.clone());
        let ev = q.submit(move || {
            let mut open = g.0.lock();
            while !*open {
                g.1.wait(&mut open);
            }
            r.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
        // submit returned while the job is blocked: it runs on the worker.
        assert!(!ev.query().expect("query"));
        *gate.0.lock() = true;
        gate.1.notify_all();
        ev.synchronize().expect("job succeeds");
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
