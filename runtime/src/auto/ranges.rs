//! Sets of byte ranges: which bytes of a resident object are current where.

/// Disjoint, non-adjacent half-open ranges `[lo, hi)`, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranges(Vec<(usize, usize)>);

impl Ranges {
    /// No bytes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes `[lo, hi)`.
    pub fn of(lo: usize, hi: usize) -> Self {
        let mut r = Self::new();
        r.add(lo, hi);
        r
    }

    /// The ranges, in order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.0.iter().copied()
    }

    /// Whether no byte is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds `[lo, hi)`.
    pub fn add(&mut self, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let (mut lo, mut hi) = (lo, hi);
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut placed = false;
        for &(a, b) in &self.0 {
            if b < lo {
                out.push((a, b));
            } else if a > hi {
                if !placed {
                    out.push((lo, hi));
                    placed = true;
                }
                out.push((a, b));
            } else {
                lo = lo.min(a);
                hi = hi.max(b);
            }
        }
        if !placed {
            out.push((lo, hi));
        }
        self.0 = out;
    }

    /// Removes `[lo, hi)`.
    pub fn remove(&mut self, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let mut out = Vec::with_capacity(self.0.len() + 1);
        for &(a, b) in &self.0 {
            if b <= lo || a >= hi {
                out.push((a, b));
                continue;
            }
            if a < lo {
                out.push((a, lo));
            }
            if b > hi {
                out.push((hi, b));
            }
        }
        self.0 = out;
    }

    /// The parts of `[lo, hi)` not in the set.
    pub fn missing(&self, lo: usize, hi: usize) -> Ranges {
        let mut r = Ranges::of(lo, hi);
        for &(a, b) in &self.0 {
            r.remove(a, b);
        }
        r
    }

    /// The parts of `[lo, hi)` in the set.
    pub fn within(&self, lo: usize, hi: usize) -> Ranges {
        let mut r = Ranges::new();
        for &(a, b) in &self.0 {
            let (a, b) = (a.max(lo), b.min(hi));
            if a < b {
                r.0.push((a, b));
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_merges_and_removing_splits() {
        let mut r = Ranges::new();
        r.add(10, 20);
        r.add(30, 40);
        r.add(20, 25);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 25), (30, 40)]);
        r.add(5, 35);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(5, 40)]);
        r.remove(10, 12);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(5, 10), (12, 40)]);
        r.remove(0, 100);
        assert!(r.is_empty());
        r.add(3, 3);
        assert!(r.is_empty());
    }

    #[test]
    fn missing_and_within_cut_a_query() {
        let mut r = Ranges::of(10, 20);
        r.add(30, 40);
        assert_eq!(
            r.missing(0, 50).iter().collect::<Vec<_>>(),
            vec![(0, 10), (20, 30), (40, 50)]
        );
        assert_eq!(
            r.within(15, 35).iter().collect::<Vec<_>>(),
            vec![(15, 20), (30, 35)]
        );
        assert!(r.missing(12, 18).is_empty());
    }
}
