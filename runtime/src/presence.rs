//! Whether the data a construct uses is mapped on the device it runs on, when another device
//! holds it: the check that keeps a spread chunk from computing on the host's copy of data that
//! an enclosing one-device `target data` mapped elsewhere.
//!
//! A pointer a `target` region uses without a map clause is mapped implicitly as a zero-length
//! section: present, the kernel gets the device address; absent, OpenMP passes the pointer's
//! host value (libomptarget does the same). That is right for a construct on one device, but a
//! `target spread` added inside `#pragma omp target data map(to: f[0:n])` (one device: the
//! default) runs its chunks on every device, and those on the devices without `f` receive the
//! host address: on a GPU they fault, on host devices they silently compute on the host's copy
//! while device 0 computes on its own (a Jacobi solver ported this way printed its own `FAIL`).
//!
//! The decision (docs/runtime.md, "Data a spread chunk needs"): a spread chunk whose pointer is
//! absent on its device but present on another device is an **error** naming the construct, the
//! chunk, the variable, its device and the mapping that holds it. Making the data present
//! instead (copying it from the device that holds it) would hide the mistake and give the
//! devices copies that diverge as soon as one of them writes: only `target data spread` says
//! which part of the data each device owns. A section that a chunk maps anew while another
//! device of the construct holds an overlapping mapping is legal OpenMP (each device its own
//! copy, taken from the host) but wrong whenever the holder's copy changed since: reported once
//! per construct and variable as a warning. A plain `target` region in the same situation keeps
//! OpenMP's meaning (the host value) and is reported once as a warning.

use crate::abi::map;
use crate::runtime::mapping::MapArgs;
use crate::runtime::{DeviceSlot, Runtime};
use parking_lot::Mutex;
use std::collections::HashSet;

/// What the mapping of one argument of a construct found on other devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The argument's index in the construct's map arguments.
    pub arg: usize,
    /// Its host address.
    pub host: usize,
    /// Whether it is a pointer (a zero-length section) rather than a section of bytes.
    pub pointer: bool,
    /// A device that maps it.
    pub holder: usize,
    /// The holder's entry: its host range and clang's name string of the map that created it
    /// (0 without one).
    pub held: (usize, usize, usize),
}

/// The arguments of a construct about to run on `slot` that are not mapped there while
/// another device maps them: pointers (zero-length sections) that would receive their host
/// value, and sections that would be mapped anew from the host while another device holds an
/// overlapping mapping. Empty when the runtime has one device, under unified shared memory, and
/// for memory the device reaches anyway (memory spaces). `pointers_only`: sections are not
/// looked at (a plain construct's own copy of a section is OpenMP's meaning, not a mistake).
pub fn elsewhere(
    rt: &Runtime,
    slot: &DeviceSlot,
    args: &MapArgs,
    pointers_only: bool,
) -> Vec<Finding> {
    if rt.num_devices() < 2 || rt.usm() || slot.dev.uses_host_memory() || args.is_empty() {
        return Vec::new();
    }
    let pointer_arg = |i: usize| {
        args.sizes[i] == 0
            && args.types[i] & (map::TARGET_PARAM | map::LITERAL) == map::TARGET_PARAM
    };
    if pointers_only && !(0..args.len()).any(pointer_arg) {
        // Most constructs: nothing to look up, the table is not even locked.
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut absent: Vec<(usize, usize, bool)> = Vec::new();
    {
        let table = slot.table.lock();
        for i in 0..args.len() {
            let ty = args.types[i];
            let odd = map::LITERAL
                | map::PRIVATE
                | map::NON_CONTIG
                | map::MEMBER_OF
                | map::RETURN_PARAM
                | map::PTR_AND_OBJ;
            if ty & odd != 0 || args.mapper(i) != 0 {
                continue;
            }
            let Ok(size) = usize::try_from(args.sizes[i]) else {
                continue;
            };
            let pointer = size == 0;
            // A `present` section maps nothing: absent, it is the construct's own error.
            if (pointer && ty & map::TARGET_PARAM == 0)
                || (!pointer && (pointers_only || ty & map::PRESENT != 0))
            {
                continue;
            }
            let begin = args.begins[i];
            if begin == 0 {
                continue;
            }
            let l = table.lookup(begin, size);
            // A pointer found anywhere in an entry, a section that overlaps one: either is
            // the device's own business (a partial overlap is libomptarget's error).
            if l.entry.is_some() && (pointer || l.is_present(false)) {
                continue;
            }
            absent.push((i, size, pointer));
        }
    }
    for (i, size, pointer) in absent {
        let begin = args.begins[i];
        if crate::runtime::hooks::accessible(slot.id, begin, size.max(1)) {
            continue;
        }
        for other in rt.devices.iter().filter(|d| d.id != slot.id) {
            let table = other.table.lock();
            let l = table.lookup(begin, size);
            let held = l
                .entry
                .filter(|_| pointer || l.is_present(false))
                .and_then(|k| table.get(k))
                .filter(|e| e.total_refs() > 0);
            if let Some(e) = held {
                found.push(Finding {
                    arg: i,
                    host: begin,
                    pointer,
                    holder: other.id,
                    held: (e.host_begin, e.size(), e.name),
                });
                break;
            }
        }
    }
    found
}

/// The variable of argument `i` (`'f'`), or how to get its name.
pub fn variable(args: &MapArgs, i: usize) -> String {
    match crate::info::var_name(args.name(i)).as_str() {
        "unknown" => format!("argument {i} (compile with -g for variable names)"),
        n => format!("'{n}'"),
    }
}

/// `f[0:n], declared at f.c:9:3` (clang's name string of the map that made the entry), or the
/// holder's host range without a name.
fn holder_mapping(f: &Finding) -> String {
    let (begin, size, name) = f.held;
    crate::info::declared(name)
        .unwrap_or_else(|| format!("{size} bytes at host {}", crate::info::ptr(begin)))
}

/// The error of a spread chunk on `device` whose pointer argument is mapped only elsewhere.
pub fn chunk_error(args: &MapArgs, device: usize, f: &Finding) -> String {
    format!(
        "{} is not mapped on device {device}, but device {} maps it as {}: the chunk would get its host address. Map the data on every device of the construct: `target data spread` (or `target enter data spread`) with ranges that match the chunks, or the chunk's section in this construct's map clauses (docs/porting.md)",
        variable(args, f.arg),
        f.holder,
        holder_mapping(f)
    )
}

/// The warning for a section a spread chunk maps anew on `device` while device `f.holder`
/// holds an overlapping mapping.
pub fn section_warning(args: &MapArgs, device: usize, f: &Finding) -> String {
    let how = if args.types[f.arg] & map::TO != 0 {
        "copied anew from the host to"
    } else {
        "mapped anew on"
    };
    format!(
        "{} is mapped on device {} as {} and {how} device {device}: the two devices hold separate copies, and what one of them writes the other does not see. If the data should be spread, map it with `target data spread` whose chunks match this construct's (same devices, order and chunk size; docs/porting.md)",
        variable(args, f.arg),
        f.holder,
        holder_mapping(f),
    )
}

/// The warning for a plain construct on `device` whose pointer is mapped only elsewhere.
pub fn pointer_warning(args: &MapArgs, device: usize, f: &Finding) -> String {
    format!(
        "{} is not mapped on device {device} but device {} maps it as {}: the region gets its host address (OpenMP's meaning; on a GPU that address faults)",
        variable(args, f.arg),
        f.holder,
        holder_mapping(f)
    )
}

/// Whether the warning for (`site`, argument `arg`) is printed for the first time: each is
/// printed once per process. (Called only when there is something to warn about.)
pub fn first_time(site: String, arg: usize) -> bool {
    static SEEN: Mutex<Option<HashSet<(String, usize)>>> = Mutex::new(None);
    SEEN.lock()
        .get_or_insert_with(HashSet::new)
        .insert((site, arg))
}

/// What a kernel argument points into that a GPU in the host device's place could not reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// The argument's index in the construct's map arguments.
    pub arg: usize,
    /// The address it passes.
    pub addr: usize,
    /// What that memory is.
    pub what: String,
}

/// `SPREAD_STRICT`: the first argument of a kernel about to run on host device `slot` whose
/// address lies in memory only another device reaches: another device's `omp_target_alloc`
/// block, or memory of a Spread memory space `slot` is not in. On a GPU either faults; a host
/// device reaches all of the host's memory, so the kernel would work there and nowhere else.
/// Pointers passed by value (`is_device_ptr`, firstprivate pointers) and unmapped pointers
/// (their host value) are looked at; mapped data is the device's own.
pub fn unreachable(rt: &Runtime, slot: &DeviceSlot, args: &MapArgs) -> Option<Unreachable> {
    if !slot.dev.host_addressable() || rt.usm() {
        return None;
    }
    let table = slot.table.lock();
    let values: Vec<(usize, usize)> = (0..args.len())
        .filter_map(|i| {
            let ty = args.types[i];
            if ty & map::TARGET_PARAM == 0 || args.mapper(i) != 0 {
                return None;
            }
            if ty & map::LITERAL != 0 {
                return (args.sizes[i] == 8).then_some((i, args.bases[i]));
            }
            let pointer = args.sizes[i] == 0 && ty & (map::PRIVATE | map::PTR_AND_OBJ) == 0;
            (pointer && table.lookup(args.begins[i], 0).entry.is_none())
                .then_some((i, args.begins[i]))
        })
        .filter(|&(_, v)| v != 0)
        .collect();
    drop(table);
    for (arg, addr) in values {
        for other in rt.devices.iter().filter(|d| d.id != slot.id) {
            let held = other
                .allocations
                .lock()
                .range(..=addr)
                .next_back()
                .filter(|(&b, &(_, len))| addr < b + len.max(1))
                .map(|(&b, &(_, len))| (b, len));
            if let Some((b, len)) = held {
                return Some(Unreachable {
                    arg,
                    addr,
                    what: format!(
                        "device {}'s own memory (omp_target_alloc block [{}+{len}))",
                        other.id,
                        crate::info::ptr(b)
                    ),
                });
            }
        }
        if let Some(a) = crate::memory::allocator::containing(addr, 0) {
            let space = crate::memory::allocator::lookup(a.allocator).map(|al| al.space);
            if let Some(sp) = space.filter(|sp| !sp.accessors.devices.contains(&slot.id)) {
                return Some(Unreachable {
                    arg,
                    addr,
                    what: format!(
                        "memory of a space of devices {:?} (omp_alloc from allocator {:#x}), which device {} is not in",
                        sp.accessors.devices, a.allocator, slot.id
                    ),
                });
            }
        }
    }
    None
}

/// The error of [`unreachable`]'s finding for the construct `what` on `device`.
pub fn unreachable_error(args: &MapArgs, device: usize, what: &str, u: &Unreachable) -> String {
    format!(
        "SPREAD_STRICT: {what} on host device {device} uses {} through {}: it is {}; a GPU in host device {device}'s place could not reach it (map the data, or allocate it where the device reaches it)",
        crate::info::ptr(u.addr),
        variable(args, u.arg),
        u.what
    )
}
