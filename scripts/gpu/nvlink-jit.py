#!/usr/bin/env python3
"""A stand-in for CUDA's `nvlink` that links with libnvJitLink (CUDA 12.x, from PyPI).

Used by `scripts/gpu-pack.sh --cuda12`: PyPI's CUDA 12 wheels carry ptxas and libdevice but no
nvlink, and CUDA 13's nvlink rewrites every cubin in the ELF ABI 8 encoding that LLVM 19's
CUDA plugin misreads. clang-nvlink-wrapper (LLVM 19) calls it as
    nvlink -o OUT -arch sm_NN [-L DIR]... [-v] INPUT.cubin...

usage: nvlink-jit.py --nvjitlink PATH/libnvJitLink.so.12 [nvlink arguments]
"""
import ctypes
import sys

INPUT_ANY = 10  # nvJitLinkInputType NVJITLINK_INPUT_ANY


def main(argv):
    lib = None
    out = None
    arch = None
    inputs = []
    verbose = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--nvjitlink":
            lib, i = argv[i + 1], i + 2
            continue
        if a == "-o":
            out, i = argv[i + 1], i + 2
            continue
        if a in ("-arch", "--arch"):
            arch, i = argv[i + 1], i + 2
            continue
        if a.startswith(("-arch=", "--arch=")):
            arch, i = a.split("=", 1)[1], i + 1
            continue
        if a in ("-L", "-l"):
            i += 2
            continue
        if a == "-v":
            verbose, i = True, i + 1
            continue
        if a.startswith("-"):
            i += 1          # -g, -O3, ...: nothing to do for a final link of cubins
            continue
        inputs.append(a)
        i += 1
    if not (lib and out and arch and inputs):
        print("nvlink-jit: need --nvjitlink, -o, -arch and inputs", file=sys.stderr)
        return 1
    nv = ctypes.CDLL(lib)
    ver = None
    for minor in range(9, -1, -1):          # the newest entry points this library has
        if hasattr(nv, "__nvJitLinkCreate_12_%d" % minor):
            ver = "12_%d" % minor
            break
    if ver is None:
        print("nvlink-jit: %s has no nvJitLink 12 entry points" % lib, file=sys.stderr)
        return 1
    f = lambda n: getattr(nv, "__nvJitLink%s_%s" % (n, ver))  # noqa: E731
    h = ctypes.c_void_p()
    opts = (ctypes.c_char_p * 1)(("-arch=" + arch).encode())
    r = f("Create")(ctypes.byref(h), 1, opts)
    if r != 0:
        print("nvlink-jit: nvJitLinkCreate failed (%d)" % r, file=sys.stderr)
        return 1

    def log_and_fail(what, r):
        n = ctypes.c_size_t(0)
        f("GetErrorLogSize")(h, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value + 1)
        f("GetErrorLog")(h, buf)
        print("nvlink-jit: %s failed (%d): %s" % (what, r, buf.value.decode(errors="replace")),
              file=sys.stderr)
        return 1

    for p in inputs:
        r = f("AddFile")(h, INPUT_ANY, p.encode())
        if r != 0:
            return log_and_fail("adding " + p, r)
    r = f("Complete")(h)
    if r != 0:
        return log_and_fail("linking", r)
    n = ctypes.c_size_t(0)
    f("GetLinkedCubinSize")(h, ctypes.byref(n))
    buf = ctypes.create_string_buffer(n.value)
    r = f("GetLinkedCubin")(h, buf)
    if r != 0:
        return log_and_fail("getting the cubin", r)
    with open(out, "wb") as o:
        o.write(buf.raw[:n.value])
    if verbose:
        print("nvlink-jit: %s (%d bytes) from %s" % (out, n.value, " ".join(inputs)),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
