//! OMPT device tracing (OpenMP 5.2, "Tracing Activity on Target Devices"): a tool asks each
//! device for trace records of its target regions, data operations and kernels
//! (`ompt_set_trace_ompt`, `ompt_start_trace`), supplies the buffers (`buffer_request`) and
//! receives them full (`buffer_complete`, also at `ompt_flush_trace`, `ompt_stop_trace` and at
//! exit). Stock libomptarget 19 offers none of it (its device lookup finds nothing).
//!
//! Records are `ompt_record_ompt_t`s (104 bytes on x86_64) with device timestamps: nanoseconds
//! of a monotonic clock since the runtime started (`ompt_get_device_time`), which
//! `ompt_translate_time` turns into seconds on `omp_get_wtime()`'s clock. On host devices a
//! copy's or kernel's record carries the time it ran on the device: the operation takes its
//! record with it when the runtime enqueues it ([`take_pending`]) and completes it when it has
//! run ([`complete`]). CUDA and remote devices take the record too and complete it, once their
//! stream is synchronized, with the times of two events that enclose the operation on the device
//! (CUDA events; events the worker reports with its clock). A record no device takes gets the
//! times of the runtime's call that issued the operation.
//!
//! The C entry points the tool calls are in `capi::ompt::device_trace`; they decode their
//! arguments and call the functions here.

use super::Op;
use crate::sys::access;
use parking_lot::Mutex;
use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// `ompt_callback_buffer_request_t`.
pub type BufferRequest = extern "C" fn(c_int, *mut *mut c_void, *mut usize);
/// `ompt_callback_buffer_complete_t`.
pub type BufferComplete = extern "C" fn(c_int, *mut c_void, usize, u64, c_int);

/// Event codes (`ompt_callbacks_t`) the records are of.
const TARGET: c_int = 8;
const DATA_OP: c_int = 9;
const SUBMIT: c_int = 10;
const TARGET_EMI: c_int = 33;
const DATA_OP_EMI: c_int = 34;
const SUBMIT_EMI: c_int = 35;

/// `ompt_set_result_t`: never / always.
pub const SET_NEVER: c_int = 1;
/// `ompt_set_always`.
const SET_ALWAYS: c_int = 5;

/// `ompt_record_target_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct TargetRecord {
    kind: c_int,
    endpoint: c_int,
    device_num: c_int,
    _pad: u32,
    task_id: u64,
    target_id: u64,
    codeptr_ra: usize,
}

/// `ompt_record_target_data_op_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DataOpRecord {
    host_op_id: u64,
    optype: c_int,
    _pad0: u32,
    src_addr: usize,
    src_device_num: c_int,
    _pad1: u32,
    dest_addr: usize,
    dest_device_num: c_int,
    _pad2: u32,
    bytes: usize,
    end_time: u64,
    codeptr_ra: usize,
}

/// `ompt_record_target_kernel_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct KernelRecord {
    host_op_id: u64,
    requested_num_teams: u32,
    granted_num_teams: u32,
    end_time: u64,
}

/// The union of `ompt_record_ompt_t` (72 bytes: its largest member is a data operation's).
#[repr(C)]
#[derive(Clone, Copy)]
union Body {
    raw: [u64; 9],
    target: TargetRecord,
    data_op: DataOpRecord,
    kernel: KernelRecord,
}

/// `ompt_record_ompt_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Record {
    kind: c_int,
    _pad: u32,
    time: u64,
    thread_id: u64,
    target_id: u64,
    body: Body,
}

/// Bytes of one record, the step of the buffer cursor.
pub const RECORD_BYTES: usize = std::mem::size_of::<Record>();
const _: () = assert!(RECORD_BYTES == 104);

/// A device's trace: what the tool enabled, its callbacks and the buffer being filled.
#[derive(Default)]
struct DeviceTrace {
    /// Enabled event codes (bit per code below 64).
    enabled: u64,
    started: bool,
    paused: bool,
    request: Option<BufferRequest>,
    complete: Option<BufferComplete>,
    /// The buffer being filled: address, bytes, bytes used.
    buffer: Option<(usize, usize, usize)>,
}

impl DeviceTrace {
    fn wants(&self, code: c_int) -> bool {
        self.started && !self.paused && code < 64 && self.enabled & (1 << code) != 0
    }
}

static DEVICES: OnceLock<Vec<Mutex<DeviceTrace>>> = OnceLock::new();
/// Some device's trace runs: the runtime prepares records.
static ANY: AtomicBool = AtomicBool::new(false);
/// The clocks' common start: device times count from `EPOCH.0`, which is `EPOCH.1` seconds on
/// `omp_get_wtime()`'s clock (the time of day).
static EPOCH: OnceLock<(Instant, f64)> = OnceLock::new();
static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The record of the operation being issued on this thread, until its device takes it.
    static PENDING: RefCell<Option<Box<Pending>>> = const { RefCell::new(None) };
}

/// Sets up tracing for `devices` devices (at connection).
pub(super) fn init(devices: usize) {
    epoch();
    let _ = DEVICES.set((0..devices).map(|_| Mutex::default()).collect());
}

fn epoch() -> &'static (Instant, f64) {
    EPOCH.get_or_init(|| {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        (Instant::now(), wall)
    })
}

/// Whether some device's trace has been started (the runtime then prepares records).
pub(super) fn any() -> bool {
    ANY.load(Ordering::Relaxed)
}

fn device(d: usize) -> Option<&'static Mutex<DeviceTrace>> {
    DEVICES.get()?.get(d)
}

/// `ompt_get_device_time`: nanoseconds since the runtime started.
pub fn device_time() -> u64 {
    ns_at(Instant::now())
}

fn ns_at(t: Instant) -> u64 {
    t.saturating_duration_since(epoch().0).as_nanos() as u64
}

/// `ompt_translate_time`: a device time in seconds on `omp_get_wtime()`'s clock.
pub fn translate_time(time: u64) -> f64 {
    epoch().1 + time as f64 * 1e-9
}

/// `ompt_set_trace_ompt`: enables (or disables) records of event `code` (0: all) on `device`.
pub fn set_trace(device_num: usize, enable: bool, code: c_int) -> c_int {
    let codes: &[c_int] = match code {
        0 => &[TARGET, DATA_OP, SUBMIT, TARGET_EMI, DATA_OP_EMI, SUBMIT_EMI],
        TARGET | DATA_OP | SUBMIT | TARGET_EMI | DATA_OP_EMI | SUBMIT_EMI => &[code],
        _ => return SET_NEVER,
    };
    let Some(d) = device(device_num) else {
        return SET_NEVER;
    };
    let mut d = d.lock();
    for &c in codes {
        if enable {
            d.enabled |= 1 << c;
        } else {
            d.enabled &= !(1 << c);
        }
    }
    SET_ALWAYS
}

/// `ompt_start_trace`: 1 when the device's trace starts.
pub fn start(
    device_num: usize,
    request: Option<BufferRequest>,
    complete: Option<BufferComplete>,
) -> c_int {
    let (Some(d), Some(_), Some(_)) = (device(device_num), request, complete) else {
        return 0;
    };
    let mut d = d.lock();
    d.request = request;
    d.complete = complete;
    d.started = true;
    d.paused = false;
    ANY.store(true, Ordering::Release);
    1
}

/// `ompt_pause_trace`.
pub fn pause(device_num: usize, begin: bool) -> c_int {
    let Some(d) = device(device_num) else {
        return 0;
    };
    let mut d = d.lock();
    if !d.started {
        return 0;
    }
    d.paused = begin;
    1
}

/// `ompt_flush_trace`: hands the tool the buffer being filled.
pub fn flush(device_num: usize) -> c_int {
    let Some(d) = device(device_num) else {
        return 0;
    };
    let (buffer, complete) = {
        let mut d = d.lock();
        (d.buffer.take(), d.complete)
    };
    if let (Some((addr, _, used)), Some(complete)) = (buffer, complete) {
        complete(device_num as c_int, addr as *mut c_void, used, 0, 1);
    }
    1
}

/// `ompt_stop_trace`: flushes and stops the device's trace.
pub fn stop(device_num: usize) -> c_int {
    let r = flush(device_num);
    if let Some(d) = device(device_num) {
        d.lock().started = false;
    }
    r
}

/// Flushes every device's trace (at exit, before the devices are finalized).
pub(super) fn flush_all() {
    if let Some(all) = DEVICES.get() {
        for (i, d) in all.iter().enumerate() {
            if d.lock().buffer.is_some() {
                flush(i);
            }
        }
    }
}

/// Which record a device's trace wants for the event of `plain` (or its EMI form): the code the
/// record carries (the form the tool enabled), or `None`.
fn wanted(device_num: usize, plain: c_int, emi: c_int) -> Option<c_int> {
    if !ANY.load(Ordering::Relaxed) {
        return None;
    }
    let d = device(device_num)?.lock();
    if d.wants(plain) {
        Some(plain)
    } else if d.wants(emi) {
        Some(emi)
    } else {
        None
    }
}

fn thread_id() -> u64 {
    THREAD_ID
        .try_with(|t| {
            if t.get() == 0 {
                t.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
            }
            t.get()
        })
        .unwrap_or(0)
}

/// Writes `rec` into `device_num`'s buffer, asking the tool for one first where there is none,
/// and hands the buffer back full. The record is written under the device's lock, so a buffer
/// handed back (full, or by a flush on another thread) holds only whole records.
fn write(device_num: usize, rec: &Record) {
    let Some(d) = device(device_num) else { return };
    let mut g = d.lock();
    if g.buffer.is_none() {
        let Some(request) = g.request else { return };
        drop(g);
        let mut addr: *mut c_void = std::ptr::null_mut();
        let mut bytes = 0usize;
        // The tool's callback runs without the lock: it may call back into the trace.
        request(device_num as c_int, &mut addr, &mut bytes);
        if addr.is_null() || bytes < RECORD_BYTES {
            return;
        }
        g = d.lock();
        if g.buffer.is_some() {
            // Another thread got one meanwhile: this one goes back to the tool empty.
            let complete = g.complete;
            drop(g);
            if let Some(complete) = complete {
                complete(device_num as c_int, addr, 0, 0, 1);
            }
            g = d.lock();
        } else {
            g.buffer = Some((addr as usize, bytes, 0));
        }
    }
    let Some((addr, bytes, used)) = g.buffer.as_mut() else {
        return;
    };
    access::transfer(*addr + *used, rec as *const Record as usize, RECORD_BYTES);
    *used += RECORD_BYTES;
    let full = (*used + RECORD_BYTES > *bytes).then_some((*addr, *used));
    if full.is_some() {
        g.buffer = None;
    }
    let complete = g.complete;
    drop(g);
    if let (Some((buf, used)), Some(complete)) = (full, complete) {
        complete(device_num as c_int, buf as *mut c_void, used, 0, 1);
    }
}

/// Records a target region's beginning or end on `device_num` (if its trace wants it).
pub(super) fn region(
    device_num: usize,
    kind: c_int,
    endpoint: c_int,
    task_id: u64,
    target_id: u64,
    code: usize,
) {
    let Some(code_kind) = wanted(device_num, TARGET, TARGET_EMI) else {
        return;
    };
    let mut body = Body { raw: [0; 9] };
    body.target = TargetRecord {
        kind,
        endpoint,
        device_num: device_num as c_int,
        _pad: 0,
        task_id,
        target_id,
        codeptr_ra: code,
    };
    let rec = Record {
        kind: code_kind,
        _pad: 0,
        time: device_time(),
        thread_id: thread_id(),
        target_id,
        body,
    };
    write(device_num, &rec);
}

/// A data operation's or kernel's record while its device has not run it yet.
pub struct Pending {
    device_num: usize,
    code: c_int,
    target_id: u64,
    thread_id: u64,
    what: What,
}

/// The body of a pending record (its end time still to come).
enum What {
    DataOp(DataOpRecord),
    Kernel(KernelRecord),
}

/// Prepares the record of a data operation on `device_num` (`None` when its trace does not
/// want it).
#[allow(clippy::too_many_arguments)]
pub(super) fn data_op(
    device_num: usize,
    target_id: u64,
    host_op_id: u64,
    op: Op,
    t: (usize, c_int, usize, c_int, usize),
    code: usize,
) -> Option<Box<Pending>> {
    let kind = wanted(device_num, DATA_OP, DATA_OP_EMI)?;
    let (src, src_dev, dst, dst_dev, bytes) = t;
    let what = What::DataOp(DataOpRecord {
        host_op_id,
        optype: op as c_int,
        _pad0: 0,
        src_addr: src,
        src_device_num: src_dev,
        _pad1: 0,
        dest_addr: dst,
        dest_device_num: dst_dev,
        _pad2: 0,
        bytes,
        end_time: 0,
        codeptr_ra: code,
    });
    Some(pending(device_num, kind, target_id, what))
}

/// Prepares the record of a kernel of `teams` teams on `device_num`.
pub(super) fn kernel(
    device_num: usize,
    target_id: u64,
    host_op_id: u64,
    teams: u32,
) -> Option<Box<Pending>> {
    let kind = wanted(device_num, SUBMIT, SUBMIT_EMI)?;
    let what = What::Kernel(KernelRecord {
        host_op_id,
        requested_num_teams: teams,
        granted_num_teams: teams,
        end_time: 0,
    });
    Some(pending(device_num, kind, target_id, what))
}

fn pending(device_num: usize, code: c_int, target_id: u64, what: What) -> Box<Pending> {
    Box::new(Pending {
        device_num,
        code,
        target_id,
        thread_id: thread_id(),
        what,
    })
}

/// Runs `f` (which issues one operation) with `pending` offered to the device that runs it
/// ([`take_pending`]); a record the device did not take is completed with the call's times.
pub(super) fn issue<R>(pending: Option<Box<Pending>>, f: impl FnOnce() -> R) -> R {
    let Some(p) = pending else {
        return f();
    };
    let start = Instant::now();
    let outer = PENDING.try_with(|c| c.replace(Some(p))).ok().flatten();
    let r = f();
    let left = PENDING.try_with(|c| c.replace(outer)).ok().flatten();
    if let Some(p) = left {
        complete(*p, start, Instant::now());
    }
    r
}

/// Runs `f`, the operation of the record `pending` (if any), and completes the record with the
/// times `f` ran.
pub fn run_traced<R>(pending: Option<Box<Pending>>, f: impl FnOnce() -> R) -> R {
    let Some(p) = pending else {
        return f();
    };
    let start = Instant::now();
    let r = f();
    complete(*p, start, Instant::now());
    r
}

/// The record of the operation being issued on this thread, for a device that runs it later
/// and completes it once it has run ([`run_traced`]: host devices' streams; [`complete`]: CUDA
/// devices, with their events' times).
pub fn take_pending() -> Option<Box<Pending>> {
    if !ANY.load(Ordering::Relaxed) {
        return None;
    }
    PENDING.try_with(|c| c.borrow_mut().take()).ok().flatten()
}

/// Completes an operation's record with the times it ran, and writes it.
pub fn complete(p: Pending, start: Instant, end: Instant) {
    let Pending {
        device_num,
        code,
        target_id,
        thread_id,
        what,
    } = p;
    let end_time = ns_at(end);
    let mut body = Body { raw: [0; 9] };
    match what {
        What::DataOp(d) => body.data_op = DataOpRecord { end_time, ..d },
        What::Kernel(k) => body.kernel = KernelRecord { end_time, ..k },
    }
    let rec = Record {
        kind: code,
        _pad: 0,
        time: ns_at(start),
        thread_id,
        target_id,
        body,
    };
    write(device_num, &rec);
}
