#!/usr/bin/env python3
"""Lists the CUDA cubins (ELF, e_machine 190) embedded in files, with their ELF encoding.

CUDA 13's ptxas/nvlink write ELF ABI version 8 cubins, which keep the SM in e_flags bits 8..15;
CUDA 12's write ABI version 7 with the SM in bits 0..7. LLVM 19's CUDA plugin reads
e_flags & 0xff, so it sees an sm_90 ABI 8 cubin as sm_4 (docs/gpu.md).

usage: cubins.py [--summary] FILE...
"""
import struct
import sys


def cubins(data):
    i = 0
    while True:
        i = data.find(b"\x7fELF", i)
        if i < 0:
            return
        if len(data) >= i + 64 and data[i + 4] == 2:
            mach, = struct.unpack_from("<H", data, i + 18)
            if mach == 190:
                flags, = struct.unpack_from("<I", data, i + 48)
                yield i, data[i + 8], flags
        i += 4


def sm(abiv, flags):
    return (flags >> 8) & 0xff if abiv >= 8 else flags & 0xff


def main(argv):
    summary = bool(argv) and argv[0] == "--summary"
    files = argv[1:] if summary else argv
    kinds = {}
    for p in files:
        try:
            data = open(p, "rb").read()
        except OSError:
            continue
        for off, abiv, flags in cubins(data):
            kinds.setdefault((abiv, sm(abiv, flags), flags & 0xff), []).append(p)
            if not summary:
                print("%s: cubin at %d: ELF ABI v%d, e_flags 0x%x: sm_%d (LLVM 19 reads sm_%d)"
                      % (p, off, abiv, flags, sm(abiv, flags), flags & 0xff))
    if summary:
        if not kinds:
            print("no cubins found")
        for (abiv, s, low), ps in sorted(kinds.items()):
            print("ELF ABI v%d sm_%d (LLVM 19 reads sm_%d) in %d file(s);" % (abiv, s, low, len(ps)),
                  end=" ")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
