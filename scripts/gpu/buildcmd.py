#!/usr/bin/env python3
"""The build command of a test-suite/gpu program, turned into one for the GPU pack.

Each program in test-suite/gpu/ is a standalone, self-checking C or C++ file whose first lines
(the first 30) say how to build it, in a comment:

    // BUILD: clang-19 -O2 -fopenmp --offload-arch=sm_90 %s -o %t
    // ARGS: --n 1000          (optional: arguments for the run)
    // TIMEOUT: 120            (optional: seconds, default 120)

Without a BUILD: line the first comment line that starts with a compiler name (clang-19,
clang++-19, clang, clang++, spread-cc, spread-c++, $CC, %clang, %clangxx) is taken. In the
command: %s, $SRC and the file's own name are the source, %t and $OUT the output (a -o is added
when there is none). The compiler becomes clang-19 / clang++-19 / the repository's spread-cc;
the GPU arch is forced to --arch, and when no offload target is given the fat-binary flags
(nvptx64 + x86_64 images) are added, as is --cuda-path.

Usage: buildcmd.py SRC OUT --arch sm_90 --cuda DIR --repo DIR   -> prints
  "cmd\t<shell command>", "args\t<run arguments>", "timeout\t<seconds>"
"""

import argparse
import os
import re
import shlex
import sys

COMPILERS = {
    "clang-19": "clang-19", "clang": "clang-19", "%clang": "clang-19", "$CC": "clang-19",
    "${CC}": "clang-19", "cc": "clang-19",
    "clang++-19": "clang++-19", "clang++": "clang++-19", "%clangxx": "clang++-19",
    "$CXX": "clang++-19", "${CXX}": "clang++-19",
    "spread-cc": "@spread-cc", "spread-c++": "@spread-c++",
}


def comment_text(line):
    s = line.strip()
    for p in ("///", "//", "/*", "*"):
        if s.startswith(p):
            s = s[len(p):]
            break
    else:
        return None
    if s.endswith("*/"):
        s = s[:-2]
    return s.strip()


def parse(path):
    build = args = None
    timeout = 120
    first_cc = None
    with open(path, errors="replace") as f:
        for i, line in enumerate(f):
            if i >= 30:
                break
            t = comment_text(line)
            if t is None:
                continue
            m = re.match(r"(?i)(build|compile|args|run-args|timeout)\s*:\s*(.*)$", t)
            if m:
                k, v = m.group(1).lower(), m.group(2).strip()
                if k in ("build", "compile") and build is None:
                    build = v
                elif k in ("args", "run-args"):
                    args = v
                elif k == "timeout" and v.isdigit():
                    timeout = int(v)
                continue
            w = t.split()
            if w and first_cc is None and w[0] in COMPILERS:
                first_cc = t
    return build or first_cc, args or "", timeout


def convert(cmd, src, out, arch, cuda, repo):
    words = shlex.split(cmd)
    if not words or words[0] not in COMPILERS:
        raise ValueError("the build command does not start with a known compiler: %r" % cmd)
    cc = COMPILERS[words[0]]
    if cc.startswith("@"):
        cc = os.path.join(repo, "target", "release", cc[1:])
    rest = []
    base = os.path.basename(src)
    skip = False
    has_o = False
    for i, w in enumerate(words[1:]):
        if skip:
            skip = False
            rest.append(out)
            continue
        if w == "-o":
            has_o = True
            skip = True
            rest.append(w)
            continue
        if w.startswith("-o") and len(w) > 2 and not w.startswith("-offload"):
            has_o = True
            rest.append("-o" + out)
            continue
        w = w.replace("%s", src).replace("${SRC}", src).replace("$SRC", src)
        w = w.replace("%t", out).replace("${OUT}", out).replace("$OUT", out)
        if w == base or w == "./" + base:
            w = src
        w = re.sub(r"^(-march=|--offload-arch=|--cuda-gpu-arch=)sm_\w+$", r"\g<1>" + arch, w)
        rest.append(w)
    if not has_o:
        rest += ["-o", out]
    joined = " ".join(rest)
    if "-fopenmp" not in joined and "spread-c" not in cc:
        rest.insert(0, "-fopenmp")
    if "-fopenmp-targets=" not in joined and "--offload-arch" not in joined:
        rest = ["-fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu",
                "-Xopenmp-target=nvptx64-nvidia-cuda", "-march=" + arch] + rest
    elif "-fopenmp-targets=" in joined and "nvptx" in joined and "-march=" not in joined \
            and "--offload-arch" not in joined:
        rest = ["-Xopenmp-target=nvptx64-nvidia-cuda", "-march=" + arch] + rest
    if "--cuda-path" not in joined:
        rest.append("--cuda-path=" + cuda)
    return " ".join(shlex.quote(x) for x in [cc] + rest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--cuda", required=True)
    ap.add_argument("--repo", required=True)
    a = ap.parse_args()
    cmd, args, timeout = parse(a.src)
    if not cmd:
        print("buildcmd: %s: no build command in its first 30 lines (want '// BUILD: ...')"
              % a.src, file=sys.stderr)
        return 1
    try:
        c = convert(cmd, os.path.abspath(a.src), os.path.abspath(a.out), a.arch, a.cuda, a.repo)
    except ValueError as e:
        print("buildcmd: %s: %s" % (a.src, e), file=sys.stderr)
        return 1
    print("cmd\t" + c)
    print("args\t" + args)
    print("timeout\t%d" % timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
