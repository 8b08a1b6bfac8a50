//! The core: the process-wide runtime state (devices, registered images, the offload policy),
//! on which every feature builds. Its submodules: [`mapping`] (the mapping table and map-clause
//! semantics), [`slot`] (a device: its queues, pooled streams, allocation cache, peer copies,
//! `omp_target_alloc` records, and loading images, declare-target globals, kernels by region,
//! from `program`: what the program registered, which a slot is given instead of the runtime),
//! [`launch`] (data begin/end/update and target regions as the C ABI layer calls them),
//! [`nowait`] (`nowait` constructs and their completion), [`report`] (how failures reach the
//! user) and [`hooks`] (what features above the core register with it). Devices and streams
//! are in [`crate::device`], scheduling in [`crate::sched`].

use crate::abi::{entry_flags, requires};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::image;
use crate::info;
use crate::runtime::mapping::table::INF;
pub use program::EntryInfo;
use program::{Program, RegisteredImage};
pub use slot::{DeviceSlot, PooledStream};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

/// Name prefix of the pass plugin's kernel descriptors in device images.
pub const KERNEL_DESCRIPTOR_PREFIX: &str = "__spread_kinfo_";

/// The offload policy (`OMP_TARGET_OFFLOAD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// `disabled` (or `default` without devices): every construct runs on the host.
    Disabled,
    /// `mandatory` (or `default` with devices): constructs run on devices; failures are fatal.
    Mandatory,
}

/// Where a construct runs.
pub enum Placement<'a> {
    /// On this device, whose images are loaded.
    Device(&'a DeviceSlot),
    /// On the host: the initial device, or offloading disabled.
    Host,
}

/// The runtime.
pub struct Runtime {
    /// The settings read from the environment at start-up.
    pub config: Config,
    /// The offload devices, indexed by device number.
    pub devices: Vec<DeviceSlot>,
    /// Why a backend asked for in `SPREAD_DEVICES` gave fewer devices than requested.
    pub device_notes: Vec<String>,
    /// What the program registered: its images and kernels, which the devices load.
    program: Program,
    requires: AtomicI64,
    /// The `nowait` constructs in flight.
    nowait: nowait::Nowait,
    /// The rates the model-based schedules learnt (and the profile they were loaded from).
    pub sched_model: Arc<crate::sched::model::Model>,
    /// The host share, created when task sharing first asks for it.
    host_share: OnceLock<DeviceSlot>,
}

/// The device number task sharing's lowering gets for an instance on the host share
/// ([`Runtime::host_share`]): no device the program sees has it, and [`Runtime::device`] knows it
/// only once the host share exists.
pub const HOST_SHARE_DEVICE: i64 = 0x5350_4853;

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The runtime, if it was created (for the fault report, which must not create it).
pub fn try_get() -> Option<&'static Runtime> {
    RUNTIME.get()
}

/// The runtime, created on first use.
pub fn get() -> &'static Runtime {
    let mut created = false;
    let rt = RUNTIME.get_or_init(|| {
        created = true;
        Runtime::new(Config::from_env())
    });
    if created {
        fault::register();
        rt.connect_tool();
    }
    if created && !REGISTERING.with(std::cell::Cell::get) {
        // A worker rank of cluster mode whose program registers no images (it only calls the
        // device memory API): no registration will divert it, so it serves from here on.
        rt.serve_if_worker();
    }
    rt
}

thread_local! {
    /// Set while `__tgt_register_lib` creates the runtime: a worker rank serves after
    /// registering the images, not before.
    static REGISTERING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The runtime if it exists already (callbacks of libomp's tool, which must not create it).
pub fn existing() -> Option<&'static Runtime> {
    RUNTIME.get()
}

/// The runtime for `__tgt_register_lib`, which registers the program's images before a worker
/// rank serves (see [`get`]).
pub fn get_for_registration() -> &'static Runtime {
    REGISTERING.with(|r| r.set(true));
    let rt = get();
    REGISTERING.with(|r| r.set(false));
    rt
}

impl Runtime {
    /// Connects to the program's OMPT tool and tells it about the devices (`crate::ompt`).
    /// After the runtime exists: libomp starts its tool now if it has not yet, and asks the
    /// runtime for the number of devices meanwhile.
    fn connect_tool(&self) {
        // A worker rank runs none of the program's constructs: its tool has nothing to see.
        if crate::device::registry::cluster::is_worker() {
            return;
        }
        let types: Vec<String> = self
            .devices
            .iter()
            .map(|s| {
                let i = s.dev.info();
                match i.kind {
                    // Stock's name for its host plugin's devices, which host devices replace.
                    crate::config::DeviceKind::Host => "generic-64bit".to_string(),
                    crate::config::DeviceKind::Cuda => i
                        .details
                        .iter()
                        .find(|(k, _)| k == "Compute Capabilities")
                        .map_or_else(|| "cuda".to_string(), |(_, v)| v.clone()),
                }
            })
            .collect();
        crate::ompt::connect(self.initial_device() as i32, &types);
    }

    /// Starts the runtime with `config`: applies its diagnostics settings, loads the schedule
    /// model and discovers the devices (printing what discovery warns about).
    pub fn new(mut config: Config) -> Self {
        info::set_flags(config.info);
        crate::trace::init(config.trace.clone());
        crate::profile::init(config.profile);
        crate::time_trace::init(
            config.libomptarget_profile.clone(),
            config.profile_granularity_us,
        );
        for w in &config.warnings {
            eprintln!("spread: warning: {w}");
        }
        if let Some(f) = &config.fatal {
            eprintln!("spread: error: {f}");
            report::fatal(
                1,
                "a Spread setting stops the program (see the error above)",
            );
        }
        let mut model_warnings = Vec::new();
        let sched_model =
            crate::sched::model::Model::new(config.sched_profile.clone(), &mut model_warnings);
        for w in &model_warnings {
            eprintln!("spread: warning: {w}");
        }
        let found = crate::device::registry::discover(&config);
        for w in &found.warnings {
            eprintln!("spread: warning: {w}");
        }
        for e in &found.errors {
            eprintln!("spread: error: {e}");
        }
        // Settings that name devices, now that the devices are known.
        let kinds: Vec<_> = found.devices.iter().map(|d| d.info().kind).collect();
        for w in config.check_devices(&kinds) {
            eprintln!("spread: warning: {w}");
        }
        if config.info_devices {
            for n in &found.notes {
                eprintln!("spread: info: {n}");
            }
            // Host devices of unequal size (SPREAD_HOST_DEVICE_THREADS/_CORES) show it here.
            for (id, d) in found.devices.iter().enumerate() {
                let i = d.info();
                if i.kind != crate::config::DeviceKind::Host {
                    continue;
                }
                let fact = |k: &str| {
                    i.details
                        .iter()
                        .find(|(key, _)| key == k)
                        .map_or("?", |(_, v)| v.as_str())
                };
                eprintln!(
                    "spread: info: device {id} (host): {} threads per kernel ({}), cores {}",
                    fact("Threads per kernel"),
                    fact("Thread count"),
                    fact("Cores")
                );
            }
        }
        let devices = found
            .devices
            .into_iter()
            .enumerate()
            .map(|(id, dev)| DeviceSlot::new(id, dev, &config))
            .collect();
        Runtime {
            config,
            devices,
            device_notes: found.notes,
            program: Program::default(),
            requires: AtomicI64::new(0),
            nowait: nowait::Nowait::default(),
            sched_model: Arc::new(sched_model),
            host_share: OnceLock::new(),
        }
    }

    /// The host share: the host's own cores as an asynchronous device with the host's memory
    /// ([`registry::host_share`](crate::device::registry::host_share)), numbered
    /// [`HOST_SHARE_DEVICE`] in constructs and `devices.len() + 1` inside the runtime (after the
    /// initial device). `None` when it cannot run the program's constructs: no x86_64 image, or
    /// `declare target` variables, which the image's code would read and write in its own copy
    /// where a host version must see the host's.
    pub fn host_share(&self) -> Option<&DeviceSlot> {
        if self.has_declare_target_variables() {
            return None;
        }
        let slot = self.host_share.get_or_init(|| {
            let id = self.devices.len() + 1;
            crate::profile::label_device(id, "share");
            let dev = crate::device::registry::host_share(id, self.config.host_threads);
            DeviceSlot::new(id, dev, &self.config)
        });
        (slot.ensure_images(&self.program, self.usm()).is_ok() && slot.loaded_any()).then_some(slot)
    }

    /// Whether a registered image has `declare target` variables. Device code names `to`/`enter`
    /// variables in the image's own copy; `link` ones go through a pointer the mapping sets,
    /// which the host share's in-place mapping leaves unset (it crashed).
    fn has_declare_target_variables(&self) -> bool {
        self.program
            .images
            .read()
            .iter()
            .any(|img| img.active && img.variables)
    }

    /// Every device slot: the devices, then the host share if it exists.
    pub fn slots(&self) -> impl Iterator<Item = &DeviceSlot> {
        self.devices.iter().chain(self.host_share.get())
    }

    /// Number of offload devices (`omp_get_num_devices()`).
    pub fn num_devices(&self) -> usize {
        self.devices.len()
    }

    /// The initial (host) device number, `omp_get_initial_device()`.
    pub fn initial_device(&self) -> i64 {
        self.devices.len() as i64
    }

    /// The offload policy now, from libomp's `OMP_TARGET_OFFLOAD` setting.
    pub fn policy(&self) -> Policy {
        match crate::sys::kmp::target_offload() {
            0 => Policy::Disabled,
            2 => Policy::Mandatory,
            // DEFAULT behaves as MANDATORY when there are devices, as in libomptarget.
            _ if self.devices.is_empty() => Policy::Disabled,
            _ => Policy::Mandatory,
        }
    }

    /// Whether the program requires unified shared memory.
    pub fn usm(&self) -> bool {
        self.requires.load(Ordering::Relaxed) & requires::UNIFIED_SHARED_MEMORY != 0
    }

    /// Resolves a construct's device clause (-1 = default device).
    ///
    /// A thread that starts a construct while another thread is exiting the program waits for
    /// the end here (see [`exit::park_if_exiting`](crate::exit::park_if_exiting)).
    pub fn placement(&self, device: i64) -> Result<Placement<'_>> {
        crate::exit::park_if_exiting();
        if self.policy() == Policy::Disabled {
            return Ok(Placement::Host);
        }
        if self.devices.is_empty() {
            return Err(Error::new(
                ErrorKind::BadDevice,
                "offloading is mandatory but there are no devices (SPREAD_HOST_DEVICES=0 and no other device found)",
            ));
        }
        let id = if device == -1 {
            i64::from(crate::sys::kmp::default_device())
        } else {
            device
        };
        if id == self.initial_device() {
            return Ok(Placement::Host);
        }
        let slot = self.device(id)?;
        slot.ensure_images(&self.program, self.usm())?;
        if slot.runs_no_image(&self.program) && crate::sys::kmp::target_offload() != 2 {
            // Stock libomptarget counts only devices of plugins with an image for them: a binary
            // whose images are all for another kind of device (nvptx only, on a machine without
            // a GPU) sees no devices and runs on the host. Here the device exists, but the
            // program has nothing it can run, so the construct runs on the host as with stock
            // (OMP_TARGET_OFFLOAD=mandatory makes it an error instead).
            if !slot.warned_no_image.swap(true, Ordering::Relaxed) && self.config.info_devices {
                eprintln!(
                    "spread: info: device {id} ({}) has no image of this program it can run; its constructs run on the host",
                    slot.dev.info().kind.as_str()
                );
            }
            return Ok(Placement::Host);
        }
        Ok(Placement::Device(slot))
    }

    /// The device numbered `id`, or the libomptarget error for a bad number.
    pub fn device(&self, id: i64) -> Result<&DeviceSlot> {
        if let (HOST_SHARE_DEVICE, Some(slot)) = (id, self.host_share.get()) {
            return Ok(slot);
        }
        usize::try_from(id)
            .ok()
            .and_then(|i| self.devices.get(i))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::BadDevice,
                    format!(
                        "Device number '{id}' out of range, only {} devices available",
                        self.devices.len()
                    ),
                )
            })
    }

    /// Records the images of a `__tgt_bin_desc`.
    pub fn register(&self, desc: usize, images: Vec<(Vec<u8>, Vec<EntryInfo>)>) {
        let mut regs = self.program.images.write();
        crate::exit::cancel();
        let mut names = self.program.kernel_names.write();
        for (bytes, entries) in images {
            for e in &entries {
                if e.flags & entry_flags::REGISTER_REQUIRES != 0 {
                    self.requires.fetch_or(i64::from(e.data), Ordering::Relaxed);
                } else if e.size == 0 && e.flags & entry_flags::INDIRECT == 0 {
                    names.insert(e.addr, Arc::from(e.name.as_str()));
                }
            }
            // Keep only the device object itself.
            let (target, bytes) = match image::classify(&bytes) {
                Ok(o) => (Ok(o.target), o.bytes.to_vec()),
                Err(err) => {
                    eprintln!(
                        "spread: warning: offload image {} of the program is unusable: {err}",
                        regs.len()
                    );
                    (Err(err), Vec::new())
                }
            };
            let indirect = entries
                .iter()
                .filter(|e| e.size > 0 && e.flags & entry_flags::INDIRECT != 0)
                .map(|e| image::IndirectFunction {
                    host: e.addr,
                    global: e.name.clone(),
                })
                .collect();
            let variables = entries.iter().any(|e| {
                e.size > 0
                    && e.flags & (entry_flags::INDIRECT | entry_flags::REGISTER_REQUIRES) == 0
            });
            let descriptors = image::symbols_with_prefix(&bytes, KERNEL_DESCRIPTOR_PREFIX);
            regs.push(RegisteredImage {
                variables,
                desc,
                descriptors,
                target,
                bytes: Arc::new(bytes),
                entries: Arc::new(entries),
                indirect: Arc::new(indirect),
                active: true,
            });
        }
    }

    /// The kernel of host region id `region`, by name, if one is registered.
    pub fn kernel_name(&self, region: usize) -> Option<Arc<str>> {
        self.program.kernel_names.read().get(&region).cloned()
    }

    /// The descriptors the pass plugin embedded for kernel `name`, one per registered image
    /// that has one (docs/pass.md, "Automatic spreading").
    pub fn kernel_descriptors(&self, name: &str) -> Vec<Vec<u8>> {
        self.program
            .images
            .read()
            .iter()
            .filter(|i| i.active)
            .filter_map(|i| i.descriptors.iter().find(|(n, _)| n == name))
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// The registered image with this hash and length (a worker rank finds the image the head
    /// asks it to load).
    pub fn image_by_key(&self, hash: u64, len: u64) -> Option<image::ImageParts> {
        self.program.images.read().iter().find_map(|i| {
            let t = i.target.as_ref().ok()?;
            (i.bytes.len() as u64 == len
                && crate::device::registry::cluster::image_hash(&i.bytes) == hash)
                .then(|| image::ImageParts {
                    target: *t,
                    bytes: i.bytes.clone(),
                    indirect: i.indirect.clone(),
                })
        })
    }

    /// Records `#pragma omp requires` bits.
    pub fn add_requires(&self, flags: i64) {
        self.requires.fetch_or(flags, Ordering::Relaxed);
    }

    /// Retires the images of `desc` on every device and forgets their kernels and declare-target
    /// globals. The device code stays loaded: programs unregister at exit, while threads of
    /// theirs may still be running kernels. When no active image is left, the program is
    /// exiting: see [`exit::park_if_exiting`](crate::exit::park_if_exiting).
    pub fn unregister(&self, desc: usize) {
        if self
            .program
            .images
            .read()
            .iter()
            .all(|i| !i.active || i.desc == desc)
        {
            // The program exits: the work it left in flight finishes while its images are still
            // there and before other threads are told to stop (a device's kernel would wait for
            // the end instead of finishing).
            self.nowait_at_exit();
            hooks::run_at_exit(self);
        }
        let mut regs = self.program.images.write();
        // Decided before anything is retired: a construct that fails because of what follows
        // must find the program exiting.
        if regs.iter().all(|i| !i.active || i.desc == desc) {
            crate::exit::begin();
        }
        for (idx, img) in regs
            .iter_mut()
            .enumerate()
            .filter(|(_, i)| i.desc == desc && i.active)
        {
            img.active = false;
            for slot in self.slots() {
                let mut imgs = slot.images.lock();
                let unloaded = imgs.loaded.get_mut(idx).and_then(Option::take);
                if unloaded.is_some() {
                    let mut table = slot.table.lock();
                    for e in img.entries.iter().filter(|e| e.size > 0) {
                        if table
                            .get(e.addr)
                            .is_some_and(|x| x.dyn_refs == INF && !x.owns_memory)
                        {
                            table.remove(e.addr);
                        }
                    }
                    imgs.kernels.clear();
                }
                imgs.retired.extend(unloaded);
            }
        }
        let mut names = self.program.kernel_names.write();
        for img in regs.iter().filter(|i| i.desc == desc) {
            for e in img.entries.iter() {
                names.remove(&e.addr);
            }
        }
        // The last image gone (the program exits): end the idle device workers, so that libomp
        // frees what it holds for them as libomp threads.
        let last = !regs.iter().any(|i| i.active);
        drop(names);
        drop(regs);
        if last {
            crate::ompt::finalize_devices();
            crate::profile::report();
            if let Err(e) = self.sched_model.save() {
                eprintln!("spread: warning: {e}");
            }
            for slot in self.slots() {
                for q in &slot.queues {
                    q.stop_if_idle();
                }
                slot.dev.stop_idle_threads();
            }
            crate::device::registry::cluster::at_exit(self.config.info_remote);
        }
    }

    /// Waits for every `nowait` construct started on `slot` so far (`wait device(d)`, a peer
    /// copy's order): polled ones keep their outcome for their task's poll, a failed owned one
    /// is reported.
    pub fn drain(&self, slot: &DeviceSlot) {
        self.nowait_drain_device(slot.id);
        slot.drain_queues();
    }
}

pub mod fault;
pub mod hooks;
pub mod launch;
pub mod mapping;
pub mod nowait;
mod program;
pub mod report;
pub mod slot;

/// The runtime's devices and images, served by a worker.
struct RuntimeHost(&'static Runtime);

impl crate::device::registry::cluster::WorkerHost for RuntimeHost {
    fn device(&self, index: usize) -> Option<&dyn crate::device::Device> {
        self.0.devices.get(index).map(|s| &*s.dev)
    }
    fn num_devices(&self) -> usize {
        self.0.devices.len()
    }
    fn image(&self, hash: u64, len: u64) -> Option<crate::image::ImageParts> {
        self.0.image_by_key(hash, len)
    }
}

impl Runtime {
    /// On a worker rank of an MPI job: serves this rank's devices and the program's images to the
    /// head until it ends, then leaves the process. Returns at once on the head and without MPI.
    pub fn serve_if_worker(&'static self) {
        crate::device::registry::cluster::serve_if_worker(std::sync::Arc::new(RuntimeHost(self)));
    }
}

// A device slot's images as the features ask for them, with the runtime: the slot itself is
// given only the program (`slot.rs` does not name the runtime).
impl DeviceSlot {
    /// The device address of global `name` in the images loaded on this device (loading the
    /// program's images first); `None` when none defines it.
    pub fn image_global(&self, rt: &Runtime, name: &str) -> Result<Option<usize>> {
        self.ensure_images(&rt.program, rt.usm())?;
        let imgs = self.images.lock();
        Ok(imgs.loaded.iter().flatten().find_map(|i| i.global(name)))
    }

    /// Whether an image loaded on this device has the kernel of host region id `region`.
    pub fn has_kernel(&self, rt: &Runtime, region: usize) -> bool {
        self.ensure_images(&rt.program, rt.usm()).is_ok()
            && self.kernel(&rt.program, region).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::map;
    use crate::device::host::HostDevice;
    use crate::device::{AllocKind, Device, Event, LoadedImage, MemoryInfo, Stream};
    use crate::image::ImageTarget;
    use parking_lot::Mutex;

    fn runtime(devices: usize) -> Runtime {
        Runtime::new(Config::from_lookup(|k| {
            (k == "SPREAD_HOST_DEVICES").then(|| devices.to_string())
        }))
    }

    use crate::runtime::mapping::tests::args;

    /// A host device that logs the operations that matter to a rollback. With a gate, it acts
    /// as an asynchronous device: its first synchronize waits until the test opens the gate,
    /// and the events it records complete only when that synchronize returns.
    struct Logged {
        inner: HostDevice,
        log: Arc<Mutex<Vec<&'static str>>>,
        gate: Option<Gate>,
    }

    /// The first synchronize says it began on `entered` and waits for `go`.
    struct Gate {
        entered: std::sync::mpsc::SyncSender<()>,
        go: Mutex<std::sync::mpsc::Receiver<()>>,
        first: std::sync::atomic::AtomicBool,
        done: Arc<std::sync::atomic::AtomicBool>,
    }

    struct GateEvent(Arc<std::sync::atomic::AtomicBool>);

    impl crate::device::EventImpl for GateEvent {
        fn query(&self) -> Result<bool> {
            Ok(self.0.load(Ordering::Acquire))
        }
        fn synchronize(&self) -> Result<()> {
            while !self.0.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            Ok(())
        }
    }

    impl Device for Logged {
        fn info(&self) -> &crate::device::DeviceInfo {
            self.inner.info()
        }
        fn accepts(&self, target: ImageTarget) -> bool {
            self.inner.accepts(target)
        }
        fn load_image(&self, o: &image::DeviceObject<'_>) -> Result<Box<dyn LoadedImage>> {
            self.inner.load_image(o)
        }
        fn alloc(&self, size: usize, kind: AllocKind) -> Result<usize> {
            self.inner.alloc(size, kind)
        }
        fn free(&self, ptr: usize, kind: AllocKind) -> Result<()> {
            self.log.lock().push("free");
            self.inner.free(ptr, kind)
        }
        fn place(&self, block: usize, class: usize, size: usize) -> usize {
            self.inner.place(block, class, size)
        }
        fn to_device_impl(&self, d: usize, s: usize, n: usize, st: &mut Stream) -> Result<()> {
            self.log.lock().push("copy");
            self.inner.to_device_impl(d, s, n, st)
        }
        fn to_host_impl(&self, d: usize, s: usize, n: usize, st: &mut Stream) -> Result<()> {
            self.inner.to_host_impl(d, s, n, st)
        }
        fn within_impl(&self, d: usize, s: usize, n: usize, st: &mut Stream) -> Result<()> {
            self.inner.within_impl(d, s, n, st)
        }
        fn fill_impl(&self, d: usize, b: u8, n: usize, st: &mut Stream) -> Result<()> {
            self.inner.fill_impl(d, b, n, st)
        }
        fn launch_impl(&self, l: crate::device::Launch<'_>, st: &mut Stream) -> Result<()> {
            self.inner.launch_impl(l, st)
        }
        fn synchronize(&self, st: &mut Stream) -> Result<()> {
            self.log.lock().push("sync");
            if let Some(g) = &self.gate {
                if g.first.swap(false, Ordering::AcqRel) {
                    let _ = g.entered.send(());
                    let _ = g.go.lock().recv();
                    g.done.store(true, Ordering::Release);
                }
            }
            self.inner.synchronize(st)
        }
        fn host_addressable(&self) -> bool {
            true
        }
        fn asynchronous(&self) -> bool {
            self.gate.is_some()
        }
        fn stream_done(&self, st: &mut Stream) -> Result<Option<bool>> {
            match &self.gate {
                Some(g) => Ok(Some(g.done.load(Ordering::Acquire))),
                None => self.inner.stream_done(st),
            }
        }
        fn memory_info(&self) -> Result<MemoryInfo> {
            self.inner.memory_info()
        }
        fn create_stream(&self) -> Result<Stream> {
            self.inner.create_stream()
        }
        fn can_copy_peer(&self, d: &dyn Device) -> bool {
            self.inner.can_copy_peer(d)
        }
        fn peer_impl(&self, c: crate::device::PeerCopy<'_>, st: &mut Stream) -> Result<()> {
            self.inner.peer_impl(c, st)
        }
        fn record_event(&self, st: &mut Stream) -> Result<Event> {
            match &self.gate {
                Some(g) => Ok(Event::new(Arc::new(GateEvent(g.done.clone())))),
                None => self.inner.record_event(st),
            }
        }
        fn wait_event(&self, st: &mut Stream, ev: &Event) -> Result<()> {
            self.log.lock().push("wait_event");
            match &self.gate {
                Some(_) => Ok(()), // an asynchronous device would order the stream here
                None => self.inner.wait_event(st, ev),
            }
        }
        fn synchronize_impl(&self, st: &mut Stream) -> Result<()> {
            self.inner.synchronize_impl(st)
        }
        fn wait_event_impl(
            &self,
            st: &mut Stream,
            ev: &Event,
            inner: &dyn crate::device::EventImpl,
        ) -> Result<bool> {
            self.inner.wait_event_impl(st, ev, inner)
        }
        fn pin_host(&self, p: usize, n: usize) -> Result<bool> {
            self.inner.pin_host(p, n)
        }
        fn unpin_host(&self, p: usize) -> Result<()> {
            self.inner.unpin_host(p)
        }
    }

    #[test]
    fn failed_data_begin_waits_for_its_copies_before_rolling_back() {
        // Without the allocation cache, so that the rollback's free reaches the device.
        let mut rt = Runtime::new(Config::from_lookup(|k| match k {
            "SPREAD_HOST_DEVICES" => Some("1".into()),
            "SPREAD_ALLOC_CACHE" => Some("0".into()),
            _ => None,
        }));
        let log = Arc::new(Mutex::new(Vec::new()));
        rt.devices[0].dev = Box::new(Logged {
            inner: HostDevice::new(0, None),
            log: log.clone(),
            gate: None,
        });
        let slot = &rt.devices[0];
        let host = [1u64; 8];
        let missing = [2u64; 8];
        let (a, b) = (host.as_ptr() as usize, missing.as_ptr() as usize);
        // The first entry is copied; the second is `present` and missing, so the begin fails.
        let mut m = args(&[(a, 64, map::TO), (b, 64, map::TO | map::PRESENT)]);
        assert!(slot.data_begin(&rt, &mut m).is_err());
        assert!(
            slot.table.lock().is_empty(),
            "the rollback removed the entry"
        );
        let log = log.lock().clone();
        let copy = log.iter().position(|x| *x == "copy");
        let free = log.iter().position(|x| *x == "free");
        let sync = log.iter().position(|x| *x == "sync");
        assert!(copy.is_some() && free.is_some(), "{log:?}");
        assert!(
            sync.is_some_and(|s| s > copy.unwrap_or(0) && s < free.unwrap_or(0)),
            "the rollback freed device memory before waiting for the copy into it: {log:?}"
        );
    }

    #[test]
    fn no_table_lock_while_copies_run_and_later_constructs_wait_for_them() {
        let mut rt = runtime(1);
        let (entered_tx, entered) = std::sync::mpsc::sync_channel(1);
        let (go, go_rx) = std::sync::mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        rt.devices[0].dev = Box::new(Logged {
            inner: HostDevice::new(0, None),
            log: log.clone(),
            gate: Some(Gate {
                entered: entered_tx,
                go: Mutex::new(go_rx),
                first: std::sync::atomic::AtomicBool::new(true),
                done: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            }),
        });
        let slot = &rt.devices[0];
        let data = [3u64; 8];
        let a = data.as_ptr() as usize;
        std::thread::scope(|s| {
            let first = s.spawn(|| slot.data_begin(&rt, &mut args(&[(a, 64, map::TO)])));
            entered.recv().expect("the first construct synchronizes");
            // The first construct waits for its copy: the table is free meanwhile ...
            let unlocked = slot.table.try_lock().is_some();
            // ... and a second construct finding the entry orders itself after that copy.
            log.lock().clear();
            let waited = unlocked
                && slot.data_begin(&rt, &mut args(&[(a, 64, map::TO)])).is_ok()
                && log.lock().contains(&"wait_event");
            go.send(()).expect("gate");
            assert!(
                unlocked,
                "the mapping table stays locked while a stream synchronizes"
            );
            assert!(
                waited,
                "a construct used an entry whose copy may still run: {:?}",
                log.lock()
            );
            first.join().expect("joins").expect("maps");
        });
        assert_eq!(
            slot.table.lock().find_contained(a, 64).map(|e| e.dyn_refs),
            Some(2)
        );
    }

    #[test]
    fn a_streamed_nowait_construct_is_polled_and_a_device_wait_finishes_it() {
        // A runtime for the rest of the process: streamed constructs refer to their device.
        let rt: &'static mut Runtime =
            Box::leak(Box::new(Runtime::new(Config::from_lookup(|k| match k {
                "SPREAD_HOST_DEVICES" => Some("1".into()),
                "SPREAD_STREAMS" => Some("1".into()),
                _ => None,
            }))));
        let (entered_tx, entered) = std::sync::mpsc::sync_channel(1);
        let (go, go_rx) = std::sync::mpsc::channel();
        rt.devices[0].dev = Box::new(Logged {
            inner: HostDevice::new(0, None),
            log: Arc::new(Mutex::new(Vec::new())),
            gate: Some(Gate {
                entered: entered_tx,
                go: Mutex::new(go_rx),
                first: std::sync::atomic::AtomicBool::new(true),
                done: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            }),
        });
        let rt: &'static Runtime = rt;
        let slot = &rt.devices[0];
        let data: &'static [u64; 8] = Box::leak(Box::new([5u64; 8]));
        let a = data.as_ptr() as usize;
        let started = rt.nowait().start(
            slot,
            crate::location::LazyLoc::known(None),
            None,
            false,
            None,
            move || slot.enqueue_begin(rt, &mut args(&[(a, 64, map::TO)])),
        );
        let nowait::Completion::Polled(h) = started else {
            panic!("a construct without an owner is polled: {started:?}");
        };
        assert!(
            slot.reserve_stream().is_none(),
            "the construct is on a stream, and SPREAD_STREAMS=1 bounds the streamed constructs"
        );
        // The device has not finished: a poll returns at once, twice.
        assert!(rt.poll_pending(h).is_none());
        assert!(rt.poll_pending(h).is_none());
        std::thread::scope(|s| {
            let waiter = s.spawn(|| rt.drain(slot));
            entered
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("the device wait synchronizes the construct's stream");
            go.send(()).expect("gate");
            waiter.join().expect("the device wait returns");
        });
        // Finished by the device wait: the task's next poll gets the outcome, once.
        assert!(matches!(rt.poll_pending(h), Some((Ok(()), None))));
        assert!(rt.poll_pending(h).is_none(), "the handle is forgotten");
        assert!(
            slot.reserve_stream().is_some(),
            "its stream place was given back"
        );
        assert_eq!(
            slot.table.lock().find_contained(a, 64).map(|e| e.dyn_refs),
            Some(1)
        );
    }
}
