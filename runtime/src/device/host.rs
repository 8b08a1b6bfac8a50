//! Host devices: the machine's own cores, each device with memory of its own.
//!
//! A host device runs the x86_64 image clang embeds, loaded once per device so that
//! declare-target globals are per device, and keeps its data in separate allocations, so that a
//! program sees host data on a device only through mapping, as on a discrete GPU. Everything
//! completes before the call returns; the trait's streams still order it.

use super::{
    AllocKind, Device, DeviceInfo, DeviceKind, Event, KernelHandle, LaunchConfig, LoadedImage,
    MemoryInfo, Stream,
};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi::{access, call, dl, kmp, mem};
use crate::image::{DeviceObject, ImageTarget};
use crate::trace;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `dyn_ptr` as libomptarget's host plugin passes it: host kernels never read it.
const HOST_DYN_PTR: usize = usize::MAX;

/// Host kernels running right now, over all host devices: their threads share the cores.
static RUNNING_KERNELS: AtomicUsize = AtomicUsize::new(0);

/// One host device.
pub struct HostDevice {
    id: usize,
    info: DeviceInfo,
    /// Cores the machine has (or `SPREAD_HOST_THREADS`), shared among running kernels.
    cores: usize,
    /// Thread count each kernel gets when it runs alone: `SPREAD_HOST_THREADS` if set.
    threads_override: Option<usize>,
}

impl HostDevice {
    pub fn new(id: usize, threads_override: Option<usize>) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let memory_bytes = physical_memory();
        let units = threads_override.unwrap_or(cores);
        HostDevice {
            id,
            info: DeviceInfo {
                kind: DeviceKind::Host,
                name: format!("host device {id} (x86_64, {units} threads)"),
                memory_bytes,
                compute_units: u32::try_from(units).unwrap_or(u32::MAX),
                details: vec![
                    ("Device Type".into(), "host (x86_64 image)".into()),
                    ("Threads per kernel".into(), units.to_string()),
                ],
            },
            cores,
            threads_override,
        }
    }

    /// How many threads a kernel that starts now gets: all cores when it runs alone, an equal
    /// share when several host devices compute at once (at least one).
    fn thread_share(&self, running: usize) -> Option<usize> {
        let total = self.threads_override.unwrap_or(self.cores);
        if running <= 1 && self.threads_override.is_none() {
            return None; // alone: leave the program's own setting untouched
        }
        Some((total / running.max(1)).max(1))
    }
}

fn physical_memory() -> u64 {
    meminfo("MemTotal:")
}

/// A `/proc/meminfo` field in bytes (0 when unreadable).
fn meminfo(field: &str) -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

struct HostImage {
    object: dl::LoadedObject,
}

impl LoadedImage for HostImage {
    fn kernel(&self, name: &str) -> Option<KernelHandle> {
        self.object.symbol(name).map(KernelHandle)
    }
    fn global(&self, name: &str) -> Option<usize> {
        self.object.symbol(name)
    }
}

impl Device for HostDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn accepts(&self, target: ImageTarget) -> bool {
        target == ImageTarget::HostX86_64
    }

    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>> {
        let label = format!("spread-host-device-{}", self.id);
        let object = dl::LoadedObject::load(object.bytes, &label).map_err(|e| {
            Error::new(
                ErrorKind::Image,
                format!(
                    "cannot load the x86_64 image on host device {}: {e}",
                    self.id
                ),
            )
        })?;
        Ok(Box::new(HostImage { object }))
    }

    fn alloc(&self, size: usize, _kind: AllocKind) -> Result<usize> {
        mem::alloc(size).ok_or_else(|| {
            Error::new(
                ErrorKind::OutOfMemory,
                format!("host device {} cannot allocate {size} bytes", self.id),
            )
        })
    }

    fn free(&self, ptr: usize, _kind: AllocKind) -> Result<()> {
        access::free_owned(ptr);
        Ok(())
    }

    fn memory_info(&self) -> Result<MemoryInfo> {
        Ok(MemoryInfo {
            free: meminfo("MemAvailable:"),
            total: self.info.memory_bytes,
        })
    }

    fn create_stream(&self) -> Result<Stream> {
        Ok(Stream::default())
    }

    fn can_copy_peer(&self, dst_dev: &dyn Device) -> bool {
        dst_dev.host_addressable()
    }

    fn copy_peer(
        &self,
        _dst_dev: &dyn Device,
        dst: usize,
        src: usize,
        len: usize,
        _s: &mut Stream,
    ) -> Result<()> {
        let _span = trace::span(self.id, "transfer", || format!("peer {len} B"));
        access::transfer(dst, src, len);
        Ok(())
    }

    fn record_event(&self, _s: &mut Stream) -> Result<Event> {
        Ok(Event::done()) // every operation has finished when it returns
    }

    fn wait_event(&self, _s: &mut Stream, ev: &Event) -> Result<()> {
        // Work on a host device starts when it is called: waiting means waiting now.
        ev.synchronize()
    }

    fn pin_host(&self, _ptr: usize, _len: usize) -> Result<bool> {
        Ok(false)
    }

    fn unpin_host(&self, _ptr: usize) -> Result<()> {
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn copy_to_device(&self, dst: usize, src: usize, len: usize, _s: &mut Stream) -> Result<()> {
        let _span = trace::span(self.id, "transfer", || format!("H2D {len} B"));
        access::transfer(dst, src, len);
        Ok(())
    }

    fn copy_from_device(&self, dst: usize, src: usize, len: usize, _s: &mut Stream) -> Result<()> {
        let _span = trace::span(self.id, "transfer", || format!("D2H {len} B"));
        access::transfer(dst, src, len);
        Ok(())
    }

    fn copy_within(&self, dst: usize, src: usize, len: usize, _s: &mut Stream) -> Result<()> {
        access::transfer(dst, src, len);
        Ok(())
    }

    fn fill(&self, dst: usize, byte: u8, len: usize, _s: &mut Stream) -> Result<()> {
        access::fill(dst, byte, len);
        Ok(())
    }

    fn launch(
        &self,
        kernel: KernelHandle,
        args: &[usize],
        _cfg: &LaunchConfig,
        _s: &mut Stream,
    ) -> Result<()> {
        // Teams and threads are the kernel's own business on x86_64: its code calls libomp's
        // fork entry points, which size teams from the calling thread's ICVs.
        let mut params = Vec::with_capacity(args.len() + 1);
        params.push(HOST_DYN_PTR);
        params.extend_from_slice(args);
        let _span = trace::span(self.id, "kernel", || "kernel".to_string());
        crate::exit::park_if_exiting(); // as below, before libomp is asked anything
        let running = RUNNING_KERNELS.fetch_add(1, Ordering::AcqRel) + 1;
        let share = self.thread_share(running);
        let saved = share.map(|n| {
            let old = kmp::max_threads();
            kmp::set_num_threads(i32::try_from(n).unwrap_or(i32::MAX));
            old
        });
        let ok = call::call_kernel(kernel.0, &params);
        // If the program began exiting while the kernel ran, libomp may be gone: touch it no
        // more (this thread waits for the end).
        crate::exit::park_if_exiting();
        if let Some(old) = saved {
            kmp::set_num_threads(old);
        }
        RUNNING_KERNELS.fetch_sub(1, Ordering::AcqRel);
        if ok {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::Backend,
                format!(
                    "kernel takes {} arguments; host devices support at most {}",
                    args.len(),
                    call::MAX_KERNEL_PARAMS - 1
                ),
            ))
        }
    }

    fn synchronize(&self, s: &mut Stream) -> Result<()> {
        s.staging.clear();
        Ok(())
    }

    fn host_addressable(&self) -> bool {
        true
    }
}
