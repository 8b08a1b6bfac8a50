//! Calls into compiled code: kernels of host-device images and user-defined mappers.

/// Most parameters a host-device kernel may take, `dyn_ptr` included.
pub const MAX_KERNEL_PARAMS: usize = 128;

/// Calls `$addr` as an `extern "C"` function of as many `usize` parameters as indices are
/// listed, passing `$a[index]` for each.
macro_rules! call_with {
    ($addr:expr, $a:expr; $($i:literal)*) => {{
        // SAFETY: `$addr` is a kernel symbol of an x86_64 image loaded by the host backend, whose
        // parameters are all INTEGER class, so a call with at least as many of them as it
        // declares is sound (see `call_kernel`).
        let f = unsafe {
            std::mem::transmute::<usize, extern "C" fn($(call_with!(@usize $i)),*)>($addr)
        };
        f($($a[$i]),*)
    }};
    (@usize $i:literal) => { usize };
}

/// Calls the kernel at `addr` with `params` (the first being `dyn_ptr`).
///
/// Kernels of x86_64 images take `(void *dyn_ptr, <pointer-sized argument> ...)`, all of the
/// INTEGER class of the System V ABI. Under that ABI the caller also removes the stack arguments,
/// so calling a function with more integer arguments than it declares is harmless: the callee
/// never reads the extra ones. The call therefore goes through the smallest of a few fixed
/// arities that fits, with the extra arguments zero. Returns false when `params` has more than
/// [`MAX_KERNEL_PARAMS`] entries.
pub fn call_kernel(addr: usize, params: &[usize]) -> bool {
    call_prefixed(addr, &[], params)
}

/// Calls an outlined `teams` or `parallel` region of an x86_64 image (a `kmpc_micro`: `(kmp_int32
/// *gtid, kmp_int32 *btid, <pointer-sized argument> ...)`) with `args` after the two thread-number
/// pointers, as libomp's `__kmp_invoke_microtask` would. The same arities as [`call_kernel`];
/// returns false when the arguments do not fit.
pub fn call_microtask(addr: usize, gtid: usize, btid: usize, args: &[usize]) -> bool {
    call_prefixed(addr, &[gtid, btid], args)
}

/// `prefix` then `rest` in an array of `N` arguments, the remainder zero.
fn arguments<const N: usize>(prefix: &[usize], rest: &[usize]) -> [usize; N] {
    let mut a = [0usize; N];
    a[..prefix.len()].copy_from_slice(prefix);
    a[prefix.len()..prefix.len() + rest.len()].copy_from_slice(rest);
    a
}

/// Calls `addr` with `prefix` and `rest` as its integer arguments, through the smallest fixed
/// arity that fits (an array of that size only: a launch does not clear the 128-argument one).
fn call_prefixed(addr: usize, prefix: &[usize], rest: &[usize]) -> bool {
    let len = prefix.len() + rest.len();
    if len > MAX_KERNEL_PARAMS || addr == 0 {
        return false;
    }
    if len <= 8 {
        let a: [usize; 8] = arguments(prefix, rest);
        call_with!(addr, a; 0 1 2 3 4 5 6 7);
    } else if len <= 32 {
        let a: [usize; 32] = arguments(prefix, rest);
        call_with!(addr, a;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        );
    } else {
        let a: [usize; MAX_KERNEL_PARAMS] = arguments(prefix, rest);
        call_with!(addr, a;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62
        63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92
        93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116
        117 118 119 120 121 122 123 124 125 126 127
        );
    }
    true
}

/// Signature of a user-defined mapper function clang generates.
type MapperFn = extern "C" fn(usize, usize, usize, i64, i64, usize);

/// Calls a mapper: `(handle, base, begin, size, type, name)`.
pub fn call_mapper(
    addr: usize,
    handle: usize,
    base: usize,
    begin: usize,
    size: i64,
    ty: i64,
    name: usize,
) {
    // SAFETY: `addr` is an entry of the mapper array clang passed with the map arguments; clang
    // generates mappers with exactly this signature.
    let f = unsafe { std::mem::transmute::<usize, MapperFn>(addr) };
    f(handle, base, begin, size, ty, name)
}
