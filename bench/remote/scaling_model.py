#!/usr/bin/env python3
"""Scaling model for Spread's remote (MPI) devices: Task Bench `stencil_1d` on N workers.

A paper model, not a measurement. It extends the table in section 3 ("On paper only: many nodes")
of the remote-devices design study, states its equations, and accepts constants measured on a real
machine (--calibrate). docs/remote-scaling.md explains it and shows its output.

Workload
--------
N workers (one MPI rank each, one device each), S steps (default 40). In each step, worker i runs
one task of T ms, then sends its boundary halo of H bytes (default 64 KiB) to i-1 and i+1 (no
wrap-around): 2(N-1) directed transfers per step. Step s+1 on worker i needs the halos of step s
from its neighbours. Rank 0, the head, runs the program and owns no device.

Constants
---------
L   one-way latency of a small message (us)
bw  bandwidth of one transfer (bytes/us; 12 GB/s = 12e3 bytes/us)
o   head occupancy per message it sends or receives (us). The head is one serial server: it does
    nothing else while it spends o on a message. Workers' per-message costs are not modelled:
    each worker handles at most about 5 messages per step whatever N is.
x = L + H/bw      one halo transfer; a worker's two incoming transfers overlap (no NIC contention).

Network presets (all assumed, none measured by this script):
  ib   L = 2 us,   bw = 12 GB/s,   o = 1 us   (the study's IB-like constants)
  tcp  L = 20 us,  bw = 1.2 GB/s,  o = 4 us   (the study's TCP constants)
  shm  L = 0.6 us, bw = 10.5 GB/s, o = 0.6 us (one node: L is half the study's measured 1.2 us
       command round trip over Open MPI shared memory, bw the low end of its measured 1 MiB
       copies, 10.5-12.3 GB/s; o is not measured and is set equal to L. One node has only as
       many ranks as cores, so large N are not physical here.)
--calibrate FILE replaces them with measured values: L = rt_us / 2 (half the round trip of a
remote command), o = send_us (the head's cost per enqueued command), bw = bw_gbs (1 MiB copy). The
measured round trip already contains both ends' software costs and the model adds o at the head
on top, so a calibrated L overstates latency slightly (conservative).

Schemes: what the head does per step
------------------------------------
The commands of one step (B's wording): N launches, and for each of the 2(N-1) transfers one
PeerSend to the source and one PeerRecv to the destination: 5N-4 commands. W is the head's work
per step, c the chain that separates the end of a worker's task from the start of its next one
when the head is otherwise idle. Chains are given for an interior worker (two neighbours, N >= 3);
the code uses m = min(2, N-1) incoming transfers, so N = 1 and 2 are exact too.

A       Head-mediated, as in OMPC. Every command is followed by a completion to the head, and the
        head orders a transfer or a launch only after it has seen the completions it depends on.
        W = (5N-4) commands + (5N-4) completions = (10N-8) o.
        c: j's completion (L, then o at the head), orders to both ends of j's two incoming
        transfers (4o, the last arrives after L), the transfer (x), completions from both ends of
        both transfers (L, 4o), the launch (o, L):  c = 4L + x + 10o.
        (k = 10 messages per worker per step follows the study's description and reproduces its
        saturated cells. OMPC's own plugin notifies only the source of a transfer and gets one
        completion back, so it would spend 6 per worker, as A-task does; upstream's proxy
        plugin, which notifies both ends, 8.)
B       Enqueue-ahead (the remote design for `target nowait depend` graphs): the head sends every
        command of every step ahead of time with event waits attached; workers resolve events
        among themselves; no completion and no round trip goes through the head.
        W = (5N-4) o;  c = x.
C-flat  `target spread` enqueued ahead with one SpreadLaunch message per rank per construct (the
        remote design's message count); each worker derives its chunk, its halo sources and its
        destinations from the construct.  W = N o;  c = x.
C-tree  As C-flat, but the head sends the construct to 2 workers and each worker forwards it to at
        most 2 others (a binary broadcast tree among workers; not built). Forwarding runs on the
        workers' communication threads beside their tasks.  W = 2 o;  c = x.

Which scheme Spread has: the remote design (design study section 2) is B for `target nowait
depend` graphs (the head still sends every command, O(N) sends per step, but no round trip and no
completion passes through it) and C-flat for `target spread` (one message per rank per construct,
O(N) sends per construct from the head, no tree). C-tree is not built. Both B and C-flat assume
that dependent work is enqueued before its predecessors finish. Today's runtime does not do that
when the dependence goes through libomp (the variants below): a remote backend gets B or C-flat
only if it completes a target task for libomp at enqueue and carries the dependence as a device
event.

Variants where the dependences go through libomp on the head, as they do in today's runtime:
A-task       `target nowait depend`: libomp releases a dependent target task only after
             `__tgt_target_nowait_query` has seen its predecessor finish, so one completion per
             task (not one per operation as in A) reaches the head, which then sends the
             successor's 5 commands.  W = (5N-4) commands + N completions = (6N-4) o.
             c: completion (L, o), the PeerSend and PeerRecv of both incoming transfers (4o, the
             last arrives after L), the transfers (x); the launch (o more, then L) arrives before
             they end:  c = 2L + x + 5o.
C-flat-sync  `target spread` without nowait (its end waits for every chunk), one construct per
             step: N SpreadLaunch messages out, N completions in.  W = 2N o;
             c = x + 2L + (N+1) o  (fan-out to the last rank, its halo and task, its completion,
             the head's receipt of it).
C-tree-sync  The same with a broadcast tree down and a completion tree up, each level L + 2o
             each way.  W = 4 o;  c = x + 2 d (L + 2o).

Equations
---------
Period (steady state):        P = max(T + c, W)
Head work of step 0:          W0 = N o (its launches; step 0 needs no halo), 2 o for the trees
Start-up:                     S0 = W0 + L for the flat schemes, 2 o + d (L + 2o) for the trees,
                              d = ceil(log2(N + 2)) - 1, the depth of a binary tree under the head
Makespan of S steps:          M = S0 + (S-1) P + T
Parallel efficiency:          E = S T / M;  steady state E_inf = T / P
Head busy fraction:           (W0 + (S-1) W) / M
Once the head is the bottleneck, E_inf = T / W; with W ~ k N o (k = 10 for A, 6 for A-task,
5 for B, 2 for C-flat-sync, 1 for C-flat) efficiency falls below e at N_e ~ T / (k e o). The script
reports the smallest N with E < 0.9 and E < 0.5 by search (E never rises with N). C-tree has no
such N: the head's work per step is constant, and E stays near T / (T + x) at every N.

The closed form ignores queueing at the head: P = max(T + c, W) assumes the head's work of a step
overlaps the tasks. In a lock-step stencil all tasks end together, so the head meets each step as
a burst, and workers wait for part of it. For the head-reactive schemes (A, A-task) --simulate
adds a discrete-event simulation under the same assumptions (the head a FIFO server that sends a
handler's messages before taking the next one). It came out no more efficient than the closed
form in every case checked (the three presets, T in {0.1, 1, 10} ms, N from 1 to 1024), so the
closed form is an upper bound there as far as checked. For B and C the head never waits for
workers, and the closed form is the model.

What the model omits: NIC and switch contention, stragglers and noise (every task takes exactly T),
the workers' own message costs, placement (HEFT or any other: one fixed chunk per worker),
failures, MPI progress and thread hand-offs inside a rank (libomp's hidden helper threads), and
data movement other than the halos.

Comparison with the study's table (design study section 3: IB constants, 64 KiB, 40 steps, cells
A/B/C), printed for --network ib without --calibrate: its B is B here and its C is C-tree here,
both to the rounding (steady state; with the 40-step start-up C-tree gives 0.92 for 0.93 where
the tree is deep at T = 0.1 ms). Its A matches where the head is saturated (N >= 64 at 0.1 ms,
N >= 256 at 1 ms) and at N <= 16 for 10 ms; in the other seven cells it is 0.01-0.07 lower than
this closed form, between it and the simulation in five, below both at N = 4. The study's A model
is not published; it evidently charges more than c = 4L + x + 10o (25.5 us) at small N (its 0.73
at T = 0.1 ms, N = 4 implies about 37 us) and some queueing near the knee (0.95 at T = 10 ms,
N = 1024, against 0.98 here and 0.85 simulated).

Usage
-----
  bench/remote/scaling_model.py --network ib
  bench/remote/scaling_model.py --network tcp --task-ms 1 --nodes 8,64,512
  bench/remote/scaling_model.py --network shm --calibrate shm.txt --csv shm.csv
A calibration file holds key=value lines (# starts a comment): rt_us, send_us, bw_gbs; missing
keys keep the preset's value. Stdlib only; Python 3.8 or newer.
"""

import argparse
import csv
import heapq
import math
import signal
import sys

NETWORKS = {
    # name: (L us, bw GB/s, o us, description)
    "ib": (2.0, 12.0, 1.0, "IB-like, the study's assumed constants"),
    "tcp": (20.0, 1.2, 4.0, "TCP, the study's assumed constants"),
    "shm": (0.6, 10.5, 0.6, "one node, shared memory: L and bw from the study's measurements on a "
            "2-core VM, o assumed equal to L"),
}

SCHEMES = ["A", "B", "C-flat", "C-tree", "A-task", "C-flat-sync", "C-tree-sync"]
SCHEME_NOTES = {  # scheme: (W, c, what it is)
    "A": ("(10N-8)o", "4L+x+10o", "head-mediated (OMPC): the head sees every completion"),
    "B": ("(5N-4)o", "x", "enqueue-ahead: the remote design for `target nowait depend`"),
    "C-flat": ("N o", "x", "`target spread` enqueued ahead, one message per rank (the design)"),
    "C-tree": ("2o", "x", "`target spread` enqueued ahead through a binary tree (not built)"),
    "A-task": ("(6N-4)o", "2L+x+5o", "`target nowait depend` as libomp resolves it today"),
    "C-flat-sync": ("2N o", "x+2L+(N+1)o", "`target spread` without nowait, one per step"),
    "C-tree-sync": ("4o", "x+2d(L+2o)", "the same with broadcast and completion trees"),
}

# The study's table (IB, 64 KiB, 40 steps): T ms -> N -> (A, B, C).
STUDY_IB = {
    0.1: {4: (.73, .93, .93), 16: (.65, .93, .93), 64: (.16, .32, .93), 256: (.04, .08, .93),
          1024: (.01, .02, .93)},
    1.0: {4: (.96, .99, .99), 16: (.96, .99, .99), 64: (.95, .99, .99), 256: (.39, .78, .99),
          1024: (.10, .20, .99)},
    10.0: {4: (1, 1, 1), 16: (1, 1, 1), 64: (.99, 1, 1), 256: (.99, 1, 1), 1024: (.95, 1, 1)},
}


class Net:
    def __init__(self, name, lat_us, bw_gbs, o_us, source):
        self.name, self.L, self.bw_gbs, self.o, self.source = name, lat_us, bw_gbs, o_us, source

    @property
    def bw(self):  # bytes per microsecond
        return self.bw_gbs * 1e3


def tree_depth(n):
    """Levels below the head of a binary tree holding n workers (level k holds 2^k of them)."""
    return max(0, math.ceil(math.log2(n + 2)) - 1)


def scheme_terms(scheme, n, net, halo_bytes):
    """(W, c, W0, S0): head work per step, chain added to T, head work of the first step (its
    launches only) and start-up (the last worker's first task starts); all in microseconds.
    The chains are those of a worker with m = min(2, N-1) neighbours (m = 2 for N >= 3)."""
    L, o = net.L, net.o
    m = min(2, n - 1)
    x = L + halo_bytes / net.bw if m else 0.0   # one worker: no halo at all
    d = tree_depth(n)
    flat = (n * o, n * o + L)
    tree = (2 * o, 2 * o + d * (L + 2 * o))
    cmds = 5 * n - 4
    if scheme == "A":
        # completion (L, o); 2m orders; transfer; 2m completions; launch (o, L)
        c = 2 * L + 2 * o + 4 * m * o + (2 * L + x if m else 0.0)
        return (2 * cmds * o, c) + flat
    if scheme == "A-task":
        # completion (L, o); 2m orders then the launch; the later of transfer and launch
        c = 2 * L + o + 2 * m * o + (x if m else o)
        return ((cmds + n) * o, c) + flat
    if scheme == "B":
        return (cmds * o, x) + flat
    if scheme == "C-flat":
        return (n * o, x) + flat
    if scheme == "C-tree":
        return (2 * o, x) + tree
    if scheme == "C-flat-sync":
        return (2 * n * o, x + 2 * L + (n + 1) * o) + flat
    if scheme == "C-tree-sync":
        return (4 * o, x + 2 * d * (L + 2 * o)) + tree
    raise ValueError(scheme)


def evaluate(scheme, n, t_us, net, halo_bytes, steps):
    w, c, w0, s0 = scheme_terms(scheme, n, net, halo_bytes)
    period = max(t_us + c, w)
    makespan = s0 + (steps - 1) * period + t_us
    head_work = w0 + (steps - 1) * w
    return {
        "period_us": period,
        "makespan_us": makespan,
        "eff": steps * t_us / makespan,
        "eff_inf": t_us / period,
        "head_busy": head_work / makespan,
        "head_bound": w > t_us + c,
    }


def scaling_limit(scheme, t_us, net, halo_bytes, steps, threshold, n_max=1 << 24):
    """Smallest N >= 1 with efficiency < threshold; 1 if already at N = 1; None if not by n_max.
    Efficiency does not increase with N in any scheme, so a binary search is exact."""
    eff = lambda n: evaluate(scheme, n, t_us, net, halo_bytes, steps)["eff"]
    if eff(1) < threshold:
        return 1
    if eff(n_max) >= threshold:
        return None
    lo, hi = 1, n_max  # eff(lo) >= threshold > eff(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eff(mid) < threshold:
            hi = mid
        else:
            lo = mid
    return hi


def simulate(scheme, n, t_us, net, halo_bytes, steps):
    """Discrete-event simulation of A or A-task: the head is one FIFO server (o per message sent or
    received), workers are as in the closed form. Returns (efficiency, head busy fraction)."""
    L, o = net.L, net.o
    xfer = L + halo_bytes / net.bw
    per_op = scheme == "A"
    events, seq = [], [0]
    head = {"free": 0.0, "busy": 0.0}

    def push(t, kind, *args):
        seq[0] += 1
        heapq.heappush(events, (t, seq[0], kind, args))

    def occupy(t):  # the head spends o on one message, in arrival order; returns when it is done
        head["free"] = max(t, head["free"]) + o
        head["busy"] += o
        return head["free"]

    nbrs = [[j for j in (i - 1, i + 1) if 0 <= j < n] for i in range(n)]
    done = set()            # (worker, step) whose task completion the head has processed
    acks = {}               # A: (src, dst, step) -> completions processed (2 needed)
    arrived = {}            # (dst, step) -> incoming transfers complete
    orders = {}             # A-task: (dst, step) -> time the launch reached dst
    for i in range(n):
        push(0.0, "launch", i, 0)
    end = 0.0
    while events:
        t, _, kind, a = heapq.heappop(events)
        if kind == "launch":                    # head sends the launch of (i, s)
            i, s = a
            push(occupy(t) + L, "start", i, s)
        elif kind == "start":                   # launch arrived; with A-task wait for halos
            i, s = a
            if per_op or arrived.get((i, s), 0) == len(nbrs[i]) or s == 0:
                push(t + t_us, "finish", i, s)
            else:
                orders[(i, s)] = t
        elif kind == "finish":
            i, s = a
            end = max(end, t)
            if s + 1 < steps:
                push(t + L, "completion", i, s)
        elif kind == "completion":              # head receives a task completion
            i, s = a
            tf = occupy(t)
            done.add((i, s))
            if per_op and not nbrs[i]:          # N = 1: nothing to exchange
                push(tf, "launch", i, s + 1)
            elif per_op:                        # order both transfers of each ready pair
                for j in nbrs[i]:
                    if (j, s) in done:
                        for src, dst in ((i, j), (j, i)):
                            t2 = occupy(occupy(tf))  # orders to src and to dst
                            push(t2 + L + xfer, "xfer_done", src, dst, s)
            else:                               # release tasks whose predecessors are all done
                for j in [i] + nbrs[i]:
                    if (j, s + 1) not in orders and all((k, s) in done for k in [j] + nbrs[j]):
                        orders[(j, s + 1)] = None
                        tt = tf
                        for k in nbrs[j]:       # PeerSend to k, PeerRecv to j
                            tt = occupy(occupy(tt))
                            push(tt + L + xfer, "xfer_done", k, j, s)
                        push(tt, "launch", j, s + 1)
        elif kind == "xfer_done":
            src, dst, s = a
            if per_op:                          # completions from both ends to the head
                push(t + L, "ack", src, dst, s)
                push(t + L, "ack", src, dst, s)
            else:
                arrived[(dst, s + 1)] = arrived.get((dst, s + 1), 0) + 1
                if arrived[(dst, s + 1)] == len(nbrs[dst]) and orders.get((dst, s + 1)) is not None:
                    push(max(t, orders[(dst, s + 1)]), "finish_at", dst, s + 1)
        elif kind == "finish_at":
            i, s = a
            push(t + t_us, "finish", i, s)
        elif kind == "ack":
            src, dst, s = a
            tf = occupy(t)
            acks[(src, dst, s)] = acks.get((src, dst, s), 0) + 1
            if acks[(src, dst, s)] == 2:
                arrived[(dst, s)] = arrived.get((dst, s), 0) + 1
                if arrived[(dst, s)] == len(nbrs[dst]):
                    push(tf, "launch", dst, s + 1)
    return steps * t_us / end, head["busy"] / end


def read_calibration(path, net):
    keys = {"rt_us": None, "send_us": None, "bw_gbs": None}
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if "=" not in line:
                sys.exit(f"{path}:{lineno}: expected key=value, got {raw.strip()!r}")
            k, v = (p.strip() for p in line.split("=", 1))
            if k not in keys:
                sys.exit(f"{path}:{lineno}: unknown key {k!r} (known: {', '.join(keys)})")
            try:
                val = float(v)
            except ValueError:
                sys.exit(f"{path}:{lineno}: {k} is not a number: {v!r}")
            if not val > 0:
                sys.exit(f"{path}:{lineno}: {k} must be positive")
            keys[k] = val
    used = [k for k, v in keys.items() if v is not None]
    if not used:
        sys.exit(f"{path}: no rt_us, send_us or bw_gbs found")
    lat = keys["rt_us"] / 2 if keys["rt_us"] else net.L
    o = keys["send_us"] if keys["send_us"] else net.o
    bw = keys["bw_gbs"] if keys["bw_gbs"] else net.bw_gbs
    kept = [k for k, v in keys.items() if v is None]
    src = f"calibrated from {path} ({', '.join(f'{k}={keys[k]:g}' for k in used)})"
    if kept:
        src += f"; {', '.join(kept)} kept from the {net.name} preset"
    return Net(net.name, lat, bw, o, src)


def floats(s):
    return [float(v) for v in s.split(",") if v.strip()]


def ints(s):
    vals = [int(v) for v in s.split(",") if v.strip()]
    if any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError("node counts must be >= 1")
    return vals


def fmt_ms(t):
    return f"{t:g} ms"


def fmt_limit(n, scheme, t_us, net, halo, steps):
    if n is None:
        return "none"
    if n == 1:
        return "all N"
    head_bound = evaluate(scheme, n, t_us, net, halo, steps)["head_bound"]
    return str(n) if head_bound else f"{n}*"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Equations and assumptions: the module docstring "
                                        "(python3 -m pydoc bench/remote/scaling_model.py) and "
                                        "docs/remote-scaling.md.")
    ap.add_argument("--network", choices=sorted(NETWORKS), default="ib")
    ap.add_argument("--task-ms", type=floats, default=[0.1, 1.0, 10.0],
                    help="task length(s) T in ms, comma-separated (default 0.1,1,10)")
    ap.add_argument("--nodes", type=ints, default=[4, 16, 64, 256, 1024],
                    help="worker count(s) N, comma-separated (default 4,16,64,256,1024)")
    ap.add_argument("--steps", type=int, default=40, help="time steps S (default 40)")
    ap.add_argument("--halo-kib", type=float, default=64.0, help="halo per direction (default 64)")
    ap.add_argument("--calibrate", metavar="FILE",
                    help="key=value file with measured rt_us, send_us, bw_gbs")
    ap.add_argument("--schemes", default=",".join(SCHEMES),
                    help=f"comma-separated subset of {','.join(SCHEMES)}")
    ap.add_argument("--simulate", action="store_true",
                    help="add discrete-event simulation rows for A and A-task (slow at N=1024)")
    ap.add_argument("--csv", metavar="FILE", help="also write every cell as CSV ('-': stdout only)")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be >= 1")
    if args.halo_kib < 0 or any(t <= 0 for t in args.task_ms):
        ap.error("--halo-kib must be >= 0 and --task-ms > 0")
    schemes = [s.strip() for s in args.schemes.split(",") if s.strip()]
    for s in schemes:
        if s not in SCHEMES:
            ap.error(f"unknown scheme {s!r}")

    lat, bw, o, desc = NETWORKS[args.network]
    net = Net(args.network, lat, bw, o, f"assumed: {desc}")
    if args.calibrate:
        net = read_calibration(args.calibrate, net)
    halo = args.halo_kib * 1024
    steps = args.steps

    rows = []
    for t_ms in args.task_ms:
        for n in args.nodes:
            for s in schemes:
                r = evaluate(s, n, t_ms * 1e3, net, halo, steps)
                rows.append(dict(network=net.name, L_us=net.L, bw_gbs=net.bw_gbs, o_us=net.o,
                                 halo_kib=args.halo_kib, steps=steps, task_ms=t_ms, nodes=n,
                                 scheme=s, period_us=round(r["period_us"], 3),
                                 makespan_us=round(r["makespan_us"], 3),
                                 efficiency=round(r["eff"], 4),
                                 efficiency_steady=round(r["eff_inf"], 4),
                                 head_busy=round(r["head_busy"], 4),
                                 head_bound=int(r["head_bound"])))
    if args.csv:
        out = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
        wr = csv.DictWriter(out, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
        if out is not sys.stdout:
            out.close()
        else:
            return 0

    p = print
    x = net.L + halo / net.bw
    p(f"Spread remote devices, scaling model: Task Bench stencil_1d, {steps} steps, "
      f"{args.halo_kib:g} KiB halos")
    p(f"network {net.name}: L = {net.L:g} us, bw = {net.bw_gbs:g} GB/s, o = {net.o:g} us "
      f"per head message ({net.source})")
    p(f"halo transfer x = L + H/bw = {x:.2f} us")
    p("")
    p("Schemes: head work per step W, chain c; period P = max(T + c, W), N >= 3")
    for s in schemes:
        w, c, what = SCHEME_NOTES[s]
        p(f"  {s:<12} W = {w:<9} c = {c:<12} {what}")
    p("")
    cell = 12
    for t_ms in args.task_ms:
        p(f"T = {fmt_ms(t_ms)}: efficiency over {steps} steps [head busy fraction]")
        p(f"  {'N =':<12}" + "".join(f"{n:>{cell}}" for n in args.nodes))
        for s in schemes:
            if s == "A-task":
                p("  -- what today's runtime does when libomp resolves the dependences --")
            line = f"  {s:<12}"
            for n in args.nodes:
                r = evaluate(s, n, t_ms * 1e3, net, halo, steps)
                line += f"{r['eff']:>6.2f} [{r['head_busy'] * 100:3.0f}%]"
            p(line)
            if args.simulate and s in ("A", "A-task"):
                line = f"  {s + ' sim':<12}"
                for n in args.nodes:
                    e, b = simulate(s, n, t_ms * 1e3, net, halo, steps)
                    line += f"{e:>6.2f} [{b * 100:3.0f}%]"
                p(line)
        p("")

    p(f"Scaling limit: smallest N with efficiency < 0.9 / < 0.5 over {steps} steps")
    p("  (*: the head is not saturated there, the chain c sets the limit; 'all N': below at N = 1;")
    p("   'none': not below up to N = 2^24)")
    p(f"  {'':<12}" + "".join(f"{'T = ' + fmt_ms(t):>18}" for t in args.task_ms))
    for s in schemes:
        line = f"  {s:<12}"
        for t_ms in args.task_ms:
            a = scaling_limit(s, t_ms * 1e3, net, halo, steps, 0.9)
            b = scaling_limit(s, t_ms * 1e3, net, halo, steps, 0.5)
            t_us = t_ms * 1e3
            a = fmt_limit(a, s, t_us, net, halo, steps)
            b = fmt_limit(b, s, t_us, net, halo, steps)
            line += f"{a + ' / ' + b:>18}"
        p(line)
    p("")

    if (net.name == "ib" and not args.calibrate and args.halo_kib == 64 and steps == 40
            and {"A", "B", "C-tree"} <= set(schemes)):
        p("The study's table (section 3) against this model, A / B / C (C = C-tree here):")
        p(f"  {'T':<8}{'N':>6}  {'study':>15}  {'steady state':>15}  {'40 steps':>15}")
        for t_ms, by_n in STUDY_IB.items():
            for n, st in by_n.items():
                ss = [evaluate(s, n, t_ms * 1e3, net, halo, steps) for s in ("A", "B", "C-tree")]
                f = lambda vs: "/".join(f"{v:.2f}" for v in vs)
                p(f"  {fmt_ms(t_ms):<8}{n:>6}  {f(st):>15}  {f(r['eff_inf'] for r in ss):>15}  "
                  f"{f(r['eff'] for r in ss):>15}")
        p("")
    return 0


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
