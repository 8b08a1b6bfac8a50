//! Control-flow checks for one spread region, on an abstract control-flow graph.
//!
//! A region is the code strictly between `r = __spread_region_begin(...)` and
//! `__spread_region_end(r)`. Before the pass turns it into a loop it checks that
//! the region is single-entry/single-exit in the sense of docs/spread-abi.md §3:
//!
//! * every path from the begin reaches the end before leaving the function through a
//!   `ret` (paths that end in `unreachable` or unwind out of the function are allowed:
//!   they never come back to the code after the region);
//! * no path from the begin gets back to the begin (or to another region's begin)
//!   before the end;
//! * every path from the function entry to the end passes the begin.
//!
//! Blocks are numbered `0..n` with block 0 the function's entry.

use crate::construct::RegionError;

/// A position in a function: instruction `index` of block `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// Block number.
    pub block: usize,
    /// Instruction number inside the block.
    pub index: usize,
}

/// The control-flow graph of one function.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Successors of each block (its terminator's targets, including unwind edges).
    pub succs: Vec<Vec<usize>>,
    /// Whether each block ends in `ret` (leaves the function normally).
    pub returns: Vec<bool>,
}

/// How control continues after the begin call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeginKind {
    /// A `call`: the region starts with the next instruction of the same block.
    Call,
    /// An `invoke`: the region starts at the top of its normal destination block.
    Invoke {
        /// The invoke's normal destination.
        normal_dest: usize,
    },
}

/// Checks the region from `begin` to `end`. `others` are the other
/// `__spread_region_begin` calls of the function.
pub fn check(
    g: &Graph,
    begin: Point,
    kind: BeginKind,
    end: Point,
    others: &[Point],
) -> Result<(), RegionError> {
    let n = g.succs.len();
    if begin.block >= n || end.block >= n || g.returns.len() != n {
        return Err(RegionError::Unsupported(
            "malformed control-flow graph".into(),
        ));
    }
    let other_in = |block: usize, from: usize, to: usize| {
        others
            .iter()
            .any(|o| o.block == block && o.index >= from && o.index < to)
    };

    // 1. Forward from the begin, stopping at the end.
    let mut seen = vec![false; n];
    let mut work: Vec<usize> = Vec::new();
    match kind {
        BeginKind::Call => {
            if end.block == begin.block && end.index > begin.index {
                // Straight-line region inside one block.
                if other_in(begin.block, begin.index + 1, end.index) {
                    return Err(RegionError::Nested);
                }
                return check_dominated(g, begin, end);
            }
            if other_in(begin.block, begin.index + 1, usize::MAX) {
                return Err(RegionError::Nested);
            }
            if g.returns[begin.block] {
                return Err(RegionError::NotPostDominated);
            }
            work.extend(g.succs[begin.block].iter().copied());
        }
        BeginKind::Invoke { normal_dest } => {
            if normal_dest >= n {
                return Err(RegionError::Unsupported(
                    "malformed control-flow graph".into(),
                ));
            }
            work.push(normal_dest);
        }
    }
    let mut reached_end = false;
    while let Some(b) = work.pop() {
        if b >= n {
            return Err(RegionError::Unsupported(
                "malformed control-flow graph".into(),
            ));
        }
        if seen[b] {
            continue;
        }
        seen[b] = true;
        if b == end.block {
            // Entered from the top: the end comes before anything after it.
            if other_in(b, 0, end.index) {
                return Err(RegionError::Nested);
            }
            reached_end = true;
            continue;
        }
        if b == begin.block {
            return Err(RegionError::Reentered);
        }
        if other_in(b, 0, usize::MAX) {
            return Err(RegionError::Nested);
        }
        if g.returns[b] {
            return Err(RegionError::NotPostDominated);
        }
        work.extend(g.succs[b].iter().copied());
    }
    if !reached_end {
        return Err(RegionError::EndUnreachable);
    }
    check_dominated(g, begin, end)
}

/// Every path from the entry to `end` passes `begin`.
fn check_dominated(g: &Graph, begin: Point, end: Point) -> Result<(), RegionError> {
    let n = g.succs.len();
    let mut seen = vec![false; n];
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        if b >= n || seen[b] {
            continue;
        }
        seen[b] = true;
        if b == begin.block {
            if end.block == b && end.index < begin.index {
                return Err(RegionError::NotDominated);
            }
            continue;
        }
        if b == end.block {
            return Err(RegionError::NotDominated);
        }
        work.extend(g.succs[b].iter().copied());
    }
    Ok(())
}

/// The blocks reachable from `start` without entering any block of `stop`.
pub fn blocks_between(succs: &[Vec<usize>], start: usize, stop: &[usize]) -> Vec<usize> {
    let n = succs.len();
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    let mut work = vec![start];
    while let Some(b) = work.pop() {
        if b >= n || seen[b] || stop.contains(&b) {
            continue;
        }
        seen[b] = true;
        out.push(b);
        work.extend(succs[b].iter().copied());
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(succs: &[&[usize]], returns: &[usize]) -> Graph {
        Graph {
            succs: succs.iter().map(|s| s.to_vec()).collect(),
            returns: (0..succs.len()).map(|b| returns.contains(&b)).collect(),
        }
    }

    const fn p(block: usize, index: usize) -> Point {
        Point { block, index }
    }

    #[test]
    fn straight_line() {
        let g = graph(&[&[]], &[0]);
        assert_eq!(check(&g, p(0, 2), BeginKind::Call, p(0, 7), &[]), Ok(()));
        assert_eq!(
            check(&g, p(0, 2), BeginKind::Call, p(0, 7), &[p(0, 4)]),
            Err(RegionError::Nested)
        );
        // Another begin after the end does not matter.
        assert_eq!(
            check(&g, p(0, 2), BeginKind::Call, p(0, 7), &[p(0, 9)]),
            Ok(())
        );
    }

    #[test]
    fn diamond() {
        // 0: begin; 1/2: branches; 3: end; ret
        let g = graph(&[&[1, 2], &[3], &[3], &[]], &[3]);
        assert_eq!(check(&g, p(0, 5), BeginKind::Call, p(3, 1), &[]), Ok(()));
        assert_eq!(
            check(&g, p(0, 5), BeginKind::Call, p(3, 1), &[p(2, 0)]),
            Err(RegionError::Nested)
        );
        assert_eq!(
            check(&g, p(0, 5), BeginKind::Call, p(3, 1), &[p(0, 6)]),
            Err(RegionError::Nested)
        );
        assert_eq!(
            check(&g, p(0, 5), BeginKind::Call, p(3, 1), &[p(3, 0)]),
            Err(RegionError::Nested)
        );
        assert_eq!(
            check(&g, p(0, 5), BeginKind::Call, p(3, 1), &[p(3, 2)]),
            Ok(())
        );
    }

    #[test]
    fn early_return_is_an_error() {
        // 0: begin; 1: return; 2: end
        let g = graph(&[&[1, 2], &[], &[]], &[1, 2]);
        assert_eq!(
            check(&g, p(0, 1), BeginKind::Call, p(2, 0), &[]),
            Err(RegionError::NotPostDominated)
        );
        // Begin in a returning block with the end elsewhere.
        let g = graph(&[&[], &[]], &[0, 1]);
        assert_eq!(
            check(&g, p(0, 1), BeginKind::Call, p(1, 0), &[]),
            Err(RegionError::NotPostDominated)
        );
    }

    #[test]
    fn unreachable_paths_are_fine() {
        // 0: begin; 1: abort + unreachable; 2: end
        let g = graph(&[&[1, 2], &[], &[]], &[2]);
        assert_eq!(check(&g, p(0, 1), BeginKind::Call, p(2, 0), &[]), Ok(()));
        // Only unreachable paths: the end is never reached.
        let g = graph(&[&[1], &[], &[]], &[2]);
        assert_eq!(
            check(&g, p(0, 1), BeginKind::Call, p(2, 0), &[]),
            Err(RegionError::EndUnreachable)
        );
    }

    #[test]
    fn loops() {
        // A loop inside the region: 0 begin -> 1 <-> 2, 1 -> 3 end.
        let g = graph(&[&[1], &[2, 3], &[1], &[]], &[3]);
        assert_eq!(check(&g, p(0, 0), BeginKind::Call, p(3, 0), &[]), Ok(()));
        // Region inside a user loop: 0 -> 1 (begin ... end in 2) -> 1 / 3.
        let g = graph(&[&[1], &[2], &[1, 3], &[]], &[3]);
        assert_eq!(check(&g, p(1, 3), BeginKind::Call, p(2, 1), &[]), Ok(()));
        // `continue` skipping the end: 1 begin -> 2 (end) or back to 1.
        let g = graph(&[&[1], &[1, 2], &[3], &[]], &[3]);
        assert_eq!(
            check(&g, p(1, 0), BeginKind::Call, p(2, 0), &[]),
            Err(RegionError::Reentered)
        );
        // End before begin in the same (endless) loop block: end; begin; br loop.
        let g = graph(&[&[1], &[1]], &[]);
        assert_eq!(
            check(&g, p(1, 3), BeginKind::Call, p(1, 1), &[]),
            Err(RegionError::NotDominated)
        );
    }

    #[test]
    fn dominance() {
        // 0 -> 1 (begin) -> 2 (end); 0 -> 2 bypasses the begin.
        let g = graph(&[&[1, 2], &[2], &[]], &[2]);
        assert_eq!(
            check(&g, p(1, 0), BeginKind::Call, p(2, 0), &[]),
            Err(RegionError::NotDominated)
        );
    }

    #[test]
    fn invoke_begin() {
        // 0: invoke begin -> 1 normal, 2 unwind (resume); 1: end; ret
        let g = graph(&[&[1, 2], &[], &[]], &[1]);
        assert_eq!(
            check(
                &g,
                p(0, 4),
                BeginKind::Invoke { normal_dest: 1 },
                p(1, 0),
                &[]
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &g,
                p(0, 4),
                BeginKind::Invoke { normal_dest: 1 },
                p(2, 0),
                &[]
            ),
            Err(RegionError::NotPostDominated)
        );
        assert!(matches!(
            check(
                &g,
                p(0, 4),
                BeginKind::Invoke { normal_dest: 9 },
                p(1, 0),
                &[]
            ),
            Err(RegionError::Unsupported(_))
        ));
    }

    #[test]
    fn malformed() {
        let g = graph(&[&[5]], &[]);
        assert!(matches!(
            check(&g, p(0, 0), BeginKind::Call, p(3, 0), &[]),
            Err(RegionError::Unsupported(_))
        ));
        assert!(matches!(
            check(&g, p(0, 0), BeginKind::Call, p(0, 0), &[]),
            Err(RegionError::Unsupported(_))
        ));
    }

    #[test]
    fn between() {
        let succs = vec![vec![1], vec![2, 3], vec![1], vec![4], vec![]];
        assert_eq!(blocks_between(&succs, 1, &[3]), vec![1, 2]);
        assert_eq!(blocks_between(&succs, 0, &[]), vec![0, 1, 2, 3, 4]);
        assert_eq!(blocks_between(&succs, 3, &[3]), Vec::<usize>::new());
    }
}
