//! Other processes of this host.

/// Whether process `pid` exists (`None` when that cannot be told: no permission to signal it,
/// or a pid that does not fit).
pub fn exists(pid: u32) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: signal 0 only checks that the process exists and may be signalled; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    if r == 0 {
        return Some(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ESRCH) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_exists() {
        assert_eq!(exists(std::process::id()), Some(true));
    }
}
