//! The messages rank 0 (the head) and the worker ranks exchange, and their byte encoding.
//!
//! Every transport message is a *batch*: one or more encoded [`Msg`]s, each prefixed by its
//! length. The head coalesces the commands it sends one rank until something needs them to have
//! arrived (a synchronization, an event, a request with a reply, a size limit), so a construct
//! costs one message per rank, not one per operation. The transport keeps messages between two
//! ranks in order, which orders every stream's commands without an acknowledgement per
//! operation.
//!
//! Numbers are little-endian; strings and byte payloads carry a `u64` length.

use crate::device::{AllocKind, LaunchConfig};
use crate::error::ErrorKind;

/// Most bytes one copy command carries; longer copies become several commands.
pub const MAX_PAYLOAD: usize = 64 << 20;

/// Bytes a message carries: a range of the batch it arrived in (decoding copies nothing) or a
/// buffer of its own (a message being built).
#[derive(Clone)]
pub struct Payload {
    buf: std::sync::Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
}

impl Payload {
    fn slice(buf: &std::sync::Arc<Vec<u8>>, range: std::ops::Range<usize>) -> Self {
        Payload {
            buf: buf.clone(),
            range,
        }
    }
}

impl From<Vec<u8>> for Payload {
    fn from(v: Vec<u8>) -> Self {
        let range = 0..v.len();
        Payload {
            buf: std::sync::Arc::new(v),
            range,
        }
    }
}

impl std::ops::Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[self.range.clone()]
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Payload({} bytes)", self.len())
    }
}

/// What one worker device is, as the worker reports it when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceDesc {
    /// 0: host device, 1: CUDA GPU.
    pub kind: u8,
    /// Human-readable description.
    pub name: String,
    /// Bytes of memory.
    pub memory_bytes: u64,
    /// Cores or multiprocessors.
    pub compute_units: u32,
    /// Whether the device runs x86_64 host images.
    pub accepts_host: bool,
    /// Bit `sm` set when the device runs a CUDA image built for `sm_<sm>` (sm < 128).
    pub accepts_sm: u128,
    /// The facts `spread-info -v` prints.
    pub details: Vec<(String, String)>,
}

/// A request the worker answers (each carries the request number its reply names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Load the program's registered image with this hash and length (worker and head run the
    /// same binary, so the worker holds it already). Reply: the worker's image handle.
    LoadImage {
        /// The worker's index of the device to load the image on.
        dev: u16,
        /// [`image_hash`] of the image's bytes.
        hash: u64,
        /// The image's length in bytes.
        len: u64,
    },
    /// Look `name` up in a loaded image: `what` 0 = kernel, 1 = global address, 2 = global size.
    /// Reply: `[found, value]`.
    Lookup {
        /// The worker's image handle, from a `LoadImage` reply.
        image: u64,
        /// What to look up: 0 = kernel handle, 1 = global's device address, 2 = global's size.
        what: u8,
        /// The offload entry's symbol name.
        name: String,
    },
    /// Allocate. Reply: the address.
    Alloc {
        /// The worker's index of the device.
        dev: u16,
        /// Bytes to allocate.
        size: u64,
        /// Device, page-locked host or shared (managed) memory (`llvm_omp_target_alloc_*`).
        kind: AllocKind,
    },
    /// Free. Reply: nothing.
    Free {
        /// The worker's index of the device.
        dev: u16,
        /// Address an `Alloc` of the same `kind` returned.
        ptr: u64,
        /// The kind the memory was allocated as.
        kind: AllocKind,
    },
    /// Free and total memory. Reply: `[free, total]`.
    MemInfo {
        /// The worker's index of the device.
        dev: u16,
    },
    /// Wait for everything on a stream. Reply: nothing, or the stream's first error.
    Sync {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream on that device.
        stream: u32,
    },
    /// The program ended: leave the job. Reply: nothing, sent just before the worker leaves (the
    /// head leaves the job only when every worker answered, or the silent one was named).
    Leave,
}

/// One message.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// Worker to head, once at start: its host and devices.
    Hello {
        /// The worker's host name.
        host: String,
        /// Its process id on that host (for the head to tell which rank died).
        pid: u32,
        /// The worker's devices, in its own order (their index is the `dev` of later messages).
        devices: Vec<DeviceDesc>,
    },
    /// Head to worker: a request numbered `req`.
    Request {
        /// Request number, unique per head; the reply (`Reply` or `Failed`) names it.
        req: u64,
        /// What is asked.
        body: Request,
    },
    /// Worker to head: request `req` succeeded with these values.
    Reply {
        /// The request answered.
        req: u64,
        /// The answer; its meaning depends on the request (see [`Request`]).
        values: Vec<u64>,
    },
    /// Worker to head: request `req` failed.
    Failed {
        /// The request answered.
        req: u64,
        /// The error's kind, sent as its index in the protocol's table of kinds.
        kind: ErrorKind,
        /// The error's message, in the worker's words.
        message: String,
    },
    /// Copy `data` to device address `dst`, in stream order.
    CopyTo {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the copy is ordered on.
        stream: u32,
        /// Destination address on the device.
        dst: u64,
        /// The bytes to copy, at most [`MAX_PAYLOAD`].
        data: Payload,
    },
    /// Copy `len` bytes from device address `src` back to the head, which lands them where its
    /// pending copy `req` says.
    CopyFrom {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the copy is ordered on.
        stream: u32,
        /// Source address on the device.
        src: u64,
        /// Bytes to copy, at most [`MAX_PAYLOAD`].
        len: u64,
        /// The head's number for the pending copy; the `Data` reply names it.
        req: u64,
    },
    /// Worker to head: the bytes of copy `req`.
    Data {
        /// The `CopyFrom` these bytes answer.
        req: u64,
        /// The bytes read from the device.
        data: Payload,
    },
    /// Copy within the device.
    CopyWithin {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the copy is ordered on.
        stream: u32,
        /// Destination address on the device.
        dst: u64,
        /// Source address on the device.
        src: u64,
        /// Bytes to copy.
        len: u64,
    },
    /// Set bytes.
    Fill {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the fill is ordered on.
        stream: u32,
        /// First device address to set.
        dst: u64,
        /// The value every byte is set to.
        byte: u8,
        /// Bytes to set.
        len: u64,
    },
    /// Run a kernel (the handle is the worker's own, from a `Lookup`).
    Launch {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the launch is ordered on.
        stream: u32,
        /// The worker's kernel handle (a `Lookup` with `what` 0).
        kernel: u64,
        /// The kernel's arguments: device addresses and by-value literals, one word each.
        args: Vec<u64>,
        /// Teams, threads, trip count and dynamic group memory of the launch.
        cfg: LaunchConfig,
    },
    /// Mark a point of the stream: when reached, the worker announces `event` to the head and
    /// to every rank that asked (`Notify`).
    Record {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream the event marks.
        stream: u32,
        /// The event's id, unique per head.
        event: u64,
    },
    /// Later work on the stream waits until `event` fired (recorded on any rank).
    WaitEvent {
        /// The worker's index of the device.
        dev: u16,
        /// The head's number for the stream that waits.
        stream: u32,
        /// The event waited for.
        event: u64,
    },
    /// To the rank that records `event`: tell `rank` when it fires (at once if it has).
    Notify {
        /// The event to report.
        event: u64,
        /// The MPI rank to send `Fired` to.
        rank: u32,
    },
    /// An event fired (sent by the recording rank to the head and to the ranks that asked).
    Fired {
        /// The event that fired.
        event: u64,
        /// When, on the recording rank's clock (nanoseconds since the Unix epoch, 0: not
        /// known): the device time of OMPT trace records.
        time: u64,
    },
    /// Copy `len` bytes at `src` on this worker's device `dev` to `dst` on device `dst_dev` of
    /// rank `dst_rank`, in the order of `stream`; `tag` names the transfer.
    PeerSend {
        /// The worker's index of the source device.
        dev: u16,
        /// The head's number for the stream the transfer is ordered on.
        stream: u32,
        /// Source address on `dev`.
        src: u64,
        /// Bytes to copy, at most [`MAX_PAYLOAD`].
        len: u64,
        /// MPI rank of the destination device.
        dst_rank: u32,
        /// The destination rank's index of the destination device.
        dst_dev: u16,
        /// Destination address on `dst_dev`.
        dst: u64,
        /// The transfer's id, unique per head; `PeerData` and `PeerAck` name it.
        tag: u64,
    },
    /// Worker to worker: the bytes of peer transfer `tag` for `dst` on device `dev`.
    PeerData {
        /// The `PeerSend` these bytes belong to.
        tag: u64,
        /// The receiving worker's index of the destination device.
        dev: u16,
        /// Destination address on `dev`.
        dst: u64,
        /// The bytes to land.
        data: Payload,
    },
    /// Worker to worker: peer transfer `tag` landed.
    PeerAck {
        /// The `PeerSend` that completed.
        tag: u64,
    },
    /// Worker to head, every second: the worker's communication thread is alive.
    Heartbeat,
    /// Head to worker, once every worker said hello: the head's number for the worker's device 0
    /// (its devices are numbered consecutively), so that a worker's own failure report names them.
    Welcome {
        /// The head's (the program's) device number of the worker's device 0.
        first_device: u64,
    },
    /// Head to worker: nothing will wait for `event` any more once the commands sent before
    /// this one have run (its record can go).
    Forget {
        /// The event whose bookkeeping the worker can drop.
        event: u64,
    },
}

// --- encoding ----------------------------------------------------------------------------------

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
}

/// Reads an encoded message; every getter fails on truncated input.
struct Reader<'a>(&'a [u8]);

/// Where a reader's input sits in the batch (for payloads that point into it).
struct Source<'a> {
    batch: &'a std::sync::Arc<Vec<u8>>,
}

type Decoded<T> = std::result::Result<T, String>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Decoded<&'a [u8]> {
        if self.0.len() < n {
            return Err(format!(
                "truncated message ({n} bytes wanted, {} left)",
                self.0.len()
            ));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> Decoded<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Decoded<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Decoded<u32> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }
    fn u64(&mut self) -> Decoded<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn len(&mut self) -> Decoded<usize> {
        usize::try_from(self.u64()?).map_err(|_| "length out of range".to_string())
    }
    fn bytes(&mut self) -> Decoded<Vec<u8>> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }
    /// A payload: a range of the batch, no copy.
    fn payload(&mut self, src: &Source<'_>) -> Decoded<Payload> {
        let n = self.len()?;
        let bytes = self.take(n)?;
        let start = bytes.as_ptr() as usize - src.batch.as_ptr() as usize;
        Ok(Payload::slice(src.batch, start..start + n))
    }
    fn str(&mut self) -> Decoded<String> {
        String::from_utf8(self.bytes()?).map_err(|_| "a string is not UTF-8".to_string())
    }
}

fn alloc_kind_code(k: AllocKind) -> u8 {
    match k {
        AllocKind::Device => 0,
        AllocKind::Host => 1,
        AllocKind::Shared => 2,
    }
}

fn alloc_kind(code: u8) -> Decoded<AllocKind> {
    Ok(match code {
        0 => AllocKind::Device,
        1 => AllocKind::Host,
        2 => AllocKind::Shared,
        c => return Err(format!("unknown allocation kind {c}")),
    })
}

/// Error kinds by their code on the wire (the order is the protocol's: new kinds go at the end).
const ERROR_KINDS: [ErrorKind; 10] = [
    ErrorKind::Mapping,
    ErrorKind::BadDevice,
    ErrorKind::OutOfMemory,
    ErrorKind::MissingKernel,
    ErrorKind::Image,
    ErrorKind::Backend,
    ErrorKind::Invalid,
    ErrorKind::Unsupported,
    ErrorKind::Extension,
    ErrorKind::DeviceFault,
];

/// The wire code of `k`: a match, so that a new kind does not compile until it has a code.
fn error_kind_code(k: ErrorKind) -> u8 {
    match k {
        ErrorKind::Mapping => 0,
        ErrorKind::BadDevice => 1,
        ErrorKind::OutOfMemory => 2,
        ErrorKind::MissingKernel => 3,
        ErrorKind::Image => 4,
        ErrorKind::Backend => 5,
        ErrorKind::Invalid => 6,
        ErrorKind::Unsupported => 7,
        ErrorKind::Extension => 8,
        ErrorKind::DeviceFault => 9,
    }
}

fn put_cfg(w: &mut Writer, c: &LaunchConfig) {
    for v in c.num_teams {
        w.u32(v);
    }
    w.u8(u8::from(c.teams));
    for v in c.thread_limit {
        w.u32(v);
    }
    w.u64(c.tripcount);
    w.u32(c.dyn_cgroup_mem);
}

fn get_cfg(r: &mut Reader<'_>) -> Decoded<LaunchConfig> {
    let num_teams = [r.u32()?, r.u32()?, r.u32()?];
    let teams = r.u8()? != 0;
    let thread_limit = [r.u32()?, r.u32()?, r.u32()?];
    Ok(LaunchConfig {
        num_teams,
        teams,
        thread_limit,
        tripcount: r.u64()?,
        dyn_cgroup_mem: r.u32()?,
    })
}

fn put_request(w: &mut Writer, body: &Request) {
    match body {
        Request::LoadImage { dev, hash, len } => {
            w.u8(0);
            w.u16(*dev);
            w.u64(*hash);
            w.u64(*len);
        }
        Request::Lookup { image, what, name } => {
            w.u8(1);
            w.u64(*image);
            w.u8(*what);
            w.str(name);
        }
        Request::Alloc { dev, size, kind } => {
            w.u8(2);
            w.u16(*dev);
            w.u64(*size);
            w.u8(alloc_kind_code(*kind));
        }
        Request::Free { dev, ptr, kind } => {
            w.u8(3);
            w.u16(*dev);
            w.u64(*ptr);
            w.u8(alloc_kind_code(*kind));
        }
        Request::MemInfo { dev } => {
            w.u8(4);
            w.u16(*dev);
        }
        Request::Sync { dev, stream } => {
            w.u8(5);
            w.u16(*dev);
            w.u32(*stream);
        }
        Request::Leave => w.u8(6),
    }
}

fn get_request(r: &mut Reader<'_>) -> Decoded<Request> {
    Ok(match r.u8()? {
        0 => Request::LoadImage {
            dev: r.u16()?,
            hash: r.u64()?,
            len: r.u64()?,
        },
        1 => Request::Lookup {
            image: r.u64()?,
            what: r.u8()?,
            name: r.str()?,
        },
        2 => Request::Alloc {
            dev: r.u16()?,
            size: r.u64()?,
            kind: alloc_kind(r.u8()?)?,
        },
        3 => Request::Free {
            dev: r.u16()?,
            ptr: r.u64()?,
            kind: alloc_kind(r.u8()?)?,
        },
        4 => Request::MemInfo { dev: r.u16()? },
        5 => Request::Sync {
            dev: r.u16()?,
            stream: r.u32()?,
        },
        6 => Request::Leave,
        op => return Err(format!("unknown request {op}")),
    })
}

/// Encodes one device of a worker's `Hello`: what the head needs to number and describe it.
fn put_device(w: &mut Writer, d: &DeviceDesc) {
    w.u8(d.kind);
    w.str(&d.name);
    w.u64(d.memory_bytes);
    w.u32(d.compute_units);
    w.u8(u8::from(d.accepts_host));
    w.u64(d.accepts_sm as u64);
    w.u64((d.accepts_sm >> 64) as u64);
    w.u32(d.details.len() as u32);
    for (k, v) in &d.details {
        w.str(k);
        w.str(v);
    }
}

impl Msg {
    /// Encodes the message: its code, then its fields in the order [`Msg::get`] reads them.
    /// The commands that carry most of a run's traffic are encoded by their family's helper.
    fn put(&self, w: &mut Writer) {
        match self {
            Msg::Hello { host, pid, devices } => {
                w.u8(0);
                w.str(host);
                w.u32(*pid);
                w.u32(devices.len() as u32);
                for d in devices {
                    put_device(w, d);
                }
            }
            Msg::Request { req, body } => {
                w.u8(1);
                w.u64(*req);
                put_request(w, body);
            }
            Msg::Reply { req, values } => {
                w.u8(2);
                w.u64(*req);
                w.u32(values.len() as u32);
                for v in values {
                    w.u64(*v);
                }
            }
            Msg::Failed { req, kind, message } => {
                w.u8(3);
                w.u64(*req);
                w.u8(error_kind_code(*kind));
                w.str(message);
            }
            Msg::CopyTo { .. }
            | Msg::CopyFrom { .. }
            | Msg::Data { .. }
            | Msg::CopyWithin { .. }
            | Msg::Fill { .. }
            | Msg::Launch { .. } => self.put_device_work(w),
            Msg::Record { dev, stream, event } => {
                w.u8(10);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*event);
            }
            Msg::WaitEvent { dev, stream, event } => {
                w.u8(11);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*event);
            }
            Msg::Notify { event, rank } => {
                w.u8(12);
                w.u64(*event);
                w.u32(*rank);
            }
            Msg::Fired { event, time } => {
                w.u8(13);
                w.u64(*event);
                w.u64(*time);
            }
            Msg::PeerSend { .. } | Msg::PeerData { .. } | Msg::PeerAck { .. } => self.put_peer(w),
            Msg::Heartbeat => w.u8(17),
            Msg::Forget { event } => {
                w.u8(19);
                w.u64(*event);
            }
            Msg::Welcome { first_device } => {
                w.u8(20);
                w.u64(*first_device);
            }
        }
    }

    /// Encodes a copy, a fill or a launch on a device's stream (and a copy's bytes coming back,
    /// `Data`): the messages a construct sends most, kept apart from the session's. Only
    /// [`Msg::put`] calls it, with one of these.
    #[inline]
    fn put_device_work(&self, w: &mut Writer) {
        match self {
            Msg::CopyTo {
                dev,
                stream,
                dst,
                data,
            } => {
                w.u8(4);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*dst);
                w.bytes(data);
            }
            Msg::CopyFrom {
                dev,
                stream,
                src,
                len,
                req,
            } => {
                w.u8(5);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*src);
                w.u64(*len);
                w.u64(*req);
            }
            Msg::Data { req, data } => {
                w.u8(6);
                w.u64(*req);
                w.bytes(data);
            }
            Msg::CopyWithin {
                dev,
                stream,
                dst,
                src,
                len,
            } => {
                w.u8(7);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*dst);
                w.u64(*src);
                w.u64(*len);
            }
            Msg::Fill {
                dev,
                stream,
                dst,
                byte,
                len,
            } => {
                w.u8(8);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*dst);
                w.u8(*byte);
                w.u64(*len);
            }
            Msg::Launch {
                dev,
                stream,
                kernel,
                args,
                cfg,
            } => {
                w.u8(9);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*kernel);
                w.u32(args.len() as u32);
                for a in args {
                    w.u64(*a);
                }
                put_cfg(w, cfg);
            }
            _ => unreachable!("put_device_work encodes device work only"),
        }
    }

    /// Encodes a worker-to-worker transfer's messages: the head's order to send, the bytes and
    /// their acknowledgement. Only [`Msg::put`] calls it, with one of these.
    #[inline]
    fn put_peer(&self, w: &mut Writer) {
        match self {
            Msg::PeerSend {
                dev,
                stream,
                src,
                len,
                dst_rank,
                dst_dev,
                dst,
                tag,
            } => {
                w.u8(14);
                w.u16(*dev);
                w.u32(*stream);
                w.u64(*src);
                w.u64(*len);
                w.u32(*dst_rank);
                w.u16(*dst_dev);
                w.u64(*dst);
                w.u64(*tag);
            }
            Msg::PeerData {
                tag,
                dev,
                dst,
                data,
            } => {
                w.u8(15);
                w.u64(*tag);
                w.u16(*dev);
                w.u64(*dst);
                w.bytes(data);
            }
            Msg::PeerAck { tag } => {
                w.u8(16);
                w.u64(*tag);
            }
            _ => unreachable!("put_peer encodes peer transfers only"),
        }
    }

    fn get(r: &mut Reader<'_>, src: &Source<'_>) -> Decoded<Msg> {
        Ok(match r.u8()? {
            0 => {
                let host = r.str()?;
                let pid = r.u32()?;
                let n = r.u32()? as usize;
                let mut devices = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    let kind = r.u8()?;
                    let name = r.str()?;
                    let memory_bytes = r.u64()?;
                    let compute_units = r.u32()?;
                    let accepts_host = r.u8()? != 0;
                    let lo = r.u64()?;
                    let hi = r.u64()?;
                    let k = r.u32()? as usize;
                    let mut details = Vec::with_capacity(k.min(1024));
                    for _ in 0..k {
                        details.push((r.str()?, r.str()?));
                    }
                    devices.push(DeviceDesc {
                        kind,
                        name,
                        memory_bytes,
                        compute_units,
                        accepts_host,
                        accepts_sm: u128::from(lo) | (u128::from(hi) << 64),
                        details,
                    });
                }
                Msg::Hello { host, pid, devices }
            }
            1 => Msg::Request {
                req: r.u64()?,
                body: get_request(r)?,
            },
            2 => {
                let req = r.u64()?;
                let n = r.u32()? as usize;
                let mut values = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    values.push(r.u64()?);
                }
                Msg::Reply { req, values }
            }
            3 => Msg::Failed {
                req: r.u64()?,
                kind: ERROR_KINDS
                    .get(usize::from(r.u8()?))
                    .copied()
                    .unwrap_or(ErrorKind::Backend),
                message: r.str()?,
            },
            4 => Msg::CopyTo {
                dev: r.u16()?,
                stream: r.u32()?,
                dst: r.u64()?,
                data: r.payload(src)?,
            },
            5 => Msg::CopyFrom {
                dev: r.u16()?,
                stream: r.u32()?,
                src: r.u64()?,
                len: r.u64()?,
                req: r.u64()?,
            },
            6 => Msg::Data {
                req: r.u64()?,
                data: r.payload(src)?,
            },
            7 => Msg::CopyWithin {
                dev: r.u16()?,
                stream: r.u32()?,
                dst: r.u64()?,
                src: r.u64()?,
                len: r.u64()?,
            },
            8 => Msg::Fill {
                dev: r.u16()?,
                stream: r.u32()?,
                dst: r.u64()?,
                byte: r.u8()?,
                len: r.u64()?,
            },
            9 => {
                let dev = r.u16()?;
                let stream = r.u32()?;
                let kernel = r.u64()?;
                let n = r.u32()? as usize;
                let mut args = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    args.push(r.u64()?);
                }
                Msg::Launch {
                    dev,
                    stream,
                    kernel,
                    args,
                    cfg: get_cfg(r)?,
                }
            }
            10 => Msg::Record {
                dev: r.u16()?,
                stream: r.u32()?,
                event: r.u64()?,
            },
            11 => Msg::WaitEvent {
                dev: r.u16()?,
                stream: r.u32()?,
                event: r.u64()?,
            },
            12 => Msg::Notify {
                event: r.u64()?,
                rank: r.u32()?,
            },
            13 => Msg::Fired {
                event: r.u64()?,
                time: r.u64()?,
            },
            14 => Msg::PeerSend {
                dev: r.u16()?,
                stream: r.u32()?,
                src: r.u64()?,
                len: r.u64()?,
                dst_rank: r.u32()?,
                dst_dev: r.u16()?,
                dst: r.u64()?,
                tag: r.u64()?,
            },
            15 => Msg::PeerData {
                tag: r.u64()?,
                dev: r.u16()?,
                dst: r.u64()?,
                data: r.payload(src)?,
            },
            16 => Msg::PeerAck { tag: r.u64()? },
            17 => Msg::Heartbeat,
            19 => Msg::Forget { event: r.u64()? },
            20 => Msg::Welcome {
                first_device: r.u64()?,
            },
            op => return Err(format!("unknown message {op}")),
        })
    }
}

/// Kinds of message counted per destination (`SPREAD_INFO=remote`): a message's code, or for
/// a request [`REQUEST_KINDS`] plus its body's code.
pub const KINDS: usize = 32;
const REQUEST_KINDS: usize = 24;

/// The kind (see [`KINDS`]) of the message encoded at the start of `bytes` (its length word
/// first, as [`append`] writes it), if it can be read.
pub fn kind_at(bytes: &[u8]) -> Option<usize> {
    let code = usize::from(*bytes.get(8)?);
    if code == 1 {
        // A request: its code, its number, then its body's code.
        let sub = usize::from(*bytes.get(17)?);
        return (REQUEST_KINDS + sub < KINDS).then_some(REQUEST_KINDS + sub);
    }
    (code < REQUEST_KINDS).then_some(code)
}

/// The name of message kind `kind` (see [`KINDS`]).
pub fn kind_name(kind: usize) -> &'static str {
    const NAMES: [&str; REQUEST_KINDS] = [
        "Hello",
        "Request",
        "Reply",
        "Failed",
        "CopyTo",
        "CopyFrom",
        "Data",
        "CopyWithin",
        "Fill",
        "Launch",
        "Record",
        "WaitEvent",
        "Notify",
        "Fired",
        "PeerSend",
        "PeerData",
        "PeerAck",
        "Heartbeat",
        "?",
        "Forget",
        "Welcome",
        "?",
        "?",
        "?",
    ];
    const REQUESTS: [&str; 7] = [
        "LoadImage",
        "Lookup",
        "Alloc",
        "Free",
        "MemInfo",
        "Sync",
        "Leave",
    ];
    match kind.checked_sub(REQUEST_KINDS) {
        Some(sub) => REQUESTS.get(sub).copied().unwrap_or("Request"),
        None => NAMES.get(kind).copied().unwrap_or("?"),
    }
}

/// Appends `msg` to a batch being built.
pub fn append(batch: &mut Vec<u8>, msg: &Msg) {
    // One allocation for a large payload, not a doubling series of copies.
    let payload = match msg {
        Msg::CopyTo { data, .. } | Msg::Data { data, .. } | Msg::PeerData { data, .. } => {
            data.len()
        }
        _ => 0,
    };
    batch.reserve(payload + 128);
    let at = batch.len();
    batch.extend_from_slice(&[0; 8]);
    let mut w = Writer(std::mem::take(batch));
    msg.put(&mut w);
    let mut b = w.0;
    let len = (b.len() - at - 8) as u64;
    b[at..at + 8].copy_from_slice(&len.to_le_bytes());
    *batch = b;
}

/// Appends a [`Msg::CopyTo`] whose `len` bytes are read from program memory at `src` straight
/// into the batch (encoded exactly as the message would be).
pub fn append_copy_to(
    batch: &mut Vec<u8>,
    dev: u16,
    stream: u32,
    dst: u64,
    src: usize,
    len: usize,
) {
    batch.reserve(len + 64);
    let at = batch.len();
    batch.extend_from_slice(&[0; 8]);
    let mut w = Writer(std::mem::take(batch));
    w.u8(4);
    w.u16(dev);
    w.u32(stream);
    w.u64(dst);
    w.u64(len as u64);
    let mut b = w.0;
    crate::sys::access::append_from(&mut b, src, len);
    let n = (b.len() - at - 8) as u64;
    b[at..at + 8].copy_from_slice(&n.to_le_bytes());
    *batch = b;
}

/// Encodes one message as a batch of its own.
pub fn encode(msg: &Msg) -> Vec<u8> {
    let mut b = Vec::new();
    append(&mut b, msg);
    b
}

/// Decodes a batch into its messages; their payloads point into the batch.
pub fn decode(batch: Vec<u8>) -> Decoded<Vec<Msg>> {
    let batch = std::sync::Arc::new(batch);
    let src = Source { batch: &batch };
    let mut r = Reader(&batch);
    let mut out = Vec::new();
    while !r.0.is_empty() {
        let n = r.len()?;
        let mut one = Reader(r.take(n)?);
        out.push(Msg::get(&mut one, &src)?);
        if !one.0.is_empty() {
            return Err("a message is longer than its contents".to_string());
        }
    }
    Ok(out)
}

/// FNV-1a over an image, so that head and worker check they hold the same program.
pub fn image_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_crosses_the_wire_as_itself() {
        for (code, &k) in ERROR_KINDS.iter().enumerate() {
            assert_eq!(usize::from(error_kind_code(k)), code, "{k:?}");
        }
    }

    #[test]
    fn every_message_is_counted_under_its_own_name() {
        for m in all() {
            let mut b = Vec::new();
            append(&mut b, &m);
            let want = match &m {
                Msg::Request { body, .. } => format!("{body:?}"),
                _ => format!("{m:?}"),
            };
            let name = kind_at(&b).map_or("none", kind_name);
            let rest = want.strip_prefix(name).unwrap_or("?");
            assert!(
                rest.is_empty() || rest.starts_with([' ', '{', '(']),
                "{want} is counted as {name}"
            );
        }
    }

    fn all() -> Vec<Msg> {
        let cfg = LaunchConfig {
            num_teams: [4, 1, 1],
            teams: true,
            thread_limit: [0, 0, 0],
            tripcount: 1000,
            dyn_cgroup_mem: 0,
        };
        vec![
            Msg::Hello {
                host: "n1".into(),
                pid: 4242,
                devices: vec![DeviceDesc {
                    kind: 1,
                    name: "gpu".into(),
                    memory_bytes: 1 << 34,
                    compute_units: 132,
                    accepts_host: false,
                    accepts_sm: (1u128 << 90) | (1 << 80),
                    details: vec![("Compute Capabilities".into(), "sm_90".into())],
                }],
            },
            Msg::Request {
                req: 7,
                body: Request::LoadImage {
                    dev: 1,
                    hash: 3,
                    len: 4,
                },
            },
            Msg::Request {
                req: 8,
                body: Request::Lookup {
                    image: 9,
                    what: 1,
                    name: "x".into(),
                },
            },
            Msg::Request {
                req: 9,
                body: Request::Alloc {
                    dev: 0,
                    size: 64,
                    kind: AllocKind::Shared,
                },
            },
            Msg::Request {
                req: 10,
                body: Request::Sync { dev: 0, stream: 3 },
            },
            Msg::Request {
                req: 11,
                body: Request::Leave,
            },
            Msg::Reply {
                req: 1,
                values: vec![1, 2],
            },
            Msg::Failed {
                req: 1,
                kind: ErrorKind::OutOfMemory,
                message: "no".into(),
            },
            Msg::CopyTo {
                dev: 0,
                stream: 1,
                dst: 0x1000,
                data: vec![1, 2, 3].into(),
            },
            Msg::Launch {
                dev: 0,
                stream: 1,
                kernel: 5,
                args: vec![1, 2],
                cfg,
            },
            Msg::PeerSend {
                dev: 0,
                stream: 1,
                src: 2,
                len: 3,
                dst_rank: 4,
                dst_dev: 5,
                dst: 6,
                tag: 7,
            },
            Msg::PeerData {
                tag: 1,
                dev: 0,
                dst: 2,
                data: vec![9; 5].into(),
            },
            Msg::Heartbeat,
            Msg::Forget { event: 12 },
            Msg::Welcome { first_device: 3 },
        ]
    }

    #[test]
    fn every_message_survives_a_batch() {
        let msgs = all();
        let mut batch = Vec::new();
        for m in &msgs {
            append(&mut batch, m);
        }
        assert_eq!(decode(batch).expect("decodes"), msgs);
    }

    #[test]
    fn a_copy_from_program_memory_encodes_as_its_message() {
        let data: Vec<u8> = (0..100).collect();
        let mut b = Vec::new();
        append_copy_to(&mut b, 1, 2, 3, data.as_ptr() as usize, data.len());
        let want = Msg::CopyTo {
            dev: 1,
            stream: 2,
            dst: 3,
            data: data.into(),
        };
        assert_eq!(b, encode(&want));
    }

    #[test]
    fn truncated_or_unknown_input_is_an_error_not_a_panic() {
        let b = encode(&all()[0]);
        for cut in 0..b.len() {
            assert!(decode(b[..cut].to_vec()).is_err() || cut == 0);
        }
        let mut bad = encode(&Msg::Heartbeat);
        bad[8] = 200;
        assert!(decode(bad).unwrap_err().contains("unknown message"));
    }
}
