//! Chunk schedules of `target spread` constructs: which iterations go to which device.
//!
//! A [`Schedule`] produces its chunks on demand, so a region's memory does not depend on how
//! many chunks it has (a 2^40-iteration loop with chunk 1 builds no list).

use std::iter::FusedIterator;

/// A piece of a spread construct's iteration range and its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// First iteration.
    pub lo: i64,
    /// One past the last iteration.
    pub hi: i64,
    /// The device the chunk runs on.
    pub device: i32,
}

impl Chunk {
    /// Number of iterations (`omp_spread_size`); 0 for an empty chunk, saturating at
    /// `i64::MAX`.
    pub fn len(&self) -> i64 {
        self.hi.saturating_sub(self.lo).max(0)
    }

    /// Whether the chunk has no iteration.
    pub fn is_empty(&self) -> bool {
        self.hi <= self.lo
    }
}

/// The static schedule of seed 000, produced lazily: with `chunk > 0`, chunks of `chunk`
/// iterations dealt to `devices` round-robin in list order (`spread_schedule(static, chunk)`,
/// `chunk_size(chunk)`); otherwise one contiguous chunk per device, sizes differing by at most
/// one, devices without an iteration left out.
///
/// The iterator holds the device list and a cursor, nothing per chunk; it never overflows, also
/// for ranges that end at `i64::MAX` or span more than `i64::MAX` iterations.
#[derive(Debug, Clone)]
pub struct Schedule {
    devices: Box<[i32]>,
    /// First iteration of the next chunk.
    lo: i64,
    /// One past the last iteration of the range.
    ub: i64,
    /// Chunk size; 0 or less: one block per device.
    chunk: i64,
    /// Index in `devices` of the next chunk's device.
    k: usize,
    /// One block per device: every device gets `base` iterations, the first `extra` one more.
    base: u64,
    extra: u64,
}

impl Schedule {
    /// The schedule of `[lb, ub)` (empty when `ub <= lb` or `devices` is empty) over `devices`
    /// with chunk size `chunk`.
    pub fn new(lb: i64, ub: i64, devices: impl Into<Box<[i32]>>, chunk: i64) -> Schedule {
        let devices = devices.into();
        let (mut base, mut extra) = (0, 0);
        if ub > lb && chunk <= 0 && !devices.is_empty() {
            // `abs_diff` is exact for every pair of i64 (the length may exceed i64::MAX).
            let len = ub.abs_diff(lb);
            let n = devices.len() as u64;
            (base, extra) = (len / n, len % n);
        }
        Schedule {
            devices,
            lo: lb,
            ub,
            chunk,
            k: 0,
            base,
            extra,
        }
    }

    /// The devices chunks are dealt to, in list order.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }
}

impl Iterator for Schedule {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        if self.lo >= self.ub || self.k >= self.devices.len() {
            return None;
        }
        let device = self.devices[self.k];
        let lo = self.lo;
        let hi = if self.chunk > 0 {
            self.k = (self.k + 1) % self.devices.len();
            lo.saturating_add(self.chunk).min(self.ub)
        } else {
            let size = self.base + u64::from((self.k as u64) < self.extra);
            self.k += 1;
            if size == 0 {
                // Only once every iteration is dealt: the devices left get none.
                self.k = self.devices.len();
                return None;
            }
            // lo + size <= ub, so the sum is an i64 even when `size` is not.
            lo.wrapping_add_unsigned(size)
        };
        self.lo = hi;
        Some(Chunk { lo, hi, device })
    }
}

impl FusedIterator for Schedule {}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(lo: i64, hi: i64, device: i32) -> Chunk {
        Chunk { lo, hi, device }
    }

    fn chunks(lb: i64, ub: i64, devices: &[i32], chunk: i64) -> Vec<Chunk> {
        Schedule::new(lb, ub, devices.to_vec(), chunk).collect()
    }

    /// The eager schedule this module had before chunks were produced lazily (kept verbatim as
    /// the reference; its block form overflows for ranges longer than i64::MAX).
    fn eager(lb: i64, ub: i64, devices: &[i32], chunk: i64) -> Vec<Chunk> {
        let mut out = Vec::new();
        if ub <= lb || devices.is_empty() {
            return out;
        }
        if chunk > 0 {
            let mut lo = lb;
            let mut k = 0usize;
            while lo < ub {
                let hi = lo.saturating_add(chunk).min(ub);
                out.push(Chunk {
                    lo,
                    hi,
                    device: devices[k % devices.len()],
                });
                lo = hi;
                k += 1;
            }
            return out;
        }
        let n = devices.len() as i64;
        let len = ub - lb;
        let (base, extra) = (len / n, len % n);
        let mut lo = lb;
        for (k, &device) in devices.iter().enumerate() {
            let size = base + i64::from((k as i64) < extra);
            if size == 0 {
                continue;
            }
            out.push(Chunk {
                lo,
                hi: lo + size,
                device,
            });
            lo += size;
        }
        out
    }

    #[test]
    fn lazy_schedule_equals_the_eager_one() {
        let starts = [
            i64::MIN,
            i64::MIN + 3,
            -1000,
            -5,
            -1,
            0,
            1,
            7,
            1 << 40,
            i64::MAX - 100,
            i64::MAX - 10,
            i64::MAX - 1,
            i64::MAX,
        ];
        let lengths = [-7, -1, 0, 1, 2, 3, 4, 5, 7, 10, 13, 64, 101, 1000];
        let lists: [&[i32]; 7] = [
            &[],
            &[0],
            &[1, 1],
            &[2, 0, 1],
            &[3, 1, 2, 0],
            &[5, 4, 3, 2, 1, 0, 7],
            &[0, 1, 0, 2, 0],
        ];
        let sizes = [
            -3,
            0,
            1,
            2,
            3,
            4,
            5,
            7,
            13,
            100,
            999,
            1001,
            i64::MAX - 1,
            i64::MAX,
        ];
        let mut cases = 0;
        for &lb in &starts {
            for &len in &lengths {
                // Ranges whose end is not an i64 cannot reach the runtime.
                let Some(ub) = lb.checked_add(len) else {
                    continue;
                };
                for devices in lists {
                    for &chunk in &sizes {
                        assert_eq!(
                            chunks(lb, ub, devices, chunk),
                            eager(lb, ub, devices, chunk),
                            "lb {lb} ub {ub} devices {devices:?} chunk {chunk}"
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 10_000, "{cases}");
    }

    #[test]
    fn papers_example_chunk_4() {
        // N = 14, for (i = 1; i < N - 1; i++), devices(2,0,1), spread_schedule(static, 4).
        assert_eq!(
            chunks(1, 13, &[2, 0, 1], 4),
            vec![c(1, 5, 2), c(5, 9, 0), c(9, 13, 1)]
        );
    }

    #[test]
    fn papers_example_chunk_2() {
        assert_eq!(
            chunks(1, 13, &[2, 0, 1], 2),
            vec![
                c(1, 3, 2),
                c(3, 5, 0),
                c(5, 7, 1),
                c(7, 9, 2),
                c(9, 11, 0),
                c(11, 13, 1)
            ]
        );
    }

    #[test]
    fn last_chunk_is_short() {
        assert_eq!(
            chunks(0, 10, &[0, 1], 4),
            vec![c(0, 4, 0), c(4, 8, 1), c(8, 10, 0)]
        );
    }

    #[test]
    fn one_block_per_device_without_chunk() {
        assert_eq!(
            chunks(0, 10, &[3, 1, 2], 0),
            vec![c(0, 4, 3), c(4, 7, 1), c(7, 10, 2)]
        );
        // Fewer iterations than devices: no empty chunks.
        assert_eq!(chunks(5, 7, &[0, 1, 2, 3], 0), vec![c(5, 6, 0), c(6, 7, 1)]);
    }

    #[test]
    fn empty_ranges() {
        assert!(chunks(5, 5, &[0], 4).is_empty());
        assert!(chunks(5, 1, &[0], 0).is_empty());
        assert!(chunks(0, 5, &[], 2).is_empty());
        assert!(chunks(i64::MAX, i64::MAX, &[0, 1], 1).is_empty());
        assert!(chunks(i64::MAX, i64::MIN, &[0, 1], 0).is_empty());
    }

    #[test]
    fn chunk_larger_than_the_range() {
        assert_eq!(chunks(3, 8, &[1, 0], 100), vec![c(3, 8, 1)]);
        assert_eq!(chunks(-8, -3, &[1, 0], i64::MAX), vec![c(-8, -3, 1)]);
    }

    #[test]
    fn ranges_at_the_limits_of_i64_do_not_overflow() {
        let m = i64::MAX;
        assert_eq!(
            chunks(m - 10, m, &[0, 1], 4),
            vec![c(m - 10, m - 6, 0), c(m - 6, m - 2, 1), c(m - 2, m, 0)]
        );
        assert_eq!(chunks(m - 10, m, &[0, 1], m), vec![c(m - 10, m, 0)]);
        assert_eq!(
            chunks(m - 10, m, &[0, 1, 2], 0),
            vec![c(m - 10, m - 6, 0), c(m - 6, m - 3, 1), c(m - 3, m, 2)]
        );
        assert_eq!(
            chunks(i64::MIN, i64::MIN + 3, &[4], 2),
            vec![
                c(i64::MIN, i64::MIN + 2, 4),
                c(i64::MIN + 2, i64::MIN + 3, 4)
            ]
        );
        // The whole i64 range: 2^64 - 1 iterations, more than an i64 can count.
        assert_eq!(
            chunks(i64::MIN, m, &[0, 1], 0),
            vec![c(i64::MIN, 0, 0), c(0, m, 1)]
        );
        assert_eq!(
            chunks(i64::MIN, m, &[0, 1], m),
            vec![c(i64::MIN, -1, 0), c(-1, m - 1, 1), c(m - 1, m, 0)]
        );
    }

    #[test]
    fn huge_schedules_are_produced_on_demand() {
        // 2^40 chunks of one iteration: the schedule holds a cursor, not a list.
        let mut s = Schedule::new(0, 1 << 40, vec![2, 0, 1], 1);
        assert_eq!(
            s.by_ref().take(4).collect::<Vec<_>>(),
            vec![c(0, 1, 2), c(1, 2, 0), c(2, 3, 1), c(3, 4, 2)]
        );
        assert_eq!(s.nth(999_995), Some(c(999_999, 1_000_000, 2)));
        assert_eq!(s.devices(), &[2, 0, 1]);
        assert!(std::mem::size_of::<Schedule>() <= 64);
        // Exhausted schedules stay exhausted.
        let mut s = Schedule::new(0, 3, vec![0, 1], 2);
        assert_eq!(s.by_ref().count(), 2);
        assert_eq!(s.next(), None);
        assert_eq!(s.next(), None);
    }
}
