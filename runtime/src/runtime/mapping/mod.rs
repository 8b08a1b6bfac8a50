//! Data begin, end and update over one device's mapping table: libomptarget's semantics for map
//! clauses (reference counts, `always`, `present`, `delete`, `close`, `ompx_hold`,
//! PTR_AND_OBJ attach with shadow pointers, struct members, mappers, non-contiguous updates).
//!
//! Each function takes the table already locked and a [`Stream`] for the copies; the caller
//! synchronizes the stream before it relies on copied data (see [`end_finish`]), and does so
//! after unlocking the table: a table lock never spans a DMA wait. Entries whose copies may still
//! run carry an event ([`Entry::filling`], set by [`mark_filling`]) that other constructs finding
//! them order their own streams after.

pub mod params;
pub mod table;

use self::table::{Entry, MappingTable, ShadowPointer};
use crate::abi::{map, NonContigDim};
use crate::device::{Device, Stream};
use crate::error::{Error, ErrorKind, Result};
use crate::info::{self, bits};
use crate::ompt;
use crate::sys::access;
use smallvec::SmallVec;
use std::ops::DerefMut;

/// The map arguments of one construct, copied out of the program's arrays.
#[derive(Debug, Clone, Default)]
pub struct MapArgs {
    /// `ArgBasePtrs`: each entry's base address (data begin replaces a `RETURN_PARAM` entry's with
    /// the device address).
    pub bases: SmallVec<[usize; 8]>,
    /// `ArgPtrs`: each mapped section's first host byte (for `NON_CONTIG`, its dimensions).
    pub begins: SmallVec<[usize; 8]>,
    /// `ArgSizes`: each section's bytes (for `NON_CONTIG`, its number of dimensions).
    pub sizes: SmallVec<[i64; 8]>,
    /// `ArgTypes`: each entry's [`map`] bits.
    pub types: SmallVec<[i64; 8]>,
    /// Empty when the program passed no names (most constructs): see [`MapArgs::name`].
    pub names: SmallVec<[usize; 8]>,
    /// Empty when the program passed no mappers: see [`MapArgs::mapper`].
    pub mappers: SmallVec<[usize; 8]>,
    /// Each entry's components, when it has a user-defined mapper: what
    /// [`call_mappers`](MapArgs::call_mappers) collected before the table was locked. Empty
    /// until then (and for constructs without mappers).
    pub components: Vec<Option<MapArgs>>,
    /// Each `NON_CONTIG` entry's dimension descriptors (a strided `target update`), read while
    /// the construct's call lasts (see [`read_dims`](MapArgs::read_dims)): clang's descriptor
    /// array is a temporary, and a spread construct's update may run on a device's worker after
    /// the call returned. Empty when no entry is non-contiguous.
    pub dims: Vec<Vec<NonContigDim>>,
}

impl MapArgs {
    /// The host bytes each entry names, `[begin, begin + size)` (literals, empty entries and
    /// entries whose size is a dimension count left out).
    pub fn host_ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.len())
            .filter(|&i| self.types[i] & (map::LITERAL | map::NON_CONTIG) == 0)
            .filter_map(|i| {
                let size = usize::try_from(self.sizes[i]).ok().filter(|&s| s > 0)?;
                Some((self.begins[i], self.begins[i].saturating_add(size)))
            })
    }

    /// Whether entry `i` is a plain, non-empty section of host data: not a pointer to attach,
    /// a literal or private copy, a struct member, a strided update, a `use_device_*` entry,
    /// nor an entry with a mapper.
    pub fn is_plain_section(&self, i: usize) -> bool {
        let odd = map::PTR_AND_OBJ
            | map::RETURN_PARAM
            | map::PRIVATE
            | map::LITERAL
            | map::NON_CONTIG
            | map::MEMBER_OF;
        self.types[i] & odd == 0 && self.sizes[i] > 0 && self.mapper(i) == 0
    }

    /// Number of map entries (`arg_num`).
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the construct maps nothing.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Entry `i`'s name (clang's `;name;file;line;col;;` string), 0 without one.
    pub fn name(&self, i: usize) -> usize {
        self.names.get(i).copied().unwrap_or(0)
    }

    /// Entry `i`'s user-defined mapper, 0 without one.
    pub fn mapper(&self, i: usize) -> usize {
        self.mappers.get(i).copied().unwrap_or(0)
    }

    /// Reads the dimension descriptors of the `NON_CONTIG` entries into [`dims`](Self::dims).
    pub fn read_dims(&mut self) {
        if self.types.iter().all(|&t| t & map::NON_CONTIG == 0) {
            return;
        }
        self.dims = (0..self.len())
            .map(|i| match self.size(i) {
                Ok(n) if self.types[i] & map::NON_CONTIG != 0 => {
                    access::non_contig_dims(self.begins[i], n)
                        .into_iter()
                        .map(|[offset, count, stride]| NonContigDim {
                            offset,
                            count,
                            stride,
                        })
                        .collect()
                }
                _ => Vec::new(),
            })
            .collect();
    }

    /// Calls the entries' user-defined mappers (and the mappers of their components) and keeps
    /// each entry's components: the mapping runs under the device's table lock, where no program
    /// code may run (a mapper may call anything, this runtime included).
    pub fn call_mappers(&mut self) {
        if !self.mappers_pending() {
            return;
        }
        let components = (0..self.len())
            .map(|i| (self.mapper(i) != 0).then(|| self.expand(i)))
            .collect();
        self.components = components;
    }

    /// Whether an entry has a mapper that [`call_mappers`](Self::call_mappers) has not called.
    fn mappers_pending(&self) -> bool {
        self.components.is_empty() && self.mappers.iter().any(|&m| m != 0)
    }

    /// Calls entry `i`'s mapper, and its components' own: the entry's components.
    fn expand(&self, i: usize) -> MapArgs {
        let mut c = run_mapper(self.mapper(i), self, i);
        c.call_mappers();
        c
    }

    /// These arguments with their mappers called (see [`call_mappers`](Self::call_mappers)):
    /// copied only when an entry has a mapper.
    pub fn with_mappers_called(&self) -> std::borrow::Cow<'_, MapArgs> {
        if !self.mappers_pending() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut a = self.clone();
        a.call_mappers();
        std::borrow::Cow::Owned(a)
    }

    /// Entry `i`'s components, as [`call_mappers`](Self::call_mappers) collected them.
    fn components_of(&self, i: usize) -> MapArgs {
        match self.components.get(i).and_then(Option::as_ref) {
            Some(c) => c.clone(),
            None => {
                // Every construct calls its mappers before it locks the table.
                debug_assert!(
                    false,
                    "the mapper of entry {i} was not called before the lock"
                );
                self.expand(i)
            }
        }
    }

    fn size(&self, i: usize) -> Result<usize> {
        usize::try_from(self.sizes[i]).map_err(|_| {
            Error::new(
                ErrorKind::Mapping,
                format!(
                    "map entry {i} has a negative size ({} bytes)",
                    self.sizes[i]
                ),
            )
        })
    }
}

/// The device a mapping lives on, as the map-clause semantics use it: the mapping decides, its
/// target carries out. The runtime's device slot is one; a test's fake is another, so the rules
/// here are tested without a runtime.
pub trait MapTarget {
    /// A stream borrowed for one construct (the construct's copies go on it, in order). The
    /// runtime's stream goes back to the device's pool when dropped.
    type Stream<'s>: DerefMut<Target = Stream>
    where
        Self: 's;

    /// The device number the program uses, for messages and the program's tool.
    fn id(&self) -> usize;

    /// The device that runs the copies and records the events of the mapping.
    fn device(&self) -> &dyn Device;

    /// Device memory for `size` bytes of newly mapped data.
    fn alloc_data(&self, size: usize) -> Result<usize>;

    /// Page-locks the host side of newly mapped data where that is wanted and possible; whether
    /// it did (kept in the entry, for [`release_entry`](Self::release_entry)).
    fn pin_mapped(&self, host: usize, len: usize) -> bool;

    /// Gives back what a removed entry held (its device memory, its page-locking). Its last
    /// use must have finished.
    fn release_entry(&self, e: &Entry) -> Result<()>;

    /// Whether the device reaches host memory `[host, host + len)` at the same address (memory
    /// of a Spread memory space), so that mapping it there moves nothing.
    fn accessible(&self, host: usize, len: usize) -> bool;
}

/// What one construct is doing on one device. Generic rather than over `dyn MapTarget`: the
/// launch path then calls its device slot directly, as it did before the mapping had a trait.
pub struct Ctx<'a, T: MapTarget> {
    /// The device whose table is being changed.
    pub target: &'a T,
    /// The stream the construct's copies go on, in order.
    pub stream: T::Stream<'a>,
    /// `requires unified_shared_memory`: data without `close` is used where it is.
    pub usm: bool,
    /// Entries this construct has enqueued copies to or from since the last [`mark_filling`].
    pub filled: SmallVec<[usize; 8]>,
}

impl<T: MapTarget> Ctx<'_, T> {
    fn id(&self) -> usize {
        self.target.id()
    }

    /// Enqueues a copy of `size` bytes from `host` to `tgt` (the variable named by `name`), with
    /// libomptarget's DATA_TRANSFER line.
    fn copy_to(&mut self, tgt: usize, host: usize, size: usize, name: usize) -> Result<()> {
        crate::info!(
            bits::DATA_TRANSFER,
            self.id(),
            "Copying data from host to device, HstPtr={}, TgtPtr={}, Size={}, Name={}",
            info::ptr(host),
            info::ptr(tgt),
            size,
            name_of(name)
        );
        self.enqueue_to_device(tgt, host, size)
    }

    /// Enqueues the write of the pointer `value` at `tgt` (a pointer attached to its pointee).
    fn copy_pointer_to(&mut self, tgt: usize, value: usize) -> Result<()> {
        let src = stage_ptr(&mut self.stream, value);
        self.enqueue_to_device(tgt, src, 8)
    }

    /// Enqueues a copy of `size` bytes from host memory at `src` to `tgt`, reported to the
    /// program's OMPT tool.
    fn enqueue_to_device(&mut self, tgt: usize, src: usize, size: usize) -> Result<()> {
        let t = ompt::Transfer::host_to_device(self.id(), src, tgt, size);
        ompt::transfer(ompt::Op::ToDevice, t, || {
            self.target
                .device()
                .copy_to_device(tgt, src, size, &mut self.stream)
        })
    }

    /// Enqueues a copy of `size` bytes from `tgt` back to `host`, with libomptarget's
    /// DATA_TRANSFER line.
    fn copy_from(&mut self, host: usize, tgt: usize, size: usize, name: usize) -> Result<()> {
        crate::info!(
            bits::DATA_TRANSFER,
            self.id(),
            "Copying data from device to host, TgtPtr={}, HstPtr={}, Size={}, Name={}",
            info::ptr(tgt),
            info::ptr(host),
            size,
            name_of(name)
        );
        let t = ompt::Transfer::device_to_host(self.id(), tgt, host, size);
        ompt::transfer(ompt::Op::FromDevice, t, || {
            self.target
                .device()
                .copy_from_device(host, tgt, size, &mut self.stream)
        })
    }
}

/// What a construct's mapping changed, to take back if it fails (inline for the usual few
/// entries: a construct's bookkeeping then allocates nothing).
pub type Undos = SmallVec<[Undo; 8]>;

/// What an `exit data` or a region's end does once its copies back are done (inline for the
/// usual few entries).
pub type PostEnds = SmallVec<[PostEnd; 8]>;

/// A change data begin made, so that a failing construct can take it back.
#[derive(Debug, Clone, Copy)]
pub enum Undo {
    /// A reference was added to an existing entry: undone by dropping it again.
    Counted {
        /// The entry's key (host begin address).
        key: usize,
        /// Whether the hold count (`ompx_hold`) rather than the dynamic count was raised.
        hold: bool,
    },
    /// The entry was created: undone by dropping its reference and, if unused, removing it.
    Created {
        /// The entry's key (host begin address).
        key: usize,
        /// Whether its first reference is a hold reference (`ompx_hold`).
        hold: bool,
    },
}

/// Result of resolving one host range.
#[derive(Debug, Default, Clone, Copy)]
struct Target {
    addr: usize,
    entry: Option<usize>,
    is_new: bool,
    is_host: bool,
}

/// Orders this construct's stream after the copies another construct may still be running on
/// entry `key` (a no-op once they are done, and on devices whose copies finish on return).
fn wait_filling<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    key: usize,
) -> Result<()> {
    let Some(e) = table.get_mut(key) else {
        return Ok(());
    };
    let Some(ev) = e.filling.clone() else {
        return Ok(());
    };
    if ev.query()? {
        e.filling = None;
        return Ok(());
    }
    cx.target.device().wait_event(&mut cx.stream, &ev)
}

/// Records the end of the copies this construct enqueued so far on the entries they touch, so
/// that constructs finding those entries before the copies are done wait for them. Call with
/// the table still locked, before unlocking it to synchronize.
pub fn mark_filling<T: MapTarget>(cx: &mut Ctx<'_, T>, table: &mut MappingTable) -> Result<()> {
    if cx.filled.is_empty() {
        return Ok(());
    }
    let ev = cx.target.device().record_event(&mut cx.stream)?;
    let keys = std::mem::take(&mut cx.filled);
    if ev.backend().is_none() {
        return Ok(()); // the copies have finished already
    }
    for k in keys {
        if let Some(e) = table.get_mut(k) {
            e.filling = Some(ev.clone());
        }
    }
    Ok(())
}

/// Calls entry `i`'s mapper: its components, as map arguments without mappers.
fn run_mapper(mapper: usize, args: &MapArgs, i: usize) -> MapArgs {
    let comps = crate::sys::mapper::collect(
        mapper,
        args.bases[i],
        args.begins[i],
        args.sizes[i],
        args.types[i],
        args.name(i),
    );
    let mut a = MapArgs::default();
    for c in comps {
        a.bases.push(c.base);
        a.begins.push(c.begin);
        a.sizes.push(c.size);
        a.types.push(c.ty);
        a.names.push(c.name);
        a.mappers.push(0);
    }
    a.read_dims();
    a
}

fn name_of(name: usize) -> String {
    info::var_name(name)
}

/// libomptarget's message for a `present` map whose data is not (entirely) mapped.
fn present_missing(begin: usize, size: usize) -> String {
    format!(
        "device mapping required by 'present' map type modifier does not exist for host address {} ({size} bytes)",
        info::ptr(begin)
    )
}

fn refs_str(n: u64, action: &str) -> String {
    format!("{}{action}", Entry::fmt_refs(n))
}

fn stage_ptr(s: &mut Stream, value: usize) -> usize {
    s.stage(&value.to_ne_bytes())
}

/// Looks `[begin, begin + size)` up after retiring the entries it overlaps without lying
/// inside them whose references were all released by constructs still finishing (see
/// [`MappingTable::retire`]): in program order they are gone, so the range is mapped anew
/// rather than failing with an explicit extension (a `nowait` construct that depends on one
/// that mapped part of its data, halos of a spread's chunks in flight on one device). This
/// construct's copies wait for the released entries' last copies back first.
fn retire_released_overlaps<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    begin: usize,
    size: usize,
) -> Result<table::Lookup> {
    loop {
        let l = table.lookup(begin, size);
        let Some(key) = l
            .entry
            .filter(|_| !l.contained && (l.extends_before || l.extends_after))
            .filter(|&k| {
                table
                    .get(k)
                    .is_some_and(|e| e.total_refs() == 0 && e.finishing > 0)
            })
        else {
            return Ok(l);
        };
        wait_filling(cx, table, key)?;
        table.retire(key);
    }
}

/// The host section one map entry names, as [`get_target_pointer`]'s cases read it.
#[derive(Clone, Copy)]
struct HostSection {
    begin: usize,
    base: usize,
    /// Bytes before `begin` a struct's device copy keeps to stay aligned as the host's.
    padding: usize,
    size: usize,
    name: usize,
    ty: i64,
}

/// libomptarget's `getTargetPointer`: the device address of `[begin, begin + size)`, from the
/// entry that maps it, the host memory itself or a new entry, with the copy to the device its
/// map type asks for.
#[allow(clippy::too_many_arguments)]
fn get_target_pointer<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    begin: usize,
    base: usize,
    padding: usize,
    size: usize,
    name: usize,
    ty: i64,
    update_ref: bool,
    undo: &mut Undos,
) -> Result<Target> {
    let s = HostSection {
        begin,
        base,
        padding,
        size,
        name,
        ty,
    };
    let implicit = ty & map::IMPLICIT != 0;
    let l = retire_released_overlaps(cx, table, begin, size)?;
    let extends = l.extends_before || l.extends_after;
    let t = match l.entry {
        Some(key) if l.contained || (extends && implicit) => {
            map_existing(cx, table, key, s, update_ref, undo)?
        }
        Some(key) if extends => return Err(explicit_extension(cx.id(), table, key, s)),
        _ if ty & map::CLOSE == 0 && (cx.usm || cx.target.accessible(begin, size)) => {
            use_in_place(cx, begin, size)
        }
        _ if ty & map::PRESENT != 0 => {
            return Err(Error::new(ErrorKind::Mapping, present_missing(begin, size)));
        }
        _ if size > 0 => map_new(cx, table, s, undo)?,
        _ => Target::default(),
    };
    let to = ty & map::TO != 0;
    let always = ty & map::ALWAYS != 0;
    if t.addr != 0 && !t.is_host && to && (t.is_new || always) && size != 0 {
        cx.copy_to(t.addr, begin, size, name)?;
        if let Some(k) = t.entry {
            cx.filled.push(k);
        }
        if let Some(e) = t.entry.and_then(|k| table.get(k)) {
            reapply_shadows(cx, e, begin, begin + size)?;
        }
    }
    Ok(t)
}

/// The case of a section inside the entry `key` (or, implicitly mapped, overlapping it): a
/// reference more (or none, for a struct's member), and whether its data must be copied
/// again because the entry is new to this construct.
#[inline]
fn map_existing<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    key: usize,
    s: HostSection,
    update_ref: bool,
    undo: &mut Undos,
) -> Result<Target> {
    let implicit = s.ty & map::IMPLICIT != 0;
    let hold = s.ty & map::OMPX_HOLD != 0;
    let mut t = Target::default();
    wait_filling(cx, table, key)?;
    let Some(e) = table.get_mut(key) else {
        return Err(Error::new(
            ErrorKind::Mapping,
            "mapping table lost an entry",
        ));
    };
    // An entry whose last reference was released by a construct still finishing (its
    // removal waits for that construct's copies) is mapped anew: its data is copied again.
    let revived = e.total_refs() == 0;
    let action = if update_ref {
        e.inc_refs(hold);
        undo.push(Undo::Counted { key, hold });
        " (incremented)"
    } else {
        // A member of a struct allocated by its parent entry in this very construct: still
        // new, so its TO data must be copied.
        t.is_new = e.total_refs() == 1;
        " (update suppressed)"
    };
    t.addr = e.target_of(s.begin);
    t.entry = Some(key);
    t.is_new |= revived;
    crate::info!(
        bits::MAPPING_EXISTS,
        cx.id(),
        "Mapping exists{} with HstPtrBegin={}, TgtPtrBegin={}, Size={}, DynRefCount={}, HoldRefCount={}, Name={}",
        if implicit { " (implicit)" } else { "" },
        info::ptr(s.begin),
        info::ptr(t.addr),
        s.size,
        refs_str(e.dyn_refs, if hold { "" } else { action }),
        refs_str(e.hold_refs, if hold { action } else { "" }),
        name_of(s.name)
    );
    Ok(t)
}

/// The error of a section that overlaps the entry `key` without lying inside it, explicitly
/// mapped: libomptarget's lines, then the names of the two maps where the program gave them
/// (the addresses alone rarely say which maps disagree).
#[cold]
fn explicit_extension(device: usize, table: &MappingTable, key: usize, s: HostSection) -> Error {
    let HostSection {
        begin,
        size,
        name,
        ty,
        ..
    } = s;
    let (eb, es, ename) = table
        .get(key)
        .map_or((0, 0, 0), |e| (e.host_begin, e.size(), e.name));
    let mut message = format!(
        "explicit extension not allowed: host address specified is {} ({size} bytes), but device allocation maps to host at {} ({es} bytes)",
        info::ptr(begin),
        info::ptr(eb)
    );
    if ty & map::PRESENT != 0 {
        // libomptarget goes on to the `present` check, which fails too and says so.
        message.push('\n');
        message.push_str(&present_missing(begin, size));
    }
    if name != 0 || ename != 0 {
        // libomptarget's lines name addresses only (and stay together); the names say which maps disagree.
        message.push_str(&format!(
            "\nthe section '{}' overlaps the mapping of {} on device {} without lying inside it",
            name_of(name),
            info::declared(ename).unwrap_or_else(|| "another section".into()),
            device
        ));
    }
    Error::new(ErrorKind::Extension, message)
}

/// The case of data the device uses where it is (unified shared memory, or memory of a
/// Spread space this device reaches): no entry, no copy; an empty section gets no address.
#[inline]
fn use_in_place<T: MapTarget>(cx: &Ctx<'_, T>, begin: usize, size: usize) -> Target {
    let mut t = Target::default();
    if size > 0 {
        crate::info!(
            bits::MAPPING_CHANGED,
            cx.id(),
            "Return HstPtrBegin {} Size={size} for {}",
            info::ptr(begin),
            if cx.usm {
                "unified shared memory"
            } else {
                "memory of a multi-device memory space"
            }
        );
        t.addr = begin;
        t.is_host = true;
    }
    t
}

/// The case of unmapped data: device memory (with the struct's padding before it) and a new
/// entry holding the construct's first reference, recorded in `undo` so a failing construct
/// removes it.
#[inline]
fn map_new<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    s: HostSection,
    undo: &mut Undos,
) -> Result<Target> {
    let HostSection {
        begin,
        base,
        padding,
        size,
        name,
        ty,
    } = s;
    let hold = ty & map::OMPX_HOLD != 0;
    let id = cx.id();
    let alloc = ompt::alloc(id, begin, size + padding, || {
        cx.target.alloc_data(size + padding)
    })?;
    let tgt = alloc + padding;
    let pinned = cx.target.pin_mapped(begin, size);
    let key = table.insert(Entry {
        host_base: base,
        host_begin: begin,
        host_end: begin + size,
        target_alloc: alloc,
        target_begin: tgt,
        dyn_refs: u64::from(!hold),
        hold_refs: u64::from(hold),
        name,
        owns_memory: true,
        pinned,
        shadows: Vec::new(),
        filling: None,
        finishing: 0,
        id: 0,
    });
    undo.push(Undo::Created { key, hold });
    crate::info!(
        bits::MAPPING_CHANGED,
        cx.id(),
        "Creating new map entry with HstPtrBase={}, HstPtrBegin={}, TgtAllocBegin={}, TgtPtrBegin={}, Size={}, DynRefCount={}, HoldRefCount={}, Name={}",
        info::ptr(base),
        info::ptr(begin),
        info::ptr(alloc),
        info::ptr(tgt),
        size,
        u64::from(!hold),
        u64::from(hold),
        name_of(name)
    );
    Ok(Target {
        addr: tgt,
        entry: Some(key),
        is_new: true,
        is_host: false,
    })
}

/// Writes the device values of the shadow pointers inside `[lo, hi)` again, after a host-to-device
/// copy overwrote them with host addresses.
fn reapply_shadows<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    e: &Entry,
    lo: usize,
    hi: usize,
) -> Result<()> {
    for s in e
        .shadows
        .iter()
        .filter(|s| s.host_addr >= lo && s.host_addr < hi)
    {
        cx.copy_pointer_to(s.target_addr, s.target_value)?;
    }
    Ok(())
}

/// Restores the host values of the shadow pointers inside `[lo, hi)` after a device-to-host copy.
fn restore_shadows(e: &Entry, lo: usize, hi: usize) {
    for s in e
        .shadows
        .iter()
        .filter(|s| s.host_addr >= lo && s.host_addr < hi)
    {
        access::restore_pointer(s.host_addr, s.host_value);
    }
}

/// Linux never maps the lowest 64 KiB (`vm.mmap_min_addr`): an address there comes from a null
/// pointer (plus an offset) and must not be read or written.
const NULL_PAGE_END: usize = 64 * 1024;

/// Whether a host address lies where only a null pointer (plus an offset) can point.
fn in_null_page(addr: usize) -> bool {
    addr < NULL_PAGE_END
}

/// Alignment a struct's device copy must keep: that of the struct's base address, at most 16.
fn struct_alignment(base: usize) -> usize {
    let a = if base == 0 {
        16
    } else {
        1usize << base.trailing_zeros().min(63)
    };
    a.min(16)
}

/// Maps every entry of `args` (libomptarget's `targetDataBegin`); may rewrite `args.bases` for
/// RETURN_PARAM entries. On error the changes already made are in `undo`.
pub fn begin<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    args: &mut MapArgs,
    from_mapper: bool,
    undo: &mut Undos,
) -> Result<()> {
    let n = args.len();
    for i in 0..n {
        let ty = args.types[i];
        if ty & (map::LITERAL | map::PRIVATE) != 0 {
            continue;
        }
        if args.mapper(i) != 0 {
            let mut comps = args.components_of(i);
            begin(cx, table, &mut comps, true, undo)?;
            continue;
        }
        let begin_addr = args.begins[i];
        let mut base = args.bases[i];
        let size = args.size(i)?;
        let name = args.name(i);
        let padding = if map::parent_index(ty).is_none()
            && i + 1 < n
            && map::parent_index(args.types[i + 1]) == Some(i)
        {
            begin_addr % struct_alignment(base)
        } else {
            0
        };
        let mut update_ref = ty & map::MEMBER_OF == 0 && !(from_mapper && i == 0);
        let mut pointer = None;
        if ty & map::PTR_AND_OBJ != 0 {
            // The pointer itself: mapped without TO, so the pointee can be attached to it.
            let pty = ty & (map::IMPLICIT | map::CLOSE | map::PRESENT | map::OMPX_HOLD);
            if in_null_page(base) {
                return Err(Error::new(
                    ErrorKind::Mapping,
                    format!(
                        "host address {} of a pointer to attach is not program memory: its enclosing object is a null pointer",
                        info::ptr(base)
                    ),
                ));
            }
            let p = get_target_pointer(cx, table, base, base, 0, 8, 0, pty, update_ref, undo)?;
            if p.addr == 0 {
                return Err(Error::new(
                    ErrorKind::Mapping,
                    "Call to getTargetPointer returned null pointer (device failure or illegal mapping).",
                ));
            }
            pointer = Some((p, base));
            base = access::attach_pointer(base);
            update_ref = !from_mapper || i != 0;
        }
        let null_pointer = || {
            format!(
                "Call to getTargetPointer returned null pointer ({}).",
                if ty & map::PRESENT != 0 {
                    "'present' map type modifier"
                } else {
                    "device failure or illegal mapping"
                }
            )
        };
        if size > 0 && in_null_page(begin_addr) {
            return Err(Error::new(
                ErrorKind::Mapping,
                format!(
                    "host address {} ({size} bytes) is not program memory: a section of a null pointer cannot be mapped",
                    info::ptr(begin_addr)
                ),
            )
            .context(null_pointer()));
        }
        let t = get_target_pointer(
            cx, table, begin_addr, base, padding, size, name, ty, update_ref, undo,
        )
        .map_err(|e| e.context(null_pointer()))?;
        if t.addr == 0 && (size != 0 || ty & map::PRESENT != 0) {
            return Err(Error::new(ErrorKind::Mapping, null_pointer()));
        }
        if t.addr == 0 && !t.is_host && ty != 0 && ty & (map::MEMBER_OF | map::IMPLICIT) == 0 {
            crate::info!(
                bits::EMPTY_MAPPING,
                cx.id(),
                "variable {} does not have a valid device counterpart",
                name_of(name)
            );
        }
        let delta = begin_addr.wrapping_sub(base);
        if ty & map::RETURN_PARAM != 0 {
            args.bases[i] = t.addr.wrapping_sub(delta);
        }
        if let Some((p, host_ptr_addr)) = pointer {
            if !t.is_host && !p.is_host {
                let expected = t.addr.wrapping_sub(delta);
                let shadow = ShadowPointer {
                    host_addr: host_ptr_addr,
                    host_value: base,
                    target_addr: p.addr,
                    target_value: expected,
                };
                let changed = p
                    .entry
                    .and_then(|k| table.get_mut(k))
                    .is_some_and(|e| e.add_shadow(shadow));
                if changed {
                    cx.copy_pointer_to(p.addr, expected)?;
                    cx.filled.extend(p.entry);
                }
            }
        }
    }
    Ok(())
}

/// Takes back what a failed [`begin`] did, newest first. The caller has waited for the copies
/// the construct started (they may still be reading or writing the memory this frees) and
/// locked the table again: in between, another construct may have found an entry this one
/// created, so an entry is removed only when no reference is left.
pub fn rollback<T: MapTarget>(cx: &mut Ctx<'_, T>, table: &mut MappingTable, undo: Undos) {
    for u in undo.into_iter().rev() {
        match u {
            Undo::Counted { key, hold } => {
                if let Some(e) = table.get_mut(key) {
                    e.dec_refs(hold);
                }
            }
            Undo::Created { key, hold } => {
                let unused = table.get_mut(key).is_some_and(|e| {
                    e.dec_refs(hold);
                    e.total_refs() == 0
                });
                if unused {
                    if let Some(e) = table.remove(key) {
                        let _ = cx.target.release_entry(&e);
                    }
                }
            }
        }
    }
}

/// An entry data end has released or copied back, processed after the copies completed.
#[derive(Debug, Clone, Copy)]
pub struct PostEnd {
    key: usize,
    /// The entry's [id](Entry::id): it may be retired, and another entry take its key, before
    /// [`end_finish`] runs.
    id: u32,
    begin: usize,
    size: usize,
    from: bool,
    is_last: bool,
}

impl PostEnd {
    /// The entry it releases or copied back.
    pub fn key(&self) -> usize {
        self.key
    }
}

/// Unmaps every entry of `args` in reverse order (libomptarget's `targetDataEnd`). Entries to
/// release and pointers to restore are collected in `post` for [`end_finish`].
pub fn end<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    args: &MapArgs,
    from_mapper: bool,
    post: &mut PostEnds,
) -> Result<()> {
    for i in (0..args.len()).rev() {
        let ty = args.types[i];
        if ty & (map::LITERAL | map::PRIVATE) != 0 {
            continue;
        }
        if args.mapper(i) != 0 {
            let comps = args.components_of(i);
            end(cx, table, &comps, true, post)?;
            continue;
        }
        let begin_addr = args.begins[i];
        let size = args.size(i)?;
        let implicit = ty & map::IMPLICIT != 0;
        let update_ref =
            (ty & map::MEMBER_OF == 0 || ty & map::PTR_AND_OBJ != 0) && !(from_mapper && i == 0);
        let force_delete = ty & map::DELETE != 0;
        let hold = ty & map::OMPX_HOLD != 0;
        let l = table.lookup(begin_addr, size);
        let found = l.entry.filter(|_| l.is_present(!implicit));
        let Some(key) = found else {
            if cx.usm || cx.target.accessible(begin_addr, size) {
                continue; // the data is the host's own: nothing to copy or release
            }
            if ty & map::PRESENT != 0 {
                return Err(Error::new(
                    ErrorKind::Mapping,
                    format!(
                        "device mapping required by 'present' map type modifier does not exist for host address {} ({size} bytes)",
                        info::ptr(begin_addr)
                    ),
                ));
            }
            continue;
        };
        wait_filling(cx, table, key)?;
        let Some(e) = table.get_mut(key) else {
            continue;
        };
        let is_last = e.dec_would_remove(hold, force_delete);
        if is_last {
            e.finishing += 1;
        }
        if force_delete {
            e.reset_refs(hold);
        }
        let action = if !update_ref {
            " (update suppressed)"
        } else {
            e.dec_refs(hold);
            match (is_last, force_delete) {
                (true, true) => " (reset, delayed deletion)",
                (true, false) => " (decremented, delayed deletion)",
                _ => " (decremented)",
            }
        };
        let tgt = e.target_of(begin_addr);
        let id = e.id;
        crate::info!(
            bits::MAPPING_EXISTS,
            cx.id(),
            "Mapping exists with HstPtrBegin={}, TgtPtrBegin={}, Size={}, DynRefCount={}, HoldRefCount={}",
            info::ptr(begin_addr),
            info::ptr(tgt),
            size,
            refs_str(e.dyn_refs, if hold { "" } else { action }),
            refs_str(e.hold_refs, if hold { action } else { "" })
        );
        let from = ty & map::FROM != 0;
        if from && (ty & map::ALWAYS != 0 || is_last) && size != 0 {
            cx.copy_from(begin_addr, tgt, size, args.name(i))?;
            cx.filled.push(key);
        }
        post.push(PostEnd {
            key,
            id,
            begin: begin_addr,
            size,
            from,
            is_last,
        });
    }
    Ok(())
}

/// After the stream of an [`end`] is synchronized: restores host pointers the copies overwrote
/// and releases entries whose counts reached zero (once their last user in this construct is
/// done with them).
pub fn end_finish<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    post: PostEnds,
) -> Result<()> {
    // An entry may be released more than once by one construct (struct members): it goes at
    // its last release. Most constructs name few entries, and later releases are counted by a
    // scan; long lists count them once.
    const SCAN: usize = 64;
    let mut counts: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    if post.len() > SCAN {
        for p in &post {
            *counts.entry(p.id).or_default() += 1;
        }
    }
    let mut result = Ok(());
    for (i, p) in post.iter().enumerate() {
        let left = if post.len() > SCAN {
            counts.get_mut(&p.id).map_or(0, |n| {
                *n -= 1;
                *n
            })
        } else {
            post[i + 1..].iter().filter(|q| q.id == p.id).count()
        };
        let Some(e) = table.get_released(p.key, p.id) else {
            continue;
        };
        if p.is_last {
            e.finishing = e.finishing.saturating_sub(1);
        }
        if p.from {
            let (lo, hi) = if p.size == 0 {
                (e.host_begin, e.host_end)
            } else {
                (p.begin, p.begin + p.size)
            };
            restore_shadows(e, lo.min(e.host_begin), hi.max(e.host_end));
        }
        if p.is_last && left == 0 && e.total_refs() == 0 && e.finishing == 0 {
            if let Some(e) = table.remove_released(p.key, p.id) {
                if let Err(err) = cx.target.release_entry(&e) {
                    result = Err(err);
                }
            }
        }
    }
    result
}

/// Moves data of present entries (libomptarget's `targetDataUpdate`). Host pointers to restore
/// after FROM copies are collected in `restore` (entry key, range).
pub fn update<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    args: &MapArgs,
    restore: &mut Vec<(usize, usize, usize)>,
) -> Result<()> {
    for i in 0..args.len() {
        let ty = args.types[i];
        if ty & (map::LITERAL | map::PRIVATE) != 0 {
            continue;
        }
        if args.mapper(i) != 0 {
            let comps = args.components_of(i);
            update(cx, table, &comps, restore)?;
            continue;
        }
        if ty & map::NON_CONTIG != 0 {
            args.size(i)?;
            let dims = args.dims.get(i).map_or(&[][..], Vec::as_slice);
            for (addr, len) in non_contiguous_pieces(dims) {
                update_contiguous(
                    cx,
                    table,
                    args.bases[i].wrapping_add(addr),
                    len,
                    ty,
                    restore,
                )?;
            }
            continue;
        }
        update_contiguous(cx, table, args.begins[i], args.size(i)?, ty, restore)?;
    }
    Ok(())
}

fn update_contiguous<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &mut MappingTable,
    begin_addr: usize,
    size: usize,
    ty: i64,
    restore: &mut Vec<(usize, usize, usize)>,
) -> Result<()> {
    let l = table.lookup(begin_addr, size);
    let Some(key) = l.entry.filter(|_| l.contained) else {
        if ty & map::PRESENT != 0 && !cx.usm && !cx.target.accessible(begin_addr, size) {
            return Err(Error::new(
                ErrorKind::Mapping,
                format!(
                    "device mapping required by 'present' motion modifier does not exist for host address {} ({size} bytes)",
                    info::ptr(begin_addr)
                ),
            ));
        }
        return Ok(());
    };
    wait_filling(cx, table, key)?;
    let Some(e) = table.get(key) else {
        return Ok(());
    };
    let tgt = e.target_of(begin_addr);
    if ty & (map::TO | map::FROM) != 0 {
        cx.filled.push(key);
    }
    if ty & map::TO != 0 {
        cx.copy_to(tgt, begin_addr, size, e.name)?;
        reapply_shadows(cx, e, begin_addr, begin_addr + size)?;
    }
    if ty & map::FROM != 0 {
        cx.copy_from(begin_addr, tgt, size, e.name)?;
        restore.push((key, begin_addr, begin_addr + size));
    }
    Ok(())
}

/// After the stream of an [`update`] is synchronized: host pointers inside FROM ranges get their
/// host values back.
pub fn update_finish(table: &MappingTable, restore: Vec<(usize, usize, usize)>) {
    for (key, lo, hi) in restore {
        if let Some(e) = table.get(key) {
            restore_shadows(e, lo, hi);
        }
    }
}

/// The contiguous pieces `(offset from base, bytes)` of a non-contiguous section (outermost
/// dimension first, strides in bytes). Trailing dimensions whose elements are adjacent form one
/// contiguous block, so each piece is as large as it can be.
pub fn non_contiguous_pieces(dims: &[NonContigDim]) -> Vec<(usize, usize)> {
    if dims.is_empty() {
        return Vec::new();
    }
    // `inner` is the outermost dimension from which on the section is one block.
    let mut inner = dims.len() - 1;
    while inner > 0 && dims[inner].count.wrapping_mul(dims[inner].stride) == dims[inner - 1].stride
    {
        inner -= 1;
    }
    let block = dims[inner].count.wrapping_mul(dims[inner].stride) as usize;
    let mut out = Vec::new();
    fn walk(
        dims: &[NonContigDim],
        d: usize,
        inner: usize,
        offset: u64,
        block: usize,
        out: &mut Vec<(usize, usize)>,
    ) {
        if d == inner {
            let start = offset.wrapping_add(dims[d].offset.wrapping_mul(dims[d].stride));
            out.push((start as usize, block));
            return;
        }
        for i in 0..dims[d].count {
            let off = (dims[d].offset + i).wrapping_mul(dims[d].stride);
            walk(dims, d + 1, inner, offset.wrapping_add(off), block, out);
        }
    }
    if block > 0 {
        walk(dims, 0, inner, 0, block, &mut out);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
