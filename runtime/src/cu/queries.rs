//! The CU queries of seed 004's Table 2, as the invoking thread sees them: inside a CU (its CU
//! thread and every thread of parallel regions nested in it) the paper's values; elsewhere the
//! digest's default, one CPU CU that is the whole host.

use super::layout::{Kind, Layout};
use super::region;
use crate::runtime::Runtime;
use crate::sys::kmp;

/// The answers of every query for one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    /// `omp_get_num_cus()`.
    pub num_cus: u32,
    /// `omp_get_num_cpus()`: CPU CUs.
    pub num_cpus: u32,
    /// `omp_get_num_gpus()`: GPU CUs.
    pub num_gpus: u32,
    /// `omp_get_cu_num()`.
    pub cu_num: u32,
    /// `omp_is_cpu()`.
    pub is_cpu: bool,
    /// `omp_is_gpu()`.
    pub is_gpu: bool,
    /// `omp_get_cpu()`: the CU's OpenMP thread number (= its CU number), `u32::MAX` on a GPU CU.
    pub cpu: u32,
    /// `omp_get_gpu()`: the CU's first device, `u32::MAX` unless a GPU CU.
    pub gpu: u32,
    /// `omp_get_cu_num_cpus()` (the paper's `omp_get_num_threads()`): CPUs of a CPU CU, 1 for a
    /// GPU CU (its orchestrating CPU).
    pub cu_num_cpus: u32,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The view of a thread of CU `cu` of `layout`, or, with `None`, of a thread outside any CU:
/// one CPU CU (number 0) of `host_cpus` CPUs.
pub fn view(at: Option<(&Layout, usize)>, host_cpus: u32) -> View {
    let Some((layout, cu)) = at else {
        return View {
            num_cus: 1,
            num_cpus: 1,
            num_gpus: 0,
            cu_num: 0,
            is_cpu: true,
            is_gpu: false,
            cpu: 0,
            gpu: u32::MAX,
            cu_num_cpus: host_cpus.max(1),
        };
    };
    let unit = &layout.cus[cu];
    let (is_cpu, cpus, gpu) = match &unit.kind {
        Kind::Cpu { cpus } => (true, *cpus, u32::MAX),
        Kind::Gpu { devices } => (
            false,
            1,
            devices
                .first()
                .and_then(|&d| u32::try_from(d).ok())
                .unwrap_or(u32::MAX),
        ),
    };
    View {
        num_cus: count(layout.cus.len()),
        num_cpus: count(layout.num_cpus),
        num_gpus: count(layout.num_gpus),
        cu_num: count(cu),
        is_cpu,
        is_gpu: !is_cpu,
        cpu: if is_cpu { count(cu) } else { u32::MAX },
        gpu,
        cu_num_cpus: cpus,
    }
}

/// The calling thread's view. Outside a CU the host CU has `omp_get_max_threads()` CPUs: the
/// threads a `parallel num_threads(omp_get_cu_num_cpus())` there may use anyway.
pub fn current_view() -> View {
    match region::current() {
        Some((r, cu)) => view(Some((&r.layout, cu)), 0),
        None => view(None, u32::try_from(kmp::max_threads()).unwrap_or(1)),
    }
}

/// `omp_synchronize()`: a GPU CU's thread (or a thread nested in it) waits for its `target
/// nowait` tasks and its devices' queues; any other thread waits for its tasks only.
pub fn synchronize(rt: &Runtime) {
    match region::current() {
        Some((r, cu)) => region::synchronize_cu(rt, &r.layout.cus[cu]),
        None => kmp::taskwait(),
    }
}

/// The first device of the calling thread's CU when it is a GPU CU (`spread_migrate_data`'s
/// destination), else `None` (the host).
pub fn current_device() -> Option<i32> {
    let (r, cu) = region::current()?;
    r.layout.cus[cu].devices().first().copied()
}
