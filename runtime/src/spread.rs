//! `target spread` regions: a construct's iteration range cut into chunks over a device list,
//! each chunk's launches and transfers queued on its device, the region ending when all are done
//! (docs/spread-abi.md).

use crate::error::{Error, ErrorKind, Result};
use crate::location::SourceLoc;
use crate::queue::Event;
use crate::runtime::{DeviceSlot, Policy, Runtime};
use crate::schedule::{static_chunks, Chunk};
use std::sync::Arc;

/// `__SPREAD_FLAG_NOWAIT`.
pub const FLAG_NOWAIT: i32 = 1;

/// The static description of a spread construct (`__spread_construct_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Construct {
    pub file: String,
    pub line: i32,
    pub kind: i32,
    pub flags: i32,
}

impl Construct {
    /// The construct's name as the user wrote it.
    pub fn name(&self) -> &'static str {
        match self.kind {
            1 => "target spread",
            2 => "target data spread",
            3 => "target enter data spread",
            4 => "target exit data spread",
            5 => "target update spread",
            _ => "spread construct",
        }
    }

    pub fn location(&self) -> SourceLoc {
        SourceLoc {
            file: self.file.clone(),
            function: String::new(),
            line: u32::try_from(self.line).unwrap_or(0),
            column: 0,
        }
    }

    fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// One execution of a spread construct.
pub struct Region {
    pub construct: Construct,
    chunks: Vec<Chunk>,
    /// Index of the next chunk `next` hands out.
    next: usize,
    current: Chunk,
    /// Whether the current chunk was printed for `SPREAD_INFO=chunks`.
    reported: bool,
    info_chunks: bool,
    /// Operations queued for the chunks so far, with their device.
    pending: Vec<(Arc<Event>, &'static DeviceSlot)>,
}

impl Region {
    /// Starts a region over `[lb, ub)` on `devices` (empty: every device in number order) with
    /// the static schedule of `chunk` (0: one contiguous chunk per device). Without the pass the
    /// region stays one chunk, the whole range on the first device.
    pub fn begin(
        rt: &Runtime,
        construct: Construct,
        lb: i64,
        ub: i64,
        devices: &[i32],
        chunk: i64,
    ) -> Result<Region> {
        let n = rt.num_devices();
        let mut list: Vec<i32> = if devices.is_empty() {
            (0..n as i32).collect()
        } else {
            devices.to_vec()
        };
        for &d in &list {
            if d < 0 || d as usize >= n {
                return Err(Error::new(
                    ErrorKind::BadDevice,
                    format!(
                        "device {d} in the devices clause of the {} at {} does not exist (the runtime has {n} devices)",
                        construct.name(),
                        construct.at()
                    ),
                ));
            }
        }
        if chunk < 0 {
            return Err(Error::new(
                ErrorKind::Mapping,
                format!(
                    "chunk size {chunk} of the {} at {} is negative",
                    construct.name(),
                    construct.at()
                ),
            ));
        }
        if rt.policy() == Policy::Disabled || list.is_empty() {
            // Offloading is disabled (or there is no device): every chunk runs on the host.
            list = vec![rt.initial_device() as i32];
        }
        let chunks = static_chunks(lb, ub, &list, chunk);
        let current = Chunk {
            lo: lb,
            hi: ub.max(lb),
            device: list[0],
        };
        Ok(Region {
            construct,
            chunks,
            next: 0,
            current,
            reported: false,
            info_chunks: rt.config.info_chunks,
            pending: Vec::new(),
        })
    }

    /// Advances to the next chunk (the loop the pass inserts); false when none is left.
    pub fn advance(&mut self) -> bool {
        let Some(c) = self.chunks.get(self.next) else {
            return false;
        };
        self.current = *c;
        self.next += 1;
        self.reported = false;
        true
    }

    /// The current chunk; the first query of each chunk prints it with `SPREAD_INFO=chunks`.
    pub fn current(&mut self) -> Chunk {
        if self.info_chunks && !self.reported {
            self.reported = true;
            eprintln!(
                "spread: {} chunk [{},{}) -> device {}",
                self.construct.at(),
                self.current.lo,
                self.current.hi,
                self.current.device
            );
        }
        self.current
    }

    /// Label of the current chunk in traces and errors.
    pub fn label(&self) -> String {
        format!(
            "{} {} chunk [{},{})",
            self.construct.name(),
            self.construct.at(),
            self.current.lo,
            self.current.hi
        )
    }

    /// Queues `op` for the current chunk on `slot`'s worker.
    pub fn submit(
        &mut self,
        slot: &'static DeviceSlot,
        op: impl FnOnce() -> Result<()> + Send + 'static,
    ) {
        let chunk = self.current;
        let label = self.label();
        let earlier: Vec<Chunk> = self.chunks[..self.next.saturating_sub(1)]
            .iter()
            .filter(|c| c.device == chunk.device)
            .copied()
            .collect();
        let device = slot.id;
        let ev = slot.queue.submit(move || {
            crate::trace::with_label(Some(label.clone()), op).map_err(|e| {
                let mut e = e.context(format!("in {label} on device {device}"));
                if e.message.starts_with("explicit extension not allowed") && !earlier.is_empty() {
                    let list: Vec<String> = earlier.iter().map(|c| format!("[{},{})", c.lo, c.hi)).collect();
                    e = e.context(format!(
                        "the data of chunk [{},{}) overlaps data mapped for chunk(s) {} on device {device}: chunks on one device must not map overlapping sections",
                        chunk.lo,
                        chunk.hi,
                        list.join(", ")
                    ));
                }
                e
            })
        });
        self.pending.push((ev, slot));
    }

    /// Waits for every queued operation; the first error, if any.
    pub fn end(self) -> Result<()> {
        let mut first = Ok(());
        for (ev, slot) in self.pending {
            // The waiting thread works through the device's queue too (see `Queue::run_until`).
            if let Err(e) = slot.queue.run_until(&ev) {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn rt(n: usize) -> Runtime {
        Runtime::new(Config::from_lookup(|k| {
            (k == "SPREAD_HOST_DEVICES").then(|| n.to_string())
        }))
    }

    fn construct() -> Construct {
        Construct {
            file: "a.c".into(),
            line: 7,
            kind: 1,
            flags: 0,
        }
    }

    #[test]
    fn without_the_pass_one_chunk_covers_the_range() {
        let rt = rt(4);
        let mut r = Region::begin(&rt, construct(), 1, 13, &[2, 0, 1], 4).expect("valid");
        assert_eq!(
            r.current(),
            Chunk {
                lo: 1,
                hi: 13,
                device: 2
            }
        );
        r.end().expect("nothing pending");
    }

    #[test]
    fn the_pass_loop_visits_every_chunk() {
        let rt = rt(4);
        let mut r = Region::begin(&rt, construct(), 1, 13, &[2, 0, 1], 4).expect("valid");
        let mut seen = Vec::new();
        while r.advance() {
            seen.push(r.current());
        }
        assert_eq!(
            seen,
            vec![
                Chunk {
                    lo: 1,
                    hi: 5,
                    device: 2
                },
                Chunk {
                    lo: 5,
                    hi: 9,
                    device: 0
                },
                Chunk {
                    lo: 9,
                    hi: 13,
                    device: 1
                }
            ]
        );
    }

    #[test]
    fn bad_device_lists_are_errors_naming_the_construct() {
        let rt = rt(2);
        let e = Region::begin(&rt, construct(), 0, 10, &[0, 5], 0)
            .err()
            .expect("device 5 is bad");
        assert!(
            e.message
                .contains("device 5 in the devices clause of the target spread at a.c:7"),
            "{}",
            e.message
        );
        let e = Region::begin(&rt, construct(), 0, 10, &[-1], 0)
            .err()
            .expect("negative");
        assert_eq!(e.kind, ErrorKind::BadDevice);
    }

    #[test]
    fn empty_device_list_means_all_devices() {
        let rt = rt(3);
        let mut r = Region::begin(&rt, construct(), 0, 6, &[], 0).expect("valid");
        let mut devs = Vec::new();
        while r.advance() {
            devs.push(r.current().device);
        }
        assert_eq!(devs, vec![0, 1, 2]);
    }
}
