//! Host devices: the machine's own cores, each device with memory of its own.
//!
//! A host device runs the x86_64 image clang embeds, loaded once per device so that
//! declare-target globals are per device, and keeps its data in separate allocations, so that a
//! program sees host data on a device only through mapping, as on a discrete GPU. Copies and
//! kernels are recorded on streams (`stream.rs`) and run when a stream is synchronized or, once it
//! is submitted, on the executor threads all host devices share, about one per core
//! (`pool.rs`): a host device is an asynchronous device like a GPU, with the same `nowait` path.

pub(crate) mod activity;
pub mod guarded;
pub mod league;
mod pool;
pub mod running;
mod stream;

use super::{
    AllocKind, Device, DeviceInfo, DeviceKind, Event, KernelHandle, Launch, LaunchConfig,
    LoadedImage, MemoryInfo, PeerCopy, Stream,
};
use crate::config::{format_cpulist, HostShape};
use crate::error::{Error, ErrorKind, Result};
use crate::image::{DeviceObject, ImageTarget};
use crate::profile::Dir;
use crate::sys::affinity::{self, CoreSet};
use crate::sys::{access, call, dl, kmp, mem};
use crate::trace;
use pool::Pool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use stream::{Batch, HostStream, KernelParams, Op, Runner};

/// `dyn_ptr` as libomptarget's host plugin passes it: host kernels never read it.
const HOST_DYN_PTR: usize = usize::MAX;

/// Host kernels running right now, over all host devices: their threads share the cores.
static RUNNING_KERNELS: AtomicUsize = AtomicUsize::new(0);

/// One host device.
pub struct HostDevice {
    id: usize,
    info: DeviceInfo,
    /// Runs its kernels (shared with its executors).
    kernels: Arc<Kernels>,
    /// Its kernels and the executor threads that run its submitted streams.
    runner: Runner,
    /// Whether `num_teams(N)` forms exactly N teams (`SPREAD_TEAMS=exact`, [`league`]).
    exact_teams: bool,
    /// The host share ([`HostDevice::host_share`]): its memory is the host's.
    host_memory: bool,
    /// Whether its blocks are guarded ([`guarded`]; `SPREAD_GUARD`, default on).
    guards: bool,
}

/// How a host device runs a kernel, on whichever thread runs the kernel's stream.
pub(crate) trait HostKernels: Send + Sync + 'static {
    /// The device number.
    fn device(&self) -> usize;
    /// Runs `kernel` with `params` (`dyn_ptr` first) on the calling thread, recording that it
    /// runs for `origin` (when its device reports faults).
    fn run(
        &self,
        kernel: KernelHandle,
        params: &[usize],
        cfg: &LaunchConfig,
        origin: Option<crate::origin::Origin>,
    ) -> Result<()>;
    /// Whether the calling thread may run a kernel launched with `cfg` itself.
    fn runs_here(&self, cfg: &LaunchConfig) -> bool;
}

/// A host device's kernel runner: its size and pinning.
struct Kernels {
    id: usize,
    /// Cores the machine has (or `SPREAD_HOST_THREADS`), shared among running kernels.
    cores: usize,
    /// Thread count each kernel gets when it runs alone: `SPREAD_HOST_THREADS` if set.
    threads_override: Option<usize>,
    /// This device's own thread count (`SPREAD_HOST_DEVICE_THREADS`, or the number of cores it
    /// is pinned to): its kernels use that many whatever else runs, as the user partitioned.
    own_threads: Option<usize>,
    /// The cores its kernel threads are pinned to (`SPREAD_HOST_DEVICE_CORES`).
    pin: Option<&'static CoreSet>,
    /// Why the device cannot run kernels (it was given only cores the process may not use).
    unusable: Option<String>,
    /// Its place in [`activity::ACTIVITY`] (`None`: not counted).
    activity: Option<usize>,
}

/// What creating a host device had to say about its settings.
#[derive(Debug, Default)]
pub struct Diagnostics {
    /// Settings that were corrected (reported, the device runs).
    pub warnings: Vec<String>,
    /// Settings that leave the device unable to run kernels.
    pub errors: Vec<String>,
}

impl HostDevice {
    /// Host device `id` with the default size: its kernels share the cores with the other host
    /// devices' (`SPREAD_HOST_THREADS`, or all cores, in total).
    pub fn new(id: usize, threads_override: Option<usize>) -> Self {
        Self::with_shape(
            id,
            threads_override,
            &HostShape::default(),
            None,
            &mut Diagnostics::default(),
        )
    }

    /// Host device `id` of the size `shape` gives (`SPREAD_HOST_DEVICE_THREADS`/`_CORES`).
    /// `allowed` is the set of cores the process may run on (`None`: unknown, every core is
    /// taken as allowed); cores outside it are dropped with a warning, and a device left with none
    /// gets an error and refuses to run kernels.
    pub fn with_shape(
        id: usize,
        threads_override: Option<usize>,
        shape: &HostShape,
        allowed: Option<&[usize]>,
        diag: &mut Diagnostics,
    ) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let memory_bytes = physical_memory();
        let mut unusable = None;
        let pinned: Option<Vec<usize>> = shape.cores.as_ref().and_then(|want| {
            let (kept, dropped) = restrict(want, allowed);
            let allowed_list = || format_cpulist(allowed.unwrap_or_default());
            if kept.is_empty() {
                let e = format!(
                    "SPREAD_HOST_DEVICE_CORES: host device {id} is given cores {}, none of which this process may run on (allowed: {}); its kernels cannot run",
                    format_cpulist(want),
                    allowed_list()
                );
                diag.errors.push(e.clone());
                unusable = Some(e);
                None
            } else {
                if !dropped.is_empty() {
                    diag.warnings.push(format!(
                        "SPREAD_HOST_DEVICE_CORES: host device {id}: cores {} are outside the cores this process may run on ({}); using cores {}",
                        format_cpulist(&dropped),
                        allowed_list(),
                        format_cpulist(&kept)
                    ));
                }
                Some(kept)
            }
        });
        let own_threads = shape.threads.or(pinned.as_ref().map(Vec::len));
        let units = own_threads.or(threads_override).unwrap_or(cores);
        let cores_text = match &pinned {
            Some(p) => format_cpulist(p),
            None => "any (not pinned)".to_string(),
        };
        let name = match &pinned {
            Some(p) => format!(
                "host device {id} (x86_64, {units} threads, cores {})",
                format_cpulist(p)
            ),
            None => format!("host device {id} (x86_64, {units} threads)"),
        };
        // Host devices live as long as the process, and OMPT callbacks find the set by address.
        let pin = pinned.map(|p| &*Box::leak(Box::new(CoreSet::new(&p))));
        let kernels = Arc::new(Kernels {
            id,
            cores,
            threads_override,
            own_threads,
            pin,
            unusable,
            activity: activity::ACTIVITY.claim(),
        });
        let pool = if pin.is_some() {
            // A pinned device is a partition of the machine the user made, and its kernels pin
            // the thread that runs them: it keeps executors of its own (one at work at a time,
            // more while one blocks). Shared executors would carry its cores' affinity history
            // to other devices' work and pile onto its cores.
            executor_pool(Box::leak(format!("spread-host{id}").into_boxed_str()), 1)
        } else {
            let pool = host_pool();
            if own_threads.is_some() {
                pool.base_at_least(OWN_SIZED_DEVICES.fetch_add(1, Ordering::Relaxed) + 1);
            }
            pool
        };
        HostDevice {
            id,
            runner: Runner {
                kernels: kernels.clone(),
                pool,
            },
            exact_teams: false,
            host_memory: false,
            guards: true,
            kernels,
            info: DeviceInfo {
                kind: DeviceKind::Host,
                name,
                memory_bytes,
                compute_units: u32::try_from(units).unwrap_or(u32::MAX),
                details: vec![
                    ("Device Type".into(), "host (x86_64 image)".into()),
                    ("Threads per kernel".into(), units.to_string()),
                    (
                        "Thread count".into(),
                        if own_threads.is_some() {
                            "own".into()
                        } else {
                            "shared".into()
                        },
                    ),
                    ("Cores".into(), cores_text),
                ],
            },
        }
    }

    /// The host share: the host's own cores as an asynchronous device whose memory is the host's
    /// (mapping uses data where it is, as under unified shared memory). Task sharing runs the
    /// host instances that a thread creating its tasks at once would otherwise run itself on it
    /// (`Runtime::host_share`), so that the creating thread goes on placing instances. It is
    /// not numbered among the devices the program sees.
    pub fn host_share(id: usize, threads_override: Option<usize>) -> Self {
        const WHAT: &str = "host share (x86_64 image, host memory)";
        let mut d = Self::new(id, threads_override);
        d.host_memory = true;
        d.info.name = WHAT.into();
        for (key, value) in &mut d.info.details {
            if key == "Device Type" {
                *value = WHAT.into();
            }
        }
        d
    }

    /// The device forming exactly the teams `num_teams(N)` asks for when `exact`
    /// (`SPREAD_TEAMS=exact`): images it loads from now on run leagues through [`league`].
    pub fn with_exact_teams(mut self, exact: bool) -> Self {
        self.exact_teams = exact;
        self
    }

    /// The device keeping its blocks between guard regions when `on` (`SPREAD_GUARD`, default
    /// on; [`guarded`]), or in the heap.
    pub fn with_guards(mut self, on: bool) -> Self {
        self.guards = on;
        self
    }
}

/// Most executor threads of all host devices together (executors beyond the cores are started
/// only while others block).
const MAX_EXECUTORS: usize = 256;

/// The executors all host devices share: as many run at once as the machine has cores.
fn host_pool() -> Arc<Pool<Batch>> {
    static POOL: std::sync::OnceLock<Arc<Pool<Batch>>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        executor_pool("spread-host", cores)
    })
    .clone()
}

/// A pool of host-device executors named `name` (its threads' names) that runs `base` at once.
fn executor_pool(name: &'static str, base: usize) -> Arc<Pool<Batch>> {
    Pool::new(
        name,
        base,
        MAX_EXECUTORS,
        pool::Timing::DEFAULT,
        Arc::new(ExecutorHooks),
    )
}

/// Unpinned host devices whose kernels have a thread count of their own
/// (`SPREAD_HOST_DEVICE_THREADS`): each may run at once whatever the cores, as the user
/// partitioned the machine (pinned devices have executors of their own).
static OWN_SIZED_DEVICES: AtomicUsize = AtomicUsize::new(0);

/// Host devices' pools: set up each executor thread, and count in the profile.
struct ExecutorHooks;

impl pool::Hooks for ExecutorHooks {
    fn started(&self) {
        activity::mark_executor();
        // Kernels' worker threads sleep as soon as a kernel ends instead of spinning for
        // libomp's blocktime (200 ms) on cores that other devices' kernels and the program need.
        kmp::set_blocktime(0);
        crate::profile::executor_started();
    }

    fn base_changed(&self, delta: usize) {
        crate::profile::executor_base_added(delta);
    }

    fn running(&self, starts: bool) {
        crate::profile::executor_running(starts);
    }

    fn added_for_blocked(&self) {
        crate::profile::executor_added_for_blocked();
    }
}

impl Kernels {
    /// How many threads a kernel that starts now gets: the device's own count if it has one;
    /// else all cores when it runs alone, an equal share when `running` host devices compute at
    /// once (at least one; [`activity`] says which count).
    fn thread_share(&self, running: usize) -> Option<usize> {
        if self.own_threads.is_some() {
            return self.own_threads;
        }
        let total = self.threads_override.unwrap_or(self.cores);
        if running <= 1 && self.threads_override.is_none() {
            return None; // alone: leave the program's own setting untouched
        }
        Some((total / running.max(1)).max(1))
    }
}

/// Splits `want` into the cores in `allowed` and those outside it (`allowed` unknown: all kept).
fn restrict(want: &[usize], allowed: Option<&[usize]>) -> (Vec<usize>, Vec<usize>) {
    match allowed {
        None => (want.to_vec(), Vec::new()),
        Some(a) => want.iter().partition(|c| a.contains(c)),
    }
}

/// Says once per process when pinned devices' libomp worker threads cannot be pinned.
fn warn_if_workers_unpinned() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if !crate::sys::ompt::tool_active() {
        WARNED.call_once(|| {
            eprintln!(
                "spread: warning: SPREAD_HOST_DEVICE_CORES: only the threads that launch kernels are pinned, not libomp's worker threads: libomp did not start Spread's OMPT tool (OMP_TOOL=disabled, OMP_TOOL_LIBRARIES set, another OMPT tool loaded, or a libomp without OMPT)"
            );
        });
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
    fn computes_on_own_cores(&self) -> bool {
        true
    }

    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn accepts(&self, target: ImageTarget) -> bool {
        target == ImageTarget::HostX86_64
    }

    fn load_image(&self, object: &DeviceObject<'_>) -> Result<Box<dyn LoadedImage>> {
        let label = format!("spread-host-device-{}", self.id);
        let bytes = if self.exact_teams {
            league::prepare(object.bytes)
        } else {
            std::borrow::Cow::Borrowed(object.bytes)
        };
        let object = dl::LoadedObject::load(&bytes, &label).map_err(|e| {
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
        if self.guards {
            if let Some(p) = guarded::alloc(self.id, size) {
                return Ok(p);
            }
        }
        mem::alloc(size).ok_or_else(|| {
            Error::new(
                ErrorKind::OutOfMemory,
                format!("host device {} cannot allocate {size} bytes", self.id),
            )
        })
    }

    fn free(&self, ptr: usize, _kind: AllocKind) -> Result<()> {
        // Guarded blocks may be freed by any address inside (the cache's placement).
        if !(self.guards && guarded::free(ptr)) {
            access::free_owned(ptr);
        }
        Ok(())
    }

    fn place(&self, block: usize, class: usize, size: usize) -> usize {
        if self.guards {
            guarded::place(block, class, size)
        } else {
            block
        }
    }

    fn memory_info(&self) -> Result<MemoryInfo> {
        Ok(MemoryInfo {
            free: meminfo("MemAvailable:"),
            total: self.info.memory_bytes,
        })
    }

    fn create_stream(&self) -> Result<Stream> {
        let mut s = Stream::default();
        s.backend = Some(Box::new(HostStream::default()));
        Ok(s)
    }

    fn can_copy_peer(&self, dst_dev: &dyn Device) -> bool {
        dst_dev.host_addressable()
    }

    fn peer_impl(&self, c: PeerCopy<'_>, s: &mut Stream) -> Result<()> {
        self.copy(s, c.dst, c.src, c.len, Dir::Peer);
        Ok(())
    }

    fn record_event(&self, s: &mut Stream) -> Result<Event> {
        Ok(HostStream::of(s).record())
    }

    fn wait_event_impl(
        &self,
        s: &mut Stream,
        ev: &Event,
        inner: &dyn super::EventImpl,
    ) -> Result<bool> {
        // Any backend's event: the executor that reaches the wait blocks on it.
        if !inner.query()? {
            HostStream::of(s).push(Op::Wait(ev.clone()));
            s.busy = true;
        }
        Ok(true)
    }

    fn to_device_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.copy(s, dst, src, len, Dir::ToDevice);
        Ok(())
    }

    fn to_host_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.copy(s, dst, src, len, Dir::FromDevice);
        Ok(())
    }

    fn within_impl(&self, dst: usize, src: usize, len: usize, s: &mut Stream) -> Result<()> {
        self.copy(s, dst, src, len, Dir::Within);
        Ok(())
    }

    fn fill_impl(&self, dst: usize, byte: u8, len: usize, s: &mut Stream) -> Result<()> {
        HostStream::of(s).push(Op::Fill { dst, byte, len });
        Ok(())
    }

    fn launch_impl(&self, l: Launch<'_>, s: &mut Stream) -> Result<()> {
        let Launch { kernel, args, cfg } = l;
        // Refused when recorded, so that the construct fails at once with the reason.
        if let Some(why) = &self.kernels.unusable {
            return Err(Error::new(ErrorKind::Backend, why.clone()));
        }
        if args.len() + 1 > call::MAX_KERNEL_PARAMS {
            return Err(stream::refused(
                self.id,
                format!(
                    "kernel takes {} arguments; host devices support at most {}",
                    args.len(),
                    call::MAX_KERNEL_PARAMS - 1
                ),
            ));
        }
        let mut params = KernelParams::new();
        params.push(HOST_DYN_PTR);
        params.extend_from_slice(args);
        HostStream::of(s).push(Op::Kernel {
            kernel,
            params,
            cfg: *cfg,
            label: trace::label(),
            // Kept only where a fault can be reported (guards on).
            origin: self.guards.then(crate::origin::current),
            tool: crate::ompt::take_pending(),
        });
        Ok(())
    }

    fn synchronize_impl(&self, s: &mut Stream) -> Result<()> {
        HostStream::of(s).synchronize(&self.runner)
    }

    fn submit(&self, s: &mut Stream) -> Result<()> {
        HostStream::of(s).submit(&self.runner);
        Ok(())
    }

    fn host_addressable(&self) -> bool {
        true
    }

    fn stream_done_impl(&self, s: &mut Stream) -> Result<Option<bool>> {
        Ok(Some(HostStream::of(s).done(&self.runner)))
    }

    fn asynchronous(&self) -> bool {
        true
    }

    fn uses_host_memory(&self) -> bool {
        self.host_memory
    }

    fn expect_kernels(&self) {
        if let Some(slot) = self.kernels.activity {
            activity::ACTIVITY.expect(slot, activity::now_us);
        }
    }

    fn stop_idle_threads(&self) {
        self.runner.pool.stop_if_idle();
    }
}

impl HostDevice {
    /// Records a copy on `s` (traced where it runs).
    fn copy(&self, s: &mut Stream, dst: usize, src: usize, len: usize, dir: Dir) {
        HostStream::of(s).push(Op::Copy {
            dst,
            src,
            len,
            dir,
            label: trace::label(),
            tool: crate::ompt::take_pending(),
        });
    }
}

impl HostKernels for Kernels {
    fn device(&self) -> usize {
        self.id
    }

    fn run(
        &self,
        kernel: KernelHandle,
        params: &[usize],
        cfg: &LaunchConfig,
        origin: Option<crate::origin::Origin>,
    ) -> Result<()> {
        // Teams and threads are the kernel's own business on x86_64: its code calls libomp's
        // fork entry points, which size teams from the calling thread's ICVs.
        let _span = trace::kernel(self.id, || "kernel".to_string());
        // What a fault inside the kernel is reported with (`runtime/fault.rs`).
        let _running = origin.map(|o| running::enter(self.id, o));
        crate::exit::park_if_exiting(); // as below, before libomp is asked anything
        let running = RUNNING_KERNELS.fetch_add(1, Ordering::AcqRel) + 1;
        let computing = self
            .activity
            .map_or(1, |slot| activity::ACTIVITY.begin(slot, activity::now_us));
        let share = self.thread_share(running.max(computing));
        let saved = share.map(|n| {
            let n = i32::try_from(n).unwrap_or(i32::MAX);
            let old = kmp::max_threads();
            // nthreads-var sizes a `target parallel` kernel's region; a `teams` region's parallel
            // regions ignore it and take the thread count pushed for the teams construct.
            kmp::set_num_threads(n);
            // Not for a league of one: clang passes `num_teams` 1 for a `target` whose body is
            // a lone `parallel` construct too, which forks no teams, and a push it does not
            // consume stays on this thread: its next `teams` construct would then skip
            // libomp's own defaults and abort (`kmp_csupport.cpp(539)`, th_set_nproc >= 1).
            if cfg.teams && cfg.num_teams[0] != 1 {
                kmp::push_teams_threads(n);
            }
            old
        });
        let pin = self.pin.map(|set| {
            warn_if_workers_unpinned();
            affinity::KernelPin::enter(set)
        });
        // The kernel's parallel regions and barriers are not the program's sync points.
        let inner = crate::sys::ompt::InnerScope::enter();
        // An executor whose kernel forks a team sleeps at its barriers while the team works.
        let _team = share.is_none_or(|n| n > 1).then(pool::TeamScope::enter);
        let ok = league::with_share(share, || call::call_kernel(kernel.0, params));
        drop(inner);
        drop(pin);
        // If the program began exiting while the kernel ran, libomp may be gone: touch it no
        // more (this thread waits for the end).
        crate::exit::park_if_exiting();
        if let Some(old) = saved {
            kmp::set_num_threads(old);
        }
        RUNNING_KERNELS.fetch_sub(1, Ordering::AcqRel);
        if let Some(slot) = self.activity {
            activity::ACTIVITY.end(slot, activity::running_submitted(), activity::now_us);
        }
        if ok {
            Ok(())
        } else {
            Err(stream::refused(
                self.id,
                "cannot call the kernel".to_string(),
            ))
        }
    }

    fn runs_here(&self, cfg: &LaunchConfig) -> bool {
        // A `teams` kernel forks a league from the running thread; from a thread inside a
        // parallel region (a compute unit's thread, a `target teams` in a `parallel`) libomp 19
        // aborts in `__kmpc_fork_teams` (`th_set_nproc >= 1`, llvm/llvm-project#146262; stock
        // libomptarget too). An executor, outside any parallel region, runs it instead.
        !(cfg.teams && kmp::level() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaped(shape: HostShape, allowed: Option<&[usize]>) -> (HostDevice, Diagnostics) {
        let mut diag = Diagnostics::default();
        let d = HostDevice::with_shape(1, None, &shape, allowed, &mut diag);
        (d, diag)
    }

    #[test]
    fn own_thread_counts_do_not_share() {
        let (d, diag) = shaped(
            HostShape {
                threads: Some(3),
                cores: None,
            },
            None,
        );
        assert!(diag.warnings.is_empty() && diag.errors.is_empty());
        assert_eq!(d.kernels.thread_share(1), Some(3));
        assert_eq!(d.kernels.thread_share(4), Some(3));
        assert_eq!(d.info.compute_units, 3);
        assert!(d.info.name.contains("3 threads"), "{}", d.info.name);
        // Without a setting the cores are shared, as before.
        let plain = HostDevice::new(0, Some(8));
        assert_eq!(plain.kernels.thread_share(4), Some(2));
        assert_eq!(HostDevice::new(0, None).kernels.thread_share(1), None);
    }

    #[test]
    fn cores_pin_and_size_the_device() {
        let (d, diag) = shaped(
            HostShape {
                threads: None,
                cores: Some(vec![0, 1, 2, 5]),
            },
            Some(&[0, 1, 2, 3]),
        );
        // Core 5 is not allowed: a warning naming the variable and the core, three cores kept.
        assert_eq!(diag.warnings.len(), 1);
        assert!(diag.warnings[0].contains("SPREAD_HOST_DEVICE_CORES"));
        assert!(
            diag.warnings[0].contains("cores 5 "),
            "{}",
            diag.warnings[0]
        );
        assert!(d.kernels.pin.is_some() && d.kernels.unusable.is_none());
        assert_eq!(d.kernels.thread_share(2), Some(3));
        assert!(d.info.name.contains("cores 0-2"), "{}", d.info.name);
        assert!(
            !Arc::ptr_eq(&d.runner.pool, &host_pool()),
            "a pinned device has executors of its own"
        );
        let unpinned = HostDevice::new(3, None);
        assert!(Arc::ptr_eq(&unpinned.runner.pool, &host_pool()));
        let (d, diag) = shaped(
            HostShape {
                threads: Some(1),
                cores: Some(vec![6, 7]),
            },
            Some(&[0, 1]),
        );
        assert_eq!(diag.errors.len(), 1);
        assert!(diag.errors[0].contains("6-7"), "{}", diag.errors[0]);
        assert!(d.kernels.unusable.is_some());
    }
}
