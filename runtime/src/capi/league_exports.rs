//! Spread's stand-ins for the libomp entry points of host-device leagues: a host device renames
//! an image's imports of `__kmpc_fork_teams`, `__kmpc_fork_call`, `__kmpc_push_num_teams(_51)`,
//! `__kmpc_for_static_init_*`, `__kmpc_(end_)reduce(_nowait)`, `omp_get_team_num` and
//! `omp_get_num_teams` to these when it loads the image with `SPREAD_TEAMS=exact`
//! (`device::host::league`), so that `num_teams(N)` forms N logical teams however few cores the
//! device has. Only image code calls them; they are not part of any public ABI.

use super::guard::guard;
use crate::device::registry::league;
use crate::runtime::report;
use crate::sched::league::distribute;
use crate::sys::kmp::{self, StaticInitArgs};
use std::ffi::c_void;

/// The arguments after `loc, argc, microtask` of a variadic `__kmpc_fork_*` call, gathered by
/// the stand-ins' entry code: `regs` holds the three passed in registers (rcx, r8, r9), `stack`
/// points at the rest, where the caller put them.
fn captured(argc: i32, regs: *const usize, stack: *const usize) -> Vec<usize> {
    let argc = usize::try_from(argc).unwrap_or(0);
    (0..argc)
        .map(|i| {
            // SAFETY: `regs` points at the three register arguments the entry code stored on its
            // own stack; `stack` at the caller's stack arguments, of which the System V ABI
            // places argument 3 + k at `stack + k`. The caller (clang's code for `teams` or
            // `parallel`) passed `argc` pointer-sized arguments, so indices below `argc` are
            // arguments it wrote.
            unsafe {
                if i < 3 {
                    *regs.add(i)
                } else {
                    *stack.add(i - 3)
                }
            }
        })
        .collect()
}

/// A variadic stand-in for libomp's `$entry` (a `$construct` construct), forwarding to `$fork`.
///
/// Its entry code stores the register arguments rcx, r8, r9 next to each other and calls
/// `$module::target(loc, argc, microtask, regs, stack)`, where `regs` points at them and `stack`
/// at the caller's stack arguments. Rust cannot define C-variadic functions, and the varargs here
/// are all pointer-sized INTEGER-class values, which this reads exactly as the caller passed them.
macro_rules! variadic_entry {
    ($name:ident, $module:ident, $entry:literal, $construct:literal, $fork:path) => {
        mod $module {
            /// Receives the arguments the entry code gathered.
            pub(super) extern "C" fn target(
                loc: *const std::ffi::c_void,
                argc: i32,
                micro: usize,
                regs: *const usize,
                stack: *const usize,
            ) {
                let call = (loc as usize, argc, micro, regs, stack);
                super::forward($entry, $construct, $fork, call)
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        #[no_mangle]
        #[doc = concat!("`", $entry, "(loc, argc, microtask, ...)`.")]
        pub extern "C" fn $name() {
            // The frame keeps rsp 16-byte aligned at the call: entry rsp is 8 mod 16, the push
            // makes it 0, and 32 bytes of locals keep it there.
            core::arch::naked_asm!(
                "push rbp",
                "mov rbp, rsp",
                "sub rsp, 32",
                "mov qword ptr [rsp], rcx",
                "mov qword ptr [rsp + 8], r8",
                "mov qword ptr [rsp + 16], r9",
                "mov rcx, rsp",
                "lea r8, [rbp + 16]",
                "call {target}",
                "leave",
                "ret",
                target = sym $module::target,
            )
        }
    };
}

variadic_entry!(
    __spread_lg_teams,
    teams_entry,
    "__kmpc_fork_teams",
    "teams",
    crate::device::registry::league::fork_teams
);
variadic_entry!(
    __spread_lg_fork,
    parallel_entry,
    "__kmpc_fork_call",
    "parallel",
    crate::device::registry::league::fork_call
);

/// What a variadic stand-in does for libomp entry point `entry`: the captured arguments
/// go to `fork`, a failure is fatal (as libomp's would be).
fn forward(
    entry: &str,
    construct: &str,
    fork: fn(usize, usize, &[usize]) -> Result<(), String>,
    call: (usize, i32, usize, *const usize, *const usize),
) {
    let (loc, argc, micro, regs, stack) = call;
    guard(entry, || {
        let args = captured(argc, regs, stack);
        if let Err(e) = fork(loc, micro, &args) {
            report::fatal(1, &format!("{construct} construct: {e}"));
        }
    })
}

/// `__kmpc_push_num_teams(loc, gtid, num_teams, num_threads)`.
#[no_mangle]
pub extern "C" fn __spread_lg_push(_loc: *const c_void, _gtid: i32, teams: i32, threads: i32) {
    guard("__kmpc_push_num_teams", || {
        league::push_num_teams(teams, threads)
    })
}

/// `__kmpc_push_num_teams_51(loc, gtid, num_teams_lb, num_teams_ub, num_threads)`.
#[no_mangle]
pub extern "C" fn __spread_lg_push_51(
    _loc: *const c_void,
    _gtid: i32,
    lower: i32,
    upper: i32,
    threads: i32,
) {
    guard("__kmpc_push_num_teams_51", || {
        league::push_num_teams_51(lower, upper, threads)
    })
}

/// `omp_get_team_num()`.
#[no_mangle]
pub extern "C" fn __spread_lg_team() -> i32 {
    guard("omp_get_team_num", league::team_num)
}

/// `omp_get_num_teams()`.
#[no_mangle]
pub extern "C" fn __spread_lg_nteam() -> i32 {
    guard("omp_get_num_teams", league::num_teams)
}

/// A `__kmpc_for_static_init_*` stand-in: a `distribute` loop of a league Spread runs is
/// divided here over the logical teams; every other loop goes to libomp.
macro_rules! static_init {
    ($name:ident, $entry:literal, $forward:path, $t:ty, $s:ty) => {
        #[doc = concat!("`", $entry, "`.")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn $name(
            loc: *const c_void,
            gtid: i32,
            sched: i32,
            last: *mut i32,
            lower: *mut $t,
            upper: *mut $t,
            stride: *mut $s,
            incr: $s,
            chunk: $s,
        ) {
            guard($entry, || {
                let Some((team, teams)) = league::distribute_team(sched) else {
                    $forward(&StaticInitArgs {
                        loc: loc as usize,
                        gtid,
                        sched,
                        last,
                        lower,
                        upper,
                        stride,
                        incr,
                        chunk,
                    });
                    return;
                };
                // SAFETY: clang's code passes pointers to its loop's bound variables, which
                // this call reads and writes as libomp's would.
                unsafe {
                    let part = distribute(
                        sched,
                        i128::from(*lower),
                        i128::from(*upper),
                        i128::from(incr),
                        i128::from(chunk),
                        i128::from(team),
                        i128::from(teams),
                    );
                    // Narrowing wraps, as libomp's arithmetic in the loop's type does.
                    *lower = part.lower as $t;
                    *upper = part.upper as $t;
                    *stride = part.stride as $s;
                    if !last.is_null() {
                        *last = i32::from(part.last);
                    }
                }
            })
        }
    };
}

static_init!(
    __spread_lg_static_4,
    "__kmpc_for_static_init_4",
    kmp::for_static_init_4,
    i32,
    i32
);
static_init!(
    __spread_lg_static_4u,
    "__kmpc_for_static_init_4u",
    kmp::for_static_init_4u,
    u32,
    i32
);
static_init!(
    __spread_lg_static_8,
    "__kmpc_for_static_init_8",
    kmp::for_static_init_8,
    i64,
    i64
);
static_init!(
    __spread_lg_static_8u,
    "__kmpc_for_static_init_8u",
    kmp::for_static_init_8u,
    u64,
    i64
);

/// `__kmpc_reduce_nowait` / `__kmpc_reduce` (same parameters): a teams reduction of a league
/// Spread runs is a combine under its lock (returns 1: the caller combines, then ends it);
/// anything else is libomp's.
macro_rules! reduce {
    ($name:ident, $entry:literal, $forward:path) => {
        #[doc = concat!("`", $entry, "`.")]
        #[no_mangle]
        pub extern "C" fn $name(
            loc: *const c_void,
            gtid: i32,
            num_vars: i32,
            size: usize,
            data: *mut c_void,
            func: usize,
            lock: *mut c_void,
        ) -> i32 {
            guard($entry, || {
                if league::begin_team_reduction() {
                    1
                } else {
                    $forward(&kmp::ReduceArgs {
                        loc: loc as usize,
                        gtid,
                        num_vars,
                        size,
                        data,
                        func,
                        lock,
                    })
                }
            })
        }
    };
}
reduce!(
    __spread_lg_red_nw,
    "__kmpc_reduce_nowait",
    kmp::reduce_nowait
);
reduce!(__spread_lg_r, "__kmpc_reduce", kmp::reduce);

/// `__kmpc_end_reduce_nowait` / `__kmpc_end_reduce(loc, gtid, lock)`.
macro_rules! end_reduce {
    ($name:ident, $entry:literal, $forward:path) => {
        #[doc = concat!("`", $entry, "`.")]
        #[no_mangle]
        pub extern "C" fn $name(loc: *const c_void, gtid: i32, lock: *mut c_void) {
            guard($entry, || {
                if !league::end_team_reduction() {
                    $forward(loc as usize, gtid, lock)
                }
            })
        }
    };
}
end_reduce!(
    __spread_lg_end_red_nw,
    "__kmpc_end_reduce_nowait",
    kmp::end_reduce_nowait
);
end_reduce!(__spread_lg_end_r, "__kmpc_end_reduce", kmp::end_reduce);
