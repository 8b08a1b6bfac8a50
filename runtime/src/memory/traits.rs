//! The trait list of `omp_init_allocator`: OpenMP 5.2's traits plus seed 001's
//! `memory_access`, `preferred_location` and `preferred_place` (numbered in `spread.h`).

use crate::error::{Error, ErrorKind, Result};

/// Trait keys (`omp_alloctrait_key_t`).
pub mod key {
    /// `omp_atk_sync_hint`: expected contention of the allocator; checked, otherwise ignored.
    pub const SYNC_HINT: u64 = 1;
    /// `omp_atk_alignment`: byte alignment of every allocation, a power of two up to 2^30.
    pub const ALIGNMENT: u64 = 2;
    /// `omp_atk_access`: which threads access the memory; checked, otherwise ignored.
    pub const ACCESS: u64 = 3;
    /// `omp_atk_pool_size`: most bytes the allocator hands out at once.
    pub const POOL_SIZE: u64 = 4;
    /// `omp_atk_fallback`: what a failed allocation does (see [`Fallback`](super::Fallback)).
    pub const FALLBACK: u64 = 5;
    /// `omp_atk_fb_data`: the allocator `omp_atv_allocator_fb` falls back to.
    pub const FB_DATA: u64 = 6;
    /// `omp_atk_pinned`: host memory is page-locked (`omp_atv_true`/`omp_atv_false`).
    pub const PINNED: u64 = 7;
    /// `omp_atk_partition`: how memory is spread over NUMA nodes; checked, otherwise ignored.
    pub const PARTITION: u64 = 8;
    /// `omp_atk_memory_access` (seed 001): the synchronisation model required
    /// ([`MemoryAccess`](super::MemoryAccess)).
    pub const MEMORY_ACCESS: u64 = 0x5301;
    /// `omp_atk_preferred_location` (seed 001): the device number where the memory should
    /// live.
    pub const PREFERRED_LOCATION: u64 = 0x5302;
    /// `omp_atk_preferred_place` (seed 001): a place number (`OMP_PLACES`) the host memory
    /// should be near.
    pub const PREFERRED_PLACE: u64 = 0x5303;
    /// `spread_atk_memory_kind`: what kind of memory an allocation got; reported by the
    /// queries only (`spread_get_alloc_traits`), never requested.
    pub const MEMORY_KIND: u64 = 0x5310;
}

/// Trait values (`omp_alloctrait_value_t` and spread.h's additions).
pub mod val {
    /// `omp_atv_false`.
    pub const FALSE: u64 = 0;
    /// `omp_atv_true`.
    pub const TRUE: u64 = 1;
    /// `omp_atv_contended` (`omp_atk_sync_hint`).
    pub const CONTENDED: u64 = 3;
    /// `omp_atv_uncontended` (`omp_atk_sync_hint`).
    pub const UNCONTENDED: u64 = 4;
    /// `omp_atv_serialized` (`omp_atk_sync_hint`; also spelled `omp_atv_sequential`).
    pub const SERIALIZED: u64 = 5;
    /// `omp_atv_private` (`omp_atk_sync_hint`).
    pub const PRIVATE: u64 = 6;
    /// `omp_atv_all` (`omp_atk_access`): every thread of the device.
    pub const ALL: u64 = 7;
    /// `omp_atv_thread` (`omp_atk_access`): only the allocating thread.
    pub const THREAD: u64 = 8;
    /// `omp_atv_pteam` (`omp_atk_access`): the threads of the allocating parallel team.
    pub const PTEAM: u64 = 9;
    /// `omp_atv_cgroup` (`omp_atk_access`): the threads of the allocating contention group.
    pub const CGROUP: u64 = 10;
    /// `omp_atv_default_mem_fb` (`omp_atk_fallback`):
    /// [`Fallback::DefaultMem`](super::Fallback::DefaultMem).
    pub const DEFAULT_MEM_FB: u64 = 11;
    /// `omp_atv_null_fb` (`omp_atk_fallback`): [`Fallback::Null`](super::Fallback::Null).
    pub const NULL_FB: u64 = 12;
    /// `omp_atv_abort_fb` (`omp_atk_fallback`): [`Fallback::Abort`](super::Fallback::Abort).
    pub const ABORT_FB: u64 = 13;
    /// `omp_atv_allocator_fb` (`omp_atk_fallback`):
    /// [`Fallback::Allocator`](super::Fallback::Allocator).
    pub const ALLOCATOR_FB: u64 = 14;
    /// `omp_atv_environment` (`omp_atk_partition`).
    pub const ENVIRONMENT: u64 = 15;
    /// `omp_atv_nearest` (`omp_atk_partition`).
    pub const NEAREST: u64 = 16;
    /// `omp_atv_blocked` (`omp_atk_partition`).
    pub const BLOCKED: u64 = 17;
    /// `omp_atv_interleaved` (`omp_atk_partition`).
    pub const INTERLEAVED: u64 = 18;
    /// `omp_atv_default`.
    pub const DEFAULT: u64 = u64::MAX;
    /// `omp_atv_managed` (seed 001, `omp_atk_memory_access`):
    /// [`MemoryAccess::Managed`](super::MemoryAccess::Managed).
    pub const MANAGED: u64 = 0x5301;
    /// `omp_atv_coherent` (seed 001, `omp_atk_memory_access`):
    /// [`MemoryAccess::Coherent`](super::MemoryAccess::Coherent).
    pub const COHERENT: u64 = 0x5302;
    /// `spread_atv_host_memory` (`spread_atk_memory_kind`): pageable host memory.
    pub const HOST_MEMORY: u64 = 0x5311;
    /// `spread_atv_pinned_host_memory` (`spread_atk_memory_kind`): page-locked host
    /// memory.
    pub const PINNED_HOST_MEMORY: u64 = 0x5312;
    /// `spread_atv_device_memory` (`spread_atk_memory_kind`): one device's own memory.
    pub const DEVICE_MEMORY: u64 = 0x5313;
    /// `spread_atv_managed_memory` (`spread_atk_memory_kind`): migrating managed memory.
    pub const MANAGED_MEMORY: u64 = 0x5314;
}

/// Seed 001's synchronisation models for memory several devices reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryAccess {
    /// Accesses from different devices must be ordered by synchronisation (device work finished
    /// before the host touches the memory).
    Managed,
    /// Behaves like ordinary shared memory: concurrent access and atomics work.
    Coherent,
}

impl MemoryAccess {
    /// The trait value (`omp_atv_managed` or `omp_atv_coherent`) the queries report.
    pub fn value(self) -> u64 {
        match self {
            MemoryAccess::Managed => val::MANAGED,
            MemoryAccess::Coherent => val::COHERENT,
        }
    }
    /// The model's name in `SPREAD_INFO=memory` lines: "managed" or "coherent".
    pub fn name(self) -> &'static str {
        match self {
            MemoryAccess::Managed => "managed",
            MemoryAccess::Coherent => "coherent",
        }
    }
}

/// What happens when an allocation cannot be satisfied (`omp_atk_fallback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Try again without the traits that failed (unpinned memory of the same space, no pool
    /// limit), so the memory stays reachable from the space's devices.
    DefaultMem,
    /// `omp_atv_null_fb`: return null.
    Null,
    /// `omp_atv_abort_fb`: report the failure and abort the program.
    Abort,
    /// Allocate from the allocator in `fb_data`.
    Allocator(usize),
}

/// An allocator's requested traits, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `omp_atk_memory_access`; `None` when not requested (or `omp_atv_default`).
    pub memory_access: Option<MemoryAccess>,
    /// `omp_atk_pinned` is `omp_atv_true`: host memory must be page-locked.
    pub pinned: bool,
    /// `omp_atk_preferred_location`: a device number, not yet range-checked.
    pub preferred_location: Option<i64>,
    /// `omp_atk_preferred_place`: a place number, not yet range-checked.
    pub preferred_place: Option<i64>,
    /// A power of two; 1 when not requested.
    pub alignment: usize,
    /// `omp_atk_pool_size` in bytes; `None`: no limit.
    pub pool_size: Option<usize>,
    /// `omp_atk_fallback` (with `omp_atk_fb_data`); [`Fallback::DefaultMem`] when not requested.
    pub fallback: Fallback,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            memory_access: None,
            pinned: false,
            preferred_location: None,
            preferred_place: None,
            alignment: 1,
            pool_size: None,
            fallback: Fallback::DefaultMem,
        }
    }
}

/// Whether a trait list uses one of seed 001's keys (which libomp does not know).
pub fn uses_extension_keys(traits: &[(u64, u64)]) -> bool {
    traits.iter().any(|&(k, _)| {
        matches!(
            k,
            key::MEMORY_ACCESS | key::PREFERRED_LOCATION | key::PREFERRED_PLACE
        )
    })
}

fn bad(msg: String) -> Error {
    Error::new(ErrorKind::Invalid, msg)
}

fn expect(name: &str, v: u64, allowed: &[(u64, &str)]) -> Result<()> {
    if v == val::DEFAULT || allowed.iter().any(|&(a, _)| a == v) {
        return Ok(());
    }
    let names: Vec<&str> = allowed.iter().map(|&(_, n)| n).collect();
    Err(bad(format!(
        "trait {name} has unknown value {v:#x} (expected {})",
        names.join(", ")
    )))
}

/// Parses `(key, value)` pairs. Device and place numbers are range-checked by the caller, which
/// knows the space and the places.
pub fn parse(traits: &[(u64, u64)]) -> Result<Request> {
    let mut r = Request::default();
    let mut fb_data = None;
    let mut wants_allocator_fb = false;
    for &(k, v) in traits {
        match k {
            key::SYNC_HINT => expect(
                "omp_atk_sync_hint",
                v,
                &[
                    (val::CONTENDED, "omp_atv_contended"),
                    (val::UNCONTENDED, "omp_atv_uncontended"),
                    (val::SERIALIZED, "omp_atv_serialized"),
                    (val::PRIVATE, "omp_atv_private"),
                ],
            )?,
            key::ALIGNMENT => {
                if v == 0 || !v.is_power_of_two() || v > (1 << 30) {
                    return Err(bad(format!(
                        "trait omp_atk_alignment is {v}, not a power of two up to 2^30"
                    )));
                }
                r.alignment = v as usize;
            }
            key::ACCESS => expect(
                "omp_atk_access",
                v,
                &[
                    (val::ALL, "omp_atv_all"),
                    (val::CGROUP, "omp_atv_cgroup"),
                    (val::PTEAM, "omp_atv_pteam"),
                    (val::THREAD, "omp_atv_thread"),
                ],
            )?,
            key::POOL_SIZE => r.pool_size = (v != val::DEFAULT).then_some(v as usize),
            key::FALLBACK => {
                expect(
                    "omp_atk_fallback",
                    v,
                    &[
                        (val::DEFAULT_MEM_FB, "omp_atv_default_mem_fb"),
                        (val::NULL_FB, "omp_atv_null_fb"),
                        (val::ABORT_FB, "omp_atv_abort_fb"),
                        (val::ALLOCATOR_FB, "omp_atv_allocator_fb"),
                    ],
                )?;
                r.fallback = match v {
                    val::NULL_FB => Fallback::Null,
                    val::ABORT_FB => Fallback::Abort,
                    _ => Fallback::DefaultMem,
                };
                wants_allocator_fb = v == val::ALLOCATOR_FB;
            }
            key::FB_DATA => fb_data = Some(v as usize),
            key::PINNED => match v {
                val::TRUE => r.pinned = true,
                val::FALSE | val::DEFAULT => r.pinned = false,
                _ => {
                    return Err(bad(format!(
                        "trait omp_atk_pinned has unknown value {v:#x} (expected omp_atv_true, omp_atv_false)"
                    )))
                }
            },
            key::PARTITION => expect(
                "omp_atk_partition",
                v,
                &[
                    (val::ENVIRONMENT, "omp_atv_environment"),
                    (val::NEAREST, "omp_atv_nearest"),
                    (val::BLOCKED, "omp_atv_blocked"),
                    (val::INTERLEAVED, "omp_atv_interleaved"),
                ],
            )?,
            key::MEMORY_ACCESS => {
                r.memory_access = match v {
                    val::MANAGED => Some(MemoryAccess::Managed),
                    val::COHERENT => Some(MemoryAccess::Coherent),
                    val::DEFAULT => None,
                    _ => {
                        return Err(bad(format!(
                            "trait omp_atk_memory_access has unknown value {v:#x} (expected omp_atv_managed, omp_atv_coherent)"
                        )))
                    }
                }
            }
            key::PREFERRED_LOCATION => {
                r.preferred_location = (v != val::DEFAULT).then_some(v as i64)
            }
            key::PREFERRED_PLACE => r.preferred_place = (v != val::DEFAULT).then_some(v as i64),
            _ => return Err(bad(format!("unknown allocator trait key {k:#x}"))),
        }
    }
    if wants_allocator_fb {
        match fb_data {
            Some(a) if a != 0 => r.fallback = Fallback::Allocator(a),
            _ => {
                return Err(bad(
                    "omp_atv_allocator_fb needs an allocator in omp_atk_fb_data".into(),
                ))
            }
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seed_001_traits() {
        let r = parse(&[
            (key::MEMORY_ACCESS, val::MANAGED),
            (key::PREFERRED_LOCATION, 1),
            (key::PREFERRED_PLACE, 0),
            (key::PINNED, val::TRUE),
            (key::ALIGNMENT, 256),
        ])
        .unwrap();
        assert_eq!(r.memory_access, Some(MemoryAccess::Managed));
        assert_eq!(r.preferred_location, Some(1));
        assert_eq!(r.preferred_place, Some(0));
        assert!(r.pinned);
        assert_eq!(r.alignment, 256);
        assert!(uses_extension_keys(&[(key::PREFERRED_PLACE, 0)]));
        assert!(!uses_extension_keys(&[(key::PINNED, val::TRUE)]));
    }

    #[test]
    fn rejects_unknown_keys_and_values() {
        assert!(parse(&[(key::MEMORY_ACCESS, 7)]).is_err());
        assert!(parse(&[(0x9999, 1)]).is_err());
        assert!(parse(&[(key::ALIGNMENT, 24)]).is_err());
        assert!(parse(&[(key::PINNED, 5)]).is_err());
        assert!(parse(&[(key::FALLBACK, val::ALLOCATOR_FB)]).is_err());
        let r = parse(&[(key::FALLBACK, val::ALLOCATOR_FB), (key::FB_DATA, 1)]).unwrap();
        assert_eq!(r.fallback, Fallback::Allocator(1));
    }
}
