//! The runtime's SIGSEGV and SIGBUS handler, installed when host devices first allocate guarded
//! memory (`device/host/guarded.rs`): it hands a fault the hardware raised to the runtime's
//! reporter (`runtime/fault.rs`), which ends the process when the fault is its own (a kernel
//! that ran into a guard region) and returns otherwise; then the fault goes on to the handler
//! the program had before, or to the default action, as if Spread had not been there.
//!
//! The handler runs on the thread's alternate signal stack when it has one (`SA_ONSTACK`),
//! keeps `SA_SIGINFO` semantics for the previous handler (called with the same three arguments,
//! or with the signal alone when it was installed without `SA_SIGINFO`), and blocks both signals
//! while it runs, so that a fault inside the report ends the process at once. A program or tool
//! that installs its own handler later replaces this one, as it would any other.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

/// A fault the hardware raised on the calling thread.
#[derive(Debug, Clone, Copy)]
pub struct Fault {
    /// `SIGSEGV` or `SIGBUS`.
    pub signal: i32,
    /// The address whose access faulted (`si_addr`).
    pub addr: usize,
    /// Whether the fault ends the process when the reporter declines it (no handler of the
    /// program's comes next, only the default action).
    pub fatal_otherwise: bool,
    /// The faulting instruction's address (0 where the architecture's context is not read).
    pub pc: usize,
}

/// What the runtime does with a fault: it does not return when the fault is its own.
pub type Reporter = fn(&Fault);

static REPORTER: OnceLock<Reporter> = OnceLock::new();
/// The actions the program had for SIGSEGV and SIGBUS when the handler was installed.
static PREVIOUS: [OnceLock<libc::sigaction>; 2] = [OnceLock::new(), OnceLock::new()];
const SIGNALS: [c_int; 2] = [libc::SIGSEGV, libc::SIGBUS];

/// Sets the reporter (once; later calls change nothing).
pub fn set_reporter(r: Reporter) {
    let _ = REPORTER.set(r);
}

/// Installs the handler for SIGSEGV and SIGBUS, once per process.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: a zeroed sigaction is a valid value; sigaction with a null new action only
            // reads the current one into it.
            let old = unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                    continue;
                }
                old
            };
            // Kept before the handler can run, so that it always knows where to chain.
            let _ = PREVIOUS[i].set(old);
            // SAFETY: a zeroed sigaction is a valid value to fill in; the mask functions get a
            // valid set, and `handler` has the three-argument signature SA_SIGINFO calls.
            unsafe {
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = handler as *const () as usize;
                new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut new.sa_mask);
                for s in SIGNALS {
                    libc::sigaddset(&mut new.sa_mask, s);
                }
                libc::sigaction(sig, &new, std::ptr::null_mut());
            }
        }
    });
}

/// The action the program had for `sig` before the handler was installed.
fn previous(sig: c_int) -> Option<&'static libc::sigaction> {
    SIGNALS
        .iter()
        .position(|&s| s == sig)
        .and_then(|i| PREVIOUS[i].get())
}

/// Whether `act` leaves a hardware fault to the default action (which ends the process).
fn is_default(act: Option<&libc::sigaction>) -> bool {
    act.is_none_or(|a| a.sa_sigaction == libc::SIG_DFL || a.sa_sigaction == libc::SIG_IGN)
}

extern "C" fn handler(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo to a handler installed with SA_SIGINFO; for
    // SIGSEGV and SIGBUS its address field is the faulting address.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    let prev = previous(sig);
    // si_code > 0: raised by the hardware, not sent by kill(2) or raise(3).
    if code > 0 {
        if let Some(report) = REPORTER.get() {
            report(&Fault {
                signal: sig,
                addr,
                fatal_otherwise: is_default(prev),
                pc: pc_of(ctx),
            });
        }
    }
    chain(sig, info, ctx, code, prev);
}

/// The faulting instruction's address in the context a `SA_SIGINFO` handler receives.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn pc_of(ctx: *mut c_void) -> usize {
    if ctx.is_null() {
        return 0;
    }
    // SAFETY: the kernel passes a valid ucontext_t as a SA_SIGINFO handler's third argument;
    // on x86_64 Linux its general registers hold the instruction pointer at REG_RIP.
    unsafe {
        let uc = &*(ctx as *const libc::ucontext_t);
        uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize
    }
}

/// The faulting instruction's address: not read on this architecture.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn pc_of(_ctx: *mut c_void) -> usize {
    0
}

/// Passes the signal on to the program's previous handler, or to the default action.
fn chain(
    sig: c_int,
    info: *mut libc::siginfo_t,
    ctx: *mut c_void,
    code: c_int,
    prev: Option<&libc::sigaction>,
) {
    match prev {
        Some(p) if !is_default(Some(p)) => {
            if p.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the program installed this address as a three-argument handler
                // (SA_SIGINFO), which it is called as, with the arguments this one received.
                let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                    unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                // SAFETY: installed without SA_SIGINFO, the address is a one-argument handler.
                let f: extern "C" fn(c_int) = unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig);
            }
        }
        Some(p) if p.sa_sigaction == libc::SIG_IGN && code <= 0 => {} // a sent signal, ignored
        _ => {
            // The default action: restored, so that the faulting instruction, run again when
            // this returns, ends the process as it would have without Spread; a signal sent
            // with kill(2) is raised again (it stays pending until the handler returns).
            // SAFETY: a zeroed sigaction with SIG_DFL (0) is the default action; raise(3) is
            // async-signal-safe.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut dfl.sa_mask);
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
                if code <= 0 {
                    libc::raise(sig);
                }
            }
        }
    }
}

/// Writes `bytes` to standard error with write(2) (async-signal-safe: for reports from the
/// handler, which must not allocate or take locks).
pub fn write_stderr(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: writes from a live slice of `rest.len()` bytes.
        let n = unsafe { libc::write(2, rest.as_ptr() as *const c_void, rest.len()) };
        match usize::try_from(n) {
            Ok(0) => return,
            Ok(n) => rest = &rest[n.min(rest.len())..],
            Err(_) if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
            }
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_and_ignore_are_the_default_action() {
        assert!(is_default(None));
        // SAFETY: zeroed is SIG_DFL.
        let mut a: libc::sigaction = unsafe { std::mem::zeroed() };
        assert!(is_default(Some(&a)));
        a.sa_sigaction = libc::SIG_IGN;
        assert!(is_default(Some(&a)));
        a.sa_sigaction = handler as *const () as usize;
        assert!(!is_default(Some(&a)));
    }
}
