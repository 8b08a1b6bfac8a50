# -*- Python -*-
# lit configuration for Spread's regression and end-to-end tests.
#
#   lit -sv test-suite                          # run on Spread (target/release/libspread_rt.so)
#   lit -sv --param runtime=stock test-suite    # cross-check on stock LLVM 19 libomptarget
#   lit -sv --param runtime_lib=/path/libomptarget.so.19.1 test-suite
#
# The runtime library can also be given with the environment variable
# SPREAD_RUNTIME_LIB (the lit parameter wins).  Paths are computed relative to
# this file, so no lit.site.cfg.py is needed.

import os
import re
import subprocess

import lit.formats
import lit.util

config.name = "Spread"
config.test_format = lit.formats.ShTest(execute_external=False)
# .c/.cpp: programs; .test: tool-only tests (RUN lines only).
config.suffixes = [".c", ".cpp", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)
target_dir = os.path.join(repo_root, "target")
# Keep %t and friends out of the source tree.
config.test_exec_root = os.path.join(target_dir, "lit")

llvm_dir = lit_config.params.get("llvm_dir", os.environ.get("LLVM_DIR", "/usr/lib/llvm-19"))
llvm_bin = os.path.join(llvm_dir, "bin")
llvm_lib = os.path.join(llvm_dir, "lib")
stock_lib = os.path.join(llvm_lib, "libomptarget.so.19.1")
soname = "libomptarget.so.19.1"

# --- which runtime the programs run on -------------------------------------
runtime = lit_config.params.get("runtime", "spread")
runtime_lib = lit_config.params.get("runtime_lib", os.environ.get("SPREAD_RUNTIME_LIB", ""))

if runtime == "stock":
    runtime_lib = runtime_lib or stock_lib
    runtime_libdir = None
elif runtime == "spread":
    if not runtime_lib:
        runtime_lib = os.path.join(target_dir, "release", "libspread_rt.so")
        runtime_libdir = os.path.join(target_dir, "spread", "lib")
    else:
        runtime_libdir = None
    config.available_features.add("spread")
else:
    lit_config.fatal("unknown --param runtime=%s (expected 'spread' or 'stock')" % runtime)

runtime_lib = os.path.abspath(runtime_lib)
if runtime_libdir is None:
    if os.path.basename(runtime_lib) == soname:
        runtime_libdir = os.path.dirname(runtime_lib)
    else:
        # Give the library its libomptarget file name in a directory of our own.
        runtime_libdir = os.path.join(config.test_exec_root, "runtime-lib")
        os.makedirs(runtime_libdir, exist_ok=True)
        link = os.path.join(runtime_libdir, soname)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(runtime_lib, link)

if not os.path.exists(runtime_lib):
    lit_config.warning("runtime library %s does not exist (build it with scripts/build.sh)"
                       % runtime_lib)
if not os.path.exists(os.path.join(runtime_libdir, soname)):
    lit_config.warning("%s has no %s" % (runtime_libdir, soname))

# What %preload-run puts in LD_PRELOAD.  Stock libomptarget also exports
# omp_get_num_devices/omp_get_initial_device; preloaded on its own it comes
# before libomp and those return 0 for the whole run (see
# ../shared/conformance/llvm-offload/expected-fail-preload.txt).  For the stock
# cross-check, preload libomp first so that libomp's versions (which forward to
# libomptarget) win, as they do without preloading.  Spread is preloaded alone,
# exactly as users do.
preload = runtime_lib
if runtime == "stock":
    libomp = lit_config.params.get("libomp", os.path.join(llvm_lib, "libomp.so.5"))
    preload = "%s:%s" % (libomp, runtime_lib)

config.available_features.add("runtime-" + runtime)
lit_config.note("runtime: %s (%s; library path %s)" % (runtime, runtime_lib, runtime_libdir))

# --- environment -------------------------------------------------------------
# Tests must not inherit offload settings from the outer environment; a test
# sets what it needs itself with `env`.
for var in list(config.environment):
    if (var.startswith(("OMP_", "KMP_", "LIBOMPTARGET_", "LIBOMP_", "SPREAD_"))
            or var in ("LD_PRELOAD", "LD_LIBRARY_PATH")):
        del config.environment[var]
config.environment["PATH"] = os.pathsep.join(
    [llvm_bin, config.environment.get("PATH", os.environ.get("PATH", "/usr/bin:/bin"))])
# Keep host-device kernels small on small CI machines.
config.environment["OMP_NUM_THREADS"] = lit_config.params.get("omp_num_threads", "2")

# --- tools -------------------------------------------------------------------
def find_tool(name, *fallbacks):
    for cand in (name,) + fallbacks:
        path = lit.util.which(cand, config.environment["PATH"])
        if path:
            return path
    lit_config.fatal("cannot find %s (run scripts/setup.sh)" % name)

clang = lit_config.params.get("clang", find_tool("clang-19", "clang"))
clangxx = lit_config.params.get("clangxx", find_tool("clang++-19", "clang++"))
offload_flags = "-fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O1"

config.substitutions.append(("%clangxx-offload", "%s %s" % (clangxx, offload_flags)))
config.substitutions.append(("%clang-offload", "%s %s" % (clang, offload_flags)))
config.substitutions.append(("%libpath-run", "env LD_LIBRARY_PATH=%s" % runtime_libdir))
config.substitutions.append(("%preload-run", "env LD_PRELOAD=%s" % preload))
# stock libomptarget, whatever the runtime under test (programs that must run on both)
config.substitutions.append(("%stock-run", "env LD_LIBRARY_PATH=%s" % llvm_lib))
config.substitutions.append(("%llvm-lib", llvm_lib))
config.substitutions.append(("%spread-info", os.path.join(target_dir, "release", "spread-info")))
# target spread (issue 3): the driver, the pass plugin and LLVM's opt.
release_dir = os.path.join(target_dir, "release")
config.substitutions.append(("%spread-cxx", os.path.join(release_dir, "spread-c++")))
config.substitutions.append(("%spread-cc", os.path.join(release_dir, "spread-cc")))
config.substitutions.append(("%spread-pass", os.path.join(release_dir, "libspread_pass.so")))
config.substitutions.append(("%opt", os.path.join(llvm_bin, "opt")))
config.substitutions.append(("%clang-plain", clang))
# (%runtime-libdir before %runtime-lib, which is a prefix of it.)
config.substitutions.append(("%runtime-libdir", runtime_libdir))
config.substitutions.append(("%runtime-lib", runtime_lib))

# --- cores (host devices pinned with SPREAD_HOST_DEVICE_CORES) -----------------
# two-cores: lit itself may run on at least two cores; %cpu0 and %cpu1 are the first two.
allowed_cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
if len(allowed_cpus) >= 2:
    config.available_features.add("two-cores")
cpus = (allowed_cpus + [0, 0])[:2]
config.substitutions.append(("%cpu0", str(cpus[0])))
config.substitutions.append(("%cpu1", str(cpus[1])))

# --- MPI (remote devices on other ranks) ---------------------------------------
# mpi: mpirun is on PATH and scripts/build.sh built the MPI transport plugin (it does when mpicc
# is on PATH: scripts/setup.sh --mpi). Tests launch with `%mpirun 4 ./prog` (shared memory) or
# `%mpirun-tcp 4 ./prog` (TCP on the loopback interface); both oversubscribe the cores, allow
# root (CI containers) and give up after 120 s.
mpi_plugin = os.path.join(target_dir, "release", "libspread_remote_mpi.so")
mpirun_path = lit.util.which("mpirun", config.environment["PATH"])
if mpirun_path and os.path.exists(mpi_plugin):
    config.available_features.add("mpi")
    lit_config.note("mpi: %s, plugin %s" % (mpirun_path, mpi_plugin))
elif mpirun_path or os.path.exists(mpi_plugin):
    lit_config.note("no mpi feature: %s" % ("the MPI plugin is not built (scripts/build.sh)"
                                            if mpirun_path else "mpirun is not on PATH"))
# netns: root may make network namespaces, veth links and tbf qdiscs here, which
# scripts/emulated-cluster.sh needs (the emulated cluster's tests; probed, not assumed).
def _netns_ok():
    if os.geteuid() != 0 or not lit.util.which("ip") or not lit.util.which("tc"):
        return False
    probe = "spreadprobe%d" % os.getpid()
    cmds = [["ip", "netns", "add", probe],
            ["ip", "link", "add", probe[:12] + "a", "type", "veth", "peer", "name", "eth0",
             "netns", probe],
            ["tc", "-n", probe, "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "1gbit",
             "burst", "256kb", "latency", "50ms"]]
    ok = all(subprocess.run(c, capture_output=True).returncode == 0 for c in cmds)
    subprocess.run(["ip", "link", "del", probe[:12] + "a"], capture_output=True)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ok


if "mpi" in config.available_features and _netns_ok():
    config.available_features.add("netns")
    lit_config.note("netns: the emulated cluster (scripts/emulated-cluster.sh) can run here")
mpirun = "timeout 120 mpirun --allow-run-as-root --oversubscribe"
# `lit -Dremote=emulated`: the MPI tests' ranks run on the emulated cluster instead, one per node
# in turn, over TCP through the shaped links (bring it up first: scripts/emulated-cluster.sh up 4;
# docs/remote.md). The test that brings its own cluster up and down is then left out.
remote = lit_config.params.get("remote", "")
if remote == "emulated":
    if "netns" not in config.available_features:
        lit_config.fatal("remote=emulated: the emulated cluster cannot run here (needs root, "
                         "ip, tc and the mpi feature)")
    cluster = os.path.join(config.test_source_root, "..", "scripts", "emulated-cluster.sh")
    if not os.path.exists("/run/spread-emulated-cluster/nodes"):
        lit_config.fatal("remote=emulated: no emulated cluster is up (%s up 4)" % cluster)
    config.available_features.add("emulated-remote")
    lit_config.note("remote=emulated: %mpirun and %mpirun-tcp run ranks on the emulated cluster")
    config.substitutions.append(("%mpirun-tcp", "timeout 120 %s run" % cluster))
    config.substitutions.append(("%mpirun", "timeout 120 %s run" % cluster))
    config.substitutions.append(("%fuzz-emulated", "--emulated"))
elif remote:
    lit_config.fatal("remote=%s: the value is `emulated` (or leave it out)" % remote)
else:
    # (%mpirun-tcp before %mpirun, which is a prefix of it.)
    config.substitutions.append(("%mpirun-tcp", "%s --mca btl self,tcp --mca btl_tcp_if_include "
                                 "lo --mca oob_tcp_if_include lo -np" % mpirun))
    config.substitutions.append(("%mpirun", "%s --mca btl self,vader -np" % mpirun))
    config.substitutions.append(("%fuzz-emulated", ""))

# --- NVIDIA GPUs (issue 8) ----------------------------------------------------
# nvptx-toolchain: spread-cc finds a CUDA toolkit for nvptx64 images (scripts/setup.sh --cuda,
# SPREAD_CUDA_PATH, ...; test.sh installs one); the tests in nvptx/ build programs that carry an
# nvptx64 and an x86_64 image and run them on host devices. cuda: the runtime has a usable GPU
# (spread-info lists a device of kind cuda); the tests in gpu/ need one.

spread_cc = os.path.join(release_dir, "spread-cc")
cuda_env = dict(os.environ)
cuda_path = None
if os.path.exists(spread_cc):
    try:
        out = subprocess.run([spread_cc, "--spread-print-cuda-path"], capture_output=True,
                             text=True, env=cuda_env, timeout=60)
        if out.returncode == 0 and out.stdout.strip():
            cuda_path = out.stdout.strip()
        else:
            lit_config.note("no nvptx-toolchain: %s" % out.stderr.strip())
    except (OSError, subprocess.SubprocessError) as e:
        lit_config.note("no nvptx-toolchain: %s" % e)
if cuda_path:
    config.available_features.add("nvptx-toolchain")
    lit_config.note("nvptx-toolchain: CUDA toolkit %s" % cuda_path)
    # spread-cc's toolkit search reads these: pass them through to the tests
    for var in ("SPREAD_CUDA_PATH", "SPREAD_CUDA_HOME", "XDG_CACHE_HOME", "HOME"):
        if os.environ.get(var):
            config.environment[var] = os.environ[var]
    config.substitutions.append(("%cuda-path", cuda_path))
# The GPU tests' architecture (lit --param cuda_arch=sm_80).
config.substitutions.append(("%cuda-arch", lit_config.params.get("cuda_arch", "sm_90")))

spread_info = os.path.join(target_dir, "release", "spread-info")
if runtime == "spread" and os.path.exists(spread_info):
    try:
        info_env = {k: v for k, v in os.environ.items() if not k.startswith("SPREAD_")}
        out = subprocess.run([spread_info], capture_output=True, text=True, env=info_env,
                             timeout=120)
        if any(re.match(r"device \d+: cuda\b", l) for l in out.stdout.splitlines()):
            config.available_features.add("cuda")
            lit_config.note("cuda: spread-info lists a CUDA device")
    except (OSError, subprocess.SubprocessError) as e:
        lit_config.note("no cuda feature: spread-info failed: %s" % e)

# Only substitute whole words: `not --crash` stays usable and paths that merely
# contain these names are left alone.
for tool in ("FileCheck", "not"):
    path = os.path.join(llvm_bin, tool)
    if not os.path.exists(path):
        lit_config.fatal("%s not found (install llvm-19-tools)" % path)
    config.substitutions.append((r"(?<![\w/.-])%s(?![\w/.-])" % tool, path))
