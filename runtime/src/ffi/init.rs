//! Load-time set-up, before libomp initialises itself (at the program's first OpenMP call).

/// libomp's switch for its hidden helper threads.
const HIDDEN_HELPER: &str = "LIBOMP_USE_HIDDEN_HELPER_TASK";
/// The number of hidden helper threads libomp creates and reserves thread ids for.
const HIDDEN_HELPER_THREADS: &str = "LIBOMP_NUM_HIDDEN_HELPER_THREADS";

/// Whether a libomp boolean setting's value means "off" (libomp's own spellings).
fn is_off(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "0" | "f" | "false" | ".f." | ".false." | "n" | "no" | "off" | "disabled"
    )
}

/// Runs when the dynamic loader loads Spread's runtime.
extern "C" fn on_load() {
    super::guard::guard("on_load", set_up);
}

fn set_up() {
    // libomp's hidden helper threads stay on, as with stock libomptarget: they give the initial
    // thread a task team, without which every `target ... nowait` outside a parallel region runs
    // synchronously. A user who turns them off with LIBOMP_USE_HIDDEN_HELPER_TASK=0 alone hits a
    // libomp 19 bug: it still reserves thread ids 1..=8 for the helpers but not the capacity for
    // them, and asserts (`kmp_runtime.cpp(4544)`, `new_gtid < __kmp_threads_capacity`) when a
    // team fills the last slots of its thread table, e.g. `num_threads(256)` or tasks created
    // from many threads. Reserving no helper threads is what "off" means, so say so too.
    let off = std::env::var(HIDDEN_HELPER).is_ok_and(|v| is_off(&v));
    if off && std::env::var_os(HIDDEN_HELPER_THREADS).is_none() {
        // The loader runs constructors before the program starts any thread, so no other thread
        // reads the environment concurrently.
        std::env::set_var(HIDDEN_HELPER_THREADS, "0");
    }
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;
