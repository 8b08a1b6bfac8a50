//! The device tracing entry points a tool finds with each device's lookup function
//! (`device_initialize`): OpenMP 5.2's `ompt_set_trace_ompt`, `ompt_start_trace`,
//! `ompt_pause_trace`, `ompt_flush_trace`, `ompt_stop_trace`, `ompt_advance_buffer_cursor`,
//! `ompt_get_record_type`, `ompt_get_record_ompt`, `ompt_get_device_time` and
//! `ompt_translate_time`. Each decodes its arguments and calls `crate::ompt`'s tracing; the
//! device argument is the `ompt_device_t *` the tool received with `device_initialize` (the
//! device's number plus one).

use super::super::guard::guard;
use crate::ompt;
use crate::sys::mem;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// `ompt_record_ompt` (`ompt_record_t`).
const RECORD_OMPT: c_int = 1;

/// The device number of an `ompt_device_t *` (`None`: not one the runtime handed out).
fn device_of(device: *mut c_void) -> Option<usize> {
    (device as usize).checked_sub(1)
}

/// The device lookup function: the tracing entry points by name, null for anything else.
pub(in crate::capi) extern "C" fn lookup(name: *const c_char) -> *const c_void {
    guard("ompt device lookup", || {
        // SAFETY: OMPT's lookup contract: `name` is null or a NUL-terminated string of the
        // tool's, alive for the call.
        let Some(name) = (unsafe { mem::c_string(name) }) else {
            return std::ptr::null();
        };
        match name.as_str() {
            "ompt_set_trace_ompt" => set_trace_ompt as *const c_void,
            "ompt_start_trace" => start_trace as *const c_void,
            "ompt_pause_trace" => pause_trace as *const c_void,
            "ompt_flush_trace" => flush_trace as *const c_void,
            "ompt_stop_trace" => stop_trace as *const c_void,
            "ompt_advance_buffer_cursor" => advance_buffer_cursor as *const c_void,
            "ompt_get_record_type" => get_record_type as *const c_void,
            "ompt_get_record_ompt" => get_record_ompt as *const c_void,
            "ompt_get_device_time" => get_device_time as *const c_void,
            "ompt_translate_time" => translate_time as *const c_void,
            _ => std::ptr::null(),
        }
    })
}

extern "C" fn set_trace_ompt(device: *mut c_void, enable: c_uint, etype: c_uint) -> c_int {
    guard("ompt_set_trace_ompt", || match device_of(device) {
        Some(d) => ompt::set_trace(d, enable != 0, c_int::try_from(etype).unwrap_or(-1)),
        None => ompt::SET_NEVER,
    })
}

extern "C" fn start_trace(
    device: *mut c_void,
    request: Option<ompt::BufferRequest>,
    complete: Option<ompt::BufferComplete>,
) -> c_int {
    guard("ompt_start_trace", || {
        device_of(device).map_or(0, |d| ompt::start_trace(d, request, complete))
    })
}

extern "C" fn pause_trace(device: *mut c_void, begin_pause: c_int) -> c_int {
    guard("ompt_pause_trace", || {
        device_of(device).map_or(0, |d| ompt::pause_trace(d, begin_pause != 0))
    })
}

extern "C" fn flush_trace(device: *mut c_void) -> c_int {
    guard("ompt_flush_trace", || {
        device_of(device).map_or(0, ompt::flush_trace)
    })
}

extern "C" fn stop_trace(device: *mut c_void) -> c_int {
    guard("ompt_stop_trace", || {
        device_of(device).map_or(0, ompt::stop_trace)
    })
}

/// Moves the cursor to the next record of a buffer of `size` bytes; 0 at its end.
extern "C" fn advance_buffer_cursor(
    _device: *mut c_void,
    _buffer: *mut c_void,
    size: usize,
    current: u64,
    next: *mut u64,
) -> c_int {
    guard("ompt_advance_buffer_cursor", || {
        let n = current.saturating_add(ompt::RECORD_BYTES as u64);
        if next.is_null() || n.saturating_add(ompt::RECORD_BYTES as u64) > size as u64 {
            return 0;
        }
        // SAFETY: OMPT's contract: `next` points at the tool's cursor variable (checked non-null).
        unsafe { mem::write_array(next, &[n]) };
        1
    })
}

extern "C" fn get_record_type(_buffer: *mut c_void, _current: u64) -> c_int {
    RECORD_OMPT
}

/// The record at `current` in `buffer` (the runtime writes only `ompt_record_ompt_t`s).
extern "C" fn get_record_ompt(buffer: *mut c_void, current: u64) -> *mut c_void {
    if buffer.is_null() {
        return std::ptr::null_mut();
    }
    (buffer as usize).wrapping_add(current as usize) as *mut c_void
}

extern "C" fn get_device_time(_device: *mut c_void) -> u64 {
    ompt::device_time()
}

extern "C" fn translate_time(_device: *mut c_void, time: u64) -> f64 {
    ompt::translate_time(time)
}
