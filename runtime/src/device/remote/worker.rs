//! A worker rank: it serves its own devices to the head.
//!
//! Stream commands run on one in-order executor thread per (device, stream), so the head's
//! streams overlap here as they would on a local device; requests (allocation, image loading,
//! look-ups) run on one control thread; the communication thread only routes, so heartbeats
//! keep flowing while a kernel runs. An error on a stream is kept and reported by the stream's
//! next synchronization, as a GPU stream would; events still fire after an error, so nobody
//! waits forever on a failed rank's stream.

use super::link::{Handler, Link};
use super::protocol::{self, DeviceDesc, Msg, Request};
use crate::config::{Fault, FaultAction};
use crate::device::{Device, KernelHandle, Launch, LoadedImage, Stream};
use crate::error::{Error, ErrorKind, Result};
use crate::image::ImageTarget;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a worker serves: its devices and the program's registered images.
pub trait Host: Send + Sync {
    /// Local device `index`.
    fn device(&self, index: usize) -> Option<&dyn Device>;
    /// Number of local devices.
    fn num_devices(&self) -> usize;
    /// The registered image with this hash and length.
    fn image(&self, hash: u64, len: u64) -> Option<crate::image::ImageParts>;
}

/// How a worker describes its devices to the head.
pub fn describe(dev: &dyn Device) -> DeviceDesc {
    let info = dev.info();
    let mut accepts_sm = 0u128;
    for sm in 0..128u32 {
        if dev.accepts(ImageTarget::Cuda { sm }) {
            accepts_sm |= 1 << sm;
        }
    }
    DeviceDesc {
        kind: match info.kind {
            crate::config::DeviceKind::Host => 0,
            crate::config::DeviceKind::Cuda => 1,
        },
        name: info.name.clone(),
        memory_bytes: info.memory_bytes,
        compute_units: info.compute_units,
        accepts_host: dev.accepts(ImageTarget::HostX86_64),
        accepts_sm,
        details: info.details.clone(),
    }
}

/// Stream id of the executor that lands peer transfers on a device.
const PEER_STREAM: u32 = u32::MAX;

/// Where an executor's commands go: (source rank, command).
type Inbox = Sender<(usize, Msg)>;

/// A worker's state.
pub struct Worker {
    host: Arc<dyn Host>,
    images: Mutex<Vec<Box<dyn LoadedImage>>>,
    executors: Mutex<HashMap<(u16, u32), Inbox>>,
    control: Mutex<Option<Inbox>>,
    /// Ranks to tell when an event of this rank fires.
    notify: Mutex<HashMap<u64, Vec<u32>>>,
    /// Events being forgotten: how many executors have yet to pass the point of the `Forget`.
    forgetting: Mutex<HashMap<u64, usize>>,
    /// The streams each event was recorded on or waited for on (only their executors pass a
    /// `Forget`: with many streams, waking every executor per dropped event cost more than
    /// the commands themselves).
    involved: Mutex<HashMap<u64, Vec<(u16, u32)>>>,
    heartbeat: Duration,
    last_beat: Mutex<Instant>,
    received: std::sync::atomic::AtomicU64,
    fault: Option<Fault>,
    /// Name the devices in the crash report once the head numbered them (MPI runs only: the
    /// in-process tests leave the test process's signals alone).
    crash_report: std::sync::atomic::AtomicBool,
    done: Mutex<bool>,
    done_cv: Condvar,
    /// This worker, for the threads it starts.
    me: std::sync::Weak<Worker>,
}

impl Worker {
    /// A worker serving `host`'s devices; heartbeats go to the head every `heartbeat`.
    pub fn new(host: Arc<dyn Host>, heartbeat: Duration, fault: Option<Fault>) -> Arc<Worker> {
        Arc::new_cyclic(|me| Worker {
            host,
            images: Mutex::new(Vec::new()),
            executors: Mutex::new(HashMap::new()),
            control: Mutex::new(None),
            notify: Mutex::new(HashMap::new()),
            forgetting: Mutex::new(HashMap::new()),
            involved: Mutex::new(HashMap::new()),
            heartbeat,
            last_beat: Mutex::new(Instant::now()),
            received: std::sync::atomic::AtomicU64::new(0),
            fault,
            crash_report: std::sync::atomic::AtomicBool::new(false),
            done: Mutex::new(false),
            done_cv: Condvar::new(),
            me: me.clone(),
        })
    }

    /// Reports a crash of this process naming its devices once the head numbered them.
    pub fn report_crashes(&self) {
        self.crash_report
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Blocks until the head says the program ended.
    pub fn wait_done(&self) {
        let mut d = self.done.lock();
        while !*d {
            self.done_cv.wait(&mut d);
        }
    }

    /// The in-order executor of (`dev`, `stream`), started on first use.
    fn executor(&self, link: &Arc<Link>, dev: u16, stream: u32) -> Option<Inbox> {
        let mut ex = self.executors.lock();
        if let Some(s) = ex.get(&(dev, stream)) {
            return Some(s.clone());
        }
        let me = self.me.upgrade()?;
        let (tx, rx) = channel::<(usize, Msg)>();
        let link = link.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("spread-remote-d{dev}s{stream}"))
            .spawn(move || {
                let Some(d) = me.host.device(usize::from(dev)) else {
                    return;
                };
                let mut state = StreamState {
                    stream: d.create_stream().ok(),
                    error: None,
                };
                while let Ok((src, msg)) = rx.recv() {
                    // The command's reply (or the next command) is due soon.
                    let _busy = link.expecting();
                    // A synchronization must be answered even if running it panicked.
                    let sync = match &msg {
                        Msg::Request {
                            req,
                            body: Request::Sync { .. },
                        } => Some(*req),
                        _ => None,
                    };
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        me.run(&link, d, &mut state, src, msg)
                    }));
                    if ran.is_err() {
                        state.error = Some(Error::new(
                            ErrorKind::Backend,
                            "internal error: a command of this stream panicked on the worker",
                        ));
                        if let Some(req) = sync {
                            let body = Request::Sync { dev, stream };
                            me.after_error(&link, src, Msg::Request { req, body }, &mut state);
                        }
                    }
                }
            });
        match spawned {
            Ok(_) => {
                ex.insert((dev, stream), tx.clone());
                Some(tx)
            }
            Err(_) => None,
        }
    }

    fn control(&self, link: &Arc<Link>) -> Option<Inbox> {
        let mut c = self.control.lock();
        if let Some(s) = c.as_ref() {
            return Some(s.clone());
        }
        let me = self.me.upgrade()?;
        let (tx, rx) = channel::<(usize, Msg)>();
        let link = link.clone();
        std::thread::Builder::new()
            .name("spread-remote-ctl".into())
            .spawn(move || {
                while let Ok((src, msg)) = rx.recv() {
                    let _busy = link.expecting();
                    if let Msg::Request { req, body } = msg {
                        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            me.request(body)
                        }))
                        .unwrap_or_else(|_| {
                            Err(Error::new(
                                ErrorKind::Backend,
                                "internal error: the request panicked on the worker",
                            ))
                        });
                        reply(&link, src, req, answer.map_err(|e| (e.kind, e.message)));
                    }
                }
            })
            .ok()?;
        *c = Some(tx.clone());
        Some(tx)
    }

    fn device(&self, dev: u16) -> Result<&dyn Device> {
        self.host.device(usize::from(dev)).ok_or_else(|| {
            Error::new(
                ErrorKind::BadDevice,
                format!("this rank has no device {dev}"),
            )
        })
    }

    /// Answers a request (control thread).
    fn request(&self, body: Request) -> Result<Vec<u64>> {
        match body {
            Request::LoadImage { dev, hash, len } => {
                let d = self.device(dev)?;
                let parts = self.host.image(hash, len).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Image,
                        "this rank's program has no such image: every rank must run the same binary",
                    )
                })?;
                let loaded = d.load_image(&parts.object())?;
                let mut imgs = self.images.lock();
                imgs.push(loaded);
                Ok(vec![imgs.len() as u64 - 1])
            }
            Request::Lookup { image, what, name } => {
                let imgs = self.images.lock();
                let img = usize::try_from(image)
                    .ok()
                    .and_then(|i| imgs.get(i))
                    .ok_or_else(|| Error::new(ErrorKind::Image, "unknown image handle"))?;
                let v = match what {
                    0 => img.kernel(&name).map(|k| k.0 as u64),
                    1 => img.global(&name).map(|a| a as u64),
                    _ => img.global_size(&name).map(|s| s as u64),
                };
                Ok(vec![u64::from(v.is_some()), v.unwrap_or(0)])
            }
            Request::Alloc { dev, size, kind } => {
                let size = usize::try_from(size)
                    .map_err(|_| Error::new(ErrorKind::OutOfMemory, "size out of range"))?;
                Ok(vec![self.device(dev)?.alloc(size, kind)? as u64])
            }
            Request::Free { dev, ptr, kind } => {
                self.device(dev)?.free(ptr as usize, kind)?;
                Ok(Vec::new())
            }
            Request::MemInfo { dev } => {
                let m = self.device(dev)?.memory_info()?;
                Ok(vec![m.free, m.total])
            }
            // Synchronizations go to their stream's executor, leaving to the communication
            // thread; never here.
            Request::Sync { .. } | Request::Leave => Ok(Vec::new()),
        }
    }

    /// Runs one stream command (executor thread).
    fn run(&self, link: &Arc<Link>, d: &dyn Device, st: &mut StreamState, src: usize, msg: Msg) {
        // Every executor passes a `Forget`, even one whose stream could not be made.
        if let Msg::Forget { event } = msg {
            return self.passed_forget(link, event);
        }
        let Some(s) = st.stream.as_mut() else {
            st.error.get_or_insert_with(|| {
                Error::new(ErrorKind::Backend, "cannot create a stream on this device")
            });
            return self.after_error(link, src, msg, st);
        };
        if st.error.is_some() {
            return self.after_error(link, src, msg, st);
        }
        let r: Result<()> = match msg {
            Msg::CopyTo { dst, data, .. } => d
                .copy_to_device(dst as usize, data.as_ptr() as usize, data.len(), s)
                .and_then(|_| d.synchronize(s)),
            Msg::CopyFrom {
                src: from,
                len,
                req,
                ..
            } => {
                let mut buf = vec![0u8; len as usize];
                d.copy_from_device(buf.as_mut_ptr() as usize, from as usize, buf.len(), s)
                    .and_then(|_| d.synchronize(s))
                    .and_then(|_| {
                        link.post(
                            src,
                            &Msg::Data {
                                req,
                                data: buf.into(),
                            },
                            true,
                        )
                    })
            }
            Msg::CopyWithin {
                dst,
                src: from,
                len,
                ..
            } => d
                .copy_within(dst as usize, from as usize, len as usize, s)
                .and_then(|_| d.synchronize(s)),
            Msg::Fill { dst, byte, len, .. } => d
                .fill(dst as usize, byte, len as usize, s)
                .and_then(|_| d.synchronize(s)),
            Msg::Launch {
                kernel, args, cfg, ..
            } => {
                let args: Vec<usize> = args.iter().map(|&a| a as usize).collect();
                d.launch(
                    Launch {
                        kernel: KernelHandle(kernel as usize),
                        args: &args,
                        cfg: &cfg,
                    },
                    s,
                )
                .and_then(|_| d.synchronize(s))
            }
            Msg::Record { event, .. } => {
                self.fire(link, event);
                Ok(())
            }
            Msg::WaitEvent { event, .. } => link.wait_signal(event),
            Msg::PeerSend {
                src: from,
                len,
                dst_rank,
                dst_dev,
                dst,
                tag,
                ..
            } => self.peer_send(link, d, s, from, len, dst_rank, dst_dev, dst, tag),
            Msg::PeerData { tag, dst, data, .. } => d
                .copy_to_device(dst as usize, data.as_ptr() as usize, data.len(), s)
                .and_then(|_| d.synchronize(s))
                .and_then(|_| link.post(src, &Msg::PeerAck { tag }, true)),
            Msg::Request {
                req,
                body: Request::Sync { .. },
            } => {
                reply(link, src, req, Ok(Vec::new()));
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(e) = r {
            st.error = Some(e);
        }
    }

    /// Starts forgetting `event` (communication thread): each executor that records or waits
    /// for it passes the point first, so a wait for it queued before the `Forget` still finds it
    /// fired.
    fn forget(&self, link: &Arc<Link>, src: usize, event: u64) {
        let streams = self.involved.lock().remove(&event).unwrap_or_default();
        let executors: Vec<Inbox> = {
            let ex = self.executors.lock();
            streams.iter().filter_map(|k| ex.get(k).cloned()).collect()
        };
        if executors.is_empty() {
            return self.forgotten(link, event);
        }
        self.forgetting.lock().insert(event, executors.len());
        for tx in executors {
            let _ = tx.send((src, Msg::Forget { event }));
        }
    }

    /// An executor passed the point of a `Forget`.
    fn passed_forget(&self, link: &Link, event: u64) {
        let done = {
            let mut f = self.forgetting.lock();
            match f.get_mut(&event) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                _ => {
                    f.remove(&event);
                    true
                }
            }
        };
        if done {
            self.forgotten(link, event);
        }
    }

    fn forgotten(&self, link: &Link, event: u64) {
        link.forget(event);
        self.notify.lock().remove(&event);
    }

    /// A command on a stream that already failed: events still fire and synchronizations
    /// report the error; the rest is skipped.
    fn after_error(&self, link: &Arc<Link>, src: usize, msg: Msg, st: &mut StreamState) {
        match msg {
            Msg::Record { event, .. } => self.fire(link, event),
            Msg::Request {
                req,
                body: Request::Sync { .. },
            } => {
                let e = st
                    .error
                    .take()
                    .unwrap_or_else(|| Error::new(ErrorKind::Backend, "the stream failed"));
                reply(link, src, req, Err((e.kind, e.to_string())));
                // A stream that could not be created stays failed.
            }
            Msg::PeerData { tag, .. } => {
                let _ = link.post(src, &Msg::PeerAck { tag }, true);
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn peer_send(
        &self,
        link: &Arc<Link>,
        d: &dyn Device,
        s: &mut Stream,
        from: u64,
        len: u64,
        dst_rank: u32,
        dst_dev: u16,
        dst: u64,
        tag: u64,
    ) -> Result<()> {
        let mut buf = vec![0u8; len as usize];
        d.copy_from_device(buf.as_mut_ptr() as usize, from as usize, buf.len(), s)?;
        d.synchronize(s)?;
        let dst_rank = dst_rank as usize;
        if dst_rank == link.place.rank {
            let to = self.device(dst_dev)?;
            let mut ts = to.create_stream()?;
            let r = to.copy_to_device(dst as usize, buf.as_ptr() as usize, buf.len(), &mut ts);
            let r2 = to.synchronize(&mut ts);
            return r.and(r2);
        }
        link.post(
            dst_rank,
            &Msg::PeerData {
                tag,
                dev: dst_dev,
                dst,
                data: buf.into(),
            },
            true,
        )?;
        link.wait_signal(tag)?;
        link.forget(tag);
        Ok(())
    }

    /// Event `event` of this rank fired: tell this rank's waiters, the head and the ranks that
    /// asked.
    fn fire(&self, link: &Link, event: u64) {
        link.signal(event);
        let fired = Msg::Fired {
            event,
            time: super::link::wall_ns(),
        };
        let _ = link.post(0, &fired, true);
        let ranks = self.notify.lock().remove(&event).unwrap_or_default();
        for r in ranks {
            let _ = link.post(r as usize, &fired, true);
        }
    }

    fn inject(&self, link: &Link, leaving: bool) {
        let n = self
            .received
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let Some(f) = self.fault.filter(|f| {
            f.rank == link.place.rank && (f.command == n || (f.command == 0 && leaving))
        }) else {
            return;
        };
        match f.action {
            FaultAction::Exit => {
                eprintln!(
                    "spread: remote worker (MPI rank {}, host {}): injected fault: exiting at message {n}",
                    link.place.rank, link.place.host
                );
                crate::sys::mpi::exit_now(3);
            }
            FaultAction::Kill => crate::sys::mpi::kill_self(),
            FaultAction::Hang => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
        }
    }
}

/// Answers request `req` of `src` with its values or its error.
fn reply(
    link: &Link,
    src: usize,
    req: u64,
    answer: std::result::Result<Vec<u64>, (ErrorKind, String)>,
) {
    let msg = match answer {
        Ok(values) => Msg::Reply { req, values },
        Err((kind, message)) => Msg::Failed { req, kind, message },
    };
    let _ = link.post(src, &msg, true);
}

/// An executor's stream and its first error.
struct StreamState {
    stream: Option<Stream>,
    error: Option<Error>,
}

/// The worker's handler as a shared pointer the communication thread holds.
pub struct WorkerHandler(pub Arc<Worker>, pub Arc<Link>);

impl Handler for WorkerHandler {
    fn handle(&self, link: &Link, src: usize, msg: Msg) {
        let w = &self.0;
        let link_arc = &self.1;
        w.inject(
            link,
            matches!(
                msg,
                Msg::Request {
                    body: Request::Leave,
                    ..
                }
            ),
        );
        let route = |dev: u16, stream: u32, msg: Msg| {
            if let Some(tx) = w.executor(link_arc, dev, stream) {
                let _ = tx.send((src, msg));
            }
        };
        match msg {
            Msg::Request {
                body: Request::Sync { dev, stream },
                ..
            } => route(dev, stream, msg),
            Msg::Request {
                req,
                body: Request::Leave,
            } => {
                reply(link, src, req, Ok(Vec::new()));
                *w.done.lock() = true;
                w.done_cv.notify_all();
            }
            Msg::Request { .. } => {
                if let Some(tx) = w.control(link_arc) {
                    let _ = tx.send((src, msg));
                }
            }
            Msg::CopyTo { dev, stream, .. }
            | Msg::CopyFrom { dev, stream, .. }
            | Msg::CopyWithin { dev, stream, .. }
            | Msg::Fill { dev, stream, .. }
            | Msg::Launch { dev, stream, .. }
            | Msg::PeerSend { dev, stream, .. } => route(dev, stream, msg),
            Msg::Record { dev, stream, event } | Msg::WaitEvent { dev, stream, event } => {
                let mut inv = w.involved.lock();
                let streams = inv.entry(event).or_default();
                if !streams.contains(&(dev, stream)) {
                    streams.push((dev, stream));
                }
                drop(inv);
                route(dev, stream, msg)
            }
            Msg::PeerData { dev, .. } => route(dev, PEER_STREAM, msg),
            Msg::PeerAck { tag } => link.signal(tag),
            Msg::Fired { event, .. } => link.signal(event),
            Msg::Notify { event, rank } => {
                // Decided under the notify lock, so a `fire` cannot slip between the check and
                // the registration.
                let mut n = w.notify.lock();
                if link.signalled(event) {
                    drop(n);
                    let _ = link.post(rank as usize, &Msg::Fired { event, time: 0 }, true);
                } else {
                    n.entry(event).or_default().push(rank);
                }
            }
            Msg::Forget { event } => w.forget(link_arc, src, event),
            Msg::Welcome { first_device } => {
                if !w.crash_report.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                let n = w.host.num_devices() as u64;
                let ids: Vec<String> = (first_device..first_device + n)
                    .map(|d| d.to_string())
                    .collect();
                crate::sys::mpi::report_crashes(&format!(
                    "spread: error: remote device{} {} (MPI rank {}, host {}) failed: ",
                    if n > 1 { "s" } else { "" },
                    ids.join(", "),
                    link.place.rank,
                    link.place.host
                ));
            }
            Msg::Hello { .. }
            | Msg::Reply { .. }
            | Msg::Failed { .. }
            | Msg::Data { .. }
            | Msg::Heartbeat => {}
        }
    }

    fn tick(&self, link: &Link, now: Instant) {
        let mut last = self.0.last_beat.lock();
        if now.saturating_duration_since(*last) >= self.0.heartbeat {
            *last = now;
            let _ = link.post(0, &Msg::Heartbeat, true);
        }
    }
}

/// Hashes an image as the head does, for [`Host::image`] implementations.
pub fn image_key(bytes: &[u8]) -> (u64, u64) {
    (protocol::image_hash(bytes), bytes.len() as u64)
}
