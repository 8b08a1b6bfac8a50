//! The map-clause semantics on a [`MapTarget`] of their own: a host device behind a small fake
//! target, without a runtime or a device slot. The fake's constructs run as the device slot's
//! do (`runtime/launch.rs`): map under the table lock, mark the entries being filled, then wait
//! for the stream and finish (or take back) with the table locked again.

use super::table::{MappingTable, INF};
use super::*;
use crate::config::Config;
use crate::device::AllocKind;
use parking_lot::Mutex;

/// A mapping target over a host device: device memory straight from the device (no cache),
/// nothing page-locked, no memory-space memory.
struct Fake {
    id: usize,
    dev: Box<dyn Device>,
    table: Mutex<MappingTable>,
}

impl MapTarget for Fake {
    type Stream<'s> = Box<Stream>;

    fn id(&self) -> usize {
        self.id
    }

    fn device(&self) -> &dyn Device {
        &*self.dev
    }

    fn alloc_data(&self, size: usize) -> Result<usize> {
        self.dev.alloc(size, AllocKind::Device)
    }

    fn pin_mapped(&self, _host: usize, _len: usize) -> bool {
        false
    }

    fn release_entry(&self, e: &Entry) -> Result<()> {
        if e.owns_memory {
            self.dev.free(e.target_alloc, AllocKind::Device)?;
        }
        Ok(())
    }

    fn accessible(&self, _host: usize, _len: usize) -> bool {
        false
    }
}

/// `n` fake targets, numbered from 0, each on a host device of its own (found as every layer
/// above the device layer finds one: through the registry).
fn fakes(n: usize) -> Vec<Fake> {
    let config = Config::from_lookup(|k| match k {
        "SPREAD_DEVICES" => Some("host".into()),
        "SPREAD_HOST_DEVICES" => Some(n.to_string()),
        _ => None,
    });
    crate::device::registry::discover(&config)
        .devices
        .into_iter()
        .enumerate()
        .map(|(id, dev)| Fake {
            id,
            dev,
            table: Mutex::new(MappingTable::new()),
        })
        .collect()
}

fn fake() -> Fake {
    fakes(1).pop().expect("a host device")
}

/// What a construct has left to do once its stream is done (as `launch.rs`'s `After`).
enum After {
    Begin(Undos),
    End(PostEnds),
    Update(Vec<(usize, usize, usize)>),
}

/// A construct whose copies are enqueued (as `launch.rs`'s `InFlight`).
struct InFlight<'a> {
    cx: Ctx<'a, Fake>,
    after: After,
}

impl InFlight<'_> {
    /// Itself when its enqueue part succeeded; else it is finished now and the failure returned.
    fn unless(self, r: Result<()>) -> Result<Self> {
        match r {
            Ok(()) => Ok(self),
            Err(e) => Err(self.complete().err().unwrap_or(e)),
        }
    }

    fn complete(self) -> Result<()> {
        let InFlight { mut cx, after } = self;
        let f = cx.target;
        let synced = f.dev.synchronize(&mut cx.stream);
        match after {
            After::Begin(undo) => {
                if synced.is_err() {
                    rollback(&mut cx, &mut f.table.lock(), undo);
                }
                synced
            }
            After::End(post) => {
                synced?;
                end_finish(&mut cx, &mut f.table.lock(), post)
            }
            After::Update(restore) => {
                synced?;
                update_finish(&f.table.lock(), restore);
                Ok(())
            }
        }
    }
}

impl Fake {
    fn ctx(&self) -> Ctx<'_, Fake> {
        let stream = self.dev.create_stream().expect("a stream");
        Ctx {
            target: self,
            stream: Box::new(stream),
            usm: false,
            filled: SmallVec::new(),
        }
    }

    fn enqueue_begin(&self, args: &mut MapArgs) -> Result<InFlight<'_>> {
        let mut cx = self.ctx();
        let mut undo = Undos::new();
        let r = {
            let mut table = self.table.lock();
            let r = begin(&mut cx, &mut table, args, false, &mut undo);
            mark_filling(&mut cx, &mut table).and(r)
        };
        match r {
            Ok(()) => Ok(InFlight {
                cx,
                after: After::Begin(undo),
            }),
            Err(e) => {
                // As a device slot takes a failed begin back: its copies first, then the table.
                let _ = self.dev.synchronize(&mut cx.stream);
                rollback(&mut cx, &mut self.table.lock(), undo);
                Err(e)
            }
        }
    }

    fn data_begin(&self, args: &mut MapArgs) -> Result<()> {
        self.enqueue_begin(args)?.complete()
    }

    fn enqueue_end(&self, args: &MapArgs) -> Result<InFlight<'_>> {
        let mut cx = self.ctx();
        let mut post = PostEnds::new();
        let r = {
            let mut table = self.table.lock();
            let r = end(&mut cx, &mut table, args, false, &mut post);
            mark_filling(&mut cx, &mut table).and(r)
        };
        InFlight {
            cx,
            after: After::End(post),
        }
        .unless(r)
    }

    fn data_end(&self, args: &MapArgs) -> Result<()> {
        self.enqueue_end(args)?.complete()
    }

    fn data_update(&self, args: &MapArgs) -> Result<()> {
        let mut cx = self.ctx();
        let mut restore = Vec::new();
        let r = {
            let mut table = self.table.lock();
            let r = update(&mut cx, &mut table, args, &mut restore);
            mark_filling(&mut cx, &mut table).and(r)
        };
        InFlight {
            cx,
            after: After::Update(restore),
        }
        .unless(r)?
        .complete()
    }

    /// The dynamic reference count of the entry holding `[addr, addr + len)`.
    fn refs(&self, addr: usize, len: usize) -> Option<u64> {
        self.table
            .lock()
            .find_contained(addr, len)
            .map(|e| e.dyn_refs)
    }

    /// The device address of host address `addr`, when mapped.
    fn target_of(&self, addr: usize) -> Option<usize> {
        self.table
            .lock()
            .find_contained(addr, 1)
            .map(|e| e.target_of(addr))
    }
}

/// Map arguments of plain entries `(address, size, map type)`, as clang passes them (also used
/// by the core's construct tests in runtime.rs).
pub(crate) fn args(entries: &[(usize, i64, i64)]) -> MapArgs {
    MapArgs {
        bases: entries.iter().map(|e| e.0).collect(),
        begins: entries.iter().map(|e| e.0).collect(),
        sizes: entries.iter().map(|e| e.1).collect(),
        types: entries.iter().map(|e| e.2).collect(),
        names: smallvec::smallvec![0; entries.len()],
        mappers: smallvec::smallvec![0; entries.len()],
        components: Vec::new(),
        dims: Vec::new(),
    }
}

/// The word at `addr` (host or host-device memory), read behind Rust's back as the runtime
/// writes it.
fn word(addr: usize) -> usize {
    access::attach_pointer(addr)
}

fn d(offset: u64, count: u64, stride: u64) -> NonContigDim {
    NonContigDim {
        offset,
        count,
        stride,
    }
}

#[test]
fn strided_rows() {
    // a[0:3][1:2] of int a[3][4]: three pieces of 8 bytes, one per row.
    let pieces = non_contiguous_pieces(&[d(0, 3, 16), d(1, 2, 4)]);
    assert_eq!(pieces, vec![(4, 8), (20, 8), (36, 8)]);
    // Whole rows merge into one block.
    assert_eq!(
        non_contiguous_pieces(&[d(1, 2, 16), d(0, 4, 4)]),
        vec![(16, 32)]
    );
    // a[0:2][1:2][0:4] of int a[2][3][4]: rows 1..3 of each plane are one block each.
    assert_eq!(
        non_contiguous_pieces(&[d(0, 2, 48), d(1, 2, 16), d(0, 4, 4)]),
        vec![(16, 32), (64, 32)]
    );
}

#[test]
fn struct_alignment_caps_at_16() {
    assert_eq!(struct_alignment(0x1000), 16);
    assert_eq!(struct_alignment(0x1004), 4);
    assert_eq!(struct_alignment(0x1001), 1);
}

// Moved from `runtime.rs`, where they ran on a whole runtime's device slot.

#[test]
fn an_entry_revived_while_its_release_finishes_stays_until_the_last_release_finishes() {
    let slot = fake();
    let data = [4u64; 8];
    let a = data.as_ptr() as usize;
    slot.data_begin(&mut args(&[(a, 64, map::TO)]))
        .expect("maps");
    // X releases the last reference; its copies back have not run yet.
    let x = slot.enqueue_end(&args(&[(a, 64, map::FROM)])).expect("X");
    // Y revives the entry and releases it again before X finishes.
    let y = slot
        .enqueue_begin(&mut args(&[(a, 64, map::TO)]))
        .expect("Y begins");
    let y2 = slot
        .enqueue_end(&args(&[(a, 64, map::FROM)]))
        .expect("Y ends");
    x.complete().expect("X finishes");
    let kept = slot.table.lock().find_contained(a, 64).is_some();
    y.complete().expect("Y's begin finishes");
    y2.complete().expect("Y finishes");
    assert!(
        kept,
        "X removed the entry while Y's work still used its memory"
    );
    assert!(slot.table.lock().is_empty(), "the last release removes it");
}

#[test]
fn data_lives_in_device_memory_until_copied_back() {
    let devices = fakes(2);
    let slot = &devices[1];
    // Host memory the runtime writes behind Rust's back: read it through raw reads only.
    let mut host: Box<[u64]> = vec![7u64; 16].into_boxed_slice();
    let addr = host.as_mut_ptr() as usize;
    let host3 = || access::attach_pointer(addr + 24);
    let mut a = args(&[(addr, 128, map::TO | map::FROM)]);
    slot.data_begin(&mut a).expect("maps");
    let tgt = slot
        .table
        .lock()
        .find_contained(addr, 128)
        .map(|e| e.target_of(addr));
    let tgt = tgt.expect("entry exists");
    assert_ne!(tgt, addr, "a host device has memory of its own");
    // The device copy changes; the host array does not until data end copies back.
    access::fill(tgt, 0, 128);
    assert_eq!(host3(), 7);
    slot.data_end(&a).expect("unmaps");
    assert_eq!(host3(), 0);
    assert!(slot.table.lock().is_empty());
    assert!(devices[0].table.lock().is_empty());
}

#[test]
fn a_failed_construct_leaves_no_mapping_behind() {
    let slot = fake();
    let small = [1u8; 64];
    let other = [2u8; 64];
    let s = small.as_ptr() as usize;
    let o = other.as_ptr() as usize;
    // `small` maps, then `other` cannot be allocated (16 TiB): begin fails as a whole.
    let mut a = args(&[(s, 64, map::TO), (o, 1 << 44, map::TO)]);
    let err = slot.data_begin(&mut a).expect_err("allocation fails");
    assert_eq!(err.kind, ErrorKind::OutOfMemory);
    assert!(
        slot.table.lock().is_empty(),
        "the first entry was taken back"
    );
    // An existing entry keeps its count after a failed construct that reused it.
    let mut one = args(&[(s, 64, map::TO)]);
    slot.data_begin(&mut one).expect("maps");
    let _ = slot.data_begin(&mut a);
    assert_eq!(
        slot.table.lock().find_contained(s, 64).map(|e| e.dyn_refs),
        Some(1)
    );
    // present on data that is not mapped fails without side effects too.
    let mut p = args(&[(o, 64, map::TO | map::PRESENT)]);
    let err = slot.data_begin(&mut p).expect_err("not present");
    assert!(err.message.contains("'present'"), "{}", err.message);
    assert_eq!(slot.table.lock().len(), 1);
}

// New: the rules above the table, each on its own.

#[test]
fn references_count_up_and_down_and_the_last_release_unmaps() {
    let slot = fake();
    let mut data = [1u64; 4];
    let a = data.as_mut_ptr() as usize;
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("maps");
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("again");
    // A section inside the entry counts on the entry.
    slot.data_begin(&mut args(&[(a + 8, 8, map::TO)]))
        .expect("inside");
    assert_eq!(slot.refs(a, 32), Some(3));
    slot.data_end(&args(&[(a, 32, map::FROM)])).expect("ends");
    slot.data_end(&args(&[(a + 8, 8, map::FROM)]))
        .expect("ends");
    assert_eq!(slot.refs(a, 32), Some(1));
    slot.data_end(&args(&[(a, 32, map::FROM)])).expect("ends");
    assert!(slot.table.lock().is_empty(), "the last release unmaps");
    // Ending what is not mapped does nothing, without `present`, and fails with it.
    slot.data_end(&args(&[(a, 32, map::FROM)]))
        .expect("nothing to end");
    let err = slot
        .data_end(&args(&[(a, 32, map::FROM | map::PRESENT)]))
        .expect_err("present");
    assert!(err.message.contains("'present'"), "{}", err.message);
}

#[test]
fn delete_unmaps_whatever_the_count_and_hold_counts_apart() {
    let slot = fake();
    let mut data = [1u64; 4];
    let a = data.as_mut_ptr() as usize;
    for _ in 0..3 {
        slot.data_begin(&mut args(&[(a, 32, map::TO)]))
            .expect("maps");
    }
    assert_eq!(slot.refs(a, 32), Some(3));
    slot.data_end(&args(&[(a, 32, map::DELETE)]))
        .expect("deletes");
    assert!(slot.table.lock().is_empty(), "delete ignores the count");
    // An `ompx_hold` reference is counted apart and keeps the entry when the dynamic count is
    // released.
    let hold = map::TO | map::OMPX_HOLD;
    slot.data_begin(&mut args(&[(a, 32, hold)])).expect("holds");
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("maps");
    let counts = |s: &Fake| {
        s.table
            .lock()
            .find_contained(a, 32)
            .map(|e| (e.dyn_refs, e.hold_refs))
    };
    assert_eq!(counts(&slot), Some((1, 1)));
    slot.data_end(&args(&[(a, 32, 0)])).expect("releases");
    assert_eq!(counts(&slot), Some((0, 1)), "the hold keeps it");
    slot.data_end(&args(&[(a, 32, map::OMPX_HOLD)]))
        .expect("releases the hold");
    assert!(slot.table.lock().is_empty());
}

#[test]
fn data_is_copied_when_new_or_always_and_back_at_the_last_release_or_always() {
    let slot = fake();
    let mut host: Box<[usize]> = vec![1usize; 4].into_boxed_slice();
    let a = host.as_mut_ptr() as usize;
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("maps");
    let tgt = slot.target_of(a).expect("mapped");
    assert_eq!(word(tgt), 1, "a new entry's data is copied to the device");
    // A present entry is not copied again, unless `always`.
    access::restore_pointer(a, 2);
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("again");
    assert_eq!(word(tgt), 1, "a present entry is not copied again");
    slot.data_begin(&mut args(&[(a, 32, map::TO | map::ALWAYS)]))
        .expect("always");
    assert_eq!(word(tgt), 2, "`always` copies a present entry");
    // Copies back: only at the last release, unless `always`.
    access::restore_pointer(tgt, 3);
    slot.data_end(&args(&[(a, 32, map::FROM)])).expect("ends");
    assert_eq!(word(a), 2, "not the last release: nothing copied back");
    slot.data_end(&args(&[(a, 32, map::FROM | map::ALWAYS)]))
        .expect("always");
    assert_eq!(word(a), 3, "`always` copies back before the last release");
    access::restore_pointer(tgt, 4);
    slot.data_end(&args(&[(a, 32, map::FROM)])).expect("ends");
    assert_eq!(word(a), 4, "the last release copies back");
    assert!(slot.table.lock().is_empty());
}

#[test]
fn an_explicit_extension_fails_and_an_implicit_one_uses_the_entry() {
    let slot = fake();
    let mut data = [1u64; 8];
    let a = data.as_mut_ptr() as usize;
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("maps");
    let err = slot
        .data_begin(&mut args(&[(a + 16, 32, map::TO)]))
        .expect_err("extends past the entry");
    assert_eq!(err.kind, ErrorKind::Extension);
    assert_eq!(slot.refs(a, 32), Some(1), "the failure changed nothing");
    slot.data_begin(&mut args(&[(a + 16, 32, map::TO | map::IMPLICIT)]))
        .expect("implicitly");
    assert_eq!(slot.refs(a, 32), Some(2));
    assert_eq!(slot.table.lock().len(), 1);
}

#[test]
fn a_struct_member_shares_its_parents_entry_and_reference() {
    let slot = fake();
    // struct { u64 x; u64 y[3]; } s, mapped as `map(tofrom: s) map(tofrom: s.y)`.
    let mut s: Box<[u64]> = vec![5u64; 4].into_boxed_slice();
    let base = s.as_mut_ptr() as usize;
    let member = map::TO | map::FROM | (1i64 << 48); // member of entry 0
    let mut m = args(&[(base, 32, map::TO | map::FROM), (base + 8, 24, member)]);
    m.bases[1] = base;
    slot.data_begin(&mut m).expect("maps");
    assert_eq!(
        slot.table.lock().len(),
        1,
        "the member is inside its parent"
    );
    assert_eq!(slot.refs(base, 32), Some(1), "the member adds no reference");
    let tgt = slot.target_of(base + 8).expect("mapped");
    access::restore_pointer(tgt, 9);
    slot.data_end(&m).expect("unmaps");
    assert_eq!(word(base + 8), 9, "the member was copied back");
    assert!(slot.table.lock().is_empty());
}

#[test]
fn an_attached_pointer_points_at_the_device_copy_and_is_restored_on_the_host() {
    let slot = fake();
    // struct { double *p; } s, mapped as `map(tofrom: s) map(tofrom: s.p[0:4])`.
    let mut array: Box<[u64]> = vec![6u64; 4].into_boxed_slice();
    let arr = array.as_mut_ptr() as usize;
    let mut s: Box<[usize]> = vec![arr].into_boxed_slice();
    let ps = s.as_mut_ptr() as usize;
    let pointee = map::TO | map::FROM | map::PTR_AND_OBJ | (1i64 << 48);
    let mut m = args(&[(ps, 8, map::TO | map::FROM), (arr, 32, pointee)]);
    m.bases[1] = ps; // the pointer's own address: PTR_AND_OBJ's base
    slot.data_begin(&mut m).expect("maps");
    let dev_s = slot.target_of(ps).expect("s is mapped");
    let dev_arr = slot.target_of(arr).expect("the array is mapped");
    assert_ne!(dev_arr, arr);
    assert_eq!(word(dev_s), dev_arr, "the device pointer is attached");
    assert_eq!(word(dev_arr), 6, "the pointee was copied");
    let shadows = slot
        .table
        .lock()
        .find_contained(ps, 8)
        .map(|e| e.shadows.len());
    assert_eq!(shadows, Some(1), "the host pointer is shadowed once");
    // `always to` copies the struct again: the device pointer is attached again after it.
    slot.data_update(&args(&[(ps, 8, map::TO)]))
        .expect("updates");
    assert_eq!(word(dev_s), dev_arr, "the shadow is reapplied");
    // Copying the struct back brings the device pointer home: the host keeps its own.
    slot.data_update(&args(&[(ps, 8, map::FROM)]))
        .expect("updates");
    assert_eq!(
        word(ps),
        arr,
        "the host pointer is restored after an update"
    );
    slot.data_end(&m).expect("unmaps");
    assert_eq!(word(ps), arr, "the host pointer is restored at the end");
    assert!(slot.table.lock().is_empty());
}

#[test]
fn present_motion_of_unmapped_data_fails_and_plain_motion_does_nothing() {
    let slot = fake();
    let mut data = [1u64; 4];
    let a = data.as_mut_ptr() as usize;
    slot.data_update(&args(&[(a, 32, map::TO)]))
        .expect("nothing to move");
    let err = slot
        .data_update(&args(&[(a, 32, map::TO | map::PRESENT)]))
        .expect_err("present");
    assert!(err.message.contains("'present' motion"), "{}", err.message);
    assert!(slot.table.lock().is_empty());
}

#[test]
fn permanent_entries_are_never_released() {
    let slot = fake();
    let mut data = [1u64; 4];
    let a = data.as_mut_ptr() as usize;
    let tgt = slot.alloc_data(32).expect("device memory");
    slot.table.lock().insert(Entry::permanent(a, 32, tgt));
    slot.data_begin(&mut args(&[(a, 32, map::TO)]))
        .expect("maps");
    slot.data_end(&args(&[(a, 32, map::DELETE)])).expect("ends");
    assert_eq!(slot.refs(a, 32), Some(INF), "a declare-target global stays");
    slot.dev.free(tgt, AllocKind::Device).expect("frees");
}
