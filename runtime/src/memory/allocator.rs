//! Allocators on Spread's memory spaces, their allocations, and what each one was granted.
//!
//! Handles are the addresses of leaked [`Allocator`]s, so they never collide with libomp's
//! (predefined numbers, or addresses of libomp's own objects). A destroyed allocator stays
//! registered as destroyed, so a later use is reported instead of reaching libomp.

use super::provider::{self, Block, Grant, MemoryKind};
use super::space::MemSpace;
use super::traits::{self, key, Fallback, Request};
use crate::api::Side;
use crate::error::{Error, ErrorKind, Result};
use crate::info;
use crate::runtime::Runtime;
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// An allocator on a Spread memory space.
#[derive(Debug)]
pub struct Allocator {
    /// The `omp_allocator_handle_t` the program holds: this allocator's own address.
    pub handle: usize,
    /// The memory space it was initialised on (`omp_init_allocator`'s first argument).
    pub space: &'static MemSpace,
    /// The traits the program asked for, parsed.
    pub request: Request,
    /// What every allocation gets unless a fallback applies.
    pub grant: Grant,
    /// Bytes allocated now (for `omp_atk_pool_size`).
    in_use: AtomicUsize,
    destroyed: AtomicBool,
}

/// One live allocation.
#[derive(Debug, Clone, Copy)]
pub struct Allocation {
    /// Bytes the program asked for (counted against the allocator's pool).
    pub size: usize,
    /// Handle of the allocator it came from.
    pub allocator: usize,
    /// What this allocation actually got (a fallback may give less than the allocator's grant).
    pub grant: Grant,
    block: Block,
}

#[derive(Default)]
struct State {
    allocators: HashMap<usize, &'static Allocator>,
    /// By address, for range lookups from the mapping code.
    allocations: BTreeMap<usize, Allocation>,
}

fn state() -> &'static RwLock<State> {
    static S: OnceLock<RwLock<State>> = OnceLock::new();
    S.get_or_init(|| RwLock::new(State::default()))
}

thread_local! {
    /// This thread holds the registry's write lock: a `free` it makes meanwhile (a map node the
    /// change gives back) must not look in the registry (`libc_gives_back`).
    static WRITING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Changes the registry, marked so that the runtime's interposed `free` does not wait for the
/// lock this thread holds.
fn change<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut st = state().write();
    let was = WRITING.with(|w| w.replace(true));
    let r = f(&mut st);
    WRITING.with(|w| w.set(was));
    r
}

/// The live allocation at `ptr` that the program is giving back to the C library (`free` or
/// `realloc` of memory an OpenMP allocator of Spread's gave): `None` when `ptr` is none, and
/// while this thread changes the registry (the change's own frees are the runtime's).
pub fn libc_gives_back(ptr: usize) -> Option<Allocation> {
    if LIVE.load(Ordering::Relaxed) == 0 || WRITING.with(|w| w.get()) {
        return None;
    }
    allocation(ptr)
}

/// Live allocations; lets the mapping fast path skip the lock when there are none.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Serialises pool accounting with allocation (pool checks must not race).
static POOL: Mutex<()> = Mutex::new(());

/// The Spread allocator behind a handle (destroyed ones included).
pub fn lookup(handle: usize) -> Option<&'static Allocator> {
    if handle <= 1024 {
        return None; // predefined handles
    }
    state().read().allocators.get(&handle).copied()
}

/// A live Spread allocator, or why the handle cannot be used.
fn live(handle: usize) -> Result<&'static Allocator> {
    match lookup(handle) {
        Some(a) if !a.destroyed.load(Ordering::Acquire) => Ok(a),
        Some(_) => Err(Error::new(
            ErrorKind::Invalid,
            format!("allocator {handle:#x} was destroyed"),
        )),
        None => Err(Error::new(
            ErrorKind::Invalid,
            format!("{handle:#x} is not an allocator of a Spread memory space"),
        )),
    }
}

/// `omp_init_allocator` on a Spread space.
pub fn init(rt: &Runtime, space: &'static MemSpace, traits: &[(u64, u64)]) -> Result<usize> {
    let request = traits::parse(traits)?;
    if let Fallback::Allocator(fb) = request.fallback {
        if lookup(fb).is_some() {
            live(fb)?;
        }
    }
    let grant = provider::plan(rt, space, &request)?;
    let a: &'static mut Allocator = Box::leak(Box::new(Allocator {
        handle: 0,
        space,
        request,
        grant,
        in_use: AtomicUsize::new(0),
        destroyed: AtomicBool::new(false),
    }));
    a.handle = a as *const Allocator as usize;
    let a: &'static Allocator = a;
    change(|st| st.allocators.insert(a.handle, a));
    if rt.config.info_memory {
        info::spread_line(&format!(
            "memory: allocator {:#x} on {} ({}): {}",
            a.handle,
            space.accessors.describe(),
            space.base.name(),
            describe_grant(&a.grant)
        ));
    }
    Ok(a.handle)
}

/// `omp_destroy_allocator`. Allocations still live keep their memory until freed.
pub fn destroy(handle: usize) -> Result<()> {
    let a = live(handle)?;
    a.destroyed.store(true, Ordering::Release);
    Ok(())
}

/// The result of an allocation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The allocation's address.
    Ptr(usize),
    /// The allocation failed and the fallback gives null (`omp_atv_null_fb`, or
    /// `omp_atv_default_mem_fb` when the space's plain memory is exhausted too).
    Null,
    /// Allocate from this (non-Spread) allocator instead: `omp_atv_allocator_fb`.
    Delegate(usize),
}

/// `omp_alloc` / `omp_aligned_alloc` / `omp_calloc` from a Spread allocator. `align` is the
/// call's own alignment (1 when none), `zero` asks for zeroed memory.
pub fn alloc(
    rt: &Runtime,
    handle: usize,
    size: usize,
    align: usize,
    zero: bool,
) -> Result<Outcome> {
    let a = live(handle)?;
    if align == 0 || !align.is_power_of_two() {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!("alignment {align} is not a power of two"),
        ));
    }
    let mut grant = a.grant;
    grant.alignment = grant.alignment.max(align);
    let what = || format!("{size} bytes from allocator {handle:#x}");
    let _pool = POOL.lock();
    let within_pool = a
        .request
        .pool_size
        .is_none_or(|p| a.in_use.load(Ordering::Relaxed).saturating_add(size) <= p);
    let first = if within_pool {
        provider::allocate(rt, &grant, size)?
    } else {
        None
    };
    let block = match first {
        Some(b) if b.pinned || !a.grant.pinned => Some(b),
        Some(b) => {
            // Pages could not be locked: the fallback decides, as for any unmet trait.
            provider::release(rt, &grant, &b)?;
            None
        }
        None => None,
    };
    let (block, grant) = match block {
        Some(b) => (b, grant),
        None => {
            let why = if !within_pool {
                "the allocator's pool_size is used up"
            } else if first.is_some() {
                "its pages cannot be locked (pinned; see `ulimit -l`)"
            } else {
                "memory is exhausted"
            };
            if rt.config.info_memory {
                info::spread_line(&format!("memory: {} failed: {why}", what()));
            }
            match a.request.fallback {
                Fallback::Null => return Ok(Outcome::Null),
                Fallback::Abort => {
                    return Err(Error::new(
                        ErrorKind::OutOfMemory,
                        format!(
                            "{} failed ({why}) and the allocator's fallback is omp_atv_abort_fb",
                            what()
                        ),
                    ))
                }
                Fallback::Allocator(fb) => {
                    drop(_pool);
                    if lookup(fb).is_some() {
                        return alloc(rt, fb, size, align, zero);
                    }
                    return Ok(Outcome::Delegate(fb));
                }
                Fallback::DefaultMem => {
                    // The space's plain memory: no pool limit, no locked pages.
                    let mut plain = grant;
                    if plain.kind == MemoryKind::PinnedHost {
                        plain.kind = MemoryKind::Host;
                        plain.pinned = false;
                    }
                    match provider::allocate(rt, &plain, size)? {
                        Some(b) => (b, plain),
                        None => return Ok(Outcome::Null),
                    }
                }
            }
        }
    };
    a.in_use.fetch_add(size, Ordering::Relaxed);
    drop(_pool);
    if zero {
        if let Err(e) = zero_fill(rt, &grant, block.addr, size) {
            a.in_use.fetch_sub(size, Ordering::Relaxed);
            let _ = provider::release(rt, &grant, &block);
            return Err(e.context(format!("cannot zero {}", what())));
        }
    }
    change(|st| {
        st.allocations.insert(
            block.addr,
            Allocation {
                size,
                allocator: handle,
                grant,
                block,
            },
        )
    });
    crate::runtime::hooks::set_accessible(accessible);
    LIVE.fetch_add(1, Ordering::Release);
    if rt.config.info_memory {
        info::spread_line(&format!(
            "memory: {} -> {} ({})",
            what(),
            info::ptr(block.addr),
            describe_grant(&grant)
        ));
    }
    Ok(Outcome::Ptr(block.addr))
}

/// Sets the `size` bytes of a new block at `addr` to zero: device memory through its device,
/// host memory directly.
fn zero_fill(rt: &Runtime, grant: &Grant, addr: usize, size: usize) -> Result<()> {
    match grant.device {
        Some(d) => {
            let slot = rt.device(d as i64)?;
            let mut st = slot.stream()?;
            slot.dev.fill(addr, 0, size, &mut st)?;
            slot.dev.synchronize(&mut st)
        }
        None => {
            crate::sys::access::fill(addr, 0, size);
            Ok(())
        }
    }
}

/// Where the memory at `ptr` lives: the device of a Spread allocation in one device's own
/// memory, otherwise the host (Spread host memory, or memory libomp or the program allocated).
pub fn side_of(rt: &Runtime, ptr: usize) -> Result<Side<'_>> {
    match allocation(ptr).and_then(|a| a.grant.device) {
        Some(d) => Ok(Side::Device(rt.device(d as i64)?)),
        None => Ok(Side::Host),
    }
}

/// Copies `len` bytes from the allocation at `src` to the allocation at `dst` (`omp_realloc`
/// moving a block's contents), either of which may be device memory: device memory is only
/// touched through its device.
pub fn copy_contents(rt: &Runtime, dst: usize, src: usize, len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    crate::api::memcpy(dst, src, len, side_of(rt, dst)?, side_of(rt, src)?)
}

/// The Spread allocation starting at `ptr`.
pub fn allocation(ptr: usize) -> Option<Allocation> {
    if LIVE.load(Ordering::Acquire) == 0 {
        return None;
    }
    state().read().allocations.get(&ptr).copied()
}

/// The Spread allocation containing `[ptr, ptr+len)` (`len` 0: containing `ptr`).
pub fn containing(ptr: usize, len: usize) -> Option<Allocation> {
    if LIVE.load(Ordering::Acquire) == 0 {
        return None;
    }
    let st = state().read();
    let (&begin, a) = st.allocations.range(..=ptr).next_back()?;
    let end = begin + a.size;
    (ptr < end.max(begin + 1) && ptr.saturating_add(len) <= end.max(begin + 1)).then_some(*a)
}

/// Whether `[ptr, ptr+len)` lies in memory of a space `device` reaches, so that mapping it on the
/// device moves nothing (the device uses the host address).
pub fn accessible(device: usize, ptr: usize, len: usize) -> bool {
    containing(ptr, len)
        .and_then(|a| lookup(a.allocator))
        .is_some_and(|al| al.space.accessors.devices.contains(&device))
}

/// `omp_free` of Spread memory. `handle` is the allocator the program names (0: any).
pub fn free(rt: &Runtime, ptr: usize, handle: usize) -> Result<()> {
    let Some(a) = allocation(ptr) else {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "{} is not live memory of a Spread allocator (allocator {handle:#x} never allocated it, or it was freed already)",
                info::ptr(ptr)
            ),
        ));
    };
    if handle != 0 && handle != a.allocator {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "{} was allocated by allocator {:#x}, not by allocator {handle:#x}; it was not freed",
                info::ptr(ptr),
                a.allocator
            ),
        ));
    }
    if change(|st| st.allocations.remove(&ptr)).is_none() {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!("{} was freed twice", info::ptr(ptr)),
        ));
    }
    LIVE.fetch_sub(1, Ordering::Release);
    if let Some(al) = lookup(a.allocator) {
        al.in_use.fetch_sub(a.size, Ordering::Relaxed);
    }
    if rt.config.info_memory {
        info::spread_line(&format!(
            "memory: freed {} ({} bytes)",
            info::ptr(ptr),
            a.size
        ));
    }
    provider::release(rt, &a.grant, &a.block)
}

/// Traits as `(key, value)` pairs, in the order spread.h documents.
pub fn grant_traits(g: &Grant, requested_place: bool) -> Vec<(u64, u64)> {
    use super::traits::val;
    let mut t = vec![
        (key::MEMORY_ACCESS, g.access.value()),
        (key::PINNED, if g.pinned { val::TRUE } else { val::FALSE }),
        (key::PREFERRED_LOCATION, g.location as u64),
    ];
    if requested_place {
        t.push((
            key::PREFERRED_PLACE,
            g.place.map_or(val::DEFAULT, |p| p as u64),
        ));
    }
    t.push((key::ALIGNMENT, g.alignment as u64));
    t.push((key::MEMORY_KIND, g.kind.value()));
    t
}

/// What the allocation containing `ptr` received.
pub fn query_allocation(ptr: usize) -> Option<Vec<(u64, u64)>> {
    let a = containing(ptr, 0)?;
    let requested_place =
        lookup(a.allocator).is_some_and(|al| al.request.preferred_place.is_some());
    Some(grant_traits(&a.grant, requested_place))
}

/// What allocations of `handle` receive unless a fallback applies.
pub fn query_allocator(handle: usize) -> Option<Vec<(u64, u64)>> {
    let a = lookup(handle)?;
    Some(grant_traits(&a.grant, a.request.preferred_place.is_some()))
}

/// `coherent pinned host memory at host, aligned 64`, for `SPREAD_INFO=memory`.
pub fn describe_grant(g: &Grant) -> String {
    format!(
        "{} {}, location {}{}, aligned {}",
        g.access.name(),
        g.kind.name(),
        g.location,
        g.place
            .map_or(String::new(), |p| format!(", near place {p}")),
        g.alignment
    )
}

/// The size of the Spread allocation at `ptr` (for `omp_realloc`).
pub fn size_of(ptr: usize) -> Option<usize> {
    allocation(ptr).map(|a| a.size)
}

/// Whether a handle is a (possibly destroyed) Spread allocator.
pub fn is_spread(handle: usize) -> bool {
    lookup(handle).is_some()
}
