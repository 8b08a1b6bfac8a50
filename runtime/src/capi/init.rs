//! Load-time set-up, before libomp initialises itself (at the program's first OpenMP call).

/// libomp's switch for its hidden helper threads.
const HIDDEN_HELPER: &str = "LIBOMP_USE_HIDDEN_HELPER_TASK";
/// The number of hidden helper threads libomp creates and reserves thread ids for.
const HIDDEN_HELPER_THREADS: &str = "LIBOMP_NUM_HIDDEN_HELPER_THREADS";

/// Runs when the dynamic loader loads Spread's runtime.
extern "C" fn on_load() {
    super::guard::guard("on_load", set_up);
}

fn set_up() {
    // The device lookup a tool receives with `device_initialize`: the tracing entry points.
    crate::ompt::set_device_lookup(super::ompt::device_trace::lookup);
    // libomp's hidden helper threads are off unless the user sets LIBOMP_USE_HIDDEN_HELPER_TASK:
    // Spread completes `nowait` constructs itself (runtime::nowait, through its OMPT tool), so
    // the helpers' hand-offs would only cost (a `target nowait` + `taskwait` took 20-100 us with
    // them against 2-4 us without, on 2 cores; Somier's nowait versions 4-20 times their
    // helpers-off time), and libomp 19 aborts or hangs when many threads create tasks while they
    // start (`kmp_tasking.cpp(4368)`, `kmp_runtime.cpp(4548)`; docs/runtime.md).
    //
    // With the helpers off, libomp 19 still reserves thread ids 1..=8 for them but not the
    // capacity, and asserts (`kmp_runtime.cpp(4544)`, `new_gtid < __kmp_threads_capacity`) when a
    // team fills the last slots of its thread table, e.g. `num_threads(256)` or tasks created
    // from many threads. Reserving no helper threads is what "off" means, so say so too.
    //
    // The loader runs constructors before the program starts any thread, so no other thread
    // reads the environment concurrently.
    //
    // A tool of the program's own (its `ompt_start_tool`, or `OMP_TOOL_LIBRARIES`) runs with
    // Spread's where Spread's is needed (capi::ompt::mux). Where the program's tool runs alone,
    // `nowait` constructs are libomp's target tasks again: there the helpers are libomp's
    // default, on, so that such a construct on the initial thread runs asynchronously as on
    // stock (with the helpers off it would run at once, 3.8x stock's time in bench/nowait's
    // initial-thread case).
    let program_tool_alone = super::ompt::arrange_at_load();
    if std::env::var_os(HIDDEN_HELPER).is_none() && !program_tool_alone {
        std::env::set_var(HIDDEN_HELPER, "0");
    }
    let off = std::env::var(HIDDEN_HELPER).is_ok_and(|v| crate::config::is_off(&v));
    if off && std::env::var_os(HIDDEN_HELPER_THREADS).is_none() {
        std::env::set_var(HIDDEN_HELPER_THREADS, "0");
    }
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;
