//! Ping-pong detection: a spread kernel whose blocks keep fetching their resident data from
//! other devices costs more in copies than it gains in parallelism.
//!
//! Halo exchange moves a small fraction of what a block uses. When a kernel the pass accepts
//! alternates with kernels that run on one device over the same resident arrays (HeCBench
//! reaction: 3 spread kernels and 6 refused ones), every spread launch first brings most of its
//! data back from that device and the next one-device kernel gathers it again: 62.9 GB moved
//! between devices for 75 MB of data. After [`STRIKES`] such launches in a row the kernel stays
//! on one device, where the others already run.

/// Consecutive churning launches after which a kernel stops being spread.
pub const STRIKES: u32 = 3;

/// A launch churns when more than `1/FRACTION` of the resident bytes its blocks use came from
/// other devices.
pub const FRACTION: u64 = 4;

/// One kernel's record.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Churn {
    strikes: u32,
    /// Bytes moved between devices by the launches counted in `strikes`.
    moved: u64,
    pinned: bool,
}

impl Churn {
    /// Records a spread launch whose blocks used `used` bytes of resident data, `moved` of
    /// them brought from other devices. True when this launch makes the kernel stop spreading.
    pub fn record(&mut self, moved: u64, used: u64) -> bool {
        if self.pinned {
            return false;
        }
        if used == 0 || moved.saturating_mul(FRACTION) <= used {
            self.strikes = 0;
            self.moved = 0;
            return false;
        }
        self.strikes += 1;
        self.moved = self.moved.saturating_add(moved);
        self.pinned = self.strikes >= STRIKES;
        self.pinned
    }

    /// Why the kernel is no longer spread, once it is not.
    pub fn reason(&self) -> Option<String> {
        self.pinned.then(|| {
            format!(
                "its last {} spread launches brought most of their resident data from other devices ({} bytes): it stays on one device",
                self.strikes, self.moved
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halo_exchange_never_pins() {
        let mut c = Churn::default();
        for _ in 0..100 {
            assert!(!c.record(16, 80_000));
        }
        assert_eq!(c.reason(), None);
    }

    #[test]
    fn consecutive_churning_launches_pin_once() {
        let mut c = Churn::default();
        assert!(!c.record(60_000, 80_000));
        assert!(!c.record(60_000, 80_000));
        assert!(c.record(60_000, 80_000));
        assert!(!c.record(60_000, 80_000));
        let why = c.reason().unwrap_or_default();
        assert!(why.contains("last 3 spread launches"), "{why}");
        assert!(why.contains("180000 bytes"), "{why}");
    }

    #[test]
    fn a_quiet_launch_resets_the_count() {
        let mut c = Churn::default();
        assert!(!c.record(60_000, 80_000));
        assert!(!c.record(60_000, 80_000));
        assert!(!c.record(0, 80_000));
        assert!(!c.record(60_000, 80_000));
        assert!(!c.record(60_000, 80_000));
        assert_eq!(c.reason(), None);
        assert!(c.record(60_000, 80_000));
    }

    #[test]
    fn launches_without_resident_data_do_not_count() {
        let mut c = Churn::default();
        for _ in 0..10 {
            assert!(!c.record(0, 0));
        }
        assert_eq!(c.reason(), None);
    }
}
