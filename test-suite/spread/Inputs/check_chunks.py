#!/usr/bin/env python3
"""Checks SPREAD_INFO=chunks output: for every construct line the program announced on stdout
as `range LINE LO HI`, the chunks printed on stderr (`spread: FILE:LINE chunk [LO,HI) -> device
D`) cover [LO, HI) with every iteration in exactly one chunk. Exit status 1 with the reason
otherwise. Usage: check_chunks.py STDOUT STDERR"""
import re
import sys

out, err = (open(p).read() for p in sys.argv[1:3])
ranges = {}
for m in re.finditer(r"^range (\d+) (-?\d+) (-?\d+)$", out, re.M):
    ranges.setdefault(int(m.group(1)), []).append((int(m.group(2)), int(m.group(3))))
chunks = {}
for m in re.finditer(r"^spread: .*:(\d+) chunk \[(-?\d+),(-?\d+)\) -> device (-?\d+)(?: \(\w+\))?$", err, re.M):
    chunks.setdefault(int(m.group(1)), []).append((int(m.group(2)), int(m.group(3))))
bad = 0
if not ranges:
    print("FAIL: the program announced no range")
    bad = 1
for line, rs in ranges.items():
    # a construct run several times: its chunks are checked against the sum of its runs
    want = {}
    for lo, hi in rs:
        for i in range(lo, hi):
            want[i] = want.get(i, 0) + 1
    got = {}
    for lo, hi in chunks.get(line, []):
        if hi <= lo:
            print("FAIL: line %d: empty chunk [%d,%d)" % (line, lo, hi))
            bad = 1
        for i in range(lo, hi):
            got[i] = got.get(i, 0) + 1
    if got != want:
        missing = sorted(i for i in want if got.get(i, 0) < want[i])[:5]
        extra = sorted(i for i in got if got[i] > want.get(i, 0))[:5]
        print("FAIL: line %d: iterations missing %s, in more than one chunk or outside %s"
              % (line, missing, extra))
        bad = 1
    else:
        print("line %d: %d iterations in %d chunks ok" % (line, len(want), len(chunks.get(line, []))))
sys.exit(bad)
