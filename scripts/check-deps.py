#!/usr/bin/env python3
"""Checks that every tool, library and header Spread's build, demo and tests use comes from a
Debian package that scripts/setup.sh installs (the list in scripts/packages.sh), from one of
those packages' hard dependencies (Depends/Pre-Depends, recursively), or from the base system
(Essential or Priority: required packages), so that a missing install step shows up on any
machine, not only on a fresh one.

What is checked:
  * the commands the scripts and lit tests run (TOOLS below), resolved on PATH;
  * every program and file clang-19 runs or reads for the compile modes Spread uses (from
    `clang -###`: clang-offload-packager, clang-linker-wrapper, the linker, the device runtime
    libraries, ...), with the nvptx64 mode (spread-cc --offload-arch) when a CUDA toolkit is
    there (scripts/setup.sh --cuda, which the test command runs);
  * Debian's pip (python3-pip), which setup.sh uses for lit and the CUDA wheels;
  * the shared libraries of those programs, of Spread's own build outputs and of a compiled
    offload program (ldd), and the headers such a program includes (clang -M);
  * with MPI (mpicc or mpirun on PATH, or the MPI plugin built; scripts/setup.sh --mpi, which
    the test command runs): the packages of MPI_PACKAGES in scripts/packages.sh are allowed
    and must be installed, and mpirun, mpicc, what `mpicc -show` names (the compiler, mpi.h,
    the libmpi.so link name the plugin's build uses) and the shared libraries of
    target/release/libspread_remote_mpi.so (libmpi and what it loads) must come from them.
A file outside Debian's packages is accepted only in the Rust toolchain ($CARGO_HOME,
$RUSTUP_HOME), the repository's own build tree, Python's site directories (lit, from PyPI) or
the CUDA toolkit spread-cc uses (NVIDIA's wheels, from PyPI);
a command found elsewhere first on PATH (a pyenv python3, say) must also be provided under
/usr/bin by an allowed package.

Usage: check-deps.py [-v]
Environment: SPREAD_DEPS_DROP=pkg[,pkg...] checks as if those packages were not in the list
(the test command uses it to show that the check fails when a package is missing).
Exit status 0 when everything is provided, 1 otherwise (each problem on its own line).
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_DIR = os.environ.get("LLVM_DIR", "/usr/lib/llvm-19")
LLVM_BIN = os.path.join(LLVM_DIR, "bin")
OFFLOAD = ["-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu"]

# Commands the scripts (setup, build, demo, test, install, bench) and the lit tests run by name.
TOOLS = [
    "clang-19", "clang++-19", "cmake", "make", "c++", "cc", "python3", "ldd", "dpkg-query",
    "apt-cache", "awk", "sed", "grep", "env", "timeout", "readlink", "install", "ln", "valgrind",
    os.path.join(LLVM_BIN, "FileCheck"), os.path.join(LLVM_BIN, "not"),
    os.path.join(LLVM_BIN, "opt"), os.path.join(LLVM_BIN, "llvm-readelf"),
    os.path.join(LLVM_BIN, "llvm-nm"), os.path.join(LLVM_BIN, "llvm-config"),
    os.path.join(LLVM_BIN, "llvm-objdump"),
]
# Libraries loaded by name at run time (dlopen), not visible to ldd.
RUNTIME_FILES = [
    os.path.join(LLVM_DIR, "lib", "libomptarget.so.19.1"),
    os.path.join(LLVM_DIR, "lib", "libomp.so.5"),
]
# Files setup.sh uses that no command line shows: Debian's pip module.
SETUP_FILES = ["/usr/lib/python3/dist-packages/pip/__init__.py"]
# clang-linker-wrapper runs it for nvptx64 images (not visible in `clang -###`).
NVPTX_TOOLS = [os.path.join(LLVM_BIN, "clang-nvlink-wrapper")]
# Spread's build outputs whose libraries must be provided.
BUILT = ["target/release/libspread_rt.so", "target/release/libspread_pass.so",
         "target/release/spread-cc", "target/release/spread-info"]
# With MPI: the commands the MPI plugin's build and the MPI tests run, and the plugin.
MPI_TOOLS = ["mpirun", "mpicc"]
MPI_BUILT = "target/release/libspread_remote_mpi.so"

verbose = "-v" in sys.argv[1:]


def log(msg):
    if verbose:
        print("check-deps: " + msg)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def with_mpi():
    """Whether this machine builds and runs Spread's MPI plugin (scripts/build.sh builds it when
    mpicc is on PATH)."""
    return bool(shutil.which("mpicc") or shutil.which("mpirun")
                or os.path.exists(os.path.join(REPO, MPI_BUILT)))


def apt_packages(mpi):
    arrays = '"${APT_PACKAGES[@]}"' + (' "${MPI_PACKAGES[@]}"' if mpi else "")
    out = run(["bash", "-c", '. "$1"; printf "%s\\n" ' + arrays, "-",
               os.path.join(REPO, "scripts", "packages.sh")])
    pkgs = [p for p in out.stdout.split() if p]
    drop = {p for p in os.environ.get("SPREAD_DEPS_DROP", "").split(",") if p}
    return [p for p in pkgs if p not in drop], drop


def mpi_files():
    """What the MPI plugin's build reads through `mpicc -show` (as the mpi crate's build script
    does): the compiler it names, mpi.h in its -I directories and the libraries its -l flags
    name in its -L directories."""
    files = set()
    problems = []
    out = run(["mpicc", "-show"])
    toks = out.stdout.split()
    if out.returncode != 0 or not toks:
        return files, ["`mpicc -show` failed: %s" % out.stderr.strip()[-300:]]
    compiler = shutil.which(toks[0])
    if compiler:
        files.add(compiler)
    else:
        problems.append("the compiler of `mpicc -show`, %s, is not found" % toks[0])
    incdirs = [t[2:] for t in toks if t.startswith("-I")]
    header = [os.path.join(d, "mpi.h") for d in incdirs if os.path.isfile(os.path.join(d, "mpi.h"))]
    if header:
        files.add(header[0])
    else:
        problems.append("mpi.h is in none of `mpicc -show`'s directories %s" % incdirs)
    libdirs = [t[2:] for t in toks if t.startswith("-L")] + ["/usr/lib/x86_64-linux-gnu",
                                                             "/usr/lib"]
    for lib in (t[2:] for t in toks if t.startswith("-l")):
        found = [os.path.join(d, "lib%s.so" % lib) for d in libdirs
                 if os.path.exists(os.path.join(d, "lib%s.so" % lib))]
        if found:
            files.add(found[0])
        else:
            problems.append("lib%s.so (from `mpicc -show`) is not found" % lib)
    return files, problems


def closure(pkgs):
    """The packages `pkgs` and the base system (Essential or Priority: required packages), with
    their hard dependencies, recursively."""
    base = run(["dpkg-query", "-W", "-f", "${Package} ${Essential} ${Priority}\n"])
    roots = list(pkgs)
    for line in base.stdout.splitlines():
        name, essential, priority = (line.split() + ["", "", ""])[:3]
        if essential == "yes" or priority == "required":
            roots.append(name)
    out = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
               "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
               "--no-enhances"] + roots)
    return {line.strip() for line in out.stdout.splitlines()
            if line and not line.startswith(" ") and not line.startswith("<")}


def owners(paths):
    """Maps each path to the set of packages that own it (empty when none does)."""
    result = {}
    variants = {}
    for p in paths:
        vs = {p, os.path.realpath(p)}
        for v in list(vs):  # usrmerge: /lib and /usr/lib are one directory
            if v.startswith("/usr/"):
                vs.add(v[4:])
            elif v.startswith(("/lib", "/bin", "/sbin")):
                vs.add("/usr" + v)
        variants[p] = vs
    allv = sorted({v for vs in variants.values() for v in vs})
    owned = {}
    for i in range(0, len(allv), 200):
        out = run(["dpkg-query", "-S"] + allv[i:i + 200])
        for line in out.stdout.splitlines():
            if line.startswith("diversion by") or ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            names = {q.strip().split(":")[0] for q in pkgs.split(",")}
            owned.setdefault(path.strip(), set()).update(names)
    for p, vs in variants.items():
        result[p] = set().union(*(owned.get(v, set()) for v in vs))
    return result


def cuda_path():
    """The CUDA toolkit spread-cc builds nvptx64 images with, or None."""
    cc = os.path.join(REPO, "target", "release", "spread-cc")
    if not os.path.exists(cc):
        return None
    out = run([cc, "--spread-print-cuda-path"])
    return out.stdout.strip() or None if out.returncode == 0 else None


def toolchain_dirs(cuda):
    home = os.path.expanduser("~")
    dirs = [os.environ.get("CARGO_HOME", os.path.join(home, ".cargo")),
            os.environ.get("RUSTUP_HOME", os.path.join(home, ".rustup")), REPO]
    if cuda:
        dirs.append(cuda)
    for key in ("purelib", "platlib", "scripts"):
        dirs.append(sysconfig.get_path(key))
    user_base = run([sys.executable, "-m", "site", "--user-base"]).stdout.strip()
    if user_base:
        dirs.append(user_base)
    return [os.path.realpath(d) for d in dirs if d]


def clang_files(tmp, cuda):
    """Programs and files clang-19 runs or reads in the modes Spread uses."""
    c = os.path.join(tmp, "t.c")
    cxx = os.path.join(tmp, "t.cpp")
    with open(c, "w") as f:
        f.write("#include <omp.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
                "#include <math.h>\n#include <pthread.h>\n#include <stdint.h>\n"
                "int main(void){int x=0;\n#pragma omp target map(tofrom:x)\nx=1;\n"
                "printf(\"%d\\n\",x);return 0;}\n")
    with open(cxx, "w") as f:
        f.write("#include <omp.h>\n#include <cstdio>\n#include <vector>\n#include <cstring>\n"
                "int main(){std::vector<int> v(4);int *p=v.data();\n"
                "#pragma omp target map(tofrom:p[0:4])\np[0]=1;\nstd::printf(\"%d\\n\",v[0]);}\n")
    files = set()
    problems = []
    modes = [
        ["clang-19", "-O2"] + OFFLOAD + [c, "-o", os.path.join(tmp, "c.out")],
        ["clang++-19", "-O2"] + OFFLOAD + [cxx, "-o", os.path.join(tmp, "cxx.out")],
        ["clang-19", "-O1", "-fpass-plugin=" + os.path.join(REPO, BUILT[1])] + OFFLOAD
        + ["-c", c, "-o", os.path.join(tmp, "p.o")],
    ]
    if cuda:
        # what spread-cc --offload-arch=sm_90 runs (docs/driver.md)
        modes.append(["clang-19", "-O2", "-fopenmp",
                      "-fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu",
                      "-Xopenmp-target=nvptx64-nvidia-cuda", "-march=sm_90",
                      "--cuda-path=" + cuda, c, "-o", os.path.join(tmp, "nvptx.out")])
        files.update(NVPTX_TOOLS)
        files.add(os.path.join(cuda, "bin", "nvlink"))
    env = dict(os.environ, LIBRARY_PATH=os.path.join(LLVM_DIR, "lib"))
    for cmd in modes:
        out = run(cmd[:1] + ["-###"] + cmd[1:], env=env)
        if out.returncode != 0:
            problems.append("`%s -###` failed: %s" % (" ".join(cmd), out.stderr.strip()[-300:]))
            continue
        for line in out.stderr.splitlines():
            for tok in re.findall(r'"([^"]*)"', line):
                for part in [tok] + tok.split("=", 1)[1:]:
                    if part.startswith("/") and os.path.isfile(part) and not part.startswith(tmp):
                        files.add(part)
        # Linker: clang-linker-wrapper runs it through clang, which finds it itself.
        ld = run([cmd[0], "-print-prog-name=ld"]).stdout.strip()
        if ld:
            files.add(shutil.which(ld) or ld)
    # Headers an offload program includes, and the compiled programs' libraries.
    for cmd in modes[:2]:
        dep = run([cmd[0]] + OFFLOAD + ["-M", cmd[-3]])
        for tok in dep.stdout.replace("\\\n", " ").split():
            if tok.startswith("/") and os.path.isfile(tok) and not tok.startswith(tmp):
                files.add(tok)
        built = run(cmd)
        if built.returncode != 0:
            problems.append("`%s` failed: %s" % (" ".join(cmd), built.stderr.strip()[-300:]))
        else:
            files.add(cmd[-1])
    return files, problems


def ldd(path):
    # Compiled test programs find libomptarget where the tests put it: stock's directory.
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(LLVM_DIR, "lib"))
    out = run(["ldd", path], env=env)
    libs = set()
    for line in out.stdout.splitlines():
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            libs.add(m.group(1))
        elif "not found" in line:
            libs.add("MISSING:" + line.split("=>")[0].strip())
    return libs


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def main():
    mpi = with_mpi()
    pkgs, dropped = apt_packages(mpi)
    if dropped:
        print("check-deps: checking without %s (SPREAD_DEPS_DROP)" % ", ".join(sorted(dropped)))
    problems = []
    installed = run(["dpkg-query", "-W", "-f", "${Package} ${Status}\n"] + pkgs).stdout
    for p in pkgs:
        if not re.search(r"^%s install ok installed$" % re.escape(p), installed, re.M):
            problems.append("package %s (scripts/packages.sh) is not installed: run "
                            "scripts/setup.sh" % p)
    allowed = closure(pkgs)
    log("%d packages allowed (list, hard dependencies, base system)" % len(allowed))
    log("MPI: %s" % ("checked (MPI_PACKAGES allowed)" if mpi else "not there (not checked)"))
    cuda = cuda_path()
    log("CUDA toolkit: %s" % (cuda or "none (the nvptx64 mode is not checked)"))
    outside_ok = toolchain_dirs(cuda)

    files = {}  # path -> why it is needed
    for t in TOOLS + (MPI_TOOLS if mpi else []):
        path = shutil.which(t)
        if not path:
            problems.append("command %s not found%s" % (
                t, " (MPI is used here: run scripts/setup.sh --mpi)" if t in MPI_TOOLS else ""))
            continue
        files.setdefault(path, "command " + os.path.basename(t))
        if not owners([path])[path] and os.path.exists("/usr/bin/" + os.path.basename(t)):
            # Found outside Debian's packages first on PATH: the Debian one is what a fresh
            # machine runs, so its libraries are the ones to check.
            files.setdefault("/usr/bin/" + os.path.basename(t), "command " + os.path.basename(t))
    with tempfile.TemporaryDirectory(prefix="spread-deps-") as tmp:
        cfiles, cproblems = clang_files(tmp, cuda)
        problems += cproblems
        for f in cfiles:
            files.setdefault(f, "used by clang-19")
        for f in RUNTIME_FILES:
            files.setdefault(f, "loaded at run time")
        for f in SETUP_FILES:
            if os.path.exists(f):
                files.setdefault(f, "used by scripts/setup.sh")
            else:
                problems.append("%s missing: scripts/setup.sh needs Debian's pip (python3-pip)" % f)
        for b in BUILT:
            p = os.path.join(REPO, b)
            if os.path.exists(p):
                files.setdefault(p, "Spread's build")
            else:
                problems.append("%s missing (run scripts/build.sh first)" % b)
        if mpi:
            p = os.path.join(REPO, MPI_BUILT)
            if os.path.exists(p):
                files.setdefault(p, "Spread's MPI plugin")
            elif os.environ.get("SPREAD_MPI") != "0":
                problems.append("%s missing (scripts/build.sh builds it when mpicc is on PATH)"
                                % MPI_BUILT)
            if shutil.which("mpicc"):
                mfiles, mproblems = mpi_files()
                problems += mproblems
                for f in mfiles:
                    files.setdefault(f, "read by the MPI plugin's build, from `mpicc -show`")
        # Libraries of every program and library above (resolved before tmp goes away).
        for f in list(files):
            if is_elf(f) and (owners([f])[f] or f.startswith(REPO) or f.startswith(tmp)
                              or (cuda and f.startswith(cuda + os.sep))):
                for lib in ldd(f):
                    if lib.startswith("MISSING:"):
                        problems.append("%s needs %s, which is not found" % (f, lib[8:]))
                    else:
                        files.setdefault(lib, "library of " + os.path.basename(f))
        files = {f: why for f, why in files.items() if not f.startswith(tmp)}

    own = owners(list(files))
    for f, why in sorted(files.items()):
        pk = own.get(f, set())
        if pk:
            if not pk & allowed:
                problems.append("%s (%s) comes from %s, which is not in scripts/packages.sh "
                                "nor a hard dependency of it" % (f, why, ", ".join(sorted(pk))))
            continue
        real = os.path.realpath(f)
        if any(real == d or real.startswith(d + os.sep) for d in outside_ok):
            continue
        if why.startswith("command "):
            name = why.split(" ", 1)[1]
            alt = "/usr/bin/" + name
            apk = owners([alt]).get(alt, set()) if os.path.exists(alt) else set()
            if apk & allowed:
                log("%s resolves to %s; %s from %s is there too" % (name, f, alt, ",".join(apk)))
                continue
            problems.append("%s resolves to %s, outside Debian's packages, and no package in "
                            "scripts/packages.sh provides %s" % (name, f, alt))
        else:
            problems.append("%s (%s) belongs to no Debian package" % (f, why))
    for p in problems:
        print("check-deps: error: " + p)
    if problems:
        print("check-deps: %d problem(s); add the package to scripts/packages.sh" % len(problems))
        return 1
    print("check-deps: %d files (commands, clang's tools, libraries, headers) all come from the "
          "%d packages of scripts/packages.sh, their hard dependencies or the base system"
          % (len(files), len(pkgs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
