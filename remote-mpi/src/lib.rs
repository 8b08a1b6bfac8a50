//! Spread's MPI transport plugin: `libspread_remote_mpi.so`.
//!
//! Spread's runtime (`libspread_rt.so`, the drop-in `libomptarget.so.19.1`) never links MPI. When
//! a program runs with `SPREAD_REMOTE=mpi` under `mpirun`, the runtime `dlopen`s this library and
//! drives MPI through the narrow C ABI below, from one thread: its communication thread, which
//! also calls [`spread_mpi_init`] and [`spread_mpi_finalize`]. Everything the runtime needs of MPI
//! is here: set-up, nonblocking byte messages, probing, abort, finalize and error texts. The
//! same ABI is in `include/spread_mpi.h`.
//!
//! # The C ABI (version 1)
//!
//! ```c
//! uint32_t spread_mpi_abi_version(void);   /* 1 */
//! int32_t  spread_mpi_init(int32_t *rank, int32_t *size, int32_t *node, int32_t *tag_ub,
//!                          char *host, size_t host_len, char *err, size_t err_len);
//! int32_t  spread_mpi_isend(int32_t dest, int32_t tag, const uint8_t *buf, size_t len,
//!                           uint64_t *req);
//! int32_t  spread_mpi_test(uint64_t req, int32_t *done);
//! int32_t  spread_mpi_improbe(int32_t *found, int32_t *src, int32_t *tag, size_t *len,
//!                             uint64_t *msg);
//! int32_t  spread_mpi_mrecv(uint64_t msg, uint8_t *buf, size_t len);
//! void     spread_mpi_abort(int32_t code);  /* does not return */
//! int32_t  spread_mpi_finalize(void);
//! void     spread_mpi_error_string(int32_t code, char *buf, size_t len);
//! ```
//!
//! Every `int32_t` result is 0 on success, an MPI error code when an MPI call failed (all calls
//! after set-up go through a private duplicate of `MPI_COMM_WORLD` with `MPI_ERRORS_RETURN`, so
//! MPI errors come back instead of killing the job), or -1 when the plugin itself refused the call
//! (bad argument, unknown handle, wrong state). [`spread_mpi_error_string`] turns either into
//! text: for -1 it gives the plugin's message for its most recent refusal.
//!
//! Requests (`MPI_Request`) and probed messages (`MPI_Message`) are pointers under Open MPI and
//! integers under MPICH; the plugin keeps them in tables and hands out `uint64_t` handles, so the
//! ABI is the same for every MPI. A handle is never 0 and is invalid once released (the handle of
//! a completed send, of a received message): a stale handle is refused with -1, not confused with
//! a newer one.
//!
//! Threads: the plugin asks MPI for `MPI_THREAD_MULTIPLE` and accepts `MPI_THREAD_FUNNELED` or
//! better. Under `FUNNELED` every call must come from the thread that called [`spread_mpi_init`]
//! (other threads get -1); above it, calls from any thread are serialised by a lock.
//!
//! The plugin uses the `mpi` crate (rsmpi) for its build probe (`mpicc -show`), its bindings and
//! its `RSMPI_*` shims for the constants that are macros in `mpi.h`; the calls go through
//! [`mpi::ffi`] because rsmpi's safe wrappers discard MPI return codes and finalize MPI when their
//! `Universe` is dropped, while the runtime needs the codes and decides when MPI ends.

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]

use std::ffi::{c_char, c_int, c_void};
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::{Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use mpi::ffi;

mod slab;

use slab::Slab;

/// The version of the C ABI this library exports ([`spread_mpi_abi_version`]).
pub const ABI_VERSION: u32 = 1;

/// The result of a call the plugin refused by itself (not an MPI error code).
pub const LOCAL_ERROR: i32 = -1;

const SUCCESS: c_int = ffi::MPI_SUCCESS as c_int;

/// Why a call failed: the plugin refused it, or an MPI call returned an error code.
enum Failure {
    Local(String),
    Mpi(c_int, &'static str),
}

type Result<T> = std::result::Result<T, Failure>;

/// `Ok` when an MPI call named `call` returned `MPI_SUCCESS`.
fn check(rc: c_int, call: &'static str) -> Result<()> {
    if rc == SUCCESS {
        Ok(())
    } else {
        Err(Failure::Mpi(rc, call))
    }
}

fn refuse<T>(msg: impl Into<String>) -> Result<T> {
    Err(Failure::Local(msg.into()))
}

/// A message found by `MPI_Improbe` and not yet received.
struct Probed {
    msg: ffi::MPI_Message,
    len: usize,
}

/// MPI set up by [`spread_mpi_init`].
struct Ready {
    /// The private duplicate of `MPI_COMM_WORLD`, with `MPI_ERRORS_RETURN`.
    comm: ffi::MPI_Comm,
    /// Under `MPI_THREAD_FUNNELED`, the only thread allowed to call MPI.
    funneled_to: Option<ThreadId>,
    requests: Slab<ffi::MPI_Request>,
    messages: Slab<Probed>,
}

enum Phase {
    /// [`spread_mpi_init`] was not called yet.
    Idle,
    Ready(Ready),
    /// `MPI_Init_thread` succeeded but the set-up after it failed: MPI is initialised and only
    /// [`spread_mpi_finalize`] or [`spread_mpi_abort`] remain.
    Failed,
    /// [`spread_mpi_finalize`] ran (MPI cannot be initialised twice).
    Finalized,
}

struct Global {
    phase: Phase,
    /// The message of the most recent call refused with [`LOCAL_ERROR`].
    last_error: String,
}

// SAFETY: the MPI handles in `Phase` (pointers under Open MPI) are opaque tokens into the MPI
// library, not references to thread-local memory; which threads may call MPI with them is
// checked on every call (`funneled_to`) and all calls are serialised by the mutex around it.
unsafe impl Send for Global {}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    phase: Phase::Idle,
    last_error: String::new(),
});

fn lock() -> MutexGuard<'static, Global> {
    // A panic while the lock was held cannot leave MPI state half-updated in a way a later call
    // would misread (each field is written whole), so a poisoned lock is still usable.
    GLOBAL.lock().unwrap_or_else(|e| e.into_inner())
}

impl Global {
    /// The status code for `failure`, remembering a local failure's message.
    fn code(&mut self, failure: Failure) -> i32 {
        match failure {
            Failure::Local(msg) => {
                self.last_error = msg;
                LOCAL_ERROR
            }
            Failure::Mpi(rc, _) => rc,
        }
    }
}

/// Runs `f` on the set-up MPI state, on behalf of the C function `what`, and returns its status.
fn with_ready(what: &str, f: impl FnOnce(&mut Ready) -> Result<()>) -> i32 {
    let mut g = lock();
    let result = match &mut g.phase {
        Phase::Ready(r) => match r.funneled_to {
            Some(t) if t != thread::current().id() => refuse(format!(
                "{what}: called from a thread other than the one that called spread_mpi_init, \
                 and MPI granted only MPI_THREAD_FUNNELED"
            )),
            _ => f(r),
        },
        Phase::Idle => refuse(format!("{what}: spread_mpi_init was not called")),
        Phase::Failed => refuse(format!("{what}: spread_mpi_init failed")),
        Phase::Finalized => refuse(format!("{what}: MPI was finalised")),
    };
    match result {
        Ok(()) => 0,
        Err(failure) => g.code(failure),
    }
}

/// Writes `s` into the C buffer `buf` of `len` bytes, truncated, NUL-terminated.
///
/// # Safety
/// `buf` is NULL or valid for writes of `len` bytes.
unsafe fn write_cstr(buf: *mut c_char, len: usize, s: &str) {
    if buf.is_null() || len == 0 {
        return;
    }
    let n = s.len().min(len - 1);
    // SAFETY: `buf` is valid for `len` bytes (caller) and n + 1 <= len; `s` and `buf` are
    // distinct allocations (`s` is Rust-owned).
    unsafe {
        ptr::copy_nonoverlapping(s.as_ptr().cast::<c_char>(), buf, n);
        *buf.add(n) = 0;
    }
}

/// Stores `value` through `out` unless it is NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of a `T`.
unsafe fn put<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and valid for writes (caller).
        unsafe { out.write(value) };
    }
}

/// Whether MPI is initialised and not yet finalised (callable at any time).
fn mpi_active() -> bool {
    mpi::is_initialized() && !mpi::is_finalized()
}

/// MPI's text for the error code `code`, or None when MPI cannot tell (MPI not active, or not an
/// error code of this MPI: Open MPI would abort the job on an unknown code).
fn mpi_error_text(code: c_int) -> Option<String> {
    if !mpi_active() || code < 0 {
        return None;
    }
    // Codes up to MPI_ERR_LASTCODE are predefined; MPI_LASTUSEDCODE covers codes added later.
    let mut last = ffi::MPI_ERR_LASTCODE as c_int;
    let mut attr: *mut c_int = ptr::null_mut();
    let mut flag: c_int = 0;
    // SAFETY: MPI is active; MPI_LASTUSEDCODE is a predefined attribute of MPI_COMM_WORLD whose
    // value is a pointer to an int, which MPI stores in `attr`.
    let rc = unsafe {
        ffi::MPI_Comm_get_attr(
            ffi::RSMPI_COMM_WORLD,
            ffi::MPI_LASTUSEDCODE as c_int,
            ptr::addr_of_mut!(attr).cast::<c_void>(),
            &mut flag,
        )
    };
    if rc == SUCCESS && flag != 0 && !attr.is_null() {
        // SAFETY: MPI returned a valid pointer to the attribute's int.
        last = last.max(unsafe { *attr });
    }
    if code > last {
        return None;
    }
    let mut text = [0 as c_char; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut n: c_int = 0;
    // SAFETY: `text` holds MPI_MAX_ERROR_STRING characters as MPI_Error_string requires, and
    // `code` is a valid error code of this MPI (checked above).
    let rc = unsafe { ffi::MPI_Error_string(code, text.as_mut_ptr(), &mut n) };
    if rc != SUCCESS {
        return None;
    }
    let n = usize::try_from(n).unwrap_or(0).min(text.len() - 1);
    let bytes: Vec<u8> = text[..n].iter().map(|&c| c as u8).collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// "CALL failed: TEXT" for an MPI failure, the message itself for a local one.
fn describe(failure: &Failure) -> String {
    match failure {
        Failure::Local(msg) => msg.clone(),
        Failure::Mpi(rc, call) => match mpi_error_text(*rc) {
            Some(text) => format!("{call} failed: {text}"),
            None => format!("{call} failed with MPI error code {rc}"),
        },
    }
}

fn thread_level_name(level: c_int) -> String {
    // SAFETY: reading the constants rsmpi's C shim defines from mpi.h.
    let names = unsafe {
        [
            (ffi::RSMPI_THREAD_SINGLE, "MPI_THREAD_SINGLE"),
            (ffi::RSMPI_THREAD_FUNNELED, "MPI_THREAD_FUNNELED"),
            (ffi::RSMPI_THREAD_SERIALIZED, "MPI_THREAD_SERIALIZED"),
            (ffi::RSMPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE"),
        ]
    };
    names
        .iter()
        .find(|(v, _)| *v == level)
        .map_or_else(|| format!("thread level {level}"), |(_, n)| n.to_string())
}

/// What [`spread_mpi_init`] reports.
struct Topology {
    rank: c_int,
    size: c_int,
    node: c_int,
    tag_ub: c_int,
    host: String,
}

/// The returned value of [`spread_mpi_abi_version`]: the ABI this library implements, 1.
#[no_mangle]
pub extern "C" fn spread_mpi_abi_version() -> u32 {
    ABI_VERSION
}

/// Initialises MPI (`MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, ..)`, accepting
/// `MPI_THREAD_FUNNELED` or better) and sets up the private communicator.
///
/// On success stores this process's rank and the number of ranks, `node` (the lowest rank on
/// this rank's node: ranks with the same `node` share memory, from `MPI_Comm_split_type
/// (MPI_COMM_TYPE_SHARED)`), `tag_ub` (the largest tag MPI accepts, `MPI_TAG_UB`) and `host`
/// (`MPI_Get_processor_name`, truncated to `host_len` bytes with the NUL). Any output pointer may
/// be NULL.
///
/// Fails with -1 and a message in `err` (truncated to `err_len` bytes with the NUL) when MPI was
/// already initialised (the program uses MPI itself), or finalised, or this function was
/// already called, or MPI grants less than `MPI_THREAD_FUNNELED`; with an MPI error code when an
/// MPI call fails. A failure after `MPI_Init_thread` leaves MPI initialised: the caller ends with
/// [`spread_mpi_abort`] or [`spread_mpi_finalize`].
///
/// # Safety
/// Each pointer is NULL or valid for writes (`host` of `host_len` bytes, `err` of `err_len`).
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_init(
    rank: *mut i32,
    size: *mut i32,
    node: *mut i32,
    tag_ub: *mut i32,
    host: *mut c_char,
    host_len: usize,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    let mut g = lock();
    match init(&mut g) {
        Ok(t) => {
            // SAFETY: the pointers are NULL or valid for writes (caller).
            unsafe {
                put(rank, t.rank);
                put(size, t.size);
                put(node, t.node);
                put(tag_ub, t.tag_ub);
                write_cstr(host, host_len, &t.host);
                write_cstr(err, err_len, "");
            }
            0
        }
        Err(failure) => {
            let msg = format!("spread_mpi_init: {}", describe(&failure));
            // SAFETY: `err` is NULL or valid for `err_len` bytes (caller).
            unsafe { write_cstr(err, err_len, &msg) };
            let code = g.code(failure);
            if code == LOCAL_ERROR {
                g.last_error = msg;
            }
            code
        }
    }
}

fn init(g: &mut Global) -> Result<Topology> {
    match g.phase {
        Phase::Idle => {}
        Phase::Ready(_) | Phase::Failed => return refuse("it was already called"),
        Phase::Finalized => return refuse("MPI was finalised, and it cannot be initialised again"),
    }
    if mpi::is_finalized() {
        return refuse("MPI was already finalised by the program");
    }
    if mpi::is_initialized() {
        return refuse(
            "MPI is already initialised: the program uses MPI itself, which Spread's remote \
             devices (SPREAD_REMOTE=mpi) do not support",
        );
    }
    let mut provided: c_int = 0;
    // SAFETY: MPI is not initialised (checked above; the global lock keeps other callers of this
    // library out); MPI-2 and later accept NULL argc and argv.
    let rc = unsafe {
        ffi::MPI_Init_thread(
            ptr::null_mut(),
            ptr::null_mut(),
            ffi::RSMPI_THREAD_MULTIPLE,
            &mut provided,
        )
    };
    check(rc, "MPI_Init_thread")?;
    // SAFETY: reading constants from rsmpi's C shim.
    let (funneled, serialized) =
        unsafe { (ffi::RSMPI_THREAD_FUNNELED, ffi::RSMPI_THREAD_SERIALIZED) };
    if provided < funneled {
        g.phase = Phase::Failed;
        return refuse(format!(
            "MPI grants only {}; Spread needs MPI_THREAD_FUNNELED or better",
            thread_level_name(provided)
        ));
    }
    let mut comm = MaybeUninit::<ffi::MPI_Comm>::uninit();
    // SAFETY: MPI is initialised; MPI_Comm_dup writes the new communicator into `comm`.
    let rc = unsafe { ffi::MPI_Comm_dup(ffi::RSMPI_COMM_WORLD, comm.as_mut_ptr()) };
    if let Err(e) = check(rc, "MPI_Comm_dup") {
        g.phase = Phase::Failed;
        return Err(e);
    }
    // SAFETY: MPI_Comm_dup succeeded and initialised `comm`.
    let mut comm = unsafe { comm.assume_init() };
    match topology(comm) {
        Ok(t) => {
            g.phase = Phase::Ready(Ready {
                comm,
                funneled_to: (provided < serialized).then(|| thread::current().id()),
                requests: Slab::new(),
                messages: Slab::new(),
            });
            Ok(t)
        }
        Err(e) => {
            // SAFETY: `comm` is the communicator MPI_Comm_dup created, freed once.
            unsafe { ffi::MPI_Comm_free(&mut comm) };
            g.phase = Phase::Failed;
            Err(e)
        }
    }
}

/// Sets `MPI_ERRORS_RETURN` on `comm` and asks MPI for what [`spread_mpi_init`] reports.
fn topology(comm: ffi::MPI_Comm) -> Result<Topology> {
    // SAFETY: `comm` is a valid communicator; RSMPI_ERRORS_RETURN is a predefined handler.
    let rc = unsafe { ffi::MPI_Comm_set_errhandler(comm, ffi::RSMPI_ERRORS_RETURN) };
    check(rc, "MPI_Comm_set_errhandler")?;
    let (mut rank, mut size): (c_int, c_int) = (0, 0);
    // SAFETY: `comm` is valid; the outputs are local ints.
    let rc = unsafe { ffi::MPI_Comm_rank(comm, &mut rank) };
    check(rc, "MPI_Comm_rank")?;
    // SAFETY: as above.
    let rc = unsafe { ffi::MPI_Comm_size(comm, &mut size) };
    check(rc, "MPI_Comm_size")?;

    // SAFETY: reading a constant from rsmpi's C shim.
    let max_name = usize::try_from(unsafe { ffi::RSMPI_MAX_PROCESSOR_NAME }).unwrap_or(256);
    let mut name = vec![0 as c_char; max_name + 1];
    let mut name_len: c_int = 0;
    // SAFETY: `name` holds MPI_MAX_PROCESSOR_NAME characters (plus one), as the call requires.
    let rc = unsafe { ffi::MPI_Get_processor_name(name.as_mut_ptr(), &mut name_len) };
    check(rc, "MPI_Get_processor_name")?;
    let name_len = usize::try_from(name_len).unwrap_or(0).min(max_name);
    let name: Vec<u8> = name[..name_len].iter().map(|&c| c as u8).collect();
    let host = String::from_utf8_lossy(&name).into_owned();

    // node: the lowest rank among those sharing this node's memory.
    let mut node_comm = MaybeUninit::<ffi::MPI_Comm>::uninit();
    // SAFETY: `comm` is valid (collective over it: every rank runs spread_mpi_init);
    // the new communicator is written into `node_comm`.
    let rc = unsafe {
        ffi::MPI_Comm_split_type(
            comm,
            ffi::RSMPI_COMM_TYPE_SHARED,
            rank,
            ffi::RSMPI_INFO_NULL,
            node_comm.as_mut_ptr(),
        )
    };
    check(rc, "MPI_Comm_split_type")?;
    // SAFETY: MPI_Comm_split_type succeeded and initialised `node_comm`.
    let mut node_comm = unsafe { node_comm.assume_init() };
    let mut node: c_int = rank;
    // SAFETY: one int in, one int out, MPI_INT32_T matches c_int (i32) on every platform Spread
    // runs on; `node_comm` is valid.
    let rc = unsafe {
        ffi::MPI_Allreduce(
            ptr::addr_of!(rank).cast::<c_void>(),
            ptr::addr_of_mut!(node).cast::<c_void>(),
            1,
            ffi::RSMPI_INT32_T,
            ffi::RSMPI_MIN,
            node_comm,
        )
    };
    // SAFETY: `node_comm` was created above and is freed once.
    let rc_free = unsafe { ffi::MPI_Comm_free(&mut node_comm) };
    check(rc, "MPI_Allreduce")?;
    check(rc_free, "MPI_Comm_free")?;

    let mut attr: *mut c_int = ptr::null_mut();
    let mut flag: c_int = 0;
    // SAFETY: MPI_TAG_UB is a predefined attribute of MPI_COMM_WORLD whose value is a pointer to
    // an int, which MPI stores in `attr`.
    let rc = unsafe {
        ffi::MPI_Comm_get_attr(
            ffi::RSMPI_COMM_WORLD,
            ffi::MPI_TAG_UB as c_int,
            ptr::addr_of_mut!(attr).cast::<c_void>(),
            &mut flag,
        )
    };
    check(rc, "MPI_Comm_get_attr(MPI_TAG_UB)")?;
    if flag == 0 || attr.is_null() {
        return refuse("MPI_COMM_WORLD has no MPI_TAG_UB attribute");
    }
    // SAFETY: MPI returned a valid pointer to the attribute's int.
    let tag_ub = unsafe { *attr };
    Ok(Topology {
        rank,
        size,
        node,
        tag_ub,
        host,
    })
}

/// Starts sending `len` bytes at `buf` to rank `dest` with tag `tag` (`MPI_Isend`) and stores a
/// request handle in `*req`.
///
/// `len` must not exceed `i32::MAX` (-1 otherwise). The handle stays valid until
/// [`spread_mpi_test`] reports the send done.
///
/// # Safety
/// `buf` is valid for reads of `len` bytes (may be NULL when `len` is 0) and stays valid and
/// unmodified until [`spread_mpi_test`] reports the send done; `req` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_isend(
    dest: i32,
    tag: i32,
    buf: *const u8,
    len: usize,
    req: *mut u64,
) -> i32 {
    with_ready("spread_mpi_isend", |r| {
        if req.is_null() {
            return refuse("spread_mpi_isend: req is NULL");
        }
        let Ok(count) = c_int::try_from(len) else {
            return refuse(format!(
                "spread_mpi_isend: {len} bytes is more than one message may carry ({})",
                c_int::MAX
            ));
        };
        if buf.is_null() && len > 0 {
            return refuse("spread_mpi_isend: buf is NULL");
        }
        // SAFETY: reading a constant from rsmpi's C shim.
        let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: `buf` is valid for `count` bytes until the request completes (caller);
        // `r.comm` is the valid private communicator.
        let rc = unsafe {
            ffi::MPI_Isend(
                buf.cast::<c_void>(),
                count,
                ffi::RSMPI_UINT8_T,
                dest,
                tag,
                r.comm,
                &mut request,
            )
        };
        check(rc, "MPI_Isend")?;
        let Some(handle) = r.requests.insert(request) else {
            return refuse("spread_mpi_isend: too many pending requests");
        };
        // SAFETY: `req` is non-NULL and valid for a write (caller).
        unsafe { req.write(handle) };
        Ok(())
    })
}

/// Tests a send started by [`spread_mpi_isend`] (`MPI_Test`): `*done` = 1 when it finished (the
/// handle is then released), else 0.
///
/// When MPI reports an error the handle is released if MPI released the request, and kept
/// otherwise.
///
/// # Safety
/// `done` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_test(req: u64, done: *mut i32) -> i32 {
    with_ready("spread_mpi_test", |r| {
        if done.is_null() {
            return refuse("spread_mpi_test: done is NULL");
        }
        let Some(request) = r.requests.get_mut(req) else {
            return refuse(format!("spread_mpi_test: unknown request handle {req:#x}"));
        };
        let mut flag: c_int = 0;
        // SAFETY: `request` is an active request from MPI_Isend, not yet completed; the status
        // is ignored.
        let rc = unsafe { ffi::MPI_Test(request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
        // SAFETY: reading a constant from rsmpi's C shim.
        let released = *request == unsafe { ffi::RSMPI_REQUEST_NULL };
        let finished = rc == SUCCESS && flag != 0;
        if finished || released {
            r.requests.remove(req);
        }
        // SAFETY: `done` is non-NULL and valid for a write (caller).
        unsafe { done.write(i32::from(finished)) };
        check(rc, "MPI_Test")
    })
}

/// Probes for any message from any rank with any tag (`MPI_Improbe`). When there is one, sets
/// `*found` = 1, `*src`, `*tag`, `*len` (its size in bytes) and `*msg` (a handle for
/// [`spread_mpi_mrecv`]; the message is then matched and must be received); else `*found` = 0.
///
/// # Safety
/// `found` and `msg` are valid for writes; `src`, `tag`, `len` are NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_improbe(
    found: *mut i32,
    src: *mut i32,
    tag: *mut i32,
    len: *mut usize,
    msg: *mut u64,
) -> i32 {
    with_ready("spread_mpi_improbe", |r| {
        if found.is_null() || msg.is_null() {
            return refuse("spread_mpi_improbe: found or msg is NULL");
        }
        let mut flag: c_int = 0;
        // SAFETY: reading a constant from rsmpi's C shim.
        let mut message = unsafe { ffi::RSMPI_MESSAGE_NULL };
        // SAFETY: MPI_Status is a C struct of integers, for which all zeroes is a valid value.
        let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
        // SAFETY: `r.comm` is valid; the outputs are locals.
        let rc = unsafe {
            ffi::MPI_Improbe(
                ffi::RSMPI_ANY_SOURCE,
                ffi::RSMPI_ANY_TAG,
                r.comm,
                &mut flag,
                &mut message,
                &mut status,
            )
        };
        check(rc, "MPI_Improbe")?;
        if flag == 0 {
            // SAFETY: `found` is non-NULL and valid for a write (caller).
            unsafe { found.write(0) };
            return Ok(());
        }
        let mut count: c_int = 0;
        // SAFETY: `status` was filled by MPI_Improbe for the matched message.
        let rc = unsafe { ffi::MPI_Get_count(&status, ffi::RSMPI_UINT8_T, &mut count) };
        check(rc, "MPI_Get_count")?;
        let Ok(bytes) = usize::try_from(count) else {
            return refuse(format!(
                "spread_mpi_improbe: MPI gives no byte count for a message from rank {} tag {}",
                status.MPI_SOURCE, status.MPI_TAG
            ));
        };
        let Some(handle) = r.messages.insert(Probed {
            msg: message,
            len: bytes,
        }) else {
            return refuse("spread_mpi_improbe: too many probed messages not yet received");
        };
        // SAFETY: `found` and `msg` are non-NULL, the others NULL or valid for writes (caller).
        unsafe {
            found.write(1);
            msg.write(handle);
            put(src, status.MPI_SOURCE);
            put(tag, status.MPI_TAG);
            put(len, bytes);
        }
        Ok(())
    })
}

/// Receives the message [`spread_mpi_improbe`] found (`MPI_Mrecv`) into `buf`, which holds `len`
/// bytes, at least the probed length (-1 otherwise, and the message stays pending). The handle is
/// released, also when MPI reports an error.
///
/// # Safety
/// `buf` is valid for writes of `len` bytes (may be NULL when the message is empty).
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_mrecv(msg: u64, buf: *mut u8, len: usize) -> i32 {
    with_ready("spread_mpi_mrecv", |r| {
        let Some(probed) = r.messages.get_mut(msg) else {
            return refuse(format!("spread_mpi_mrecv: unknown message handle {msg:#x}"));
        };
        if len < probed.len || (buf.is_null() && probed.len > 0) {
            return refuse(format!(
                "spread_mpi_mrecv: a buffer of {len} bytes{} for a message of {} bytes",
                if buf.is_null() { " at NULL" } else { "" },
                probed.len
            ));
        }
        // `probed.len` came from an int count, so it fits.
        let count = c_int::try_from(probed.len).unwrap_or(c_int::MAX);
        // SAFETY: `probed.msg` is a matched message not yet received; `buf` is valid for
        // `len` >= `count` bytes (caller); the status is ignored.
        let rc = unsafe {
            ffi::MPI_Mrecv(
                buf.cast::<c_void>(),
                count,
                ffi::RSMPI_UINT8_T,
                &mut probed.msg,
                ffi::RSMPI_STATUS_IGNORE,
            )
        };
        r.messages.remove(msg);
        check(rc, "MPI_Mrecv")
    })
}

/// Ends the whole MPI job with exit status `code` (`MPI_Abort` on `MPI_COMM_WORLD`). Does not
/// return; when MPI is not initialised (or already finalised) it exits the process with `code`.
#[no_mangle]
pub extern "C" fn spread_mpi_abort(code: i32) -> ! {
    if mpi_active() {
        // SAFETY: MPI is initialised and not finalised. No lock is taken: the caller may be
        // failing inside another call of this library.
        unsafe { ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code) };
    }
    std::process::exit(code)
}

/// Frees the private communicator and finalises MPI (`MPI_Finalize`).
///
/// Fails with -1, leaving everything as it was, while sends are not yet reported done by
/// [`spread_mpi_test`] or probed messages are not yet received (MPI could hang in
/// `MPI_Finalize`). After a failed [`spread_mpi_init`] it only calls `MPI_Finalize`.
#[no_mangle]
pub extern "C" fn spread_mpi_finalize() -> i32 {
    let mut g = lock();
    let result = match std::mem::replace(&mut g.phase, Phase::Finalized) {
        Phase::Ready(mut r) => {
            let (sends, messages) = (r.requests.len(), r.messages.len());
            let wrong_thread = r.funneled_to.is_some_and(|t| t != thread::current().id());
            if sends > 0 || messages > 0 || wrong_thread {
                g.phase = Phase::Ready(r);
                if wrong_thread {
                    refuse(
                        "spread_mpi_finalize: called from a thread other than the one that \
                         called spread_mpi_init, and MPI granted only MPI_THREAD_FUNNELED",
                    )
                } else {
                    refuse(format!(
                        "spread_mpi_finalize: {sends} send(s) not yet reported done and \
                         {messages} probed message(s) not yet received"
                    ))
                }
            } else {
                // SAFETY: `r.comm` is the private communicator, freed once (the state that
                // held it is gone).
                let rc_free = unsafe { ffi::MPI_Comm_free(&mut r.comm) };
                // SAFETY: MPI is initialised, not finalised, and no request is pending.
                let rc = unsafe { ffi::MPI_Finalize() };
                check(rc_free, "MPI_Comm_free").and(check(rc, "MPI_Finalize"))
            }
        }
        Phase::Failed => {
            // SAFETY: MPI was initialised by spread_mpi_init and not finalised.
            check(unsafe { ffi::MPI_Finalize() }, "MPI_Finalize")
        }
        Phase::Idle => {
            g.phase = Phase::Idle;
            refuse("spread_mpi_finalize: spread_mpi_init was not called")
        }
        Phase::Finalized => refuse("spread_mpi_finalize: MPI was already finalised"),
    };
    match result {
        Ok(()) => 0,
        Err(failure) => g.code(failure),
    }
}

/// Writes the text for a status `code` of this library into `buf` (`len` bytes with the NUL,
/// truncated): MPI's `MPI_Error_string` for an MPI error code, the plugin's message of its most
/// recent refusal for -1.
///
/// # Safety
/// `buf` is NULL or valid for writes of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn spread_mpi_error_string(code: i32, buf: *mut c_char, len: usize) {
    let text = if code == 0 {
        "success".to_string()
    } else if code == LOCAL_ERROR {
        let g = lock();
        if g.last_error.is_empty() {
            "spread-remote-mpi: no error recorded".to_string()
        } else {
            g.last_error.clone()
        }
    } else {
        mpi_error_text(code).unwrap_or_else(|| format!("MPI error code {code}"))
    };
    // SAFETY: `buf` is NULL or valid for `len` bytes (caller).
    unsafe { write_cstr(buf, len, &text) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(buf: &[c_char]) -> String {
        let bytes: Vec<u8> = buf
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn cstr_truncates_and_terminates() {
        let mut buf = [1 as c_char; 6];
        // SAFETY: `buf` holds 6 bytes.
        unsafe { write_cstr(buf.as_mut_ptr(), buf.len(), "abcdefgh") };
        assert_eq!(read(&buf), "abcde");
        assert_eq!(buf[5], 0);
        // SAFETY: as above.
        unsafe { write_cstr(buf.as_mut_ptr(), buf.len(), "ab") };
        assert_eq!(read(&buf), "ab");
        // SAFETY: NULL and zero lengths are ignored.
        unsafe {
            write_cstr(ptr::null_mut(), 10, "x");
            write_cstr(buf.as_mut_ptr(), 0, "x");
        }
        assert_eq!(read(&buf), "ab");
    }

    #[test]
    fn calls_before_init_are_refused() {
        let mut done = 7;
        // SAFETY: `done` is a valid int.
        assert_eq!(unsafe { spread_mpi_test(1, &mut done) }, LOCAL_ERROR);
        assert_eq!(done, 7);
        let mut text = [0 as c_char; 128];
        // SAFETY: `text` holds 128 bytes.
        unsafe { spread_mpi_error_string(LOCAL_ERROR, text.as_mut_ptr(), text.len()) };
        assert_eq!(
            read(&text),
            "spread_mpi_test: spread_mpi_init was not called"
        );
        // An MPI code while MPI is not active: no call into MPI.
        // SAFETY: as above.
        unsafe { spread_mpi_error_string(17, text.as_mut_ptr(), text.len()) };
        assert_eq!(read(&text), "MPI error code 17");
        assert_eq!(spread_mpi_abi_version(), 1);
    }
}
