//! The state of Spread's OMPT tool that the layers below the tool read: whether libomp runs it,
//! whether it sees synchronization points, and which threads run a host device's kernel (whose
//! parallel regions and barriers are not the program's). The tool's callbacks are in
//! `capi::ompt`.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// 0: libomp has not started the tool; 1: it runs; 2: it could not register its callbacks.
pub(crate) static TOOL_STATE: AtomicU8 = AtomicU8::new(0);

/// The tool's `sync-region` callback runs (lazy `device(any)` coherence).
pub(crate) static SYNC_SEEN: AtomicBool = AtomicBool::new(false);

/// Whether libomp runs Spread's OMPT tool (so a pinned kernel's worker threads are pinned too).
pub fn tool_active() -> bool {
    TOOL_STATE.load(Ordering::Acquire) == 1
}

/// Whether the tool brings lazy `device(any)` outputs home at sync points; when it does not
/// (another tool is loaded), the program must call `spread_any_flush` itself.
pub fn sync_points_seen() -> bool {
    SYNC_SEEN.load(Ordering::Acquire)
}

thread_local! {
    /// Kernels of host devices (and parallel regions inside them) the thread is running.
    pub(crate) static INNER: Cell<u32> = const { Cell::new(0) };
}

/// Marks the current thread as running a host device's kernel while the guard lives.
pub struct InnerScope(());

impl InnerScope {
    /// Enters.
    pub fn enter() -> Self {
        INNER.with(|c| c.set(c.get() + 1));
        InnerScope(())
    }
}

impl Drop for InnerScope {
    fn drop(&mut self) {
        INNER.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

// ---------------------------------------------------------------------------------------------
// The program's tool, as libomp hands it to an offload runtime.

/// `ompt_data_t`: the 64-bit word a tool keeps with a region or task.
pub type Data = u64;

/// `ompt_function_lookup_t`.
pub type Lookup = extern "C" fn(*const c_char) -> *const c_void;
/// `ompt_callback_device_initialize_t`.
pub type DeviceInitialize = extern "C" fn(c_int, *const c_char, *mut c_void, Lookup, *const c_char);
/// `ompt_callback_device_finalize_t`.
pub type DeviceFinalize = extern "C" fn(c_int);
/// `ompt_callback_device_load_t`.
pub type DeviceLoad =
    extern "C" fn(c_int, *const c_char, i64, *mut c_void, usize, *mut c_void, *mut c_void, u64);
/// `ompt_callback_target_t`.
pub type Target = extern "C" fn(c_int, c_int, c_int, *mut Data, u64, *const c_void);
/// `ompt_callback_target_emi_t`.
pub type TargetEmi =
    extern "C" fn(c_int, c_int, c_int, *mut Data, *mut Data, *mut Data, *const c_void);
/// `ompt_callback_target_data_op_t`.
pub type DataOp =
    extern "C" fn(u64, u64, c_int, *mut c_void, c_int, *mut c_void, c_int, usize, *const c_void);
/// `ompt_callback_target_data_op_emi_t`.
pub type DataOpEmi = extern "C" fn(
    c_int,
    *mut Data,
    *mut Data,
    *mut u64,
    c_int,
    *mut c_void,
    c_int,
    *mut c_void,
    c_int,
    usize,
    *const c_void,
);
/// `ompt_callback_target_submit_t`.
pub type Submit = extern "C" fn(u64, u64, c_uint);
/// `ompt_callback_target_submit_emi_t`.
pub type SubmitEmi = extern "C" fn(c_int, *mut Data, *mut u64, c_uint);
/// `ompt_get_task_data_t` / `ompt_get_target_task_data_t` (libomp's, for an offload runtime).
pub type TaskData = extern "C" fn() -> *mut Data;

/// The callbacks the program's tool registered for device work, and libomp's task queries,
/// as libomp gives them to an offload runtime.
#[derive(Clone, Copy, Default)]
pub struct ToolCallbacks {
    /// `ompt_callback_device_initialize`.
    pub device_initialize: Option<DeviceInitialize>,
    /// `ompt_callback_device_finalize`.
    pub device_finalize: Option<DeviceFinalize>,
    /// `ompt_callback_device_load`.
    pub device_load: Option<DeviceLoad>,
    /// `ompt_callback_target`.
    pub target: Option<Target>,
    /// `ompt_callback_target_emi`.
    pub target_emi: Option<TargetEmi>,
    /// `ompt_callback_target_data_op`.
    pub data_op: Option<DataOp>,
    /// `ompt_callback_target_data_op_emi`.
    pub data_op_emi: Option<DataOpEmi>,
    /// `ompt_callback_target_submit`.
    pub submit: Option<Submit>,
    /// `ompt_callback_target_submit_emi`.
    pub submit_emi: Option<SubmitEmi>,
    /// libomp's `ompt_get_task_data`.
    pub task_data: Option<TaskData>,
    /// libomp's `ompt_get_target_task_data`.
    pub target_task_data: Option<TaskData>,
}

/// The lookup function a tool receives with each device (`device_initialize`). It finds
/// nothing, as stock libomptarget 19's on every device.
pub extern "C" fn device_lookup(_name: *const c_char) -> *const c_void {
    std::ptr::null()
}

/// `ompt_start_tool_result_t` of an offload runtime.
#[repr(C)]
struct ConnectResult {
    initialize: extern "C" fn(Lookup, c_int, *mut c_void) -> c_int,
    finalize: extern "C" fn(*mut c_void),
    tool_data: u64,
}

/// libomp's lookup for an offload runtime, once it called [`connect_initialize`].
static TARGET_LOOKUP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// libomp finalized its tool: no more callbacks may reach it.
static TOOL_FINALIZED: AtomicBool = AtomicBool::new(false);

static CONNECT: ConnectResult = ConnectResult {
    initialize: connect_initialize,
    finalize: connect_finalize,
    tool_data: 0,
};

extern "C" fn connect_initialize(lookup: Lookup, _device: c_int, _data: *mut c_void) -> c_int {
    TARGET_LOOKUP.store(lookup as usize, Ordering::Release);
    0
}

extern "C" fn connect_finalize(_data: *mut c_void) {
    TOOL_FINALIZED.store(true, Ordering::Release);
}

/// Whether libomp has finalized the tool (at exit): its callbacks must not be called any more.
pub fn tool_finalized() -> bool {
    TOOL_FINALIZED.load(Ordering::Acquire)
}

/// Connects to libomp as libomptarget does (`ompt_libomp_connect`): when a tool runs (the
/// program's, one of `OMP_TOOL_LIBRARIES`, or Spread's own), libomp hands over the callbacks it
/// registered for device work. `None` when no tool runs or libomp lacks OMPT.
pub fn connect() -> Option<ToolCallbacks> {
    type Connect = extern "C" fn(*const ConnectResult);
    type GetCallback = extern "C" fn(c_int, *mut usize) -> c_int;
    let addr = super::dl::global_symbol("ompt_libomp_connect")?;
    // SAFETY: libomp's `ompt_libomp_connect(ompt_start_tool_result_t *)` (LLVM 19's
    // ompt-general.cpp); it calls `CONNECT.initialize` now, when a tool runs, and keeps the
    // (static) result to call its `finalize` at exit.
    let connect = unsafe { std::mem::transmute::<usize, Connect>(addr) };
    connect(&CONNECT);
    let lookup = TARGET_LOOKUP.load(Ordering::Acquire);
    if lookup == 0 {
        return None;
    }
    // SAFETY: the address libomp passed to `connect_initialize` as its lookup function.
    let lookup = unsafe { std::mem::transmute::<usize, Lookup>(lookup) };
    let find = |name: &std::ffi::CStr| {
        let p = lookup(name.as_ptr());
        (!p.is_null()).then_some(p as usize)
    };
    let get = find(c"ompt_get_callback")?;
    // SAFETY: `ompt_get_callback_t` (omp-tools.h): the code of an event and where to store the
    // registered callback.
    let get = unsafe { std::mem::transmute::<usize, GetCallback>(get) };
    let registered = |code: c_int| {
        let mut f = 0usize;
        (get(code, &mut f) == 1 && f != 0).then_some(f)
    };
    macro_rules! typed {
        ($f:expr, $ty:ty) => {
            $f.map(|f| {
                // SAFETY: the callback the tool registered for the event whose C type OMPT
                // fixes as `$ty` (omp-tools.h), or libomp's task query of that type.
                unsafe { std::mem::transmute::<usize, $ty>(f) }
            })
        };
    }
    Some(ToolCallbacks {
        device_initialize: typed!(registered(12), DeviceInitialize),
        device_finalize: typed!(registered(13), DeviceFinalize),
        device_load: typed!(registered(14), DeviceLoad),
        target: typed!(registered(8), Target),
        target_emi: typed!(registered(33), TargetEmi),
        data_op: typed!(registered(9), DataOp),
        data_op_emi: typed!(registered(34), DataOpEmi),
        submit: typed!(registered(10), Submit),
        submit_emi: typed!(registered(35), SubmitEmi),
        task_data: typed!(find(c"ompt_get_task_data"), TaskData),
        target_task_data: typed!(find(c"ompt_get_target_task_data"), TaskData),
    })
}

// ---------------------------------------------------------------------------------------------
// Two tools' words in one: while Spread's tool and the program's run together
// (`capi::ompt::mux`), each region's and task's data word holds a pair of words, one per tool.

/// What a parallel region's or task's data word points at while two tools run.
#[repr(C)]
struct Pair {
    own: u64,
    client: u64,
}

/// Which of the two tools' words.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Half {
    /// Spread's own tool's.
    Own,
    /// The program's tool's.
    Client,
}

/// The kinds of data word whose pair outlives its end event on the ending thread (see
/// [`end_pair`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Parked {
    /// An implicit task's: libomp reports its barrier's end after the task's end, with its word.
    ImplicitTask = 0,
    /// A parallel region's.
    Parallel = 1,
}

/// The words of data libomp gives to tools are pairs: set by `capi::ompt::mux` when it starts
/// (before libomp's first callback), never unset.
static PAIRS: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Per [`Parked`] kind, the word (address) whose end this thread reported last and the pair
    /// it held, kept until this thread begins another of that kind.
    static PARKED_PAIRS: Cell<[(usize, usize); 2]> = const { Cell::new([(0, 0); 2]) };
}

/// From now on libomp's data words hold pairs ([`begin_pair`]).
pub fn use_pairs() {
    PAIRS.store(true, Ordering::Release);
}

/// Whether data words hold pairs (two tools run).
pub fn pairs() -> bool {
    PAIRS.load(Ordering::Acquire)
}

/// Frees this thread's parked pair of `kind`.
fn unpark(kind: Parked) {
    let old = PARKED_PAIRS.with(|p| {
        let mut all = p.get();
        let old = std::mem::take(&mut all[kind as usize]);
        p.set(all);
        old
    });
    if old.1 != 0 {
        // SAFETY: a pair boxed by `begin_pair`, whose word was cleared when it was parked: no
        // other reference to it remains.
        drop(unsafe { Box::from_raw(old.1 as *mut Pair) });
    }
}

/// A region or task begins: its data word at `word` gets a fresh pair of empty words. A word
/// that holds something already keeps it unfreed (it may be another record's, swapped in).
/// `parked`: the kind whose parked pair this thread no longer needs.
pub fn begin_pair(word: *mut Data, parked: Option<Parked>) {
    if let Some(kind) = parked {
        unpark(kind);
    }
    if word.is_null() {
        return;
    }
    let pair = Box::into_raw(Box::new(Pair { own: 0, client: 0 }));
    // SAFETY: libomp passes the data word of the region or task that begins: valid to write,
    // and read by tools only.
    unsafe { *word = pair as u64 };
}

/// Gives the word at `word` a pair unless it holds one (the initial task's parallel region,
/// which has no begin event of its own).
pub fn ensure_pair(word: *mut Data) {
    // SAFETY: as in `begin_pair`.
    if !word.is_null() && unsafe { *word } == 0 {
        begin_pair(word, None);
    }
}

/// A region or task ended: its pair is freed and its word emptied (libomp hands records out
/// again and may check that a word is empty). With `park`, the pair lives on for this thread
/// until it begins another of that kind, and [`half`] still finds it through the emptied word.
pub fn end_pair(word: *mut Data, park: Option<Parked>) {
    if word.is_null() {
        return;
    }
    // SAFETY: the data word of a region or task that ends, as libomp passes it.
    let pair = unsafe { std::mem::replace(&mut *word, 0) } as usize;
    if pair == 0 {
        return;
    }
    match park {
        Some(kind) => {
            unpark(kind);
            PARKED_PAIRS.with(|p| {
                let mut all = p.get();
                all[kind as usize] = (word as usize, pair);
                p.set(all);
            });
        }
        // SAFETY: boxed by `begin_pair`; its word is emptied above, so nothing finds it again.
        None => drop(unsafe { Box::from_raw(pair as *mut Pair) }),
    }
}

/// One tool's word of the pair that the data word at `word` holds: null when there is none.
/// Without pairs, the word itself.
pub fn half(word: *mut Data, which: Half) -> *mut Data {
    if word.is_null() || !pairs() {
        return word;
    }
    // SAFETY: a data word libomp passed or returned: valid to read.
    let mut pair = unsafe { *word } as usize;
    if pair == 0 {
        pair = PARKED_PAIRS.with(|p| {
            p.get()
                .iter()
                .find(|(w, _)| *w == word as usize)
                .map_or(0, |(_, pair)| *pair)
        });
    }
    if pair == 0 {
        return std::ptr::null_mut();
    }
    let pair = pair as *mut Pair;
    // SAFETY: a live pair (boxed by `begin_pair`, freed only when its word is emptied, or
    // parked on this thread); only the field's address is taken.
    unsafe {
        match which {
            Half::Own => std::ptr::addr_of_mut!((*pair).own),
            Half::Client => std::ptr::addr_of_mut!((*pair).client),
        }
    }
}

/// The connected tool's word of the task whose word Spread's own tool sees at `own` (an
/// address; 0: none): the other word of its pair while two tools run, else the word itself.
pub fn tool_word_of_own(own: usize) -> usize {
    if own == 0 || !pairs() {
        return own;
    }
    own - std::mem::offset_of!(Pair, own) + std::mem::offset_of!(Pair, client)
}

/// The task word libomp's `get` returns (`ompt_get_task_data`, `ompt_get_target_task_data`),
/// as the connected tool sees it: its own half while two tools run.
pub fn tool_task_word(get: TaskData) -> usize {
    half(get(), Half::Client) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_has_its_word_and_a_parked_pair_outlives_its_end() {
        use_pairs();
        let mut word: Data = 0;
        let w = &mut word as *mut Data;
        begin_pair(w, Some(Parked::ImplicitTask));
        let (own, client) = (half(w, Half::Own), half(w, Half::Client));
        assert!(!own.is_null() && !client.is_null() && own != client);
        // SAFETY: the two words of the live pair just made.
        unsafe {
            *own = 7;
            *client = 9;
            assert_eq!((*half(w, Half::Own), *half(w, Half::Client)), (7, 9));
        }
        assert_eq!(tool_word_of_own(own as usize), client as usize);
        // Ended and parked: the word is empty for libomp, the pair still found on this thread.
        end_pair(w, Some(Parked::ImplicitTask));
        assert_eq!(word, 0);
        assert_eq!(half(w, Half::Client), client);
        // Another implicit task begins on this thread: the parked pair is gone.
        let mut next: Data = 0;
        begin_pair(&mut next, Some(Parked::ImplicitTask));
        assert!(half(w, Half::Own).is_null());
        end_pair(&mut next, None);
        assert_eq!(next, 0);
        // Words that never had a pair have no halves; a null word stays null.
        let mut empty: Data = 0;
        assert!(half(&mut empty, Half::Own).is_null());
        assert!(half(std::ptr::null_mut(), Half::Client).is_null());
    }
}
