//! Dividing a range's units among resources of unequal speed, so that all finish together
//! (seed 004's STATIC-opt): unit counts from per-resource rates, laid out as contiguous blocks in
//! resource order so that neighbouring units stay on one resource.

/// Above this many units the split is proportional (largest remainder); at or below, greedy
/// min-makespan, which is exact for the few large units of a multi-zone code (16 zones over 3
/// resources) where proportional rounding can leave one resource a whole unit late.
const GREEDY_LIMIT: u128 = 4096;

/// How much longer than the best split the previous one may be predicted to take before it is
/// replaced: small changes of the measured rates then leave the blocks, and the data they keep on
/// each device, where they were.
pub const KEEP_TOLERANCE: f64 = 0.03;

/// Unit counts for `rates` (units per second, all > 0) summing to `units`.
pub fn split(units: u128, rates: &[f64]) -> Vec<u128> {
    let n = rates.len();
    let mut counts = vec![0u128; n];
    if n == 0 || units == 0 {
        return counts;
    }
    if units <= GREEDY_LIMIT {
        // Each unit goes to the resource that would finish it first; ties to the lower index.
        for _ in 0..units {
            let mut best = 0;
            let mut best_t = f64::INFINITY;
            for (i, &r) in rates.iter().enumerate() {
                let t = (counts[i] + 1) as f64 / r;
                if t < best_t {
                    best_t = t;
                    best = i;
                }
            }
            counts[best] += 1;
        }
        return counts;
    }
    let total: f64 = rates.iter().sum();
    let mut given = 0u128;
    let mut rest: Vec<(f64, usize)> = Vec::with_capacity(n);
    for (i, &r) in rates.iter().enumerate() {
        let exact = units as f64 * r / total;
        let whole = (exact.floor() as u128).min(units - given);
        counts[i] = whole;
        given += whole;
        rest.push((exact - whole as f64, i));
    }
    rest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut k = 0;
    while given < units {
        counts[rest[k % n].1] += 1;
        given += 1;
        k += 1;
    }
    counts
}

/// The time `counts` is predicted to take at `rates`: the slowest resource's.
pub fn makespan(counts: &[u128], rates: &[f64]) -> f64 {
    counts
        .iter()
        .zip(rates)
        .map(|(&c, &r)| c as f64 / r)
        .fold(0.0, f64::max)
}

/// `previous` if it still divides `units` among the same number of resources and is predicted
/// within [`KEEP_TOLERANCE`] of `best`; otherwise `best`.
pub fn keep_if_close(
    previous: Option<&[u128]>,
    best: Vec<u128>,
    units: u128,
    rates: &[f64],
) -> Vec<u128> {
    if let Some(p) = previous {
        if p.len() == best.len() && p.iter().sum::<u128>() == units {
            let (old, new) = (makespan(p, rates), makespan(&best, rates));
            if old <= new * (1.0 + KEEP_TOLERANCE) {
                return p.to_vec();
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_gives_the_slow_resource_one_task_when_it_is_much_slower() {
        // Seed 004, LU-MZ: 16 zones, 2 GPUs at 38.44 ms a zone, one CPU CU at 258.94 ms.
        let rates = [1.0 / 38.44, 1.0 / 38.44, 1.0 / 258.94];
        let c = split(16, &rates);
        assert_eq!(c.iter().sum::<u128>(), 16);
        assert_eq!(c[2], 1, "{c:?}");
        assert_eq!(c[0], 8);
    }

    #[test]
    fn proportional_for_many_units() {
        let c = split(1_000_000, &[2.0, 1.0]);
        assert_eq!(c, vec![666_667, 333_333]);
        let c = split(10_000, &[1.0, 1.0, 1.0]);
        assert_eq!(c.iter().sum::<u128>(), 10_000);
        assert!(c.iter().all(|&x| (3333..=3334).contains(&x)), "{c:?}");
    }

    #[test]
    fn equal_rates_split_evenly_and_first_resources_take_the_remainder() {
        assert_eq!(split(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(split(0, &[1.0, 2.0]), vec![0, 0]);
        assert!(split(5, &[]).is_empty());
    }

    #[test]
    fn a_close_previous_split_is_kept() {
        let rates = [2.0, 1.0];
        let best = split(30, &rates);
        assert_eq!(best, vec![20, 10]);
        assert_eq!(
            keep_if_close(Some(&[20, 10]), best.clone(), 30, &[2.05, 1.0]),
            vec![20, 10]
        );
        // Far off: replaced.
        assert_eq!(
            keep_if_close(Some(&[10, 20]), best.clone(), 30, &rates),
            best
        );
        // Another total: replaced.
        assert_eq!(
            keep_if_close(Some(&[20, 11]), best.clone(), 30, &rates),
            best
        );
    }
}
