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

use std::collections::HashMap;

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

/// The immediate dominators of a control-flow graph (block 0 is the entry), computed once per
/// function so that checking each of its regions costs only the region's size.
#[derive(Clone, Debug)]
pub struct Dominators {
    /// Immediate dominator of each block; `usize::MAX` for unreachable blocks, 0 for the entry.
    idom: Vec<usize>,
}

impl Dominators {
    /// Cooper, Harvey and Kennedy's iterative algorithm over the reverse post-order.
    pub fn new(succs: &[Vec<usize>]) -> Dominators {
        let n = succs.len();
        const NONE: usize = usize::MAX;
        if n == 0 {
            return Dominators { idom: Vec::new() };
        }
        // reverse post-order, iteratively
        let mut order = vec![NONE; n]; // post-order number
        let mut post: Vec<usize> = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&s) = succs[b].get(*i) {
                *i += 1;
                if s < n && !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order[b] = post.len();
                post.push(b);
                stack.pop();
            }
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            if !seen[b] {
                continue;
            }
            for &s in ss {
                if s < n {
                    preds[s].push(b);
                }
            }
        }
        let mut idom = vec![NONE; n];
        idom[0] = 0;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while order[a] < order[b] {
                    a = idom[a];
                }
                while order[b] < order[a] {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().skip(1) {
                let mut new = NONE;
                for &p in &preds[b] {
                    if idom[p] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        p
                    } else {
                        intersect(&idom, p, new)
                    };
                }
                if new != NONE && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Dominators { idom }
    }

    /// Whether block `b` can be reached from the entry.
    pub fn reachable(&self, b: usize) -> bool {
        self.idom.get(b).is_some_and(|&d| d != usize::MAX)
    }

    /// Whether block `a` dominates block `b` (vacuously true for an unreachable `b`). Walks
    /// `b`'s dominator chain: for a region, from its end up to its begin.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let mut x = b;
        loop {
            match self.idom.get(x) {
                None | Some(&usize::MAX) => return true,
                _ if x == a => return true,
                Some(&0) if x == 0 => return false,
                Some(&d) => x = d,
            }
        }
    }
}

/// The begin calls of a function by block: instruction indices, for [`check_indexed`].
pub fn index_points(points: &[Point]) -> HashMap<usize, Vec<usize>> {
    let mut m: HashMap<usize, Vec<usize>> = HashMap::new();
    for p in points {
        m.entry(p.block).or_default().push(p.index);
    }
    m
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
    let dom = Dominators::new(&g.succs);
    check_indexed(g, &dom, begin, kind, end, &index_points(others))
}

/// [`check`] with the function's dominators and begin calls (which may include `begin`
/// itself) computed once for all its regions: the work is proportional to the region's
/// blocks, not the function's.
pub fn check_indexed(
    g: &Graph,
    dom: &Dominators,
    begin: Point,
    kind: BeginKind,
    end: Point,
    begins: &HashMap<usize, Vec<usize>>,
) -> Result<(), RegionError> {
    let n = g.succs.len();
    if begin.block >= n || end.block >= n || g.returns.len() != n {
        return Err(RegionError::Unsupported(
            "malformed control-flow graph".into(),
        ));
    }
    let other_in = |block: usize, from: usize, to: usize| {
        begins.get(&block).is_some_and(|v| {
            v.iter()
                .any(|&i| i >= from && i < to && !(block == begin.block && i == begin.index))
        })
    };

    // 1. Forward from the begin, stopping at the end.
    // (a set, not a vector of the function's size: this runs once per region)
    let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut work: Vec<usize> = Vec::new();
    match kind {
        BeginKind::Call => {
            if end.block == begin.block && end.index > begin.index {
                // Straight-line region inside one block.
                if other_in(begin.block, begin.index + 1, end.index) {
                    return Err(RegionError::Nested);
                }
                return check_dominated(dom, begin, end);
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
        if !seen.insert(b) {
            continue;
        }
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
    check_dominated(dom, begin, end)
}

/// Every path from the entry to `end` passes `begin`.
fn check_dominated(dom: &Dominators, begin: Point, end: Point) -> Result<(), RegionError> {
    let ok = if begin.block == end.block {
        end.index > begin.index || !dom.reachable(end.block)
    } else {
        dom.dominates(begin.block, end.block)
    };
    if ok {
        Ok(())
    } else {
        Err(RegionError::NotDominated)
    }
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
    fn dominators() {
        // 0 -> 1 -> {2, 3} -> 4 -> 1 (loop), 4 -> 5; 6 unreachable
        let succs = vec![
            vec![1],
            vec![2, 3],
            vec![4],
            vec![4],
            vec![1, 5],
            vec![],
            vec![5],
        ];
        let d = Dominators::new(&succs);
        assert!(d.dominates(0, 5) && d.dominates(1, 4) && d.dominates(4, 5));
        assert!(!d.dominates(2, 4) && !d.dominates(3, 4) && !d.dominates(5, 4));
        assert!(d.dominates(2, 2));
        assert!(d.reachable(5) && !d.reachable(6));
        // unreachable blocks are dominated by anything (no path from the entry reaches them)
        assert!(d.dominates(3, 6));
    }

    #[test]
    fn many_regions_in_one_function() {
        // a chain of 2000 straight-line regions, each in its own block: checking all of them
        // on one set of dominators and begin positions
        let n = 2000;
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|b| if b + 1 < n { vec![b + 1] } else { vec![] })
            .collect();
        let g = Graph {
            returns: (0..n).map(|b| b + 1 == n).collect(),
            succs,
        };
        let dom = Dominators::new(&g.succs);
        let begins: Vec<Point> = (0..n).map(|b| p(b, 0)).collect();
        let idx = index_points(&begins);
        for b in 0..n {
            assert_eq!(
                check_indexed(&g, &dom, p(b, 0), BeginKind::Call, p(b, 5), &idx),
                Ok(())
            );
        }
        // a region from block 3 to block 5 contains the begin of block 4
        assert_eq!(
            check_indexed(&g, &dom, p(3, 0), BeginKind::Call, p(5, 1), &idx),
            Err(RegionError::Nested)
        );
    }

    #[test]
    fn between() {
        let succs = vec![vec![1], vec![2, 3], vec![1], vec![4], vec![]];
        assert_eq!(blocks_between(&succs, 1, &[3]), vec![1, 2]);
        assert_eq!(blocks_between(&succs, 0, &[]), vec![0, 1, 2, 3, 4]);
        assert_eq!(blocks_between(&succs, 3, &[3]), Vec::<usize>::new());
    }
}
