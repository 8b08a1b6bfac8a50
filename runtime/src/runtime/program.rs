//! What the program registered (`__tgt_register_lib`): its device images, their offload entries
//! and its kernels by host region id. The runtime keeps it; a device slot loads from it, so the
//! slot is given this rather than the whole runtime.

use crate::image::{self, ImageTarget};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

/// One offload entry of a registered image.
#[derive(Debug, Clone)]
pub struct EntryInfo {
    /// [`OffloadEntry::addr`](crate::abi::OffloadEntry::addr): the host global's address, or
    /// the kernel's host region id.
    pub addr: usize,
    /// The entry's symbol name in the device image.
    pub name: String,
    /// Bytes of the global; 0 for a kernel or a requires record.
    pub size: usize,
    /// [`entry_flags`](crate::abi::entry_flags) bits.
    pub flags: i32,
    /// Requirement bits of a REGISTER_REQUIRES entry.
    pub data: i32,
}

/// An image the program registered.
pub(super) struct RegisteredImage {
    /// The `__tgt_bin_desc` it came with (for unregistration).
    pub(super) desc: usize,
    pub(super) target: std::result::Result<ImageTarget, image::ImageError>,
    /// The device object, copied out of the program.
    pub(super) bytes: Arc<Vec<u8>>,
    pub(super) entries: Arc<Vec<EntryInfo>>,
    /// Its `declare target indirect` functions (from `entries`).
    pub(super) indirect: Arc<Vec<image::IndirectFunction>>,
    /// Whether `entries` has `declare target` variables (see [`Runtime::host_share`](super::Runtime::host_share)).
    pub(super) variables: bool,
    /// The pass plugin's kernel descriptors (`__spread_kinfo_<kernel>`), by kernel name.
    pub(super) descriptors: Vec<(String, Vec<u8>)>,
    pub(super) active: bool,
}

/// The program's registered images and kernels.
#[derive(Default)]
pub(super) struct Program {
    /// Every image registered, in order (an unregistered one stays, inactive: devices index
    /// what they loaded by its position).
    pub(super) images: RwLock<Vec<RegisteredImage>>,
    /// Host region id (`.region_id` address) to kernel name.
    pub(super) kernel_names: RwLock<HashMap<usize, Arc<str>>>,
}
