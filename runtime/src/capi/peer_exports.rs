//! The C ABI of peer copies between devices and device waits (seed 003, spread.h): the user's
//! `spread_update_peer` and `spread_device_wait`, and the lowering's `__spread_update_peer` and
//! `__spread_device_wait` for `target update peer` and `wait device(d)` (docs/spread-abi.md).

use super::guard::guard;
use super::memory::error;
use crate::error::Error;
use crate::peer;
use crate::runtime;
use crate::runtime::report;
use std::ffi::{c_int, c_void};

#[no_mangle]
pub extern "C" fn spread_update_peer(
    dst: *mut c_void,
    dst_dev: c_int,
    src: *const c_void,
    src_dev: c_int,
    bytes: usize,
) -> c_int {
    guard("spread_update_peer", || {
        if bytes > 0 && (dst.is_null() || src.is_null()) {
            eprintln!("spread: spread_update_peer: null address");
            return 1;
        }
        let rt = runtime::get();
        match peer::update_peer(
            rt,
            dst as usize,
            i64::from(dst_dev),
            src as usize,
            i64::from(src_dev),
            bytes,
        ) {
            Ok(()) => 0,
            Err(e) => {
                error("spread_update_peer", &e);
                1
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn spread_device_wait(device: c_int) -> c_int {
    guard("spread_device_wait", || {
        match peer::device_wait(runtime::get(), i64::from(device)) {
            Ok(()) => 0,
            Err(e) => {
                error("spread_device_wait", &e);
                1
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn __spread_update_peer(
    c: *const super::spread_exports::ConstructC,
    dst: *mut c_void,
    dst_bytes: usize,
    dst_dev: i32,
    src: *const c_void,
    src_bytes: usize,
    src_dev: i32,
) {
    guard("__spread_update_peer", || {
        let rt = runtime::get();
        let r = if dst_bytes != src_bytes {
            Err(Error::new(
            crate::error::ErrorKind::Invalid,
            format!("target update peer: the to item has {dst_bytes} bytes but the from item has {src_bytes}"),
        ))
        } else {
            peer::update_peer(
                rt,
                dst as usize,
                i64::from(dst_dev),
                src as usize,
                i64::from(src_dev),
                dst_bytes,
            )
        };
        if let Err(e) = r {
            report::fatal_construct(
                rt,
                &e.context("target update peer failed".to_string()),
                Some(&super::spread_exports::construct_of(c, "__spread_update_peer").location()),
            );
        }
    })
}

#[no_mangle]
pub extern "C" fn __spread_device_wait(c: *const super::spread_exports::ConstructC, device: i32) {
    guard("__spread_device_wait", || {
        let rt = runtime::get();
        if let Err(e) = peer::device_wait(rt, i64::from(device)) {
            report::fatal_construct(
                rt,
                &e.context("wait device failed".to_string()),
                Some(&super::spread_exports::construct_of(c, "__spread_device_wait").location()),
            );
        }
    })
}
