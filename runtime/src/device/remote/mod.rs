//! Remote devices: the devices of other MPI ranks, driven from rank 0 (cluster mode,
//! `SPREAD_REMOTE=mpi mpirun -np 1+W ./prog`).
//!
//! Every rank runs the same binary. Rank 0 (the head) runs the program; its devices are its own
//! followed by every worker's, by (rank, local index). Ranks 1.. (workers) divert when the
//! program registers its images: they serve their devices until the head ends, then leave
//! without running `main`. A [`RemoteDevice`] is an ordinary [`Device`]: the mapping table,
//! `target spread` and the schedulers above the device layer do not know the device is remote.
//!
//! - Commands are ordered per stream by the transport's order between two ranks; nothing is
//!   acknowledged but synchronizations, requests (allocation, look-ups) and events.
//! - Events are signalled by the rank that records them straight to the ranks that wait
//!   ([`protocol::Msg::Notify`]), and to the head; peer copies go from worker to worker.
//! - Workers send a heartbeat every second; one not heard from for `SPREAD_REMOTE_TIMEOUT`
//!   ends the run with a message naming its devices, rank and host ([`head`]).
//!
//! [`protocol`] is the wire format, [`link`] each process's communication thread, `sys::transport`
//! MPI or in-process channels, [`worker`] the serving side.

pub mod head;
pub mod link;
pub mod protocol;
pub mod worker;

#[cfg(test)]
mod tests;

use super::{
    AllocKind, Device, DeviceInfo, DeviceKind, Event, EventImpl, KernelHandle, Launch, LoadedImage,
    MemoryInfo, PeerCopy, Stream,
};
use crate::error::{Error, ErrorKind, Result};
use crate::image::{DeviceObject, ImageTarget};
use link::Link;
use parking_lot::Mutex;
use protocol::{DeviceDesc, Msg, Request, MAX_PAYLOAD};
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

pub use head::{at_exit, discover, is_worker, serve_if_worker};

/// A device of another rank.
pub struct RemoteDevice {
    info: DeviceInfo,
    desc: DeviceDesc,
    link: Arc<Link>,
    rank: usize,
    /// The device's index on its rank.
    dev: u16,
    next_stream: AtomicU32,
    /// "remote device 3 (MPI rank 1, host n1)", for messages.
    label: String,
}

/// A stream of a remote device: its number on the worker, the device-to-host copies whose
/// bytes have not been waited for, and the synchronization asked for ahead (see `submit`).
struct RemoteStream {
    id: u32,
    landing: Vec<u64>,
    sync: Option<u64>,
    /// Operations with an OMPT trace record, between two events whose firing times the worker
    /// reports ([`RemoteDevice::timed`]), completed when the stream is synchronized.
    traced: Vec<Traced>,
}

/// An operation's trace record and the events recorded before and after it.
struct Traced {
    record: Box<crate::ompt::Pending>,
    start: u64,
    end: u64,
}

impl RemoteDevice {
    /// Device `dev` of `rank`, as its worker described it, numbered `id` by the head.
    pub fn new(
        id: usize,
        link: Arc<Link>,
        rank: usize,
        host: &str,
        dev: u16,
        desc: DeviceDesc,
    ) -> Self {
        let kind = if desc.kind == 1 {
            DeviceKind::Cuda
        } else {
            DeviceKind::Host
        };
        let mut details = vec![
            ("MPI rank".to_string(), rank.to_string()),
            ("Node".to_string(), host.to_string()),
            ("Device on its rank".to_string(), dev.to_string()),
        ];
        details.extend(desc.details.iter().cloned());
        RemoteDevice {
            info: DeviceInfo {
                kind,
                name: format!("{} on MPI rank {rank} ({host})", desc.name),
                memory_bytes: desc.memory_bytes,
                compute_units: desc.compute_units,
                details,
            },
            label: format!("remote device {id} (MPI rank {rank}, host {host})"),
            desc,
            link,
            rank,
            dev,
            next_stream: AtomicU32::new(0),
        }
    }

    fn err(&self, (kind, message): (ErrorKind, String)) -> Error {
        Error::new(kind, format!("{}: {message}", self.label))
    }

    fn request(&self, body: Request) -> Result<Vec<u64>> {
        self.link.request(self.rank, body).map_err(|e| self.err(e))
    }

    fn stream<'s>(&self, s: &'s mut Stream) -> Result<&'s mut RemoteStream> {
        s.state::<RemoteStream>(&self.label)
    }

    fn post(&self, msg: &Msg, urgent: bool) -> Result<()> {
        self.post_to(self.rank, urgent, |b| protocol::append(b, msg))
    }

    /// Queues the message `write` appends for `rank`; errors name this device.
    fn post_to(&self, rank: usize, urgent: bool, write: impl FnOnce(&mut Vec<u8>)) -> Result<()> {
        self.link
            .post_with(rank, urgent, write)
            .map_err(|e| self.err((e.kind, e.message)))
    }

    /// Runs `f` (which posts one operation on `s`) between two events whose firing times the
    /// worker reports, when the operation carries an OMPT trace record: the record gets the
    /// times the worker reached the operation and finished it, once the stream is synchronized.
    /// (Without the events it carries the posting's times.)
    fn timed(&self, s: &mut Stream, f: impl FnOnce(&mut Stream) -> Result<()>) -> Result<()> {
        let Some(record) = crate::ompt::take_pending() else {
            return f(s);
        };
        let posted = std::time::Instant::now();
        let start = self.mark(s);
        let r = f(s);
        let end = start.as_ref().ok().map(|_| self.mark(s));
        match (start, end) {
            (Ok(start), Some(Ok(end))) if r.is_ok() => {
                self.stream(s)?.traced.push(Traced { record, start, end });
            }
            (start, end) => {
                for id in [start.ok(), end.and_then(|e| e.ok())].into_iter().flatten() {
                    self.link.time(id);
                }
                crate::ompt::complete_pending(*record, posted, std::time::Instant::now());
            }
        }
        r
    }

    /// An event recorded at the current end of `s` whose firing time the head keeps.
    fn mark(&self, s: &mut Stream) -> Result<u64> {
        let stream = self.stream(s)?.id;
        let event = self.link.next_id();
        self.link.keep_time(event);
        self.post(
            &Msg::Record {
                dev: self.dev,
                stream,
                event,
            },
            false,
        )?;
        Ok(event)
    }

    /// Completes the trace records of a synchronized stream with the worker's times.
    fn complete_traced(&self, traced: Vec<Traced>) {
        for t in traced {
            let now = std::time::Instant::now();
            let at = |id: u64| {
                let time = self.link.time(id).map_or(now, instant_of);
                self.link.forget(id);
                time
            };
            let (start, end) = (at(t.start), at(t.end));
            crate::ompt::complete_pending(*t.record, start, end.max(start));
        }
    }
}

/// The head's monotonic time of `wall` (a rank's [`link::wall_ns`]).
fn instant_of(wall: u64) -> std::time::Instant {
    let (now, now_wall) = (std::time::Instant::now(), link::wall_ns());
    if wall <= now_wall {
        now.checked_sub(std::time::Duration::from_nanos(now_wall - wall))
            .unwrap_or(now)
    } else {
        now + std::time::Duration::from_nanos(wall - now_wall)
    }
}

/// The (offset, length) pieces a copy of `len` bytes travels in: at most [`MAX_PAYLOAD`] each.
fn pieces(len: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..len)
        .step_by(MAX_PAYLOAD)
        .map(move |off| (off, (len - off).min(MAX_PAYLOAD)))
}

/// An image loaded on a remote device: names are looked up on the worker once and remembered.
struct RemoteImage {
    link: Arc<Link>,
    rank: usize,
    handle: u64,
    cache: Mutex<HashMap<(u8, String), Option<u64>>>,
}

impl RemoteImage {
    fn lookup(&self, what: u8, name: &str) -> Option<u64> {
        let key = (what, name.to_string());
        if let Some(v) = self.cache.lock().get(&key) {
            return *v;
        }
        let v = match self.link.request(
            self.rank,
            Request::Lookup {
                image: self.handle,
                what,
                name: name.to_string(),
            },
        ) {
            Ok(v) if v.first() == Some(&1) => v.get(1).copied(),
            Ok(_) => None,
            // Not remembered: the caller reports a missing name; the failure itself is reported
            // by the communication thread.
            Err(_) => return None,
        };
        self.cache.lock().insert(key, v);
        v
    }
}

impl LoadedImage for RemoteImage {
    fn kernel(&self, name: &str) -> Option<KernelHandle> {
        self.lookup(0, name).map(|k| KernelHandle(k as usize))
    }
    fn global(&self, name: &str) -> Option<usize> {
        self.lookup(1, name).map(|a| a as usize)
    }
    fn global_size(&self, name: &str) -> Option<usize> {
        self.lookup(2, name).map(|s| s as usize)
    }
}

/// An event recorded on a remote device's stream.
struct RemoteEvent {
    link: Arc<Link>,
    id: u64,
    rank: usize,
    /// Other ranks told to expect it (they keep its record until it is forgotten).
    waiters: Mutex<Vec<usize>>,
}

impl EventImpl for RemoteEvent {
    fn query(&self) -> Result<bool> {
        self.link.check()?;
        let fired = self.link.signalled(self.id);
        if !fired {
            // The record goes out with the next batch (see `record_event`): asked about, it goes
            // now.
            self.link.flush(self.rank);
        }
        Ok(fired)
    }
    fn synchronize(&self) -> Result<()> {
        if !self.link.signalled(self.id) {
            self.link.flush(self.rank);
        }
        self.link.wait_signal(self.id)
    }
}

impl Drop for RemoteEvent {
    fn drop(&mut self) {
        // Nobody can wait for it any more: the ranks that record it or were told of it drop
        // their record once the commands already sent have run (no reply, no hurry).
        self.link.forget(self.id);
        let forget = Msg::Forget { event: self.id };
        let _ = self.link.post_lazy(self.rank, &forget);
        for &r in self.waiters.lock().iter() {
            let _ = self.link.post_lazy(r, &forget);
        }
    }
}

impl Device for RemoteDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn accepts(&self, target: ImageTarget) -> bool {
        match target {
            ImageTarget::HostX86_64 => self.desc.accepts_host,
            ImageTarget::Cuda { sm } => sm < 128 && self.desc.accepts_sm & (1 << sm) != 0,
        }
    }

    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>> {
        let (hash, len) = worker::image_key(object.bytes);
        let v = self.request(Request::LoadImage {
            dev: self.dev,
            hash,
            len,
        })?;
        Ok(Box::new(RemoteImage {
            link: self.link.clone(),
            rank: self.rank,
            handle: v.first().copied().unwrap_or(0),
            cache: Mutex::new(HashMap::new()),
        }))
    }

    fn alloc(&self, size: usize, kind: AllocKind) -> Result<usize> {
        if kind != AllocKind::Device {
            // Host and managed memory are shared with the host; the host of a remote device is
            // another node, not the program's.
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "{}: {} memory would be shared with rank {}'s host, not the program's (rank 0)",
                    self.label,
                    if kind == AllocKind::Host {
                        "host"
                    } else {
                        "managed"
                    },
                    self.rank
                ),
            ));
        }
        let v = self.request(Request::Alloc {
            dev: self.dev,
            size: size as u64,
            kind,
        })?;
        Ok(v.first().copied().unwrap_or(0) as usize)
    }

    fn free(&self, ptr: usize, kind: AllocKind) -> Result<()> {
        self.request(Request::Free {
            dev: self.dev,
            ptr: ptr as u64,
            kind,
        })
        .map(drop)
    }

    fn memory_info(&self) -> Result<MemoryInfo> {
        let v = self.request(Request::MemInfo { dev: self.dev })?;
        Ok(MemoryInfo {
            free: v.first().copied().unwrap_or(0),
            total: v.get(1).copied().unwrap_or(0),
        })
    }

    fn create_stream(&self) -> Result<Stream> {
        let mut s = Stream::default();
        s.backend = Some(Box::new(RemoteStream {
            id: self.next_stream.fetch_add(1, Ordering::Relaxed),
            landing: Vec::new(),
            sync: None,
            traced: Vec::new(),
        }));
        Ok(s)
    }

    fn to_device_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.timed(s, |s| {
            let stream = self.stream(s)?.id;
            // The bytes leave with the batch: those an earlier copy back is still bringing to this
            // range must have landed (see `Link::wait_landed`).
            self.link.wait_landed(src, len)?;
            for (off, n) in pieces(len) {
                let dst = (dst + off) as u64;
                self.post_to(self.rank, false, |b| {
                    protocol::append_copy_to(b, self.dev, stream, dst, src + off, n)
                })?;
            }
            Ok(())
        })
    }

    fn to_host_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.timed(s, |s| {
            let rs = self.stream(s)?;
            let stream = rs.id;
            for (off, n) in pieces(len) {
                let req = self.link.next_id();
                self.link.expect_data(req, dst + off, n);
                rs.landing.push(req);
                self.post(
                    &Msg::CopyFrom {
                        dev: self.dev,
                        stream,
                        src: (src + off) as u64,
                        len: n as u64,
                        req,
                    },
                    false,
                )?;
            }
            Ok(())
        })
    }

    fn within_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.timed(s, |s| {
            let stream = self.stream(s)?.id;
            self.post(
                &Msg::CopyWithin {
                    dev: self.dev,
                    stream,
                    dst: dst as u64,
                    src: src as u64,
                    len: len as u64,
                },
                false,
            )?;
            Ok(())
        })
    }

    fn fill_impl(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()> {
        let stream = self.stream(s)?.id;
        self.post(
            &Msg::Fill {
                dev: self.dev,
                stream,
                dst: dst as u64,
                byte,
                len: len as u64,
            },
            false,
        )?;
        Ok(())
    }

    fn can_copy_peer(&self, dst_dev: &dyn Device) -> bool {
        (dst_dev as &dyn Any)
            .downcast_ref::<RemoteDevice>()
            .is_some_and(|d| Arc::ptr_eq(&d.link, &self.link))
    }

    fn peer_impl(&self, c: PeerCopy<'_>, s: &mut Stream) -> Result<()> {
        self.timed(s, |s| {
            let PeerCopy { to, dst, src, len } = c;
            let to = super::peer_of::<RemoteDevice>(self, to)?;
            let stream = self.stream(s)?.id;
            for (off, n) in pieces(len) {
                self.post(
                    &Msg::PeerSend {
                        dev: self.dev,
                        stream,
                        src: (src + off) as u64,
                        len: n as u64,
                        dst_rank: to.rank as u32,
                        dst_dev: to.dev,
                        dst: (dst + off) as u64,
                        tag: self.link.next_id(),
                    },
                    false,
                )?;
            }
            Ok(())
        })
    }

    fn launch_impl(&self, l: Launch<'_>, s: &mut Stream) -> Result<()> {
        self.timed(s, |s| {
            let Launch { kernel, args, cfg } = l;
            let stream = self.stream(s)?.id;
            self.post(
                &Msg::Launch {
                    dev: self.dev,
                    stream,
                    kernel: kernel.0 as u64,
                    args: args.iter().map(|&a| a as u64).collect(),
                    cfg: *cfg,
                },
                false,
            )?;
            Ok(())
        })
    }

    fn record_event(&self, s: &mut Stream) -> Result<Event> {
        let stream = self.stream(s)?.id;
        let id = self.link.next_id();
        // Not urgent: most records are only looked at later, if at all (the end of a kernel's
        // entries, in case another construct releases one meanwhile). Whoever waits sends it on
        // its way: a query or synchronize flushes, a wait from another rank posts an urgent
        // Notify to this rank, a wait from this rank follows it in the same batch.
        self.post(
            &Msg::Record {
                dev: self.dev,
                stream,
                event: id,
            },
            false,
        )?;
        Ok(Event::new(Arc::new(RemoteEvent {
            link: self.link.clone(),
            id,
            rank: self.rank,
            waiters: Mutex::new(Vec::new()),
        })))
    }

    fn wait_event_impl(&self, s: &mut Stream, _ev: &Event, e: &dyn EventImpl) -> Result<bool> {
        let Some(re) = (e as &dyn Any)
            .downcast_ref::<RemoteEvent>()
            .filter(|r| Arc::ptr_eq(&r.link, &self.link))
        else {
            // An event of a local device: the head waits for it before the rest of `s` is sent.
            return Ok(false);
        };
        if self.link.signalled(re.id) {
            return Ok(true);
        }
        let stream = self.stream(s)?.id;
        if re.rank != self.rank {
            {
                let mut w = re.waiters.lock();
                if !w.contains(&self.rank) {
                    w.push(self.rank);
                }
            }
            // The recording rank tells this device's rank directly when the event fires.
            let notify = Msg::Notify {
                event: re.id,
                rank: self.rank as u32,
            };
            self.post_to(re.rank, true, |b| protocol::append(b, &notify))?;
        }
        self.post(
            &Msg::WaitEvent {
                dev: self.dev,
                stream,
                event: re.id,
            },
            false,
        )?;
        s.busy = true;
        Ok(true)
    }

    fn submit(&self, s: &mut Stream) -> Result<()> {
        if !s.busy {
            return Ok(());
        }
        let dev = self.dev;
        let rs = self.stream(s)?;
        if rs.sync.is_none() {
            // Leaves at once, with the construct's commands: the worker answers when they ran.
            let body = Request::Sync { dev, stream: rs.id };
            let req = self
                .link
                .send_request(self.rank, body)
                .map_err(|e| self.err(e))?;
            rs.sync = Some(req);
        }
        Ok(())
    }

    fn stream_done_impl(&self, s: &mut Stream) -> Result<Option<bool>> {
        // Without a synchronization asked for ahead only a round trip can tell.
        Ok(self.stream(s)?.sync.map(|req| self.link.answered(req)))
    }

    fn synchronize_impl(&self, s: &mut Stream) -> Result<()> {
        let busy = s.busy;
        let rs = self.stream(s)?;
        let stream = rs.id;
        let landing = std::mem::take(&mut rs.landing);
        let traced = std::mem::take(&mut rs.traced);
        let asked = rs.sync.take();
        let r = match (busy, asked) {
            (false, _) => Ok(()),
            (true, Some(req)) => self
                .link
                .wait_answer(req)
                .map_err(|e| self.err(e))
                .map(drop),
            (true, None) => self
                .request(Request::Sync {
                    dev: self.dev,
                    stream,
                })
                .map(drop),
        };
        for req in landing {
            self.link.take_landing(req);
        }
        self.complete_traced(traced);
        r
    }

    fn host_addressable(&self) -> bool {
        false
    }

    fn asynchronous(&self) -> bool {
        true
    }
}
