//! `LIBOMPTARGET_INFO` diagnostics, printed in libomptarget's words so existing tools and
//! habits keep working.

use std::sync::atomic::{AtomicU32, Ordering};

/// Bits of `LIBOMPTARGET_INFO`.
pub mod bits {
    /// `OMP_INFOTYPE_KERNEL_ARGS`: list each construct's map arguments before it runs.
    pub const KERNEL_ARGS: u32 = 0x1;
    /// `OMP_INFOTYPE_MAPPING_EXISTS`: report a map of data that is already on the device.
    pub const MAPPING_EXISTS: u32 = 0x2;
    /// `OMP_INFOTYPE_DUMP_TABLE`: dump the mapping tables after each construct and on a failure.
    pub const DUMP_TABLE: u32 = 0x4;
    /// `OMP_INFOTYPE_MAPPING_CHANGED`: report entries created and removed.
    pub const MAPPING_CHANGED: u32 = 0x8;
    /// `OMP_INFOTYPE_PLUGIN_KERNEL`: report each kernel launch and its grid.
    pub const KERNEL_LAUNCH: u32 = 0x10;
    /// `OMP_INFOTYPE_DATA_TRANSFER`: report each copy between host and device.
    pub const DATA_TRANSFER: u32 = 0x20;
    /// `OMP_INFOTYPE_EMPTY_MAPPING`: report a variable that has no device counterpart.
    pub const EMPTY_MAPPING: u32 = 0x40;
}

static FLAGS: AtomicU32 = AtomicU32::new(0);

/// Sets the active bits (from the environment at start-up, or `__tgt_set_info_flag`).
pub fn set_flags(f: u32) {
    FLAGS.store(f, Ordering::Relaxed);
}

/// Whether any of `bit` is enabled.
#[inline]
pub fn enabled(bit: u32) -> bool {
    FLAGS.load(Ordering::Relaxed) & bit != 0
}

/// Prints one `SPREAD_INFO` line (`spread: ...`).
pub fn spread_line(line: &str) {
    eprintln!("spread: {line}");
}

/// Prints one info line for `device`.
pub fn print(device: usize, line: std::fmt::Arguments<'_>) {
    eprintln!("omptarget device {device} info: {line}");
}

/// Prints an info line when `$bit` is enabled; the arguments are not evaluated otherwise.
#[macro_export]
macro_rules! info {
    ($bit:expr, $dev:expr, $($arg:tt)*) => {
        if $crate::info::enabled($bit) {
            $crate::info::print($dev, format_args!($($arg)*));
        }
    };
}

/// Formats an address as libomptarget does (`0x` and 16 hex digits).
pub fn ptr(p: usize) -> String {
    format!("0x{p:016x}")
}

/// The variable name of a map entry's name string, or "unknown".
pub fn var_name(name: usize) -> String {
    if name == 0 {
        return "unknown".into();
    }
    crate::sys::access::entry_name(name).map_or_else(
        || "unknown".into(),
        |s| crate::location::SourceLoc::var_name(&s),
    )
}

/// `'name' (declared at file:line:col)` of a map entry's name string, for messages (clang
/// records the variable's declaration, not the construct that mapped it); `None` without a
/// name.
pub fn declared(name: usize) -> Option<String> {
    if name == 0 {
        return None;
    }
    let d = declaration(name);
    match d.split_once(" at ") {
        Some(("unknown", _)) => None,
        Some((n, at)) if !at.starts_with("unknown") => Some(format!("'{n}' (declared at {at})")),
        Some((n, _)) => Some(format!("'{n}'")),
        None => None,
    }
}

/// `name at file:line:col` of a map entry's name string, as the table dump prints it.
pub fn declaration(name: usize) -> String {
    let s = if name == 0 {
        None
    } else {
        crate::sys::access::entry_name(name)
    };
    let mut parts = s
        .as_deref()
        .and_then(|s| s.strip_prefix(';'))
        .map(|s| s.split(';'));
    let mut next = || {
        parts
            .as_mut()
            .and_then(|p| p.next())
            .filter(|x| !x.is_empty())
    };
    let n = next().unwrap_or("unknown").to_string();
    let f = next().unwrap_or("unknown").to_string();
    let l = next().unwrap_or("0").to_string();
    let c = next().unwrap_or("0").to_string();
    format!("{n} at {f}:{l}:{c}")
}
