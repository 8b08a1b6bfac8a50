#!/usr/bin/env python3
"""The GPU check: runs a pack made by scripts/gpu-pack.sh on stock LLVM 19 libomptarget and on
Spread, on host devices and (when the machine has one) on the GPU. Started by gpu-check.sh.

Steps, each in mode "host" (OMP_DEFAULT_DEVICE = the runtime's first host device; runs
anywhere, the programs' x86_64 images) and mode "gpu" (OMP_DEFAULT_DEVICE = the runtime's first
GPU; SKIPPED with the reason when there is no usable GPU):
  conformance   LLVM's offload tests, pass/fail per runtime, tests Spread fails but stock passes
  gpu-tests     test-suite/gpu programs (gpu mode only)
  somier-target somier's serial + baseline versions (plain OpenMP), both runtimes
  daxpy heat2d somier   Spread's examples (Spread only): verify lines and timings
  launch        bench/launch latency, stock vs Spread
  transfer      bench/transfer bandwidth, stock vs Spread
  transfer-pinned  the same with LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS=1 (mapped buffers
                page-locked while mapped)
  nowait        bench/nowait: 160 `target nowait` regions of 1 ms from 8 threads on the device
                (20 ms when they overlap, 160 ms one at a time), stock vs Spread
Exit status: 0 when Spread fails nothing that stock passes and every Spread-only program
verifies; 1 otherwise; 2 when --require-gpu is given and there is no usable GPU (or on a
broken pack).
"""

import argparse
import ctypes
import os
import re
import shutil
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import conformance  # noqa: E402

LOG = []
LIBCUDA = None  # the path the driver's libcuda.so.1 was loaded from
REPORT = None   # $OUT/gpu-check.txt, written as the check goes (a killed run still leaves it)


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    LOG.append(s)
    if REPORT:
        with open(REPORT, "a") as f:
            f.write(s + "\n")


def section(title):
    say("")
    say("== " + title)


# --------------------------------------------------------------------------------------------
# helpers

def run(cmd, env=None, timeout=300, cwd=None):
    """(rc, output, timed_out); output is stdout and stderr together."""
    return conformance.run_command(cmd, env, cwd, timeout)


def untar_xz(path, dest):
    os.makedirs(dest, exist_ok=True)
    try:
        with tarfile.open(path, "r:xz") as t:
            if hasattr(tarfile, "data_filter"):
                t.extractall(dest, filter="tar")
            else:
                t.extractall(dest)
        return None
    except Exception as e:  # e.g. a python3 without lzma: try tar/xz
        rc, out, _ = run(["tar", "-xJf", path, "-C", dest])
        return None if rc == 0 else "cannot unpack %s: %s / %s" % (path, e, out.strip())


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def system_has(soname):
    rc, out, _ = run(["/sbin/ldconfig", "-p"]) if os.path.exists("/sbin/ldconfig") \
        else run(["ldconfig", "-p"])
    return rc == 0 and re.search(r"^\s*" + re.escape(soname) + r"\s", out, re.M) is not None


def cuda_probe():
    """(usable, reason, lines): whether the CUDA driver sees a GPU, and what it says."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return False, "no NVIDIA driver (libcuda.so.1 cannot be loaded)", []
    global LIBCUDA
    try:
        with open("/proc/self/maps") as f:
            LIBCUDA = next((l.split()[-1] for l in f if "/libcuda.so" in l), None)
    except OSError:
        pass
    r = cu.cuInit(0)
    if r != 0:
        return False, "cuInit failed with CUDA error %d (100: no device; 999: unknown)" % r, []
    n = ctypes.c_int(0)
    r = cu.cuDeviceGetCount(ctypes.byref(n))
    if r != 0 or n.value == 0:
        return False, "the CUDA driver sees no GPU (cuDeviceGetCount: error %d, %d devices)" % (
            r, n.value), []
    ver = ctypes.c_int(0)
    cu.cuDriverGetVersion(ctypes.byref(ver))
    lines = ["CUDA driver API %d.%d, %d GPU(s)" % (ver.value // 1000, ver.value % 1000 // 10,
                                                  n.value)]
    for d in range(n.value):
        dev = ctypes.c_int(0)
        cu.cuDeviceGet(ctypes.byref(dev), d)
        name = ctypes.create_string_buffer(256)
        cu.cuDeviceGetName(name, 256, dev)
        ma, mi = ctypes.c_int(0), ctypes.c_int(0)
        cu.cuDeviceGetAttribute(ctypes.byref(ma), 75, dev)
        cu.cuDeviceGetAttribute(ctypes.byref(mi), 76, dev)
        lines.append("GPU %d: %s, sm_%d%d" % (d, name.value.decode(errors="replace"),
                                               ma.value, mi.value))
    return True, "", lines


def run_verdict(ok, devs):
    """A step's verdict from whether each runtime ran it well (`ok`: runtime -> bool; a runtime
    that could not run it is missing): None when Spread ran it well."""
    if "spread" not in ok:
        return "FAIL: Spread cannot run it (%s)" % devs["spread"][1]
    if not ok["spread"]:
        return "REGRESSION" if ok.get("stock") else "FAIL"
    return None


def ompt_events(lines):
    """The event lines of scripts/gpu/ompt-events.c's tool, with the default device named `dev`
    and the host `host` (the runtimes number devices differently); device set-up events of other
    devices and the tool's counts (which include them) are left out."""
    dev = host = None
    for l in lines:
        m = re.match(r"devices: default (-?\d+) initial (-?\d+)$", l)
        if m:
            dev, host = m.group(1), m.group(2)
    out = []
    for l in lines:
        if not l.startswith(("target ", "data_op ", "submit ", "device_", "-- ", "bytes:")):
            continue
        l = re.sub(r" type=.*", "", l)
        if dev is not None:
            l = re.sub(r"(device=|_device=)%s\b" % re.escape(dev), r"\1dev", l)
            l = re.sub(r"(_device=)%s\b" % re.escape(host), r"\1host", l)
        if l.startswith("device_") and "device=dev" not in l:
            continue
        out.append(l)
    return out


# --------------------------------------------------------------------------------------------
# the check

class Check:
    def __init__(self, a):
        self.a = a
        self.pack = a.pack
        self.work = a.work
        self.rows = []          # (step, mode, stock, spread, verdict)
        self.bad = []           # reasons for a non-zero exit
        self.manifest = {}

    def row(self, step, mode, stock, spread, verdict):
        self.rows.append((step, mode, stock, spread, verdict))
        say("  -> %s [%s]: stock %s | Spread %s | %s" % (step, mode, stock, spread, verdict))
        if verdict.startswith(("FAIL", "REGRESSION")):
            self.bad.append("%s [%s]: %s" % (step, mode, verdict))

    # ---- setup
    def setup(self):
        section("pack")
        mf = os.path.join(self.pack, "manifest.txt")
        if not os.path.isfile(mf):
            say("error: %s is not a pack (no manifest.txt); make one with scripts/gpu-pack.sh"
                % self.pack)
            return False
        with open(mf) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                self.manifest[k] = v
                say("  " + line.rstrip("\n"))
        for d in ("progs", "deps", "stock-extra", "logs"):
            shutil.rmtree(os.path.join(self.work, d), ignore_errors=True)
        os.makedirs(self.work, exist_ok=True)
        self.progs = os.path.join(self.work, "progs")
        err = untar_xz(os.path.join(self.pack, "programs.tar.xz"), self.progs)
        if err:
            say("error: " + err)
            return False
        self.bin = os.path.join(self.progs, "bin")
        need = self.manifest.get("glibc_needed", "")
        try:
            have = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
        except (ValueError, OSError, AttributeError):
            have = "?"
        need_stock = self.manifest.get("glibc_needed_stock", "")
        say("  glibc here %s; the pack needs %s (Spread, programs), %s (stock LLVM 19, FileCheck)"
            % (have, need or "?", need_stock or "?"))
        if need and have != "?" and vkey(have) < vkey(need):
            say("  WARNING: this machine's glibc is older than the programs need: expect failures")
        # Stock: libLLVM and the libraries this machine lacks.
        deps = os.path.join(self.work, "deps")
        self.stock_reason = ""
        err = untar_xz(os.path.join(self.pack, "stock", "llvm-deps.tar.xz"), deps)
        extra = os.path.join(self.work, "stock-extra")
        os.makedirs(extra)
        self.filecheck = None
        if err:
            self.stock_reason = err
        elif need_stock and have != "?" and vkey(have) < vkey(need_stock):
            self.stock_reason = "libLLVM.so.19.1 needs glibc %s, this machine has %s" % (
                need_stock, have)
        if not err:
            used = []
            for so in sorted(os.listdir(deps)):
                if so == "FileCheck":
                    continue
                if so.startswith("libLLVM") or not system_has(so):
                    os.symlink(os.path.join(deps, so), os.path.join(extra, so))
                    used.append(so)
            self.stock_lp = ":".join([os.path.join(self.pack, "stock", "lib"), extra,
                                      os.path.join(self.pack, "lib")])
            if not self.ldd_ok(os.path.join(self.pack, "stock", "lib", "libomptarget.so.19.1"),
                               self.stock_lp):
                # The machine's own copies do not fit: use every carried one.
                for so in sorted(os.listdir(deps)):
                    if so != "FileCheck" and so not in used:
                        os.symlink(os.path.join(deps, so), os.path.join(extra, so))
                        used.append(so)
                missing = self.ldd_ok(os.path.join(self.pack, "stock", "lib",
                                                   "libomptarget.so.19.1"), self.stock_lp, True)
                if missing:
                    self.stock_reason = "stock libomptarget cannot be loaded: " + missing
            say("  stock libomptarget uses the carried %s" % ", ".join(used))
            fc = os.path.join(self.work, "FileCheck")
            with open(fc, "w") as f:
                f.write('#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n'
                        % (extra, os.path.join(deps, "FileCheck")))
            os.chmod(fc, 0o755)
            rc, out, _ = run([fc, "--version"], timeout=60)
            if os.environ.get("GPUCHECK_PYFILECHECK") == "1":   # to test the fallback
                rc, out = 1, "GPUCHECK_PYFILECHECK=1"
            if rc == 0:
                self.filecheck = fc
            else:
                say("  the carried FileCheck does not run here (%s): using tools/pyfilecheck.py"
                    % (out.strip().splitlines() or ["exit %d" % rc])[-1])
        if not self.filecheck:
            fc = os.path.join(self.work, "FileCheck")
            with open(fc, "w") as f:
                f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n'
                        % (sys.executable, os.path.join(HERE, "pyfilecheck.py")))
            os.chmod(fc, 0o755)
            self.filecheck = fc
        self.spread_lp = ":".join([os.path.join(self.pack, "spread", "lib"),
                                   os.path.join(self.pack, "lib")])
        if self.stock_reason:
            say("  stock: UNUSABLE: " + self.stock_reason)
        self.lp = {"stock": getattr(self, "stock_lp", ""), "spread": self.spread_lp}
        return True

    def ldd_ok(self, lib, lp, want_reason=False):
        if not shutil.which("ldd"):
            return "" if want_reason else True
        env = dict(os.environ, LD_LIBRARY_PATH=lp)
        rc, out, _ = run(["ldd", lib], env=env, timeout=60)
        bad = [l.strip() for l in out.splitlines() if "not found" in l]
        if want_reason:
            return "; ".join(bad)
        return rc == 0 and not bad

    def env(self, rt, extra=None):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("LIBOMPTARGET_", "OMP_", "SPREAD_")) and k != "LD_PRELOAD"}
        e["LD_LIBRARY_PATH"] = self.lp[rt]
        e.update(extra or {})
        return e

    # ---- machine and devices
    def machine(self):
        section("machine")
        rc, out, _ = run(["uname", "-a"])
        say("  " + out.strip())
        if shutil.which("nvidia-smi"):
            rc, out, _ = run(["nvidia-smi"], timeout=60)
            for l in out.splitlines():
                say("  " + l)
        else:
            say("  nvidia-smi: not installed")
        self.gpu, self.gpu_reason, lines = cuda_probe()
        for l in lines:
            say("  " + l)
        # Stock LLVM 19 dlopens "libcuda.so", which a machine with only the driver may lack.
        if LIBCUDA:
            try:
                ctypes.CDLL("libcuda.so")
            except OSError:
                d = os.path.join(self.work, "cuda-link")
                os.makedirs(d, exist_ok=True)
                if not os.path.exists(os.path.join(d, "libcuda.so")):
                    os.symlink(LIBCUDA, os.path.join(d, "libcuda.so"))
                self.lp = {k: v + ":" + d for k, v in self.lp.items()}
                say("  no libcuda.so on the library path: linked %s/libcuda.so -> %s" % (d, LIBCUDA))
        if not self.gpu:
            say("  no usable GPU: " + self.gpu_reason)
        section("devices")
        rc, out, _ = run([os.path.join(self.pack, "spread", "bin", "spread-info")],
                         env=self.env("spread"), timeout=60)
        for l in out.splitlines():
            say("  spread-info: " + l)
        # Which device number is which, per runtime, from inside target regions.
        self.devs = {}
        for rt in ("stock", "spread"):
            if rt == "stock" and self.stock_reason:
                self.devs[rt] = None
                continue
            extra = {"SPREAD_INFO": "devices"} if rt == "spread" else {}
            rc, out, to = run([os.path.join(self.bin, "devprobe")], env=self.env(rt, extra),
                              timeout=120)
            kinds = {}
            for l in out.splitlines():
                m = re.match(r"device (\d+) (\w+)$", l)
                if m:
                    kinds[int(m.group(1))] = m.group(2)
                elif l.strip():
                    say("  %s devprobe: %s" % (rt, l.strip()))
            say("  %s: %s" % (rt, ", ".join("%d=%s" % kv for kv in sorted(kinds.items()))
                              or "no devices (rc %d)" % rc))
            self.devs[rt] = kinds

    def device_for(self, rt, mode):
        """(device number, None) or (None, why not)."""
        if rt == "stock" and self.stock_reason:
            return None, "stock unusable"
        kinds = self.devs.get(rt) or {}
        want = "nvptx" if mode == "gpu" and not self.a.fake_gpu else "host"
        for d in sorted(kinds):
            if kinds[d] == want:
                return d, None
        if mode == "gpu":
            return None, "no GPU device"
        return None, "no host device"

    # ---- steps
    def step_conformance(self, mode, devs):
        conf = os.path.join(self.progs, "conformance")
        if not os.path.isdir(conf):
            self.row("conformance", mode, "-", "-", "SKIPPED: not in the pack")
            return
        idx = conformance.read_index(conf)
        nb = sum(1 for r in idx if r[1] == "BUILT")
        say("  %d tests built, %d not for this target, %d failed to build on the build machine"
            % (nb, sum(1 for r in idx if r[1] == "SKIP"),
               sum(1 for r in idx if r[1] == "BUILD-FAIL")))
        res = {}
        cells = {}
        for rt in ("stock", "spread"):
            d, why = devs[rt]
            if d is None:
                cells[rt] = "not run: " + why
                continue
            t0 = time.time()
            res[rt] = conformance.run_suite(
                conf, self.work, self.lp[rt], self.filecheck or "false", jobs=self.a.jobs,
                timeout=self.a.test_timeout, extra_env={"OMP_DEFAULT_DEVICE": str(d)},
                label="conf-%s-%s" % (mode, rt), log=say)
            p = sum(1 for v in res[rt].values() if v[0] == "PASS")
            cells[rt] = "%d/%d pass" % (p, len(res[rt]))
            say("  %s on device %d: %d passed, %d failed (%.0fs)"
                % (rt, d, p, len(res[rt]) - p, time.time() - t0))
        if "stock" in res and "spread" in res:
            reg = sorted(t for t, v in res["spread"].items()
                         if v[0] != "PASS" and res["stock"].get(t, ("",))[0] == "PASS")
            fixed = sorted(t for t, v in res["spread"].items()
                           if v[0] == "PASS" and res["stock"].get(t, ("",))[0] != "PASS")
            for t in reg:
                say("  REGRESSION %s: %s" % (t, res["spread"][t][2]))
            if fixed:
                say("  Spread passes, stock fails: " + ", ".join(fixed))
            self.row("conformance", mode, cells["stock"], cells["spread"],
                     "REGRESSION: %d test(s) stock passes" % len(reg) if reg else "ok")
        elif "spread" in res:
            f = sum(1 for v in res["spread"].values() if v[0] != "PASS")
            self.row("conformance", mode, cells["stock"], cells["spread"],
                     "no stock comparison" + (" (Spread fails %d)" % f if f else ""))
        else:
            self.row("conformance", mode, cells["stock"], cells["spread"],
                     "FAIL: Spread cannot run it (%s)" % devs["spread"][1])

    def run_prog(self, rt, name, args, d, timeout=None, extra=None):
        env = self.env(rt, dict({"OMP_DEFAULT_DEVICE": str(d)}, **(extra or {})))
        rc, out, to = run([os.path.join(self.bin, name)] + args, env=env,
                          timeout=timeout or self.a.timeout, cwd=self.work)
        os.makedirs(os.path.join(self.work, "logs"), exist_ok=True)
        with open(os.path.join(self.work, "logs", "%s-%s-d%d.txt" % (name, rt, d)), "w") as f:
            f.write(out)
        return rc, out, to

    def step_gpu_tests(self, mode, devs):
        idx = os.path.join(self.progs, "gpu-tests", "index.tsv")
        tests = []
        if os.path.isfile(idx):
            with open(idx) as f:
                tests = [l.rstrip("\n").split("\t") for l in f if l.strip()]
        if not tests:
            self.row("gpu-tests", mode, "-", "-", "SKIPPED: no test-suite/gpu programs in the pack")
            return
        # The programs find their GPUs as Spread numbers them (GPUs first: gpu_test.h); stock
        # numbers its GPU after the host devices, so on a GPU it would fail each one for that
        # alone (with --fake-gpu the first devices stand in for GPUs on both runtimes).
        counts = {}
        runtimes = ("stock", "spread") if self.a.fake_gpu else ("spread",)
        if not self.a.fake_gpu:
            counts["stock"] = "not run: the programs expect Spread's device numbering"
        stock_pass = set()
        reg = []
        for rt in runtimes:
            d, why = devs[rt]
            if d is None:
                counts[rt] = "not run: " + why
                continue
            p = f = s = 0
            extra = {"OMP_DEFAULT_DEVICE": str(d)}
            if self.a.fake_gpu:
                # gpu_test.h: the first two (host) devices stand in for GPUs running the x86_64
                # image, so the programs themselves run and check their results.
                extra["SPREAD_GPU_TEST_FAKE_GPUS"] = "2"
            for t in tests:
                name, tout, targs = (t + ["", ""])[:3]
                rc, out, to = run([os.path.join(self.progs, "gpu-tests", name)] + targs.split(),
                                  env=self.env(rt, extra),
                                  timeout=min(int(tout or 120), self.a.timeout), cwd=self.work)
                st = "TIMEOUT" if to else "PASS" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
                if st == "PASS":
                    p += 1
                    if rt == "stock":
                        stock_pass.add(name)
                elif st == "SKIP":
                    s += 1
                else:
                    f += 1
                    tail = [l for l in out.splitlines() if l.strip()][-2:]
                    say("    %s %s %s: %s" % (rt, st, name, " | ".join(tail)))
                    if rt == "spread" and name in stock_pass:
                        reg.append(name)
            counts[rt] = "%d pass %d fail%s" % (p, f, " %d skip" % s if s else "")
            say("  %s on device %d: %s" % (rt, d, counts[rt]))
        if "spread" not in counts or counts["spread"].startswith("not run"):
            verdict = "FAIL: Spread cannot run them (%s)" % devs["spread"][1]
        elif reg:
            verdict = "REGRESSION: " + ", ".join(reg)
        elif " 0 fail" not in counts["spread"]:
            verdict = "ok (failures are stock's too)"
        else:
            verdict = "ok"
        self.row("gpu-tests", mode, counts.get("stock", "-"), counts.get("spread", "-"), verdict)

    def verify_lines(self, out):
        v = [l for l in out.splitlines() if "verified:" in l or "FAILED" in l]
        ok = sum(1 for l in v if "verified: OK" in l)
        bad = sum(1 for l in v if "FAILED" in l)
        return ok, bad

    def step_example(self, mode, devs, name, args_for, both=False):
        cells = {}
        res = {}
        for rt in (("stock", "spread") if both else ("spread",)):
            d, why = devs[rt]
            if d is None:
                cells[rt] = "not run: " + why
                continue
            args = args_for(rt, d)
            t0 = time.time()
            rc, out, to = self.run_prog(rt, name, args, d)
            dt = time.time() - t0
            say("  %s %s %s (device %d, %.1fs, exit %s):" % (rt, name, " ".join(args), d, dt,
                                                          "timeout" if to else rc))
            for l in out.splitlines():
                say("    " + l)
            ok, bad = self.verify_lines(out)
            good = rc == 0 and not to and bad == 0 and ok > 0
            res[rt] = good
            cells[rt] = "%d verified OK%s%s" % (ok, ", %d FAILED" % bad if bad else "",
                                                "" if rc == 0 else " (exit %s)" %
                                                ("timeout" if to else rc))
        verdict = run_verdict(res, devs) or "ok"
        self.row(name, mode, cells.get("stock", "-"), cells.get("spread", "-"), verdict)

    def step_compare(self, mode, devs, name, args, keys_re, unit, higher_better, extra=None,
                     label=None):
        label = label or name
        vals = {}
        cells = {}
        ok = {}
        for rt in ("stock", "spread"):
            d, why = devs[rt]
            if d is None:
                cells[rt] = "not run: " + why
                continue
            rc, out, to = self.run_prog(rt, name, args, d, extra=extra)
            good = rc == 0 and not to and "check OK" in out
            ok[rt] = good
            vals[rt] = {}
            for l in out.splitlines():
                m = re.match(r"(\S+)\s+([0-9.eE+-]+)$", l.strip())
                if m and re.match(keys_re, m.group(1)):
                    vals[rt][m.group(1)] = float(m.group(2))
            cells[rt] = "check OK" if good else "FAILED (exit %s)" % ("timeout" if to else rc)
            if not good:
                for l in out.splitlines()[-5:]:
                    say("    %s: %s" % (rt, l))
        keys = sorted(set().union(*[v.keys() for v in vals.values()]) if vals else [],
                      key=lambda k: list(vals.get("stock", vals.get("spread", {}))).index(k)
                      if k in vals.get("stock", vals.get("spread", {})) else 0)
        if keys:
            say("  %-24s %12s %12s %14s" % (label + " (" + unit + ")", "stock", "Spread",
                                            "Spread/stock"))
            for k in keys:
                s, p = vals.get("stock", {}).get(k), vals.get("spread", {}).get(k)
                ratio = "%.2f" % (p / s) if s and p is not None else "-"
                say("  %-24s %12s %12s %14s" % (k, "%.3f" % s if s is not None else "-",
                                                "%.3f" % p if p is not None else "-", ratio))
        verdict = run_verdict(ok, devs) or "ok"
        self.row(label, mode, cells.get("stock", "-"), cells.get("spread", "-"), verdict)
        return vals

    def step_ompt(self, mode, devs):
        """An OMPT tool's view of the default device (scripts/gpu/ompt-events.c): the event
        lines of both runtimes, with the device numbers named, must be equal, and Spread's
        device trace must mirror the callbacks with kernel records spanning the kernels' run."""
        got, cells = {}, {}
        for rt in ("stock", "spread"):
            d, why = devs[rt]
            if d is None:
                cells[rt] = "not run: " + why
                continue
            rc, out, to = self.run_prog(rt, "ompt-events", [], d)
            lines = out.splitlines()
            fails = [l for l in lines if l.startswith("FAIL")]
            trace = next((l[len("trace: "):] for l in lines if l.startswith("trace: ")), "?")
            good = rc == 0 and not to and "results: 0 wrong" in lines and not fails
            got[rt] = (good, ompt_events(lines), trace)
            cells[rt] = ("%d events, trace: %s" % (len(got[rt][1]), trace) if good else
                         "FAILED (exit %s)" % ("timeout" if to else rc))
            for l in (fails or ([] if good else lines[-5:]))[:5]:
                say("    %s: %s" % (rt, l))
        stock_ok = got.get("stock", (False,))[0]

        def compared():
            if not got["spread"][2].endswith(", ok"):
                return "FAIL: Spread's device trace: " + got["spread"][2]
            a, b = got.get("stock", (False, []))[1], got["spread"][1]
            if stock_ok and a != b:
                i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                return "FAIL: events differ from stock's at event %d: stock %r, Spread %r" % (
                    i + 1, a[i] if i < len(a) else "(none)", b[i] if i < len(b) else "(none)")
            return "ok" if stock_ok else "ok (stock did not run it)"
        verdict = run_verdict({rt: g[0] for rt, g in got.items()}, devs) or compared()
        self.row("ompt", mode, cells.get("stock", "-"), cells.get("spread", "-"), verdict)

    def launch(self, mode, devs):
        vals = self.step_compare(mode, devs, "launch", self.a.launch_args.split(),
                                 r".*_region_us$", "us per launch", False)
        s, p = vals.get("stock", {}), vals.get("spread", {})
        if "empty_region_us" in s and "empty_region_us" in p:
            r = self.rows.pop()
            self.rows.append(r[:2] + ("empty %.2f us" % s["empty_region_us"],
                                      "empty %.2f us" % p["empty_region_us"], r[4]))

    def transfer(self, mode, devs, pinned=False):
        # pinned: both runtimes page-lock mapped buffers (libomptarget's
        # LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS, which Spread reads too): the figures that decide
        # whether Spread should do it by default.
        args = (self.a.transfer_args if mode == "gpu" else "16 3").split()
        extra = {"LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS": "1"} if pinned else None
        vals = self.step_compare(mode, devs, "transfer", args, r"(h2d|d2h)_GBps_", "GB/s", True,
                                 extra=extra, label="transfer-pinned" if pinned else "transfer")
        s, p = vals.get("stock", {}), vals.get("spread", {})
        big = [k for k in s if k in p and k.startswith("h2d")]
        if big:
            k = big[-1]
            kd = k.replace("h2d", "d2h")
            r = self.rows.pop()
            self.rows.append(r[:2] + ("%s %.1f/%.1f GB/s" % (k[9:], s[k], s.get(kd, 0)),
                                      "%s %.1f/%.1f GB/s" % (k[9:], p[k], p.get(kd, 0)), r[4]))

    def steps(self):
        for mode in self.a.modes.split(","):
            section("mode %s: %s" % (mode, "host devices (x86_64 images)" if mode == "host" else
                                     "the GPU (nvptx64 images)"))
            names = ["conformance", "gpu-tests", "ompt", "somier-target", "daxpy", "heat2d",
                     "somier", "launch", "transfer", "transfer-pinned", "nowait"]
            if mode == "gpu" and self.a.fake_gpu:
                say("  --fake-gpu: host devices stand in for the GPU (tests the check itself)")
            elif mode == "gpu" and not self.gpu:
                for n in filter(self.want, names):
                    self.row(n, mode, "-", "-", "SKIPPED: " + self.gpu_reason)
                continue
            devs = {rt: self.device_for(rt, mode) for rt in ("stock", "spread")}
            for rt, (d, why) in devs.items():
                say("  %s: %s" % (rt, "device %d" % d if d is not None else why + (
                    ": no device number ran devprobe's nvptx image (see devices above)"
                    if mode == "gpu" else "")))
            if self.want("conformance"):
                section("conformance [%s]" % mode)
                self.step_conformance(mode, devs)
            if not self.want("gpu-tests"):
                pass
            elif mode == "gpu":
                section("gpu-tests [%s]" % mode)
                self.step_gpu_tests(mode, devs)
            else:
                self.row("gpu-tests", mode, "-", "-", "SKIPPED: GPU programs run in mode gpu only")
            if self.want("ompt"):
                section("ompt [%s]" % mode)
                self.step_ompt(mode, devs)
            spread_host = ",".join(str(d) for d, k in sorted((self.devs.get("spread") or {})
                                                              .items()) if k == "host")
            devlist = {"host": spread_host or "0", "gpu": "all"}[mode]
            section("examples [%s]" % mode)
            if self.want("somier-target"):
                self.step_example(mode, devs, "somier-target",
                                  lambda rt, d: ["--devices", str(d)], both=True)
            if self.want("daxpy"):
                self.step_example(mode, devs, "daxpy",
                                  lambda rt, d: ["--device", str(d)] + self.a.daxpy_args.split())
            if self.want("heat2d"):
                self.step_example(mode, devs, "heat2d", lambda rt, d: ["--devices", devlist]
                                  + self.a.heat2d_args.split())
            if self.want("somier"):
                self.step_example(mode, devs, "somier", lambda rt, d: ["--devices", devlist])
            section("benchmarks [%s]" % mode)
            if self.want("launch"):
                self.launch(mode, devs)
            if self.want("transfer"):
                self.transfer(mode, devs)
            if self.want("transfer-pinned"):
                self.transfer(mode, devs, pinned=True)
            if self.want("nowait"):
                # One device: the default one, the GPU in mode gpu.
                self.step_compare(mode, devs, "nowait", ["5", "1"], r"(initial|threads)$",
                                  "seconds", False)

    def want(self, step):
        return not self.only or step in self.only

    def summary(self):
        section("summary")
        w = [max(len(str(r[i])) for r in self.rows + [("step", "mode", "stock", "Spread",
                                                         "verdict")]) for i in range(5)]
        w = [min(x, 48) for x in w]
        fmt = "  %-{}s %-{}s %-{}s %-{}s %s".format(*w[:4])
        say(fmt % ("step", "mode", "stock", "Spread", "verdict"))
        for r in self.rows:
            say(fmt % tuple(str(x) for x in r))
        gpu = "GPU: " + ("yes" if self.gpu else "no (%s)" % self.gpu_reason)
        say("  " + gpu)
        nskip = sum(1 for r in self.rows if r[4].startswith("SKIPPED"))
        say("  %d steps: %d ok, %d skipped, %d failing" % (
            len(self.rows), sum(1 for r in self.rows if r[4].startswith(("ok", "no stock",
                                                                          "not comparable"))),
            nskip, len(self.bad)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--work", default=None,
                    help="scratch folder (default: a new one under $TMPDIR; the unpacked "
                    "programs and libraries are removed at the end, the logs kept)")
    ap.add_argument("--keep", action="store_true", help="keep the unpacked programs and libraries")
    ap.add_argument("--require-gpu", action="store_true", help="a missing GPU is an error")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 2))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per program run")
    ap.add_argument("--test-timeout", type=int, default=60, help="seconds per conformance test")
    ap.add_argument("--only", default="", help="comma-separated steps (default: all)")
    ap.add_argument("--modes", default="host,gpu",
                    help="comma-separated modes to run, of host and gpu (default: both)")
    ap.add_argument("--fake-gpu", action="store_true",
                    help="run mode gpu on host devices (to test the check without a GPU)")
    ap.add_argument("--launch-args", default="0.2 3")
    ap.add_argument("--transfer-args", default="256 5")
    ap.add_argument("--daxpy-args", default="--n 4194304 --runs 1 --reps 1,10")
    ap.add_argument("--heat2d-args", default="--runs 1 --steps 50")
    a = ap.parse_args()
    a.pack = os.path.abspath(a.pack)
    bad = [m for m in a.modes.split(",") if m not in ("host", "gpu")]
    if bad or not a.modes:
        ap.error("--modes takes host and/or gpu, not %r" % a.modes)
    # Scratch outside the pack, so that a pack folder carried to a remote runner stays small.
    a.work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="gpu-check-")
    global REPORT
    if os.environ.get("OUT"):
        os.makedirs(os.environ["OUT"], exist_ok=True)
        REPORT = os.path.join(os.environ["OUT"], "gpu-check.txt")
        open(REPORT, "w").close()
    c = Check(a)
    c.only = [x for x in a.only.split(",") if x]
    say("gpu-check: pack %s, scratch %s" % (a.pack, a.work))
    if not c.setup():
        return 2
    try:
        c.machine()
        c.steps()
        c.summary()
    finally:
        if not a.keep:
            for d in ("progs", "deps", "stock-extra"):
                shutil.rmtree(os.path.join(a.work, d), ignore_errors=True)
    rc = 0
    if c.bad:
        say("gpu-check: FAILED: " + "; ".join(c.bad))
        rc = 1
    if a.require_gpu and not c.gpu:
        say("gpu-check: FAILED: --require-gpu, and there is no usable GPU: " + c.gpu_reason)
        rc = 2
    if rc == 0:
        say("gpu-check: OK%s" % ("" if c.gpu else " (host devices only: every GPU step SKIPPED)"))
    if REPORT:
        say("gpu-check: report written to %s" % REPORT)
    return rc


if __name__ == "__main__":
    sys.exit(main())
