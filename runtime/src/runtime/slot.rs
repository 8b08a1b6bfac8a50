//! A device slot: one device of the runtime with its state (mapping table, loaded images, queues,
//! pooled streams, the allocation cache for mapped data, `omp_target_alloc` bookkeeping) and its
//! own operations (streams, copies to other devices, allocations, loading the program's images:
//! which registered images it loads, their declare-target globals entering the mapping table,
//! kernels found by host region id). Running constructs on it is in [`super::launch`].

use super::program::{EntryInfo, Program, RegisteredImage};
use crate::abi::entry_flags;
use crate::config::Config;
use crate::device::cache::{AllocCache, Take};
use crate::device::{AllocKind, Device, KernelHandle, LoadedImage, PeerCopy, Stream};
use crate::error::{Error, ErrorKind, Result};
use crate::image;
use crate::info::{self, bits};
use crate::queue::Queue;
use crate::runtime::mapping::table::{Entry, MappingTable};
use crate::runtime::mapping::MapTarget;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What a device has loaded.
#[derive(Default)]
pub(super) struct DeviceImages {
    /// Indexed like the program's images; `None` until loaded (or when incompatible).
    pub(super) loaded: Vec<Option<Box<dyn LoadedImage>>>,
    /// Kernel handles by host region id.
    pub(super) kernels: rustc_hash::FxHashMap<usize, (KernelHandle, Arc<str>)>,
    /// Images of unregistered programs and libraries. They stay loaded for the rest of the
    /// process: at exit, other threads may still be running their kernels.
    pub(super) retired: Vec<Box<dyn LoadedImage>>,
}

/// A small number per host thread, to give each thread its own queue on every device.
pub(super) fn thread_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static INDEX: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    INDEX.with(|i| *i)
}

/// A device and its state.
pub struct DeviceSlot {
    /// The device number the program uses (`device(id)` clauses, `omp_target_*` calls).
    pub id: usize,
    /// The backend that runs the device.
    pub dev: Box<dyn Device>,
    /// The device's host-to-device mapping table.
    pub table: Mutex<MappingTable>,
    pub(super) images: Mutex<DeviceImages>,
    /// Number of registered images this device has considered (fast "up to date" check).
    pub(super) seen_images: AtomicUsize,
    /// Whether an image was ever loaded on this device (it stays loaded or retired).
    pub(super) loaded_any: std::sync::atomic::AtomicBool,
    /// Whether the note that this device runs no image of the program was printed.
    pub(super) warned_no_image: std::sync::atomic::AtomicBool,
    /// Asynchronous work (nowait), each queue in FIFO order; a host thread always uses the
    /// same one, so one thread's operations stay ordered while several threads' overlap.
    pub(super) queues: Vec<Queue>,
    /// Streams not in use by a construct.
    pub(super) streams: Mutex<Vec<Stream>>,
    /// `nowait` constructs in flight on this device's streams (at most `SPREAD_STREAMS`; see
    /// [`DeviceSlot::reserve_stream`]).
    pub(super) streamed: AtomicUsize,
    pub(super) stream_limit: usize,
    /// `LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS`.
    pub(super) lock_mapped: bool,
    /// `SPREAD_INFO=devices`: say which images the device loads and skips.
    info_devices: bool,
    /// Freed mapping memory kept for reuse.
    pub(super) cache: AllocCache,
    /// `omp_target_alloc` & co. allocations (kind, size) by address, so frees of foreign
    /// pointers and copies past the end of an allocation are caught.
    pub allocations: Mutex<std::collections::BTreeMap<usize, (AllocKind, usize)>>,
}

/// A stream of a device, borrowed from its pool for one construct and returned when dropped.
pub struct PooledStream<'a> {
    pub(super) slot: &'a DeviceSlot,
    pub(super) stream: Option<Stream>,
}

impl std::ops::Deref for PooledStream<'_> {
    type Target = Stream;
    fn deref(&self) -> &Stream {
        self.stream
            .as_ref()
            .unwrap_or_else(|| unreachable!("taken only in drop"))
    }
}

impl std::ops::DerefMut for PooledStream<'_> {
    fn deref_mut(&mut self) -> &mut Stream {
        self.stream
            .as_mut()
            .unwrap_or_else(|| unreachable!("taken only in drop"))
    }
}

impl Drop for PooledStream<'_> {
    fn drop(&mut self) {
        if let Some(mut s) = self.stream.take() {
            if s.busy {
                // A construct that bailed out early: its work must finish before the stream
                // serves another construct (debug builds flag this as a bug).
                debug_assert!(
                    std::thread::panicking(),
                    "a construct returned its stream with work nobody waited for"
                );
                let _ = self.slot.dev.synchronize(&mut s);
            }
            self.slot.streams.lock().push(s);
        }
    }
}

impl DeviceSlot {
    /// A slot for device `id`, with the queues and the allocation cache `config` asks for.
    pub fn new(id: usize, dev: Box<dyn Device>, config: &Config) -> Self {
        let memory = usize::try_from(dev.info().memory_bytes).unwrap_or(usize::MAX);
        let streams = config.streams_per_device.max(1);
        DeviceSlot {
            id,
            dev,
            table: Mutex::new(MappingTable::new()),
            images: Mutex::new(DeviceImages::default()),
            seen_images: AtomicUsize::new(0),
            loaded_any: std::sync::atomic::AtomicBool::new(false),
            warned_no_image: std::sync::atomic::AtomicBool::new(false),
            queues: (0..streams)
                .map(|q| Queue::new(format!("spread-dev{id}.{q}")))
                .collect(),
            streams: Mutex::new(Vec::new()),
            streamed: AtomicUsize::new(0),
            stream_limit: streams,
            lock_mapped: config.gpu.lock_mapped,
            info_devices: config.info_devices,
            cache: AllocCache::new(config.alloc_cache.unwrap_or(memory / 8)),
            allocations: Mutex::new(std::collections::BTreeMap::new()),
        }
    }

    /// The calling thread's queue on this device.
    pub fn queue(&self) -> &Queue {
        &self.queues[thread_index() % self.queues.len()]
    }

    /// Waits for every job queued on this device so far, on all its queues (part of
    /// the runtime's drain, which also waits for constructs enqueued on its streams).
    pub(super) fn drain_queues(&self) {
        for q in &self.queues {
            q.drain();
        }
    }

    /// A place for one more `nowait` construct on this device's streams, if fewer than
    /// `SPREAD_STREAMS` are in flight. Each holds a stream until it is polled complete, so
    /// without a bound a thread issuing many `nowait` regions before a `taskwait` would make as
    /// many streams (on a device on another node, as many executor threads there); past the
    /// bound constructs wait their turn on the device's queues instead.
    pub fn reserve_stream(&self) -> Option<StreamTicket<'_>> {
        self.streamed
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.stream_limit).then_some(n + 1)
            })
            .ok()
            .map(|_| StreamTicket(self))
    }

    /// A stream for one construct, from the pool (or new).
    pub fn stream(&self) -> Result<PooledStream<'_>> {
        let pooled = self.streams.lock().pop();
        let stream = match pooled {
            Some(s) => s,
            None => self.dev.create_stream()?,
        };
        Ok(PooledStream {
            slot: self,
            stream: Some(stream),
        })
    }

    /// Device memory for mapped data: in a cached block when one of the size class is free;
    /// when the device is out of memory, the cache is emptied and the allocation tried once
    /// more. Where in the block the data goes is the device's choice ([`Device::place`]).
    pub fn alloc_data(&self, size: usize) -> Result<usize> {
        let place = |block, class| self.dev.place(block, class, size);
        let class = match self.cache.take(size, place) {
            Take::Cached(p) => return Ok(p),
            Take::Allocate(class) => class,
        };
        let block = self.alloc_block(class)?;
        let p = place(block, class);
        self.cache.record(p, block, class);
        Ok(p)
    }

    /// A new block of `class` bytes for the cache (emptying the cache first when the device is
    /// out of memory).
    fn alloc_block(&self, class: usize) -> Result<usize> {
        match self.dev.alloc(class, AllocKind::Device) {
            Err(e) if e.kind == ErrorKind::OutOfMemory => {
                let blocks = self.cache.drain();
                if blocks.is_empty() {
                    return Err(e);
                }
                for b in blocks {
                    let _ = self.dev.free(b, AllocKind::Device);
                }
                self.dev.alloc(class, AllocKind::Device)
            }
            r => r,
        }
    }

    /// Gives back memory from [`alloc_data`](Self::alloc_data). Its last use must have finished.
    pub fn free_data(&self, ptr: usize) -> Result<()> {
        match self.cache.put(ptr) {
            Some(evicted) => {
                for b in evicted {
                    self.dev.free(b, AllocKind::Device)?;
                }
                Ok(())
            }
            None => self.dev.free(ptr, AllocKind::Device),
        }
    }

    /// Page-locks the host side of newly mapped data when `LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS`
    /// asks for it and the device has a use for it; whether it did. A failure only leaves the
    /// copies pageable (libomptarget ignores it), so the mapping goes on; the first one is
    /// reported.
    pub fn pin_mapped(&self, host: usize, len: usize) -> bool {
        if !self.lock_mapped || self.dev.host_addressable() {
            return false;
        }
        match crate::device::pinned::pin(&*self.dev, host, len) {
            Ok(p) => p,
            Err(e) => {
                static REPORTED: std::sync::atomic::AtomicBool =
                    std::sync::atomic::AtomicBool::new(false);
                if !REPORTED.swap(true, Ordering::Relaxed) {
                    eprintln!(
                        "spread: warning: LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS: device {} cannot page-lock mapped data at {} ({len} bytes), its copies stay pageable (reported once): {e}",
                        self.id,
                        info::ptr(host)
                    );
                }
                false
            }
        }
    }

    /// Gives back what a table entry held: its device memory (when the table owns it) and the
    /// page-locking of its host range. The entry's last use must have finished.
    pub fn release_entry(&self, e: &Entry) -> Result<()> {
        if e.pinned {
            let _ = crate::device::pinned::unpin(&*self.dev, e.host_begin);
        }
        if e.owns_memory {
            crate::ompt::delete(self.id, e.target_alloc, || self.free_data(e.target_alloc))?;
        }
        Ok(())
    }

    /// Copies `len` bytes from `src` on this device to `dst` on `dst_slot` (which may be this
    /// device): directly where the backend can, else staged through host memory.
    pub fn copy_to_peer(
        &self,
        dst_slot: &DeviceSlot,
        dst: usize,
        src: usize,
        len: usize,
    ) -> Result<()> {
        // One operation for the program's tool, with both devices, however it is done; a
        // transfer "from device", as LLVM's libomptarget labels its device-to-device copies.
        let t = crate::ompt::Transfer {
            src,
            src_device: Some(self.id),
            dst,
            dst_device: Some(dst_slot.id),
            bytes: len,
        };
        crate::ompt::transfer(crate::ompt::Op::FromDevice, t, || {
            self.copy_to_peer_unreported(dst_slot, dst, src, len)
        })
    }

    fn copy_to_peer_unreported(
        &self,
        dst_slot: &DeviceSlot,
        dst: usize,
        src: usize,
        len: usize,
    ) -> Result<()> {
        let mut s = self.stream()?;
        if dst_slot.id == self.id {
            self.dev.copy_within(dst, src, len, &mut s)?;
            return self.dev.synchronize(&mut s);
        }
        if self.dev.can_copy_peer(&*dst_slot.dev) {
            let to = &*dst_slot.dev;
            self.dev.copy_peer(PeerCopy { to, dst, src, len }, &mut s)?;
            return self.dev.synchronize(&mut s);
        }
        let mut staging = vec![0u8; len];
        let tmp = staging.as_mut_ptr() as usize;
        self.dev.copy_from_device(tmp, src, len, &mut s)?;
        self.dev.synchronize(&mut s)?;
        let mut d = dst_slot.stream()?;
        dst_slot.dev.copy_to_device(dst, tmp, len, &mut d)?;
        dst_slot.dev.synchronize(&mut d)?;
        drop(staging);
        Ok(())
    }

    /// Allocates device memory for the API (`omp_target_alloc` & co.).
    pub fn api_alloc(&self, size: usize, kind: AllocKind) -> Result<usize> {
        let p = crate::ompt::alloc(self.id, 0, size, || self.dev.alloc(size, kind))?;
        self.allocations.lock().insert(p, (kind, size));
        Ok(p)
    }

    /// Frees memory from [`api_alloc`](Self::api_alloc).
    pub fn api_free(&self, ptr: usize) -> Result<()> {
        let (kind, _) = self.allocations.lock().remove(&ptr).ok_or_else(|| {
            Error::new(
                ErrorKind::Mapping,
                format!(
                    "{} was not allocated on device {} by omp_target_alloc",
                    info::ptr(ptr),
                    self.id
                ),
            )
        })?;
        crate::ompt::delete(self.id, ptr, || self.dev.free(ptr, kind))
    }

    /// Checks that `[addr, addr+len)` does not run past the end of the
    /// [`api_alloc`](Self::api_alloc) allocation `addr` lies in; addresses outside every such
    /// allocation are not checked (the runtime cannot know their extent).
    pub fn api_check_range(&self, addr: usize, len: usize) -> Result<()> {
        let allocations = self.allocations.lock();
        let Some((&begin, &(_, size))) = allocations.range(..=addr).next_back() else {
            return Ok(());
        };
        let end = begin.saturating_add(size);
        if addr >= end {
            return Ok(()); // not inside this allocation (or an empty copy at its end)
        }
        if !matches!(addr.checked_add(len), Some(e) if e <= end) {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "{len} bytes at {} run past the end of the {size}-byte allocation at {} on device {}",
                    info::ptr(addr),
                    info::ptr(begin),
                    self.id
                ),
            ));
        }
        Ok(())
    }

    /// Prints the mapping table (`ompx_dump_mapping_tables` to stdout, `LIBOMPTARGET_INFO` 0x4
    /// to stderr); `at` is the construct's location.
    pub fn dump_table(&self, at: &str, to_stdout: bool) {
        let table = self.table.lock();
        let mut lines = Vec::new();
        if table.is_empty() {
            lines.push("OpenMP Host-Device pointer mappings table empty".to_string());
        } else {
            lines.push(format!(
                "OpenMP Host-Device pointer mappings after block at {at}:"
            ));
            lines.push(format!(
                "{:<18} {:<18} Size (B) DynRefCount HoldRefCount Declaration",
                "Host Ptr", "Target Ptr"
            ));
            for e in table.iter() {
                lines.push(format!(
                    "{} {} {:<8} {:<11} {:<12} {}",
                    info::ptr(e.host_begin),
                    info::ptr(e.target_begin),
                    e.size(),
                    Entry::fmt_refs(e.dyn_refs),
                    Entry::fmt_refs(e.hold_refs),
                    info::declaration(e.name)
                ));
            }
        }
        for l in lines {
            if to_stdout {
                println!("omptarget device {} info: {l}", self.id);
            } else {
                info::print(self.id, format_args!("{l}"));
            }
        }
    }
}

/// The mapping's view of a device slot: what `mapping` decides, the slot carries out with its
/// pooled streams, allocation cache and page-locking.
impl MapTarget for DeviceSlot {
    type Stream<'s> = PooledStream<'s>;

    fn id(&self) -> usize {
        self.id
    }

    fn device(&self) -> &dyn Device {
        &*self.dev
    }

    fn alloc_data(&self, size: usize) -> Result<usize> {
        DeviceSlot::alloc_data(self, size)
    }

    fn pin_mapped(&self, host: usize, len: usize) -> bool {
        DeviceSlot::pin_mapped(self, host, len)
    }

    fn release_entry(&self, e: &Entry) -> Result<()> {
        DeviceSlot::release_entry(self, e)
    }

    fn accessible(&self, host: usize, len: usize) -> bool {
        super::hooks::accessible(self.id, host, len)
    }
}

/// A `nowait` construct's place on its device's streams ([`DeviceSlot::reserve_stream`]),
/// given back when dropped.
pub struct StreamTicket<'a>(&'a DeviceSlot);

impl StreamTicket<'_> {
    /// The device.
    pub fn device(&self) -> usize {
        self.0.id
    }
}

impl Drop for StreamTicket<'_> {
    fn drop(&mut self) {
        self.0.streamed.fetch_sub(1, Ordering::AcqRel);
    }
}

// Loading the program's images.
impl DeviceSlot {
    /// Whether it has loaded an image (and so can run some of the program's constructs).
    pub(super) fn loaded_any(&self) -> bool {
        self.loaded_any.load(Ordering::Acquire)
    }

    /// Whether the program registered images but none this device can run (say, nvptx only on
    /// a host device).
    pub(super) fn runs_no_image(&self, program: &Program) -> bool {
        // Every construct asks: once an image is loaded the answer stays no, without locks.
        if self.loaded_any() {
            return false;
        }
        let regs = program.images.read();
        let imgs = self.images.lock();
        regs.iter().any(|r| r.active)
            && imgs.retired.is_empty()
            && imgs.loaded.iter().all(Option::is_none)
    }

    /// Loads every registered image this device can run that it has not loaded yet, and maps
    /// their declare-target globals (reference count INF); `usm`: the program requires unified
    /// shared memory (see [`image_globals`](Self::image_globals)).
    pub(super) fn ensure_images(&self, program: &Program, usm: bool) -> Result<()> {
        let regs = program.images.read();
        if self.seen_images.load(Ordering::Acquire) == regs.len() {
            return Ok(());
        }
        let mut imgs = self.images.lock();
        for idx in imgs.loaded.len()..regs.len() {
            imgs.loaded.push(None);
            let img = &regs[idx];
            let Ok(target) = img.target else { continue };
            if !img.active {
                continue;
            }
            if !self.dev.accepts(target) {
                if self.info_devices {
                    eprintln!(
                        "spread: info: device {} ({}) skips image {idx}: {target} (not runnable here)",
                        self.id,
                        self.dev.info().kind.as_str()
                    );
                }
                continue;
            }
            if self.info_devices {
                eprintln!(
                    "spread: info: device {} ({}) loads image {idx}: {target}",
                    self.id,
                    self.dev.info().kind.as_str()
                );
            }
            let obj = image::DeviceObject {
                target,
                bytes: &img.bytes,
                indirect: &img.indirect,
            };
            // A failed load takes back everything it did: the image counts as not seen (the next
            // construct tries again and reports again) and no entry points into it.
            let loaded = match self.dev.load_image(&obj) {
                Ok(l) => l,
                Err(e) => {
                    imgs.loaded.pop();
                    return Err(e);
                }
            };
            let globals = match self.image_globals(img, &*loaded, usm) {
                Ok(g) => g,
                Err(e) => {
                    imgs.loaded.pop();
                    return Err(e);
                }
            };
            let mut table = self.table.lock();
            for (e, tgt) in globals {
                crate::info!(
                    bits::MAPPING_CHANGED,
                    self.id,
                    "Creating new map entry with HstPtrBase={}, HstPtrBegin={}, TgtAllocBegin={}, TgtPtrBegin={}, Size={}, DynRefCount=INF, HoldRefCount=0, Name={}",
                    info::ptr(e.addr),
                    info::ptr(e.addr),
                    info::ptr(tgt),
                    info::ptr(tgt),
                    e.size,
                    e.name
                );
                table.insert(Entry::permanent(e.addr, e.size, tgt));
            }
            crate::ompt::device_load(self.id, img.bytes.as_ptr() as usize, img.bytes.len());
            imgs.loaded[idx] = Some(loaded);
            self.loaded_any.store(true, Ordering::Release);
        }
        self.seen_images.store(regs.len(), Ordering::Release);
        Ok(())
    }

    /// The device addresses of the declare-target globals of `img` in `loaded`; fails, having
    /// changed nothing, when one is missing. Under `requires unified_shared_memory` (`usm`) each
    /// global's device copy is given the host's value, as libomptarget does: clang then makes
    /// every declare-target variable a `link` one, whose device reference pointer must hold the
    /// host variable's address (the host reference pointer's value); before, it stayed null and
    /// the kernel crashed where stock runs.
    fn image_globals<'i>(
        &self,
        img: &'i RegisteredImage,
        loaded: &dyn LoadedImage,
        usm: bool,
    ) -> Result<Vec<(&'i EntryInfo, usize)>> {
        let mut out = Vec::new();
        for e in img.entries.iter() {
            if e.size == 0 || e.flags & entry_flags::REGISTER_REQUIRES != 0 {
                continue;
            }
            let Some(mut tgt) = loaded.global(&e.name) else {
                return Err(Error::new(
                    ErrorKind::Image,
                    format!(
                        "declare target variable '{}' is missing from the image on device {}",
                        e.name, self.id
                    ),
                ));
            };
            if e.flags & entry_flags::INDIRECT != 0 {
                // An indirect function: the device global holds the device function's
                // address, which host function pointers translate to.
                let mut buf = [0u8; 8];
                let mut st = self.stream()?;
                self.dev
                    .copy_from_device(buf.as_mut_ptr() as usize, tgt, 8, &mut st)?;
                self.dev.synchronize(&mut st)?;
                tgt = usize::from_ne_bytes(buf);
            }
            if let Some(size) = loaded.global_size(&e.name) {
                if size != e.size && e.flags & entry_flags::INDIRECT == 0 {
                    return Err(Error::new(
                        ErrorKind::Image,
                        format!(
                            "declare target variable '{}' has {} bytes on the host but {size} in the image on device {}",
                            e.name, e.size, self.id
                        ),
                    ));
                }
            }
            if usm && e.flags & entry_flags::INDIRECT == 0 {
                let mut st = self.stream()?;
                self.dev.copy_to_device(tgt, e.addr, e.size, &mut st)?;
                self.dev.synchronize(&mut st)?;
            }
            out.push((e, tgt));
        }
        Ok(out)
    }

    /// The kernel for host region id `region` and its name; cached per device, so a launch
    /// after the first takes one lock and allocates nothing.
    pub(super) fn kernel(
        &self,
        program: &Program,
        region: usize,
    ) -> Result<(KernelHandle, Arc<str>)> {
        let mut imgs = self.images.lock();
        if let Some((k, name)) = imgs.kernels.get(&region) {
            return Ok((*k, name.clone()));
        }
        let name = program
            .kernel_names
            .read()
            .get(&region)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::MissingKernel,
                    format!(
                        "no offload entry is registered for target region {}",
                        info::ptr(region)
                    ),
                )
            })?;
        let found = imgs.loaded.iter().flatten().find_map(|i| i.kernel(&name));
        let Some(k) = found else {
            let mut message = format!(
                "kernel '{name}' is not in any image loaded on device {}",
                self.id
            );
            if imgs.loaded.iter().all(Option::is_none) {
                // Say what the program carries and what the device is, so the user sees the
                // mismatch (an nvptx-only build on a machine without a GPU, say).
                let carried: Vec<String> = program
                    .images
                    .read()
                    .iter()
                    .filter_map(|r| r.target.as_ref().ok().map(|t| t.to_string()))
                    .collect();
                message.push_str(&format!(
                    " ({}: it runs none of the program's images: {})",
                    self.dev.info().name,
                    if carried.is_empty() {
                        "none usable".to_string()
                    } else {
                        carried.join(", ")
                    }
                ));
            }
            return Err(Error::new(ErrorKind::MissingKernel, message));
        };
        imgs.kernels.insert(region, (k, name.clone()));
        Ok((k, name))
    }
}
