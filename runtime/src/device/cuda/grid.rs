//! How many blocks and threads a kernel launch gets: the rules of LLVM 19's plugin layer
//! (`GenericKernelTy::getNumThreads` / `getNumBlocks`), so a program's teams and threads are the
//! same on Spread as on stock libomptarget.

/// The device's grid limits and defaults, after `OMP_NUM_TEAMS` / `OMP_TEAMS_THREAD_LIMIT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridLimits {
    /// Most blocks one launch may have (`MAX_GRID_DIM_X`, capped by `OMP_NUM_TEAMS`).
    pub max_blocks: u32,
    /// Most threads one block may have (`MAX_BLOCK_DIM_X`, capped by `OMP_TEAMS_THREAD_LIMIT`).
    pub max_threads: u32,
    /// Blocks when nothing says otherwise (NVPTX: 3200).
    pub default_blocks: u32,
    /// Threads per block when nothing says otherwise (NVPTX: 128).
    pub default_threads: u32,
    /// Threads in a warp.
    pub warp: u32,
    /// Fewest threads per block for low-trip-count loops
    /// (`LIBOMPTARGET_MIN_THREADS_FOR_LOW_TRIP_COUNT`, 32).
    pub min_threads_low_trip: u32,
    /// `LIBOMPTARGET_REUSE_BLOCKS_FOR_HIGH_TRIP_COUNT` (default on): long loops reuse the
    /// default number of blocks rather than one block per `threads` iterations.
    pub reuse_blocks: bool,
}

impl GridLimits {
    /// NVPTX defaults for a device whose hardware limits are `grid_x` and `block_x`, with the
    /// environment's caps applied (0: not set).
    pub fn nvptx(grid_x: u32, block_x: u32, warp: u32, omp_num_teams: u32, omp_tl: u32) -> Self {
        let mut max_blocks = grid_x.max(1);
        if omp_num_teams > 0 {
            max_blocks = max_blocks.min(omp_num_teams);
        }
        let mut max_threads = block_x.clamp(1, 1024);
        if omp_tl > 0 {
            max_threads = max_threads.min(omp_tl);
        }
        GridLimits {
            max_blocks,
            max_threads,
            default_blocks: 3200,
            default_threads: 128.min(max_threads),
            warp: warp.max(1),
            min_threads_low_trip: 32,
            reuse_blocks: true,
        }
    }
}

/// Execution mode of an OpenMP kernel (`OMPTgtExecModeFlags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecMode {
    /// A main thread per team runs the region; workers wait for parallel regions.
    Generic,
    /// Every thread runs the region (combined `teams distribute parallel for`).
    Spmd,
    /// Generic code the compiler turned into SPMD form.
    GenericSpmd,
    /// No kernel environment: the user's teams and threads are used verbatim (`ompx_bare`).
    Bare,
}

impl ExecMode {
    /// The mode's name in libomptarget's launch line.
    pub fn name(self) -> &'static str {
        match self {
            ExecMode::Generic => "Generic",
            ExecMode::Spmd => "SPMD",
            ExecMode::GenericSpmd => "Generic-SPMD",
            ExecMode::Bare => "bare",
        }
    }
}

/// What the kernel itself says about its launch: its environment and the function's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelShape {
    /// Mode from the kernel environment.
    pub mode: ExecMode,
    /// `MinThreads` of the configuration (0 or negative: none).
    pub min_threads: i32,
    /// `MaxThreads` of the configuration (0 or negative: none).
    pub max_threads: i32,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` of the compiled kernel.
    pub func_max_threads: u32,
}

/// Blocks and threads of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Blocks (teams).
    pub blocks: u32,
    /// Threads per block.
    pub threads: u32,
}

/// The grid of a launch with `num_teams` / `thread_limit` clauses (0: absent) and the loop trip
/// count clang passed (0: unknown).
pub fn compute(
    lim: &GridLimits,
    k: &KernelShape,
    num_teams: u32,
    thread_limit: u32,
    tripcount: u64,
) -> Grid {
    // The kernel's most and preferred threads.
    let mut max = lim.max_threads;
    if k.max_threads > 0 {
        max = max.min(k.max_threads as u32);
    }
    if k.func_max_threads > 0 {
        max = max.min(k.func_max_threads);
    }
    let mut preferred = lim.default_threads;
    if k.min_threads > 0 {
        preferred = preferred.max(k.min_threads as u32);
    }
    let bare = k.mode == ExecMode::Bare;

    let mut threads = if bare && thread_limit > 0 {
        thread_limit
    } else {
        let mut tl = thread_limit;
        if tl > 0 && k.mode == ExecMode::Generic {
            tl = tl.saturating_add(lim.warp); // the main thread's warp comes on top
        }
        max.min(if tl > 0 { tl } else { preferred })
    }
    .max(1);

    if bare && num_teams > 0 {
        return Grid {
            blocks: num_teams,
            threads,
        };
    }
    if num_teams > 0 {
        return Grid {
            blocks: num_teams.min(lim.max_blocks),
            threads,
        };
    }
    let default_blocks = u64::from(lim.default_blocks);
    let mut trip_blocks = u64::MAX;
    if tripcount > 0 {
        if k.mode == ExecMode::Spmd {
            let min_threads = lim.min_threads_low_trip.min(threads).max(1);
            let user_threads = thread_limit > 0;
            if tripcount >= default_blocks * u64::from(threads) || user_threads {
                trip_blocks = (tripcount - 1) / u64::from(threads) + 1;
            } else if tripcount >= default_blocks * u64::from(min_threads) {
                // Enough work for the default blocks with fewer threads: full warps, a power of
                // two, never more than before.
                let per_block = tripcount.div_ceil(default_blocks).next_power_of_two();
                threads = threads.min(u32::try_from(per_block).unwrap_or(u32::MAX));
                trip_blocks = (tripcount - 1) / u64::from(threads) + 1;
            } else {
                threads = threads.min(min_threads);
                trip_blocks = (tripcount - 1) / u64::from(threads) + 1;
            }
        } else {
            // `teams distribute` with a nested `parallel for`: a team per iteration.
            trip_blocks = tripcount;
        }
    }
    let preferred_blocks = if lim.reuse_blocks {
        trip_blocks.min(default_blocks)
    } else {
        trip_blocks
    };
    let blocks = preferred_blocks.min(u64::from(lim.max_blocks)).max(1);
    Grid {
        blocks: u32::try_from(blocks).unwrap_or(u32::MAX),
        threads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> GridLimits {
        GridLimits::nvptx(2_147_483_647, 1024, 32, 0, 0)
    }

    fn shape(mode: ExecMode) -> KernelShape {
        KernelShape {
            mode,
            min_threads: 0,
            max_threads: 0,
            func_max_threads: 1024,
        }
    }

    #[test]
    fn defaults_without_clauses_or_trip_count() {
        let g = compute(&h100(), &shape(ExecMode::Generic), 0, 0, 0);
        assert_eq!(
            g,
            Grid {
                blocks: 3200,
                threads: 128
            }
        );
    }

    #[test]
    fn spmd_loop_gets_one_thread_per_iteration_up_to_the_default_blocks() {
        let k = shape(ExecMode::Spmd);
        // Large loop: blocks capped at the default 3200 (blocks are reused).
        assert_eq!(compute(&h100(), &k, 0, 0, 1 << 30).blocks, 3200);
        // Mid-size loop: 3200 * 32 <= 200000 < 3200 * 128 -> threads = pow2ceil(ceil(200000/3200)) = 64.
        let g = compute(&h100(), &k, 0, 0, 200_000);
        assert_eq!(g.threads, 64);
        assert_eq!(g.blocks, 3125);
        // Small loop: 32 threads, ceil(1000/32) blocks.
        assert_eq!(
            compute(&h100(), &k, 0, 0, 1000),
            Grid {
                blocks: 32,
                threads: 32
            }
        );
    }

    #[test]
    fn user_clauses_win_within_the_limits() {
        let k = shape(ExecMode::Spmd);
        assert_eq!(
            compute(&h100(), &k, 7, 256, 1 << 20),
            Grid {
                blocks: 7,
                threads: 256
            }
        );
        // thread_limit beyond the device's 1024 is capped; with a user thread count the trip
        // count decides the blocks even when small.
        let g = compute(&h100(), &k, 0, 4096, 10_000);
        assert_eq!(g.threads, 1024);
        assert_eq!(g.blocks, 10);
    }

    #[test]
    fn generic_mode_adds_a_warp_for_the_main_thread() {
        let g = compute(&h100(), &shape(ExecMode::Generic), 0, 64, 0);
        assert_eq!(g.threads, 96);
        // teams distribute + nested parallel: one team per iteration, up to the default.
        assert_eq!(
            compute(&h100(), &shape(ExecMode::Generic), 0, 0, 50).blocks,
            50
        );
    }

    #[test]
    fn bare_kernels_take_clauses_verbatim() {
        let g = compute(&h100(), &shape(ExecMode::Bare), 5000, 2000, 0);
        assert_eq!(
            g,
            Grid {
                blocks: 5000,
                threads: 2000
            }
        );
    }

    #[test]
    fn environment_caps_and_kernel_limits_apply() {
        let lim = GridLimits::nvptx(2_147_483_647, 1024, 32, 100, 64);
        let k = shape(ExecMode::Spmd);
        let g = compute(&lim, &k, 0, 0, 1 << 30);
        assert_eq!(
            g,
            Grid {
                blocks: 100,
                threads: 64
            }
        );
        let mut small = shape(ExecMode::Spmd);
        small.func_max_threads = 256;
        small.max_threads = 200;
        assert_eq!(compute(&h100(), &small, 0, 1024, 0).threads, 200);
        small.min_threads = 150;
        assert_eq!(compute(&h100(), &small, 0, 0, 0).threads, 150);
    }
}
