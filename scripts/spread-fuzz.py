#!/usr/bin/env python3
"""Random programs over Spread's multi-device constructs, checked against a serial reference.

Every run of a generated program must end in one of: the serial result, or a Spread error (a
message and a non-zero exit). A wrong result without a Spread diagnostic, a crash, or a hang is a
bug, and so is a Spread error in a program whose parameters are valid OpenMP (a "false error").

Compile time dominates (spread-cc takes about a second per program), so the generator splits a
program into a *shape*, fixed at compile time (which constructs, nowait/depend, reduction, schedule
kinds, the length and form of each devices list, data regions, wrappers, sync points), and
*parameters* the program draws at run time from the seed on its command line (sizes, halo widths,
device numbers, chunk sizes, data-region ranges, steps). One binary runs many cases.

What each case means in OpenMP is decided here, in `Model`, from the parameters the program
prints and the chunk placement the runtime prints (SPREAD_INFO=chunks): with dynamic and adaptive
schedules the placement is only known after the fact, and an erroring run still prints the chunks
dealt before the error. A case is
  VALID    valid OpenMP, and OpenMP's result is the serial one: it must PASS (warnings allowed);
  INVALID  not conforming (a section extending a mapping of its device, a device that does not
           exist, a negative chunk) or relying on data Spread promises to warn about (a chunk
           copying data anew from the host while another device holds a mapping of it): a Spread
           error, a warning, or the serial result are acceptable, a silent wrong result is not;
  SILENT   as INVALID, but the chunks reach the runtime as target tasks Spread does not tell
           from plain ones (depend without nowait, or SPREAD_NOWAIT=libomp), where it documents
           no warning: a wrong result without a diagnostic is counted as "unwarned", not a bug;
  UNSPEC   valid OpenMP whose result differs from the serial one in a way nobody can diagnose
           (a host chunk writing data a device holds): only crashes and hangs count.

Usage: scripts/spread-fuzz.py --shapes 20 --cases 50 --seed 1 --jobs 2 [--budget SECONDS]
Output (--out, default target/spread-fuzz): shapes/ (sources, binaries), bugs/ (a reproducer
per bug: source, seed, environment, command, output), cases.jsonl, summary.md. The exit status
is 1 when a bug was found. docs/runtime.md ("Random spread programs") describes it.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

from fuzz_common import base_env, excluded, run_process, runtime_paths

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCHEDS = ["none", "static", "static_c", "dynamic", "dynamic_c", "adaptive", "adaptive_c"]
RED_OPS = ["+", "*", "max", "min"]
# combined constructs 'target spread' is written with (docs/spread-abi.md §4)
KINDS = ["teams distribute parallel for", "parallel for", "teams loop", "teams distribute",
         "teams distribute parallel for simd", "parallel for simd"]


# ---------------------------------------------------------------------------------------------
# Shapes: the compile-time structure of a program
# ---------------------------------------------------------------------------------------------


@dataclass
class DevList:
    """A devices(...) clause: None for no clause (every device, in number order), else one item
    per entry: ("rt", form) a value drawn at run time, written as a local, an array element or a
    call; ("lit", n) an integer literal; ("host",) omp_get_initial_device()."""

    items: list = None

    def length(self):
        return 0 if self.items is None else len(self.items)


@dataclass
class Shape:
    idx: int
    elem: str = "uint32_t"
    storage: str = "heap"  # heap | static (global arrays)
    loop: str = "lt_long"  # lt_long | lt_int | le_long: the loop's form and index type
    wrapper: str = "initial"  # initial | par_all | par_step
    nowait: bool = False
    # per construct: does it carry nowait (only when the shape is a nowait shape)
    nw: dict = field(default_factory=dict)
    sync: str = "taskwait"  # taskwait | taskgroup | barrier (end of single / parallel)
    sync_scope: str = "end"  # step | end
    region: str = "none"  # none | data (target data spread) | enter_exit
    region_inside: bool = True  # the region inside the parallel/single (par_all only)
    hold_a: bool = False  # the region maps A with its halo
    hold_b: bool = False  # the region maps B
    map_a: str = "to"  # to | tofrom
    map_b: str = "tofrom"  # alloc | from | tofrom
    exit_release: str = "release"  # release | delete (enter/exit: what exit does to 'to' items)
    region_devs_same: bool = True  # the region's devices clause repeats the compute one
    present: bool = False  # compute constructs map what the region holds 'present, alloc'
    cdevs: DevList = None
    xdevs: DevList = None  # C2's own devices list (None: C1's)
    rdevs: DevList = None
    has_c2: bool = True  # A[i] = g(B[i], A[i]) after the stencil
    c2_map: str = "tofrom"  # tofrom (reads A[i]) | from
    has_c3: bool = False  # a reduction
    red_op: str = "+"
    red_type: str = "int"
    red_src: str = "B"  # B (interior) | A (reads the halo)
    red2: bool = False  # a second reduction variable with its own operator and type
    red2_op: str = "max"
    red2_type: str = "double"
    # the combined construct after 'target spread', per construct
    kinds: dict = field(default_factory=dict)
    c1_b_map: str = "from"  # from | tofrom
    sched: dict = field(default_factory=dict)  # construct -> one of SCHEDS
    upd_strips: bool = False  # U1 copies the interior's edges (two constructs), not all of it
    halo: bool = True  # nonzero halo widths are drawn
    host_pct: int = 12  # % of runtime device values that are the host
    bad_pct: int = 0  # % of runtime device values / chunks that are invalid
    steps_max: int = 3
    debug: bool = False  # -g
    opt: str = "-O1"

    def name(self):
        return "shape%03d" % self.idx

    def constructs(self):
        cs = ["C1"]
        if self.has_c3:
            cs.append("C3")
        if self.has_c2:
            cs.append("C2")
        return cs

    def has_updates(self):
        # A halo refresh is needed when A changes on the devices that hold it; without a region
        # the update constructs would find nothing mapped (OpenMP: no-op), so they are left out.
        return self.region != "none" and self.has_c2

    def tags(self):
        """Short feature names, for --exclude and for the summary."""
        t = ["wrapper=" + self.wrapper, "region=" + self.region, "elem=" + self.elem]
        if self.present:
            t.append("present")
        if self.nowait:
            t += ["nowait", "sync=" + self.sync, "sync_scope=" + self.sync_scope]
            t += ["nowait:" + c for c, v in sorted(self.nw.items()) if v]
        if self.has_c3:
            t += ["reduction", "red=%s:%s" % (self.red_op, self.red_type)]
        for c, s in sorted(self.sched.items()):
            t.append("sched=" + s)
        if self.cdevs.items is None:
            t.append("devices=all")
        else:
            t.append("ndevices=%d" % self.cdevs.length())
        if self.xdevs is not None:
            t.append("c2_devices")
        if self.has_c3:
            t.append("red_kind=" + self.kinds.get("C3", KINDS[0]).replace(" ", "_"))
        if self.has_c3 and self.red2:
            t.append("red2=%s:%s" % (self.red2_op, self.red2_type))
        for c in self.constructs():
            t.append("kind=" + self.kinds.get(c, KINDS[0]).replace(" ", "_"))
        return sorted(set(t))


def gen_devlist(rng, allow_none=True):
    if allow_none and rng.random() < 0.12:
        return DevList(None)
    n = rng.choice([1, 1, 2, 2, 3, 3, 4, 4, 5, 6])
    items = []
    for _ in range(n):
        r = rng.random()
        if r < 0.7:
            items.append(("rt", rng.choice(["local", "array", "call"])))
        elif r < 0.9:
            items.append(("lit", rng.choice([0, 0, 1, 1, 2, 3])))
        else:
            items.append(("host",))
    return DevList(items)


def gen_shape(rng, idx):
    """A random shape. The odds lean towards cases that are valid OpenMP (most region shapes
    static, matching lists) while keeping every construct and clause form reachable."""
    s = Shape(idx=idx)
    s.elem = rng.choice(["uint32_t", "uint64_t"])
    s.storage = rng.choice(["heap", "heap", "static"])
    s.loop = rng.choice(["lt_long", "lt_long", "lt_int", "le_long"])
    s.wrapper = rng.choice(["initial", "par_all", "par_all", "par_step"])
    s.nowait = rng.random() < 0.55
    kind = rng.random()
    if kind < 0.15:  # a reduction over A's halo, nothing else
        s.has_c2, s.has_c3, s.red_src = False, True, "A"
    else:
        s.has_c2 = rng.random() < 0.7
        s.has_c3 = rng.random() < 0.35
        s.red_src = rng.choice(["A", "B"])
    s.red_op = rng.choice(RED_OPS)
    s.red_type = rng.choice(["int", "double"])
    s.c2_map = rng.choice(["tofrom", "tofrom", "from"])
    s.c1_b_map = rng.choice(["from", "tofrom"])
    s.upd_strips = rng.random() < 0.4
    s.halo = rng.random() < 0.85
    s.steps_max = rng.choice([1, 2, 3, 4])
    s.debug = rng.random() < 0.3
    s.opt = rng.choice(["-O1", "-O1", "-O2", "-O0"])
    s.bad_pct = rng.choice([0, 0, 0, 2])

    r = rng.random()
    s.region = "none" if r < 0.4 else ("data" if r < 0.7 else "enter_exit")
    if s.region != "none":
        s.hold_a = rng.random() < 0.8
        s.hold_b = rng.random() < 0.6 or not s.hold_a
        s.map_a = rng.choice(["to", "tofrom"])
        s.map_b = rng.choice(["alloc", "from", "tofrom"])
        s.exit_release = rng.choice(["release", "delete"])
        s.region_inside = rng.random() < 0.6
        s.region_devs_same = rng.random() < 0.75
        s.present = rng.random() < 0.3

    s.cdevs = gen_devlist(rng)
    if s.nowait and rng.random() < 0.3:
        # One device: every chunk's halo overlaps the previous chunk's section there while
        # that chunk is still in flight (what nowait_overlap.c tests), in every step.
        s.cdevs = DevList([("rt", "local")])
    s.rdevs = s.cdevs if s.region_devs_same else gen_devlist(rng)
    # C2 on devices of its own: data goes through the host between the constructs (with a
    # region, mostly an invalid case)
    if s.has_c2 and rng.random() < (0.25 if s.region == "none" else 0.08):
        s.xdevs = gen_devlist(rng)
    s.red2 = rng.random() < 0.3
    s.red2_op = rng.choice(RED_OPS)
    s.red2_type = rng.choice(["int", "double"])
    for c in ("C1", "C2", "C3"):
        s.kinds[c] = rng.choice(KINDS) if rng.random() < 0.35 else KINDS[0]
    # A host chunk that writes data a device holds gives a result nobody can diagnose (UNSPEC):
    # keep the host rarer where the region holds written data.
    s.host_pct = 3 if (s.region != "none") else 12

    # With a region, dynamic and adaptive chunks land on devices that do not hold their data
    # (an explicit extension, mostly): keep most region shapes static so that most of their
    # runs are valid.
    same = rng.random() < (0.8 if s.region != "none" else 0.6)
    if s.region != "none" and rng.random() < 0.7:
        first = rng.choice(["none", "static", "static_c", "static_c"])
    else:
        first = rng.choice(SCHEDS)
    for c in s.constructs():
        s.sched[c] = first if same else rng.choice(SCHEDS)

    if s.nowait:
        s.nw = {c: rng.random() < 0.85 for c in s.constructs()}
        if s.has_updates():
            s.nw["U"] = rng.random() < 0.6
        # Enter/exit nowait: their tasks must be siblings of the constructs that depend on them.
        if s.region == "enter_exit" and (s.wrapper == "initial" or
                                         (s.wrapper == "par_all" and s.region_inside)):
            s.nw["E"] = rng.random() < 0.6
        if s.wrapper == "par_step":
            s.sync_scope = "step"
            s.sync = rng.choice(["taskwait", "taskgroup", "barrier"])
        elif s.wrapper == "par_all":
            s.sync_scope = rng.choice(["step", "end"])
            opts = ["taskwait", "taskgroup"]
            if not s.region_inside and s.sync_scope == "end":
                opts.append("barrier")  # the implicit barrier at the end of the single
            s.sync = rng.choice(opts)
        else:
            s.sync_scope = rng.choice(["step", "end"])
            s.sync = rng.choice(["taskwait", "taskgroup"])
    return s


# ---------------------------------------------------------------------------------------------
# C emission
# ---------------------------------------------------------------------------------------------

C_COMMON = r"""
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters drawn from the seed (splitmix64), printed on one line for the harness. */
static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static long pick(long lo, long hi) { /* inclusive */
  if (hi <= lo) return lo;
  return lo + (long)(rnd() % (uint64_t)(hi - lo + 1));
}
static int chance(int pct) { return (int)pick(0, 99) < pct; }

struct params {
  long NT, lo, hi;
  int hl, hr, rhl, rhr, steps;
  long chunk[3];
  long rlo, rlen, rc, rm;
};
static struct params P;
static int ndev, host;
static int cdev[8], rdev[8], xdev[8];

/* A device value: usually an existing device, sometimes the host, rarely one that does not
   exist (an error is then expected). */
static int gen_dev(void) {
  int r = (int)pick(0, 99);
  if (r < BAD_PCT) return ndev + 1 + (int)pick(0, 2);
  if (r < BAD_PCT + HOST_PCT || ndev == 0) return host;
  return (int)pick(0, ndev - 1);
}

static void gen_devs(int *out, int n, const int *kind, const int *lit) {
  /* Half the time distinct devices in a random order (a permutation of a subset), else
     independent draws (repeats). */
  int perm[64], np = ndev < 64 ? ndev : 64;
  for (int i = 0; i < np; i++) perm[i] = i;
  for (int i = np - 1; i > 0; i--) {
    int j = (int)pick(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int distinct = chance(70);
  for (int k = 0; k < n; k++) {
    if (kind[k] == 1) out[k] = lit[k];
    else if (kind[k] == 2) out[k] = host;
    else if (distinct && k < np && !chance(BAD_PCT + HOST_PCT)) out[k] = perm[k];
    else out[k] = gen_dev();
  }
}

/* A chunk size for a range of len iterations: small, any, near a divisor, the whole range or
   more, 0 (no chunk size: one block per device), rarely negative (an error). */
static long gen_chunk(long len) {
  if (chance(BAD_PCT)) return -pick(1, 3);
  int r = (int)pick(0, 99);
  long c;
  if (r < 30) c = pick(1, 4);
  else if (r < 55) c = pick(1, len > 1 ? len : 1);
  else if (r < 72) c = (len / pick(2, 8)) + pick(-1, 1);
  else if (r < 85) c = len + pick(0, 5);
  else c = 0;
  if (c < 0) c = 1;
  /* at most about 160 chunks per construct: each is a launch */
  if (c > 0 && len / c > 160) c = len / 160 + 1;
  return c;
}

static void print_devs(const char *name, const int *d, int n) {
  printf(" %s=", name);
  if (n == 0) printf("all");
  for (int k = 0; k < n; k++) printf("%s%d", k ? "," : "", d[k]);
}

/* Whether two of the region's chunks on one device overlap once widened by its halo (the
   static rule of docs/schedules.md; chunks of one device come in increasing order). */
static int region_self_overlap(void) {
  int n = REGION_SAME_DEVS ? NCDEV : NRDEV, all[64];
  const int *devs = rdev;
  if (n == 0) {
    n = ndev < 64 ? ndev : 64;
    for (int k = 0; k < n; k++) all[k] = k;
    devs = all;
  }
  long last_hi[130];
  for (int k = 0; k < 130; k++) last_hi[k] = -1000000;
  long lo = P.rlo, hi = P.rlo + P.rlen, len = P.rlen;
  if (n == 0 || len <= 0) return 0;
  for (int k = 0; lo < hi; k++) {
    long size = P.rc > 0 ? P.rc : len / n + (k < len % n);
    if (P.rc <= 0 && k >= n) break;
    if (size <= 0) break;
    long e = lo + size < hi ? lo + size : hi;
    int d = devs[P.rc > 0 ? k % n : k];
    if (d >= 0 && d < 128 && d != host) {
      if (lo - P.rhl < last_hi[d] + P.rhr) return 1;
      last_hi[d] = e;
    }
    lo = e;
  }
  return 0;
}

static void gen_params(long seed) {
  rng_state = (uint64_t)seed * 0x2545f4914f6cdd1dull + 1;
  ndev = omp_get_num_devices();
  host = omp_get_initial_device();
  int sz = (int)pick(0, 9);
  P.NT = sz < 3 ? pick(1, 24) : sz < 8 ? pick(16, 300) : pick(300, 2000);
  P.hl = HALO ? (chance(25) ? 0 : (int)pick(0, chance(10) ? 9 : 3)) : 0;
  P.hr = HALO ? (chance(25) ? 0 : (int)pick(0, chance(10) ? 9 : 3)) : 0;
  while (P.hl + P.hr > P.NT) {
    if (P.hl > 0) P.hl--;
    else P.hr--;
  }
  long room = P.NT - P.hl - P.hr;
  P.lo = P.hl + pick(0, room < 3 ? room : 3);
  P.hi = P.NT - P.hr - pick(0, (P.NT - P.hr - P.lo) < 3 ? (P.NT - P.hr - P.lo) : 3);
  long len = P.hi - P.lo;
  P.steps = (int)pick(1, STEPS_MAX);
  P.rm = len / 6 + 1; /* at most 7 factors of 2 per step */
  for (int c = 0; c < 3; c++) P.chunk[c] = gen_chunk(len);
#if NCDEV > 0
  gen_devs(cdev, NCDEV, cdev_kind, cdev_lit);
#endif
#if NXDEV > 0
  gen_devs(xdev, NXDEV, xdev_kind, xdev_lit);
#endif
#if REGION
#if REGION_SAME_DEVS
  memcpy(rdev, cdev, sizeof cdev);
#elif NRDEV > 0
  gen_devs(rdev, NRDEV, rdev_kind, rdev_lit);
#endif
  int matched = chance(65);
  if (matched) {
    /* the region matches the compute constructs: same range, chunk and halo */
    P.chunk[1] = P.chunk[2] = P.chunk[0];
    P.rlo = P.lo;
    P.rlen = len;
    P.rc = MATCH_CHUNK;
    P.rhl = P.hl;
    P.rhr = P.hr;
    if (chance(20)) P.rhl += (int)pick(0, 2), P.rhr += (int)pick(0, 2); /* wider halos */
  } else {
    P.rhl = HALO ? (int)pick(0, P.hl + 2) : 0;
    P.rhr = HALO ? (int)pick(0, P.hr + 2) : 0;
    if (chance(50)) {
      /* near misses: the compute range shifted or resized by a little */
      P.rlo = P.lo + pick(-2, 2);
      P.rlen = len + pick(-2, 2);
      P.rc = chance(50) ? MATCH_CHUNK + pick(-1, 1) : gen_chunk(len);
    } else {
      P.rlo = pick(0, P.NT);
      P.rlen = pick(0, P.NT);
      P.rc = gen_chunk(P.rlen);
    }
  }
  /* the region's sections stay inside the arrays */
  if (P.rhl + P.rhr > P.NT) P.rhl = P.rhr = 0;
  if (P.rlo < P.rhl) P.rlo = P.rhl;
  if (P.rlen < 0) P.rlen = 0;
  if (P.rlo + P.rlen + P.rhr > P.NT) P.rlen = P.NT - P.rhr - P.rlo;
  if (P.rlen < 0) {
    P.rlen = 0;
    P.rlo = P.rhl;
  }
  if (P.rc < 0 && !chance(BAD_PCT * 10)) P.rc = 0;
  /* Chunks of one device whose halos overlap are an explicit extension (an error case): usually
     widen the chunk so that they do not, else deal blocks. */
  if (region_self_overlap() && chance(80)) {
    int nr = REGION_SAME_DEVS ? NCDEV : NRDEV;
    if (nr == 0) nr = ndev;
    if (P.rc > 0 && nr > 1) P.rc = (P.rhl + P.rhr + nr - 2) / (nr - 1) + pick(0, 3);
    if (region_self_overlap()) P.rc = 0;
    if (matched) P.chunk[0] = P.chunk[1] = P.chunk[2] = P.rc;
  }
#endif
  printf("params: NT=%ld lo=%ld hi=%ld hl=%d hr=%d steps=%d ndev=%d host=%d c=%ld,%ld,%ld rm=%ld",
         P.NT, P.lo, P.hi, P.hl, P.hr, P.steps, ndev, host, P.chunk[0], P.chunk[1], P.chunk[2],
         P.rm);
  print_devs("cdev", cdev, NCDEV);
#if XDEVS
  print_devs("xdev", xdev, NXDEV);
#endif
#if REGION
  printf(" rlo=%ld rlen=%ld rc=%ld rhl=%d rhr=%d", P.rlo, P.rlen, P.rc, P.rhl, P.rhr);
  print_devs("rdev", rdev, REGION_SAME_DEVS ? NCDEV : NRDEV);
#endif
  printf("\n");
  fflush(stdout);
}

static int device_value(int k) { return cdev[k]; } /* devices given as a call */

static void init_arrays(elem_t *A, elem_t *B, long NT) {
  for (long i = 0; i < NT; i++) {
    A[i] = (elem_t)((uint64_t)i * 2654435761u + 12345u);
    B[i] = (elem_t)(i ^ 0x5a5a);
  }
}

static int mismatches;
static void mismatch(const char *what, long i, unsigned long long got, unsigned long long want) {
  if (mismatches++ < 4)
    printf("%s %s[%ld]=%llu want %llu;", mismatches == 1 ? "result: FAIL" : "", what, i, got, want);
}
"""


def c_devlist(dl, prefix):
    """The devices(...) clause text for a DevList; runtime values read cdev/rdev/xdev."""
    if dl.items is None:
        return ""
    arr = {"dv": "cdev", "rv": "rdev", "xv": "xdev"}[prefix]
    parts = []
    for k, it in enumerate(dl.items):
        if it[0] == "lit":
            parts.append(str(it[1]))
        elif it[0] == "host":
            parts.append("omp_get_initial_device()")
        elif it[1] == "local":
            parts.append("%s%d" % (prefix, k))
        elif it[1] == "array":
            parts.append("%s[%d]" % (arr, k))
        else:
            # a call: only for the compute list (device_value reads cdev)
            parts.append("device_value(%d)" % k if arr == "cdev" else "%s[%d]" % (arr, k))
    return " devices(%s)" % ", ".join(parts)


def c_kinds(dl):
    if dl.items is None:
        return [0], [0]
    kind = [0 if it[0] == "rt" else (1 if it[0] == "lit" else 2) for it in dl.items]
    lit = [it[1] if it[0] == "lit" else 0 for it in dl.items]
    return kind, lit


def c_sched(kind, var):
    if kind == "none":
        return ""
    base = kind.replace("_c", "")
    if kind.endswith("_c"):
        return " spread_schedule(%s, %s)" % (base, var)
    return " spread_schedule(%s)" % base


RED_INIT = {("+", "int"): "5", ("*", "int"): "3", ("max", "int"): "-1000", ("min", "int"): "1000",
            ("+", "double"): "0.5", ("*", "double"): "1.5", ("max", "double"): "-1e9",
            ("min", "double"): "1e9"}


def red_update(s):
    """The reduction body: values that every order of combination gives exactly (small integers,
    multiples of 0.25, products of at most a few dozen 2s and -1s)."""
    v = "(B[i])" if s.red_src == "B" else "(A[i - hl] + A[i + hr])"
    out = red_statement("red", s.red_op, s.red_type, v)
    if s.red2:
        out = "{ %s %s }" % (out, red_statement("red2", s.red2_op, s.red2_type, v))
    return out


def red_statement(var, op, typ, v):
    d = "double" if typ == "double" else "int"
    if op == "+":
        e = "((%s)((int)(%s %% 7u) - 3)%s)" % (d, v, " * 0.25" if d == "double" else "")
        return "%s += %s;" % (var, e)
    if op == "*":
        if d == "int":
            return "%s *= (i %% rm == 0) ? 2 : ((%s %% 5u == 0) ? -1 : 1);" % (var, v)
        return "%s *= (i %% rm == 0) ? 2.0 : ((%s %% 5u == 0) ? -1.0 : ((%s %% 7u == 0) ? 0.5 : 1.0));" % (var, v, v)
    e = "((%s)((int)(%s %% 1000u) - 500)%s)" % (d, v, " * 0.5" if d == "double" else "")
    cmp = ">" if op == "max" else "<"
    return "{ %s t_ = %s; %s = t_ %s %s ? t_ : %s; }" % (d, e, var, cmp, var, var)


class Emitter:
    """Writes lines and remembers the line numbers of the constructs (SPREAD_INFO=chunks names
    a construct by its pragma's line)."""

    def __init__(self):
        self.lines = []
        self.where = {}

    def add(self, text, tag=None):
        for ln in text.split("\n"):
            self.lines.append(ln)
        if tag:
            self.where[len(self.lines)] = tag

    def src(self):
        return "\n".join(self.lines) + "\n"


def loop_header(s):
    if s.loop == "lt_int":
        return "for (int i = (int)lo; i < (int)hi; i++)"
    if s.loop == "le_long":
        return "for (long i = lo; i <= hi - 1; i++)"
    return "for (long i = lo; i < hi; i++)"


def bodies(s):
    c1 = ("{ elem_t s_ = (elem_t)i * 7u + 1u; for (int k_ = -hl; k_ <= hr; k_++) "
          "s_ = s_ * 31u + A[i + k_]; B[i] = s_; }")
    if s.c2_map == "tofrom":
        c2 = "A[i] = B[i] ^ (A[i] >> 3);"
    else:
        c2 = "A[i] = B[i] * 3u + 1u;"
    return {"C1": c1, "C2": c2, "C3": red_update(s)}


def emit_program(s):
    """The C source of shape s, and {line: construct} for the chunk lines."""
    e = Emitter()
    e.add("/* Generated by scripts/spread-fuzz.py: %s. Run: ./prog SEED */" % s.name())
    e.add("/* features: %s */" % " ".join(s.tags()))
    e.add("typedef %s elem_t;" % s.elem)
    ck, cl = c_kinds(s.cdevs)
    rk, rl = c_kinds(s.rdevs)
    xk, xl = c_kinds(s.xdevs or DevList(None))
    ncdev = s.cdevs.length()
    nrdev = s.rdevs.length()
    match = {"static_c": "P.chunk[0]", "static": "0", "none": "0"}.get(s.sched["C1"], "P.chunk[0]")
    defs = {
        "NCDEV": ncdev, "NRDEV": nrdev, "REGION": int(s.region != "none"),
        "XDEVS": int(s.xdevs is not None), "NXDEV": s.xdevs.length() if s.xdevs else 0,
        "REGION_SAME_DEVS": int(s.region_devs_same), "HALO": int(s.halo),
        "STEPS_MAX": s.steps_max, "HOST_PCT": s.host_pct, "BAD_PCT": s.bad_pct,
        "MATCH_CHUNK": match, "MAXNT": 2100,
    }
    for k, v in defs.items():
        e.add("#define %s %s" % (k, v))
    e.add("static const int cdev_kind[] = {%s}, cdev_lit[] = {%s};" % (
        ", ".join(map(str, ck)), ", ".join(map(str, cl))))
    e.add("static const int rdev_kind[] = {%s}, rdev_lit[] = {%s};" % (
        ", ".join(map(str, rk)), ", ".join(map(str, rl))))
    e.add("static const int xdev_kind[] = {%s}, xdev_lit[] = {%s};" % (
        ", ".join(map(str, xk)), ", ".join(map(str, xl))))
    e.add(C_COMMON)
    b = bodies(s)
    rt = "double" if s.red_type == "double" else "int"
    rt2 = "double" if s.red2_type == "double" else "int"
    hdr = loop_header(s)

    # The serial reference: the same bodies, in program order.
    e.add("static void reference(elem_t *A, elem_t *B, %s *redp, %s *red2p) {" % (rt, rt2))
    e.add("  const long lo = P.lo, hi = P.hi, rm = P.rm; const int hl = P.hl, hr = P.hr;")
    e.add("  %s red = *redp; (void)rm; (void)red;" % rt)
    e.add("  %s red2 = *red2p; (void)red2;" % rt2)
    e.add("  for (int step = 0; step < P.steps; step++) {")
    for c in s.constructs():
        e.add("    %s %s" % (hdr, b[c]))
    e.add("  }")
    e.add("  *redp = red;")
    e.add("  *red2p = red2;")
    e.add("}")

    if s.storage == "static":
        e.add("static elem_t gA[MAXNT], gB[MAXNT];")

    e.add("int main(int argc, char **argv) {")
    e.add("  if (argc < 2) { fprintf(stderr, \"usage: %s SEED\\n\", argv[0]); return 2; }")
    e.add("  gen_params(atol(argv[1]));")
    if s.storage == "static":
        e.add("  elem_t *A = gA, *B = gB;")
    else:
        e.add("  elem_t *A = malloc(sizeof(elem_t) * P.NT), *B = malloc(sizeof(elem_t) * P.NT);")
    e.add("  init_arrays(A, B, P.NT);")
    e.add("  const long lo = P.lo, hi = P.hi, rm = P.rm; const int hl = P.hl, hr = P.hr;")
    e.add("  const long c1 = P.chunk[0], c2 = P.chunk[1], c3 = P.chunk[2];")
    e.add("  const long rlo = P.rlo, rlen = P.rlen, rc = P.rc; const int rhl = P.rhl, rhr = P.rhr;")
    e.add("  (void)c1; (void)c2; (void)c3; (void)rlo; (void)rlen; (void)rc; (void)rhl; (void)rhr; (void)rm;")
    for k in range(ncdev):
        e.add("  const int dv%d = cdev[%d]; (void)dv%d;" % (k, k, k))
    for k in range(nrdev):
        e.add("  const int rv%d = rdev[%d]; (void)rv%d;" % (k, k, k))
    for k in range(s.xdevs.length() if s.xdevs else 0):
        e.add("  const int xv%d = xdev[%d]; (void)xv%d;" % (k, k, k))
    e.add("  static char tokA, tokB, tokR, tokU; (void)tokA; (void)tokB; (void)tokR; (void)tokU;")
    e.add("  %s red = %s;" % (rt, RED_INIT[(s.red_op, s.red_type)]))
    e.add("  %s red2 = %s; (void)red2;" % (rt2, RED_INIT[(s.red2_op, s.red2_type)]))

    cdevs = c_devlist(s.cdevs, "dv")
    xdevs = c_devlist(s.xdevs, "xv") if s.xdevs else cdevs
    rdevs = cdevs if s.region_devs_same else c_devlist(s.rdevs, "rv")
    dep = s.nowait  # depend clauses on every construct of a nowait shape

    def nw(c):
        return " nowait" if s.nowait and s.nw.get(c) else ""

    halo_a = "A[omp_spread_start - hl : omp_spread_size + hl + hr]"
    rhalo_a = "A[omp_spread_start - rhl : omp_spread_size + rhl + rhr]"
    inner = "B[omp_spread_start : omp_spread_size]"
    inner_a = "A[omp_spread_start : omp_spread_size]"
    region_clause = " range(rlo : rlen) chunk_size(rc)%s" % rdevs

    def mt(arr, t):
        """The map type of a compute construct's item of arr: 'present, alloc' for what the
        region holds when the shape says so (no copies; an error when the section is not
        there)."""
        held = (arr == "A" and s.hold_a) or (arr == "B" and s.hold_b)
        return "present, alloc" if s.present and s.region != "none" and held else t

    def construct(c, ind):
        """One compute construct and its loop."""
        chunkvar = {"C1": "c1", "C2": "c2", "C3": "c3"}[c]
        sch = c_sched(s.sched[c], chunkvar)
        kind = s.kinds.get(c, KINDS[0])
        devs = cdevs
        if c == "C1":
            maps = " map(%s: %s) map(%s: %s)" % (mt("A", "to"), halo_a, mt("B", s.c1_b_map), inner)
            deps = " depend(in: tokA) depend(out: tokB)"
        elif c == "C2":
            maps = " map(%s: %s) map(%s: %s)" % (mt("B", "to"), inner, mt("A", s.c2_map), inner_a)
            deps = " depend(in: tokB) depend(out: tokA)"
            devs = xdevs
        else:
            src = halo_a if s.red_src == "A" else inner
            maps = " map(%s: %s)" % (mt(s.red_src, "to"), src)
            # inout on tokB, not in: the reduction and the copy back (and the stencil) map
            # overlapping sections of A and B with their own chunkings; run at once on one
            # device, the second would extend the first's mapping (a race of the program, an
            # explicit extension).
            deps = " depend(inout: tokB) depend(inout: tokR)"
            kind += " reduction(%s: red)" % s.red_op
            if s.red2:
                kind += " reduction(%s: red2)" % s.red2_op
        e.add("%s#pragma omp target spread %s%s%s%s%s%s" % (
            ind, kind, devs, sch, nw(c), deps if dep else "", maps), tag=c)
        e.add("%s%s %s" % (ind, hdr, b[c]))

    def updates(ind):
        d1 = " depend(in: tokA) depend(out: tokU)" if dep else ""
        d2 = " depend(in: tokU) depend(out: tokA)" if dep else ""
        if s.upd_strips:
            # the edges of each interior that the neighbours' halos cover
            m_r = "(rhr < omp_spread_size ? rhr : omp_spread_size)"
            m_l = "(rhl < omp_spread_size ? rhl : omp_spread_size)"
            e.add("%s#pragma omp target update spread%s%s%s from(A[omp_spread_start : %s])" % (
                ind, region_clause, nw("U"), d1, m_r), tag="U1R")
            e.add("%s#pragma omp target update spread%s%s%s from(A[omp_spread_start + omp_spread_size - %s : %s])" % (
                ind, region_clause, nw("U"), d1, m_l, m_l), tag="U1L")
        else:
            e.add("%s#pragma omp target update spread%s%s%s from(%s)" % (
                ind, region_clause, nw("U"), d1, inner_a), tag="U1")
        # (clang refuses two sections of one array in one construct's motion clauses)
        e.add("%s#pragma omp target update spread%s%s%s to(A[omp_spread_start - rhl : rhl])" % (
            ind, region_clause, nw("U"), d2), tag="U2L")
        e.add("%s#pragma omp target update spread%s%s%s to(A[omp_spread_start + omp_spread_size : rhr])" % (
            ind, region_clause, nw("U"), d2), tag="U2R")

    def region_maps(phase):
        """Map clauses of the region: phase 'data' (target data), 'enter' or 'exit'."""
        out = []
        if s.hold_a:
            t = s.map_a
            if phase == "enter":
                t = "to"
            elif phase == "exit":
                t = "from" if s.map_a == "tofrom" else s.exit_release
            out.append("map(%s: %s)" % (t, rhalo_a))
        if s.hold_b:
            t = s.map_b
            if phase == "enter":
                t = {"alloc": "alloc", "from": "alloc", "tofrom": "to"}[s.map_b]
            elif phase == "exit":
                t = {"alloc": s.exit_release, "from": "from", "tofrom": "from"}[s.map_b]
            out.append("map(%s: B[omp_spread_start : omp_spread_size])" % t)
        return " " + " ".join(out)

    def step_body(ind):
        for c in s.constructs():
            construct(c, ind)
        if s.has_updates():
            updates(ind)

    def steps(ind, par_step):
        """The step loop; with par_step each step is its own parallel region."""
        e.add("%sfor (int step = 0; step < P.steps; step++) {" % ind)
        i2 = ind + "  "
        if par_step:
            e.add("%s#pragma omp parallel" % i2)
            e.add("%s#pragma omp single%s" % (i2, " nowait" if s.sync == "barrier" else ""))
            e.add("%s{" % i2)
            i2 += "  "
        per_step = s.nowait and s.sync_scope == "step"
        if per_step and s.sync == "taskgroup":
            e.add("%s#pragma omp taskgroup" % i2)
            e.add("%s{" % i2)
            step_body(i2 + "  ")
            e.add("%s}" % i2)
        else:
            step_body(i2)
            if per_step and s.sync == "taskwait":
                e.add("%s#pragma omp taskwait" % i2)
        if par_step:
            e.add("%s  }" % ind)
        e.add("%s}" % ind)

    def body_with_end_sync(ind, par_step):
        end = s.nowait and s.sync_scope == "end"
        if end and s.sync == "taskgroup":
            e.add("%s#pragma omp taskgroup" % ind)
            e.add("%s{" % ind)
            steps(ind + "  ", par_step)
            e.add("%s}" % ind)
        else:
            steps(ind, par_step)
            if end and s.sync == "taskwait":
                e.add("%s#pragma omp taskwait" % ind)

    def with_region(ind, inner_fn):
        """The region around inner_fn(ind)."""
        if s.region == "data":
            e.add("%s#pragma omp target data spread%s%s" % (ind, region_clause, region_maps("data")),
                  tag="R")
            e.add("%s{" % ind)
            inner_fn(ind + "  ")
            e.add("%s}" % ind)
        elif s.region == "enter_exit":
            enw = s.nowait and s.nw.get("E")
            e.add("%s#pragma omp target enter data spread%s%s%s%s" % (
                ind, region_clause, " nowait" if enw else "",
                " depend(out: tokA, tokB)" if dep else "", region_maps("enter")), tag="RE")
            inner_fn(ind)
            e.add("%s#pragma omp target exit data spread%s%s%s%s" % (
                ind, region_clause, " nowait" if enw else "",
                " depend(inout: tokA, tokB)" if dep else "", region_maps("exit")), tag="RX")
            if enw:
                e.add("%s#pragma omp taskwait" % ind)
        else:
            inner_fn(ind)

    def final_update(ind):
        # With edge-only refreshes the host's copy of the devices' interiors is stale until
        # this whole-interior update (placed after the steps' sync points).
        if s.has_updates() and s.upd_strips:
            e.add("%s#pragma omp target update spread%s from(%s)" % (ind, region_clause, inner_a),
                  tag="UF")

    def steps_then_final(ind, par_step):
        body_with_end_sync(ind, par_step)
        final_update(ind)

    ind = "  "
    if s.wrapper == "initial":
        with_region(ind, lambda i: steps_then_final(i, False))
    elif s.wrapper == "par_step":
        with_region(ind, lambda i: steps_then_final(i, True))
    else:
        def par(i, fn):
            e.add("%s#pragma omp parallel" % i)
            e.add("%s#pragma omp single" % i)
            e.add("%s{" % i)
            fn(i + "  ")
            e.add("%s}" % i)
        if s.region_inside:
            par(ind, lambda i: with_region(i, lambda j: steps_then_final(j, False)))
        else:
            def par_then_final(i):
                par(i, lambda j: body_with_end_sync(j, False))
                final_update(i)
            with_region(ind, par_then_final)

    # Compare with the serial reference.
    e.add("  elem_t *RA = malloc(sizeof(elem_t) * P.NT), *RB = malloc(sizeof(elem_t) * P.NT);")
    e.add("  init_arrays(RA, RB, P.NT);")
    e.add("  %s rred = %s;" % (rt, RED_INIT[(s.red_op, s.red_type)]))
    e.add("  %s rred2 = %s;" % (rt2, RED_INIT[(s.red2_op, s.red2_type)]))
    e.add("  reference(RA, RB, &rred, &rred2);")
    e.add("  for (long i = 0; i < P.NT; i++)")
    e.add("    if (A[i] != RA[i]) mismatch(\"A\", i, A[i], RA[i]);")
    # B as the region leaves it: with alloc (or release/delete at exit) the host's B is not the
    # devices' B; outside [lo, hi) a region 'from' may copy back what a device never wrote.
    b_checked = not (s.region != "none" and s.hold_b and s.map_b == "alloc")
    if b_checked:
        e.add("  for (long i = lo; i < hi; i++)")
        e.add("    if (B[i] != RB[i]) mismatch(\"B\", i, B[i], RB[i]);")
    if s.has_c3:
        vars_ = [("red", s.red_type)] + ([("red2", s.red2_type)] if s.red2 else [])
        for v, t in vars_:
            f = "%.17g" if t == "double" else "%d"
            e.add("  if (%s != r%s) { if (mismatches++ < 4) printf(\"%%s %s=%s want %s;\", mismatches == 1 ? \"result: FAIL\" : \"\", %s, r%s); }"
                  % (v, v, v, f, f, v, v))
    e.add("  if (mismatches) { printf(\" (%d mismatches)\\n\", mismatches); return 3; }")
    e.add("  printf(\"result: PASS\\n\");")
    e.add("  return 0;")
    e.add("}")
    return e.src(), e.where


# ---------------------------------------------------------------------------------------------
# The model: what OpenMP says a case computes
# ---------------------------------------------------------------------------------------------


def static_deal(lo, hi, devs, chunk):
    """Spread's static rule (docs/schedules.md): chunk k of `chunk` iterations to devs[k mod n];
    without a chunk, one block per entry, the first len % n entries one iteration more."""
    out = []
    n = len(devs)
    if hi <= lo or n == 0:
        return out
    if chunk > 0:
        k, x = 0, lo
        while x < hi:
            out.append((x, min(x + chunk, hi), devs[k % n]))
            x += chunk
            k += 1
    else:
        base, extra = divmod(hi - lo, n)
        x = lo
        for k in range(n):
            size = base + (1 if k < extra else 0)
            if size == 0:
                break
            out.append((x, x + size, devs[k]))
            x += size
    return out


def parse_params(line):
    p = {}
    for tok in line.split()[1:]:
        k, v = tok.split("=", 1)
        if k in ("cdev", "rdev", "xdev"):
            p[k] = None if v == "all" else [int(x) for x in v.split(",")]
        elif k == "c":
            p[k] = [int(x) for x in v.split(",")]
        else:
            p[k] = int(v)
    return p


CHUNK_RE = re.compile(r"^spread: \S+?:(\d+) chunk \[(-?\d+),(-?\d+)\) -> device (-?\d+)")


def parse_chunks(err):
    """{line: [(lo, hi, device), ...]} in printing order."""
    out = {}
    for ln in err.splitlines():
        m = CHUNK_RE.match(ln)
        if m:
            out.setdefault(int(m.group(1)), []).append(
                (int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return out


def parse_sched_env(v):
    """SPREAD_SCHEDULE's kind and chunk (the harness only sets well-formed values)."""
    if not v:
        return "static", 0
    kind, _, c = v.partition(",")
    return kind, int(c) if c else 0


class Model:
    """Decides VALID / INVALID / SILENT / UNSPEC for one run from the shape, the printed
    parameters and the printed chunk placement, and checks the static deals against the
    documented rule.

    The data regions' mappings are fixed (data constructs always deal statically), so a compute
    chunk's validity depends only on its own range and device. With a region, the program keeps
    every copy coherent: each step ends with a halo refresh (from each device's interior to the
    host, then the host to each device's halo), so at every compute construct the host and each
    device agree on what they hold, provided every write lands where its owner keeps it."""

    def __init__(self, shape, p, env):
        self.s, self.p, self.env = shape, p, env
        self.ndev, self.host = p["ndev"], p["host"]
        self.reasons = []
        self.level = "VALID"

    def note(self, level, why):
        order = {"VALID": 0, "INVALID": 1, "SILENT": 2, "UNSPEC": 3}
        if order[level] > order[self.level]:
            self.level = level
        if len(self.reasons) < 6 and why not in self.reasons:
            self.reasons.append(why)

    def devs(self, lst):
        return list(range(self.ndev)) if lst is None else lst

    def bad_device(self, d):
        return not (0 <= d <= self.ndev)  # ndev is the host (omp_get_initial_device())

    def region_entries(self):
        """Per array, the mappings the region leaves on each device: (dev, map_lo, map_hi,
        int_lo, int_hi)."""
        s, p = self.s, self.p
        ents = {"A": [], "B": []}
        if s.region == "none":
            return ents
        chunks = static_deal(p["rlo"], p["rlo"] + p["rlen"], self.devs(p["rdev"]), max(p["rc"], 0))
        for lo, hi, d in chunks:
            if d == self.host or self.bad_device(d):
                continue  # the host's own memory: nothing is mapped
            if s.hold_a:
                ents["A"].append((d, lo - p["rhl"], hi + p["rhr"], lo, hi))
            if s.hold_b:
                ents["B"].append((d, lo, hi, lo, hi))
        return ents

    def accesses(self, c, lo, hi):
        """(array, lo, hi, writes, copies_in) of a chunk [lo, hi) of construct c."""
        s, p = self.s, self.p
        hl, hr = p["hl"], p["hr"]
        if c == "C1":
            return [("A", lo - hl, hi + hr, False, True),
                    ("B", lo, hi, True, s.c1_b_map == "tofrom")]
        if c == "C2":
            return [("B", lo, hi, False, True), ("A", lo, hi, True, s.c2_map == "tofrom")]
        if s.red_src == "A":
            return [("A", lo - hl, hi + hr, False, True)]
        return [("B", lo, hi, False, True)]

    def classify(self, chunks, where, finished):
        s, p = self.s, self.p
        # Bad values: errors the runtime must report.
        lists = [("compute", p["cdev"])]
        if "xdev" in p:
            lists.append(("C2", p["xdev"]))
        if s.region != "none":
            lists.append(("region", p["rdev"]))
        for name, lst in lists:
            for d in self.devs(lst):
                if self.bad_device(d):
                    self.note("INVALID", "%s devices list names device %d, which does not exist" % (name, d))
        for k, c in enumerate(["C1", "C2", "C3"]):
            if c in s.constructs() and s.sched[c].endswith("_c") and p["c"][k] < 0:
                self.note("INVALID", "negative chunk size on %s" % c)
        if s.region != "none" and p["rc"] < 0:
            self.note("INVALID", "negative chunk size on the region")

        ents = self.region_entries()
        written = {"A": s.has_c2, "B": True}
        # Sections of one device's region chunks that overlap: an explicit extension.
        for arr, es in ents.items():
            for i, a in enumerate(es):
                for b in es[:i]:
                    if a[0] == b[0] and a[1] < b[2] and b[1] < a[2]:
                        self.note("INVALID", "region chunks overlap on device %d (%s[%d:%d] and [%d:%d])"
                                  % (a[0], arr, b[1], b[2], a[1], a[2]))

        line_of = {tag: ln for ln, tag in where.items()}
        for c in s.constructs():
            for lo, hi, d in chunks.get(line_of[c], []):
                for arr, a0, a1, writes, copies_in in self.accesses(c, lo, hi):
                    if a1 <= a0:
                        continue
                    self.access(c, lo, hi, d, arr, a0, a1, writes, copies_in, ents[arr], written[arr])
        self.check_deals(chunks, line_of, finished)
        return self.level

    def access(self, c, lo, hi, d, arr, a0, a1, writes, copies_in, es, written):
        if self.bad_device(d):
            return  # already INVALID
        where = "%s chunk [%d,%d) on device %d: %s [%d,%d)" % (c, lo, hi, d, arr, a0, a1)
        others = [e for e in es if e[0] != d]
        meets_interior = any(e[3] < a1 and a0 < e[4] for e in others)
        # Whether the host's copy of what the chunk touches is current: a chunk that writes must
        # not meet data a device holds (that copy would go stale, or be copied back over the
        # host's); one that reads B must not read what a device's chunk wrote into its own copy.
        # The host's A is current when a construct reads it if each step's refresh copies every
        # device's interior back (other writes go to the host); a refresh of the interiors'
        # edges only (upd_strips) leaves the rest of them stale on the host until the end.
        stale = written and meets_interior and (writes or arr == "B" or self.s.upd_strips)
        if d == self.host:
            # The host computes on its own memory, maps do nothing: nobody can tell.
            if stale:
                self.note("UNSPEC", where + " on the host meets data a device holds")
            return
        mine = [e for e in es if e[0] == d]
        inside = [e for e in mine if e[1] <= a0 and a1 <= e[2]]
        if inside:
            if writes and not any(e[3] <= a0 and a1 <= e[4] for e in inside):
                # Written into the halo of its device's mapping: the refresh copies the owner's
                # interior instead. Valid OpenMP, and nothing to diagnose.
                self.note("UNSPEC", where + " writes into the halo its device maps")
            return
        if any(e[1] < a1 and a0 < e[2] for e in mine):
            self.note("INVALID", where + " extends a mapping of its device (explicit extension)")
            return
        if self.s.present and self.s.region != "none" and \
                ((arr == "A" and self.s.hold_a) or (arr == "B" and self.s.hold_b)):
            self.note("INVALID", where + " is not present on its device ('present' map)")
            return
        # Mapped anew on the device (copied from the host, or for 'from' copied back to it)
        # while another device holds the data: Spread warns (docs/runtime.md, "Data a spread
        # chunk needs").
        if stale:
            if self.target_tasks(c) and not self.checked_tasks(c):
                # Chunks that reach the runtime as target tasks without their region's token
                # (depend clauses without nowait) or without Spread's task facts
                # (SPREAD_NOWAIT=libomp) are plain target constructs to it: it does not look for
                # other devices' mappings there (docs/runtime.md, "Data a spread chunk needs"),
                # so nothing warns. A wrong result is then "unwarned", a known gap.
                self.note("SILENT", where + " mapped anew while another device holds it (chunk tasks: no warning)")
            else:
                self.note("INVALID", where + " mapped anew while another device holds it (a warning is promised)")

    def checked_tasks(self, c):
        """Whether the chunk tasks of construct `c` are checked as chunks: a `nowait` chunk
        names its region's token in a depend item, which Spread's tool reports (owned
        `nowait`, the default)."""
        return bool(self.s.nw.get(c)) and self.env.get("SPREAD_NOWAIT") != "libomp"

    def target_tasks(self, c):
        s = self.s
        if not s.nowait:
            return False  # no depend clauses either
        if c == "C3":
            # reduction + nowait: one task running the construct without nowait or depend
            return not s.nw.get("C3")
        return True

    def check_deals(self, chunks, line_of, finished):
        """Static deals must follow the documented rule: data constructs always, compute
        constructs when their schedule is static. A difference is a finding of its own."""
        s, p = self.s, self.p
        self.misdeal = None
        if self.level != "VALID":
            return
        lo, hi = p["lo"], p["hi"]
        plan = []
        if s.region != "none":
            rd = static_deal(p["rlo"], p["rlo"] + p["rlen"], self.devs(p["rdev"]), max(p["rc"], 0))
            for tag in ("R", "RE", "RX", "U1", "U1L", "U1R", "U2L", "U2R", "UF"):
                if tag in line_of:
                    plan.append((tag, rd))
        env_kind, env_chunk = parse_sched_env(self.env.get("SPREAD_SCHEDULE"))
        for k, c in enumerate(["C1", "C2", "C3"]):
            if c not in s.constructs():
                continue
            sch = s.sched[c]
            if sch == "none":
                if env_kind != "static":
                    continue
                chunk = env_chunk
            elif sch == "static":
                chunk = 0
            elif sch == "static_c":
                chunk = p["c"][k]
            else:
                continue
            devs = p["xdev"] if (c == "C2" and "xdev" in p) else p["cdev"]
            plan.append((c, static_deal(lo, hi, self.devs(devs), max(chunk, 0))))
        for tag, want in plan:
            got = chunks.get(line_of[tag], [])
            if not want:
                if got:
                    self.misdeal = "%s: chunks %s, but the static rule deals none" % (tag, got[:3])
                continue
            n = len(want)
            for i, g in enumerate(got):
                if g != want[i % n]:
                    self.misdeal = "%s: chunk %d is [%d,%d) -> %d, the static rule says [%d,%d) -> %d" % (
                        (tag, i) + g + want[i % n])
                    return
            if finished and len(got) % n:
                self.misdeal = "%s: %d chunks printed, not a multiple of the %d the rule deals" % (
                    tag, len(got), n)
                return


# ---------------------------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------------------------

ERROR_RE = re.compile(r"omptarget fatal error|spread: error|omptarget error")
WARN_RE = re.compile(r"spread: warning|omptarget warning")
CRASH_RE = re.compile(r"free\(\): |double free|corrupted |malloc\(\): |munmap_chunk|"
                      r"stack smashing|internal error in|panicked|Segmentation fault|"
                      r"Assertion .* failed|kmp_runtime\.cpp\(|OMP: Error")


def error_kind(err):
    """A short name for the first Spread error in err."""
    table = [
        (r"explicit extension not allowed", "explicit extension"),
        (r"Device number '?-?\d+'? out of range", "device out of range"),
        (r"is not mapped on device", "chunk data mapped only elsewhere"),
        (r"required by 'present' map type modifier does not exist", "present data absent"),
        (r"chunk size -?\d+ .* is negative", "negative chunk size"),
        (r"does not exist", "device does not exist"),
    ]
    for pat, name in table:
        if re.search(pat, err):
            return name
    for ln in err.splitlines():
        if ERROR_RE.search(ln) or ln.startswith("omptarget message:"):
            ln = re.sub(r"0x[0-9a-fA-F]+", "ADDR", ln)
            ln = re.sub(r"\d+", "N", ln)
            return ln.strip()[:90]
    return "unknown"


def classify_run(rc, out, err, timed_out, validity):
    """(outcome, detail). Outcomes that are bugs: false-error, wrong, crash, hang."""
    if timed_out:
        return "hang", "no exit within the timeout"
    m = CRASH_RE.search(err) or CRASH_RE.search(out)
    if m:
        return "crash", m.group(0)
    has_err = ERROR_RE.search(err) is not None
    has_warn = WARN_RE.search(err) is not None
    res = None
    for ln in out.splitlines():
        if ln.startswith("result: PASS"):
            res = "PASS"
        elif ln.startswith("result: FAIL"):
            res = "FAIL"
    if rc < 0 and rc != -signal.SIGABRT:
        return "crash", "killed by signal %d" % -rc
    if rc != 0 and has_err:
        if validity == "VALID":
            return "false-error", error_kind(err)
        return "spread-error", error_kind(err)
    if rc not in (0, 3):
        return "crash", "exit status %d without a Spread error" % rc
    if res == "PASS":
        return "pass", ""
    if res == "FAIL":
        if validity == "VALID":
            return "wrong", ""
        if validity == "INVALID":
            return ("warned", "") if (has_warn or has_err) else ("wrong", "invalid case, no diagnostic")
        if validity == "SILENT":
            return ("warned", "") if (has_warn or has_err) else ("unwarned", "")
        return "unspecified", ""
    return "crash", "no result line (exit %d)" % rc


BUGS = ("false-error", "wrong", "misdealt", "crash", "hang")


@dataclass
class Config:
    root: str
    spread_cc: str
    runtime_lib: str
    runtime_libdir: str
    linked_ok: bool  # the binaries' RUNPATH finds the runtime under test
    timeout: float
    out: str
    max_threads: int
    remote: tuple = ()  # cluster mode: rank counts a case's mpirun draws from (empty: one node)
    transports: tuple = ("vader",)  # cluster mode: Open MPI byte transports drawn from
    emulated: str = ""  # cluster mode: scripts/emulated-cluster.sh, whose nodes run the ranks


def gen_env(rng, shape, cfg):
    """The environment of one case: the load path and Spread's and libomp's variables."""
    env = {"SPREAD_INFO": "chunks"}  # the model reads the placement from it
    loads = ["preload", "libpath"] + (["linked"] if cfg.linked_ok else [])
    load = rng.choice(loads)
    if load == "preload":
        env["LD_PRELOAD"] = cfg.runtime_lib
    elif load == "libpath":
        env["LD_LIBRARY_PATH"] = cfg.runtime_libdir
    if rng.random() < 0.12:
        env["SPREAD_NOWAIT"] = "libomp"
    if rng.random() < 0.12:
        env["SPREAD_STREAMS"] = rng.choice(["1", "1", "2"])
    env["OMP_NUM_THREADS"] = str(min(rng.choice([1, 2, 2, 3, 4, 5, 8]), cfg.max_threads))
    if cfg.remote:
        # Cluster mode: every rank but the head serves its host devices as remote devices, so
        # the device lists of the shape land on other processes (ranks * devices in all).
        env["SPREAD_REMOTE"] = "mpi"
        env[NP_VAR] = str(rng.choice(cfg.remote))
        env[BTL_VAR] = rng.choice(cfg.transports)
        env["SPREAD_HOST_DEVICES"] = str(rng.choices([1, 2], weights=[5, 2])[0])
        # Ranks share the machine's cores: fewer threads each keeps runs short.
        env["OMP_NUM_THREADS"] = str(min(int(env["OMP_NUM_THREADS"]), 2))
        hd = None
    else:
        hd = rng.choices([1, 2, 3, 4, 5, 6], weights=[1, 2, 2, 7, 1, 1])[0]
    if hd is not None and (hd != 4 or rng.random() < 0.2):
        env["SPREAD_HOST_DEVICES"] = str(hd)
    if any(v == "none" for v in shape.sched.values()) and rng.random() < 0.5:
        k = rng.choice([1, 2, 3, 5, 8, 13, 40])
        env["SPREAD_SCHEDULE"] = rng.choice(["static", "static,%d" % k, "dynamic", "dynamic,%d" % k,
                                              "adaptive", "adaptive,%d" % k])
    return env


# Harness-only entries of a case's environment (cluster mode): not passed to the program.
NP_VAR = "FUZZ_MPI_NP"
BTL_VAR = "FUZZ_MPI_BTL"


def launcher(env, emulated=""):
    """The mpirun prefix of a cluster-mode case (empty otherwise): Open MPI on this machine, one
    process per rank, the cores oversubscribed, shared memory (vader) or TCP on loopback; or,
    with `emulated` (the emulated cluster's script), one rank per node in turn over its links."""
    if NP_VAR not in env:
        return []
    if emulated:
        return [emulated, "run", env[NP_VAR]]
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    if env.get(BTL_VAR) == "tcp":
        cmd += ["--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo"]
    else:
        cmd += ["--mca", "btl", "self,vader"]
    return cmd + ["-np", env[NP_VAR]]


def compile_shape(shape, cfg):
    d = os.path.join(cfg.out, "shapes", shape.name())
    os.makedirs(d, exist_ok=True)
    src, where = emit_program(shape)
    path = os.path.join(d, "prog.c")
    with open(path, "w") as f:
        f.write(src)
    with open(os.path.join(d, "shape.json"), "w") as f:
        json.dump(asdict(shape), f, indent=1, default=str)
    cmd = [cfg.spread_cc, shape.opt] + (["-g"] if shape.debug else []) + [path, "-o",
                                                                         os.path.join(d, "prog")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=base_env())
    return d, where, r.returncode, r.stdout + r.stderr, cmd


# Open MPI's launcher can fail to start a job before the program runs (seen: "orte_session_dir
# failed" during orte_init, one case in a CI run): that is the launcher's, not a crash of the
# program, and the case is run again, up to LAUNCH_TRIES times in all.
LAUNCH_TRIES = 3
LAUNCH_FAILURE = re.compile(r"during orte_init|orte_session_dir failed|ompi_rte_init failed")


def launch_failed(out, err):
    """Whether mpirun failed before the program printed anything."""
    return not any(ln.startswith("params:") for ln in out.splitlines()) and LAUNCH_FAILURE.search(err) is not None


def run_case(shape, where, bindir, seed, env, cfg):
    full = base_env()
    full.update({k: v for k, v in env.items() if k not in (NP_VAR, BTL_VAR)})
    cmd = launcher(env, cfg.emulated) + [os.path.join(bindir, "prog"), str(seed)]
    for _ in range(LAUNCH_TRIES):
        t0 = time.time()
        rc, out, err, to = run_process(cmd, full, cfg.timeout)
        wall = time.time() - t0
        if not launch_failed(out, err):
            break
    params = None
    for ln in out.splitlines():
        if ln.startswith("params:"):
            params = parse_params(ln)
    validity, reasons, misdeal = "UNKNOWN", [], None
    if params is not None:
        m = Model(shape, params, env)
        validity = m.classify(parse_chunks(err), where, finished=(rc == 0 or rc == 3))
        reasons, misdeal = m.reasons, m.misdeal
    outcome, detail = classify_run(rc if rc is not None else 0, out, err, to, validity)
    if params is None and outcome not in ("hang", "crash"):
        outcome, detail = "crash", "no parameter line"
    if misdeal and outcome in ("pass", "wrong"):
        outcome, detail = "misdealt", misdeal
    return {"shape": shape.name(), "seed": seed, "env": env, "rc": rc, "wall": round(wall, 3),
            "validity": validity, "reasons": reasons, "outcome": outcome, "detail": detail,
            "out": out, "err": err}


def write_repro(case, shape, bindir, cfg, n):
    d = os.path.join(cfg.out, "bugs", "%03d-%s-%s-seed%d" % (n, case["outcome"], shape.name(),
                                                              case["seed"]))
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(bindir, "prog.c"), os.path.join(d, "prog.c"))
    envs = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(case["env"].items()))
    with open(os.path.join(d, "run.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\n# validity: %s %s\n" % (
            case["outcome"], case["detail"], case["validity"], "; ".join(case["reasons"])))
        f.write("# build: %s %s%s prog.c -o prog\n" % (cfg.spread_cc, shape.opt,
                                                         " -g" if shape.debug else ""))
        f.write("cd \"$(dirname \"$0\")\"\n")
        f.write("[ -x prog ] || %s %s%s prog.c -o prog || exit 1\n" % (
            cfg.spread_cc, shape.opt, " -g" if shape.debug else ""))
        run_env = {k: v for k, v in case["env"].items() if k not in (NP_VAR, BTL_VAR)}
        envs = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(run_env.items()))
        f.write("env %s %s./prog %d\n" % (envs, " ".join(launcher(case["env"], cfg.emulated) + [""]),
                                          case["seed"]))
    os.chmod(os.path.join(d, "run.sh"), 0o755)
    with open(os.path.join(d, "stdout.txt"), "w") as f:
        f.write(case["out"])
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(case["err"])
    return d


def summarize(cases, args, cfg, elapsed, bug_dirs):
    from collections import Counter
    outc = Counter(c["outcome"] for c in cases)
    errk = Counter(c["detail"] for c in cases if c["outcome"] == "spread-error")
    val = Counter(c["validity"] for c in cases)
    lines = ["# spread-fuzz summary", "",
             "command: `%s`" % " ".join(shlex.quote(a) for a in sys.argv),
             "runtime: `%s`; %d cases in %.0f s" % (cfg.runtime_lib, len(cases), elapsed), "",
             "| outcome | cases |", "| --- | ---: |"]
    order = ["pass", "spread-error", "warned", "unwarned", "unspecified", "false-error", "wrong",
             "misdealt",
             "crash", "hang"]
    for o in order:
        lines.append("| %s | %d |" % (o, outc.get(o, 0)))
        if o == "spread-error":
            for k, n in errk.most_common():
                lines.append("| &nbsp;&nbsp;%s | %d |" % (k.replace("|", "/"), n))
    lines.append("| **total** | %d |" % len(cases))
    lines += ["", "| validity (model) | cases | pass |", "| --- | ---: | ---: |"]
    for v in ("VALID", "INVALID", "SILENT", "UNSPEC", "UNKNOWN"):
        lines.append("| %s | %d | %d |" % (v, val.get(v, 0), sum(
            1 for c in cases if c["validity"] == v and c["outcome"] == "pass")))
    if bug_dirs:
        lines += ["", "Bugs (%d reproducers, the first 40):" % len(bug_dirs), ""]
        lines += ["- %s" % d for d in bug_dirs[:40]]
    return "\n".join(lines) + "\n"


def env_tags(env):
    return {"%s=%s" % kv for kv in env.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", type=int, default=20, help="programs to generate (default 20)")
    ap.add_argument("--cases", type=int, default=50, help="runs per program (default 50)")
    ap.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles and runs (default 2)")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds after which no new case starts (default: no limit)")
    ap.add_argument("--timeout", type=float, default=30, help="seconds per run (default 30)")
    ap.add_argument("--out", default=os.path.join(REPO, "target", "spread-fuzz"))
    ap.add_argument("--root", default=REPO,
                    help="the Spread build whose spread-cc and runtime are used (default: this one)")
    ap.add_argument("--spread-cc", help="compile with this spread-cc (default: ROOT's)")
    ap.add_argument("--runtime-lib", help="run on this libspread_rt.so / libomptarget.so.19.1 "
                    "(LD_PRELOAD and LD_LIBRARY_PATH only; default: ROOT's)")
    ap.add_argument("--exclude", action="append", default=[],
                    help="leave out cases with all of these features, joined by '+': a shape's "
                    "(the features line of a generated source, e.g. 'nowait+region=data') and "
                    "the environment's VAR=VALUE (e.g. 'reduction+OMP_NUM_THREADS=8')")
    ap.add_argument("--require", action="append", default=[],
                    help="keep only shapes with this feature (repeatable), e.g. nowait")
    ap.add_argument("--max-threads", type=int, default=8,
                    help="largest OMP_NUM_THREADS a case gets (default 8)")
    ap.add_argument("--remote", default="",
                    help="cluster mode: run every case under mpirun with SPREAD_REMOTE=mpi, the "
                    "rank count drawn from this comma-separated list (e.g. 2,4); the other ranks' "
                    "host devices are the program's remote devices (docs/remote.md)")
    ap.add_argument("--remote-tcp", action="store_true",
                    help="cluster mode: draw TCP on loopback as well as shared memory")
    ap.add_argument("--emulated", action="store_true",
                    help="cluster mode: run the ranks on the emulated cluster, one per node in "
                    "turn (root; bring it up first: scripts/emulated-cluster.sh up 4)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()

    root = os.path.abspath(args.root)
    spread_cc, lib, libdir, linked_ok = runtime_paths(root, args.runtime_lib, args.spread_cc,
                                                      args.out)
    cfg = Config(root=root, spread_cc=spread_cc, runtime_lib=lib, runtime_libdir=libdir,
                 linked_ok=linked_ok, timeout=args.timeout, out=os.path.abspath(args.out),
                 max_threads=args.max_threads,
                 remote=tuple(int(x) for x in args.remote.split(",") if x.strip()),
                 transports=("vader", "tcp") if args.remote_tcp else ("vader",),
                 emulated=os.path.join(REPO, "scripts", "emulated-cluster.sh") if args.emulated
                 else "")
    if cfg.remote and not shutil.which("mpirun"):
        sys.exit("spread-fuzz: --remote needs mpirun on PATH (scripts/setup.sh --mpi)")
    for pth in (cfg.spread_cc, cfg.runtime_lib):
        if not os.path.exists(pth):
            sys.exit("spread-fuzz: %s does not exist (scripts/build.sh)" % pth)
    if os.path.isdir(os.path.join(cfg.out, "bugs")):
        shutil.rmtree(os.path.join(cfg.out, "bugs"))
    os.makedirs(cfg.out, exist_ok=True)

    rng = random.Random(args.seed)
    shapes = []
    idx = 0
    while len(shapes) < args.shapes:
        sh = gen_shape(random.Random(rng.getrandbits(64)), idx)
        idx += 1
        # A shape is left out when an exclusion names only its features (no VAR=VALUE part).
        shape_only = [x for x in args.exclude if not any("=" in p and p.split("=")[0].isupper()
                                                           for p in x.split("+"))]
        tags = set(sh.tags())
        if not excluded(tags, shape_only) and all(r in tags for r in args.require):
            shapes.append(sh)
        if idx > 200 * args.shapes + 100:
            sys.exit("spread-fuzz: --exclude / --require leave no shapes")

    t0 = time.time()
    lock = threading.Lock()
    cases, bug_dirs = [], []
    compiled = {}

    def log(msg):
        if not args.quiet:
            with lock:
                print(msg, flush=True)

    def do_shape(sh):
        d, where, rc, msg, cmd = compile_shape(sh, cfg)
        if rc != 0:
            # A program the driver or clang refuses is the generator's fault (or a driver bug):
            # reported as a crash of the compile, with the source kept.
            return sh, None, where, msg
        return sh, d, where, None

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for sh, d, where, msg in pool.map(do_shape, shapes):
            compiled[sh.name()] = (sh, d, where)
            if d is None:
                log("%s: compile failed:\n%s" % (sh.name(), msg))
                case = {"shape": sh.name(), "seed": -1, "env": {}, "rc": None, "wall": 0,
                        "validity": "UNKNOWN", "reasons": [], "outcome": "crash",
                        "detail": "compile failed", "out": "", "err": msg}
                cases.append(case)
                bug_dirs.append(os.path.join(cfg.out, "shapes", sh.name()))
        log("compiled %d shapes in %.0f s" % (len(shapes), time.time() - t0))

        # Cases: every shape's in turn, so that a time budget still covers every shape.
        work = []
        for k in range(args.cases):
            for sh in shapes:
                if compiled[sh.name()][1] is None:
                    continue
                crng = random.Random("%d/%s/%d" % (args.seed, sh.name(), k))
                seed = crng.randrange(1, 1 << 31)
                # An environment an exclusion names together with the shape's features is
                # drawn again.
                for _ in range(50):
                    env = gen_env(crng, sh, cfg)
                    if not excluded(set(sh.tags()) | env_tags(env), args.exclude):
                        break
                else:
                    continue
                work.append((sh, seed, env))

        def do_case(item):
            sh, seed, env = item
            if args.budget and time.time() - t0 > args.budget:
                return None
            _, d, where = compiled[sh.name()]
            return run_case(sh, where, d, seed, env, cfg)

        jsonl = open(os.path.join(cfg.out, "cases.jsonl"), "w")
        done = 0
        for case in pool.map(do_case, work):
            if case is None:
                continue
            done += 1
            cases.append(case)
            if case["outcome"] in BUGS:
                sh = compiled[case["shape"]][0]
                bug_dirs.append(write_repro(case, sh, compiled[case["shape"]][1], cfg,
                                            len(bug_dirs)))
                log("BUG %s: %s seed %d (%s) %s" % (case["outcome"], case["shape"], case["seed"],
                                                    case["detail"], bug_dirs[-1]))
            rec = {k: v for k, v in case.items() if k not in ("out", "err")}
            rec["err_tail"] = case["err"][-400:] if case["outcome"] != "pass" else ""
            jsonl.write(json.dumps(rec) + "\n")
            if done % 200 == 0:
                jsonl.flush()
                log("%d cases, %.0f s" % (done, time.time() - t0))
        jsonl.close()

    summary = summarize(cases, args, cfg, time.time() - t0, bug_dirs)
    with open(os.path.join(cfg.out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    if any(c["outcome"] in BUGS for c in cases):
        return 1
    if not any(c["outcome"] == "pass" and c["validity"] == "VALID" for c in cases):
        print("spread-fuzz: no valid case passed: nothing was tested")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
