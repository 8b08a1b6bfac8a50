//! Memory spaces over sets of devices: the paper's `omp_get_target_memspace` and OpenMP 6.0's
//! memory-space-retrieving routines. A space names who must reach its memory (devices, and
//! possibly the host) and the predefined space whose kind of memory it prefers. Asking twice for
//! the same space gives the same handle.

use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Runtime;
use parking_lot::Mutex;
use std::collections::HashMap;

/// The predefined memory spaces, numbered as LLVM 19's `omp.h` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BaseSpace {
    /// `omp_default_mem_space` (handle 0).
    Default,
    /// `omp_large_cap_mem_space` (handle 1).
    LargeCap,
    /// `omp_const_mem_space` (handle 2).
    Const,
    /// `omp_high_bw_mem_space` (handle 3).
    HighBw,
    /// `omp_low_lat_mem_space` (handle 4).
    LowLat,
    /// `llvm_omp_target_host_mem_space` (handle 100): host memory devices can reach.
    TargetHost,
    /// `llvm_omp_target_shared_mem_space` (handle 101): memory shared by host and device.
    TargetShared,
    /// `llvm_omp_target_device_mem_space` (handle 102): a device's own memory.
    TargetDevice,
}

impl BaseSpace {
    /// The predefined space behind a handle value, if it is one.
    pub fn from_handle(h: usize) -> Option<Self> {
        Some(match h {
            0 => BaseSpace::Default,
            1 => BaseSpace::LargeCap,
            2 => BaseSpace::Const,
            3 => BaseSpace::HighBw,
            4 => BaseSpace::LowLat,
            100 => BaseSpace::TargetHost,
            101 => BaseSpace::TargetShared,
            102 => BaseSpace::TargetDevice,
            _ => return None,
        })
    }

    /// The space's name in `omp.h`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            BaseSpace::Default => "omp_default_mem_space",
            BaseSpace::LargeCap => "omp_large_cap_mem_space",
            BaseSpace::Const => "omp_const_mem_space",
            BaseSpace::HighBw => "omp_high_bw_mem_space",
            BaseSpace::LowLat => "omp_low_lat_mem_space",
            BaseSpace::TargetHost => "llvm_omp_target_host_mem_space",
            BaseSpace::TargetShared => "llvm_omp_target_shared_mem_space",
            BaseSpace::TargetDevice => "llvm_omp_target_device_mem_space",
        }
    }
}

/// Who reaches a space's memory: non-host devices (sorted, distinct) and whether the host does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Accessors {
    /// Numbers of the offload devices that reach the memory, sorted and distinct.
    pub devices: Vec<usize>,
    /// Whether the host (the initial device) reaches it too.
    pub host: bool,
}

impl Accessors {
    /// From device numbers as the program gives them; the initial device number means the host.
    pub fn from_list(rt: &Runtime, devs: &[i64], host: bool) -> Result<Self> {
        let n = rt.num_devices();
        let mut a = Accessors {
            devices: Vec::new(),
            host,
        };
        for &d in devs {
            if d == rt.initial_device() {
                a.host = true;
            } else if d >= 0 && (d as usize) < n {
                a.devices.push(d as usize);
            } else {
                // Device numbers as C programs write them: 0 to n - 1, the host n.
                let range = match n {
                    0 => "there are no devices".to_string(),
                    1 => "the only device is 0".to_string(),
                    n => format!("devices are 0 to {}", n - 1),
                };
                return Err(Error::new(
                    ErrorKind::BadDevice,
                    format!(
                        "device {d} does not exist ({range}, and {} for the host)",
                        rt.initial_device()
                    ),
                ));
            }
        }
        a.devices.sort_unstable();
        a.devices.dedup();
        Ok(a)
    }

    /// Whether the space's memory belongs to one device alone.
    pub fn device_exclusive(&self) -> Option<usize> {
        match (self.host, self.devices.as_slice()) {
            (false, [d]) => Some(*d),
            _ => None,
        }
    }

    /// `devices 0,1 + host`, for messages.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.devices.is_empty() {
            let list: Vec<String> = self.devices.iter().map(usize::to_string).collect();
            parts.push(format!(
                "device{} {}",
                if self.devices.len() > 1 { "s" } else { "" },
                list.join(",")
            ));
        }
        if self.host {
            parts.push("host".into());
        }
        parts.join(" + ")
    }
}

/// A memory space Spread made. Leaked on creation: handles stay valid for the whole run.
#[derive(Debug)]
pub struct MemSpace {
    /// Who must reach the space's memory.
    pub accessors: Accessors,
    /// The predefined space whose kind of memory this space prefers.
    pub base: BaseSpace,
    /// This space's handle value (its own address), kept in the space so that the paper's
    /// `omp_get_target_memspace` can return a pointer to a handle.
    pub handle: usize,
}

#[derive(Default)]
struct Registry {
    by_key: HashMap<(Accessors, BaseSpace), &'static MemSpace>,
    by_handle: HashMap<usize, &'static MemSpace>,
}

fn registry() -> &'static Mutex<Registry> {
    static R: std::sync::OnceLock<Mutex<Registry>> = std::sync::OnceLock::new();
    R.get_or_init(|| Mutex::new(Registry::default()))
}

/// The space behind a handle, if Spread made it.
pub fn lookup(handle: usize) -> Option<&'static MemSpace> {
    registry().lock().by_handle.get(&handle).copied()
}

/// The space for `accessors` preferring `base` (a predefined space's handle value), made on first
/// request. Errors: a base that is not a predefined space (`BadDevice` is never returned here),
/// or a space the devices cannot share (`Unsupported`).
pub fn get(rt: &Runtime, accessors: Accessors, base: usize) -> Result<&'static MemSpace> {
    let Some(base) = BaseSpace::from_handle(base) else {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!("{base:#x} is not a predefined memory space"),
        ));
    };
    if accessors.devices.is_empty() && !accessors.host {
        return Err(Error::new(ErrorKind::Invalid, "the device list is empty"));
    }
    super::provider::check_space(rt, &accessors, base)?;
    let mut r = registry().lock();
    let key = (accessors, base);
    if let Some(s) = r.by_key.get(&key) {
        return Ok(s);
    }
    let space: &'static mut MemSpace = Box::leak(Box::new(MemSpace {
        accessors: key.0.clone(),
        base,
        handle: 0,
    }));
    space.handle = space as *const MemSpace as usize;
    let space: &'static MemSpace = space;
    r.by_key.insert(key, space);
    r.by_handle.insert(space.handle, space);
    Ok(space)
}
