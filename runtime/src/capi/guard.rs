//! The one wrapper every exported C function, and every callback C code calls (the OMPT tool's),
//! runs its body in: a Rust panic must not unwind into
//! C (Rust aborts then, without a word of why), so it is caught here and reported as libomptarget
//! reports a fatal error, naming the entry point and the panic's message, before the process
//! aborts as libomptarget's fatal path does.
//!
//! Test hook: `SPREAD_TEST_PANIC=<entry point>` makes that entry point panic on its first line,
//! so tests can check the report (see docs/runtime.md). Nothing else reads it.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// The entry point `SPREAD_TEST_PANIC` names, if any.
fn test_panic_entry() -> Option<&'static str> {
    static ENTRY: OnceLock<Option<String>> = OnceLock::new();
    ENTRY
        .get_or_init(|| {
            std::env::var("SPREAD_TEST_PANIC")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .as_deref()
}

/// The text of a panic's payload (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn payload_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// Runs `body`, returning its value, or the fatal message for entry point `entry` when it
/// panicked.
pub(crate) fn catch<R>(entry: &str, body: impl FnOnce() -> R) -> Result<R, String> {
    // AssertUnwindSafe: after a panic nothing of the runtime's state is used again; the process
    // aborts (see `guard`).
    catch_unwind(AssertUnwindSafe(|| {
        if test_panic_entry() == Some(entry) {
            panic!("SPREAD_TEST_PANIC={entry}");
        }
        body()
    }))
    .map_err(|p| {
        format!(
            "internal error in {entry}: {} (Spread's runtime panicked; please report this)",
            payload_message(&*p)
        )
    })
}

/// Runs the body of exported function `entry`; a panic in it prints
/// `omptarget fatal error 1: internal error in <entry>: <message> ...` and aborts.
pub(crate) fn guard<R>(entry: &str, body: impl FnOnce() -> R) -> R {
    match catch(entry, body) {
        Ok(r) => r,
        Err(msg) => crate::runtime::report::fatal(1, &msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_body_value() {
        assert_eq!(catch("f", || 42), Ok(42));
        assert_eq!(guard("f", || "x"), "x");
    }

    #[test]
    fn a_panic_becomes_a_message_naming_entry_and_cause() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {})); // keep the test output quiet
        let r: Result<(), String> = catch("__tgt_target_kernel", || panic!("bad {}", 7));
        let s: Result<(), String> = catch("omp_target_alloc", || panic!("static text"));
        let t: Result<(), String> = catch("omp_free", || std::panic::panic_any(3u8));
        std::panic::set_hook(prev);
        let r = r.expect_err("panicked");
        assert!(
            r.starts_with("internal error in __tgt_target_kernel: bad 7"),
            "{r}"
        );
        assert!(s
            .expect_err("panicked")
            .contains("omp_target_alloc: static text"));
        assert!(t.expect_err("panicked").contains("omp_free: (no message)"));
    }
}
