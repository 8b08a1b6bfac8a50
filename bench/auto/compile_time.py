#!/usr/bin/env python3
"""Compile time with Spread's pass plugin against plain clang, over the HeCBench corpus.

Issue 44 bounds it at 1.03x. The build commands come from a finished scripts/auto-corpus.sh run
(each program's progs/<name>/build-{plain,plug}.log starts each command with "# cd DIR && ").
Each program's plain build and its plugin build (without -Rpass: users building with the plugin
need not print remarks) are re-run from the program's source folder, REPS times, alternating
which goes first; the ratio of their summed times is printed per program, with the geometric
mean over the programs that build both ways. The baseline is the plain build measured in the
same run.

Usage: bench/auto/compile_time.py CORPUS_RUN_DIR [--reps N] [--plugin PATH] [--corpus DIR]
  CORPUS_RUN_DIR  a scripts/auto-corpus.sh --out folder (its build logs)
  --reps N        builds of each kind per program (default 1)
  --plugin PATH   the plugin to measure (default target/release/libspread_pass.so)
  --corpus DIR    HeCBench's src folder (default ../shared/conformance/hecbench/src)
"""
import argparse
import glob
import math
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def commands(log, src, plugin, out):
    """The build commands of one log, rewritten to run from the corpus source folder."""
    cmds = []
    with open(log) as f:
        for line in f:
            m = re.match(r"# cd (\S+) && (.*)", line.strip())
            if not m:
                continue
            folder = re.sub(r".*/build-(plain|plug)/", src + "/", m.group(1))
            cmd = re.sub(r"-fpass-plugin=\S+", "-fpass-plugin=" + plugin, m.group(2))
            cmd = re.sub(r" -Rpass(-missed)?=spread-auto", "", cmd)
            cmd = re.sub(r"-o \S+", "-o " + out, cmd)
            cmds.append((folder, cmd))
    return cmds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--plugin", default=os.path.join(ROOT, "target/release/libspread_pass.so"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "../shared/conformance/hecbench/src"))
    a = ap.parse_args()
    src = os.path.realpath(a.corpus)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, prog in enumerate(sorted(glob.glob(os.path.join(a.run, "progs", "*")))):
            name = os.path.basename(prog)
            try:
                builds = {
                    kind: commands(os.path.join(prog, f"build-{kind}.log"), src, a.plugin,
                                   os.path.join(tmp, f"{name}.{kind}"))
                    for kind in ("plain", "plug")
                }
            except OSError:
                continue
            if not builds["plain"] or not builds["plug"]:
                continue
            spent = {"plain": 0.0, "plug": 0.0}
            ok = True
            for r in range(a.reps):
                kinds = ("plain", "plug") if (i + r) % 2 == 0 else ("plug", "plain")
                for kind in kinds:
                    for folder, cmd in builds[kind]:
                        t0 = time.perf_counter()
                        p = subprocess.run(cmd, shell=True, cwd=folder, capture_output=True)
                        spent[kind] += time.perf_counter() - t0
                        ok = ok and p.returncode == 0
            if not ok:
                print(f"{name}\tbuild failed, left out", flush=True)
                continue
            ratios.append(spent["plug"] / spent["plain"])
            print(f"{name}\tplain {spent['plain'] / a.reps:.2f} s\tplugin {spent['plug'] / a.reps:.2f} s"
                  f"\t{ratios[-1]:.3f}x", flush=True)
    if ratios:
        g = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{len(ratios)} programs: plugin build / plain build, geometric mean {g:.3f}x, "
              f"largest {max(ratios):.3f}x")


if __name__ == "__main__":
    main()
