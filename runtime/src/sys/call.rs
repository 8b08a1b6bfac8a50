//! Calls into compiled code: kernels of host-device images and user-defined mappers.

/// Most parameters a host-device kernel may take, `dyn_ptr` included.
pub const MAX_KERNEL_PARAMS: usize = 128;

/// Calls the kernel at `addr` with `params` (the first being `dyn_ptr`).
///
/// Kernels of x86_64 images take `(void *dyn_ptr, <pointer-sized argument> ...)`, all of the
/// INTEGER class of the System V ABI. Under that ABI the caller also removes the stack arguments,
/// so calling a function with more integer arguments than it declares is harmless: the callee
/// never reads the extra ones. The call therefore goes through the smallest of a few fixed
/// arities that fits, with the extra arguments zero. Returns false when `params` has more than
/// [`MAX_KERNEL_PARAMS`] entries.
pub fn call_kernel(addr: usize, params: &[usize]) -> bool {
    if params.len() > MAX_KERNEL_PARAMS || addr == 0 {
        return false;
    }
    let arity = [8, 32, MAX_KERNEL_PARAMS]
        .into_iter()
        .find(|&n| n >= params.len())
        .unwrap_or(MAX_KERNEL_PARAMS);
    let mut a = [0usize; MAX_KERNEL_PARAMS];
    a[..params.len()].copy_from_slice(params);
    // The transmutes below are sound because `addr` is a kernel symbol of an x86_64 image
    // loaded by the host backend, whose parameters are all INTEGER class (see above).
    match arity {
        8 => {
            // SAFETY: see `call_kernel`.
            let f = unsafe {
                std::mem::transmute::<
                    usize,
                    extern "C" fn(usize, usize, usize, usize, usize, usize, usize, usize),
                >(addr)
            };
            f(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        }
        32 => {
            // SAFETY: see `call_kernel`.
            let f = unsafe {
                std::mem::transmute::<
                    usize,
                    extern "C" fn(
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                    ),
                >(addr)
            };
            f(
                a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
                a[25], a[26], a[27], a[28], a[29], a[30], a[31],
            );
        }
        128 => {
            // SAFETY: see `call_kernel`.
            let f = unsafe {
                std::mem::transmute::<
                    usize,
                    extern "C" fn(
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                        usize,
                    ),
                >(addr)
            };
            f(
                a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
                a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36],
                a[37], a[38], a[39], a[40], a[41], a[42], a[43], a[44], a[45], a[46], a[47], a[48],
                a[49], a[50], a[51], a[52], a[53], a[54], a[55], a[56], a[57], a[58], a[59], a[60],
                a[61], a[62], a[63], a[64], a[65], a[66], a[67], a[68], a[69], a[70], a[71], a[72],
                a[73], a[74], a[75], a[76], a[77], a[78], a[79], a[80], a[81], a[82], a[83], a[84],
                a[85], a[86], a[87], a[88], a[89], a[90], a[91], a[92], a[93], a[94], a[95], a[96],
                a[97], a[98], a[99], a[100], a[101], a[102], a[103], a[104], a[105], a[106],
                a[107], a[108], a[109], a[110], a[111], a[112], a[113], a[114], a[115], a[116],
                a[117], a[118], a[119], a[120], a[121], a[122], a[123], a[124], a[125], a[126],
                a[127],
            );
        }
        _ => return false,
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
