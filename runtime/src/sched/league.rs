//! Leagues larger than the machine: how a host device runs `teams num_teams(N)` with more teams
//! than it has cores, and how a `distribute` loop divides its iterations among the N teams.
//!
//! libomp forms at most `KMP_TEAMS_THREAD_LIMIT` teams at once (the number of cores), so on a
//! 2-core host device `num_teams(16)` used to get 2 teams, and `omp_get_num_teams()` said 2:
//! programs that give each team its own block of data left 14 blocks untouched. OpenMP 5.1 asks
//! for exactly N teams, and teams of a league cannot synchronise with one another, so running
//! them a few at a time is conforming: `P` teams are formed (the cores the device may use) and
//! take the N logical teams in turn, and `omp_get_team_num()`, `omp_get_num_teams()` and
//! `distribute` see the logical values (docs/runtime.md, "Devices").
//!
//! Everything here is arithmetic; the host backend applies it (`device::host::league`).

/// libomp's schedule numbers for `distribute`: `kmp_distribute_static_chunked` (a
/// `dist_schedule(static, chunk)` clause) and `kmp_distribute_static` (no chunk).
pub const DISTRIBUTE_STATIC_CHUNKED: i32 = 91;
/// See [`DISTRIBUTE_STATIC_CHUNKED`].
pub const DISTRIBUTE_STATIC: i32 = 92;

/// The schedule without its `monotonic`/`nonmonotonic` modifier bits (libomp's
/// `SCHEDULE_WITHOUT_MODIFIERS`).
pub fn without_modifiers(sched: i32) -> i32 {
    sched & !((1 << 29) | (1 << 30))
}

/// Whether a `__kmpc_for_static_init_*` schedule is a `distribute` schedule, the only kind whose
/// division depends on the league (a `for` loop divides among the threads of one team).
pub fn is_distribute(sched: i32) -> bool {
    matches!(
        without_modifiers(sched),
        DISTRIBUTE_STATIC_CHUNKED | DISTRIBUTE_STATIC
    )
}

/// How many teams run at once for a league of `requested` teams: at most `max_at_once` (libomp's
/// teams thread limit, or the device's share of the cores while other host devices run), at least
/// one, never more than requested. A request of 0 or less (no `num_teams` clause) is left to
/// libomp and gives 0.
pub fn teams_at_once(requested: i32, max_at_once: usize) -> i32 {
    if requested <= 0 {
        return 0;
    }
    let max = i32::try_from(max_at_once).unwrap_or(i32::MAX).max(1);
    requested.min(max)
}

/// The number of teams an OpenMP 5.1 `num_teams(lower:upper)` clause asks for, given `at_once`
/// teams can run at once: as few teams taken in turn as the bounds allow (`upper` teams when they
/// all fit, `lower` when even those do not, `at_once` in between). A missing or inverted lower bound
/// means exactly `upper`, as for `num_teams(upper)`.
pub fn teams_for_bounds(lower: i32, upper: i32, at_once: usize) -> i32 {
    if upper <= 0 {
        return 0;
    }
    if lower <= 0 || lower > upper {
        return upper;
    }
    let at_once = i32::try_from(at_once).unwrap_or(i32::MAX).max(1);
    upper.min(at_once).max(lower)
}

/// A team's part of a `distribute` loop, as libomp's `__kmpc_for_static_init_*` writes it
/// back: bounds (inclusive), stride to the team's next chunk, and whether the team runs the
/// loop's last iteration (for `lastprivate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamPart {
    /// First iteration value of the team's first chunk.
    pub lower: i128,
    /// Last iteration value of that chunk (below `lower` for an increasing loop when the team
    /// has none).
    pub upper: i128,
    /// Distance from one of the team's chunks to its next.
    pub stride: i128,
    /// Whether the team executes the sequentially last iteration.
    pub last: bool,
}

/// Divides the loop `lower..=upper` step `incr` among `teams` teams for team `team`, under
/// `distribute` schedule `sched` (`chunk` for `dist_schedule(static, chunk)`), with libomp's
/// arithmetic (`__kmp_for_static_init`, balanced static schedule), so that a league whose teams
/// run a few at a time splits a loop exactly as one formed all at once would. Values are those of the loop's type
/// widened; the caller narrows them back with wrapping, as libomp's arithmetic wraps.
pub fn distribute(
    sched: i32,
    lower: i128,
    upper: i128,
    incr: i128,
    chunk: i128,
    team: i128,
    teams: i128,
) -> TeamPart {
    let empty_loop = if incr > 0 {
        upper < lower
    } else {
        lower < upper
    };
    if empty_loop || incr == 0 {
        return TeamPart {
            lower,
            upper,
            stride: incr,
            last: false,
        };
    }
    if teams <= 1 {
        let span = if incr > 0 {
            upper - lower + 1
        } else {
            -(lower - upper + 1)
        };
        return TeamPart {
            lower,
            upper,
            stride: span,
            last: true,
        };
    }
    let trip = if incr > 0 {
        (upper - lower) / incr + 1
    } else {
        (lower - upper) / -incr + 1
    };
    let none = upper + if incr > 0 { 1 } else { -1 };
    if without_modifiers(sched) == DISTRIBUTE_STATIC_CHUNKED {
        let chunk = chunk.clamp(1, trip);
        let chunks = (trip + chunk - 1) / chunk;
        let span = chunk * incr;
        let (lo, hi, stride) = if chunks < teams {
            if team < chunks {
                let lo = lower + span * team;
                (lo, lo + span - incr, span * chunks)
            } else {
                (none, upper, span * chunks)
            }
        } else {
            let lo = lower + span * team;
            (lo, lo + span - incr, span * teams)
        };
        return TeamPart {
            lower: lo,
            upper: hi,
            stride,
            last: team == (chunks - 1) % teams,
        };
    }
    if trip < teams {
        let (lo, hi) = if team < trip {
            let at = lower + team * incr;
            (at, at)
        } else {
            (none, upper)
        };
        return TeamPart {
            lower: lo,
            upper: hi,
            stride: trip,
            last: team == trip - 1,
        };
    }
    let small = trip / teams;
    let extras = trip % teams;
    let lo = lower + incr * (team * small + team.min(extras));
    let hi = lo + small * incr - if team < extras { 0 } else { incr };
    TeamPart {
        lower: lo,
        upper: hi,
        stride: trip,
        last: team == teams - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The iterations a team runs, as the generated code walks its chunks: each chunk clamped to
    /// the loop's end, then on by `stride`, until past the end.
    fn iterations(p: TeamPart, upper: i128, incr: i128) -> Vec<i128> {
        let within = |i: i128, end: i128| if incr > 0 { i <= end } else { i >= end };
        let mut out = Vec::new();
        let (mut lo, mut hi) = (p.lower, p.upper);
        while within(lo, upper) {
            let end = if incr > 0 {
                hi.min(upper)
            } else {
                hi.max(upper)
            };
            let mut i = lo;
            while within(i, end) {
                out.push(i);
                i += incr;
            }
            lo += p.stride;
            hi += p.stride;
        }
        out
    }

    #[test]
    fn every_iteration_goes_to_exactly_one_team() {
        for &(lower, upper, incr) in &[(0, 999, 1), (0, 9, 1), (5, 100, 3), (100, -7, -2)] {
            for teams in [1, 2, 3, 16, 1000, 2048] {
                for (sched, chunk) in [
                    (DISTRIBUTE_STATIC, 0),
                    (DISTRIBUTE_STATIC_CHUNKED, 1),
                    (DISTRIBUTE_STATIC_CHUNKED, 7),
                ] {
                    let mut seen = Vec::new();
                    let mut lasts = 0;
                    for team in 0..teams {
                        let p = distribute(sched, lower, upper, incr, chunk, team, teams);
                        if sched == DISTRIBUTE_STATIC {
                            // Without a chunk each team has one block: the generated code runs
                            // it once.
                            let hi = if incr > 0 {
                                p.upper.min(upper)
                            } else {
                                p.upper.max(upper)
                            };
                            let mut i = p.lower;
                            while (incr > 0 && i <= hi) || (incr < 0 && i >= hi) {
                                seen.push(i);
                                i += incr;
                            }
                        } else {
                            seen.extend(iterations(p, upper, incr));
                        }
                        lasts += usize::from(p.last);
                    }
                    seen.sort();
                    let mut want: Vec<i128> = if incr > 0 {
                        (lower..=upper).step_by(incr as usize).collect()
                    } else {
                        (upper..=lower).rev().step_by((-incr) as usize).collect()
                    };
                    want.sort();
                    assert_eq!(
                        seen, want,
                        "{lower}..{upper} by {incr}, {teams} teams, {sched}/{chunk}"
                    );
                    assert_eq!(lasts, 1, "exactly one team runs the last iteration");
                }
            }
        }
    }

    #[test]
    fn balanced_blocks_match_libomp() {
        // 10 iterations over 4 teams: 3, 3, 2, 2.
        let parts: Vec<(i128, i128)> = (0..4)
            .map(|t| {
                let p = distribute(DISTRIBUTE_STATIC, 0, 9, 1, 0, t, 4);
                (p.lower, p.upper)
            })
            .collect();
        assert_eq!(parts, vec![(0, 2), (3, 5), (6, 7), (8, 9)]);
        // Fewer iterations than teams: one each, the rest none (lower past upper).
        let p = distribute(DISTRIBUTE_STATIC, 0, 2, 1, 0, 5, 8);
        assert!(p.lower > p.upper);
        assert!(distribute(DISTRIBUTE_STATIC, 0, 2, 1, 0, 2, 8).last);
    }

    #[test]
    fn the_last_team_of_a_chunked_schedule_owns_the_last_chunk() {
        // 10 iterations, chunks of 3 (4 chunks) over 3 teams: chunk 3 goes to team 0.
        let lasts: Vec<bool> = (0..3)
            .map(|t| distribute(DISTRIBUTE_STATIC_CHUNKED, 0, 9, 1, 3, t, 3).last)
            .collect();
        assert_eq!(lasts, vec![true, false, false]);
    }

    #[test]
    fn empty_loops_and_single_teams() {
        let p = distribute(DISTRIBUTE_STATIC, 5, 4, 1, 0, 0, 8);
        assert!(!p.last);
        assert_eq!((p.lower, p.upper), (5, 4));
        let p = distribute(DISTRIBUTE_STATIC, 0, 9, 1, 0, 0, 1);
        assert!(p.last);
        assert_eq!((p.lower, p.upper, p.stride), (0, 9, 10));
    }

    #[test]
    fn modifiers_are_ignored() {
        assert!(is_distribute(DISTRIBUTE_STATIC | (1 << 29)));
        assert!(is_distribute(DISTRIBUTE_STATIC_CHUNKED | (1 << 30)));
        assert!(!is_distribute(34));
        assert!(!is_distribute(33));
    }

    #[test]
    fn team_counts() {
        assert_eq!(teams_at_once(16, 2), 2);
        assert_eq!(teams_at_once(1, 2), 1);
        assert_eq!(teams_at_once(0, 2), 0);
        assert_eq!(teams_at_once(16, 0), 1);
        assert_eq!(teams_for_bounds(0, 16, 2), 16);
        assert_eq!(teams_for_bounds(4, 16, 2), 4);
        assert_eq!(teams_for_bounds(1, 16, 2), 2);
        assert_eq!(teams_for_bounds(1, 16, 64), 16);
        assert_eq!(teams_for_bounds(0, 0, 2), 0);
    }
}
