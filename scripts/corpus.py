#!/usr/bin/env python3
"""The HeCBench OpenMP offload corpus on stock libomptarget and on Spread.

Driven by scripts/corpus.sh (see there for the options). For each manifest program (all, or
those of --set and --filter), in OUT/progs/<name>/, it builds the program once with the
manifest's command (clang++-19/clang-19, or spread-c++/spread-cc with --cxx spread) and runs the
same binary in a scratch copy of the program's folder:

  stock    LD_LIBRARY_PATH=/usr/lib/llvm-19/lib
  libpath  LD_LIBRARY_PATH=<Spread's drop-in folder> (libomptarget.so.19.1 is Spread's runtime)
  preload  LD_PRELOAD=<libspread_rt.so>, LD_LIBRARY_PATH as stock
  stock2   stock again, only for programs without a check of their own: which lines of their
           output are deterministic

Verdicts come from this run only (the manifest's columns are copied to summary.tsv, never
expected); they and the output comparison are scripts/corpus_common.py's. A program counts
against the exit status when a Spread run (libpath or preload) does not give what stock gives:

  stock PASS               the Spread run must PASS;
  stock NOCHECK (no check printed, clean exit)
                           the Spread run must exit cleanly with the same output: SAME, CLOSE,
                           or DIFF~ (stock's two runs already differ in length or exit status);
  anything else (FAIL, CRASH:<signal>, RC<n>, TIMEOUT)
                           the Spread run may not end worse: no timeout where stock has none,
                           no crash stock does not have (another signal, or none), no non-zero
                           exit where stock exits cleanly;

and when the build fails. Other verdicts that differ from stock's (a PASS, FAIL or another exit
code where stock crashes, a PASS where stock prints FAIL) are listed without failing the run.
Wall times are each run's (with --repeat N, the median of N runs taking turns with stock's);
Spread/stock ratios are printed per program, and their geometric mean
over the programs whose stock run takes more than 0.5 s and whose Spread run ended the same way
(the same exit status, no timeout).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import time
from collections import Counter

from corpus_common import (
    DEFAULT_CORPUS, REPO, STOCK_LIB, Ctx, build, clang_version, clean_env, commit_line, compile_command, compress_logs,
    geomean, good, jsonable, judge, md_table, read_manifest, run_all, run_program, program_dir, say, sha256,
    snapshot_runtime, write_tsv,
)

SPREAD_RUNS = ("libpath", "preload")
TIMED_MIN_S = 0.5  # stock runs shorter than this are left out of the time ratios' mean
SLOWER = 1.10  # Spread/stock wall time ratios above this are listed

# Named subsets (--set), each program with why it is there. The verdicts named are those of
# the whole corpus on 2 cores (stock / Spread); the run, not this list, decides.
SETS = {
    # The test command's corpus stage: about 2 minutes with --jobs 2 on 2 cores (randomAccess
    # alone takes a job for a minute). The corpus has no C program: every manifest entry is C++.
    "ci": [
        ("heat2d", "target data around a stencil's time loop; PASS"),
        ("randomAccess", "the corpus's only target enter data / exit data, atomic updates; PASS (the longest, ~25 s a run)"),
        ("all-pairs-distance", "once hung on Spread: a nowait kernel, then a synchronous teams kernel with a nested parallel, "
         "barriers, atomics and num_teams(INSTANCES*INSTANCES); stock aborts in libomp or FAILs, Spread FAILs"),
        ("thomas", "once hung on Spread: a nowait kernel repeated inside target data; stock crashes, Spread finishes"),
        ("burger", "nowait kernels, then a synchronous one, in target data; stock aborts in libomp or FAILs, Spread PASSes"),
        ("triad", "nowait target update to/from and nowait kernels; stock crashes, Spread PASSes"),
        ("atomicPerf", "atomic updates of several types; PASS"),
        ("scatterAdd", "atomic adds at data-dependent addresses; PASS"),
        ("attentionMultiHead", "reductions; PASS"),
        ("mixbench", "a reduction and a large num_teams read back with omp_get_num_teams; PASS"),
        ("mask", "num_teams(M*N) teams of num_threads threads; PASS"),
        ("backprop", "four sources, a reduction, num_teams; PASS"),
        ("amgmk", "seven sources; no check of its own: output compared (lines two stock runs disagree on left out)"),
        ("lulesh", "four .cc sources, many target updates; output compared"),
        ("lavaMD", "sources in subfolders; output compared"),
        ("atan2", "no check of its own: output compared"),
        ("babelstream", "a dot-product reduction; output compared once its bandwidth lines are dropped"),
        ("kernelLaunch", "60000 target launches mapping a small, medium or large struct (it prints only times: "
         "it must exit cleanly)"),
        ("reverse", "FAILs on both"),
        ("colorwheel", "FAILs on both"),
        ("damage", "two target data regions and a reduction; FAILs on both"),
        ("aop", "reductions and atomics; crashes (SIGSEGV) on both"),
        ("clink", "exits 255 on both"),
    ],
}


# ---------------------------------------------------------------- one program


def run_env(ctx, which):
    """The environment of run `which` (stock, stock2, libpath, preload)."""
    env = clean_env()
    env["LD_LIBRARY_PATH"] = ctx.spread_lib if which == "libpath" else STOCK_LIB
    if which == "preload":
        env["LD_PRELOAD"] = ctx.spread_so
    if which in SPREAD_RUNS:
        env.update(ctx.spread_env)
    return env


def run_one(ctx, prog, sibs, pdir, which, exe):
    """Run the program's binary the `which` way (corpus_common.run_program)."""
    shown = ("LD_LIBRARY_PATH", "LD_PRELOAD") + tuple(ctx.spread_env)
    return run_program(ctx, prog, sibs, pdir, which, exe, run_env(ctx, which), shown)


def worse(status, stock):
    """Whether a Spread run that ended with `status` ended worse than stock's: a timeout where
    stock has none, a crash stock does not have (another signal, or none), a non-zero exit
    where stock exits cleanly. (A non-zero exit where stock crashes is not worse; programs
    that return their check's result exit with varying codes.)"""
    if status == "TIMEOUT" or status.startswith("CRASH:"):
        return status != stock
    return status.startswith("RC") and stock == "OK"


def problems(res):
    """(why this program counts against the exit status, how Spread's verdicts differ from
    stock's otherwise): two lists, both empty when Spread gives what stock gives."""
    if not res["build"]["ok"]:
        return ["the build failed"], []
    runs = res["runs"]
    stock = runs["stock"]
    bad, other = [], []
    for w in SPREAD_RUNS:
        v = runs[w]["verdict"]
        if stock["verdict"] == "PASS":
            ok = v == "PASS"
        elif stock["verdict"] == "NOCHECK":
            ok = good(v)
        else:
            ok = not worse(runs[w]["status"], stock["status"])
        why = "%s %s where stock gives %s%s" % (w, v, stock["verdict"], " (%s)" % runs[w]["detail"] if "detail" in runs[w] else "")
        if not ok:
            bad.append(why)
        elif v != stock["verdict"] and stock["verdict"] != "NOCHECK":
            other.append(why)
    return bad, other


def ratio(res, w):
    """Spread run w's wall time over stock's, when both ended the same way without a timeout."""
    runs = res["runs"]
    if w not in runs or "stock" not in runs:
        return None
    s, r = runs["stock"], runs[w]
    if s["status"] != r["status"] or s["status"] == "TIMEOUT" or s["wall"] <= 0:
        return None
    walls = res.get("walls")
    if walls:
        return statistics.median(walls[w]) / statistics.median(walls["stock"])
    return r["wall"] / s["wall"]


def time_again(ctx, prog, sibs, pdir, exe, res):
    """--repeat N: N-1 more runs of stock and of each Spread run, taking turns, for the time
    ratios only (verdicts are the first runs'); res["walls"] gets every run's wall time, of the
    runs that ended as the first one did. Programs whose stock run is short are left alone."""
    runs = res["runs"]
    if ctx.repeat < 2 or runs["stock"]["wall"] <= TIMED_MIN_S or runs["stock"]["status"] == "TIMEOUT":
        return
    walls = {w: [runs[w]["wall"]] for w in ("stock",) + SPREAD_RUNS}
    for k in range(1, ctx.repeat):
        for w in walls:
            tag = "%s-t%d" % (w, k)
            r = run_program(ctx, prog, sibs, pdir, tag, exe, run_env(ctx, w), ())
            if r["status"] == runs[w]["status"]:
                walls[w].append(r["wall"])
            for f in (r["out"], r["err"], os.path.join(pdir, tag + ".cmd")):
                os.unlink(f)
    res["walls"] = walls


def do_program(ctx, prog):
    """Build and run one program; its result (also saved as OUT/progs/<name>/result.json)."""
    name = prog["name"]
    pdir, sibs = program_dir(ctx, prog)
    exe = os.path.join(pdir, "prog.bin")
    ok, _, bt = build(ctx, prog, sibs, pdir, ctx.cxx, compile_command(prog, *ctx.compilers), exe, ctx.build_env)
    res = {
        "name": name,
        "args": prog["args"],
        "lang": "C" if all(s.endswith(".c") for s in prog["sources"]) else "C++",
        "manifest": [prog["manifest_stock"], prog["manifest_libpath"], prog["manifest_preload"]],
        "build": {"ok": ok, "s": round(bt, 1)},
        "runs": {},
        "notes": [],
    }
    runs = res["runs"]
    if ok:
        for w in ("stock",) + SPREAD_RUNS:
            runs[w] = run_one(ctx, prog, sibs, pdir, w, exe)
        res["has_check"], res["stable"] = judge(runs, "stock", "stock2", lambda: run_one(ctx, prog, sibs, pdir, "stock2", exe), res["notes"])
        time_again(ctx, prog, sibs, pdir, exe, res)
        compress_logs(runs)
    res["problems"], res["differs"] = problems(res)
    with open(os.path.join(pdir, "result.json"), "w") as f:
        json.dump(res, f, default=jsonable, indent=1)
    say(line_of(res))
    return res


LOOKS = 4


def look_again(ctx, prog, res, jobs):
    """A program that fails the run at its first look is built and run again, alone (every other
    program has finished), up to LOOKS looks in all. It counts against the run only when every
    look fails it and stock ended the same way in each: a Spread run that times out only while
    another program loads the cores (with --jobs 2 on 2 cores), or a program whose stock run
    crashes in some runs and not in others (HeCBench aop reads uninitialized stack memory) is
    not a difference between the runtimes. Every look is said, and kept in the notes."""
    looks = [res]
    while len(looks) < LOOKS:
        say("%-22s looking again, alone (look %d of at most %d)" % (prog["name"], len(looks) + 1, LOOKS))
        r = do_program(ctx, prog)
        looks.append(r)
        if not r["problems"] or verdict(r, "stock") != verdict(looks[0], "stock"):
            break
    last = looks[-1]
    seen = ["look %d%s: %s" % (i + 1, " (%d programs at once)" % jobs if i == 0 and jobs > 1 else "",
                                 "; ".join(r["problems"]) or "stock %s, libpath %s, preload %s" % (
                                     verdict(r, "stock"), verdict(r, "libpath"), verdict(r, "preload")))
            for i, r in enumerate(looks)]
    last["notes"] = last["notes"] + seen
    if last["problems"] and any(verdict(r, "stock") != verdict(last, "stock") for r in looks):
        last["notes"].append("stock ends differently from look to look: not counted")
        last["differs"] = last["differs"] + last["problems"]
        last["problems"] = []
    elif not last["problems"]:
        last["differs"] = last["differs"] + ["fails only at look %s: %s" % (
            ", ".join(str(i + 1) for i, r in enumerate(looks) if r["problems"]), "; ".join(looks[0]["problems"]))]
    return last


# ---------------------------------------------------------------- reporting


def verdict(res, w):
    """Run w's verdict, BUILD-FAIL, or - (not run)."""
    if not res["build"]["ok"]:
        return "BUILD-FAIL"
    r = res["runs"].get(w)
    return r["verdict"] if r else "-"


def wall(res, w):
    """Run w's wall time (the median of the --repeat runs), as shown."""
    r = res["runs"].get(w)
    if not r:
        return "-"
    walls = res.get("walls", {}).get(w)
    return "%.1f" % (statistics.median(walls) if walls else r["wall"])


def fmt_ratio(x):
    return "%.2f" % x if x is not None else "-"


def line_of(res):
    """The progress line of a finished program."""
    flag = "  <-- " + "; ".join(res["problems"]) if res["problems"] else ""
    return "%-22s stock=%-12s libpath=%-12s preload=%-12s build %ss, runs %s/%s/%ss%s" % (
        res["name"], verdict(res, "stock"), verdict(res, "libpath"), verdict(res, "preload"), res["build"]["s"],
        wall(res, "stock"), wall(res, "libpath"), wall(res, "preload"), flag)


TABLE = ["program", "stock", "libpath", "preload", "build s", "stock s", "libpath s", "preload s", "libpath/stock", "preload/stock", ""]


def table_row(res):
    return [res["name"], verdict(res, "stock"), verdict(res, "libpath"), verdict(res, "preload"), "%.1f" % res["build"]["s"],
            wall(res, "stock"), wall(res, "libpath"), wall(res, "preload"), fmt_ratio(ratio(res, "libpath")),
            fmt_ratio(ratio(res, "preload")), "FAILS" if res["problems"] else ""]


TSV_COLS = [
    "program", "lang", "stock", "libpath", "preload", "stock2", "build_s", "wall_stock", "wall_libpath", "wall_preload",
    "ratio_libpath", "ratio_preload", "manifest_stock", "manifest_libpath", "manifest_preload", "problems", "notes",
]


def tsv_row(res):
    notes = list(res["notes"])
    for w in SPREAD_RUNS:
        d = res["runs"].get(w, {}).get("detail")
        if d:
            notes.append("%s: %s" % (w, d))
    return [res["name"], res["lang"], verdict(res, "stock"), verdict(res, "libpath"), verdict(res, "preload"),
            verdict(res, "stock2") if "stock2" in res["runs"] else "", res["build"]["s"], wall(res, "stock"),
            wall(res, "libpath"), wall(res, "preload"), fmt_ratio(ratio(res, "libpath")), fmt_ratio(ratio(res, "preload")),
            *res["manifest"], "; ".join(res["problems"]), "; ".join(notes)]


def timing(results):
    """Per Spread run: (geometric mean of the wall time ratios, programs counted, [(ratio,
    name)] of those above SLOWER), over the programs whose stock run takes > TIMED_MIN_S."""
    out = {}
    for w in SPREAD_RUNS:
        rs = [(ratio(r, w), r["name"]) for r in results if ratio(r, w) is not None and r["runs"]["stock"]["wall"] > TIMED_MIN_S]
        out[w] = (geomean([x for x, _ in rs]), len(rs), sorted(((x, n) for x, n in rs if x > SLOWER), reverse=True))
    return out


def counts(results, w):
    """'PASS 60, FAIL 27, ...' of run w over all programs."""
    c = Counter(verdict(r, w).rstrip("*") for r in results)
    return ", ".join("%s %d" % kv for kv in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def report_lines(results, total):
    """The summary (Markdown) without the table: counts, time ratios, the failures."""
    agree = sum(1 for r in results if r["build"]["ok"] and all(verdict(r, w) == verdict(r, "stock") for w in SPREAD_RUNS))
    bad = [r for r in results if r["problems"]]
    lines = ["%d programs in %.0f s; Spread's verdicts equal stock's on both paths for %d; %d fail the run." % (
        len(results), total, agree, len(bad)), ""]
    for w in ("stock",) + SPREAD_RUNS:
        lines.append("- %s: %s" % (w, counts(results, w)))
    lines.append("")
    for w, (g, n, slow) in timing(results).items():
        lines.append("- Wall time %s/stock, geometric mean over %d programs running > %.1f s on stock: %s" % (
            w, n, TIMED_MIN_S, "%.3f" % g if g else "-"))
        if slow:
            lines.append("  - over %.2f: %s" % (SLOWER, ", ".join("%s %.2f" % (name, x) for x, name in slow)))
    lines.append("")
    differs = [r for r in results if r["differs"] and not r["problems"]]
    if differs:
        lines.append("Programs stock does not pass where Spread ends otherwise, not worse (not failing the run):")
        lines += ["- %s: %s" % (r["name"], "; ".join(r["differs"])) for r in differs]
        lines.append("")
    if bad:
        lines.append("Programs where Spread does not give what stock gives (they fail the run):")
        lines += ["- %s: %s" % (r["name"], "; ".join(r["problems"])) for r in bad]
    else:
        lines.append("No program where Spread does not give what stock gives.")
    return lines


def write_summary(ctx, results, total, settings):
    """summary.tsv, summary.md and results.json in ctx.out."""
    write_tsv(os.path.join(ctx.out, "summary.tsv"), TSV_COLS, [tsv_row(r) for r in results])
    with open(os.path.join(ctx.out, "summary.md"), "w") as f:
        f.write("# HeCBench corpus on stock libomptarget and on Spread\n\n")
        f.write("".join("- %s: %s\n" % tuple(s.split("\t", 1)) for s in settings) + "\n")
        f.write("\n".join(report_lines(results, total)) + "\n\n")
        f.write("\n".join(md_table(TABLE[:-1] + ["fails the run"], [table_row(r)[:-1] + ["yes" if r["problems"] else ""] for r in results])) + "\n")
    with open(os.path.join(ctx.out, "results.json"), "w") as f:
        json.dump(results, f, default=jsonable, indent=1)


def print_table(results):
    widths = [max(len(str(x)) for x in col) for col in zip(TABLE, *(table_row(r) for r in results))]
    for row in [TABLE] + [table_row(r) for r in results]:
        say("  ".join(str(c).ljust(wd) for c, wd in zip(row, widths)).rstrip())


# ---------------------------------------------------------------- main


def snapshot_toolchain(ctx, target, tools):
    """With --cxx spread: the driver, the pass plugin and spread.h next to the runtime snapshot
    in `tools`, laid out as an installation (bin/, lib/, include/), so that the driver uses the
    snapshot (docs/driver.md: where the pieces are found)."""
    bindir = os.path.join(tools, "bin")
    os.makedirs(bindir)
    for exe in ("spread-cc", "spread-cxx"):
        shutil.copy2(os.path.join(target, "release", exe), os.path.join(bindir, exe))
    os.symlink("spread-cxx", os.path.join(bindir, "spread-c++"))
    shutil.copy2(os.path.join(target, "release", "libspread_pass.so"), os.path.join(tools, "lib", "libspread_pass.so"))
    shutil.copytree(os.path.join(REPO, "runtime", "include"), os.path.join(tools, "include"))
    return bindir


def main():
    ap = argparse.ArgumentParser(description="the HeCBench corpus on stock libomptarget and on Spread")
    ap.add_argument("--jobs", type=int, default=1, help="programs at a time (default 1)")
    ap.add_argument("--filter", default="", help="only programs whose name matches (Python regex, searched)")
    ap.add_argument("--set", choices=sorted(SETS), help="only the programs of a named subset")
    ap.add_argument("--cxx", choices=("clang", "spread"), default="clang", help="build with clang-19/clang++-19 (default) or spread-cc/spread-c++")
    ap.add_argument("--out", default=os.path.join(REPO, "target", "corpus"))
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run (default 120)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of stock and of each Spread run per program for the time ratios, taking turns; medians compared (default 1)")
    ap.add_argument("--spread-env", action="append", default=[], metavar="NAME=VALUE",
                    help="a variable for Spread's runs only (repeatable), e.g. SPREAD_TEAMS=exact")
    ap.add_argument("--build-timeout", type=int, default=600)
    ap.add_argument("--keep", action="store_true", help="keep each run's scratch folder")
    ap.add_argument("--no-snapshot", action="store_true", help="use target/ directly")
    ap.add_argument("--target", default=os.path.join(REPO, "target"), help="the cargo target folder of the build to measure")
    ctx = Ctx()
    o = ap.parse_args(namespace=ctx)
    corpus = os.path.abspath(o.corpus)
    if not os.path.isfile(os.path.join(corpus, "manifest.tsv")):
        sys.exit("corpus: the HeCBench corpus is not in %s (no manifest.tsv): give --corpus, or set SPREAD_SHARED for "
                 "scripts/test.sh" % corpus)
    ctx.out = os.path.abspath(o.out)
    items, ctx.spread_env = o.spread_env, {}  # o is ctx: the list, then the variables it names
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            sys.exit("corpus: --spread-env wants NAME=VALUE, not %r" % item)
        ctx.spread_env[name] = value
    ctx.srcdir = os.path.join(corpus, "src")
    target = os.path.abspath(o.target)
    rt_so = os.path.join(target, "release", "libspread_rt.so")
    needed = [rt_so] + ([os.path.join(target, "release", x) for x in ("spread-cc", "spread-cxx", "libspread_pass.so")] if o.cxx == "spread" else [])
    for p in needed:
        if not os.path.exists(p):
            sys.exit("corpus: %s is missing: run scripts/build.sh first" % p)

    progs = read_manifest(corpus)
    if o.set:
        known = {p["name"]: p for p in progs}
        missing = [n for n, _ in SETS[o.set] if n not in known]
        if missing:
            sys.exit("corpus: set %s names programs the manifest does not have: %s" % (o.set, ", ".join(missing)))
        progs = [known[n] for n, _ in SETS[o.set]]
    if o.filter:
        progs = [p for p in progs if re.search(o.filter, p["name"])]
    if not progs:
        sys.exit("corpus: no program matches")

    os.makedirs(ctx.out, exist_ok=True)
    ctx.build_env = None
    ctx.compilers = ("clang-19", "clang++-19")
    if o.no_snapshot:
        ctx.spread_lib = os.path.join(target, "spread", "lib")
        ctx.spread_so = rt_so
        if o.cxx == "spread":
            ctx.compilers = tuple(os.path.join(target, "release", x) for x in ("spread-cc", "spread-c++"))
    else:
        # One build for the whole run, whatever happens to target/ meanwhile.
        tools = os.path.join(ctx.out, "tools")
        shutil.rmtree(tools, ignore_errors=True)
        ctx.spread_lib = os.path.join(tools, "lib")
        snapshot_runtime(rt_so, ctx.spread_lib)
        ctx.spread_so = os.path.join(ctx.spread_lib, "libspread_rt.so")
        if o.cxx == "spread":
            bindir = snapshot_toolchain(ctx, target, tools)
            ctx.compilers = tuple(os.path.join(bindir, x) for x in ("spread-cc", "spread-c++"))
    if o.cxx == "spread":
        # The driver's own lookup, not a caller's overrides.
        ctx.build_env = {k: v for k, v in os.environ.items() if k not in ("SPREAD_INCLUDE_DIR", "SPREAD_LIB_DIR", "SPREAD_PASS_PLUGIN")}

    settings = [
        "date\t%s" % time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit\t%s" % commit_line(),
        "libspread_rt.so\tsha256 %s, built %s" % (sha256(ctx.spread_so), time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(rt_so)))),
        "target\t%s" % target,
        "compiler\t%s (%s)" % (" / ".join(ctx.compilers), clang_version()),
        "corpus\t%s (%d programs selected%s%s)" % (corpus, len(progs), ", set " + o.set if o.set else "", ", filter " + o.filter if o.filter else ""),
        "jobs\t%d" % o.jobs,
        "timeout\t%d s per run" % o.timeout,
        "cpus\t%d" % os.cpu_count(),
        "runs\tstock: LD_LIBRARY_PATH=%s; libpath: LD_LIBRARY_PATH=%s; preload: LD_PRELOAD=%s, LD_LIBRARY_PATH as stock; "
        "stock2: stock again (programs without a check); Spread with its defaults (4 host devices)%s"
        % (STOCK_LIB, ctx.spread_lib, ctx.spread_so,
           "".join(" and %s=%s" % kv for kv in sorted(ctx.spread_env.items()))),
    ]
    with open(os.path.join(ctx.out, "settings.txt"), "w") as f:
        f.write("\n".join(settings) + "\n")
    say("\n".join(settings))
    say("")

    t0 = time.monotonic()
    failed = lambda p, e: {"name": p["name"], "args": p["args"], "lang": "?", "manifest": [p["manifest_stock"], p["manifest_libpath"], p["manifest_preload"]],
                           "build": {"ok": False, "s": 0.0}, "runs": {}, "notes": ["script error %r" % e], "problems": ["script error %r" % e], "differs": []}
    results = run_all(progs, lambda p: do_program(ctx, p), o.jobs, failed)
    by_name = {p["name"]: p for p in progs}
    results = sorted((look_again(ctx, by_name[r["name"]], r, o.jobs) if r["problems"] and r["runs"] else r for r in results),
                     key=lambda r: r["name"])
    total = time.monotonic() - t0
    write_summary(ctx, results, total, settings)

    say("")
    print_table(results)
    say("")
    for line in report_lines(results, total):
        say(line)
    say("results: %s/summary.md, summary.tsv, results.json, progs/<name>/ (build log, <run>.out/.err/.cmd)" % ctx.out)
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
