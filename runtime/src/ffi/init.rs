//! Load-time set-up, before libomp initialises itself (at the program's first OpenMP call).

/// libomp's switch for its hidden helper threads.
const HIDDEN_HELPER: &str = "LIBOMP_USE_HIDDEN_HELPER_TASK";

/// Runs when the dynamic loader loads Spread's runtime.
extern "C" fn on_load() {
    super::guard::guard("on_load", set_up);
}

fn set_up() {
    // libomp 19 hands every `target nowait` task to 8 hidden helper threads that exist to wait
    // for libomptarget. Spread's device workers already do that waiting, and the helpers, which
    // spin while idle, took the cores from the device workers (4 ms instead of 0.04 ms for four
    // nowait regions on 2 cores) and trip libomp's assertion `kmp_tasking.cpp:4368`. Without
    // them, target tasks run on the team's own threads. A user's own setting wins.
    if std::env::var_os(HIDDEN_HELPER).is_none() {
        // The loader runs constructors before the program starts any thread, so no other thread
        // reads the environment concurrently.
        std::env::set_var(HIDDEN_HELPER, "0");
    }
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;
