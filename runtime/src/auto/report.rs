//! What `SPREAD_INFO=auto` says about kernel launches: each kernel's decision the first time
//! the kernel takes it, and at exit one line per kernel with how many launches took each
//! decision. A solver that launches a kernel 10,000 times says so once, not 10,000 times; a
//! kernel whose decision changes (spread, then kept on one device for ping-pong traffic) says
//! the new decision when it first takes it.
//!
//! Decisions are told apart by what they decide, not by their wording: the devices a launch is
//! spread over, or the device it runs on and why, with the numbers of the reason left out (a
//! launch too small to spread names its iteration count, which may change with every launch).

use parking_lot::Mutex;
use std::sync::OnceLock;

/// What automatic spreading did with one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Spread over these devices.
    Spread(Vec<i32>),
    /// Run as written on `device`, because of `why`.
    Refused {
        /// The device it ran on.
        device: usize,
        /// Why it was not spread.
        why: String,
    },
    /// No descriptor, over data Spread keeps resident: run on `device`, which first got the
    /// current value of what it maps.
    Resident {
        /// The device it ran on.
        device: usize,
    },
    /// No descriptor: launched as usual.
    NoDescriptor,
}

impl Decision {
    /// Whether `self` and `other` decide the same thing (their reasons' numbers aside).
    fn same(&self, other: &Decision) -> bool {
        match (self, other) {
            (Decision::Refused { device: a, why: x }, Decision::Refused { device: b, why: y }) => {
                a == b && without_numbers(x) == without_numbers(y)
            }
            (a, b) => a == b,
        }
    }

    /// The decision in a few words, for the summary at exit.
    fn short(&self) -> String {
        match self {
            Decision::Spread(devices) => format!("spread over devices {devices:?}"),
            Decision::Refused { device, why } => format!("on device {device} ({why})"),
            Decision::Resident { device } => {
                format!("on device {device} (no descriptor, over resident data)")
            }
            Decision::NoDescriptor => "as written (no descriptor)".to_string(),
        }
    }
}

/// `why` with every run of digits as `#`.
fn without_numbers(why: &str) -> String {
    let mut out = String::with_capacity(why.len());
    let mut in_number = false;
    for c in why.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            out.push(c);
            in_number = false;
        }
    }
    out
}

/// One kernel's launches.
struct Kernel {
    region: usize,
    /// `FILE:LINE: kernel NAME` (or `kernel NAME`).
    at: String,
    launches: u64,
    /// Each decision it took (as first seen) and how many launches took it, in the order taken.
    decisions: Vec<(Decision, u64)>,
}

/// The kernels launched under `SPREAD_AUTO` so far, in the order of their first launch.
#[derive(Default)]
struct Log {
    kernels: Vec<Kernel>,
    /// Kernel index by host region id.
    index: rustc_hash::FxHashMap<usize, usize>,
}

impl Log {
    /// Counts a launch of `region` that took `decision`; `Some(n)` when the kernel takes it for
    /// the first time, at its `n`-th launch.
    fn record(
        &mut self,
        region: usize,
        at: impl FnOnce() -> String,
        decision: Decision,
    ) -> Option<u64> {
        let i = *self.index.entry(region).or_insert_with(|| {
            self.kernels.push(Kernel {
                region,
                at: at(),
                launches: 0,
                decisions: Vec::new(),
            });
            self.kernels.len() - 1
        });
        let k = &mut self.kernels[i];
        debug_assert_eq!(k.region, region);
        k.launches += 1;
        match k.decisions.iter_mut().find(|(d, _)| d.same(&decision)) {
            Some((_, n)) => {
                *n += 1;
                None
            }
            None => {
                k.decisions.push((decision, 1));
                Some(k.launches)
            }
        }
    }

    /// One line per kernel: its launches and how many took each decision.
    fn summary(&self) -> Vec<String> {
        self.kernels
            .iter()
            .map(|k| {
                let parts: Vec<String> = k
                    .decisions
                    .iter()
                    .map(|(d, n)| format!("{n} {}", d.short()))
                    .collect();
                format!(
                    "{}: {} launch{}: {}",
                    k.at,
                    k.launches,
                    if k.launches == 1 { "" } else { "es" },
                    parts.join("; ")
                )
            })
            .collect()
    }
}

fn log() -> &'static Mutex<Log> {
    static L: OnceLock<Mutex<Log>> = OnceLock::new();
    L.get_or_init(|| {
        crate::runtime::hooks::at_exit(|_| {
            for line in log().lock().summary() {
                eprintln!("spread: auto: summary: {line}");
            }
        });
        Mutex::default()
    })
}

/// Counts a launch of the kernel of host region `region` (named by `at`: `FILE:LINE: kernel
/// NAME`) that took `decision`, and prints `spread: auto: AT TEXT` (`text` says what was
/// decided and why) when the kernel takes the decision for the first time. Returns whether it
/// printed (the caller may add details then, a spread launch's blocks).
pub fn launch(
    region: usize,
    at: &dyn Fn() -> String,
    decision: Decision,
    text: impl FnOnce() -> String,
) -> bool {
    let Some(n) = log().lock().record(region, at, decision) else {
        return false;
    };
    let since = if n > 1 {
        format!(" (first at launch {n})")
    } else {
        String::new()
    };
    eprintln!("spread: auto: {} {}{since}", at(), text());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> String {
        "a.c:3: kernel k".to_string()
    }

    #[test]
    fn a_decision_is_new_once_per_kernel() {
        let mut log = Log::default();
        let spread = || Decision::Spread(vec![0, 1]);
        assert_eq!(log.record(1, at, spread()), Some(1));
        for _ in 0..9_999 {
            assert_eq!(log.record(1, at, spread()), None);
        }
        // Another kernel's first launch is news.
        assert_eq!(
            log.record(2, || "b.c:9: kernel m".into(), spread()),
            Some(1)
        );
        // A decision that changes is news when it changes, and only then.
        let pinned = || Decision::Refused {
            device: 0,
            why: "its last 3 spread launches brought most (480 bytes)".into(),
        };
        assert_eq!(log.record(1, at, pinned()), Some(10_001));
        assert_eq!(log.record(1, at, pinned()), None);
        // Back to an earlier decision: counted, not said again.
        assert_eq!(log.record(1, at, spread()), None);
        assert_eq!(
            log.summary(),
            vec![
                "a.c:3: kernel k: 10003 launches: 10001 spread over devices [0, 1]; 2 on device 0 (its last 3 spread launches brought most (480 bytes))",
                "b.c:9: kernel m: 1 launch: 1 spread over devices [0, 1]",
            ]
        );
    }

    #[test]
    fn reasons_differing_only_in_numbers_are_one_decision() {
        let small = |n: u64| Decision::Refused {
            device: 2,
            why: format!("{n} iterations, fewer than two blocks of SPREAD_AUTO_MIN=8192"),
        };
        let mut log = Log::default();
        assert_eq!(log.record(7, at, small(100)), Some(1));
        assert_eq!(log.record(7, at, small(12_000)), None);
        // The same reason on another device is another decision.
        let other = Decision::Refused {
            device: 3,
            why: "100 iterations, fewer than two blocks of SPREAD_AUTO_MIN=8192".into(),
        };
        assert_eq!(log.record(7, at, other), Some(3));
        // Different devices to spread over are different decisions.
        assert_eq!(log.record(7, at, Decision::Spread(vec![0, 1])), Some(4));
        assert_eq!(log.record(7, at, Decision::Spread(vec![0, 1, 2])), Some(5));
        assert_eq!(log.record(7, at, Decision::Resident { device: 0 }), Some(6));
        assert_eq!(log.record(7, at, Decision::NoDescriptor), Some(7));
        let line = &log.summary()[0];
        assert!(
            line.starts_with("a.c:3: kernel k: 7 launches: 2 on device 2 (100 iterations"),
            "{line}"
        );
        assert!(
            line.contains(
                "; 1 on device 0 (no descriptor, over resident data); 1 as written (no descriptor)"
            ),
            "{line}"
        );
    }

    #[test]
    fn numbers_are_masked() {
        assert_eq!(without_numbers("12 of 3456 at x2"), "# of # at x#");
    }
}
