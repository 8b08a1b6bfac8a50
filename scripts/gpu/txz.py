#!/usr/bin/env python3
"""Writes DIR's contents as OUT.tar.xz (python's lzma: no xz-utils needed).

usage: txz.py OUT.tar.xz DIR
"""
import os
import sys
import tarfile


def reset(ti):
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    return ti


def main(out, src):
    tmp = out + ".tmp"
    with tarfile.open(tmp, "w:xz", preset=6) as t:
        for name in sorted(os.listdir(src)):
            t.add(os.path.join(src, name), arcname=name, filter=reset)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
