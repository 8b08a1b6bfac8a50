//! The generic device layer: what every backend provides, shaped for asynchronous hardware.
//!
//! Operations that move data or run code take a [`Stream`]: an in-order sequence of work on the
//! device. A backend may finish an operation before returning (host devices do) or only enqueue
//! it (CUDA streams); callers must [`Device::synchronize`] (or wait on an [`Event`] recorded
//! after the operation) before they rely on the result or release anything the operation reads.
//! Device addresses are opaque `usize` values: a host device's memory happens to be addressable
//! by the process, a GPU's is not.
//!
//! Backends are found through [`registry`]: nothing above this module names a backend.

pub mod cache;
pub mod cuda;
pub mod host;
pub mod pinned;
pub mod registry;
pub mod remote;

use crate::config::DeviceKind;
use crate::error::{Error, ErrorKind, Result};
use crate::image::{DeviceObject, ImageTarget};
use crate::profile::Dir;
use std::any::Any;
use std::sync::Arc;

/// Static facts about a device, for `spread-info` and scheduling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The backend.
    pub kind: DeviceKind,
    /// Human-readable description.
    pub name: String,
    /// Bytes of memory the device can allocate.
    pub memory_bytes: u64,
    /// Cores (host) or multiprocessors (GPU).
    pub compute_units: u32,
    /// Further facts, as `llvm-omp-device-info` prints them (name, value).
    pub details: Vec<(String, String)>,
}

/// The memory kinds of `llvm_omp_target_alloc_*` (`TargetAllocTy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllocKind {
    /// Memory of the device only.
    Device,
    /// Page-locked host memory the device can read.
    Host,
    /// Memory host and device both access (managed).
    Shared,
}

/// Free and total device memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Bytes the device can still allocate.
    pub free: u64,
    /// Bytes the device has.
    pub total: u64,
}

/// An in-order sequence of operations on one device, plus what must outlive them.
///
/// Streams come from their device ([`Device::create_stream`]) and are pooled by the runtime.
/// Dropping a stream that still has work nobody waited for is a bug: debug builds catch it.
#[derive(Default)]
pub struct Stream {
    /// Backend state (a CUDA stream, say); host devices need none.
    pub backend: Option<Box<dyn Any + Send>>,
    /// Host-side sources of pending copies, kept alive until the stream is synchronized.
    pub staging: Vec<Box<[u8]>>,
    /// Work was enqueued since the last synchronization.
    pub busy: bool,
}

impl Stream {
    /// Keeps `bytes` alive until the stream is synchronized and returns its address, for copies
    /// whose source is a temporary value (a patched device pointer, say).
    pub fn stage(&mut self, bytes: &[u8]) -> usize {
        let b: Box<[u8]> = bytes.into();
        let addr = b.as_ptr() as usize;
        self.staging.push(b);
        addr
    }

    /// The backend's state in this stream as its type `T`: the one downcast each backend makes
    /// on every operation. A stream of another backend (or one made by no backend) is the
    /// runtime's error, reported for `device` (the device's label, as its other errors name it).
    pub fn state<T: Any>(&mut self, device: &dyn std::fmt::Display) -> Result<&mut T> {
        self.backend
            .as_mut()
            .and_then(|b| b.downcast_mut::<T>())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Backend,
                    format!("{device}: a stream of another device was used"),
                )
            })
    }

    /// Like [`stage`](Self::stage), for `len` bytes of the program's memory at `src` (read now).
    pub fn stage_from(&mut self, src: usize, len: usize) -> usize {
        let mut v = Vec::new();
        crate::sys::access::append_from(&mut v, src, len);
        let b = v.into_boxed_slice();
        let addr = b.as_ptr() as usize;
        self.staging.push(b);
        addr
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        debug_assert!(
            !self.busy || std::thread::panicking(),
            "a device stream was dropped with work nobody waited for"
        );
    }
}

/// A backend's record of a point in a stream. (`Any`: the backend that recorded it finds its own
/// type behind `&dyn EventImpl` by upcasting to `&dyn Any`, to make another of its streams wait.)
pub trait EventImpl: Any + Send + Sync {
    /// Whether everything before the point has finished (never blocks).
    fn query(&self) -> Result<bool>;
    /// Blocks the calling thread until everything before the point has finished.
    fn synchronize(&self) -> Result<()>;
}

/// A kernel launch: the kernel, its device-side parameters (without the implicit first
/// `dyn_ptr`, which the backend supplies) and its configuration.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The kernel, as the device's loaded image gave it.
    pub kernel: KernelHandle,
    /// Its parameters.
    pub args: &'a [usize],
    /// Teams, threads, tripcount.
    pub cfg: &'a LaunchConfig,
}

/// A copy from one device's memory straight into another's ([`Device::copy_peer`]).
#[derive(Clone, Copy)]
pub struct PeerCopy<'a> {
    /// The device that receives the bytes.
    pub to: &'a dyn Device,
    /// Address on `to`.
    pub dst: usize,
    /// Address on the copying device.
    pub src: usize,
    /// Bytes to copy.
    pub len: usize,
}

/// What every backend's enqueue operation shares (the generic half of the `Device` trait's copy
/// operations, as libomptarget's plugins split `dataSubmit` from `dataSubmitImpl`): nothing is
/// enqueued for zero bytes, the enqueueing is traced for backends that time work there
/// ([`Device::traced_at_enqueue`]), and the stream is busy once the backend took the operation.
fn enqueue<D: Device + ?Sized>(
    dev: &D,
    s: &mut Stream,
    len: usize,
    dir: Option<Dir>,
    op: impl FnOnce(&mut Stream) -> Result<()>,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let _span = match (dir, dev.traced_at_enqueue()) {
        (Some(dir), Some(id)) => crate::trace::transfer(id, dir, len),
        _ => None,
    };
    op(s)?;
    s.busy = true;
    Ok(())
}

/// `dst_dev`, the destination of a peer copy from `src`, as `src`'s backend type `T`: peer copies
/// run only between devices of one backend ([`Device::can_copy_peer`]; the runtime stages other
/// pairs through host memory), so another type is the runtime's error.
pub fn peer_of<'d, T: 'static>(src: &dyn Device, dst_dev: &'d dyn Device) -> Result<&'d T> {
    (dst_dev as &dyn Any).downcast_ref::<T>().ok_or_else(|| {
        Error::new(
            ErrorKind::Backend,
            format!(
                "{}: peer copy to a device of another kind ({})",
                src.info().name,
                dst_dev.info().name
            ),
        )
    })
}

/// A point in a device's stream that other streams (of any device) can wait for.
///
/// `None` inside means the point was already passed when it was recorded (host devices finish
/// every operation before returning).
#[derive(Clone, Default)]
pub struct Event(Option<Arc<dyn EventImpl>>);

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Event(recorded)"
        } else {
            "Event(done)"
        })
    }
}

impl Event {
    /// An event that is already complete.
    pub fn done() -> Self {
        Event(None)
    }

    /// An event a backend recorded.
    pub fn new(inner: Arc<dyn EventImpl>) -> Self {
        Event(Some(inner))
    }

    /// The backend's record, if the point was not passed when recorded.
    pub fn backend(&self) -> Option<&dyn EventImpl> {
        self.0.as_deref()
    }

    /// Whether everything before the point has finished.
    pub fn query(&self) -> Result<bool> {
        self.0.as_ref().map_or(Ok(true), |e| e.query())
    }

    /// Blocks until everything before the point has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.0.as_ref().map_or(Ok(()), |e| e.synchronize())
    }
}

/// A kernel entry point of a loaded image, in the backend's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelHandle(pub usize);

/// The launch configuration of one kernel call (the normalised `KernelArgs` grid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// `num_teams` clause per dimension (0: not given).
    pub num_teams: [u32; 3],
    /// The kernel has a `teams` construct (clang passes a `num_teams` of -1 for a `target`
    /// without one, normalised to 1 above).
    pub teams: bool,
    /// `thread_limit` clause per dimension (0: not given).
    pub thread_limit: [u32; 3],
    /// The loop trip count clang pushed for the region (0: unknown).
    pub tripcount: u64,
    /// Dynamic group-private memory the region asks for (`ompx_dyn_cgroup_mem`).
    pub dyn_cgroup_mem: u32,
}

/// An image loaded on a device.
pub trait LoadedImage: Send + Sync {
    /// The kernel named `name`, if the image defines it.
    fn kernel(&self, name: &str) -> Option<KernelHandle>;
    /// Device address of the global variable named `name`.
    fn global(&self, name: &str) -> Option<usize>;
    /// Size in bytes of the global variable named `name`, when the backend knows it (a
    /// declare-target variable whose size differs from the host's is refused).
    fn global_size(&self, _name: &str) -> Option<usize> {
        None
    }
}

/// One device of one backend.
///
/// Every method that takes a [`Stream`] may return before the operation has finished; the
/// caller keeps the memory it names alive and unchanged until the stream is synchronized or an
/// event recorded after it has completed.
pub trait Device: Any + Send + Sync {
    /// Static facts.
    fn info(&self) -> &DeviceInfo;

    /// Whether its kernels run on this process's own cores (a host device), so that work on
    /// it competes with the program's threads; not a GPU's or another rank's.
    fn computes_on_own_cores(&self) -> bool {
        false
    }

    /// Whether this device can run an image built for `target`.
    fn accepts(&self, target: ImageTarget) -> bool;

    /// Loads a device object (constructors in it run now).
    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>>;

    /// Allocates `size` bytes of `kind` memory; `size` is never 0.
    fn alloc(&self, size: usize, kind: AllocKind) -> Result<usize>;
    /// Frees memory from [`alloc`](Self::alloc) of the same kind: the address it returned, or
    /// (on host devices) any address [`place`](Self::place) chose in it.
    fn free(&self, ptr: usize, kind: AllocKind) -> Result<()>;
    /// Where `size` bytes of data go in the block of `class` bytes (`size <= class`) that
    /// [`alloc`](Self::alloc)`(class, AllocKind::Device)` returned at `block` (the allocation
    /// cache hands one block out for sizes of one class). The block's start by default; a host
    /// device puts the data against the block's end, where its guard region catches the first
    /// byte past it (`host/guarded.rs`).
    fn place(&self, block: usize, _class: usize, _size: usize) -> usize {
        block
    }
    /// Free and total memory now.
    fn memory_info(&self) -> Result<MemoryInfo>;

    /// A new stream of this device (the runtime pools them).
    fn create_stream(&self) -> Result<Stream>;

    /// Host `src` to device `dst`, enqueued on `s`. Generic: see `enqueue`; the backend's part
    /// is [`to_device_impl`](Self::to_device_impl).
    fn copy_to_device(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        enqueue(self, s, len, Some(Dir::ToDevice), |s| {
            self.to_device_impl(dst, src, len, s)
        })
    }
    /// Device `src` to host `dst`, enqueued on `s` (generic: see `enqueue`).
    fn copy_from_device(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        enqueue(self, s, len, Some(Dir::FromDevice), |s| {
            self.to_host_impl(dst, src, len, s)
        })
    }
    /// Within the device's memory (ranges may overlap), enqueued on `s` (generic: see
    /// `enqueue`).
    fn copy_within(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        enqueue(self, s, len, None, |s| self.within_impl(dst, src, len, s))
    }
    /// Sets `len` device bytes at `dst` to `byte`, enqueued on `s` (generic: see `enqueue`).
    fn fill(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()> {
        enqueue(self, s, len, None, |s| self.fill_impl(dst, byte, len, s))
    }

    /// The backend's part of [`copy_to_device`](Self::copy_to_device): `len` is not 0.
    fn to_device_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// The backend's part of [`copy_from_device`](Self::copy_from_device): `len` is not 0.
    fn to_host_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// The backend's part of [`copy_within`](Self::copy_within): `len` is not 0.
    fn within_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// The backend's part of [`fill`](Self::fill): `len` is not 0.
    fn fill_impl(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()>;

    /// The device number under which the generic layer traces the enqueueing of copies
    /// (`SPREAD_TRACE`, `SPREAD_PROFILE`): for backends whose work cannot be timed where it runs
    /// (a GPU). `None` (the default): the backend traces its work where it runs (host devices)
    /// or not at all.
    fn traced_at_enqueue(&self) -> Option<usize> {
        None
    }

    /// Whether [`copy_peer`](Self::copy_peer) can copy from this device straight to `dst_dev`
    /// (same backend, and the hardware allows it).
    fn can_copy_peer(&self, dst_dev: &dyn Device) -> bool;
    /// Copies `c.len` bytes from this device's `c.src` to `c.dst` on `c.to`, ordered on `s` (a
    /// stream of this device). Only called when [`can_copy_peer`](Self::can_copy_peer) holds;
    /// the runtime stages other pairs through host memory.
    fn copy_peer(&self, c: PeerCopy<'_>, s: &mut Stream) -> Result<()> {
        enqueue(self, s, c.len, Some(Dir::Peer), |s| self.peer_impl(c, s))
    }
    /// The backend's part of [`copy_peer`](Self::copy_peer): `c.len` is not 0; [`peer_of`] gives
    /// `c.to` as the backend's own type.
    fn peer_impl(&self, c: PeerCopy<'_>, s: &mut Stream) -> Result<()>;

    /// Starts a kernel (see [`Launch`]), enqueued on `s`; the stream is busy afterwards.
    fn launch(&self, l: Launch<'_>, s: &mut Stream) -> Result<()> {
        self.launch_impl(l, s)?;
        s.busy = true;
        Ok(())
    }
    /// The backend's part of [`launch`](Self::launch).
    fn launch_impl(&self, l: Launch<'_>, s: &mut Stream) -> Result<()>;

    /// How [`launch`](Self::launch) will run `kernel` with `cfg`, in the words of
    /// libomptarget's launch line (`LIBOMPTARGET_INFO` 0x10): "B blocks and T threads in M mode".
    fn describe_launch(&self, _kernel: KernelHandle, _cfg: &LaunchConfig) -> String {
        // The host plugin's words: a host kernel sizes its own teams with libomp.
        "1 blocks and 1 threads in Generic mode".to_string()
    }

    /// Records the current end of `s`.
    fn record_event(&self, s: &mut Stream) -> Result<Event>;
    /// Makes later work on `s` wait for `ev` (recorded on any device; an event of another
    /// backend is waited for on the calling thread, and an event with no backend record has
    /// nothing to wait for).
    fn wait_event(&self, s: &mut Stream, ev: &Event) -> Result<()> {
        let Some(inner) = ev.backend() else {
            return Ok(());
        };
        if self.wait_event_impl(s, ev, inner)? {
            Ok(())
        } else {
            inner.synchronize()
        }
    }
    /// The backend's part of [`wait_event`](Self::wait_event) for `ev`, whose record is
    /// `inner`: `Ok(true)` when it made `s` wait (or found the event reached), `Ok(false)` when
    /// the event is not one it can wait for on a stream (another backend's, another link's).
    fn wait_event_impl(&self, s: &mut Stream, ev: &Event, inner: &dyn EventImpl) -> Result<bool>;

    /// Waits for everything on `s`, then drops its staging buffers and marks it idle, whether the
    /// wait succeeded or not (the stream is done with either way).
    fn synchronize(&self, s: &mut Stream) -> Result<()> {
        let r = self.synchronize_impl(s);
        s.staging.clear();
        s.busy = false;
        r
    }
    /// The backend's wait for everything on `s`, with its own bookkeeping of the stream
    /// (`s.busy` still says whether work was enqueued since the last synchronization).
    fn synchronize_impl(&self, s: &mut Stream) -> Result<()>;

    /// Starts what finishing `s` will need, for a construct whose work is all enqueued and
    /// which will be synchronized later: a device on another node asks for the synchronization
    /// now, with the construct's commands, so that [`stream_done`](Self::stream_done) can tell
    /// without a round trip. Nothing more is enqueued on `s` until it is synchronized.
    fn submit(&self, _s: &mut Stream) -> Result<()> {
        Ok(())
    }

    /// Whether everything on `s` has finished, when the backend can tell without blocking;
    /// `None` when only [`synchronize`](Self::synchronize) can (a device on another node,
    /// whose copies to the host land when the stream is synchronized). A stream with nothing
    /// enqueued since its last synchronization is done, whatever the backend.
    fn stream_done(&self, s: &mut Stream) -> Result<Option<bool>> {
        if !s.busy {
            return Ok(Some(true));
        }
        self.stream_done_impl(s)
    }
    /// The backend's part of [`stream_done`](Self::stream_done), for a stream with work
    /// enqueued (by default: only a synchronization can tell).
    fn stream_done_impl(&self, _s: &mut Stream) -> Result<Option<bool>> {
        Ok(None)
    }

    /// Page-locks `len` bytes of host memory at `ptr` so copies from and to it run at full speed;
    /// `Ok(false)` when the backend has no use for it or the memory is page-locked already. Use
    /// it through `memory::pinned`, which counts the users of each range.
    /// (By default: no use for it, as on host devices and devices on other nodes.)
    fn pin_host(&self, _ptr: usize, _len: usize) -> Result<bool> {
        Ok(false)
    }
    /// Undoes [`pin_host`](Self::pin_host).
    fn unpin_host(&self, _ptr: usize) -> Result<()> {
        Ok(())
    }

    /// Whether device memory is ordinary process memory, so host devices can copy between each
    /// other directly.
    fn host_addressable(&self) -> bool;

    /// Whether the device's memory is the host's own: mapping uses data where it is, as under
    /// `requires unified_shared_memory`, and nothing is copied (the host share).
    fn uses_host_memory(&self) -> bool {
        false
    }

    /// Whether operations on a submitted stream run after the call that submitted it has
    /// returned (every backend's devices: a GPU, a device on another node, a host device's
    /// executor threads), so that a spread region's chunks are enqueued by the dealing thread.
    /// A test double that runs everything inside the call says no.
    fn asynchronous(&self) -> bool {
        false
    }

    /// Whether the device can use memory shared with the host and other devices (a memory
    /// space of several devices): managed or mapped page-locked memory on a GPU.
    fn shares_memory(&self) -> bool {
        self.host_addressable()
    }

    /// Advises that managed memory from [`alloc`](Self::alloc) (`AllocKind::Shared`) at
    /// `[ptr, ptr+len)` should preferably reside on `location` (a device of this backend, or a
    /// host device for host memory). `Ok(false)` when the backend has no such advice.
    fn prefer_location(&self, _ptr: usize, _len: usize, _location: &dyn Device) -> Result<bool> {
        Ok(false)
    }

    /// Ends the threads the device runs its streams on, if they are idle (at the program's exit;
    /// later work starts new ones).
    fn stop_idle_threads(&self) {}

    /// A construct is about to run kernels on this device and on others at once (the chunks of
    /// a `target spread`): a host device counts as computing from now, so that its first kernel
    /// takes its share of the cores, not all of them (nothing for devices with cores of their
    /// own).
    fn expect_kernels(&self) {}
}
