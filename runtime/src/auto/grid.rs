//! Grid kernels: CUDA-style ports whose teams index the data by their team number
//! (`omp_get_team_num()`), with no loop to cut. The pass rewrites such a kernel so that a window
//! `{lo, hi, league}` runs teams `[lo, hi)` of a league of `league` (their team numbers offset by
//! `lo`, `omp_get_num_teams()` the whole league's); a block is a window of teams. Its accesses are
//! not analysed: every block gets each argument it touches whole, and writes into a copy of its
//! own ([`Copies`]) whose changed bytes are merged into the program's array afterwards. Teams
//! cannot synchronise with one another, so in a race-free kernel no byte is written by two
//! teams, and the merge gives what one device gives.

use super::kinfo::Plan;
use crate::config::DeviceKind;
use crate::device::LaunchConfig;
use crate::runtime::Runtime;

/// The window words of a grid kernel's launch that is not cut: every team, the league as the
/// device forms it.
pub const FULL: [i64; 3] = [0, i64::MAX, 0];

/// The league a grid launch cuts: its `num_teams` clause, which must be given and
/// one-dimensional.
pub fn league(cfg: &LaunchConfig) -> Result<u64, String> {
    if cfg.num_teams[1] > 1 || cfg.num_teams[2] > 1 {
        return Err("a grid kernel with a multi-dimensional league".into());
    }
    match cfg.num_teams[0] {
        0 => Err(
            "a grid kernel (its teams divide the work by their numbers) without a num_teams clause: the league's size is the device's choice"
                .into(),
        ),
        n => Ok(u64::from(n)),
    }
}

/// Why a grid launch cannot run on `devices`: a host device forms libomp's leagues, which hold
/// at most as many teams as it has cores whatever `num_teams` asks, so a window of teams would
/// not run the teams it names (`SPREAD_TEAMS=exact` forms every team).
pub fn exact_leagues(rt: &Runtime, devices: &[i32]) -> Result<(), String> {
    if rt.config.exact_teams {
        return Ok(());
    }
    for &d in devices {
        let slot = rt.device(i64::from(d)).map_err(|e| e.to_string())?;
        if slot.dev.info().kind == DeviceKind::Host {
            return Err(format!(
                "a grid kernel (its teams divide the work by their numbers), and host device {d} forms at most as many teams as it has cores (SPREAD_TEAMS=exact forms every team, and lets it spread)"
            ));
        }
    }
    Ok(())
}

/// One written array of a grid launch: its bytes before the launch and each block's copy.
struct Written {
    entry: usize,
    original: usize,
    before: Vec<u8>,
    blocks: Vec<Vec<u8>>,
}

/// The copies a grid launch's blocks write into, one per written array and block.
pub struct Copies {
    written: Vec<Written>,
}

impl Copies {
    /// The written arrays of `plan`, their bytes read now (the blocks only write copies, so
    /// these stay the values before the launch).
    pub fn new(plan: &Plan) -> Copies {
        let written = plan
            .merges()
            .into_iter()
            .map(|entry| {
                let (original, size) = plan.section_of(entry);
                let mut before = vec![0u8; size];
                crate::sys::access::transfer(before.as_mut_ptr() as usize, original, size);
                Written {
                    entry,
                    original,
                    before,
                    blocks: Vec::new(),
                }
            })
            .collect();
        Copies { written }
    }

    /// A new block's copies: for each written entry, the address of a copy of its section that
    /// starts from the values before the launch (alive until [`merge`](Self::merge)).
    pub fn block(&mut self) -> Vec<(usize, usize)> {
        self.written
            .iter_mut()
            .map(|w| {
                let copy = w.before.clone();
                let at = copy.as_ptr() as usize;
                w.blocks.push(copy);
                (w.entry, at)
            })
            .collect()
    }

    /// Writes each byte a block changed into the program's array.
    pub fn merge(self) {
        for w in self.written {
            let mut merged = w.before.clone();
            for copy in &w.blocks {
                for (j, (&now, &was)) in copy.iter().zip(&w.before).enumerate() {
                    if now != was {
                        merged[j] = now;
                    }
                }
            }
            crate::sys::access::transfer(w.original, merged.as_ptr() as usize, merged.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_each_blocks_changed_bytes_and_the_rest() {
        let mut array = vec![1u8, 2, 3, 4, 5, 6];
        let original = array.as_mut_ptr() as usize;
        let mut copies = Copies {
            written: vec![Written {
                entry: 0,
                original,
                before: array.clone(),
                blocks: vec![vec![9, 2, 3, 4, 5, 6], vec![1, 2, 3, 8, 5, 7]],
            }],
        };
        // A third block that changed nothing.
        let third = copies.block();
        assert_eq!(third.len(), 1);
        copies.merge();
        assert_eq!(array, vec![9, 2, 3, 8, 5, 7]);
    }
}
