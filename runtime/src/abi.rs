//! LLVM 19 offload ABI: the structures clang-19 programs hand to the runtime and the bits of a
//! map type. Layouts are fixed by LLVM 19 (see `shared/reference/llvm19-offload-abi.md`); the
//! size assertions below fail the build if a field is ever moved.

use std::ffi::{c_char, c_void};

/// `ident_t`: the source location clang passes to every construct.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Ident {
    /// `ident_t::reserved_1`: unused by the runtime.
    pub reserved_1: i32,
    /// `ident_t::flags`: libomp's `KMP_IDENT_*` bits (construct kind, etc.); not read here.
    pub flags: i32,
    /// `ident_t::reserved_2`: reserved (libomp's ITT builds keep data there); not read here.
    pub reserved_2: i32,
    /// `ident_t::reserved_3`: unused by the runtime.
    pub reserved_3: i32,
    /// `";file;function;line;column;;"`.
    pub psource: *const c_char,
}

/// `__tgt_offload_entry` in its LLVM 19 (32-byte) form.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OffloadEntry {
    /// Host address of the global variable, or the host stub's address for a kernel (its ID).
    pub addr: *mut c_void,
    /// NUL-terminated symbol name the device image uses for the same entry.
    pub name: *const c_char,
    /// Size of the global in bytes; 0 for a kernel (function) entry or a requires record.
    pub size: usize,
    /// [`entry_flags`] bits.
    pub flags: i32,
    /// Extra data; for a [`entry_flags::REGISTER_REQUIRES`] entry, the [`requires`] bits.
    pub data: i32,
}

/// `__tgt_device_image`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DeviceImage {
    /// `ImageStart`: first byte of the embedded device binary (ELF, cubin, ...).
    pub image_start: *const c_void,
    /// `ImageEnd`: one past the last byte of the device binary.
    pub image_end: *const c_void,
    /// `EntriesBegin`: first offload entry of this image.
    pub entries_begin: *const OffloadEntry,
    /// `EntriesEnd`: one past the last offload entry of this image.
    pub entries_end: *const OffloadEntry,
}

/// `__tgt_bin_desc`: what the program's constructor registers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct BinDesc {
    /// `NumDeviceImages`: length of the `device_images` array.
    pub num_device_images: i32,
    /// `DeviceImages`: one image per offload target the program was built for.
    pub device_images: *const DeviceImage,
    /// `HostEntriesBegin`: first host-side offload entry (kernels and `declare target` globals).
    pub host_entries_begin: *const OffloadEntry,
    /// `HostEntriesEnd`: one past the last host-side offload entry.
    pub host_entries_end: *const OffloadEntry,
}

/// `KernelArgsTy`, version 3.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelArgs {
    /// `Version`: layout version of this structure (3 in LLVM 19).
    pub version: u32,
    /// `NumArgs`: number of map entries, i.e. the length of each `arg_*` array.
    pub num_args: u32,
    /// `ArgBasePtrs`: base address of each map entry (what a `TARGET_PARAM` entry passes to the
    /// kernel).
    pub arg_base_ptrs: *mut *mut c_void,
    /// `ArgPtrs`: begin address of each mapped section.
    pub arg_ptrs: *mut *mut c_void,
    /// `ArgSizes`: size in bytes of each mapped section.
    pub arg_sizes: *mut i64,
    /// `ArgTypes`: [`map`] bits of each entry.
    pub arg_types: *mut i64,
    /// `ArgNames`: per-entry variable names as clang encodes them (`;name;file;line;col;;`), for
    /// diagnostics; may be null.
    pub arg_names: *mut *mut c_void,
    /// `ArgMappers`: per-entry user-defined mapper functions (`declare mapper`); may be null.
    pub arg_mappers: *mut *mut c_void,
    /// `Tripcount`: iteration count of the region's loop, 0 when unknown; sizes GPU grids.
    pub tripcount: u64,
    /// `Flags`: bit 0 is `NoWait` ([`KERNEL_FLAG_NOWAIT`]), bit 1 `IsCUDA`.
    pub flags: u64,
    /// `NumTeams`: `num_teams` per dimension; 0 means no clause, `u32::MAX` a `target` without
    /// `teams`.
    pub num_teams: [u32; 3],
    /// `ThreadLimit`: `thread_limit` per dimension; 0 means no clause.
    pub thread_limit: [u32; 3],
    /// `DynCGroupMem`: bytes of dynamic group-private memory (`ompx_dyn_cgroup_mem`).
    pub dyn_cgroup_mem: u32,
}

/// One dimension of a non-contiguous `target update` section, outermost first.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NonContigDim {
    /// First element of the section in this dimension, in elements (scaled by `stride`).
    pub offset: u64,
    /// Number of elements of the section in this dimension.
    pub count: u64,
    /// In bytes.
    pub stride: u64,
}

const _: () = assert!(std::mem::size_of::<Ident>() == 24);
const _: () = assert!(std::mem::size_of::<OffloadEntry>() == 32);
const _: () = assert!(std::mem::size_of::<DeviceImage>() == 32);
const _: () = assert!(std::mem::size_of::<BinDesc>() == 32);
const _: () = assert!(std::mem::size_of::<KernelArgs>() == 104);
const _: () = assert!(std::mem::size_of::<NonContigDim>() == 24);

/// `KernelArgs::flags` bit: the launch belongs to a `nowait` target task.
pub const KERNEL_FLAG_NOWAIT: u64 = 1;

/// Offload-entry flags.
pub mod entry_flags {
    /// `declare target link`: the entry is the `<var>_decl_tgt_ref_ptr` pointer.
    pub const LINK: i32 = 0x01;
    /// An indirect function (`declare target indirect`).
    pub const INDIRECT: i32 = 0x08;
    /// A `#pragma omp requires` record; `data` holds the requirement bits.
    pub const REGISTER_REQUIRES: i32 = 0x10;
}

/// `#pragma omp requires` bits carried by REGISTER_REQUIRES entries.
pub mod requires {
    /// `OMP_REQ_UNIFIED_SHARED_MEMORY`: the program declared `requires unified_shared_memory`.
    pub const UNIFIED_SHARED_MEMORY: i64 = 0x8;
}

/// Map-type bits (OMPConstants.h `OpenMPOffloadMappingFlags`).
pub mod map {
    /// `OMP_MAP_TO`: copy host to device when the entry is created (or always, with `ALWAYS`).
    pub const TO: i64 = 0x1;
    /// `OMP_MAP_FROM`: copy device to host when the entry is released (or always, with `ALWAYS`).
    pub const FROM: i64 = 0x2;
    /// `OMP_MAP_ALWAYS`: do the `TO`/`FROM` copy even if the data was already present.
    pub const ALWAYS: i64 = 0x4;
    /// `OMP_MAP_DELETE`: `map(delete:)`; release the entry whatever its (dynamic) reference count.
    pub const DELETE: i64 = 0x8;
    /// `OMP_MAP_PTR_AND_OBJ`: a pointer and its pointee; the device pointer is attached.
    pub const PTR_AND_OBJ: i64 = 0x10;
    /// `OMP_MAP_TARGET_PARAM`: the entry is passed to the kernel as an argument.
    pub const TARGET_PARAM: i64 = 0x20;
    /// `OMP_MAP_RETURN_PARAM`: write the device address back into the base pointer
    /// (`use_device_ptr`/`use_device_addr`).
    pub const RETURN_PARAM: i64 = 0x40;
    /// `OMP_MAP_PRIVATE`: a private copy (with `TO`: `firstprivate`), not a mapping.
    pub const PRIVATE: i64 = 0x80;
    /// `OMP_MAP_LITERAL`: the base pointer is passed by value; nothing is mapped.
    pub const LITERAL: i64 = 0x100;
    /// `OMP_MAP_IMPLICIT`: the map was made implicitly by the compiler, not by a clause.
    pub const IMPLICIT: i64 = 0x200;
    /// `OMP_MAP_CLOSE`: the `close` modifier; allocate a device copy even under unified memory.
    pub const CLOSE: i64 = 0x400;
    /// `OMP_MAP_PRESENT`: the `present` modifier; an error if the data is not mapped yet.
    pub const PRESENT: i64 = 0x1000;
    /// `OMP_MAP_OMPX_HOLD`: `ompx_hold`; the entry's hold reference count, which keeps it mapped
    /// while a construct holds it.
    pub const OMPX_HOLD: i64 = 0x2000;
    /// `OMP_MAP_NON_CONTIG`: a strided `target update`; `ArgSizes` is a dimension count.
    pub const NON_CONTIG: i64 = 1 << 44;
    /// `OMP_MAP_MEMBER_OF`: the top 16 bits, the 1-based index of the parent struct's entry
    /// (see [`parent_index`]).
    pub const MEMBER_OF: i64 = -0x1_0000_0000_0000; // 0xffff << 48

    /// Index of the parent entry of a MEMBER_OF entry, if any.
    pub fn parent_index(t: i64) -> Option<usize> {
        let bits = ((t as u64) >> 48) as usize;
        bits.checked_sub(1)
    }

    /// A lambda capture: patches the parent lambda object's device copy.
    pub fn is_lambda_capture(t: i64) -> bool {
        t & (PTR_AND_OBJ | LITERAL | IMPLICIT | TARGET_PARAM) == (PTR_AND_OBJ | LITERAL | IMPLICIT)
    }

    /// The map-type words as libomptarget's `LIBOMPTARGET_INFO` prints them.
    pub fn describe(t: i64) -> String {
        let mut s = String::new();
        if t & LITERAL != 0 {
            s.push_str("literal");
        } else if t & PRIVATE != 0 {
            s.push_str(if t & TO != 0 {
                "firstprivate"
            } else {
                "private"
            });
        } else {
            s.push_str(match (t & TO != 0, t & FROM != 0) {
                (true, true) => "tofrom",
                (true, false) => "to",
                (false, true) => "from",
                (false, false) => "alloc",
            });
        }
        if t & IMPLICIT != 0 {
            s.insert_str(0, "implicit ");
        }
        s
    }
}
