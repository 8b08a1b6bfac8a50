//! The structures LLVM 19's nvptx device runtime shares with the host side, in their byte
//! layout, and the constructor lists a cubin carries.

use super::grid::{ExecMode, KernelShape};
use object::{Object, ObjectSymbol};

/// Name of the global the device runtime reads its [`DeviceEnvironment`] from.
pub const DEVICE_ENVIRONMENT: &str = "__omp_rtl_device_environment";

/// `DeviceEnvironmentTy`: what the device runtime knows of its device (48 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceEnvironment {
    /// `LIBOMPTARGET_DEVICE_RTL_DEBUG`.
    pub debug_kind: u32,
    /// CUDA devices of the program.
    pub num_devices: u32,
    /// This device's number among them.
    pub device_num: u32,
    /// `LIBOMPTARGET_SHARED_MEMORY_SIZE`.
    pub dynamic_mem_size: u32,
    /// Cycles per second `omp_get_wtime` divides by.
    pub clock_frequency: u64,
    /// Device address of the indirect-call table (0: none).
    pub indirect_call_table: u64,
    /// Entries in that table.
    pub indirect_call_table_size: u64,
    /// Warps the device keeps resident at once.
    pub hardware_parallelism: u64,
}

impl DeviceEnvironment {
    /// Size of the structure in the image.
    pub const SIZE: usize = 48;

    /// The bytes the device global receives.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.debug_kind.to_le_bytes());
        b[4..8].copy_from_slice(&self.num_devices.to_le_bytes());
        b[8..12].copy_from_slice(&self.device_num.to_le_bytes());
        b[12..16].copy_from_slice(&self.dynamic_mem_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.clock_frequency.to_le_bytes());
        b[24..32].copy_from_slice(&self.indirect_call_table.to_le_bytes());
        b[32..40].copy_from_slice(&self.indirect_call_table_size.to_le_bytes());
        b[40..48].copy_from_slice(&self.hardware_parallelism.to_le_bytes());
        b
    }
}

/// The device runtime's indirect-call table: one `(host function, device function)` address
/// pair per `declare target indirect` function, 16 bytes each, sorted by host address (the
/// device runtime looks a host function pointer up by binary search, LLVM 19's
/// `__llvm_omp_indirect_call_lookup`). A host function listed twice keeps its first pair.
pub fn indirect_call_table(mut pairs: Vec<(u64, u64)>) -> Vec<u8> {
    pairs.sort_by_key(|p| p.0);
    pairs.dedup_by_key(|p| p.0);
    pairs
        .iter()
        .flat_map(|&(host, dev)| host.to_le_bytes().into_iter().chain(dev.to_le_bytes()))
        .collect()
}

/// The configuration part of `<kernel>_kernel_environment` that decides a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelEnvironment {
    /// `ExecMode`: 1 generic, 2 SPMD, 3 generic-SPMD.
    pub mode: ExecMode,
    /// `MinThreads`.
    pub min_threads: i32,
    /// `MaxThreads`.
    pub max_threads: i32,
    /// `ReductionDataSize`: bytes of one team's reduction data.
    pub reduction_data_size: u32,
    /// `ReductionBufferLength`: teams' slots in the reduction buffer.
    pub reduction_buffer_length: u32,
}

impl KernelEnvironment {
    /// Bytes read from the image: the configuration, which comes first.
    pub const SIZE: usize = 28;

    /// Decodes the configuration (`{u8 UseGenericStateMachine, MayUseNestedParallelism,
    /// ExecMode, pad; i32 MinThreads, MaxThreads, MinTeams, MaxTeams, ReductionDataSize,
    /// ReductionBufferLength}`); `None` when too short or the mode is unknown.
    pub fn parse(b: &[u8]) -> Option<Self> {
        if b.len() < Self::SIZE {
            return None;
        }
        let i32_at = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let mode = match b[2] {
            1 => ExecMode::Generic,
            2 => ExecMode::Spmd,
            3 => ExecMode::GenericSpmd,
            _ => return None,
        };
        Some(KernelEnvironment {
            mode,
            min_threads: i32_at(4),
            max_threads: i32_at(8),
            reduction_data_size: i32_at(20).max(0) as u32,
            reduction_buffer_length: i32_at(24).max(0) as u32,
        })
    }

    /// A kernel without an environment (`ompx_bare`).
    pub fn bare() -> Self {
        KernelEnvironment {
            mode: ExecMode::Bare,
            min_threads: 0,
            max_threads: 0,
            reduction_data_size: 0,
            reduction_buffer_length: 0,
        }
    }

    /// The launch-relevant shape, with the compiled function's thread limit.
    pub fn shape(&self, func_max_threads: u32) -> KernelShape {
        KernelShape {
            mode: self.mode,
            min_threads: self.min_threads,
            max_threads: self.max_threads,
            func_max_threads,
        }
    }

    /// Bytes of the team reduction buffer the launch must provide (0: none).
    pub fn reduction_buffer_bytes(&self) -> usize {
        self.reduction_data_size as usize * self.reduction_buffer_length as usize
    }
}

/// The global holding a kernel's environment.
pub fn kernel_environment_name(kernel: &str) -> String {
    format!("{kernel}_kernel_environment")
}

/// The kernel the `nvptx-lower-ctor-dtor` pass adds to run an image's constructors
/// (`ctor`) or destructors.
pub fn ctor_kernel(ctor: bool) -> &'static str {
    if ctor {
        "nvptx$device$init"
    } else {
        "nvptx$device$fini"
    }
}

/// The globals naming `[start, end)` of the constructor (or destructor) list.
pub fn ctor_bounds(ctor: bool) -> (&'static str, &'static str) {
    if ctor {
        ("__init_array_start", "__init_array_end")
    } else {
        ("__fini_array_start", "__fini_array_end")
    }
}

/// The globals holding an image's constructor (or destructor) pointers, in the order they run:
/// `__init_array_object_<fn>_<hash>_<priority>` symbols sorted by priority, lowest first (as
/// LLVM's plugins order both lists). Fails on a symbol whose priority is not a number.
pub fn ctor_objects(image: &[u8], ctor: bool) -> Result<Vec<String>, String> {
    let prefix = if ctor {
        "__init_array_object_"
    } else {
        "__fini_array_object_"
    };
    let file = object::File::parse(image).map_err(|e| format!("cannot read the cubin: {e}"))?;
    let mut found: Vec<(u16, String)> = Vec::new();
    for sym in file.symbols() {
        let Ok(name) = sym.name() else { continue };
        if !name.starts_with(prefix) {
            continue;
        }
        let prio = name
            .rsplit('_')
            .next()
            .and_then(|p| p.parse::<u16>().ok())
            .ok_or_else(|| format!("constructor symbol '{name}' has no numeric priority"))?;
        found.push((prio, name.to_string()));
    }
    found.sort_by_key(|(p, _)| *p);
    Ok(found.into_iter().map(|(_, n)| n).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn indirect_call_table_is_sorted_pairs() {
        let t = indirect_call_table(vec![(0x30, 0xc), (0x10, 0xa), (0x20, 0xb), (0x10, 0xd)]);
        let words: Vec<u64> = t
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        assert_eq!(words, [0x10, 0xa, 0x20, 0xb, 0x30, 0xc]);
        assert!(indirect_call_table(Vec::new()).is_empty());
    }

    use super::*;

    #[test]
    fn device_environment_layout() {
        let e = DeviceEnvironment {
            debug_kind: 1,
            num_devices: 2,
            device_num: 3,
            dynamic_mem_size: 4,
            clock_frequency: 1_000_000_000,
            indirect_call_table: 0x10,
            indirect_call_table_size: 6,
            hardware_parallelism: 7,
        };
        let b = e.to_bytes();
        assert_eq!(&b[8..12], &3u32.to_le_bytes());
        assert_eq!(&b[16..24], &1_000_000_000u64.to_le_bytes());
        assert_eq!(&b[40..48], &7u64.to_le_bytes());
    }

    fn config(bytes: [i32; 6], mode: u8) -> Vec<u8> {
        let mut b = vec![0u8, 0, mode, 0];
        for v in bytes {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&[0u8; 20]); // ident and dynamic-environment pointers
        b
    }

    #[test]
    fn kernel_environment_as_clang_19_emits_it() {
        // Seen after LTO: teams distribute parallel for with a reduction.
        let k = KernelEnvironment::parse(&config([1, 128, 0, 0, 8, 1024], 2)).expect("valid");
        assert_eq!(k.mode, ExecMode::Spmd);
        assert_eq!((k.min_threads, k.max_threads), (1, 128));
        assert_eq!(k.reduction_buffer_bytes(), 8 * 1024);
        // Plain target: generic-SPMD, no reduction.
        let k = KernelEnvironment::parse(&config([1, 128, -1, -1, 0, 0], 3)).expect("valid");
        assert_eq!(k.mode, ExecMode::GenericSpmd);
        assert_eq!(k.reduction_buffer_bytes(), 0);
        assert!(KernelEnvironment::parse(&config([0; 6], 9)).is_none());
        assert!(KernelEnvironment::parse(&[1, 2, 3]).is_none());
    }

    #[test]
    fn constructors_are_ordered_by_priority() {
        use object::write::{Object as W, Symbol, SymbolSection};
        use object::{
            Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope,
        };
        let mut w = W::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        for name in [
            "__init_array_object_late_abc_200",
            "__fini_array_object_bye_abc_1",
            "__init_array_object_early_abc_101",
            "unrelated",
        ] {
            w.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: 0,
                size: 8,
                kind: SymbolKind::Data,
                scope: SymbolScope::Dynamic,
                weak: false,
                section: SymbolSection::Absolute,
                flags: SymbolFlags::None,
            });
        }
        let bytes = w.write().expect("elf");
        assert_eq!(
            ctor_objects(&bytes, true).expect("valid"),
            vec![
                "__init_array_object_early_abc_101".to_string(),
                "__init_array_object_late_abc_200".to_string()
            ]
        );
        assert_eq!(ctor_objects(&bytes, false).expect("valid").len(), 1);
        assert!(ctor_objects(b"not an elf", true).is_err());
    }
}
