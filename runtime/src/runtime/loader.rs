//! Image loading: which registered images a device loads, their declare-target globals
//! entering the mapping table, and kernels found by host region id.

use super::{DeviceSlot, EntryInfo, RegisteredImage, Runtime};
use crate::abi::entry_flags;
use crate::device::{KernelHandle, LoadedImage};
use crate::error::{Error, ErrorKind, Result};
use crate::image::{self};
use crate::info::{self, bits};
use crate::runtime::mapping::table::Entry;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl DeviceSlot {
    /// Whether the program registered images but none this device can run (say, nvptx only on
    /// a host device).
    pub(super) fn runs_no_image(&self, rt: &Runtime) -> bool {
        // Every construct asks: once an image is loaded the answer stays no, without locks.
        if self.loaded_any.load(Ordering::Acquire) {
            return false;
        }
        let regs = rt.images.read();
        let imgs = self.images.lock();
        regs.iter().any(|r| r.active)
            && imgs.retired.is_empty()
            && imgs.loaded.iter().all(Option::is_none)
    }

    /// Loads every registered image this device can run that it has not loaded yet, and maps
    /// their declare-target globals (reference count INF).
    pub(super) fn ensure_images(&self, rt: &Runtime) -> Result<()> {
        let regs = rt.images.read();
        if self.seen_images.load(Ordering::Acquire) == regs.len() {
            return Ok(());
        }
        let mut imgs = self.images.lock();
        for idx in imgs.loaded.len()..regs.len() {
            imgs.loaded.push(None);
            let img = &regs[idx];
            let Ok(target) = img.target else { continue };
            if !img.active {
                continue;
            }
            if !self.dev.accepts(target) {
                if rt.config.info_devices {
                    eprintln!(
                        "spread: info: device {} ({}) skips image {idx}: {target} (not runnable here)",
                        self.id,
                        self.dev.info().kind.as_str()
                    );
                }
                continue;
            }
            if rt.config.info_devices {
                eprintln!(
                    "spread: info: device {} ({}) loads image {idx}: {target}",
                    self.id,
                    self.dev.info().kind.as_str()
                );
            }
            let obj = image::DeviceObject {
                target,
                bytes: &img.bytes,
                indirect: &img.indirect,
            };
            // A failed load takes back everything it did: the image counts as not seen (the next
            // construct tries again and reports again) and no entry points into it.
            let loaded = match self.dev.load_image(&obj) {
                Ok(l) => l,
                Err(e) => {
                    imgs.loaded.pop();
                    return Err(e);
                }
            };
            let globals = match self.image_globals(img, &*loaded) {
                Ok(g) => g,
                Err(e) => {
                    imgs.loaded.pop();
                    return Err(e);
                }
            };
            let mut table = self.table.lock();
            for (e, tgt) in globals {
                crate::info!(
                    bits::MAPPING_CHANGED,
                    self.id,
                    "Creating new map entry with HstPtrBase={}, HstPtrBegin={}, TgtAllocBegin={}, TgtPtrBegin={}, Size={}, DynRefCount=INF, HoldRefCount=0, Name={}",
                    info::ptr(e.addr),
                    info::ptr(e.addr),
                    info::ptr(tgt),
                    info::ptr(tgt),
                    e.size,
                    e.name
                );
                table.insert(Entry::permanent(e.addr, e.size, tgt));
            }
            imgs.loaded[idx] = Some(loaded);
            self.loaded_any.store(true, Ordering::Release);
        }
        self.seen_images.store(regs.len(), Ordering::Release);
        Ok(())
    }

    /// The device addresses of the declare-target globals of `img` in `loaded`; fails, having
    /// changed nothing, when one is missing.
    fn image_globals<'i>(
        &self,
        img: &'i RegisteredImage,
        loaded: &dyn LoadedImage,
    ) -> Result<Vec<(&'i EntryInfo, usize)>> {
        let mut out = Vec::new();
        for e in img.entries.iter() {
            if e.size == 0 || e.flags & entry_flags::REGISTER_REQUIRES != 0 {
                continue;
            }
            let Some(mut tgt) = loaded.global(&e.name) else {
                return Err(Error::new(
                    ErrorKind::Image,
                    format!(
                        "declare target variable '{}' is missing from the image on device {}",
                        e.name, self.id
                    ),
                ));
            };
            if e.flags & entry_flags::INDIRECT != 0 {
                // An indirect function: the device global holds the device function's
                // address, which host function pointers translate to.
                let mut buf = [0u8; 8];
                let mut st = self.stream()?;
                self.dev
                    .copy_from_device(buf.as_mut_ptr() as usize, tgt, 8, &mut st)?;
                self.dev.synchronize(&mut st)?;
                tgt = usize::from_ne_bytes(buf);
            }
            if let Some(size) = loaded.global_size(&e.name) {
                if size != e.size && e.flags & entry_flags::INDIRECT == 0 {
                    return Err(Error::new(
                        ErrorKind::Image,
                        format!(
                            "declare target variable '{}' has {} bytes on the host but {size} in the image on device {}",
                            e.name, e.size, self.id
                        ),
                    ));
                }
            }
            out.push((e, tgt));
        }
        Ok(out)
    }

    /// The kernel for host region id `region`.
    /// The kernel for host region id `region` and its name; cached per device, so a launch
    /// after the first takes one lock and allocates nothing.
    pub(super) fn kernel(&self, rt: &Runtime, region: usize) -> Result<(KernelHandle, Arc<str>)> {
        let mut imgs = self.images.lock();
        if let Some((k, name)) = imgs.kernels.get(&region) {
            return Ok((*k, name.clone()));
        }
        let name = rt
            .kernel_names
            .read()
            .get(&region)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::MissingKernel,
                    format!(
                        "no offload entry is registered for target region {}",
                        info::ptr(region)
                    ),
                )
            })?;
        let found = imgs.loaded.iter().flatten().find_map(|i| i.kernel(&name));
        let Some(k) = found else {
            let mut message = format!(
                "kernel '{name}' is not in any image loaded on device {}",
                self.id
            );
            if imgs.loaded.iter().all(Option::is_none) {
                // Say what the program carries and what the device is, so the user sees the
                // mismatch (an nvptx-only build on a machine without a GPU, say).
                let carried: Vec<String> = rt
                    .images
                    .read()
                    .iter()
                    .filter_map(|r| r.target.as_ref().ok().map(|t| t.to_string()))
                    .collect();
                message.push_str(&format!(
                    " ({}: it runs none of the program's images: {})",
                    self.dev.info().name,
                    if carried.is_empty() {
                        "none usable".to_string()
                    } else {
                        carried.join(", ")
                    }
                ));
            }
            return Err(Error::new(ErrorKind::MissingKernel, message));
        };
        imgs.kernels.insert(region, (k, name.clone()));
        Ok((k, name))
    }
}
