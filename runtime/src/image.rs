//! Device images: what clang embeds in a program, classified by the device kind that can run it.
//!
//! `__tgt_device_image::ImageStart` points either at a raw device object (ELF for x86_64 and
//! nvptx) or at an LLVM `OffloadBinary` wrapping one. Everything here works on byte slices, so a
//! truncated or corrupt image is reported as an [`ImageError`] instead of being dereferenced.

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
    Cuda { sm: u32 },
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
    pub target: ImageTarget,
    pub bytes: &'a [u8],
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
        EM_CUDA => {
            let flags = header.e_flags(LE);
            ImageTarget::Cuda { sm: flags & 0xff }
        }
        other => return Err(ImageError::UnsupportedMachine(other)),
    };
    Ok(DeviceObject { target, bytes })
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

    fn wrap(inner: &[u8]) -> Vec<u8> {
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
            ImageTarget::Cuda { sm: 0x50 }
        );
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
