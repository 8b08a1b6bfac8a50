//! Device images: what clang embeds in a program, classified by the device kind that can run it.
//!
//! `__tgt_device_image::ImageStart` points either at a raw device object (ELF for x86_64 and
//! nvptx) or at an LLVM `OffloadBinary` wrapping one. Everything here works on byte slices, so a
//! truncated or corrupt image is reported as an [`ImageError`] instead of being dereferenced.

pub mod imports;

use object::elf::{FileHeader64, EM_CUDA, EM_X86_64, ET_DYN};
use object::read::elf::FileHeader;
use object::LittleEndian as LE;
use std::fmt;

/// `OffloadBinary` magic: `\x10\xFF\x10\xAD`.
const OFFLOAD_BINARY_MAGIC: [u8; 4] = [0x10, 0xff, 0x10, 0xad];
const OFFLOAD_BINARY_HEADER: usize = 32;
const OFFLOAD_BINARY_ENTRY: usize = 40;

/// The kind of device an image is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageTarget {
    /// An x86_64 shared object that host devices load and call.
    HostX86_64,
    /// A CUDA cubin; `sm` is the compute capability as `major * 10 + minor`.
    Cuda {
        /// Compute capability it was built for, `major * 10 + minor` (70 for `sm_70`).
        sm: u32,
    },
}

impl fmt::Display for ImageTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageTarget::HostX86_64 => write!(f, "x86_64 host image"),
            ImageTarget::Cuda { sm } => write!(f, "CUDA sm_{sm} image"),
        }
    }
}

/// Why an image cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageError {
    /// The bytes end before a structure that the header announces.
    Truncated(&'static str),
    /// Neither an ELF object nor an `OffloadBinary`.
    UnknownFormat,
    /// A well-formed ELF image for a machine Spread has no backend for.
    UnsupportedMachine(u16),
    /// An ELF image that cannot be loaded (e.g. not a shared object).
    Malformed(String),
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::Truncated(what) => write!(f, "image is truncated ({what})"),
            ImageError::UnknownFormat => {
                write!(
                    f,
                    "image is neither an ELF object nor an LLVM OffloadBinary"
                )
            }
            ImageError::UnsupportedMachine(m) => {
                write!(f, "ELF image for machine {m} has no Spread backend")
            }
            ImageError::Malformed(why) => write!(f, "malformed ELF image: {why}"),
        }
    }
}

impl std::error::Error for ImageError {}

/// A device object ready for a backend: its target and its bytes (a sub-slice of the input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceObject<'a> {
    /// The kind of device that runs it.
    pub target: ImageTarget,
    /// The raw device object (an ELF file), unwrapped from any `OffloadBinary`.
    pub bytes: &'a [u8],
    /// The image's `declare target indirect` functions (a GPU backend gives the device runtime
    /// a table to translate host function pointers with).
    pub indirect: &'a [IndirectFunction],
}

/// What a backend needs to load a registered image again (a worker rank loading the image the
/// head names): [`DeviceObject`]'s parts, owned.
#[derive(Debug, Clone)]
pub struct ImageParts {
    /// [`DeviceObject::target`].
    pub target: ImageTarget,
    /// [`DeviceObject::bytes`], copied.
    pub bytes: std::sync::Arc<Vec<u8>>,
    /// [`DeviceObject::indirect`], copied.
    pub indirect: std::sync::Arc<Vec<IndirectFunction>>,
}

impl ImageParts {
    /// The device object these parts make.
    pub fn object(&self) -> DeviceObject<'_> {
        DeviceObject {
            target: self.target,
            bytes: &self.bytes,
            indirect: &self.indirect,
        }
    }
}

/// A `declare target indirect` function of an image (an offload entry with the INDIRECT flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndirectFunction {
    /// The host function's address (what a host function pointer holds).
    pub host: usize,
    /// The device global that holds the device function's address.
    pub global: String,
}

/// The bytes of every defined symbol of the ELF device object `bytes` whose name starts with
/// `prefix`, by name without the prefix (the pass plugin's `__spread_kinfo_<kernel>`
/// descriptors). Symbols in sections without file data, or beyond their section, are skipped.
pub fn symbols_with_prefix(bytes: &[u8], prefix: &str) -> Vec<(String, Vec<u8>)> {
    use object::{Object, ObjectSection, ObjectSymbol};
    let Ok(file) = object::File::parse(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        let Ok(name) = sym.name() else { continue };
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        if out.iter().any(|(n, _): &(String, Vec<u8>)| n == rest) {
            continue;
        }
        let Some(index) = sym.section_index() else {
            continue;
        };
        let Ok(section) = file.section_by_index(index) else {
            continue;
        };
        let Ok(data) = section.data() else { continue };
        // Executables and shared objects give symbol addresses, relocatable objects (a cubin)
        // offsets into their section.
        let start = sym.address().checked_sub(section.address());
        let Some(start) = start.and_then(|s| usize::try_from(s).ok()) else {
            continue;
        };
        let Some(end) = usize::try_from(sym.size())
            .ok()
            .and_then(|n| start.checked_add(n))
        else {
            continue;
        };
        if let Some(b) = data.get(start..end) {
            out.push((rest.to_string(), b.to_vec()));
        }
    }
    out
}

/// Classifies an embedded image, unwrapping an `OffloadBinary` if there is one.
///
/// An `OffloadBinary` may hold several entries (one per offload target); the first one whose
/// object Spread can run is returned.
pub fn classify(bytes: &[u8]) -> Result<DeviceObject<'_>, ImageError> {
    if bytes.starts_with(&OFFLOAD_BINARY_MAGIC) {
        let mut first_error = None;
        for inner in offload_binary_images(bytes)? {
            match classify_elf(inner) {
                Ok(obj) => return Ok(obj),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        return Err(first_error.unwrap_or(ImageError::Truncated("OffloadBinary has no entries")));
    }
    classify_elf(bytes)
}

fn classify_elf(bytes: &[u8]) -> Result<DeviceObject<'_>, ImageError> {
    if !bytes.starts_with(b"\x7fELF") {
        return Err(ImageError::UnknownFormat);
    }
    let header =
        FileHeader64::<LE>::parse(bytes).map_err(|e| ImageError::Malformed(e.to_string()))?;
    if !header.is_little_endian() || !header.is_class_64() {
        return Err(ImageError::Malformed(
            "not a little-endian 64-bit ELF object".into(),
        ));
    }
    let machine = header.e_machine(LE);
    let target = match machine {
        EM_X86_64 => {
            if header.e_type(LE) != ET_DYN {
                return Err(ImageError::Malformed(
                    "x86_64 device image is not a shared object".into(),
                ));
            }
            // Section headers must lie inside the image, or the dynamic loader reads past it.
            header
                .sections(LE, bytes)
                .map_err(|e| ImageError::Malformed(e.to_string()))?;
            ImageTarget::HostX86_64
        }
        EM_CUDA => ImageTarget::Cuda {
            sm: cuda_sm(header.e_ident().abi_version, header.e_flags(LE)),
        },
        other => return Err(ImageError::UnsupportedMachine(other)),
    };
    Ok(DeviceObject {
        target,
        bytes,
        indirect: &[],
    })
}

/// The compute capability (`major * 10 + minor`) a cubin is built for. ptxas up to CUDA 12
/// writes ELF ABI version 7 and keeps it in the low byte of `e_flags` (sm_80: `0x500550`);
/// CUDA 13's ptxas writes ABI version 8 and moves it to bits 8..16 (sm_90: `0x6005a04`).
/// LLVM 19's CUDA plugin reads only the old place, so it takes CUDA 13 cubins for sm_4.
pub fn cuda_sm(abi_version: u8, e_flags: u32) -> u32 {
    if abi_version >= 8 {
        (e_flags >> 8) & 0xff
    } else {
        e_flags & 0xff
    }
}

fn read_u64(b: &[u8], off: usize, what: &'static str) -> Result<u64, ImageError> {
    let s = b.get(off..off + 8).ok_or(ImageError::Truncated(what))?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Ok(u64::from_le_bytes(a))
}

fn slice_at<'a>(
    b: &'a [u8],
    off: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], ImageError> {
    let start = usize::try_from(off).map_err(|_| ImageError::Truncated(what))?;
    let len = usize::try_from(len).map_err(|_| ImageError::Truncated(what))?;
    let end = start.checked_add(len).ok_or(ImageError::Truncated(what))?;
    b.get(start..end).ok_or(ImageError::Truncated(what))
}

/// The device objects inside one or more concatenated `OffloadBinary` blobs.
fn offload_binary_images(mut bytes: &[u8]) -> Result<Vec<&[u8]>, ImageError> {
    let mut images = Vec::new();
    while bytes.len() >= OFFLOAD_BINARY_HEADER && bytes.starts_with(&OFFLOAD_BINARY_MAGIC) {
        let size = read_u64(bytes, 8, "OffloadBinary header")?;
        let entry_offset = read_u64(bytes, 16, "OffloadBinary header")?;
        let entry_size = read_u64(bytes, 24, "OffloadBinary header")?;
        let blob = slice_at(bytes, 0, size, "OffloadBinary size")?;
        if entry_size < OFFLOAD_BINARY_ENTRY as u64 {
            return Err(ImageError::Truncated("OffloadBinary entry"));
        }
        let entry = slice_at(blob, entry_offset, entry_size, "OffloadBinary entry")?;
        let image_offset = read_u64(entry, 24, "OffloadBinary entry")?;
        let image_size = read_u64(entry, 32, "OffloadBinary entry")?;
        images.push(slice_at(
            blob,
            image_offset,
            image_size,
            "OffloadBinary image",
        )?);
        // Blobs are 8-byte aligned when concatenated.
        let next = usize::try_from(size.div_ceil(8) * 8).unwrap_or(usize::MAX);
        bytes = bytes.get(next..).unwrap_or(&[]);
    }
    if images.is_empty() {
        return Err(ImageError::Truncated("OffloadBinary header"));
    }
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal valid x86_64 ET_DYN ELF header with no sections.
    fn tiny_elf(machine: u16, e_type: u16, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2; // 64-bit
        h[5] = 1; // little endian
        h[6] = 1; // version
        h[16..18].copy_from_slice(&e_type.to_le_bytes());
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        h[48..52].copy_from_slice(&flags.to_le_bytes());
        h[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
        h
    }

    /// An `OffloadBinary` (version 1, one entry) around `inner`.
    pub(super) fn wrap(inner: &[u8]) -> Vec<u8> {
        let image_offset = 32 + 40;
        let size = image_offset + inner.len();
        let mut b = Vec::new();
        b.extend_from_slice(&OFFLOAD_BINARY_MAGIC);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&(size as u64).to_le_bytes());
        b.extend_from_slice(&32u64.to_le_bytes());
        b.extend_from_slice(&40u64.to_le_bytes());
        // entry: kinds, flags, strings offset/count, image offset/size
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&(image_offset as u64).to_le_bytes());
        b.extend_from_slice(&(inner.len() as u64).to_le_bytes());
        b.extend_from_slice(inner);
        b
    }

    #[test]
    fn prefixed_symbols_give_their_bytes() {
        use object::write::{Object as W, Symbol, SymbolSection};
        use object::{
            Architecture, BinaryFormat, Endianness, SectionKind, SymbolFlags, SymbolKind,
            SymbolScope,
        };
        let mut w = W::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let sec = w.add_section(Vec::new(), b".rodata".to_vec(), SectionKind::ReadOnlyData);
        let mut add = |name: &str, data: &[u8]| {
            let off = w.append_section_data(sec, data, 1);
            w.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: off,
                size: data.len() as u64,
                kind: SymbolKind::Data,
                scope: SymbolScope::Dynamic,
                weak: false,
                section: SymbolSection::Section(sec),
                flags: SymbolFlags::None,
            });
        };
        add("other", b"zz");
        add("__spread_kinfo_k1", b"SPRD-one");
        add("__spread_kinfo_k2", b"two");
        let bytes = w.write().expect("elf");
        let mut got = symbols_with_prefix(&bytes, "__spread_kinfo_");
        got.sort();
        assert_eq!(
            got,
            vec![
                ("k1".to_string(), b"SPRD-one".to_vec()),
                ("k2".to_string(), b"two".to_vec())
            ]
        );
        assert!(symbols_with_prefix(b"not an elf", "__spread_kinfo_").is_empty());
    }

    #[test]
    fn raw_x86_elf_is_a_host_image() {
        let elf = tiny_elf(EM_X86_64, ET_DYN, 0);
        let obj = classify(&elf).expect("valid");
        assert_eq!(obj.target, ImageTarget::HostX86_64);
        assert_eq!(obj.bytes.len(), 64);
    }

    #[test]
    fn cubin_reports_its_sm() {
        let elf = tiny_elf(EM_CUDA, 2, 0x0050_0550);
        assert_eq!(
            classify(&elf).expect("valid").target,
            ImageTarget::Cuda { sm: 80 }
        );
    }

    #[test]
    fn cuda13_cubin_keeps_its_sm_in_the_second_byte() {
        // ELF ABI version 8, as CUDA 13's ptxas writes for sm_90 (e_flags seen: 0x6005a04).
        let mut elf = tiny_elf(EM_CUDA, 2, 0x0600_5a04);
        elf[8] = 8;
        assert_eq!(
            classify(&elf).expect("valid").target,
            ImageTarget::Cuda { sm: 90 }
        );
        assert_eq!(cuda_sm(7, 0x0050_0550), 80);
        assert_eq!(cuda_sm(8, 0x0600_5a04), 90);
    }

    #[test]
    fn offload_binary_is_unwrapped() {
        let elf = tiny_elf(EM_X86_64, ET_DYN, 0);
        let wrapped = wrap(&elf);
        let obj = classify(&wrapped).expect("valid");
        assert_eq!(obj.target, ImageTarget::HostX86_64);
        assert_eq!(obj.bytes, &elf[..]);
    }

    #[test]
    fn corrupt_inputs_are_errors_not_crashes() {
        assert_eq!(classify(b""), Err(ImageError::UnknownFormat));
        assert_eq!(classify(b"hello world"), Err(ImageError::UnknownFormat));
        assert!(matches!(
            classify(b"\x7fELF\x02\x01"),
            Err(ImageError::Malformed(_))
        ));
        let exe = tiny_elf(EM_X86_64, 2, 0);
        assert!(matches!(classify(&exe), Err(ImageError::Malformed(_))));
        let arm = tiny_elf(183, ET_DYN, 0);
        assert_eq!(classify(&arm), Err(ImageError::UnsupportedMachine(183)));
        // An OffloadBinary whose image runs past the end.
        let elf = tiny_elf(EM_X86_64, ET_DYN, 0);
        let mut wrapped = wrap(&elf);
        wrapped.truncate(wrapped.len() - 10);
        assert!(matches!(classify(&wrapped), Err(ImageError::Truncated(_))));
        // Section headers pointing past the image.
        let mut elf = tiny_elf(EM_X86_64, ET_DYN, 0);
        elf[40..48].copy_from_slice(&4096u64.to_le_bytes()); // e_shoff
        elf[58..60].copy_from_slice(&64u16.to_le_bytes()); // e_shentsize
        elf[60..62].copy_from_slice(&3u16.to_le_bytes()); // e_shnum
        assert!(matches!(classify(&elf), Err(ImageError::Malformed(_))));
        // Every prefix of a valid wrapped image is rejected without panicking.
        let good = wrap(&tiny_elf(EM_X86_64, ET_DYN, 0));
        for n in 0..good.len() {
            let _ = classify(&good[..n]);
        }
    }
}

/// A fuzz harness for [`classify`]: mutated, truncated and extended versions of valid images
/// (raw ELF shared objects with sections, cubins, `OffloadBinary` wrappers, concatenated
/// wrappers) must give an answer, never a panic. `fuzz_bounded` runs in every `cargo test`;
/// `fuzz_long` runs on demand (see docs/runtime.md):
///
/// ```text
/// SPREAD_FUZZ_ITERS=50000000 SPREAD_FUZZ_SEED=7 \
///     cargo test --release -p spread-rt --lib image::fuzz::fuzz_long -- --ignored --nocapture
/// ```
#[cfg(test)]
mod fuzz {
    use super::*;

    /// xorshift64*: small, deterministic, no dependency.
    struct Rng(u64);

    impl Rng {
        fn new(seed: u64) -> Self {
            Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
        }
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            if n == 0 {
                0
            } else {
                (self.next() % n as u64) as usize
            }
        }
    }

    /// An x86_64 ET_DYN object with a null section, `.shstrtab` and `.text`: enough structure
    /// for the section-header checks to have something to reject.
    fn small_so() -> Vec<u8> {
        let strtab = b"\0.shstrtab\0.text\0";
        let text = [0xc3u8; 16]; // ret
        let str_off = 64u64;
        let text_off = str_off + strtab.len() as u64;
        let sh_off = (text_off + text.len() as u64).div_ceil(8) * 8;
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[6] = 1;
        b[16..18].copy_from_slice(&ET_DYN.to_le_bytes());
        b[18..20].copy_from_slice(&EM_X86_64.to_le_bytes());
        b[20..24].copy_from_slice(&1u32.to_le_bytes());
        b[40..48].copy_from_slice(&sh_off.to_le_bytes()); // e_shoff
        b[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
        b[58..60].copy_from_slice(&64u16.to_le_bytes()); // e_shentsize
        b[60..62].copy_from_slice(&3u16.to_le_bytes()); // e_shnum
        b[62..64].copy_from_slice(&1u16.to_le_bytes()); // e_shstrndx
        b.extend_from_slice(strtab);
        b.extend_from_slice(&text);
        b.resize(sh_off as usize, 0);
        let section = |name: u32, ty: u32, flags: u64, off: u64, size: u64| {
            let mut s = vec![0u8; 64];
            s[0..4].copy_from_slice(&name.to_le_bytes());
            s[4..8].copy_from_slice(&ty.to_le_bytes());
            s[8..16].copy_from_slice(&flags.to_le_bytes());
            s[24..32].copy_from_slice(&off.to_le_bytes());
            s[32..40].copy_from_slice(&size.to_le_bytes());
            s[48..56].copy_from_slice(&1u64.to_le_bytes()); // sh_addralign
            s
        };
        b.extend(section(0, 0, 0, 0, 0));
        b.extend(section(1, 3, 0, str_off, strtab.len() as u64)); // SHT_STRTAB
        b.extend(section(11, 1, 6, text_off, text.len() as u64)); // SHT_PROGBITS, AX
        b
    }

    fn cubin() -> Vec<u8> {
        let mut b = small_so();
        b[16..18].copy_from_slice(&2u16.to_le_bytes());
        b[18..20].copy_from_slice(&EM_CUDA.to_le_bytes());
        b[48..52].copy_from_slice(&0x0050_0550u32.to_le_bytes());
        b
    }

    /// An `OffloadBinary` around `inner`, padded to 8 bytes as concatenated blobs are.
    fn wrap(inner: &[u8]) -> Vec<u8> {
        let mut b = super::tests::wrap(inner);
        b.resize(b.len().div_ceil(8) * 8, 0);
        b
    }

    fn seeds() -> Vec<Vec<u8>> {
        let so = small_so();
        let mut two = wrap(&cubin());
        two.extend(wrap(&so));
        vec![so.clone(), cubin(), wrap(&so), two]
    }

    /// Values that probe the bounds checks of length and offset fields.
    fn interesting(len: usize, rng: &mut Rng) -> u64 {
        let l = len as u64;
        match rng.below(12) {
            0 => 0,
            1 => 1,
            2 => u64::MAX,
            3 => u64::MAX - 7,
            4 => l,
            5 => l + 1,
            6 => l.wrapping_sub(1),
            7 => 1 << rng.below(64),
            8 => i64::MAX as u64,
            9 => u32::MAX as u64,
            10 => u16::MAX as u64,
            _ => rng.next() % (2 * l + 64),
        }
    }

    /// Offsets of the header fields that carry sizes and offsets, for each seed kind.
    const FIELDS: &[(usize, usize)] = &[
        // OffloadBinary: size, entry offset, entry size; entry image offset, image size.
        (8, 8),
        (16, 8),
        (24, 8),
        (32 + 24, 8),
        (32 + 32, 8),
        // ELF: e_type, e_machine, e_shoff, e_ehsize, e_shentsize, e_shnum, e_shstrndx.
        (16, 2),
        (18, 2),
        (40, 8),
        (52, 2),
        (58, 2),
        (60, 2),
        (62, 2),
    ];

    fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
        let mut b = seed.to_vec();
        for _ in 0..1 + rng.below(4) {
            match rng.below(8) {
                0 | 1 => {
                    // Flip bits.
                    if !b.is_empty() {
                        let i = rng.below(b.len());
                        b[i] ^= 1 << rng.below(8);
                    }
                }
                2 => {
                    // A random byte.
                    if !b.is_empty() {
                        let i = rng.below(b.len());
                        b[i] = rng.next() as u8;
                    }
                }
                3 | 4 => {
                    // A length/offset field, at a known place (also inside an inner ELF of a
                    // wrapper, 72 bytes in) or anywhere aligned.
                    let (off, width) = FIELDS[rng.below(FIELDS.len())];
                    let base = [0usize, 72, 8 * rng.below(b.len() / 8 + 1)][rng.below(3)];
                    let v = interesting(b.len(), rng).to_le_bytes();
                    let at = base + off;
                    if at + width <= b.len() {
                        b[at..at + width].copy_from_slice(&v[..width]);
                    }
                }
                5 => {
                    // Truncate.
                    let n = rng.below(b.len() + 1);
                    b.truncate(n);
                }
                6 => {
                    // Extend with random bytes.
                    for _ in 0..rng.below(64) {
                        b.push(rng.next() as u8);
                    }
                }
                _ => {
                    // Copy a chunk over another place.
                    if b.len() > 2 {
                        let from = rng.below(b.len());
                        let to = rng.below(b.len());
                        let n = rng.below(b.len() - from.max(to)).min(64);
                        let chunk = b[from..from + n].to_vec();
                        b[to..to + n].copy_from_slice(&chunk);
                    }
                }
            }
        }
        b
    }

    /// Runs `iters` mutated inputs from `seed`; panics (with the input) if `classify` panics or
    /// returns bytes outside its input.
    fn run(seed: u64, iters: u64) -> (u64, u64) {
        let seeds = seeds();
        for s in &seeds {
            assert!(classify(s).is_ok(), "seed images are valid");
        }
        let mut rng = Rng::new(seed);
        let mut accepted = 0;
        for i in 0..iters {
            let input = mutate(&seeds[rng.below(seeds.len())], &mut rng);
            let r = std::panic::catch_unwind(|| classify(&input).map(|o| (o.target, o.bytes)));
            match r {
                Err(_) => panic!(
                    "classify panicked (seed {seed}, iteration {i}) on {} bytes: {:02x?}",
                    input.len(),
                    input
                ),
                Ok(Ok((_, bytes))) => {
                    let (lo, hi) = (
                        input.as_ptr() as usize,
                        input.as_ptr() as usize + input.len(),
                    );
                    let p = bytes.as_ptr() as usize;
                    assert!(
                        bytes.is_empty() || (p >= lo && p + bytes.len() <= hi),
                        "classify returned bytes outside its input (seed {seed}, iteration {i})"
                    );
                    accepted += 1;
                }
                Ok(Err(_)) => {}
            }
        }
        (iters, accepted)
    }

    #[test]
    fn fuzz_bounded() {
        let (n, ok) = run(0x5eed, 200_000);
        // Some mutations leave the image usable, most do not: both paths ran.
        assert!(ok > 0 && ok < n, "{ok} of {n} accepted");
    }

    #[test]
    #[ignore = "long fuzz run: SPREAD_FUZZ_ITERS, SPREAD_FUZZ_SEED"]
    fn fuzz_long() {
        let env = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let iters = env("SPREAD_FUZZ_ITERS", 10_000_000);
        let seed = env("SPREAD_FUZZ_SEED", 1);
        let start = std::time::Instant::now();
        let (n, ok) = run(seed, iters);
        println!(
            "image fuzz: {n} inputs from seed {seed}, {ok} accepted, no panic, in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}
