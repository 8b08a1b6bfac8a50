//! NVIDIA GPUs through the CUDA driver API, loaded at run time (`sys::cuda`).
//!
//! What LLVM 19's CUDA plugin does for a program, done here: each GPU's primary context,
//! non-blocking streams, cubins loaded with `cuModuleLoadDataEx`, the device environment the
//! nvptx device runtime reads, device constructors and destructors, launches with the plugin's
//! grid rules ([`grid`]) and its `dyn_ptr` / reduction-buffer protocol, asynchronous copies,
//! events for dependences between streams (and devices), peer copies, managed and page-locked
//! memory, and the heap and stack limits of `LIBOMPTARGET_HEAP_SIZE` / `_STACK_SIZE`.
//!
//! A machine without `libcuda.so`, or whose driver finds no GPU, has no CUDA devices; the
//! reason is returned to the registry (printed under `SPREAD_INFO=devices`).

pub mod environment;
pub mod grid;

use super::{
    AllocKind, Device, DeviceInfo, DeviceKind, Event, EventImpl, KernelHandle, Launch,
    LaunchConfig, LoadedImage, MemoryInfo, PeerCopy, Stream,
};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::image::{DeviceObject, ImageTarget};
use crate::sys::cuda::{self as driver, CuError, DeviceAttr, FuncAttr, Limit};
use crate::trace;
use environment::{DeviceEnvironment, KernelEnvironment};
use grid::GridLimits;
use parking_lot::{Mutex, RwLock};
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

/// `dyn_ptr` of a kernel that needs no launch environment (what the plugin passes).
const NO_LAUNCH_ENVIRONMENT: u64 = u64::MAX;

/// The GPUs of this machine, numbered from `first_id`, at most `max` of them; `Err` says why
/// there are none.
pub fn discover(
    first_id: usize,
    max: Option<usize>,
    config: &Config,
) -> std::result::Result<Vec<Box<dyn Device>>, String> {
    if !driver::library_present() {
        return Err("libcuda.so (the NVIDIA driver) is not installed".into());
    }
    let missing = driver::missing_symbols();
    if !missing.is_empty() {
        return Err(format!(
            "the NVIDIA driver library lacks {} entry point(s) Spread needs (CUDA 12.8 or newer): {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    // A driver older than the symbols Spread asks for makes the loader panic: report it as a
    // missing backend rather than ending the program.
    let found = std::panic::catch_unwind(|| discover_devices(first_id, max, config));
    match found {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err("the NVIDIA driver lacks a CUDA 12.8 entry point Spread needs".into()),
    }
}

fn discover_devices(
    first_id: usize,
    max: Option<usize>,
    config: &Config,
) -> std::result::Result<Vec<Box<dyn Device>>, CuError> {
    driver::init()?;
    let count = driver::device_count()?;
    if count == 0 {
        return Err(CuError {
            call: "cuDeviceGetCount",
            code: 100,
            name: "the driver reports no GPU".into(),
        });
    }
    let driver = driver::driver_version().unwrap_or(0);
    let n = usize::try_from(count)
        .unwrap_or(0)
        .min(max.unwrap_or(usize::MAX));
    let mut out: Vec<Box<dyn Device>> = Vec::with_capacity(n);
    for ordinal in 0..n {
        out.push(Box::new(CudaDevice::open(
            first_id + ordinal,
            ordinal,
            n,
            driver,
            config,
        )?));
    }
    Ok(out)
}

/// Whether a cubin built for `image_sm` runs on a GPU of compute capability `device_sm` (both
/// `major * 10 + minor`): same major revision, minor not above the GPU's (cubins carry machine
/// code, not PTX, so they do not run on later major revisions).
pub fn cubin_fits(image_sm: u32, device_sm: u32) -> bool {
    image_sm / 10 == device_sm / 10 && image_sm % 10 <= device_sm % 10
}

/// Maps a driver error to the runtime's, naming the device.
fn backend(id: usize, what: &str, e: CuError) -> Error {
    let kind = if e.is_out_of_memory() {
        ErrorKind::OutOfMemory
    } else if e.is_kernel_fault() {
        ErrorKind::DeviceFault
    } else {
        ErrorKind::Backend
    };
    Error::new(kind, format!("CUDA device {id}: {what}: {e}"))
}

/// A loaded kernel: the function and what its environment says about launching it.
struct Kernel {
    func: usize,
    env: KernelEnvironment,
    func_max_threads: u32,
}

/// State the device shares with its loaded images.
struct Shared {
    id: usize,
    ctx: usize,
    kernels: RwLock<Vec<Arc<Kernel>>>,
}

impl Shared {
    fn bind(&self) -> Result<()> {
        driver::set_current(self.ctx).map_err(|e| backend(self.id, "cannot use its context", e))
    }

    /// Reads `len` bytes of device memory synchronously (small metadata only).
    fn read(&self, src: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        let s = driver::stream_create().map_err(|e| backend(self.id, "stream", e))?;
        let r = driver::copy_dtoh(buf.as_mut_ptr() as usize, src, len, s)
            .and_then(|_| driver::stream_synchronize(s));
        let _ = driver::stream_destroy(s);
        r.map_err(|e| backend(self.id, "reading image metadata", e))?;
        Ok(buf)
    }

    /// Writes `bytes` to device memory synchronously.
    fn write(&self, dst: u64, bytes: &[u8]) -> Result<()> {
        let s = driver::stream_create().map_err(|e| backend(self.id, "stream", e))?;
        let r = driver::copy_htod(dst, bytes.as_ptr() as usize, bytes.len(), s)
            .and_then(|_| driver::stream_synchronize(s));
        let _ = driver::stream_destroy(s);
        r.map_err(|e| backend(self.id, "writing image metadata", e))
    }

    /// Runs the image's constructors (`ctor`) or destructors, as LLVM's plugin does: the
    /// pointers in the `__init_array_object_*` (`__fini_array_object_*`) globals, in priority
    /// order, go into a device buffer that `__init_array_start/_end` delimit, and the
    /// `nvptx$device$init` (`fini`) kernel runs once. Nothing to do without that kernel.
    fn run_ctors(&self, module: usize, image: &[u8], ctor: bool) -> Result<()> {
        let id = self.id;
        let err = |what: &str, e: CuError| backend(id, what, e);
        let kernel = driver::function(module, environment::ctor_kernel(ctor))
            .map_err(|e| err("looking up the constructor kernel", e))?;
        let Some(kernel) = kernel else {
            return Ok(());
        };
        let names = environment::ctor_objects(image, ctor)
            .map_err(|why| Error::new(ErrorKind::Image, format!("CUDA device {id}: {why}")))?;
        let mut table = Vec::with_capacity(names.len() * 8);
        for n in &names {
            let (addr, _) = driver::global(module, n)
                .map_err(|e| err("reading a constructor", e))?
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Image,
                        format!("CUDA device {id}: constructor '{n}' is not in the image"),
                    )
                })?;
            table.extend_from_slice(&self.read(addr, 8)?);
        }
        let buf = if table.is_empty() {
            0
        } else {
            driver::alloc_device(table.len()).map_err(|e| err("constructor table", e))?
        };
        let run = || -> Result<()> {
            if buf != 0 {
                self.write(buf, &table)?;
            }
            let (start, end) = environment::ctor_bounds(ctor);
            for (g, v) in [(start, buf), (end, buf + table.len() as u64)] {
                if let Some((addr, 8)) =
                    driver::global(module, g).map_err(|e| err("constructor bounds", e))?
                {
                    self.write(addr, &v.to_le_bytes())?;
                }
            }
            let s = driver::stream_create().map_err(|e| err("stream", e))?;
            let r =
                driver::launch(kernel, 1, 1, 0, s, &[]).and_then(|_| driver::stream_synchronize(s));
            let _ = driver::stream_destroy(s);
            r.map_err(|e| {
                err(
                    if ctor {
                        "running the image's constructors"
                    } else {
                        "running the image's destructors"
                    },
                    e,
                )
            })
        };
        let r = run();
        if buf != 0 {
            let _ = driver::free_device(buf);
        }
        r
    }
}

/// One NVIDIA GPU.
pub struct CudaDevice {
    shared: Arc<Shared>,
    dev: i32,
    info: DeviceInfo,
    sm: u32,
    limits: GridLimits,
    env: DeviceEnvironment,
    shared_memory: u32,
    /// Whether this device reaches a peer's memory directly (by peer CUDA device handle).
    peers: Mutex<HashMap<i32, bool>>,
    /// The reference point of OMPT trace records' device times (see `reference_event`).
    reference: std::sync::OnceLock<Option<(usize, std::time::Instant)>>,
}

impl CudaDevice {
    fn open(
        id: usize,
        ordinal: usize,
        count: usize,
        driver: i32,
        config: &Config,
    ) -> std::result::Result<Self, CuError> {
        let dev = driver::device(ordinal as i32)?;
        let attr = |a: DeviceAttr| driver::attribute(dev, a);
        let major = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let sms = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let grid_x = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?;
        let block_x = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?;
        let warp = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?;
        let per_sm = attr(DeviceAttr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?;
        let name = driver::device_name(dev)?;
        let memory = driver::total_memory(dev)?;
        let ctx = driver::retain_primary_context(dev)?;
        driver::set_current(ctx)?;
        if let Some(h) = config.gpu.heap_size {
            driver::set_limit(Limit::CU_LIMIT_MALLOC_HEAP_SIZE, h as usize)?;
        }
        if let Some(s) = config.gpu.stack_size {
            driver::set_limit(Limit::CU_LIMIT_STACK_SIZE, s as usize)?;
        }
        let u = |v: i32| u32::try_from(v).unwrap_or(0);
        let limits = GridLimits::nvptx(
            u(grid_x),
            u(block_x),
            u(warp),
            config.gpu.num_teams,
            config.gpu.teams_thread_limit,
        );
        let hardware_parallelism =
            u64::from(u(sms)) * u64::from(u(per_sm)) / u64::from(u(warp).max(1));
        let env = DeviceEnvironment {
            debug_kind: config.gpu.rtl_debug,
            num_devices: count as u32,
            device_num: ordinal as u32,
            dynamic_mem_size: config.gpu.shared_memory,
            clock_frequency: 1_000_000_000,
            indirect_call_table: 0,
            indirect_call_table_size: 0,
            hardware_parallelism,
        };
        let mut details = vec![
            ("Device Name".into(), name.clone()),
            ("Compute Capabilities".into(), format!("sm_{major}{minor}")),
            ("Number of Multiprocessors".into(), sms.to_string()),
            ("Global Memory Size".into(), format!("{memory} bytes")),
            ("Maximum Threads per Block".into(), block_x.to_string()),
            ("Maximum Grid Dimensions".into(), grid_x.to_string()),
            ("Warp Size".into(), warp.to_string()),
            (
                "Maximum Threads per Multiprocessor".into(),
                per_sm.to_string(),
            ),
            (
                "Driver Version".into(),
                format!("{}.{}", driver / 1000, (driver % 1000) / 10),
            ),
        ];
        for (label, a) in [
            (
                "Clock Rate (kHz)",
                DeviceAttr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
            ),
            (
                "L2 Cache Size",
                DeviceAttr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            ),
            (
                "Memory Bus Width",
                DeviceAttr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
            ),
            (
                "Concurrent Kernels",
                DeviceAttr::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS,
            ),
            ("ECC Enabled", DeviceAttr::CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
            (
                "Managed Memory",
                DeviceAttr::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
            ),
            ("PCI Bus ID", DeviceAttr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        ] {
            if let Ok(v) = attr(a) {
                details.push((label.into(), v.to_string()));
            }
        }
        Ok(CudaDevice {
            shared: Arc::new(Shared {
                id,
                ctx,
                kernels: RwLock::new(Vec::new()),
            }),
            dev,
            info: DeviceInfo {
                kind: DeviceKind::Cuda,
                name: format!("{name} (sm_{major}{minor}, CUDA {ordinal})"),
                memory_bytes: memory,
                compute_units: u(sms),
                details,
            },
            sm: u(major) * 10 + u(minor),
            limits,
            env,
            shared_memory: config.gpu.shared_memory,
            peers: Mutex::new(HashMap::new()),
            reference: std::sync::OnceLock::new(),
        })
    }

    fn id(&self) -> usize {
        self.shared.id
    }

    fn bind(&self) -> Result<()> {
        self.shared.bind()
    }

    fn err(&self, what: &str, e: CuError) -> Error {
        backend(self.id(), what, e)
    }

    /// Runs `f` (which enqueues one operation on the stream it is given) between two timed
    /// events when the operation carries an OMPT trace record, kept with the stream until its
    /// work is done ([`complete_traced`](Self::complete_traced)). Without the events the record
    /// carries the enqueueing's times.
    fn timed(&self, s: &mut Stream, f: impl FnOnce(usize) -> Result<()>) -> Result<()> {
        let cs = self.raw(s)?;
        let raw = cs.raw;
        let Some(record) = crate::ompt::take_pending() else {
            return f(raw);
        };
        let begin = std::time::Instant::now();
        let start = self.record_timed(raw);
        let r = f(raw);
        let end = start.and_then(|_| self.record_timed(raw));
        match (start, end) {
            (Some(start), Some(end)) if r.is_ok() => cs.traced.push(Traced { record, start, end }),
            _ => {
                for e in [start, end].into_iter().flatten() {
                    let _ = driver::event_destroy(e);
                }
                crate::ompt::complete_pending(*record, begin, std::time::Instant::now());
            }
        }
        r
    }

    /// A timed event recorded at the current end of stream `raw` (`None`: the driver cannot
    /// time events, or the event failed). The device's reference event comes first.
    fn record_timed(&self, raw: usize) -> Option<usize> {
        if !driver::event_timing_available() {
            return None;
        }
        self.reference_event()?;
        let e = driver::event_create_timed().ok()?;
        if driver::event_record(e, raw).is_err() {
            let _ = driver::event_destroy(e);
            return None;
        }
        Some(e)
    }

    /// Completes the trace records of `cs`'s operations (its work is done) with their device
    /// times: the events' times from the device's reference event, whose host time is known.
    fn complete_traced(&self, cs: &mut CudaStream) {
        if cs.traced.is_empty() {
            return;
        }
        let reference = self.reference_event();
        for t in cs.traced.drain(..) {
            let at = |ev: usize| {
                let (r, host) = reference?;
                let ms = driver::event_elapsed_ms(r, ev).ok()?;
                Some(host + std::time::Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
            };
            let now = std::time::Instant::now();
            let (start, end) = (at(t.start).unwrap_or(now), at(t.end).unwrap_or(now));
            crate::ompt::complete_pending(*t.record, start, end.max(start));
            let _ = driver::event_destroy(t.start);
            let _ = driver::event_destroy(t.end);
        }
    }

    /// The device's reference point for event times: a timed event recorded once, before the
    /// first traced operation, on a stream of its own, and waited for, with the host time just
    /// after it completed (events of one context compare across streams).
    fn reference_event(&self) -> Option<(usize, std::time::Instant)> {
        *self.reference.get_or_init(|| {
            let st = driver::stream_create().ok()?;
            let e = driver::event_create_timed().ok();
            let r = e.and_then(|e| {
                driver::event_record(e, st).ok()?;
                driver::event_synchronize(e).ok()?;
                Some((e, std::time::Instant::now()))
            });
            let _ = driver::stream_destroy(st);
            r
        })
    }

    /// This device's state in `s`, creating nothing: streams come from [`Device::create_stream`].
    fn raw<'s>(&self, s: &'s mut Stream) -> Result<&'s mut CudaStream> {
        // On every operation: the label is formatted only for an error.
        let id = self.id();
        let c = s.state::<CudaStream>(&format_args!("CUDA device {id}"))?;
        if c.ctx != self.shared.ctx {
            return Err(Error::new(
                ErrorKind::Backend,
                format!("CUDA device {id}: a stream of another CUDA device was used"),
            ));
        }
        Ok(c)
    }

    /// The blocks and threads `k` gets for a launch with `cfg` on this device.
    fn grid(&self, k: &Kernel, cfg: &LaunchConfig) -> grid::Grid {
        grid::compute(
            &self.limits,
            &k.env.shape(k.func_max_threads),
            cfg.num_teams[0],
            cfg.thread_limit[0],
            cfg.tripcount,
        )
    }

    /// Whether this device reaches `peer` directly, enabling peer access the first time.
    fn peer_access(&self, peer: &CudaDevice) -> bool {
        let mut peers = self.peers.lock();
        if let Some(&ok) = peers.get(&peer.dev) {
            return ok;
        }
        let ok = driver::can_access_peer(self.dev, peer.dev).unwrap_or(false)
            && self.bind().is_ok()
            && driver::enable_peer_access(peer.shared.ctx).is_ok();
        peers.insert(peer.dev, ok);
        ok
    }
}

/// A stream of one CUDA device, with the device memory to free once it is synchronized.
struct CudaStream {
    raw: usize,
    ctx: usize,
    deferred_frees: Vec<u64>,
    /// Operations with an OMPT trace record, between two timed events, completed with the
    /// events' device times once the stream's work is done.
    traced: Vec<Traced>,
}

/// An operation's trace record and the events around it on its stream.
struct Traced {
    record: Box<crate::ompt::Pending>,
    start: usize,
    end: usize,
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        // At exit the driver may already be gone: nothing to report then.
        if driver::set_current(self.ctx).is_ok() {
            let _ = driver::stream_synchronize(self.raw);
            for p in self.deferred_frees.drain(..) {
                let _ = driver::free_device(p);
            }
            for t in self.traced.drain(..) {
                let _ = driver::event_destroy(t.start);
                let _ = driver::event_destroy(t.end);
            }
            let _ = driver::stream_destroy(self.raw);
        }
    }
}

/// A recorded point in a CUDA stream.
struct CudaEvent {
    raw: usize,
    id: usize,
}

impl EventImpl for CudaEvent {
    fn query(&self) -> Result<bool> {
        driver::event_query(self.raw).map_err(|e| backend(self.id, "event query", e))
    }
    fn synchronize(&self) -> Result<()> {
        driver::event_synchronize(self.raw).map_err(|e| backend(self.id, "event wait", e))
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        let _ = driver::event_destroy(self.raw);
    }
}

/// A cubin loaded on one GPU.
struct CudaImage {
    shared: Arc<Shared>,
    module: usize,
    /// The image's indirect-call table in device memory (see `indirect_table`).
    indirect_table: Option<u64>,
    /// Kernels looked up so far, by name.
    kernels: Mutex<HashMap<String, KernelHandle>>,
    /// The image, kept for its destructor list.
    bytes: Vec<u8>,
}

impl CudaImage {
    fn load_kernel(&self, name: &str) -> Result<Option<KernelHandle>> {
        let id = self.shared.id;
        self.shared.bind()?;
        let Some(func) =
            driver::function(self.module, name).map_err(|e| backend(id, "kernel lookup", e))?
        else {
            return Ok(None);
        };
        let env_name = environment::kernel_environment_name(name);
        let env = match driver::global(self.module, &env_name)
            .map_err(|e| backend(id, "kernel environment", e))?
        {
            Some((addr, size)) if size >= KernelEnvironment::SIZE => {
                let b = self.shared.read(addr, KernelEnvironment::SIZE)?;
                KernelEnvironment::parse(&b).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Image,
                        format!("CUDA device {id}: kernel '{name}' has an unknown execution mode"),
                    )
                })?
            }
            _ => KernelEnvironment::bare(),
        };
        let func_max_threads =
            driver::function_attribute(func, FuncAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
                .map_or(0, |v| u32::try_from(v).unwrap_or(0));
        let mut kernels = self.shared.kernels.write();
        kernels.push(Arc::new(Kernel {
            func,
            env,
            func_max_threads,
        }));
        Ok(Some(KernelHandle(kernels.len() - 1)))
    }
}

impl LoadedImage for CudaImage {
    fn kernel(&self, name: &str) -> Option<KernelHandle> {
        let mut known = self.kernels.lock();
        if let Some(k) = known.get(name) {
            return Some(*k);
        }
        match self.load_kernel(name) {
            Ok(Some(k)) => {
                known.insert(name.to_string(), k);
                Some(k)
            }
            Ok(None) => None,
            Err(e) => {
                eprintln!("spread: warning: {e}");
                None
            }
        }
    }

    fn global(&self, name: &str) -> Option<usize> {
        self.shared.bind().ok()?;
        driver::global(self.module, name)
            .ok()
            .flatten()
            .map(|(p, _)| p as usize)
    }

    fn global_size(&self, name: &str) -> Option<usize> {
        self.shared.bind().ok()?;
        driver::global(self.module, name)
            .ok()
            .flatten()
            .map(|(_, s)| s)
    }
}

impl Drop for CudaImage {
    fn drop(&mut self) {
        if self.shared.bind().is_err() {
            return; // the driver is gone (process exit)
        }
        // Destructors in priority order, as at load; errors cannot be reported here.
        let _ = self.shared.run_ctors(self.module, &self.bytes, false);
        let _ = driver::module_unload(self.module);
        if let Some(t) = self.indirect_table {
            let _ = driver::free_device(t);
        }
    }
}

impl CudaDevice {
    /// The indirect-call table of a loaded module (LLVM 19's plugin builds it at load too), in
    /// fresh device memory: each `declare target indirect` function's host address with the
    /// device function's address its device global holds. `None` without such functions.
    fn indirect_table(
        &self,
        module: usize,
        functions: &[crate::image::IndirectFunction],
    ) -> Result<Option<(u64, u64)>> {
        if functions.is_empty() {
            return Ok(None);
        }
        let mut pairs = Vec::with_capacity(functions.len());
        for f in functions {
            let (addr, _) = driver::global(module, &f.global)
                .map_err(|e| self.err("indirect function", e))?
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Image,
                        format!(
                            "declare target indirect function '{}' is missing from the image on CUDA device {}",
                            f.global,
                            self.id()
                        ),
                    )
                })?;
            let dev = self.shared.read(addr, 8)?;
            let dev = u64::from_le_bytes(dev.try_into().unwrap_or([0; 8]));
            pairs.push((f.host as u64, dev));
        }
        let bytes = environment::indirect_call_table(pairs);
        let table = driver::alloc_device(bytes.len())
            .map_err(|e| self.err("cannot allocate the indirect-call table", e))?;
        if let Err(e) = self.shared.write(table, &bytes) {
            let _ = driver::free_device(table);
            return Err(e);
        }
        Ok(Some((table, (bytes.len() / 16) as u64)))
    }
}

impl Device for CudaDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn accepts(&self, target: ImageTarget) -> bool {
        match target {
            ImageTarget::Cuda { sm } => cubin_fits(sm, self.sm),
            ImageTarget::HostX86_64 => false,
        }
    }

    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>> {
        let id = self.id();
        self.bind()?;
        let module = driver::module_load(object.bytes).map_err(|e| {
            Error::new(
                ErrorKind::Image,
                format!(
                    "cannot load the {} on CUDA device {id} ({}): {e}",
                    object.target, self.info.name
                ),
            )
        })?;
        let mut indirect_table = None;
        let mut setup = || -> Result<()> {
            if let Some((addr, size)) = driver::global(module, environment::DEVICE_ENVIRONMENT)
                .map_err(|e| self.err("device environment", e))?
            {
                if size != DeviceEnvironment::SIZE {
                    return Err(Error::new(
                        ErrorKind::Image,
                        format!(
                            "CUDA device {id}: the image's device environment has {size} bytes, LLVM 19's has {} (built by another LLVM?)",
                            DeviceEnvironment::SIZE
                        ),
                    ));
                }
                let mut env = self.env;
                if let Some((table, n)) = self.indirect_table(module, object.indirect)? {
                    indirect_table = Some(table);
                    env.indirect_call_table = table;
                    env.indirect_call_table_size = n;
                }
                self.shared.write(addr, &env.to_bytes())?;
            }
            self.shared.run_ctors(module, object.bytes, true)
        };
        if let Err(e) = setup() {
            let _ = driver::module_unload(module);
            if let Some(t) = indirect_table {
                let _ = driver::free_device(t);
            }
            return Err(e);
        }
        Ok(Box::new(CudaImage {
            shared: self.shared.clone(),
            module,
            indirect_table,
            kernels: Mutex::new(HashMap::new()),
            bytes: object.bytes.to_vec(),
        }))
    }

    fn alloc(&self, size: usize, kind: AllocKind) -> Result<usize> {
        self.bind()?;
        let r = match kind {
            AllocKind::Device => driver::alloc_device(size).map(|p| p as usize),
            AllocKind::Host => driver::alloc_host(size),
            AllocKind::Shared => {
                // Never ask for more managed memory than the card has free: oversubscribing
                // it can stall the GPU rather than fail the call.
                let (free, _) = driver::memory_info().map_err(|e| self.err("memory info", e))?;
                if size as u64 > free {
                    return Err(Error::new(
                        ErrorKind::OutOfMemory,
                        format!(
                            "CUDA device {}: {size} bytes of managed memory requested, {free} free",
                            self.id()
                        ),
                    ));
                }
                driver::alloc_managed(size).map(|p| p as usize)
            }
        };
        r.map_err(|e| self.err(&format!("cannot allocate {size} bytes"), e))
    }

    fn free(&self, ptr: usize, kind: AllocKind) -> Result<()> {
        self.bind()?;
        let r = match kind {
            AllocKind::Device | AllocKind::Shared => driver::free_device(ptr as u64),
            AllocKind::Host => driver::free_host(ptr),
        };
        r.map_err(|e| self.err("free", e))
    }

    fn memory_info(&self) -> Result<MemoryInfo> {
        self.bind()?;
        let (free, total) = driver::memory_info().map_err(|e| self.err("memory info", e))?;
        Ok(MemoryInfo { free, total })
    }

    fn create_stream(&self) -> Result<Stream> {
        self.bind()?;
        let raw = driver::stream_create().map_err(|e| self.err("cannot create a stream", e))?;
        Ok(Stream {
            backend: Some(Box::new(CudaStream {
                raw,
                ctx: self.shared.ctx,
                deferred_frees: Vec::new(),
                traced: Vec::new(),
            })),
            staging: Vec::new(),
            busy: false,
        })
    }

    fn to_device_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.bind()?;
        self.timed(s, |raw| {
            driver::copy_htod(dst as u64, src, len, raw)
                .map_err(|e| self.err("host-to-device copy", e))
        })
    }

    fn to_host_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.bind()?;
        self.timed(s, |raw| {
            driver::copy_dtoh(dst, src as u64, len, raw)
                .map_err(|e| self.err("device-to-host copy", e))
        })
    }

    fn within_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.bind()?;
        self.timed(s, |raw| {
            driver::copy_dtod(dst as u64, src as u64, len, raw)
                .map_err(|e| self.err("device-to-device copy", e))
        })
    }

    fn fill_impl(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()> {
        self.bind()?;
        let raw = self.raw(s)?.raw;
        driver::fill(dst as u64, byte, len, raw).map_err(|e| self.err("memset", e))?;
        Ok(())
    }

    fn traced_at_enqueue(&self) -> Option<usize> {
        // The GPU runs the work later, where the host cannot time it: the enqueueing is traced.
        Some(self.id())
    }

    fn can_copy_peer(&self, dst_dev: &dyn Device) -> bool {
        // cuMemcpyPeerAsync reaches any GPU of the machine (through host memory where the
        // hardware has no peer path); enabling peer access makes it direct where it can be.
        match (dst_dev as &dyn Any).downcast_ref::<CudaDevice>() {
            Some(peer) => {
                self.peer_access(peer);
                true
            }
            None => false,
        }
    }

    fn peer_impl(&self, c: PeerCopy<'_>, s: &mut Stream) -> Result<()> {
        let PeerCopy { to, dst, src, len } = c;
        let peer = super::peer_of::<CudaDevice>(self, to)?;
        self.bind()?;
        self.timed(s, |raw| {
            driver::copy_peer(
                dst as u64,
                peer.shared.ctx,
                src as u64,
                self.shared.ctx,
                len,
                raw,
            )
            .map_err(|e| self.err("peer copy", e))
        })
    }

    fn launch_impl(&self, l: Launch<'_>, s: &mut Stream) -> Result<()> {
        let Launch { kernel, args, cfg } = l;
        let id = self.id();
        let k = self
            .shared
            .kernels
            .read()
            .get(kernel.0)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::MissingKernel,
                    format!("CUDA device {id}: unknown kernel handle {}", kernel.0),
                )
            })?;
        let grid = self.grid(&k, cfg);
        self.bind()?;
        let raw = self.raw(s)?.raw;
        // Kernels with a cross-team reduction get a launch environment pointing at a
        // zero-initialised buffer of one slot per team, freed once the stream is synchronized.
        let mut dyn_ptr = NO_LAUNCH_ENVIRONMENT;
        let reduction = k.env.reduction_buffer_bytes();
        if reduction > 0 {
            let buf =
                driver::alloc_device(reduction).map_err(|e| self.err("reduction buffer", e))?;
            let env = match driver::alloc_device(16) {
                Ok(p) => p,
                Err(e) => {
                    let _ = driver::free_device(buf);
                    return Err(self.err("launch environment", e));
                }
            };
            self.raw(s)?.deferred_frees.extend([buf, env]);
            let mut launch_env = [0u8; 16];
            launch_env[8..16].copy_from_slice(&buf.to_le_bytes());
            let staged = s.stage(&launch_env);
            driver::fill(buf, 0, reduction, raw)
                .and_then(|_| driver::copy_htod(env, staged, 16, raw))
                .map_err(|e| self.err("launch environment", e))?;
            dyn_ptr = env;
        }
        let mut params = Vec::with_capacity(args.len() + 1);
        params.push(dyn_ptr);
        params.extend(args.iter().map(|&a| a as u64));
        let shared_mem = cfg.dyn_cgroup_mem.max(self.shared_memory);
        let _span = trace::kernel(id, || format!("kernel {} x {}", grid.blocks, grid.threads));
        self.timed(s, |raw| {
            driver::launch(k.func, grid.blocks, grid.threads, shared_mem, raw, &params).map_err(
                |e| {
                    self.err(
                        &format!(
                            "launching a kernel with {} blocks of {} threads",
                            grid.blocks, grid.threads
                        ),
                        e,
                    )
                },
            )
        })
    }

    fn describe_launch(&self, kernel: KernelHandle, cfg: &LaunchConfig) -> String {
        let Some(k) = self.shared.kernels.read().get(kernel.0).cloned() else {
            return "an unknown kernel".to_string();
        };
        let g = self.grid(&k, cfg);
        format!(
            "{} blocks and {} threads in {} mode",
            g.blocks,
            g.threads,
            k.env.mode.name()
        )
    }

    fn record_event(&self, s: &mut Stream) -> Result<Event> {
        self.bind()?;
        let raw = self.raw(s)?.raw;
        let e = driver::event_create().map_err(|e| self.err("event", e))?;
        let ev = CudaEvent {
            raw: e,
            id: self.id(),
        };
        driver::event_record(e, raw).map_err(|e| self.err("event record", e))?;
        Ok(Event::new(Arc::new(ev)))
    }

    fn wait_event_impl(&self, s: &mut Stream, _ev: &Event, inner: &dyn EventImpl) -> Result<bool> {
        // An event of another backend runs on the host's side: the generic layer waits for it.
        let Some(ce) = (inner as &dyn Any).downcast_ref::<CudaEvent>() else {
            return Ok(false);
        };
        self.bind()?;
        let raw = self.raw(s)?.raw;
        driver::stream_wait_event(raw, ce.raw).map_err(|e| self.err("stream wait", e))?;
        Ok(true)
    }

    fn synchronize_impl(&self, s: &mut Stream) -> Result<()> {
        self.bind()?;
        let cs = self.raw(s)?;
        let r = driver::stream_synchronize(cs.raw).map_err(|e| self.err("stream synchronize", e));
        for p in cs.deferred_frees.drain(..) {
            let _ = driver::free_device(p);
        }
        self.complete_traced(cs);
        r
    }

    fn stream_done_impl(&self, s: &mut Stream) -> Result<Option<bool>> {
        self.bind()?;
        let cs = self.raw(s)?;
        let done = driver::stream_query(cs.raw).map_err(|e| self.err("stream query", e))?;
        if done {
            self.complete_traced(cs);
        }
        Ok(Some(done))
    }

    fn pin_host(&self, ptr: usize, len: usize) -> Result<bool> {
        self.bind()?;
        match driver::register_host(ptr, len) {
            Ok(()) => Ok(true),
            // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: the program pinned it (the runtime's
            // own registrations are counted in `memory::pinned` and never repeated).
            Err(e) if e.code == 712 => Ok(false),
            Err(e) => Err(self.err("cannot page-lock host memory", e)),
        }
    }

    fn unpin_host(&self, ptr: usize) -> Result<()> {
        self.bind()?;
        driver::unregister_host(ptr).map_err(|e| self.err("unpin", e))
    }

    fn host_addressable(&self) -> bool {
        false
    }

    fn asynchronous(&self) -> bool {
        true
    }

    fn shares_memory(&self) -> bool {
        true // managed and mapped page-locked memory reach the host and every GPU
    }

    fn prefer_location(&self, ptr: usize, len: usize, location: &dyn Device) -> Result<bool> {
        // CU_DEVICE_CPU (-1) for host memory, else the GPU's device handle.
        let target = (location as &dyn Any)
            .downcast_ref::<CudaDevice>()
            .map_or(-1, |d| d.dev);
        self.bind()?;
        driver::advise(
            ptr as u64,
            len,
            driver::Advice::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            target,
        )
        .map_err(|e| self.err("cuMemAdvise", e))?;
        Ok(true)
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        let _ = driver::release_primary_context(self.dev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubins_fit_their_major_revision_only() {
        assert!(cubin_fits(90, 90));
        assert!(cubin_fits(80, 86));
        assert!(!cubin_fits(86, 80));
        assert!(!cubin_fits(80, 90)); // an sm_80 cubin does not run on an H100
        assert!(!cubin_fits(4, 90)); // what LLVM 19 reads from a CUDA 13 sm_90 cubin
    }

    #[test]
    fn a_machine_without_a_driver_has_no_cuda_devices_and_says_why() {
        if driver::library_present() {
            return; // this machine has a driver: the GPU tests cover it
        }
        let cfg = Config::from_lookup(|_| None);
        let why = discover(0, None, &cfg).err().expect("no devices");
        assert!(why.contains("libcuda.so"), "{why}");
    }
}
