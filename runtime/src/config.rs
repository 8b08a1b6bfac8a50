//! Settings read from the environment once, at start-up: every `SPREAD_*` variable and the
//! libomptarget ones Spread honours. A bad value is reported (the variable, its value, what is
//! wrong and what is used instead) whatever `SPREAD_INFO` says; values that name devices are
//! checked once the devices are known (`config/check.rs`, [`Config::check_devices`]).

mod check;
pub mod sharing;

use std::collections::BTreeMap;

/// Spread's own settings (`SPREAD_*`) and the libomptarget ones it honours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `SPREAD_HOST_DEVICES`: how many host devices (default 4, as libomptarget's host plugin).
    pub host_devices: usize,
    /// `SPREAD_HOST_THREADS`: threads a host-device kernel may use when it runs alone
    /// (default: all cores, shared equally among host devices running at once).
    pub host_threads: Option<usize>,
    /// `SPREAD_HOST_DEVICE_THREADS`: threads each host device's kernels use, one entry per host
    /// device in numbering order, the last repeated for the rest (empty: not set).
    pub host_device_threads: Vec<usize>,
    /// `SPREAD_HOST_DEVICE_CORES`: the cores each host device's kernel threads are pinned to,
    /// one list per host device in numbering order (empty list or beyond the end: not pinned).
    pub host_device_cores: Vec<Vec<usize>>,
    /// `LIBOMPTARGET_INFO`: bit mask of diagnostic output.
    pub info: u32,
    /// `SPREAD_SCHEDULE=KIND[,CHUNK]`: the schedule of spread constructs and compute-unit
    /// regions that name none (default: static).
    pub schedule: Option<crate::sched::Spec>,
    /// `SPREAD_SCHED_PROFILE=[load:|record:]FILE`: the rates of the model-based schedules, read
    /// at start and/or written at exit.
    pub sched_profile: Option<crate::sched::model::ProfileFile>,
    /// `SPREAD_INFO=any`: print where each `device(any)` instance runs and what it moved.
    pub info_any: bool,
    /// `SPREAD_INFO=chunks`: print each chunk of a spread construct as it is handed out.
    pub info_chunks: bool,
    /// `SPREAD_INFO=memory`: print memory-space and allocator decisions (and why a space or an
    /// allocation could not be made).
    pub info_memory: bool,
    /// `SPREAD_TRACE=path`: write a Chrome trace of device work to `path` at exit.
    pub trace: Option<String>,
    /// `SPREAD_INFO=devices`: say which backends gave no devices, and why.
    pub info_devices: bool,
    /// `SPREAD_INFO=placement`: print each migration of registered data (docs/compute-units.md).
    pub info_placement: bool,
    /// `SPREAD_AUTO`: automatic spreading of the kernels the pass plugin marked spreadable
    /// (docs/auto-spread.md): `None` off (default; see [`parse_auto`]), `Some(vec![])`
    /// every device, `Some(list)` those devices.
    pub auto: Option<Vec<i32>>,
    /// `SPREAD_AUTO_MIN`: the fewest iterations a block of an automatically spread launch gets
    /// (default [`AUTO_MIN_DEFAULT`]): smaller launches use fewer devices, or run as written.
    pub auto_min: u64,
    /// `SPREAD_INFO=auto`: print each automatic-spreading decision and every refusal's reason.
    pub info_auto: bool,
    /// `SPREAD_CU_DEVICES=d0,d1,...`: the devices GPU compute units own, in CU order (default:
    /// 0, 1, 2, ...).
    pub cu_devices: Option<Vec<i32>>,
    /// `SPREAD_DEVICES`: which kinds of devices exist, in numbering order (default `cuda,host`).
    pub devices: Vec<DeviceRequest>,
    /// `SPREAD_STREAMS`: asynchronous queues per device, so `nowait` work from several threads
    /// overlaps, and the `nowait` constructs in flight at once on an asynchronous device's
    /// streams (default 8).
    pub streams_per_device: usize,
    /// `SPREAD_ALLOC_CACHE`: bytes of freed device memory each device keeps for reuse (default:
    /// an eighth of its memory; 0 turns the cache off).
    pub alloc_cache: Option<usize>,
    /// Settings of GPU devices (libomptarget's variables for its CUDA plugin).
    pub gpu: GpuSettings,
    /// `SPREAD_INFO=remote`: at exit, what the head sent each worker rank (messages, batches,
    /// bytes).
    pub info_remote: bool,
    /// Devices of other MPI ranks (`SPREAD_REMOTE=mpi`); `None` when MPI is not to be touched.
    pub remote: Option<RemoteSettings>,
    /// `SPREAD_NOWAIT`: who completes `nowait` constructs (docs/runtime.md, "`nowait`").
    pub nowait: NowaitMode,
    /// `SPREAD_TEAMS=exact`: host devices form exactly the teams `num_teams(N)` asks for, more
    /// than their cores included (docs/runtime.md, "Devices"); default `libomp`: at most one
    /// team per core, as libomp forms them.
    pub exact_teams: bool,
    /// `SPREAD_PROFILE=summary`: print where the time went, per device, at exit.
    pub profile: bool,
    /// `LIBOMPTARGET_PROFILE=<file>`: write libomptarget's time trace there at exit.
    pub libomptarget_profile: Option<String>,
    /// `LIBOMPTARGET_PROFILE_GRANULARITY`: the shortest event the time trace keeps, in
    /// microseconds (default 500, as libomptarget).
    pub profile_granularity_us: u64,
    /// Task sharing's settings (`SPREAD_TOKEN_POOL`, `SPREAD_ANY_*`, `SPREAD_KIND_ALIAS`, ...).
    pub sharing: sharing::Settings,
    /// `SPREAD_GUARD`: host devices keep each block of device memory between guard regions
    /// and report a kernel that faults in one (default on; `0` turns it off: heap memory, as
    /// before, and no fault handler).
    pub guard: bool,
    /// `SPREAD_STRICT=1`: a kernel on a host device that uses memory a GPU in its place could
    /// not reach (another device's `omp_target_alloc` memory, memory of a space the device is
    /// not in) is an error rather than working only because host devices share the host's
    /// memory (default off).
    pub strict: bool,
    /// Problems found while reading the settings, reported once by the runtime.
    pub warnings: Vec<String>,
    /// A setting so wrong where it is used that the program must not run (an unknown
    /// `SPREAD_REMOTE` transport under an MPI launcher, which would run the program once per
    /// rank): the runtime stops with it at start-up.
    pub fatal: Option<String>,
    /// The variables read that were set, with their values ([`Config::raw`]).
    raw: BTreeMap<&'static str, String>,
}

/// Who completes `nowait` constructs (`SPREAD_NOWAIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NowaitMode {
    /// `spread` (default): Spread owns them and finishes them at the program's synchronization
    /// points (through its OMPT tool), libomp's target task completing at once.
    Spread,
    /// `libomp`: libomp's target task polls each one, as with libomptarget.
    Libomp,
}

impl NowaitMode {
    /// The mode a `SPREAD_NOWAIT` value names (unset or empty: `spread`); `None` for anything
    /// else.
    pub fn parse(v: Option<&str>) -> Option<NowaitMode> {
        match v.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("spread") => Some(NowaitMode::Spread),
            Some("libomp") => Some(NowaitMode::Libomp),
            Some(_) => None,
        }
    }
}

/// Whether a libomp boolean setting's value means "off" (libomp's own spellings).
pub fn is_off(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "0" | "f" | "false" | ".f." | ".false." | "n" | "no" | "off" | "disabled"
    )
}

/// Whether Spread owns `nowait` constructs: `SPREAD_NOWAIT` does not say `libomp`, and libomp's
/// hidden helper threads are off (Spread turns them off at load unless the user set
/// `LIBOMP_USE_HIDDEN_HELPER_TASK`; with them on, target tasks run on the helpers, libomp's
/// model, and are polled).
pub fn owns_nowait(var: impl Fn(&str) -> Option<String>) -> bool {
    NowaitMode::parse(var("SPREAD_NOWAIT").as_deref()) != Some(NowaitMode::Libomp)
        && var("LIBOMP_USE_HIDDEN_HELPER_TASK").is_some_and(|v| is_off(&v))
}

/// The settings of remote devices (cluster mode, `SPREAD_REMOTE=mpi`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSettings {
    /// `SPREAD_REMOTE_TIMEOUT`: a worker rank not heard from for this long ends the run
    /// (default 30 s).
    pub timeout: std::time::Duration,
    /// `SPREAD_REMOTE_LIB`: the MPI transport library (default: next to the runtime).
    pub lib: Option<String>,
    /// `SPREAD_REMOTE_FAULT=rank:message:exit|kill|hang`: a worker failure to inject (tests).
    pub fault: Option<Fault>,
}

/// libomptarget's variables for GPU plugins, which Spread's CUDA backend honours alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuSettings {
    /// `LIBOMPTARGET_HEAP_SIZE`: bytes of the device-side `malloc` heap (driver default if unset).
    pub heap_size: Option<u64>,
    /// `LIBOMPTARGET_STACK_SIZE`: bytes of stack per GPU thread (driver default if unset).
    pub stack_size: Option<u64>,
    /// `LIBOMPTARGET_SHARED_MEMORY_SIZE`: dynamic shared memory every launch gets (default 0).
    pub shared_memory: u32,
    /// `OMP_NUM_TEAMS`: most teams (blocks) a launch may have (0: the hardware's limit).
    pub num_teams: u32,
    /// `OMP_TEAMS_THREAD_LIMIT`: most threads per team (0: the hardware's limit).
    pub teams_thread_limit: u32,
    /// `LIBOMPTARGET_DEVICE_RTL_DEBUG`: debug flags for the device runtime.
    pub rtl_debug: u32,
    /// `LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS`: page-lock the host side of mapped data while it
    /// is mapped, so its copies skip the driver's staging (default off, as in libomptarget).
    pub lock_mapped: bool,
}

/// What kind of hardware a device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    /// Host CPU cores with memory of their own, running the x86_64 image.
    Host,
    /// An NVIDIA GPU driven through the CUDA driver API, running the nvptx64 image.
    Cuda,
}

impl DeviceKind {
    /// The name `SPREAD_DEVICES` and `spread-info` use for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Host => "host",
            DeviceKind::Cuda => "cuda",
        }
    }
}

/// Parses `SPREAD_DEVICES`: a comma-separated list of `kind[:count]` (`cuda`, `host:2`), in
/// numbering order. Returns the requests, or what is wrong.
pub fn parse_devices(spec: &str) -> std::result::Result<Vec<DeviceRequest>, String> {
    let mut out: Vec<DeviceRequest> = Vec::new();
    for item in spec.split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let (kind, count) = match item.split_once(':') {
            Some((k, c)) => {
                let n = c
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("{item:?}: the count after ':' is not a number"))?;
                (k.trim(), Some(n))
            }
            None => (item, None),
        };
        let kind = match kind.to_ascii_lowercase().as_str() {
            "host" => DeviceKind::Host,
            "cuda" | "nvidia" | "gpu" => DeviceKind::Cuda,
            other => return Err(format!("unknown device kind {other:?} (known: cuda, host)")),
        };
        if kind == DeviceKind::Host && count.is_some_and(|n| n > MAX_HOST_DEVICES) {
            return Err(format!("{item:?}: at most {MAX_HOST_DEVICES} host devices"));
        }
        if out.iter().any(|r| r.kind == kind) {
            return Err(format!("{} is listed twice", kind.as_str()));
        }
        out.push(DeviceRequest { kind, count });
    }
    Ok(out)
}

/// A fault the tests inject (`SPREAD_REMOTE_FAULT=rank:command:action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAction {
    /// The process exits with status 3 without leaving the MPI job.
    Exit,
    /// The process kills itself with SIGKILL (it prints nothing).
    Kill,
    /// The communication thread stops: no more answers, no more heartbeats.
    Hang,
}

/// An injected fault: on rank `rank`, at its `command`-th received message (0: at the head's
/// request to leave, when the program ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// The rank that fails.
    pub rank: usize,
    /// Which received message triggers it (1 = the first; 0 = the request to leave).
    pub command: u64,
    /// What happens.
    pub action: FaultAction,
}

impl Fault {
    /// Parses `rank:command:action` (`command` a number from 1, or `leave`).
    pub fn parse(s: &str) -> std::result::Result<Fault, String> {
        let parts: Vec<&str> = s.split(':').map(str::trim).collect();
        let [rank, command, action] = parts.as_slice() else {
            return Err("expected rank:command:action (action exit, kill or hang)".to_string());
        };
        let rank = rank
            .parse()
            .map_err(|_| format!("the rank {rank:?} is not a number"))?;
        let command =
            match *command {
                "leave" => 0,
                c => c.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!("the message {c:?} is not a number from 1, nor 'leave'")
                })?,
            };
        let action = match *action {
            "exit" => FaultAction::Exit,
            "kill" => FaultAction::Kill,
            "hang" => FaultAction::Hang,
            a => return Err(format!("unknown action {a:?} (exit, kill or hang)")),
        };
        Ok(Fault {
            rank,
            command,
            action,
        })
    }
}

/// One entry of `SPREAD_DEVICES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceRequest {
    /// The backend.
    pub kind: DeviceKind,
    /// How many of its devices at most (`None`: all; host devices: `SPREAD_HOST_DEVICES`).
    pub count: Option<usize>,
}

/// The size of one host device as `SPREAD_HOST_DEVICE_THREADS` and `SPREAD_HOST_DEVICE_CORES`
/// give it (before the cores are checked against those the process may use).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostShape {
    /// Threads its kernels use (`None`: as many as it has cores when pinned, else the shared
    /// default).
    pub threads: Option<usize>,
    /// Cores its kernel threads are pinned to (`None`: not pinned).
    pub cores: Option<Vec<usize>>,
}

/// Largest core number `SPREAD_HOST_DEVICE_CORES` accepts (`CPU_SETSIZE - 1`).
pub const MAX_CORE: usize = 1023;

/// Largest accepted `SPREAD_STREAMS`.
pub const MAX_STREAMS: usize = 64;

/// Largest accepted `SPREAD_HOST_DEVICES`.
pub const MAX_HOST_DEVICES: usize = 64;

/// Reads variables through the lookup, keeps what each was set to (for messages that name the
/// value later, [`Config::check_devices`]) and collects the warnings.
struct Reader<F> {
    var: F,
    raw: BTreeMap<&'static str, String>,
    warnings: Vec<String>,
    fatal: Option<String>,
}

impl<F: Fn(&str) -> Option<String>> Reader<F> {
    /// The value of `name` (`None`: unset).
    fn get(&mut self, name: &'static str) -> Option<String> {
        let v = (self.var)(name)?;
        self.raw.insert(name, v.clone());
        Some(v)
    }

    /// The value of `name`, `None` when unset or blank.
    fn get_set(&mut self, name: &'static str) -> Option<String> {
        self.get(name).filter(|v| !v.trim().is_empty())
    }

    fn warn(&mut self, w: String) {
        self.warnings.push(w);
    }

    /// A whole number in `ok`: `default` when unset; reported and `default` when not one.
    fn number<T: std::str::FromStr>(
        &mut self,
        name: &'static str,
        ok: impl Fn(&T) -> bool,
        want: &str,
        default: T,
        instead: &str,
    ) -> T {
        let Some(v) = self.get(name) else {
            return default;
        };
        match v.trim().parse::<T>() {
            Ok(n) if ok(&n) => n,
            _ => {
                self.warn(format!("{name}={v:?} is not {want}; {instead}"));
                default
            }
        }
    }

    /// A value parsed by `parse`: `None` when unset or blank; reported (`{name}={v:?}: {why};
    /// {instead}`) and `None` when `parse` refuses it.
    fn parsed<T>(
        &mut self,
        name: &'static str,
        parse: impl FnOnce(&str) -> std::result::Result<T, String>,
        instead: &str,
    ) -> Option<T> {
        let v = self.get_set(name)?;
        match parse(&v) {
            Ok(t) => Some(t),
            Err(why) => {
                self.warn(format!("{name}={v:?}: {why}; {instead}"));
                None
            }
        }
    }

    /// One of `choices` (compared without case, blanks trimmed): the first when unset or blank;
    /// reported (`{name}={v:?} is not {want}; {instead}`) and the first when something else.
    fn choice<T: Copy>(
        &mut self,
        name: &'static str,
        choices: &[(&str, T)],
        want: &str,
        instead: &str,
    ) -> T {
        let first = choices[0].1;
        let Some(v) = self.get_set(name) else {
            return first;
        };
        let word = v.trim().to_ascii_lowercase();
        if let Some(&(_, t)) = choices.iter().find(|(w, _)| *w == word) {
            return t;
        }
        self.warn(format!("{name}={v:?} is not {want}; {instead}"));
        first
    }
}

/// `SPREAD_INFO`'s items.
#[derive(Default)]
struct InfoItems {
    chunks: bool,
    memory: bool,
    devices: bool,
    placement: bool,
    any: bool,
    remote: bool,
    auto: bool,
}

const INFO_ITEMS: &str = "chunks, memory, devices, placement, any, remote, auto";

fn read_info<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> InfoItems {
    let mut items = InfoItems::default();
    let value = r.get("SPREAD_INFO").unwrap_or_default();
    let mut unknown = Vec::new();
    for word in value.split(',').map(str::trim) {
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "chunks" => items.chunks = true,
            "memory" => items.memory = true,
            "devices" => items.devices = true,
            "placement" => items.placement = true,
            "any" => items.any = true,
            "remote" => items.remote = true,
            "auto" => items.auto = true,
            _ => unknown.push(format!("{word:?}")),
        }
    }
    if !unknown.is_empty() {
        r.warn(format!(
            "SPREAD_INFO={value:?}: unknown item{} {} (known: {INFO_ITEMS}); ignoring {}",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            if unknown.len() == 1 { "it" } else { "them" }
        ));
    }
    items
}

fn read_libomptarget_info<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> u32 {
    match r.get_set("LIBOMPTARGET_INFO") {
        None => 0,
        Some(v) => parse_info(&v).unwrap_or_else(|| {
            r.warn(format!(
                "LIBOMPTARGET_INFO={v:?} is not a number (decimal, 0x hexadecimal, or -1); using 0"
            ));
            0
        }),
    }
}

/// `SPREAD_CU_DEVICES`: comma-separated device numbers.
fn parse_device_list(v: &str) -> std::result::Result<Vec<i32>, String> {
    v.split(',')
        .map(|d| d.trim().parse::<i32>().ok().filter(|&d| d >= 0))
        .collect::<Option<Vec<i32>>>()
        .ok_or_else(|| "not a comma-separated list of device numbers".to_string())
}

fn read_devices<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> Vec<DeviceRequest> {
    r.parsed(
        "SPREAD_DEVICES",
        parse_devices,
        "using the default (cuda,host)",
    )
    .unwrap_or_else(|| {
        [DeviceKind::Cuda, DeviceKind::Host]
            .into_iter()
            .map(|kind| DeviceRequest { kind, count: None })
            .collect()
    })
}

fn read_gpu<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> GpuSettings {
    let mut number = |name: &'static str| -> Option<u64> {
        let v = r.get_set(name)?;
        match v.trim().parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                r.warn(format!("{name}={v:?} is not a number; ignoring it"));
                None
            }
        }
    };
    let small = |n: Option<u64>| n.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
    GpuSettings {
        heap_size: number("LIBOMPTARGET_HEAP_SIZE"),
        stack_size: number("LIBOMPTARGET_STACK_SIZE"),
        shared_memory: small(number("LIBOMPTARGET_SHARED_MEMORY_SIZE")),
        num_teams: small(number("OMP_NUM_TEAMS")),
        teams_thread_limit: small(number("OMP_TEAMS_THREAD_LIMIT")),
        rtl_debug: small(number("LIBOMPTARGET_DEVICE_RTL_DEBUG")),
        lock_mapped: r.choice(
            "LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS",
            &[
                ("0", false),
                ("false", false),
                ("off", false),
                ("no", false),
                ("1", true),
                ("true", true),
                ("on", true),
                ("yes", true),
            ],
            "a boolean (1/true/on/yes or 0/false/off/no)",
            "not locking mapped buffers",
        ),
    }
}

/// `SPREAD_REMOTE` and its companions. The companions are read (and checked) whether or not
/// `SPREAD_REMOTE` asks for MPI, so a bad value is reported before it matters.
fn read_remote<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> Option<RemoteSettings> {
    let timeout = r.number(
        "SPREAD_REMOTE_TIMEOUT",
        |s: &f64| *s > 0.0 && s.is_finite(),
        "a positive number of seconds",
        30.0,
        "using 30",
    );
    let fault = r.parsed("SPREAD_REMOTE_FAULT", Fault::parse, "no fault is injected");
    let lib = r.get_set("SPREAD_REMOTE_LIB");
    // Under an MPI launcher an unknown transport would run the whole program once per rank,
    // each rank alone: stop instead of warning.
    let launched = [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|k| (r.var)(k).is_some());
    if let Some(v) = r.get_set("SPREAD_REMOTE") {
        let word = v.trim().to_ascii_lowercase();
        if launched && !["off", "0", "none", "mpi"].contains(&word.as_str()) {
            r.fatal = Some(format!(
                "SPREAD_REMOTE={v:?} is not a known transport (mpi, or off); under mpirun each rank would run the whole program alone, so every rank stops here: set SPREAD_REMOTE=mpi"
            ));
            return None;
        }
    }
    let transport = r.choice(
        "SPREAD_REMOTE",
        &[("off", false), ("0", false), ("none", false), ("mpi", true)],
        "a known transport (mpi; or off)",
        "no remote devices",
    );
    transport.then(|| RemoteSettings {
        timeout: std::time::Duration::from_secs_f64(timeout),
        lib,
        fault,
    })
}

fn read_sched_profile<F: Fn(&str) -> Option<String>>(
    r: &mut Reader<F>,
) -> Option<crate::sched::model::ProfileFile> {
    r.parsed(
        "SPREAD_SCHED_PROFILE",
        |v| {
            let v = v.trim();
            let file = v
                .strip_prefix("load:")
                .or_else(|| v.strip_prefix("record:"))
                .unwrap_or(v);
            match crate::sched::model::ProfileFile::parse(v) {
                Some(p) if !file.trim().is_empty() => Ok(p),
                _ => Err("names no file".to_string()),
            }
        },
        "the schedules' rates are neither read nor written",
    )
}

/// `SPREAD_HOST_DEVICES` and `SPREAD_HOST_THREADS`: how many host devices there are and how
/// many threads a kernel on one may use when it runs alone (0, the fallback of an unset or bad
/// value, means no limit: `None`).
fn read_host_size<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> (usize, Option<usize>) {
    let host_devices = r.number(
        "SPREAD_HOST_DEVICES",
        |n: &usize| *n <= MAX_HOST_DEVICES,
        &format!("a number from 0 to {MAX_HOST_DEVICES}"),
        4,
        "using 4",
    );
    let host_threads = Some(r.number(
        "SPREAD_HOST_THREADS",
        |n: &usize| *n >= 1,
        "a positive number",
        0,
        "ignoring it",
    ))
    .filter(|&n| n >= 1);
    (host_devices, host_threads)
}

/// `SPREAD_SCHEDULE`: the default schedule, whose message lists every kind so that a typo
/// shows what was meant.
fn read_schedule<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> Option<crate::sched::Spec> {
    r.parsed(
        "SPREAD_SCHEDULE",
        |v| {
            crate::sched::Spec::parse(v).ok_or_else(|| {
                "not KIND[,CHUNK] with KIND static, dynamic, adaptive or static_opt and CHUNK > 0"
                    .to_string()
            })
        },
        "using static",
    )
}

/// `SPREAD_HOST_DEVICE_THREADS` and `SPREAD_HOST_DEVICE_CORES`: the size of each host device,
/// one entry per device ([`Config::host_shape`] reads the two together).
fn read_host_shapes<F: Fn(&str) -> Option<String>>(
    r: &mut Reader<F>,
) -> (Vec<usize>, Vec<Vec<usize>>) {
    // (Set but blank is an error here: a list of no counts.)
    let host_device_threads = match r.get("SPREAD_HOST_DEVICE_THREADS") {
        None => Vec::new(),
        Some(v) => parse_thread_list(&v).unwrap_or_else(|why| {
            r.warn(format!(
                "SPREAD_HOST_DEVICE_THREADS={v:?}: {why}; using the default (threads shared among host devices)"
            ));
            Vec::new()
        }),
    };
    let host_device_cores = r
        .parsed(
            "SPREAD_HOST_DEVICE_CORES",
            parse_core_lists,
            "using the default (no pinning)",
        )
        .unwrap_or_default();
    (host_device_threads, host_device_cores)
}

/// `SPREAD_AUTO` and `SPREAD_AUTO_MIN`: whether and where launches are spread automatically,
/// and the smallest block worth a launch of its own.
fn read_auto<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> (Option<Vec<i32>>, u64) {
    let auto = r
        .parsed("SPREAD_AUTO", parse_auto, "automatic spreading is off")
        .flatten();
    let auto_min = r.number(
        "SPREAD_AUTO_MIN",
        |n: &u64| *n > 0,
        "a positive number of iterations",
        AUTO_MIN_DEFAULT,
        &format!("using {AUTO_MIN_DEFAULT}"),
    );
    (auto, auto_min)
}

/// `SPREAD_TRACE`, `LIBOMPTARGET_PROFILE` and `LIBOMPTARGET_PROFILE_GRANULARITY`: the files
/// written at exit (Spread's trace, libomptarget's time trace) and the time trace's finest
/// event. Only the granularity is checked here: a path is taken as it is.
fn read_traces<F: Fn(&str) -> Option<String>>(
    r: &mut Reader<F>,
) -> (Option<String>, Option<String>, u64) {
    let trace = r.get_set("SPREAD_TRACE");
    let libomptarget_profile = r.get_set("LIBOMPTARGET_PROFILE");
    let profile_granularity_us = r.number(
        "LIBOMPTARGET_PROFILE_GRANULARITY",
        |_: &u64| true,
        "a number of microseconds",
        500,
        "using 500",
    );
    (trace, libomptarget_profile, profile_granularity_us)
}

/// `SPREAD_NOWAIT` and `SPREAD_TEAMS`: where Spread departs from libomp's execution model
/// (who completes `nowait` constructs, how many teams a host device forms).
fn read_execution<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> (NowaitMode, bool) {
    let nowait = r.choice(
        "SPREAD_NOWAIT",
        &[
            ("spread", NowaitMode::Spread),
            ("libomp", NowaitMode::Libomp),
        ],
        "spread or libomp",
        "using spread",
    );
    let exact_teams = r.choice(
        "SPREAD_TEAMS",
        &[("libomp", false), ("exact", true)],
        "libomp or exact",
        "using libomp",
    );
    (nowait, exact_teams)
}

/// `SPREAD_GUARD` and `SPREAD_STRICT`: the memory checks of host devices. Their tables list
/// the default first (`choice` falls back to it): guard regions on, strict checks off.
fn read_checks<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> (bool, bool) {
    let guard = r.choice(
        "SPREAD_GUARD",
        &[
            ("1", true),
            ("on", true),
            ("yes", true),
            ("true", true),
            ("0", false),
            ("off", false),
            ("no", false),
            ("false", false),
        ],
        "1 or 0",
        "guard regions stay on",
    );
    let strict = r.choice(
        "SPREAD_STRICT",
        &[
            ("0", false),
            ("off", false),
            ("no", false),
            ("false", false),
            ("1", true),
            ("on", true),
            ("yes", true),
            ("true", true),
        ],
        "1 or 0",
        "strict checks stay off",
    );
    (guard, strict)
}

/// `SPREAD_STREAMS` and `SPREAD_ALLOC_CACHE`: what each device keeps for the constructs that
/// use it, its queues and its cache of freed memory.
fn read_queues<F: Fn(&str) -> Option<String>>(r: &mut Reader<F>) -> (usize, Option<usize>) {
    let streams_per_device = r.number(
        "SPREAD_STREAMS",
        |n: &usize| (1..=MAX_STREAMS).contains(n),
        &format!("a number from 1 to {MAX_STREAMS}"),
        8,
        "using 8",
    );
    let alloc_cache = r.parsed(
        "SPREAD_ALLOC_CACHE",
        |v| parse_bytes(v).ok_or_else(|| "not a size (bytes, or with K, M or G)".to_string()),
        "using the default",
    );
    (streams_per_device, alloc_cache)
}

impl Config {
    /// Reads the settings through `var` (the process environment in production). A bad value
    /// is reported in [`Config::warnings`] (the variable, the value, what is wrong, what is used
    /// instead) and the default used; values naming devices are checked later, against the
    /// devices found ([`Config::check_devices`]).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Self {
        let mut r = Reader {
            var,
            raw: BTreeMap::new(),
            warnings: Vec::new(),
            fatal: None,
        };
        let r = &mut r;
        // One reader per family, in the order the variables have always been read: warnings
        // come out in that order.
        let (host_devices, host_threads) = read_host_size(r);
        let schedule = read_schedule(r);
        let sched_profile = read_sched_profile(r);
        let (host_device_threads, host_device_cores) = read_host_shapes(r);
        let info = read_libomptarget_info(r);
        let items = read_info(r);
        let (auto, auto_min) = read_auto(r);
        let cu_devices = r.parsed("SPREAD_CU_DEVICES", parse_device_list, "using 0,1,2,...");
        let (trace, libomptarget_profile, profile_granularity_us) = read_traces(r);
        let devices = read_devices(r);
        let profile = r.choice(
            "SPREAD_PROFILE",
            &[("off", false), ("0", false), ("summary", true), ("1", true)],
            "summary (or off)",
            "no profile is printed",
        );
        let (nowait, exact_teams) = read_execution(r);
        let (guard, strict) = read_checks(r);
        let (streams_per_device, alloc_cache) = read_queues(r);
        let gpu = read_gpu(r);
        let remote = read_remote(r);
        let sharing = sharing::Settings::from_lookup(&r.var, &mut r.warnings);
        // Checked against the devices later, and named with its value then.
        let _ = r.get("SPREAD_KIND_ALIAS");
        Config {
            remote,
            info_remote: items.remote,
            auto,
            auto_min,
            info_auto: items.auto,
            host_devices,
            host_threads,
            host_device_threads,
            host_device_cores,
            info,
            schedule,
            sched_profile,
            info_chunks: items.chunks,
            info_memory: items.memory,
            trace,
            info_devices: items.devices,
            info_placement: items.placement,
            info_any: items.any,
            cu_devices,
            devices,
            nowait,
            exact_teams,
            profile,
            libomptarget_profile,
            profile_granularity_us,
            guard,
            strict,
            streams_per_device,
            alloc_cache,
            gpu,
            sharing,
            raw: std::mem::take(&mut r.raw),
            warnings: std::mem::take(&mut r.warnings),
            fatal: r.fatal.take(),
        }
    }

    /// What the variable `name` was set to when the settings were read (empty: unset).
    pub fn raw(&self, name: &str) -> &str {
        self.raw.get(name).map_or("", String::as_str)
    }

    /// Reads the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// The size `SPREAD_HOST_DEVICE_THREADS` and `SPREAD_HOST_DEVICE_CORES` give the host
    /// device that is the `index`-th host device (counting host devices only).
    pub fn host_shape(&self, index: usize) -> HostShape {
        HostShape {
            threads: self
                .host_device_threads
                .get(index)
                .or(self.host_device_threads.last())
                .copied(),
            cores: self
                .host_device_cores
                .get(index)
                .filter(|c| !c.is_empty())
                .cloned(),
        }
    }
}

/// `SPREAD_HOST_DEVICE_THREADS`: comma-separated positive thread counts (`4,2`).
/// Default of `SPREAD_AUTO_MIN`: a block costs a launch on its device (about 15 us on a host
/// device), which a few thousand iterations of a simple loop take.
pub const AUTO_MIN_DEFAULT: u64 = 8192;

/// `SPREAD_AUTO`: `0`, `off` or empty: off; `1`, `on` or `all`: every device; else a
/// comma-separated list of device numbers (at least one, none repeated).
pub fn parse_auto(v: &str) -> std::result::Result<Option<Vec<i32>>, String> {
    match v.trim() {
        "" | "0" | "off" | "no" => return Ok(None),
        "1" | "on" | "all" | "yes" => return Ok(Some(Vec::new())),
        _ => {}
    }
    let mut list = Vec::new();
    for d in v.split(',').map(str::trim) {
        let d: i32 = d.parse().ok().filter(|&d| d >= 0).ok_or_else(|| {
            format!("{d:?} is not a device number (expected 1, 0 or a list such as 0,1,2)")
        })?;
        if list.contains(&d) {
            return Err(format!("device {d} is listed twice"));
        }
        list.push(d);
    }
    // A one-entry list is a device list (`SPREAD_AUTO=1` alone means "on").
    Ok(Some(list))
}

fn parse_thread_list(v: &str) -> std::result::Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for item in v.split(',').map(str::trim) {
        match item.parse::<usize>() {
            Ok(n) if n >= 1 => out.push(n),
            _ => return Err(format!("{item:?} is not a positive number")),
        }
    }
    Ok(out)
}

/// `SPREAD_HOST_DEVICE_CORES`: one Linux cpulist per host device, separated by `;`
/// (`0-3;4,5`). An empty entry leaves that device unpinned.
fn parse_core_lists(v: &str) -> std::result::Result<Vec<Vec<usize>>, String> {
    if v.trim().is_empty() {
        return Ok(Vec::new());
    }
    v.split(';').map(parse_cpulist).collect()
}

/// One Linux cpulist (`man 7 cpuset`): comma-separated `N`, `N-M` or `N-M:STRIDE` items, sorted
/// and without repeats in the result.
pub fn parse_cpulist(list: &str) -> std::result::Result<Vec<usize>, String> {
    let core = |s: &str| -> std::result::Result<usize, String> {
        match s.trim().parse::<usize>() {
            Ok(n) if n <= MAX_CORE => Ok(n),
            Ok(n) => Err(format!("core {n} is above {MAX_CORE}")),
            Err(_) => Err(format!("{:?} is not a core number", s.trim())),
        }
    };
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (range, stride) = match item.split_once(':') {
            Some((r, s)) => match s.trim().parse::<usize>() {
                Ok(n) if n >= 1 => (r, n),
                _ => {
                    return Err(format!(
                        "{item:?}: the stride after ':' is not a positive number"
                    ))
                }
            },
            None => (item, 1),
        };
        let (lo, hi) = match range.split_once('-') {
            Some((a, b)) => (core(a)?, core(b)?),
            None => {
                let n = core(range)?;
                (n, n)
            }
        };
        if lo > hi {
            return Err(format!("{item:?}: the range runs backwards"));
        }
        out.extend((lo..=hi).step_by(stride));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Writes cores as a Linux cpulist, ranges folded (`0-3,6`).
pub fn format_cpulist(cores: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cores.len() {
        let mut j = i;
        while j + 1 < cores.len() && cores[j + 1] == cores[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            cores[i].to_string()
        } else {
            format!("{}-{}", cores[i], cores[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// A byte count with an optional binary suffix: `512`, `64K`, `256M`, `2G`.
fn parse_bytes(v: &str) -> Option<usize> {
    let v = v.trim();
    let (digits, shift) = match v.chars().last()?.to_ascii_uppercase() {
        'K' => (&v[..v.len() - 1], 10),
        'M' => (&v[..v.len() - 1], 20),
        'G' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    digits
        .trim()
        .parse::<usize>()
        .ok()?
        .checked_mul(1usize << shift)
}

/// `LIBOMPTARGET_INFO` accepts decimal, hex (`0x`) and -1 (everything); `None` for anything
/// else.
fn parse_info(v: &str) -> Option<u32> {
    let v = v.trim();
    let parsed = if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()
    } else {
        v.parse::<i64>().ok()
    };
    parsed.map(|n| n as u32)
}

/// A list as the user would write it: `0,2,5`.
fn format_list<T: std::fmt::Display>(list: &[T]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn parses_kinds_counts_and_order() {
        let r = parse_devices("cuda, host:2").expect("valid");
        assert_eq!(
            r,
            vec![
                DeviceRequest {
                    kind: DeviceKind::Cuda,
                    count: None
                },
                DeviceRequest {
                    kind: DeviceKind::Host,
                    count: Some(2)
                }
            ]
        );
        assert_eq!(parse_devices("host:4").expect("valid")[0].count, Some(4));
        assert_eq!(
            parse_devices("NVIDIA:1").expect("valid")[0].kind,
            DeviceKind::Cuda
        );
        assert!(parse_devices("").expect("valid").is_empty());
    }

    #[test]
    fn rejects_unknown_kinds_bad_counts_and_repeats() {
        assert!(parse_devices("tpu")
            .unwrap_err()
            .contains("unknown device kind"));
        assert!(parse_devices("host:x")
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_devices("host,host:2").unwrap_err().contains("twice"));
    }

    pub(super) fn cfg(pairs: &[(&str, &str)]) -> Config {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn defaults_match_libomptarget() {
        let c = cfg(&[]);
        assert_eq!(c.host_devices, 4);
        assert_eq!(c.info, 0);
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn teams_setting() {
        assert!(cfg(&[]).guard);
        assert!(!cfg(&[("SPREAD_GUARD", "0")]).guard);
        assert!(!cfg(&[("SPREAD_GUARD", "off")]).guard);
        assert!(cfg(&[("SPREAD_GUARD", "1")]).guard);
        let bad = cfg(&[("SPREAD_GUARD", "maybe")]);
        assert!(bad.guard && bad.warnings[0].contains("SPREAD_GUARD"));
        assert!(!cfg(&[]).strict);
        let c = cfg(&[("SPREAD_REMOTE", "mpich")]);
        assert!(c.fatal.is_none() && c.warnings[0].contains("SPREAD_REMOTE"));
        let c = cfg(&[("SPREAD_REMOTE", "tcp"), ("OMPI_COMM_WORLD_SIZE", "4")]);
        assert!(c.warnings.is_empty() && c.fatal.is_some_and(|f| f.contains("every rank stops")));
        assert!(cfg(&[("SPREAD_REMOTE", "mpi"), ("PMI_SIZE", "2")])
            .fatal
            .is_none());
        assert!(cfg(&[("SPREAD_STRICT", "1")]).strict);
        let bad = cfg(&[("SPREAD_STRICT", "very")]);
        assert!(!bad.strict && bad.warnings[0].contains("SPREAD_STRICT"));
        assert!(!cfg(&[]).exact_teams);
        assert!(cfg(&[("SPREAD_TEAMS", "exact")]).exact_teams);
        assert!(cfg(&[("SPREAD_TEAMS", " Exact ")]).exact_teams);
        assert!(!cfg(&[("SPREAD_TEAMS", "libomp")]).exact_teams);
        let bad = cfg(&[("SPREAD_TEAMS", "all")]);
        assert!(!bad.exact_teams);
        assert!(bad.warnings[0].contains("SPREAD_TEAMS"));
    }

    #[test]
    fn values_and_bad_values() {
        assert_eq!(cfg(&[("SPREAD_HOST_DEVICES", "2")]).host_devices, 2);
        let bad = cfg(&[("SPREAD_HOST_DEVICES", "many")]);
        assert_eq!(bad.host_devices, 4);
        assert_eq!(bad.warnings.len(), 1);
        assert_eq!(cfg(&[("LIBOMPTARGET_INFO", "0x20")]).info, 0x20);
        assert_eq!(cfg(&[("LIBOMPTARGET_INFO", "-1")]).info, u32::MAX);
        assert_eq!(cfg(&[("SPREAD_HOST_THREADS", "3")]).host_threads, Some(3));
        assert_eq!(cfg(&[("SPREAD_HOST_THREADS", "0")]).host_threads, None);
        assert!(cfg(&[("SPREAD_INFO", "chunks")]).info_chunks);
        assert_eq!(
            cfg(&[("SPREAD_SCHEDULE", "dynamic,8")]).schedule,
            crate::sched::Spec::parse("dynamic,8")
        );
        let bad = cfg(&[("SPREAD_SCHEDULE", "guided")]);
        assert_eq!((bad.schedule, bad.warnings.len()), (None, 1));
        assert!(cfg(&[("SPREAD_INFO", "devices,chunks")]).info_devices);
        assert!(cfg(&[("SPREAD_INFO", "placement")]).info_placement);
        assert!(cfg(&[("SPREAD_INFO", "chunks,auto")]).info_auto);
        assert_eq!(cfg(&[]).auto, None);
        assert_eq!(cfg(&[]).auto_min, AUTO_MIN_DEFAULT);
        assert_eq!(cfg(&[("SPREAD_AUTO_MIN", "1")]).auto_min, 1);
        assert!(cfg(&[("SPREAD_AUTO_MIN", "0")]).warnings[0].contains("SPREAD_AUTO_MIN"));
        assert_eq!(cfg(&[("SPREAD_AUTO", "1")]).auto, Some(vec![]));
        assert_eq!(cfg(&[("SPREAD_AUTO", "0")]).auto, None);
        assert_eq!(cfg(&[("SPREAD_AUTO", "2, 0,1")]).auto, Some(vec![2, 0, 1]));
        let c = cfg(&[("SPREAD_AUTO", "0,x")]);
        assert_eq!(c.auto, None);
        assert!(c.warnings[0].contains("SPREAD_AUTO"), "{:?}", c.warnings);
        assert!(cfg(&[("SPREAD_AUTO", "1,1")]).warnings[0].contains("twice"));
        let cu = cfg(&[("SPREAD_CU_DEVICES", "2, 0")]);
        assert_eq!(cu.cu_devices, Some(vec![2, 0]));
        let bad = cfg(&[("SPREAD_CU_DEVICES", "1,x")]);
        assert_eq!((bad.cu_devices, bad.warnings.len()), (None, 1));
        assert_eq!(cfg(&[("SPREAD_STREAMS", "8")]).streams_per_device, 8);
        assert_eq!(cfg(&[("SPREAD_STREAMS", "0")]).warnings.len(), 1);
        assert_eq!(
            cfg(&[("SPREAD_ALLOC_CACHE", "64M")]).alloc_cache,
            Some(64 << 20)
        );
        assert_eq!(cfg(&[("SPREAD_ALLOC_CACHE", "0")]).alloc_cache, Some(0));
        assert_eq!(cfg(&[("SPREAD_ALLOC_CACHE", "lots")]).warnings.len(), 1);
        assert_eq!(cfg(&[("SPREAD_DEVICES", "host:2")]).devices.len(), 1);
        assert_eq!(cfg(&[("SPREAD_DEVICES", "tpu")]).devices.len(), 2);
        assert_eq!(cfg(&[("SPREAD_INFO", "chunk")]).warnings.len(), 1);
        let gpu = cfg(&[
            ("OMP_NUM_TEAMS", "100"),
            ("LIBOMPTARGET_HEAP_SIZE", "1048576"),
            ("LIBOMPTARGET_STACK_SIZE", "big"),
        ]);
        assert_eq!(gpu.gpu.num_teams, 100);
        assert_eq!(gpu.gpu.heap_size, Some(1 << 20));
        assert_eq!(gpu.gpu.stack_size, None);
        assert_eq!(gpu.warnings.len(), 1);
        assert!(!cfg(&[]).gpu.lock_mapped);
        let lock = |v| cfg(&[("LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS", v)]);
        assert!(lock("1").gpu.lock_mapped && lock("TRUE").gpu.lock_mapped);
        assert!(!lock("off").gpu.lock_mapped && lock("off").warnings.is_empty());
        assert!(!lock("maybe").gpu.lock_mapped);
        assert_eq!(lock("maybe").warnings.len(), 1);
        assert_eq!(
            cfg(&[("SPREAD_TRACE", "t.json")]).trace.as_deref(),
            Some("t.json")
        );
    }

    /// A value of every variable, all valid: nothing to report.
    const GOOD: &[(&str, &str)] = &[
        ("SPREAD_HOST_DEVICES", "3"),
        ("SPREAD_HOST_THREADS", "2"),
        ("SPREAD_SCHEDULE", "dynamic,4"),
        ("SPREAD_SCHED_PROFILE", "load:rates.txt"),
        ("SPREAD_HOST_DEVICE_THREADS", "2,1"),
        ("SPREAD_HOST_DEVICE_CORES", "0;1"),
        ("LIBOMPTARGET_INFO", "0x20"),
        ("SPREAD_INFO", "chunks, auto"),
        ("SPREAD_AUTO", "0,1"),
        ("SPREAD_AUTO_MIN", "16"),
        ("SPREAD_CU_DEVICES", "1,0"),
        ("SPREAD_TRACE", "t.html"),
        ("SPREAD_DEVICES", "host:2,cuda"),
        ("SPREAD_PROFILE", "summary"),
        ("SPREAD_NOWAIT", "libomp"),
        ("SPREAD_TEAMS", "exact"),
        ("SPREAD_STREAMS", "4"),
        ("SPREAD_ALLOC_CACHE", "1G"),
        ("LIBOMPTARGET_HEAP_SIZE", "1024"),
        ("LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS", "on"),
        ("SPREAD_REMOTE", "off"),
        ("SPREAD_REMOTE_TIMEOUT", "2.5"),
        ("SPREAD_REMOTE_FAULT", "1:leave:exit"),
        ("SPREAD_TOKEN_POOL", "global"),
        ("SPREAD_ANY_POLICY", "first"),
        ("SPREAD_STEAL", "0"),
        ("SPREAD_COHERENCE", "lazy"),
        ("SPREAD_ANY_SLOTS", "cpu=2"),
        ("SPREAD_ANY_HOST_THREADS", "2"),
        ("SPREAD_KIND_ALIAS", "nvidia:1"),
    ];

    #[test]
    fn a_good_environment_reports_nothing() {
        let c = cfg(GOOD);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.raw("SPREAD_AUTO"), "0,1");
        assert_eq!(c.raw("SPREAD_KIND_ALIAS"), "nvidia:1");
        assert_eq!(c.raw("SPREAD_NOT_SET"), "");
    }

    /// Every variable with a bad value: one warning each, naming the variable and the value,
    /// saying what is wrong and what is used instead, and the setting left at its default.
    #[test]
    fn every_bad_value_is_reported_once_with_what_is_used_instead() {
        let bad: &[(&str, &str, &str)] = &[
            ("SPREAD_HOST_DEVICES", "many", "using 4"),
            ("SPREAD_HOST_DEVICES", "65", "using 4"),
            ("SPREAD_HOST_THREADS", "0", "ignoring it"),
            ("SPREAD_SCHEDULE", "guided", "using static"),
            ("SPREAD_SCHED_PROFILE", "load:", "neither read nor written"),
            (
                "SPREAD_SCHED_PROFILE",
                "record: ",
                "neither read nor written",
            ),
            ("SPREAD_HOST_DEVICE_THREADS", "2,x", "using the default"),
            (
                "SPREAD_HOST_DEVICE_CORES",
                "0-x",
                "using the default (no pinning)",
            ),
            ("LIBOMPTARGET_INFO", "all", "using 0"),
            ("SPREAD_INFO", "chunk,mem", "ignoring them"),
            ("SPREAD_AUTO", "0,x", "automatic spreading is off"),
            ("SPREAD_AUTO", "1,1", "automatic spreading is off"),
            ("SPREAD_AUTO_MIN", "-3", "using 8192"),
            ("SPREAD_CU_DEVICES", "1,-1", "using 0,1,2,..."),
            (
                "SPREAD_DEVICES",
                "host:100",
                "using the default (cuda,host)",
            ),
            ("SPREAD_DEVICES", "tpu", "using the default (cuda,host)"),
            ("SPREAD_PROFILE", "full", "no profile is printed"),
            ("SPREAD_NOWAIT", "helpers", "using spread"),
            ("SPREAD_TEAMS", "all", "using libomp"),
            ("SPREAD_STREAMS", "65", "using 8"),
            ("SPREAD_ALLOC_CACHE", "lots", "using the default"),
            ("LIBOMPTARGET_STACK_SIZE", "big", "ignoring it"),
            (
                "LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS",
                "maybe",
                "not locking",
            ),
            ("SPREAD_REMOTE", "tcp", "no remote devices"),
            ("SPREAD_REMOTE_TIMEOUT", "0", "using 30"),
            ("SPREAD_REMOTE_FAULT", "1:2", "no fault is injected"),
            ("SPREAD_TOKEN_POOL", "pool", "using the default"),
            ("SPREAD_ANY_POLICY", "best", "using the default"),
            ("SPREAD_STEAL", "yes", "using the default"),
            ("SPREAD_COHERENCE", "eager", "using the default"),
            ("SPREAD_ANY_SLOTS", "gpu=1", "using the default"),
            ("SPREAD_ANY_HOST_THREADS", "x", "using the default"),
            ("SPREAD_KIND_ALIAS", "gpu:0", "using the default"),
        ];
        let defaults = cfg(&[]);
        for &(name, value, instead) in bad {
            let c = cfg(&[(name, value)]);
            assert_eq!(c.warnings.len(), 1, "{name}={value}: {:?}", c.warnings);
            let w = &c.warnings[0];
            assert!(w.starts_with(&format!("{name}={value:?}")), "{w}");
            assert!(w.contains(instead), "{name}: {w}");
            let mut c = c;
            c.warnings.clear();
            c.raw.clear();
            let mut d = defaults.clone();
            d.raw.clear();
            assert_eq!(c, d, "{name}={value} changed a setting");
        }
    }

    #[test]
    fn blank_values_are_unset() {
        for name in [
            "SPREAD_DEVICES",
            "SPREAD_CU_DEVICES",
            "SPREAD_AUTO",
            "SPREAD_TRACE",
        ] {
            let c = cfg(&[(name, " ")]);
            assert!(c.warnings.is_empty(), "{name}: {:?}", c.warnings);
            assert_eq!(c.devices, cfg(&[]).devices, "{name}");
        }
    }

    #[test]
    fn host_device_threads() {
        let c = cfg(&[("SPREAD_HOST_DEVICE_THREADS", "4, 2")]);
        assert_eq!(c.host_device_threads, vec![4, 2]);
        assert!(c.warnings.is_empty());
        assert_eq!(c.host_shape(0).threads, Some(4));
        assert_eq!(c.host_shape(1).threads, Some(2));
        // The last entry is repeated for the remaining devices.
        assert_eq!(c.host_shape(3).threads, Some(2));
        assert_eq!(c.host_shape(3).cores, None);
        assert_eq!(cfg(&[]).host_shape(0), HostShape::default());
        for bad in ["", "4,0", "4,,2", "two", "-1"] {
            let c = cfg(&[("SPREAD_HOST_DEVICE_THREADS", bad)]);
            assert!(c.host_device_threads.is_empty(), "{bad:?}");
            assert_eq!(c.warnings.len(), 1, "{bad:?}");
            assert!(c.warnings[0].contains("SPREAD_HOST_DEVICE_THREADS"));
            assert!(c.warnings[0].contains(&format!("{bad:?}")));
        }
    }

    #[test]
    fn host_device_cores() {
        let c = cfg(&[("SPREAD_HOST_DEVICE_CORES", "0-3;4,5")]);
        assert!(c.warnings.is_empty());
        assert_eq!(c.host_shape(0).cores, Some(vec![0, 1, 2, 3]));
        // The thread count follows from the cores the device gets (see device::host).
        assert_eq!(c.host_shape(0).threads, None);
        assert_eq!(c.host_shape(1).cores, Some(vec![4, 5]));
        // Core lists are not repeated: further devices are not pinned.
        assert_eq!(c.host_shape(2), HostShape::default());
        // An empty entry leaves its device unpinned.
        let c = cfg(&[("SPREAD_HOST_DEVICE_CORES", ";1")]);
        assert_eq!(c.host_shape(0).cores, None);
        assert_eq!(c.host_shape(1).cores, Some(vec![1]));
        // Both variables: cores decide pinning, threads decide the count.
        let c = cfg(&[
            ("SPREAD_HOST_DEVICE_CORES", "0-3;4,5"),
            ("SPREAD_HOST_DEVICE_THREADS", "2"),
        ]);
        assert_eq!(
            c.host_shape(0),
            HostShape {
                threads: Some(2),
                cores: Some(vec![0, 1, 2, 3])
            }
        );
        assert_eq!(c.host_shape(1).threads, Some(2));
        for bad in ["0-x", "3-1", "0-3;9999", "0-7:0", "a;b"] {
            let c = cfg(&[("SPREAD_HOST_DEVICE_CORES", bad)]);
            assert!(c.host_device_cores.is_empty(), "{bad:?}");
            assert_eq!(c.warnings.len(), 1, "{bad:?}");
            assert!(c.warnings[0].contains("SPREAD_HOST_DEVICE_CORES"));
        }
    }

    #[test]
    fn cpulists() {
        assert_eq!(parse_cpulist("0-2,7,5").unwrap(), vec![0, 1, 2, 5, 7]);
        assert_eq!(parse_cpulist("0-7:2").unwrap(), vec![0, 2, 4, 6]);
        assert_eq!(parse_cpulist(" 1 , 1 ").unwrap(), vec![1]);
        assert_eq!(parse_cpulist("").unwrap(), Vec::<usize>::new());
        assert!(parse_cpulist("1024").is_err());
        assert_eq!(format_cpulist(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(format_cpulist(&[]), "");
    }
}
