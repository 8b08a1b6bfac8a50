//! The generic device layer: what every backend provides, shaped for asynchronous hardware.
//!
//! Operations that move data or run code take a [`Stream`]: an in-order sequence of work on the
//! device. A backend may finish an operation before returning (host devices do) or only enqueue
//! it (CUDA streams); callers must [`Device::synchronize`] before they rely on the result or
//! release anything the operation reads. Device addresses are opaque `usize` values: a host
//! device's memory happens to be addressable by the process, a GPU's is not.

pub mod host;

use crate::error::Result;
use crate::image::{DeviceObject, ImageTarget};
use std::any::Any;

/// What kind of hardware a device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    /// Host CPU cores with memory of their own, running the x86_64 image.
    Host,
}

impl DeviceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Host => "host",
        }
    }
}

/// Static facts about a device, for `spread-info` and scheduling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub kind: DeviceKind,
    /// Human-readable description.
    pub name: String,
    /// Bytes of memory the device can allocate.
    pub memory_bytes: u64,
    /// Cores (host) or multiprocessors (GPU).
    pub compute_units: u32,
}

/// The memory kinds of `llvm_omp_target_alloc_*` (`TargetAllocTy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// Memory of the device only.
    Device,
    /// Page-locked host memory the device can read.
    Host,
    /// Memory host and device both access (managed).
    Shared,
}

/// An in-order sequence of operations on one device, plus what must outlive them.
#[derive(Default)]
pub struct Stream {
    /// Backend state (a CUDA stream, say); host devices need none.
    pub backend: Option<Box<dyn Any + Send>>,
    /// Host-side sources of pending copies, kept alive until the stream is synchronized.
    pub staging: Vec<Box<[u8]>>,
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
}

/// A kernel entry point of a loaded image, in the backend's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelHandle(pub usize);

/// The launch configuration of one kernel call (the normalised `KernelArgs` grid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub num_teams: [u32; 3],
    pub thread_limit: [u32; 3],
    pub tripcount: u64,
    pub dyn_cgroup_mem: u32,
}

/// An image loaded on a device.
pub trait LoadedImage: Send + Sync {
    /// The kernel named `name`, if the image defines it.
    fn kernel(&self, name: &str) -> Option<KernelHandle>;
    /// Device address of the global variable named `name`.
    fn global(&self, name: &str) -> Option<usize>;
}

/// One device of one backend.
pub trait Device: Send + Sync {
    fn info(&self) -> &DeviceInfo;

    /// Whether this device can run an image built for `target`.
    fn accepts(&self, target: ImageTarget) -> bool;

    /// Loads a device object (constructors in it run now).
    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>>;

    /// Allocates `size` bytes of `kind` memory; `size` is never 0.
    fn alloc(&self, size: usize, kind: AllocKind) -> Result<usize>;
    fn free(&self, ptr: usize, kind: AllocKind) -> Result<()>;

    /// Host `src` to device `dst`.
    fn copy_to_device(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// Device `src` to host `dst`.
    fn copy_from_device(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// Within the device's memory (ranges may overlap).
    fn copy_within(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()>;
    /// Sets `len` device bytes at `dst` to `byte`.
    fn fill(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()>;

    /// Starts `kernel` with `args` (the device-side parameters, without the implicit first
    /// `dyn_ptr`, which the backend supplies).
    fn launch(
        &self,
        kernel: KernelHandle,
        args: &[usize],
        cfg: &LaunchConfig,
        s: &mut Stream,
    ) -> Result<()>;

    /// Waits for everything on `s`, then drops its staging buffers.
    fn synchronize(&self, s: &mut Stream) -> Result<()>;

    /// Whether device memory is ordinary process memory, so host devices can copy between each
    /// other directly.
    fn host_addressable(&self) -> bool;
}
