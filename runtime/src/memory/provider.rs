//! What the present backends give a memory space: the only backend-specific part of multi-device
//! memory. Everything else (spaces, traits, fallbacks, queries, mapping) is shared.
//!
//! Host devices run in the process, so memory one of them reaches, all of them and the host
//! reach: a space with the host or several devices gets one host allocation (page-locked when
//! `pinned` is asked for), and a single device's space gets that device's own memory. Coherence
//! is the CPU's, so every grant is `coherent`, which also satisfies `managed`.
//!
//! A space with a GPU among its devices and the host or other devices gets its memory from that
//! GPU's driver (docs/memory.md): `managed` (the default) from `cuMemAllocManaged`, `coherent`
//! from mapped page-locked host memory (`cuMemHostAlloc` with `DEVICEMAP | PORTABLE`), and
//! `preferred_location` becomes `cuMemAdvise(SET_PREFERRED_LOCATION)`. With unified addressing
//! the pointer is the same on the host and every device, so maps of it move nothing.
//! [`check_space`] refuses spaces with a device whose backend cannot share memory at all.

use super::space::{Accessors, BaseSpace, MemSpace};
use super::traits::{MemoryAccess, Request};
use crate::device::AllocKind;
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Runtime;
use crate::sys::{access, kmp, mem};

/// The kind of memory an allocation got (`spread_atk_memory_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// Pageable host memory (`spread_atv_host_memory`).
    Host,
    /// Page-locked host memory (`spread_atv_pinned_host_memory`).
    PinnedHost,
    /// One device's own memory (`spread_atv_device_memory`).
    Device,
    /// Managed memory that migrates between the host and GPUs.
    Managed,
}

impl MemoryKind {
    /// The `spread_atk_memory_kind` value the queries report.
    pub fn value(self) -> u64 {
        use super::traits::val;
        match self {
            MemoryKind::Host => val::HOST_MEMORY,
            MemoryKind::PinnedHost => val::PINNED_HOST_MEMORY,
            MemoryKind::Device => val::DEVICE_MEMORY,
            MemoryKind::Managed => val::MANAGED_MEMORY,
        }
    }
    /// The kind's name in `SPREAD_INFO=memory` lines ("pinned host memory", ...).
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Host => "host memory",
            MemoryKind::PinnedHost => "pinned host memory",
            MemoryKind::Device => "device memory",
            MemoryKind::Managed => "managed memory",
        }
    }
}

/// What an allocator promises, or an allocation received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The synchronisation model the memory provides (`omp_atk_memory_access`).
    pub access: MemoryAccess,
    /// Whether the host pages are locked (`omp_atk_pinned`).
    pub pinned: bool,
    /// Where the memory resides: a device number, or the initial device for host memory.
    pub location: i64,
    /// The place the memory is near, when a place was requested and is honoured.
    pub place: Option<i64>,
    /// Bytes the address is aligned to (`omp_atk_alignment`), a power of two.
    pub alignment: usize,
    /// The kind of memory (`spread_atk_memory_kind`).
    pub kind: MemoryKind,
    /// The device whose own memory this is (a single device's space).
    pub device: Option<usize>,
    /// The GPU whose driver allocates memory shared with the host or other devices, and the
    /// kind it allocates (`None`: ordinary host memory).
    pub backend: Option<(usize, AllocKind)>,
}

impl Grant {
    /// The device whose backend allocates this memory and the kind it allocates (`None`:
    /// Spread's own host allocation).
    fn allocated_by(&self) -> Option<(usize, AllocKind)> {
        self.device.map(|d| (d, AllocKind::Device)).or(self.backend)
    }
}

/// Why a space cannot be made, or `Ok` when the backends can serve it.
pub fn check_space(rt: &Runtime, a: &Accessors, base: BaseSpace) -> Result<()> {
    let refuse = |why: String| Err(Error::new(ErrorKind::Unsupported, why));
    match base {
        BaseSpace::LowLat => {
            return refuse(
                "omp_low_lat_mem_space is memory of one team, which cannot be allocated for devices from the host".into(),
            )
        }
        BaseSpace::Const => {
            return refuse(
                "omp_const_mem_space memory cannot be written by the program, so it cannot be filled for devices".into(),
            )
        }
        BaseSpace::TargetDevice if a.device_exclusive().is_none() => {
            return refuse(format!(
                "llvm_omp_target_device_mem_space is one device's own memory, but {} must reach it",
                a.describe()
            ))
        }
        _ => {}
    }
    for &d in &a.devices {
        let slot = rt.device(d as i64)?;
        if !slot.dev.shares_memory() && (a.host || a.devices.len() > 1) {
            return refuse(format!(
                "device {d} ({}) cannot share memory with {}",
                slot.dev.info().name,
                a.describe()
            ));
        }
    }
    Ok(())
}

/// Number of NUMA nodes of the host (its distinct memories).
pub fn numa_nodes() -> usize {
    let n = std::fs::read_dir("/sys/devices/system/node")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with("node") && name[4..].parse::<u32>().is_ok()
                })
                .count()
        })
        .unwrap_or(0);
    n.max(1)
}

/// `omp_get_memspace_num_resources` for a space Spread made.
pub fn num_resources(space: &MemSpace) -> usize {
    if space.accessors.device_exclusive().is_some() {
        1
    } else {
        numa_nodes()
    }
}

/// What an allocator with `req` on `space` will give, after checking the request's device and
/// place numbers against the space and the places.
pub fn plan(rt: &Runtime, space: &MemSpace, req: &Request) -> Result<Grant> {
    let a = &space.accessors;
    if let Some(loc) = req.preferred_location {
        let ok = if loc == rt.initial_device() {
            a.host
        } else {
            usize::try_from(loc).is_ok_and(|d| a.devices.contains(&d))
        };
        if !ok {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "omp_atk_preferred_location is device {loc}, which is not in the memory space ({})",
                    a.describe()
                ),
            ));
        }
    }
    let mut place = None;
    if let Some(p) = req.preferred_place {
        let places = i64::from(kmp::num_places());
        if p < 0 || p >= places {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "omp_atk_preferred_place is place {p}, but there are {places} places (OMP_PLACES)"
                ),
            ));
        }
        // With one memory every place is as near as it gets; several NUMA nodes would need the
        // pages bound (mbind), which this version does not do, so the place is then not granted.
        if numa_nodes() == 1 {
            place = Some(p);
        }
    }
    let alignment = req.alignment.max(mem::ALIGN);
    let gpu = a
        .devices
        .iter()
        .copied()
        .find(|&d| rt.device(d as i64).is_ok_and(|s| !s.dev.host_addressable()));
    if let (None, Some(g)) = (a.device_exclusive(), gpu) {
        let location = req.preferred_location.unwrap_or(rt.initial_device());
        // `pinned` without an access model asks for page-locked memory, which managed memory
        // (whose pages migrate) is not: the coherent kind is the pinned one.
        let default = if req.pinned {
            MemoryAccess::Coherent
        } else {
            MemoryAccess::Managed
        };
        return Ok(match req.memory_access.unwrap_or(default) {
            MemoryAccess::Managed => Grant {
                access: MemoryAccess::Managed,
                pinned: false, // managed pages migrate
                location,
                place,
                alignment,
                kind: MemoryKind::Managed,
                device: None,
                backend: Some((g, AllocKind::Shared)),
            },
            MemoryAccess::Coherent => Grant {
                access: MemoryAccess::Coherent,
                pinned: true,
                location: rt.initial_device(), // page-locked host memory stays on the host
                place,
                alignment,
                kind: MemoryKind::PinnedHost,
                device: None,
                backend: Some((g, AllocKind::Host)),
            },
        });
    }
    Ok(match a.device_exclusive() {
        Some(d) => Grant {
            access: MemoryAccess::Coherent,
            pinned: true, // device memory does not migrate
            location: d as i64,
            place,
            alignment,
            kind: MemoryKind::Device,
            device: Some(d),
            backend: None,
        },
        None => Grant {
            access: MemoryAccess::Coherent,
            pinned: req.pinned,
            location: rt.initial_device(),
            place,
            alignment,
            kind: if req.pinned {
                MemoryKind::PinnedHost
            } else {
                MemoryKind::Host
            },
            device: None,
            backend: None,
        },
    })
}

/// Memory obtained for one allocation.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// The address handed to the program (aligned).
    pub addr: usize,
    /// What was allocated: freed with [`release`].
    pub raw: usize,
    /// Bytes allocated at `raw`: the size asked for plus room to align `addr`.
    pub raw_len: usize,
    /// Whether the pages are locked.
    pub pinned: bool,
}

/// Allocates `size` bytes as `grant` describes; `None` when the memory is exhausted. A pinned
/// grant whose pages cannot be locked comes back with `pinned: false`, for the caller's fallback.
pub fn allocate(rt: &Runtime, grant: &Grant, size: usize) -> Result<Option<Block>> {
    let size = size.max(1);
    let by_device = grant.allocated_by();
    // Room to align the block: Spread's own host allocations are mem::ALIGN-aligned, but a
    // device backend promises nothing (a driver's blocks are usually aligned more, not always).
    let extra = match by_device {
        Some(_) => grant.alignment.saturating_sub(1),
        None => grant.alignment.saturating_sub(mem::ALIGN),
    };
    let Some(raw_len) = size.checked_add(extra) else {
        return Ok(None);
    };
    let raw = match by_device {
        Some((d, kind)) => match rt.device(d as i64)?.dev.alloc(raw_len, kind) {
            Ok(p) => p,
            Err(e) if e.kind == ErrorKind::OutOfMemory => return Ok(None),
            Err(e) => return Err(e),
        },
        None => match mem::alloc(raw_len) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let addr = raw.next_multiple_of(grant.alignment);
    if let (Some((d, AllocKind::Shared)), Ok(loc)) =
        (grant.backend, usize::try_from(grant.location))
    {
        // Managed memory: a preferred device keeps the pages there (advice only: the grant
        // already says where they are preferred).
        if loc < rt.num_devices() {
            let _ = rt.device(d as i64)?.dev.prefer_location(
                raw,
                raw_len,
                &*rt.device(grant.location)?.dev,
            );
        }
    }
    let pinned = match (grant.kind, grant.backend) {
        (_, Some((_, AllocKind::Host))) => true, // cuMemHostAlloc memory is page-locked
        (MemoryKind::PinnedHost, _) => access::lock_owned(addr, size),
        (MemoryKind::Device, _) => true,
        (MemoryKind::Host | MemoryKind::Managed, _) => false,
    };
    Ok(Some(Block {
        addr,
        raw,
        raw_len,
        pinned,
    }))
}

/// Gives back a block from [`allocate`].
pub fn release(rt: &Runtime, grant: &Grant, block: &Block) -> Result<()> {
    match grant.allocated_by() {
        Some((d, kind)) => rt.device(d as i64)?.dev.free(block.raw, kind),
        None => {
            if block.pinned {
                access::unlock_owned(block.addr, block.raw_len - (block.addr - block.raw));
            }
            access::free_owned(block.raw);
            Ok(())
        }
    }
}
