//! LLVM 19 offload ABI: the structures clang-19 programs hand to the runtime and the bits of a
//! map type. Layouts are fixed by LLVM 19 (see `shared/reference/llvm19-offload-abi.md`); the
//! size assertions below fail the build if a field is ever moved.

use std::ffi::{c_char, c_void};

/// `ident_t`: the source location clang passes to every construct.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Ident {
    pub reserved_1: i32,
    pub flags: i32,
    pub reserved_2: i32,
    pub reserved_3: i32,
    /// `";file;function;line;column;;"`.
    pub psource: *const c_char,
}

/// `__tgt_offload_entry` in its LLVM 19 (32-byte) form.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OffloadEntry {
    pub addr: *mut c_void,
    pub name: *const c_char,
    pub size: usize,
    pub flags: i32,
    pub data: i32,
}

/// `__tgt_device_image`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DeviceImage {
    pub image_start: *const c_void,
    pub image_end: *const c_void,
    pub entries_begin: *const OffloadEntry,
    pub entries_end: *const OffloadEntry,
}

/// `__tgt_bin_desc`: what the program's constructor registers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct BinDesc {
    pub num_device_images: i32,
    pub device_images: *const DeviceImage,
    pub host_entries_begin: *const OffloadEntry,
    pub host_entries_end: *const OffloadEntry,
}

/// `KernelArgsTy`, version 3.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelArgs {
    pub version: u32,
    pub num_args: u32,
    pub arg_base_ptrs: *mut *mut c_void,
    pub arg_ptrs: *mut *mut c_void,
    pub arg_sizes: *mut i64,
    pub arg_types: *mut i64,
    pub arg_names: *mut *mut c_void,
    pub arg_mappers: *mut *mut c_void,
    pub tripcount: u64,
    pub flags: u64,
    pub num_teams: [u32; 3],
    pub thread_limit: [u32; 3],
    pub dyn_cgroup_mem: u32,
}

/// One dimension of a non-contiguous `target update` section, outermost first.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NonContigDim {
    pub offset: u64,
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
    pub const UNIFIED_SHARED_MEMORY: i64 = 0x8;
}

/// Map-type bits (OMPConstants.h `OpenMPOffloadMappingFlags`).
pub mod map {
    pub const TO: i64 = 0x1;
    pub const FROM: i64 = 0x2;
    pub const ALWAYS: i64 = 0x4;
    pub const DELETE: i64 = 0x8;
    pub const PTR_AND_OBJ: i64 = 0x10;
    pub const TARGET_PARAM: i64 = 0x20;
    pub const RETURN_PARAM: i64 = 0x40;
    pub const PRIVATE: i64 = 0x80;
    pub const LITERAL: i64 = 0x100;
    pub const IMPLICIT: i64 = 0x200;
    pub const CLOSE: i64 = 0x400;
    pub const PRESENT: i64 = 0x1000;
    pub const OMPX_HOLD: i64 = 0x2000;
    pub const NON_CONTIG: i64 = 1 << 44;
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
