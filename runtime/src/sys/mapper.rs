//! The component list a user-defined mapper fills through `__tgt_push_mapper_component`.
//!
//! The list is laid out like a `std::vector<MapComponentInfoTy>` (begin, end, capacity-end
//! pointers to 40-byte components), which is what programs and LLVM's own tests that call the
//! mapper API directly pass as the handle.

/// One pushed component (`MapComponentInfoTy`): a map-clause entry the mapper produced.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Component {
    /// Base address.
    pub base: usize,
    /// First byte mapped.
    pub begin: usize,
    /// Bytes mapped.
    pub size: i64,
    /// Map-type bits.
    pub ty: i64,
    /// The entry's name (clang's `;name;file;line;col;;` string), 0 without one.
    pub name: usize,
}

/// A `std::vector`-shaped list of components.
#[repr(C)]
struct ComponentList {
    begin: *mut Component,
    end: *mut Component,
    cap: *mut Component,
}

const _: () = assert!(std::mem::size_of::<Component>() == 40);

impl ComponentList {
    fn len(&self) -> usize {
        if self.begin.is_null() {
            return 0;
        }
        (self.end as usize - self.begin as usize) / std::mem::size_of::<Component>()
    }

    fn push(&mut self, c: Component) {
        let len = self.len();
        let cap = if self.begin.is_null() {
            0
        } else {
            (self.cap as usize - self.begin as usize) / std::mem::size_of::<Component>()
        };
        if len == cap {
            let new_cap = (cap * 2).max(4);
            // SAFETY: `begin` is null or a buffer this module (or a std::vector, whose allocator
            // is malloc on glibc) allocated; realloc keeps the first `len` components.
            let p = unsafe {
                libc::realloc(
                    self.begin.cast(),
                    new_cap * std::mem::size_of::<Component>(),
                )
            };
            if p.is_null() {
                eprintln!("spread: out of memory while collecting mapper components");
                std::process::abort();
            }
            self.begin = p.cast();
            // SAFETY: both offsets stay inside the new allocation of `new_cap` components.
            unsafe {
                self.end = self.begin.add(len);
                self.cap = self.begin.add(new_cap);
            }
        }
        // SAFETY: `end` points at spare capacity of the buffer (len < cap here).
        unsafe {
            self.end.write(c);
            self.end = self.end.add(1);
        }
    }

    fn components(&self) -> Vec<Component> {
        if self.begin.is_null() {
            return Vec::new();
        }
        // SAFETY: `begin..end` holds `len` initialised components pushed above.
        unsafe { std::slice::from_raw_parts(self.begin, self.len()) }.to_vec()
    }
}

/// Calls a mapper and returns the components it pushed.
pub fn collect(
    mapper: usize,
    base: usize,
    begin: usize,
    size: i64,
    ty: i64,
    name: usize,
) -> Vec<Component> {
    let mut list = ComponentList {
        begin: std::ptr::null_mut(),
        end: std::ptr::null_mut(),
        cap: std::ptr::null_mut(),
    };
    crate::sys::call::call_mapper(
        mapper,
        &mut list as *mut ComponentList as usize,
        base,
        begin,
        size,
        ty,
        name,
    );
    let comps = list.components();
    // SAFETY: the buffer was allocated by `push` with realloc and is not used after this.
    unsafe { libc::free(list.begin.cast()) };
    comps
}

/// `__tgt_mapper_num_components`.
pub fn count(handle: usize) -> i64 {
    // SAFETY: `handle` is a ComponentList-shaped object: ours (see `collect`) or a
    // std::vector<MapComponentInfoTy> of the program, alive during the call.
    unsafe { (handle as *const ComponentList).as_ref() }.map_or(0, |l| l.len() as i64)
}

/// `__tgt_push_mapper_component`.
pub fn push(handle: usize, base: usize, begin: usize, size: i64, ty: i64, name: usize) {
    // SAFETY: as for `count`; the mapper runs on the thread that owns the list.
    if let Some(l) = unsafe { (handle as *mut ComponentList).as_mut() } {
        l.push(Component {
            base,
            begin,
            size,
            ty,
            name,
        });
    }
}
