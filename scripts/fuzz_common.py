"""What the program generators (scripts/spread-fuzz.py, scripts/any-fuzz.py) share: the build
under test, the environment a case starts from, running a case, and exclusions."""

import os
import signal
import subprocess

SONAME = "libomptarget.so.19.1"


def runtime_paths(root, runtime_lib, spread_cc, out):
    """(spread_cc, runtime_lib, runtime_libdir, linked_ok) of the build under test: ROOT's
    spread-cc and runtime unless given; runtime_libdir holds the runtime under the name programs
    look for (a link under OUT for a library of another name); linked_ok, whether binaries run
    as linked find the runtime under test (their RUNPATH is spread-cc's tree's
    target/spread/lib)."""
    root = os.path.abspath(root)
    rel = os.path.join(root, "target", "release")
    own_lib = os.path.join(rel, "libspread_rt.so")
    lib = os.path.abspath(runtime_lib) if runtime_lib else own_lib
    if os.path.basename(lib) == SONAME:
        libdir = os.path.dirname(lib)
    elif lib != own_lib:
        libdir = os.path.join(os.path.abspath(out), "runtime-lib")
        os.makedirs(libdir, exist_ok=True)
        link = os.path.join(libdir, SONAME)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(lib, link)
    else:
        libdir = os.path.join(root, "target", "spread", "lib")
    cc = os.path.abspath(spread_cc or os.path.join(rel, "spread-cc"))
    linked_ok = lib == own_lib and os.path.realpath(os.path.dirname(cc)) == os.path.realpath(rel)
    return cc, lib, libdir, linked_ok


def base_env():
    """The harness's own environment without offload settings (as lit does)."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("OMP_", "KMP_", "LIBOMPTARGET_", "LIBOMP_", "SPREAD_"))
            and k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}


def run_process(cmd, env, timeout):
    """(rc, stdout, stderr, timed_out) of `cmd` in a session of its own, so that a hang's whole
    process group (a program's helpers, mpirun and its ranks) is killed at `timeout`; rc is
    None then."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out, err, True


def excluded(tags, excludes):
    """Whether tags (a shape's features, and for a case its environment's VAR=VALUE settings)
    contain every part of one of the exclusions ('reduction+OMP_NUM_THREADS=8')."""
    return any(all(part in tags for part in ex.split("+")) for ex in excludes)
