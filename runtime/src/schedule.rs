//! Chunk schedules of `target spread` constructs: which iterations go to which device.

/// A piece of a spread construct's iteration range and its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// First iteration.
    pub lo: i64,
    /// One past the last iteration.
    pub hi: i64,
    pub device: i32,
}

impl Chunk {
    pub fn len(&self) -> i64 {
        self.hi - self.lo
    }

    pub fn is_empty(&self) -> bool {
        self.hi <= self.lo
    }
}

/// The static schedule of seed 000: with `chunk > 0`, chunks of `chunk` iterations dealt to
/// `devices` round-robin in list order (`spread_schedule(static, chunk)`, `chunk_size(chunk)`);
/// with `chunk == 0`, one contiguous chunk per device, sizes differing by at most one.
pub fn static_chunks(lb: i64, ub: i64, devices: &[i32], chunk: i64) -> Vec<Chunk> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn c(lo: i64, hi: i64, device: i32) -> Chunk {
        Chunk { lo, hi, device }
    }

    #[test]
    fn papers_example_chunk_4() {
        // N = 14, for (i = 1; i < N - 1; i++), devices(2,0,1), spread_schedule(static, 4).
        assert_eq!(
            static_chunks(1, 13, &[2, 0, 1], 4),
            vec![c(1, 5, 2), c(5, 9, 0), c(9, 13, 1)]
        );
    }

    #[test]
    fn papers_example_chunk_2() {
        assert_eq!(
            static_chunks(1, 13, &[2, 0, 1], 2),
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
            static_chunks(0, 10, &[0, 1], 4),
            vec![c(0, 4, 0), c(4, 8, 1), c(8, 10, 0)]
        );
    }

    #[test]
    fn one_block_per_device_without_chunk() {
        assert_eq!(
            static_chunks(0, 10, &[3, 1, 2], 0),
            vec![c(0, 4, 3), c(4, 7, 1), c(7, 10, 2)]
        );
        // Fewer iterations than devices: no empty chunks.
        assert_eq!(
            static_chunks(5, 7, &[0, 1, 2, 3], 0),
            vec![c(5, 6, 0), c(6, 7, 1)]
        );
    }

    #[test]
    fn empty_ranges() {
        assert!(static_chunks(5, 5, &[0], 4).is_empty());
        assert!(static_chunks(5, 1, &[0], 0).is_empty());
        assert!(static_chunks(0, 5, &[], 2).is_empty());
    }
}
