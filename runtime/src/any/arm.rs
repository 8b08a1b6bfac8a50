//! The map arguments of an instance's arm that runs asynchronously (`__spread_any_async`).
//!
//! The lowering makes every variable of the construct that is not a map item (or a reduction
//! variable) firstprivate in the instance's task, and the arm's `target` maps an aggregate it
//! names implicitly (`tofrom`) from there: from the task's private data, which libomp frees when
//! the task ends. A synchronous arm is done by then. An asynchronous one is not: its copies run
//! later on the device's stream (a host device's executor, a GPU's queue), the host share runs
//! the kernel on that memory in place, and the copy back writes into it after it was freed, so
//! an instance read another instance's values or garbage (`test-suite/any/task_locals.c`). Such
//! an item is made `firstprivate` for the arm: its value is copied at the launch into memory the
//! stream owns, and nothing is copied back, as for the task's own copy, which ends with the task.
//!
//! Which implicit items are the task's: those whose data is not in a loaded object (a global or a
//! static variable is, and stays mapped as written). Explicit map items, pointers (attached or
//! zero-length), literals, members, items with a mapper and empty items are left as they are.

use crate::abi::map;
use crate::runtime::mapping::MapArgs;

/// Makes the arm's implicit aggregates that live outside every loaded object firstprivate (see
/// the module); `in_object` tells whether an address belongs to a loaded object. The number of
/// items changed.
pub fn privatize_task_data(args: &mut MapArgs, in_object: impl Fn(usize) -> bool) -> usize {
    let n = args.len();
    let mut changed = 0;
    for i in 0..n {
        let ty = args.types[i];
        if ty & map::IMPLICIT == 0
            || ty & map::TARGET_PARAM == 0
            || !args.is_plain_section(i)
            || (i + 1..n).any(|j| map::parent_index(args.types[j]) == Some(i))
            || in_object(args.begins[i])
        {
            continue;
        }
        args.types[i] = map::TARGET_PARAM | map::IMPLICIT | map::PRIVATE | map::TO;
        changed += 1;
    }
    changed
}

/// [`privatize_task_data`] with the process's loaded objects.
pub fn privatize_task_data_here(args: &mut MapArgs) -> usize {
    privatize_task_data(args, |addr| crate::sys::dl::object_base(addr).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMPLICIT_TOFROM: i64 = map::TARGET_PARAM | map::IMPLICIT | map::TO | map::FROM;
    const FIRSTPRIVATE: i64 = map::TARGET_PARAM | map::IMPLICIT | map::PRIVATE | map::TO;

    fn args(items: &[(usize, i64, i64)]) -> MapArgs {
        MapArgs {
            bases: items.iter().map(|i| i.0).collect(),
            begins: items.iter().map(|i| i.0).collect(),
            sizes: items.iter().map(|i| i.1).collect(),
            types: items.iter().map(|i| i.2).collect(),
            names: Default::default(),
            mappers: Default::default(),
            components: Vec::new(),
            dims: Vec::new(),
        }
    }

    /// Addresses below 0x1000 stand for data in a loaded object.
    fn in_object(addr: usize) -> bool {
        addr < 0x1000
    }

    #[test]
    fn implicit_task_data_becomes_firstprivate() {
        let explicit = map::TARGET_PARAM | map::TO | map::FROM;
        let mut a = args(&[
            (0x10_000, 32, IMPLICIT_TOFROM), // a local array of the task: changed
            (0x20_000, 64, explicit),        // a map clause's item: kept
            (0x800, 32, IMPLICIT_TOFROM),    // a global array: kept
            (
                0x30_000,
                8,
                map::TARGET_PARAM | map::LITERAL | map::IMPLICIT,
            ), // a scalar
            (0x40_000, 0, map::TARGET_PARAM | map::IMPLICIT), // a pointer, zero-length
        ]);
        assert_eq!(privatize_task_data(&mut a, in_object), 1);
        assert_eq!(a.types[0], FIRSTPRIVATE);
        assert_eq!(a.types[1], explicit);
        assert_eq!(a.types[2], IMPLICIT_TOFROM);
        assert_eq!(a.types[3], map::TARGET_PARAM | map::LITERAL | map::IMPLICIT);
        assert_eq!(a.types[4], map::TARGET_PARAM | map::IMPLICIT);
    }

    #[test]
    fn structs_with_members_and_attached_pointers_are_left_alone() {
        let member_of_0 = (1i64 << 48) | map::TO | map::FROM | map::IMPLICIT;
        let mut a = args(&[
            (0x10_000, 48, IMPLICIT_TOFROM),
            (0x10_008, 8, member_of_0),
            (0x20_000, 16, IMPLICIT_TOFROM | map::PTR_AND_OBJ),
        ]);
        assert_eq!(privatize_task_data(&mut a, in_object), 0);
        assert_eq!(a.types[0], IMPLICIT_TOFROM);
        assert_eq!(a.types[2], IMPLICIT_TOFROM | map::PTR_AND_OBJ);
    }
}
