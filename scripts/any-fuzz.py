#!/usr/bin/env python3
"""Random task-sharing programs (`target device(any)`), checked against a serial reference.

Every run of a generated program must end with the serial result at every check, or with a
Spread error (a message and a non-zero exit) where the program allows one. A wrong result, a
crash, a hang, or a Spread error in a program that allows none (a "false error") is a bug.

As scripts/spread-fuzz.py does, a program is split into a *shape*, fixed at compile time (spread-cc
takes about a second per program), and *parameters* it draws at run time from the seed on its
command line (./prog SEED prints them on its first line), so one binary runs many cases:

- shape: where instances are created (the initial thread; `parallel` + `single` with or without
  `nowait`, + `masked`, + a worksharing `for` over the blocks; explicit tasks inside any of them,
  each owning every T-th block), a sequence of *epochs*, each a list of *phases* (optionally inside
  a step loop) followed by a sync point and a host check of every array against a serial
  reference the program computes itself (then, sometimes, host writes to an array that later
  instances must see). A phase creates one instance per block k of the arrays A, B, C
  (`X[lo:len]`, the last block shorter): an update `D = f(D)` (`map(tofrom)`), a map `D = f(S)`, a
  two-input map, or a wide read `D[i] = f(S[i], S[(i+off) % N])` mapping all of S. Each phase has
  its `if_device` entries (cpu / x86_64, host, nvidia / nvptx with or without a subarch; the
  construct-sets they take, some with clauses; `resources` literal, at run time or none; on lines
  of their own, on one line, or on the target line) or the single-set form, `nowait` or not,
  `depend` on per-block tokens (a wide read names every block's), `if(c)`, map types
  (`to`/`from`/`tofrom`/none), a local coefficient array (the task's firstprivate copy).
- sync points: `taskwait`, the end of a `taskgroup`, a host task depending on every block that
  calls `spread_any_flush()` and checks, instances without `nowait` (with or without a
  `spread_any_flush()` after them), the implicit barrier of `single` and of `for`, an explicit
  `barrier`, the end of the parallel region, and the program's end (instances still in flight
  when `main` returns: only a clean exit is checked).
- parameters: blocks (1..NBMAX), block size (1..4096), the last block's cut, per-phase block masks,
  offsets, `resources` and `if` values, steps (1..3), host writes, `num_threads`.
- environment, per run: SPREAD_COHERENCE=lazy or the default (copy), SPREAD_HOST_DEVICES (0..4),
  OMP_NUM_THREADS, SPREAD_NOWAIT=libomp, SPREAD_ANY_POLICY (model/tokens/first), SPREAD_STEAL=0,
  SPREAD_TOKEN_POOL=global, SPREAD_ANY_SLOTS, SPREAD_ANY_HOST_THREADS, SPREAD_KIND_ALIAS=nvidia:..,
  SPREAD_INFO=any, and the load path (LD_PRELOAD, LD_LIBRARY_PATH, as linked).

The generator only writes programs whose instances are ordered wherever they conflict (the earlier
one has no `nowait`, or both carry `depend` on the shared block; explicit tasks only touch their own
blocks), so their result is the serial one. One thing it cannot order is where instances run: two
unordered instances mapping overlapping sections of different extents (a block and the whole
array) on one device at once overlap in that device's data environment, which OpenMP does not
allow (an explicit extension): in shapes where that can happen (feature `ext`) libomptarget's
explicit-extension error is accepted.

Usage: scripts/any-fuzz.py --shapes 20 --cases 50 --seed 1 --jobs 2 [--budget SECONDS]
Output (--out, default target/any-fuzz): shapes/ (sources, binaries), bugs/ (a reproducer per bug:
source, seed, environment, command, output), cases.jsonl, summary.md. The exit status is 1 when a
bug was found. docs/task-sharing.md ("Random task-sharing programs") describes it.
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

ARRAYS = ["A", "B", "C"]

# construct-sets per kind of version (docs/task-sharing-lowering.md "Language"), with the odds
# leaning towards the usual ones; 'teams' and 'parallel' alone are left out (every team / thread
# would run the whole loop, which updates in place).
CPU_SETS = ["teams distribute parallel for"] * 4 + [
    "parallel for", "parallel for", "teams loop", "distribute parallel for", "teams distribute",
    "teams distribute parallel for simd", "parallel for simd", "simd", "", "distribute",
    "parallel loop"]
HOST_SETS = ["parallel for"] * 5 + ["parallel for simd", "", "simd", "parallel loop",
                                    "distribute parallel for", "teams distribute parallel for"]
CPU_KW = ["cpu", "cpu", "cpu", "x86_64"]
NV_KW = ["nvidia", "NVIDIA, cc35", "nvptx64", "nvptx", "nvidia, sm_90"]


# ---------------------------------------------------------------------------------------------
# Shapes: the compile-time structure of a program
# ---------------------------------------------------------------------------------------------


@dataclass
class Arm:
    kind: str  # cpu | host | nvidia
    kw: str  # as written in if_device(...)
    cset: str  # construct-set (may be empty) with its clauses
    res: str = "none"  # none | lit | rt
    res_val: int = 0


@dataclass
class Phase:
    idx: int
    pid: int = -1  # its parameters' stream (stays when --reduce renumbers)
    op: str = "upd"  # upd | map | map2 | wide
    dst: str = "A"
    srcs: list = field(default_factory=list)
    acc: bool = False  # map2: D += ... (D mapped tofrom, read too)
    mt: dict = field(default_factory=dict)  # array -> map type as written (to/from/tofrom/"")
    nowait: bool = True
    dep: bool = False
    dep_out: str = "out"  # out | inout for written blocks
    arms: list = field(default_factory=list)
    layout: str = "lines"  # lines | oneline | target | single
    single_set: str = ""  # the single-set form's construct-set (layout single)
    single_front: bool = True  # the set right after 'target' (else after the clauses)
    single_res: str = "none"  # none | lit | rt
    single_res_val: int = 0
    ifc: bool = False  # if(ifc), ifc drawn at run time
    locals_: bool = False  # a local coefficient array in the body
    ivar: str = "long"

    def access(self):
        """[(array, extent, writes)]: extent 'blk' (the instance's block) or 'all'."""
        out = []
        for a in self.srcs:
            ext = "all" if self.op == "wide" else "blk"
            out.append((a, ext, self.mt.get(a, "to") != "to"))
        if self.op == "upd":
            out.append((self.dst, "blk", True))
        elif self.dst not in self.srcs:
            out.append((self.dst, "blk", True))
        return out


@dataclass
class Epoch:
    idx: int
    eid: int = -1  # its parameters' stream
    phases: list = field(default_factory=list)
    looped: bool = False  # a step loop (1..3 steps at run time) around the phases
    tasks: int = 0  # explicit tasks, each with every tasks-th block (0: none)
    inner_wait: bool = False  # each explicit task ends with a taskwait
    sync: str = "taskwait"  # taskwait | taskgroup | flushtask | sync | sync_flush | seg | exit
    hostwrite: bool = False


@dataclass
class Segment:
    kind: str  # single | masked | for
    nowait: bool = False  # single / for: nowait on the construct
    end: str = "single_barrier"  # single_barrier | for_barrier | barrier | region_end | none
    sched: str = ""  # for: schedule clause
    epochs: list = field(default_factory=list)


@dataclass
class Region:
    kind: str  # main | par
    rid: int = -1  # its parameters' stream
    num_threads: bool = False
    segments: list = field(default_factory=list)  # par
    epochs: list = field(default_factory=list)  # main


@dataclass
class Shape:
    idx: int
    elem: str = "uint32_t"
    storage: str = "heap"  # heap | static
    nbmax: int = 8
    regions: list = field(default_factory=list)
    ext: bool = False  # unordered instances map overlapping sections of different extents
    debug: bool = False
    opt: str = "-O1"

    def name(self):
        return "shape%03d" % self.idx

    def epochs(self):
        for r in self.regions:
            if r.kind == "main":
                for e in r.epochs:
                    yield "main", e
            else:
                for sg in r.segments:
                    for e in sg.epochs:
                        yield sg.kind, e

    def phases(self):
        for _, e in self.epochs():
            for p in e.phases:
                yield p

    def has_kind(self, kind):
        return any(a.kind == kind for p in self.phases() for a in p.arms)

    def tags(self):
        t = ["elem=" + self.elem, "storage=" + self.storage]
        for r in self.regions:
            if r.kind == "main":
                t.append("ctx=main")
            else:
                t.append("ctx=par")
                if r.num_threads:
                    t.append("num_threads")
                for sg in r.segments:
                    t.append("ctx=" + sg.kind)
                    t.append("sync=" + sg.end)
                    if sg.nowait:
                        t.append("%s_nowait" % sg.kind)
        for ctx, e in self.epochs():
            t.append("sync=" + e.sync)
            for p in e.phases:
                # instances without nowait, with depend (task if(0) depend), run by a thread of a
                # team (finding 1 of docs/task-sharing.md's "Random task-sharing programs")
                if not p.nowait and p.dep and (ctx in ("single", "for") or
                                               (e.tasks and ctx != "main")):
                    t.append("undeferred_dep_par")
                # instances the host runs as OpenMP's host fallback: if(c), or nvidia versions
                # only (no candidate without SPREAD_KIND_ALIAS)
                if p.arms and all(a.kind == "nvidia" for a in p.arms):
                    t.append("nvonly")
                if any(a.kind == "host" and a.cset.startswith("teams") for a in p.arms):
                    t.append("host_teams")
            if e.tasks:
                t.append("tasks")
            if e.looped:
                t.append("steps")
            if e.hostwrite:
                t.append("hostwrite")
            for p in e.phases:
                t.append("op=" + p.op)
                t.append("layout=" + p.layout)
                if p.nowait:
                    t.append("nowait")
                if p.dep:
                    t.append("depend")
                if p.ifc:
                    t.append("if")
                if p.locals_:
                    t.append("locals")
                for a in p.arms:
                    t.append("arm=" + a.kind)
                    if a.res != "none":
                        t.append("resources")
        if any(p.layout == "single" or any(a.kind == "host" for a in p.arms)
               for p in self.phases()):
            t.append("host_version")
        if self.ext:
            t.append("ext")
        return sorted(set(t))


def gen_arm(rng, kind, pidx, k):
    if kind == "cpu":
        kw, sets = rng.choice(CPU_KW), CPU_SETS
    elif kind == "nvidia":
        kw, sets = rng.choice(NV_KW), CPU_SETS
    else:
        kw, sets = "host", HOST_SETS
    cset = rng.choice(sets)
    # a clause the set takes, sometimes
    if rng.random() < 0.25:
        if cset.endswith("parallel for") or cset.endswith("parallel for simd"):
            cset += rng.choice([" schedule(static, 3)", " schedule(dynamic)",
                                " schedule(guided, 2)"] + ([" num_threads(2)"] if kind == "host" else []))
        elif cset.startswith("teams") and kind != "host":
            cset += rng.choice([" num_teams(2)", " thread_limit(3)"])
        elif cset == "simd":
            cset += " simdlen(4)"
    a = Arm(kind=kind, kw=kw, cset=cset)
    r = rng.random()
    if r < 0.45:
        a.res = "none"
    elif r < 0.9:
        a.res = "lit"
        a.res_val = rng.choice([0, 1, 10, 25, 30, 50, 60, 100, rng.randint(0, 100)])
    else:
        a.res = "rt"
    return a


def gen_phase(rng, idx, allow_wide):
    p = Phase(idx=idx)
    ops = ["upd", "upd", "map", "map", "map2"] + (["wide"] if allow_wide else [])
    p.op = rng.choice(ops)
    arrs = ARRAYS[:]
    rng.shuffle(arrs)
    p.dst = arrs[0]
    if p.op == "upd":
        p.srcs = []
        p.mt[p.dst] = rng.choice(["tofrom", "tofrom", ""])
    else:
        p.srcs = [arrs[1]] if p.op != "map2" else [arrs[1], arrs[2]]
        for a in p.srcs:
            # (a wide read maps all of S: 'to' only, every instance of the phase maps it)
            p.mt[a] = "to" if p.op == "wide" else rng.choices(["to", "tofrom", ""], weights=[8, 1, 1])[0]
        p.acc = p.op == "map2" and rng.random() < 0.4
        p.mt[p.dst] = ("tofrom" if rng.random() < 0.7 else "") if p.acc else \
            rng.choice(["from", "from", "tofrom"])
    p.nowait = rng.random() < 0.75
    p.dep = rng.random() < (0.5 if p.nowait else 0.25)
    p.dep_out = rng.choice(["out", "inout"])
    r = rng.random()
    if r < 0.12:
        p.layout = "single"
        p.single_set = rng.choice(CPU_SETS)
        p.single_front = rng.random() < 0.5
        rr = rng.random()
        p.single_res = "none" if rr < 0.5 else ("lit" if rr < 0.9 else "rt")
        p.single_res_val = rng.randint(0, 100)
    else:
        p.layout = rng.choice(["lines", "lines", "lines", "oneline", "target"])
        kinds = rng.choices([["cpu", "host"], ["cpu"], ["host"], ["cpu", "host", "nvidia"],
                             ["nvidia", "host"], ["nvidia"], ["cpu", "nvidia"]],
                            weights=[10, 3, 2, 2, 1, 1, 1])[0][:]
        rng.shuffle(kinds)
        p.arms = [gen_arm(rng, k, idx, n) for n, k in enumerate(kinds)]
    p.ifc = rng.random() < 0.06
    p.locals_ = rng.random() < 0.25
    p.ivar = rng.choice(["long", "long", "int"])
    return p


def conflict(p, q):
    for a, _, wa in p.access():
        for b, _, wb in q.access():
            if a == b and (wa or wb):
                return True
    return False


def ordered(p, q):
    """Whether instance work of phase p (earlier) finishes before q's starts: p has no nowait,
    or both have depend and share a token one of them has as out/inout (deps(): the sources'
    tokens are in, the destination's out/inout). Two readers of an array with depend(in) on its
    tokens are not ordered."""
    if not p.nowait:
        return True
    if not (p.dep and q.dep):
        return False
    return p.dst in q.srcs + [q.dst] or q.dst in p.srcs


def ordered_all(p, q):
    """Whether every instance of phase p (earlier) finishes before any instance of q starts, as
    an explicit extension needs (a whole-array section overlaps every block): p has no nowait,
    or a wide phase's tokens of every block order each instance of one against all of the
    other's (q writes a block of an array p reads whole, or the reverse). Tokens of one block
    (tB[k]) order an instance only against the other phase's instance of that block."""
    if not p.nowait:
        return True
    if not (p.dep and q.dep):
        return False
    return (p.op == "wide" and q.dst in p.srcs) or (q.op == "wide" and p.dst in q.srcs)


def phase_pairs(e):
    """(earlier, later) pairs of an epoch's phases, in program order (the step loop makes the
    last phases earlier than the first ones of the next step, and each phase its own)."""
    n = len(e.phases)
    pairs = [(e.phases[i], e.phases[j]) for j in range(n) for i in range(j)]
    if e.looped:
        pairs += [(e.phases[j], e.phases[i]) for i in range(n) for j in range(i, n)]
    return pairs


def fix_epoch(rng, e):
    """Orders every conflicting pair: both get depend, or the earlier loses nowait."""
    if e.sync in ("sync", "sync_flush"):
        for p in e.phases:
            p.nowait = False
    for _ in range(100):
        changed = False
        for p, q in phase_pairs(e):
            if conflict(p, q) and not ordered(p, q):
                if rng.random() < 0.65:
                    p.dep = q.dep = True
                else:
                    p.nowait = False
                changed = True
        if not changed:
            break
    if e.sync == "flushtask":
        for p in e.phases:
            if p.nowait:
                p.dep = True


def epoch_ext(e):
    """Whether two instances of the epoch that may run at once map overlapping sections of one
    array with different extents."""
    for p, q in phase_pairs(e) + [(p, p) for p in e.phases]:
        if p is not q and ordered_all(p, q):
            continue
        for a, xa, _ in p.access():
            for b, xb, _ in q.access():
                if a == b and xa != xb:
                    return True
    return False


INNER_SYNCS = ["taskwait", "taskwait", "taskgroup", "taskgroup", "flushtask", "sync", "sync_flush"]


def gen_epoch(rng, idx, ctx, sync=None):
    e = Epoch(idx=idx)
    if ctx in ("main", "single", "masked") and rng.random() < 0.2:
        e.tasks = rng.choice([1, 2, 2, 3])
        e.inner_wait = rng.random() < 0.5
    e.looped = rng.random() < 0.4
    if sync is None:
        if e.tasks:
            sync = rng.choice(["taskgroup", "taskwait"])
            if sync == "taskwait":
                e.inner_wait = True
        else:
            sync = rng.choice(INNER_SYNCS)
    e.sync = sync
    allow_wide = not e.tasks and ctx != "for"
    n = rng.choice([1, 2, 2, 3, 3, 4])
    e.phases = [gen_phase(rng, 0, allow_wide) for _ in range(n)]
    e.hostwrite = rng.random() < 0.3 and sync != "exit"
    fix_epoch(rng, e)
    return e


def gen_shape(rng, idx):
    s = Shape(idx=idx)
    s.elem = rng.choice(["uint32_t", "uint32_t", "uint64_t"])
    s.storage = rng.choice(["heap", "heap", "static"])
    s.nbmax = rng.choice([2, 4, 8, 8, 12, 16])
    s.debug = rng.random() < 0.2
    s.opt = rng.choice(["-O1", "-O1", "-O2", "-O0"])
    ne = [0]

    def nxt():
        ne[0] += 1
        return ne[0] - 1

    nreg = rng.choice([1, 1, 2, 2, 3])
    for ri in range(nreg):
        if rng.random() < 0.35:
            r = Region(kind="main")
            for _ in range(rng.choice([1, 1, 2, 3])):
                r.epochs.append(gen_epoch(rng, nxt(), "main"))
        else:
            r = Region(kind="par", num_threads=rng.random() < 0.3)
            nseg = rng.choice([1, 1, 1, 2, 2, 3])
            for si in range(nseg):
                last = si == nseg - 1
                kind = rng.choices(["single", "masked", "for"], weights=[5, 2, 2])[0]
                sg = Segment(kind=kind)
                if kind == "single":
                    sg.nowait = rng.random() < 0.4
                    ends = ["barrier"] + (["region_end"] if last else []) if sg.nowait else \
                        ["single_barrier"]
                elif kind == "masked":
                    ends = ["barrier"] + (["region_end", "region_end"] if last else [])
                else:
                    sg.nowait = rng.random() < 0.4
                    sg.sched = rng.choice(["", "", " schedule(static)", " schedule(static, 1)",
                                           " schedule(dynamic)", " schedule(dynamic, 2)"])
                    ends = ["barrier"] + (["region_end"] if last else []) if sg.nowait else \
                        ["for_barrier"]
                sg.end = rng.choice(ends)
                if kind == "for":
                    sg.epochs.append(gen_epoch(rng, nxt(), "for", sync="seg"))
                else:
                    nep = rng.choice([1, 1, 2, 3])
                    for ei in range(nep):
                        if ei == nep - 1 and rng.random() < 0.75:
                            sg.epochs.append(gen_epoch(rng, nxt(), kind, sync="seg"))
                        else:
                            sg.epochs.append(gen_epoch(rng, nxt(), kind))
                r.segments.append(sg)
        s.regions.append(r)
    # The program's end as a sync point: instances still in flight when main returns.
    if rng.random() < 0.2:
        r = Region(kind="main")
        r.epochs.append(gen_epoch(rng, nxt(), "main", sync="exit"))
        s.regions.append(r)
    n = 0
    for _, e in s.epochs():
        e.eid = e.idx
        for p in e.phases:
            p.idx = p.pid = n
            n += 1
    for ri, r in enumerate(s.regions):
        r.rid = ri
    s.ext = any(epoch_ext(e) for _, e in s.epochs())
    return s


# ---------------------------------------------------------------------------------------------
# C emission
# ---------------------------------------------------------------------------------------------

C_COMMON = r"""
#include <omp.h>
#include <spread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters drawn from the seed (splitmix64), printed on one line. */
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
  int NB;
  long BS, N;
  unsigned mask[NPHASES + 1];
  long off[NPHASES + 1];
  int res[NPHASES + 1][4], ifc[NPHASES + 1];
  int steps[NEPOCHS + 1], nt[NREGIONS + 1];
  long hw_lo[NEPOCHS + 1], hw_hi[NEPOCHS + 1];
  int hw_arr[NEPOCHS + 1];
  elem_t hw_val[NEPOCHS + 1];
};
static struct params P;
static int failed, tracing;
/* ANY_FUZZ_TRACE=1: where the program is, on stderr (for reducing a finding). */
#define TRACE(...) do { if (tracing) { fprintf(stderr, "any-fuzz: " __VA_ARGS__); fflush(stderr); } } while (0)

/* Each phase, epoch and region draws its parameters from a stream of its own (its id in the
   generated shape), so that --reduce can leave parts out without changing the others'. */
static void stream(long seed, int kind, int id) {
  rng_state = (uint64_t)seed * 0x2545f4914f6cdd1dull + (uint64_t)kind * 0x632be59bd9b4e019ull +
              (uint64_t)id * 0x85ebca77c2b2ae63ull + 1;
  rnd();
}

static void gen_params(long seed) {
  tracing = getenv("ANY_FUZZ_TRACE") != NULL;
  stream(seed, 0, 0);
  P.NB = (int)pick(1, NBMAX);
  if (chance(25)) P.NB = NBMAX;
  int sz = (int)pick(0, 99);
  P.BS = sz < 15 ? pick(1, 4) : sz < 50 ? pick(5, 64) : sz < 85 ? pick(65, 512) : pick(513, 4096);
  long cut = chance(60) ? 0 : pick(0, P.BS - 1);
  P.N = (long)P.NB * P.BS - cut;
  for (int p = 0; p < NPHASES; p++) {
    stream(seed, 1, PID[p]);
    P.mask[p] = chance(70) ? ~0u : (unsigned)rnd();
    P.off[p] = pick(0, P.N - 1);
    for (int a = 0; a < 4; a++) {
      int r = (int)pick(0, 99);
      P.res[p][a] = r < 85 ? (int)pick(0, 100) : r < 93 ? (int)pick(101, 300) : -(int)pick(1, 50);
    }
    P.ifc[p] = chance(85);
  }
  for (int e = 0; e < NEPOCHS; e++) {
    stream(seed, 2, EID[e]);
    P.steps[e] = (int)pick(1, 3);
    P.hw_arr[e] = (int)pick(0, 2);
    P.hw_lo[e] = pick(0, P.N - 1);
    P.hw_hi[e] = chance(30) ? P.N : pick(P.hw_lo[e] + 1, P.N);
    P.hw_val[e] = (elem_t)pick(1, 1000);
  }
  for (int r = 0; r < NREGIONS; r++) {
    stream(seed, 3, RID[r]);
    P.nt[r] = (int)pick(1, 4);
  }
  printf("params: NB=%d BS=%ld N=%ld mask=", P.NB, P.BS, P.N);
  for (int p = 0; p < NPHASES; p++) printf("%s%x", p ? "," : "", P.mask[p]);
  printf(" off=");
  for (int p = 0; p < NPHASES; p++) printf("%s%ld", p ? "," : "", P.off[p]);
  printf(" ifc=");
  for (int p = 0; p < NPHASES; p++) printf("%d", P.ifc[p]);
  printf(" steps=");
  for (int e = 0; e < NEPOCHS; e++) printf("%d", P.steps[e]);
  printf(" nt=");
  for (int r = 0; r < NREGIONS; r++) printf("%d", P.nt[r]);
  printf("\n");
  fflush(stdout);
}

static elem_t *RA, *RB, *RC; /* the serial reference */

static void init_arrays(elem_t *A, elem_t *B, elem_t *C, long N) {
  for (long i = 0; i < N; i++) {
    A[i] = (elem_t)((uint64_t)i * 2654435761u + 12345u);
    B[i] = (elem_t)(i ^ 0x5a5a);
    C[i] = (elem_t)(i * 3u + 7u);
  }
}

/* The host reads every array right after a sync point. */
static void check(int epoch, const char *where, const elem_t *A, const elem_t *B, const elem_t *C) {
  TRACE("epoch %d: check after %s\n", epoch, where);
  if (failed) return;
  const elem_t *got[3] = {A, B, C}, *want[3] = {RA, RB, RC};
  long bad = 0;
  for (int a = 0; a < 3; a++)
    for (long i = 0; i < P.N; i++)
      if (got[a][i] != want[a][i]) {
        if (bad++ == 0)
          printf("result: FAIL at epoch %d (after %s): %c[%ld]=%llu want %llu", epoch, where, "ABC"[a], i,
                 (unsigned long long)got[a][i], (unsigned long long)want[a][i]);
      }
  if (bad) {
    printf(" (%ld mismatches)\n", bad);
    fflush(stdout);
    failed = 1;
  }
}

/* Host writes after a check (to the program's arrays and to the reference alike). */
static void host_write(int e, elem_t *A, elem_t *B, elem_t *C) {
  elem_t *x = P.hw_arr[e] == 0 ? A : P.hw_arr[e] == 1 ? B : C;
  elem_t *r = P.hw_arr[e] == 0 ? RA : P.hw_arr[e] == 1 ? RB : RC;
  for (long i = P.hw_lo[e]; i < P.hw_hi[e]; i++) {
    x[i] += P.hw_val[e];
    r[i] += P.hw_val[e];
  }
}
"""


def body(s, p):
    """The loop body of phase p (reads lo, len, i, step, off, N, coef)."""
    k = "coef[0] + coef[1]" if p.locals_ else "(elem_t)(%du + (unsigned)step)" % (17 + 13 * p.idx)
    D = p.dst
    if p.op == "upd":
        return "%s[i] = %s[i] * 3u + %s + (elem_t)i;" % (D, D, k)
    if p.op == "map":
        S = p.srcs[0]
        return "%s[i] = (%s[i] ^ (%s[i] >> 5)) + %s;" % (D, S, S, k)
    if p.op == "map2":
        S1, S2 = p.srcs
        acc = " + %s[i]" % D if p.acc else ""
        return "%s[i] = %s[i] + %s[i] * 7u + %s%s;" % (D, S1, S2, k, acc)
    S = p.srcs[0]
    return "%s[i] = %s[i] + %s[(i + off) %% N] * 5u + %s;" % (D, S, S, k)


def coef_decl(p):
    return "const elem_t coef[2] = {(elem_t)%du, (elem_t)step};" % (17 + 13 * p.idx)


def loop_hdr(p):
    if p.ivar == "int":
        return "for (int i = (int)lo; i < (int)(lo + len); i++)"
    return "for (long i = lo; i < lo + len; i++)"


def maps(p):
    out = []
    for a in p.srcs:
        sec = "%s[0:N]" % a if p.op == "wide" else "%s[lo:len]" % a
        t = p.mt[a]
        out.append("map(%s%s)" % (t + ": " if t else "", sec))
    if p.dst not in p.srcs:
        t = p.mt[p.dst]
        out.append("map(%s%s)" % (t + ": " if t else "", "%s[lo:len]" % p.dst))
    return " ".join(out)


def deps(s, p):
    if not p.dep:
        return ""
    ins, outs = [], []
    for a in p.srcs:
        if p.op == "wide":
            ins += ["t%s[%d]" % (a, k) for k in range(s.nbmax)]
        else:
            ins.append("t%s[k]" % a)
    outs.append("t%s[k]" % p.dst)
    txt = ""
    if ins:
        txt += " depend(in: %s)" % ", ".join(ins)
    return txt + " depend(%s: %s)" % (p.dep_out, ", ".join(outs))


def res_txt(kind, val, p, slot):
    if kind == "none":
        return ""
    if kind == "lit":
        return " resources(%d)" % val
    return " resources(P.res[%d][%d])" % (p.idx, slot)


def instance(s, p, e, ind, em):
    """One instance of phase p for block k (lo, len declared), as pragma lines and its loop."""
    clauses = maps(p) + deps(s, p) + (" nowait" if p.nowait else "") + \
        (" if(P.ifc[%d])" % p.idx if p.ifc else "")
    if p.locals_:
        em.add("%s%s" % (ind, coef_decl(p)))
    if p.layout == "single":
        res = res_txt(p.single_res, p.single_res_val, p, 0)
        st = (" " + p.single_set) if p.single_set else ""
        if p.single_front:
            em.add("%s#pragma omp target%s device(any) %s%s" % (ind, st, clauses, res))
        else:
            em.add("%s#pragma omp target device(any) %s%s%s" % (ind, clauses, st, res))
    else:
        ents = ["if_device(%s)%s%s" % (a.kw, (" " + a.cset) if a.cset else "",
                                       res_txt(a.res, a.res_val, p, n))
                for n, a in enumerate(p.arms)]
        if p.layout == "target":
            em.add("%s#pragma omp target device(any) %s %s" % (ind, clauses, " ".join(ents)))
        elif p.layout == "oneline":
            em.add("%s#pragma omp target device(any) %s" % (ind, clauses))
            em.add("%s#pragma omp %s" % (ind, " ".join(ents)))
        else:
            em.add("%s#pragma omp target device(any) %s" % (ind, clauses))
            for x in ents:
                em.add("%s#pragma omp %s" % (ind, x))
    em.add("%s  %s %s" % (ind, loop_hdr(p), body(s, p)))


BLOCK = "const long lo = (long)k * BS, len = k == NB - 1 ? N - lo : BS;"


def phase_loop(s, p, e, ind, em, task_var=None):
    """The instances of phase p over every block of its mask (of the task's share)."""
    em.add("%sfor (int k = 0; k < NB; k++) {" % ind)
    cond = "!((P.mask[%d] >> (k %% 32)) & 1u)" % p.idx
    if task_var:
        cond += " || k %% %d != %s" % (e.tasks, task_var)
    em.add("%s  if (%s) continue;" % (ind, cond))
    em.add("%s  %s" % (ind, BLOCK))
    if p.op == "wide":
        em.add("%s  const long off = P.off[%d];" % (ind, p.idx))
    instance(s, p, e, ind + "  ", em)
    em.add("%s}" % ind)


def emit_reference(s, em):
    """The serial reference of each epoch: phases in program order, each over all its blocks."""
    for _, e in s.epochs():
        em.add("static void reference_%d(void) {" % e.idx)
        em.add("  elem_t *A = RA, *B = RB, *C = RC; (void)A; (void)B; (void)C;")
        em.add("  const int NB = P.NB; const long BS = P.BS, N = P.N; (void)N;")
        em.add("  for (int step = 0; step < %s; step++) {" % (
            "P.steps[%d]" % e.idx if e.looped else "1"))
        for p in e.phases:
            em.add("    for (int k = 0; k < NB; k++) { /* phase %d */" % p.idx)
            em.add("      if (!((P.mask[%d] >> (k %% 32)) & 1u)) continue;" % p.idx)
            em.add("      %s" % BLOCK)
            if p.op == "wide":
                em.add("      const long off = P.off[%d];" % p.idx)
            if p.locals_:
                em.add("      %s" % coef_decl(p))
            em.add("      %s %s" % (loop_hdr(p), body(s, p)))
            em.add("    }")
        em.add("  }")
        em.add("}")


SYNC_NAMES = {"taskwait": "taskwait", "taskgroup": "taskgroup", "flushtask":
              "a host task with spread_any_flush()", "sync": "instances without nowait",
              "sync_flush": "instances without nowait and spread_any_flush()",
              "single_barrier": "the implicit barrier of single", "for_barrier":
              "the implicit barrier of for", "barrier": "an explicit barrier",
              "region_end": "the end of the parallel region"}


def check_call(e, where, ind, em):
    em.add("%sreference_%d();" % (ind, e.idx))
    em.add("%scheck(%d, \"%s\", A, B, C);" % (ind, e.idx, where))
    if e.hostwrite:
        em.add("%shost_write(%d, A, B, C);" % (ind, e.idx))


def all_tokens(s):
    return ", ".join("t%s[%d]" % (a, k) for a in ARRAYS for k in range(s.nbmax))


def epoch_work(s, e, ind, em):
    """The instances of epoch e (its step loop, its explicit tasks), without its sync."""
    def steps(i2, task_var=None):
        if e.looped:
            em.add("%sfor (int step = 0; step < P.steps[%d]; step++) {" % (i2, e.idx))
        else:
            em.add("%s{" % i2)
            em.add("%s  const int step = 0;" % i2)
        for p in e.phases:
            phase_loop(s, p, e, i2 + "  ", em, task_var)
        em.add("%s}" % i2)

    if e.tasks:
        em.add("%sfor (int j = 0; j < %d; j++) {" % (ind, e.tasks))
        em.add("%s#pragma omp task firstprivate(j)" % (ind + "  "))
        em.add("%s  {" % ind)
        steps(ind + "    ", "j")
        if e.inner_wait:
            em.add("%s#pragma omp taskwait" % (ind + "    "))
        em.add("%s  }" % ind)
        em.add("%s}" % ind)
    else:
        steps(ind)


def epoch_inner(s, e, ind, em):
    """Epoch e with its own sync point and check (main, single, masked)."""
    em.add("%s/* epoch %d: sync %s */" % (ind, e.idx, e.sync))
    em.add("%sTRACE(\"epoch %d: start\\n\");" % (ind, e.idx))
    if e.sync == "taskgroup":
        em.add("%s#pragma omp taskgroup" % ind)
        em.add("%s{" % ind)
        epoch_work(s, e, ind + "  ", em)
        em.add("%s}" % ind)
        check_call(e, SYNC_NAMES["taskgroup"], ind, em)
    elif e.sync == "taskwait":
        epoch_work(s, e, ind, em)
        em.add("%s#pragma omp taskwait" % ind)
        check_call(e, SYNC_NAMES["taskwait"], ind, em)
    elif e.sync == "flushtask":
        epoch_work(s, e, ind, em)
        em.add("%s#pragma omp task depend(inout: %s)" % (ind, all_tokens(s)))
        em.add("%s{" % ind)
        em.add("%s  spread_any_flush();" % ind)
        check_call(e, SYNC_NAMES["flushtask"], ind + "  ", em)
        em.add("%s}" % ind)
        em.add("%s#pragma omp taskwait" % ind)
    elif e.sync in ("sync", "sync_flush"):
        epoch_work(s, e, ind, em)
        if e.sync == "sync_flush":
            em.add("%sspread_any_flush();" % ind)
        check_call(e, SYNC_NAMES[e.sync], ind, em)
    elif e.sync == "exit":
        em.add("%sif (failed) return 3;" % ind)
        em.add("%sprintf(\"result: PASS\\n\");" % ind)
        em.add("%sfflush(stdout);" % ind)
        epoch_work(s, e, ind, em)
        em.add("%sreturn 0; /* the program's end with instances in flight */" % ind)
    else:  # seg: the segment's end syncs it
        epoch_work(s, e, ind, em)


def emit_segment(s, r, sg, last, ind, em):
    seg_epoch = sg.epochs[-1] if sg.epochs and sg.epochs[-1].sync == "seg" else None
    if sg.kind == "for":
        e = sg.epochs[0]
        em.add("%s/* epoch %d: a worksharing for, sync %s */" % (ind, e.idx, sg.end))
        em.add("%sTRACE(\"epoch %d: start (thread %%d)\\n\", omp_get_thread_num());" % (ind, e.idx))
        em.add("%s#pragma omp for%s%s" % (ind, sg.sched, " nowait" if sg.nowait else ""))
        em.add("%sfor (int k = 0; k < NB; k++) {" % ind)
        em.add("%s  %s" % (ind, BLOCK))
        i2 = ind + "  "
        if e.looped:
            em.add("%sfor (int step = 0; step < P.steps[%d]; step++) {" % (i2, e.idx))
        else:
            em.add("%s{" % i2)
            em.add("%s  const int step = 0;" % i2)
        for p in e.phases:
            em.add("%s  if ((P.mask[%d] >> (k %% 32)) & 1u) {" % (i2, p.idx))
            if p.op == "wide":
                em.add("%s    const long off = P.off[%d];" % (i2, p.idx))
            instance(s, p, e, i2 + "    ", em)
            em.add("%s  }" % i2)
        em.add("%s}" % i2)
        em.add("%s}" % ind)
    else:
        if sg.kind == "single":
            em.add("%s#pragma omp single%s" % (ind, " nowait" if sg.nowait else ""))
        else:
            em.add("%s#pragma omp masked" % ind)
        em.add("%s{" % ind)
        for e in sg.epochs:
            epoch_inner(s, e, ind + "  ", em)
        em.add("%s}" % ind)
    if sg.end == "barrier":
        em.add("%s#pragma omp barrier" % ind)
    if seg_epoch is None:
        return None
    if sg.end == "region_end":
        return seg_epoch  # checked after the region
    em.add("%s#pragma omp masked" % ind)
    em.add("%s{" % ind)
    check_call(seg_epoch, SYNC_NAMES[sg.end], ind + "  ", em)
    em.add("%s}" % ind)
    em.add("%s#pragma omp barrier" % ind)
    return None


def emit_program(s):
    em = Emitter()
    em.add("/* Generated by scripts/any-fuzz.py: %s. Run: ./prog SEED */" % s.name())
    em.add("/* features: %s */" % " ".join(s.tags()))
    em.add("typedef %s elem_t;" % s.elem)
    nph = sum(1 for _ in s.phases())
    nep = sum(1 for _ in s.epochs())
    em.add("#define NBMAX %d" % s.nbmax)
    em.add("#define NPHASES %d" % nph)
    em.add("#define NEPOCHS %d" % nep)
    em.add("#define NREGIONS %d" % len(s.regions))
    em.add("static const int PID[] = {%s}, EID[] = {%s}, RID[] = {%s};" % (
        ", ".join(str(p.pid) for p in s.phases()) or "0",
        ", ".join(str(e.eid) for _, e in s.epochs()) or "0",
        ", ".join(str(r.rid) for r in s.regions) or "0"))
    em.add(C_COMMON)
    emit_reference(s, em)
    em.add("static char %s;" % ", ".join("t%s[NBMAX]" % a for a in ARRAYS))
    if s.storage == "static":
        em.add("static elem_t A[NBMAX * 4096], B[NBMAX * 4096], C[NBMAX * 4096];")
    em.add("")
    em.add("int main(int argc, char **argv) {")
    em.add("  if (argc < 2) { fprintf(stderr, \"usage: %s SEED\\n\", argv[0]); return 2; }")
    em.add("  gen_params(atol(argv[1]));")
    em.add("  const int NB = P.NB; const long BS = P.BS, N = P.N; (void)BS;")
    if s.storage == "heap":
        em.add("  elem_t *A = malloc(sizeof(elem_t) * N), *B = malloc(sizeof(elem_t) * N), "
               "*C = malloc(sizeof(elem_t) * N);")
    em.add("  RA = malloc(sizeof(elem_t) * N); RB = malloc(sizeof(elem_t) * N); "
           "RC = malloc(sizeof(elem_t) * N);")
    em.add("  init_arrays(A, B, C, N);")
    em.add("  init_arrays(RA, RB, RC, N);")
    for ri, r in enumerate(s.regions):
        em.add("  /* region %d: %s */" % (ri, r.kind))
        if r.kind == "main":
            for e in r.epochs:
                epoch_inner(s, e, "  ", em)
            continue
        em.add("#pragma omp parallel%s" % (" num_threads(P.nt[%d])" % ri if r.num_threads else ""))
        em.add("  {")
        after = None
        for si, sg in enumerate(r.segments):
            after = emit_segment(s, r, sg, si == len(r.segments) - 1, "    ", em) or after
        em.add("  }")
        if after is not None:
            check_call(after, SYNC_NAMES["region_end"], "  ", em)
    em.add("  if (failed) return 3;")
    em.add("  printf(\"result: PASS\\n\");")
    em.add("  return 0;")
    em.add("}")
    return em.src()


class Emitter:
    def __init__(self):
        self.lines = []

    def add(self, text):
        self.lines.extend(text.split("\n"))

    def src(self):
        return "\n".join(self.lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------------------------

ERROR_RE = re.compile(r"omptarget fatal error|spread: error|omptarget error")
WARN_RE = re.compile(r"spread: warning|omptarget warning")
CRASH_RE = re.compile(r"free\(\): |double free|corrupted |malloc\(\): |munmap_chunk|"
                      r"stack smashing|internal error in|panicked|Segmentation fault|"
                      r"Assertion .* failed|kmp_runtime\.cpp\(|kmp_tasking\.cpp|OMP: Error")


def error_kind(err):
    """A short name for the first Spread error in err."""
    table = [
        (r"explicit extension not allowed", "explicit extension"),
        (r"required by 'present' map type modifier does not exist", "present data absent"),
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


# Errors a case may end with: an explicit extension where the shape lets unordered instances map
# sections of different extents (feature 'ext').
def allowed_error(shape, kind):
    return shape.ext and kind == "explicit extension"


def classify_run(shape, rc, out, err, timed_out):
    """(outcome, detail). Outcomes that are bugs: false-error, wrong, crash, hang."""
    if timed_out:
        return "hang", "no exit within the timeout"
    m = CRASH_RE.search(err) or CRASH_RE.search(out)
    if m:
        return "crash", m.group(0)
    has_err = ERROR_RE.search(err) is not None
    res = None
    for ln in out.splitlines():
        if ln.startswith("result: PASS"):
            res = res or "PASS"
        elif ln.startswith("result: FAIL"):
            res = "FAIL"
    if res == "FAIL":
        return "wrong", re.sub(r"^result: FAIL ", "", [ln for ln in out.splitlines()
                                                       if ln.startswith("result: FAIL")][0])[:120]
    if rc < 0 and rc != -signal.SIGABRT:
        return "crash", "killed by signal %d" % -rc
    if rc != 0 and has_err:
        kind = error_kind(err)
        return ("spread-error" if allowed_error(shape, kind) else "false-error"), kind
    if rc != 0:
        return "crash", "exit status %d without a Spread error" % rc
    if res == "PASS":
        if has_err:
            # an error message, yet the run went on and passed
            return "false-error", "error printed, exit 0: " + error_kind(err)
        return "pass", ""
    return "crash", "no result line (exit %d)" % rc


BUGS = ("false-error", "wrong", "crash", "hang")


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
    coherence: str


def gen_env(rng, shape, cfg):
    """The environment of one case."""
    env = {}
    loads = ["preload", "libpath"] + (["linked"] if cfg.linked_ok else [])
    load = rng.choice(loads)
    if load == "preload":
        env["LD_PRELOAD"] = cfg.runtime_lib
    elif load == "libpath":
        env["LD_LIBRARY_PATH"] = cfg.runtime_libdir
    coh = cfg.coherence if cfg.coherence != "both" else rng.choice(["copy", "lazy"])
    if coh == "lazy":
        env["SPREAD_COHERENCE"] = "lazy"
    elif rng.random() < 0.1:
        env["SPREAD_COHERENCE"] = "copy"
    hd = rng.choices([0, 1, 2, 3, 4], weights=[1, 5, 6, 3, 4])[0]
    if hd != 4 or rng.random() < 0.3:
        env["SPREAD_HOST_DEVICES"] = str(hd)
    env["OMP_NUM_THREADS"] = str(min(rng.choice([1, 2, 2, 3, 4, 4, 6]), cfg.max_threads))
    if rng.random() < 0.12:
        env["SPREAD_NOWAIT"] = "libomp"
    if rng.random() < 0.35:
        env["SPREAD_ANY_POLICY"] = rng.choice(["model", "tokens", "first", "first"])
    if rng.random() < 0.12:
        env["SPREAD_STEAL"] = "0"
    if rng.random() < 0.12:
        env["SPREAD_TOKEN_POOL"] = "global"
    if rng.random() < 0.2:
        env["SPREAD_ANY_SLOTS"] = "host=%d,cpu=%d,nvidia=%d" % (
            rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2, 3]), rng.choice([1, 2, 4]))
    if rng.random() < 0.15:
        env["SPREAD_ANY_HOST_THREADS"] = str(rng.choice([1, 2, 3, 4]))
    if shape.has_kind("nvidia") and hd > 0 and rng.random() < 0.6:
        env["SPREAD_KIND_ALIAS"] = "nvidia:" + ",".join(
            str(d) for d in sorted(rng.sample(range(hd), rng.choice([1, min(2, hd)]))))
    if rng.random() < 0.1:
        env["SPREAD_INFO"] = "any"
    return env


def compile_shape(shape, cfg):
    d = os.path.join(cfg.out, "shapes", shape.name())
    os.makedirs(d, exist_ok=True)
    src = emit_program(shape)
    path = os.path.join(d, "prog.c")
    with open(path, "w") as f:
        f.write(src)
    with open(os.path.join(d, "shape.json"), "w") as f:
        json.dump(asdict(shape), f, indent=1, default=str)
    cmd = [cfg.spread_cc, shape.opt] + (["-g"] if shape.debug else []) + [
        path, "-o", os.path.join(d, "prog")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=base_env())
    return d, r.returncode, r.stdout + r.stderr


def run_case(shape, bindir, seed, env, cfg):
    full = base_env()
    full.update(env)
    cmd = [os.path.join(bindir, "prog"), str(seed)]
    t0 = time.time()
    rc, out, err, to = run_process(cmd, full, cfg.timeout)
    wall = time.time() - t0
    outcome, detail = classify_run(shape, rc if rc is not None else 0, out, err, to)
    if not any(ln.startswith("params:") for ln in out.splitlines()) and \
            outcome not in ("hang", "crash"):
        outcome, detail = "crash", "no parameter line"
    return {"shape": shape.name(), "seed": seed, "env": env, "rc": rc, "wall": round(wall, 3),
            "outcome": outcome, "detail": detail, "out": out, "err": err}


def write_repro(case, shape, bindir, cfg, n):
    d = os.path.join(cfg.out, "bugs", "%03d-%s-%s-seed%d" % (n, case["outcome"], shape.name(),
                                                              case["seed"]))
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(bindir, "prog.c"), os.path.join(d, "prog.c"))
    envs = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(case["env"].items()))
    build = "%s %s%s prog.c -o prog" % (cfg.spread_cc, shape.opt, " -g" if shape.debug else "")
    with open(os.path.join(d, "run.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\n" % (case["outcome"], case["detail"]))
        f.write("# build: %s\n" % build)
        f.write("cd \"$(dirname \"$0\")\"\n")
        f.write("[ -x prog ] || %s || exit 1\n" % build)
        f.write("env %s ./prog %d\n" % (envs, case["seed"]))
    os.chmod(os.path.join(d, "run.sh"), 0o755)
    with open(os.path.join(d, "stdout.txt"), "w") as f:
        f.write(case["out"])
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(case["err"])
    # what --reduce reads
    shutil.copy(os.path.join(bindir, "shape.json"), os.path.join(d, "shape.json"))
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump({k: case[k] for k in ("shape", "seed", "env", "outcome", "detail")}, f, indent=1)
    return d


# ---------------------------------------------------------------------------------------------
# Reducing a finding: smaller shapes (and environments) that still fail the same way
# ---------------------------------------------------------------------------------------------


def shape_from_json(j):
    def arm(a):
        return Arm(**a)

    def phase(p):
        p = dict(p)
        p["arms"] = [arm(a) for a in p["arms"]]
        return Phase(**p)

    def epoch(e):
        e = dict(e)
        e["phases"] = [phase(p) for p in e["phases"]]
        return Epoch(**e)

    def segment(sg):
        sg = dict(sg)
        sg["epochs"] = [epoch(e) for e in sg["epochs"]]
        return Segment(**sg)

    def region(r):
        r = dict(r)
        r["segments"] = [segment(sg) for sg in r["segments"]]
        r["epochs"] = [epoch(e) for e in r["epochs"]]
        return Region(**r)

    j = dict(j)
    j["regions"] = [region(r) for r in j["regions"]]
    return Shape(**j)


def renumber(s):
    """Consecutive epoch and phase numbers; the 'ext' flag again."""
    n = 0
    for i, (_, e) in enumerate(s.epochs()):
        e.idx = i
        for p in e.phases:
            p.idx = n
            n += 1
    s.ext = any(epoch_ext(e) for _, e in s.epochs())
    return s


def candidates(s):
    """Smaller variants of shape s, each still a valid program: whole parts left out first, then
    features turned off. (Removing a phase or an epoch never creates an unordered conflict;
    nowait off and a shorter list of versions never do either.)"""
    import copy

    def variant(f):
        t = copy.deepcopy(s)
        if f(t) is False:
            return None
        return renumber(t)

    out = []
    for ri in range(len(s.regions)):
        if len(s.regions) > 1:
            out.append(("region %d" % ri, lambda t, ri=ri: t.regions.pop(ri) and None))
    for ri, r in enumerate(s.regions):
        for si in range(len(r.segments)):
            if len(r.segments) > 1:
                out.append(("region %d segment %d" % (ri, si),
                            lambda t, ri=ri, si=si: t.regions[ri].segments.pop(si) and None))
    # epochs, phases, arms: addressed by position in s.epochs()
    eps = list(s.epochs())
    for ei, (ctx, e) in enumerate(eps):
        def drop_epoch(t, ei=ei):
            for r in t.regions:
                lists = [r.epochs] + [sg.epochs for sg in r.segments]
                for lst in lists:
                    for x in lst:
                        if x.idx == ei:
                            if len(lst) == 1:
                                return False
                            lst.remove(x)
                            return None
            return False
        out.append(("epoch %d" % ei, drop_epoch))
    for ei, (ctx, e) in enumerate(eps):
        def ep(t, ei=ei):
            return list(t.epochs())[ei][1]
        for pi in range(len(e.phases)):
            if len(e.phases) > 1:
                out.append(("epoch %d phase %d" % (ei, pi),
                            lambda t, ep=ep, pi=pi: ep(t).phases.pop(pi) and None))
        if e.looped:
            out.append(("epoch %d no steps" % ei, lambda t, ep=ep: setattr(ep(t), "looped", False)))
        if e.hostwrite:
            out.append(("epoch %d no host write" % ei,
                        lambda t, ep=ep: setattr(ep(t), "hostwrite", False)))
        if e.tasks:
            out.append(("epoch %d no tasks" % ei, lambda t, ep=ep: setattr(ep(t), "tasks", 0)))
        for pi, p in enumerate(e.phases):
            def ph(t, ep=ep, pi=pi):
                return ep(t).phases[pi]
            for ai in range(len(p.arms)):
                if len(p.arms) > 1:
                    out.append(("epoch %d phase %d arm %d" % (ei, pi, ai),
                                lambda t, ph=ph, ai=ai: ph(t).arms.pop(ai) and None))
            for attr in ("ifc", "locals_"):
                if getattr(p, attr):
                    out.append(("epoch %d phase %d no %s" % (ei, pi, attr),
                                lambda t, ph=ph, attr=attr: setattr(ph(t), attr, False)))
            if p.nowait and e.sync not in ("exit",):
                out.append(("epoch %d phase %d no nowait" % (ei, pi),
                            lambda t, ph=ph: setattr(ph(t), "nowait", False)))
            for ai, a in enumerate(p.arms):
                if a.res != "none":
                    out.append(("epoch %d phase %d arm %d no resources" % (ei, pi, ai),
                                lambda t, ph=ph, ai=ai: setattr(ph(t).arms[ai], "res", "none")))
    return [(name, v) for name, v in ((n, variant(f)) for n, f in out) if v is not None]


def reduce_finding(bugdir, cfg, runs, log, keep_env=False):
    with open(os.path.join(bugdir, "shape.json")) as f:
        shape = renumber(shape_from_json(json.load(f)))
    with open(os.path.join(bugdir, "case.json")) as f:
        case = json.load(f)
    want = (case["outcome"], case["detail"] if case["outcome"] != "wrong" else "")
    work = os.path.join(bugdir, "reduce")
    os.makedirs(work, exist_ok=True)
    rcfg = Config(**{**asdict(cfg), "out": work})

    def fails(sh, env):
        d, rc, msg = compile_shape(sh, rcfg)
        if rc != 0:
            return False
        for _ in range(runs):
            c = run_case(sh, d, case["seed"], env, rcfg)
            if (c["outcome"], c["detail"] if c["outcome"] != "wrong" else "") == want:
                return True
        return False

    env = dict(case["env"])
    shape.idx = 900
    if not fails(shape, env):
        log("reduce: the finding does not show again in %d runs" % runs)
        return 1
    changed = True
    while changed:
        changed = False
        # One pass over the candidates; after a success the pass goes on from the same position
        # of the (smaller) shape's list, then passes repeat until none succeeds.
        pos = 0
        while True:
            cands = candidates(shape)
            if pos >= len(cands):
                break
            name, cand = cands[pos]
            cand.idx = 900
            if fails(cand, env):
                log("reduce: without %s: still fails" % name)
                shape, changed = cand, True
            else:
                pos += 1
        for k in ([] if keep_env else sorted(env)):
            if k in ("LD_PRELOAD", "LD_LIBRARY_PATH"):
                continue
            e2 = {x: v for x, v in env.items() if x != k}
            if fails(shape, e2):
                log("reduce: without %s=%s: still fails" % (k, env[k]))
                env, changed = e2, True
    shape.idx = 999
    d, _, _ = compile_shape(shape, rcfg)
    c = run_case(shape, d, case["seed"], env, rcfg)
    n = write_repro({**c, "outcome": want[0]}, shape, d, rcfg, 0)
    log("reduce: smallest program in %s (%d phases)" % (n, sum(1 for _ in shape.phases())))
    return 0


def summarize(cases, cfg, elapsed, bug_dirs):
    from collections import Counter
    outc = Counter(c["outcome"] for c in cases)
    errk = Counter(c["detail"] for c in cases if c["outcome"] == "spread-error")
    lines = ["# any-fuzz summary", "",
             "command: `%s`" % " ".join(shlex.quote(a) for a in sys.argv),
             "runtime: `%s`; %d cases in %.0f s" % (cfg.runtime_lib, len(cases), elapsed), "",
             "| outcome | cases |", "| --- | ---: |"]
    for o in ["pass", "spread-error", "false-error", "wrong", "crash", "hang"]:
        lines.append("| %s | %d |" % (o, outc.get(o, 0)))
        if o == "spread-error":
            for k, n in errk.most_common():
                lines.append("| &nbsp;&nbsp;%s | %d |" % (k.replace("|", "/"), n))
    lines.append("| **total** | %d |" % len(cases))
    # pass counts by coherence mode and by where the checks happen
    lines += ["", "| coherence | cases | pass |", "| --- | ---: | ---: |"]
    for mode in ("copy", "lazy"):
        sel = [c for c in cases if c["env"].get("SPREAD_COHERENCE", "copy") == mode]
        lines.append("| %s | %d | %d |" % (mode, len(sel),
                                          sum(1 for c in sel if c["outcome"] == "pass")))
    if bug_dirs:
        lines += ["", "Bugs (%d reproducers, the first 40):" % len(bug_dirs), ""]
        lines += ["- %s" % d for d in bug_dirs[:40]]
    return "\n".join(lines) + "\n"


# Findings still open on the runtime this was written against (issue 43), as --exclude items:
# --exclude-open leaves them out (test-suite/any/fuzz.test does). Remove an entry with its fix.
OPEN_FINDINGS = [
    # F3: a host version written 'teams ...' run in a one-thread parallel region: a later
    # parallel region's nested parallel aborts libomp (KMP_MASTER_GTID). LLVM 19's libomp: the
    # same without device(any), with a target device(omp_get_initial_device()) teams, on stock.
    ("F3", "host_teams"),
    # F4: a local array of 16 bytes or more that the body reads (the instance task's
    # firstprivate copy) read by a vectorized host loop: SIGSEGV. LLVM 19: libomp places a
    # task's private copies 8-aligned while clang's code assumes the array's 16-byte alignment
    # (movaps); the plain-OpenMP program 'task firstprivate(coef)' + 'parallel for simd' crashes
    # with clang-19 and libomp alone (docs/task-sharing.md, "Limits").
    ("F4", "locals"),
    # (F5, F6, F7: lazy outputs not home at a barrier after a one-thread host instance, a panic
    # at exit with host instances in flight, a hang of a late barrier report: all fixed.)
]


def env_tags(env):
    """VAR=VALUE for each setting; SPREAD_KIND_ALIAS=all when every host device serves as
    another kind (a cpu-only construct then has no candidate)."""
    t = {"%s=%s" % kv for kv in env.items()}
    alias = env.get("SPREAD_KIND_ALIAS", "")
    if alias:
        hd = int(env.get("SPREAD_HOST_DEVICES", "4"))
        named = {int(x) for x in alias.split(":", 1)[1].split(",") if x}
        if named >= set(range(hd)):
            t.add("SPREAD_KIND_ALIAS=all")
    return t


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
    ap.add_argument("--out", default=os.path.join(REPO, "target", "any-fuzz"))
    ap.add_argument("--root", default=REPO,
                    help="the Spread build whose spread-cc and runtime are used (default: this one)")
    ap.add_argument("--spread-cc", help="compile with this spread-cc (default: ROOT's)")
    ap.add_argument("--runtime-lib", help="run on this libspread_rt.so / libomptarget.so.19.1 "
                    "(LD_PRELOAD and LD_LIBRARY_PATH only; default: ROOT's)")
    ap.add_argument("--coherence", choices=["both", "copy", "lazy"], default="both",
                    help="SPREAD_COHERENCE of the runs (default: both, drawn per run)")
    ap.add_argument("--exclude", action="append", default=[],
                    help="leave out cases with all of these features, joined by '+': a shape's "
                    "(the features line of a generated source, e.g. 'tasks+sync=taskwait') and "
                    "the environment's VAR=VALUE (e.g. 'ctx=main+SPREAD_NOWAIT=libomp')")
    ap.add_argument("--exclude-open", action="store_true",
                    help="leave out what triggers the open findings (OPEN_FINDINGS in this script: "
                    "docs/task-sharing.md, 'Random task-sharing programs')")
    ap.add_argument("--require", action="append", default=[],
                    help="keep only shapes with this feature (repeatable), e.g. sync=flushtask")
    ap.add_argument("--max-threads", type=int, default=6,
                    help="largest OMP_NUM_THREADS a case gets (default 6)")
    ap.add_argument("--print-shape", type=int, metavar="N",
                    help="print shape N's source (as --seed draws it) and exit")
    ap.add_argument("--reduce", metavar="BUGDIR",
                    help="make the finding of a bug directory (OUT/bugs/...) smaller: leave out "
                    "regions, segments, epochs, phases, versions, features and environment "
                    "variables while it still fails the same way; the result goes to "
                    "BUGDIR/reduce/bugs/")
    ap.add_argument("--reduce-runs", type=int, default=8,
                    help="runs per candidate when reducing (default 8)")
    ap.add_argument("--reduce-keep-env", action="store_true",
                    help="when reducing, keep the environment as it is (for rare findings, "
                    "whose odds it changes)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()
    if args.exclude_open:
        args.exclude += [x for _, x in OPEN_FINDINGS]

    root = os.path.abspath(args.root)
    spread_cc, lib, libdir, linked_ok = runtime_paths(root, args.runtime_lib, args.spread_cc,
                                                      args.out)
    cfg = Config(root=root, spread_cc=spread_cc, runtime_lib=lib, runtime_libdir=libdir,
                 linked_ok=linked_ok, timeout=args.timeout, out=os.path.abspath(args.out),
                 max_threads=args.max_threads, coherence=args.coherence)

    if args.reduce:
        return reduce_finding(os.path.abspath(args.reduce), cfg, args.reduce_runs,
                              lambda m: print(m, flush=True), args.reduce_keep_env)

    rng = random.Random(args.seed)
    shapes = []
    idx = 0
    shape_only = [x for x in args.exclude if not any("=" in p and p.split("=")[0].isupper()
                                                     for p in x.split("+"))]
    while len(shapes) < args.shapes:
        sh = gen_shape(random.Random(rng.getrandbits(64)), idx)
        idx += 1
        tags = set(sh.tags())
        if not excluded(tags, shape_only) and all(r in tags for r in args.require):
            shapes.append(sh)
        if idx > 200 * args.shapes + 100:
            sys.exit("any-fuzz: --exclude / --require leave no shapes")
    if args.print_shape is not None:
        sys.stdout.write(emit_program(shapes[args.print_shape]))
        return 0

    for pth in (cfg.spread_cc, cfg.runtime_lib):
        if not os.path.exists(pth):
            sys.exit("any-fuzz: %s does not exist (scripts/build.sh)" % pth)
    if os.path.isdir(os.path.join(cfg.out, "bugs")):
        shutil.rmtree(os.path.join(cfg.out, "bugs"))
    os.makedirs(cfg.out, exist_ok=True)

    t0 = time.time()
    lock = threading.Lock()
    cases, bug_dirs = [], []
    compiled = {}

    def log(msg):
        if not args.quiet:
            with lock:
                print(msg, flush=True)

    def do_shape(sh):
        d, rc, msg = compile_shape(sh, cfg)
        return sh, (d if rc == 0 else None), msg

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for sh, d, msg in pool.map(do_shape, shapes):
            compiled[sh.name()] = (sh, d)
            if d is None:
                # A program spread-cc or clang refuses: the generator's fault or a driver bug.
                log("%s: compile failed:\n%s" % (sh.name(), msg))
                cases.append({"shape": sh.name(), "seed": -1, "env": {}, "rc": None, "wall": 0,
                              "outcome": "crash", "detail": "compile failed", "out": "",
                              "err": msg})
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
            return run_case(sh, compiled[sh.name()][1], seed, env, cfg)

        jsonl = open(os.path.join(cfg.out, "cases.jsonl"), "w")
        done = 0
        for case in pool.map(do_case, work):
            if case is None:
                continue
            done += 1
            cases.append(case)
            if case["outcome"] in BUGS:
                sh, d = compiled[case["shape"]]
                bug_dirs.append(write_repro(case, sh, d, cfg, len(bug_dirs)))
                log("BUG %s: %s seed %d (%s) %s" % (case["outcome"], case["shape"], case["seed"],
                                                    case["detail"], bug_dirs[-1]))
            rec = {k: v for k, v in case.items() if k not in ("out", "err")}
            rec["err_tail"] = case["err"][-400:] if case["outcome"] != "pass" else ""
            jsonl.write(json.dumps(rec) + "\n")
            if done % 200 == 0:
                jsonl.flush()
                log("%d cases, %.0f s" % (done, time.time() - t0))
        jsonl.close()

    summary = summarize(cases, cfg, time.time() - t0, bug_dirs)
    with open(os.path.join(cfg.out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    if any(c["outcome"] in BUGS for c in cases):
        return 1
    if not any(c["outcome"] == "pass" for c in cases):
        print("any-fuzz: no case passed: nothing was tested")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
