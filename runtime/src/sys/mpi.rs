//! The MPI transport of remote devices: `libspread_remote_mpi.so`, loaded only when
//! `SPREAD_REMOTE=mpi` asks for it, so the runtime itself never links MPI. Its C ABI (version 1)
//! is documented in `remote-mpi/src/lib.rs`; every call is made by the communication thread.

use super::transport::{Place, Transport};
use libloading::os::unix::{Library, Symbol, RTLD_GLOBAL, RTLD_NOW};
use std::collections::VecDeque;
use std::ffi::c_char;

/// The plugin's file name.
pub const PLUGIN: &str = "libspread_remote_mpi.so";

type InitFn = unsafe extern "C" fn(
    *mut i32,
    *mut i32,
    *mut i32,
    *mut i32,
    *mut c_char,
    usize,
    *mut c_char,
    usize,
) -> i32;
type IsendFn = unsafe extern "C" fn(i32, i32, *const u8, usize, *mut u64) -> i32;
type TestFn = unsafe extern "C" fn(u64, *mut i32) -> i32;
type ImprobeFn = unsafe extern "C" fn(*mut i32, *mut i32, *mut i32, *mut usize, *mut u64) -> i32;
type MrecvFn = unsafe extern "C" fn(u64, *mut u8, usize) -> i32;
type AbortFn = unsafe extern "C" fn(i32);
type FinalizeFn = unsafe extern "C" fn() -> i32;
type ErrorStringFn = unsafe extern "C" fn(i32, *mut c_char, usize);
type VersionFn = unsafe extern "C" fn() -> u32;

/// The tag every batch travels with.
const TAG: i32 = 1;

/// MPI through the plugin.
pub struct MpiTransport {
    place: Place,
    isend: IsendFn,
    test: TestFn,
    improbe: ImprobeFn,
    mrecv: MrecvFn,
    abort: AbortFn,
    finalize: FinalizeFn,
    error_string: ErrorStringFn,
    /// Sends in flight with the buffers MPI reads from.
    in_flight: VecDeque<(u64, Vec<u8>)>,
    _lib: Library,
}

/// A message the plugin wrote: the buffer is zero-initialised and the plugin writes a
/// NUL-terminated string shorter than its length. Read up to the first NUL, within the buffer
/// (all of it without one), so no raw read is needed.
fn text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where the plugin is: `SPREAD_REMOTE_LIB`, else next to this runtime library, else the
/// loader's search path.
fn plugin_path(explicit: Option<&str>) -> String {
    if let Some(p) = explicit {
        return p.to_string();
    }
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads the address of one of this library's functions and fills `info`.
    let ok = unsafe { libc::dladdr(plugin_path as *const libc::c_void, info.as_mut_ptr()) };
    if ok != 0 {
        // SAFETY: dladdr succeeded, so `info` is initialised; dli_fname is a NUL-terminated path
        // owned by the loader for as long as this library stays loaded.
        let fname = unsafe { info.assume_init().dli_fname };
        // SAFETY: `fname` is null or the loader's NUL-terminated path (above).
        if let Some(me) = unsafe { super::mem::c_string(fname) } {
            if let Some(dir) = std::path::Path::new(&me).parent() {
                let p = dir.join(PLUGIN);
                if p.exists() {
                    return p.to_string_lossy().into_owned();
                }
            }
        }
    }
    PLUGIN.to_string()
}

/// Whether the program itself uses MPI (it is linked against an MPI library).
pub fn program_uses_mpi() -> bool {
    super::dl::global_symbol("MPI_Init").is_some()
        || super::dl::global_symbol("MPI_Init_thread").is_some()
}

impl MpiTransport {
    /// Loads the plugin and joins the MPI job (on the calling thread, which makes every later
    /// call).
    pub fn open(explicit: Option<&str>) -> Result<Self, String> {
        if program_uses_mpi() {
            return Err(
                "the program itself uses MPI (it links an MPI library); SPREAD_REMOTE=mpi \
                 runs unmodified OpenMP programs whose MPI ranks all belong to Spread, so unset \
                 SPREAD_REMOTE for this program"
                    .to_string(),
            );
        }
        let path = plugin_path(explicit);
        // SAFETY: loading the plugin runs its and MPI's constructors, which is what joining the
        // job means. RTLD_GLOBAL: some Open MPI builds load components that resolve libmpi's
        // and libopen-pal's symbols in the global scope (Debian's 4.1.4 works either way; the
        // program itself uses no MPI, so nothing else can bind to them).
        let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| {
            format!(
                "cannot load the MPI transport {path}: {e} (build it with scripts/setup.sh --mpi \
                 and scripts/build.sh, or set SPREAD_REMOTE_LIB)"
            )
        })?;
        // SAFETY: each symbol is looked up by the name and C signature of the plugin's ABI
        // version 1 (checked first); the function pointers stay valid while `lib` is loaded,
        // and `lib` lives in the transport.
        unsafe {
            let version: Symbol<VersionFn> = lib
                .get(b"spread_mpi_abi_version\0")
                .map_err(|e| format!("{path} is not Spread's MPI transport: {e}"))?;
            if version() != 1 {
                return Err(format!(
                    "{path} speaks ABI version {}, this runtime version 1",
                    version()
                ));
            }
            let get = |name: &[u8]| -> Result<*const (), String> {
                lib.get::<*const ()>(name)
                    .map(|s| *s)
                    .map_err(|e| format!("{path}: {e}"))
            };
            let init: InitFn = std::mem::transmute(get(b"spread_mpi_init\0")?);
            let isend: IsendFn = std::mem::transmute(get(b"spread_mpi_isend\0")?);
            let test: TestFn = std::mem::transmute(get(b"spread_mpi_test\0")?);
            let improbe: ImprobeFn = std::mem::transmute(get(b"spread_mpi_improbe\0")?);
            let mrecv: MrecvFn = std::mem::transmute(get(b"spread_mpi_mrecv\0")?);
            let abort: AbortFn = std::mem::transmute(get(b"spread_mpi_abort\0")?);
            let finalize: FinalizeFn = std::mem::transmute(get(b"spread_mpi_finalize\0")?);
            let error_string: ErrorStringFn =
                std::mem::transmute(get(b"spread_mpi_error_string\0")?);
            let (mut rank, mut size, mut node, mut tag_ub) = (0i32, 0i32, 0i32, 0i32);
            let mut host = [0 as c_char; 256];
            let mut err = [0 as c_char; 512];
            let rc = init(
                &mut rank,
                &mut size,
                &mut node,
                &mut tag_ub,
                host.as_mut_ptr(),
                host.len() - 1,
                err.as_mut_ptr(),
                err.len() - 1,
            );
            if rc != 0 {
                return Err(format!("MPI initialisation failed: {}", text(&err)));
            }
            Ok(MpiTransport {
                place: Place {
                    rank: rank as usize,
                    size: size as usize,
                    host: text(&host),
                },
                isend,
                test,
                improbe,
                mrecv,
                abort,
                finalize,
                error_string,
                in_flight: VecDeque::new(),
                _lib: lib,
            })
        }
    }

    fn describe(&self, code: i32) -> String {
        let mut buf = [0 as c_char; 512];
        // SAFETY: the plugin writes at most len bytes, NUL included, into the buffer.
        unsafe { (self.error_string)(code, buf.as_mut_ptr(), buf.len() - 1) };
        format!("MPI error {code}: {}", text(&buf))
    }
}

impl Transport for MpiTransport {
    fn place(&self) -> &Place {
        &self.place
    }

    fn send(&mut self, dest: usize, batch: Vec<u8>) -> Result<(), String> {
        let mut req = 0u64;
        // SAFETY: the buffer stays alive and unmoved (its heap block) in `in_flight` until
        // MPI_Test reports the send complete.
        let rc = unsafe { (self.isend)(dest as i32, TAG, batch.as_ptr(), batch.len(), &mut req) };
        if rc != 0 {
            return Err(self.describe(rc));
        }
        self.in_flight.push_back((req, batch));
        Ok(())
    }

    fn progress(&mut self) -> Result<usize, String> {
        let mut i = 0;
        while i < self.in_flight.len() {
            let mut done = 0i32;
            // SAFETY: the handle came from isend and was not released (it leaves the queue when
            // done).
            let rc = unsafe { (self.test)(self.in_flight[i].0, &mut done) };
            if rc != 0 {
                return Err(self.describe(rc));
            }
            if done != 0 {
                self.in_flight.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(self.in_flight.len())
    }

    fn poll(&mut self) -> Result<Option<(usize, Vec<u8>)>, String> {
        let (mut found, mut src, mut tag, mut len, mut msg) = (0i32, 0i32, 0i32, 0usize, 0u64);
        // SAFETY: out-parameters only.
        let rc = unsafe { (self.improbe)(&mut found, &mut src, &mut tag, &mut len, &mut msg) };
        if rc != 0 {
            return Err(self.describe(rc));
        }
        if found == 0 {
            return Ok(None);
        }
        // Not zeroed first: MPI writes every byte (a zeroing pass would cost as much as the copy).
        let mut buf: Vec<u8> = Vec::with_capacity(len);
        // SAFETY: `msg` is the matched message just probed; the buffer has room for its `len`
        // bytes.
        let rc = unsafe { (self.mrecv)(msg, buf.as_mut_ptr(), len) };
        if rc != 0 {
            return Err(self.describe(rc));
        }
        // SAFETY: the receive succeeded, so MPI wrote all `len` bytes of the matched message.
        unsafe { buf.set_len(len) };
        Ok(Some((src as usize, buf)))
    }

    fn abort(&mut self, code: i32) -> ! {
        // SAFETY: ends every process of the job; nothing runs afterwards.
        unsafe { (self.abort)(code) };
        exit_now(code)
    }

    fn finalize(&mut self) {
        // SAFETY: called once, by the thread that initialised MPI, after its sends completed.
        unsafe { (self.finalize)() };
    }
}

/// Ends the process at once with `code`, flushing C's buffered output first (a worker's kernels
/// may have printed), without running the program's exit handlers.
pub fn exit_now(code: i32) -> ! {
    // SAFETY: fflush(NULL) flushes every C stream; _exit ends the process.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(code)
    }
}

/// Kills this process with SIGKILL (fault injection: a worker that dies without a word).
pub fn kill_self() -> ! {
    // SAFETY: raise only sends a signal to this process.
    unsafe { libc::raise(libc::SIGKILL) };
    exit_now(137)
}

/// Set by the SIGTERM handler of the head.
static TERMINATED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_sigterm(_: libc::c_int) {
    // Only an atomic store: async-signal-safe. The communication thread reports it.
    TERMINATED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Catches SIGTERM (what an MPI launcher sends every rank when one of them failed), so that the
/// head can say which ranks it last heard from before the run ends. Left alone when the program
/// already handles SIGTERM itself.
pub fn catch_sigterm() {
    if current_action(libc::SIGTERM).is_some_and(|a| a.sa_sigaction == libc::SIG_DFL) {
        install(libc::SIGTERM, on_sigterm, 0);
    }
}

/// The action `sig` has now.
fn current_action(sig: libc::c_int) -> Option<libc::sigaction> {
    // SAFETY: only reads the action into a zeroed struct.
    unsafe {
        let mut cur: libc::sigaction = std::mem::zeroed();
        (libc::sigaction(sig, std::ptr::null(), &mut cur) == 0).then_some(cur)
    }
}

/// Makes `handler` the action of `sig`; the handlers passed here call only async-signal-safe
/// functions.
fn install(sig: libc::c_int, handler: extern "C" fn(libc::c_int), flags: libc::c_int) {
    // SAFETY: a zeroed action with the handler, the flags and an empty mask; see above for the
    // handlers.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = handler as usize;
        act.sa_flags = flags;
        libc::sigemptyset(&mut act.sa_mask);
        libc::sigaction(sig, &act, std::ptr::null_mut());
    }
}

/// Whether SIGTERM arrived since [`catch_sigterm`].
pub fn sigterm_arrived() -> bool {
    TERMINATED.load(std::sync::atomic::Ordering::SeqCst)
}

/// What a crashing worker prints before the signal's name (a leaked, NUL-free byte string;
/// replaced, never freed, so a signal handler can read it at any time).
static CRASH_PREFIX: std::sync::atomic::AtomicPtr<Vec<u8>> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Signals that end a worker, with their names.
const CRASH_SIGNALS: [(libc::c_int, &[u8]); 5] = [
    (libc::SIGSEGV, b"SIGSEGV (invalid memory access)"),
    (libc::SIGBUS, b"SIGBUS (bus error)"),
    (libc::SIGFPE, b"SIGFPE (arithmetic error)"),
    (libc::SIGILL, b"SIGILL (illegal instruction)"),
    (libc::SIGABRT, b"SIGABRT (aborted)"),
];

/// The actions the crash handler replaced (MPI's own, or the default), run after it.
static PREVIOUS: std::sync::OnceLock<Vec<(libc::c_int, libc::sigaction)>> =
    std::sync::OnceLock::new();

extern "C" fn on_crash(sig: libc::c_int) {
    let prefix = CRASH_PREFIX.load(std::sync::atomic::Ordering::Acquire);
    // SAFETY: only write(2), sigaction(2) and raise(3), all async-signal-safe; the prefix is a
    // leaked Vec that is never freed, the names are static, and the previous actions were saved
    // before this handler was installed. Re-raising under the previous action lets MPI's handler
    // (a backtrace) or the default action end the process, as without this handler.
    unsafe {
        if !prefix.is_null() {
            let p = &*prefix;
            libc::write(2, p.as_ptr().cast(), p.len());
        }
        if let Some((_, name)) = CRASH_SIGNALS.iter().find(|(s, _)| *s == sig) {
            libc::write(2, name.as_ptr().cast(), name.len());
        }
        libc::write(2, b"\n".as_ptr().cast(), 1);
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        let prev = PREVIOUS
            .get()
            .and_then(|p| p.iter().find(|(s, _)| *s == sig))
            .map_or(&dfl as *const libc::sigaction, |(_, a)| {
                a as *const libc::sigaction
            });
        libc::sigaction(sig, prev, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// On a worker: prints `prefix` and the signal's name when the process crashes (a kernel's bad
/// access, an abort), so the run's output names the failed device, rank and host before the
/// launcher ends the job; the action that was there before (MPI's, the default) then runs.
/// Called again with a better prefix once the head numbered the devices.
pub fn report_crashes(prefix: &str) {
    let new = Box::into_raw(Box::new(prefix.as_bytes().to_vec()));
    // The previous prefix is leaked on purpose: a handler may be reading it right now.
    let old = CRASH_PREFIX.swap(new, std::sync::atomic::Ordering::AcqRel);
    if !old.is_null() {
        return;
    }
    let previous = PREVIOUS.get_or_init(|| {
        CRASH_SIGNALS
            .iter()
            .filter_map(|&(sig, _)| Some((sig, current_action(sig)?)))
            .collect()
    });
    // The handler hands the signal to the action saved above.
    for &(sig, _) in previous {
        install(sig, on_crash, libc::SA_NODEFER);
    }
}
