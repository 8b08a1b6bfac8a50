#!/usr/bin/env python3
"""Automatic spreading (SPREAD_AUTO) on the external HeCBench corpus.

Driven by scripts/auto-corpus.sh (see there for the options). For each manifest program whose
stock verdict is PASS or NOCHECK (the manifest's verdicts only choose the programs; every
verdict reported here comes from this run) it builds the program twice, plain and with the
spread pass plugin (capturing the -Rpass=spread-auto / -Rpass-missed=spread-auto remarks), and
runs:

  a  plain binary, stock libomptarget
  a2 plain binary, stock again (only programs without a PASS/FAIL check of their own: tells
     whether their output is deterministic enough to compare)
  b  plugin binary, stock libomptarget
  c  plugin binary, Spread, SPREAD_AUTO unset
  d  plugin binary, Spread, SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto

Verdict of a run: TIMEOUT, CRASH:<signal>, RC<n> (non-zero exit), else the program's own check
(FAIL when it prints FAIL/FAILED or "test/verification failed", PASS when it prints PASS/PASSED
or "test passed"), else for programs without a check its output compared with run a: SAME (equal
after timing lines are dropped), CLOSE (numbers within a relative 1e-6 or one unit of their
printed precision), DIFF; DIFF~ when a and a2 already differ (the output is not deterministic).
Manifest reading, scratch copies, building, running, verdicts and output comparison are
scripts/corpus_common.py's, shared with scripts/corpus.py (the corpus on stock and on Spread).
"""

import argparse
import json
import os
import re
import shutil
import sys
import time
from collections import Counter, defaultdict

from corpus_common import (
    DEFAULT_CORPUS, REPO, STOCK_LIB, Ctx, build, clang_version, clean_env, commit_line, compile_command, compress_logs,
    good, jsonable, judge, read_manifest, run_all, run_program, program_dir, say, sha256, snapshot_runtime, write_tsv,
)

REMARKS = ["-Rpass=spread-auto", "-Rpass-missed=spread-auto"]


# ---------------------------------------------------------------- remarks and SPREAD_INFO


REMARK = re.compile(r"remark: kernel (\S+) (.*?) \[-Rpass(-missed)?=spread-auto\]\s*$")


def split_tail(rest):
    """(body, 'function:line') of a remark's text that ends with '[<function>, line N]'
    (the function's signature may hold brackets of its own)."""
    m = re.search(r", line (\d+)\]$", rest)
    if not m:
        return rest, ""
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        ch = rest[i]
        if ch == "]":
            depth += 1
        elif ch == "[":
            depth -= 1
            if depth == 0:
                if i > 0 and rest[i - 1] == " ":
                    return rest[: i - 1], "%s:%s" % (rest[i + 1 : m.start()], m.group(1))
                break
    return rest, ""


def normalize(reason):
    # The variable a reason names and where (debug info, map names) vary per program: one
    # reason is counted once, whichever variable it is about.
    r = re.sub(r" \(line \d+\)", "", reason)
    r = re.sub(r"'[^']*' \((arg\d+)\)", r"\1", r)
    r = re.sub(r"(\bargument \d+) \('[^']*'(?: \(declared at [^)]*\))?\)", r"\1", r)
    r = re.sub(r"\barg\d+\b", "argN", r)
    r = re.sub(r"\bargument \d+\b", "argument N", r)
    r = re.sub(r"'[^']*'", "'...'", r)
    r = re.sub(r"\bdevice\(\d+\)", "device(N)", r)
    r = re.sub(r"\b\d+\b", "N", r)
    return r


def parse_remarks(path):
    kernels = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = REMARK.search(line)
                if not m:
                    continue
                name, rest, missed = m.groups()
                body, src = split_tail(rest)
                if not missed and body.startswith("can be spread over devices"):
                    kernels[name] = {"accepted": True, "summary": body.split(": ", 1)[-1], "src": src}
                else:
                    reason = body.split("runs on one device: ", 1)[-1]
                    kernels[name] = {"accepted": False, "reason": reason, "src": src}
    except OSError:
        pass
    return kernels


INFO_SPREAD = re.compile(r"^spread: auto: (?:(\S+):(\d+): )?kernel (\S+) spread over devices \[([^\]]*)\]: (\d+) iterations")
INFO_RESNODESC = re.compile(r"^spread: auto: (?:(\S+):(\d+): )?kernel (\S+) runs on device (\d+) \(no descriptor\) over resident data")
INFO_REFUSED = re.compile(r"^spread: auto: (?:(\S+):(\d+): )?kernel (\S+) runs on device (\d+): (.*)$")
INFO_NODESC = re.compile(r"^spread: auto: (?:(\S+):(\d+): )?kernel (\S+) has no descriptor")
INFO_BLOCK = re.compile(r"^spread: auto: block \[")
# At exit, one line per kernel: its launches per decision (the decision lines above are printed
# once per kernel and decision, so they no longer count launches).
INFO_SUMMARY = re.compile(r"^spread: auto: summary: (?:(\S+):(\d+): )?kernel (\S+): \d+ launch(?:es)?: (.*)$")
SUMMARY_PART = re.compile(
    r"(\d+) (spread over devices \[[^\]]*\]|on device \d+ \((.*?)\)|as written \(no descriptor\))"
    r"(?=; \d+ (?:spread over|on device|as written)|$)"
)
INFO_RESIDENT = re.compile(
    r"^spread: auto: resident (\d+) bytes at \S+ released: moved (\d+) to devices, (\d+) between devices, "
    r"(\d+) to the host \((\d+) devices held a copy; copying the whole array to each and back would move (\d+)\)"
)


def parse_info(path):
    info = {
        "spread": 0,
        "refused": 0,
        "resident_nodesc": 0,
        "blocks": 0,
        "kernels_spread": set(),
        "kernels_refused": set(),
        "kernels_nodesc": set(),
        "reasons": Counter(),
        "reasons_raw": {},
        "resident": {"objects": 0, "bytes": 0, "to_dev": 0, "between": 0, "to_host": 0, "whole": 0},
        "devices": Counter(),
        "other": [],
    }
    try:
        f = open(path, errors="replace")
    except OSError:
        return info
    launches = None
    with f:
        for line in f:
            if not line.startswith("spread:"):
                continue
            line = line.rstrip("\n")
            m = INFO_SUMMARY.match(line)
            if m:
                if launches is None:
                    launches = {"spread": 0, "refused": 0, "resident_nodesc": 0, "reasons": Counter()}
                for part in SUMMARY_PART.finditer(m.group(4)):
                    n, what, why = int(part.group(1)), part.group(2), part.group(3)
                    if what.startswith("spread"):
                        launches["spread"] += n
                    elif why == "no descriptor, over resident data":
                        launches["resident_nodesc"] += n
                    elif why is not None:
                        launches["refused"] += n
                        launches["reasons"][normalize(why)] += n
                        info["reasons_raw"].setdefault(normalize(why), why)
                continue
            m = INFO_SPREAD.match(line)
            if m:
                info["spread"] += 1
                info["kernels_spread"].add(m.group(3))
                info["devices"][m.group(4)] += 1
                continue
            if INFO_BLOCK.match(line):
                info["blocks"] += 1
                continue
            m = INFO_RESNODESC.match(line)
            if m:
                info["resident_nodesc"] += 1
                info["kernels_nodesc"].add(m.group(3))
                continue
            m = INFO_REFUSED.match(line)
            if m:
                info["refused"] += 1
                info["kernels_refused"].add(m.group(3))
                n = normalize(m.group(5))
                info["reasons"][n] += 1
                info["reasons_raw"].setdefault(n, m.group(5))
                continue
            m = INFO_NODESC.match(line)
            if m:
                info["kernels_nodesc"].add(m.group(3))
                continue
            m = INFO_RESIDENT.match(line)
            if m:
                r = info["resident"]
                r["objects"] += 1
                r["bytes"] += int(m.group(1))
                r["to_dev"] += int(m.group(2))
                r["between"] += int(m.group(3))
                r["to_host"] += int(m.group(4))
                r["whole"] += int(m.group(6))
                continue
            if len(info["other"]) < 20:
                info["other"].append(line[:300])
    if launches is not None:
        # A runtime that counts launches at exit: its counts, not the decision lines'.
        info.update(launches)
    return info


# ---------------------------------------------------------------- one program


def build_variant(ctx, prog, sibs, pdir, plugin):
    """The plain (plugin False) or the plugin build of a program: (built, binary, log, seconds)."""
    tag = "plug" if plugin else "plain"
    cmd = compile_command(prog)
    if plugin:
        cmd += ["-fpass-plugin=" + ctx.plugin] + REMARKS
    exe = os.path.join(pdir, tag + ".bin")
    ok, log, dt = build(ctx, prog, sibs, pdir, tag, cmd, exe)
    return ok, exe, log, dt


def run_env(ctx, which):
    """The environment of run a, a2, b, c or d."""
    env = clean_env()
    if which in ("a", "a2", "b"):
        env["LD_LIBRARY_PATH"] = STOCK_LIB
    else:
        env["LD_LIBRARY_PATH"] = ctx.spread_lib
    if which == "d":
        env.update({"SPREAD_AUTO": "1", "SPREAD_AUTO_MIN": "1", "SPREAD_INFO": "auto"})
    return env


def run_one(ctx, prog, sibs, pdir, which, exe):
    return run_program(ctx, prog, sibs, pdir, which, exe, run_env(ctx, which), ("LD_LIBRARY_PATH", "SPREAD_AUTO", "SPREAD_AUTO_MIN", "SPREAD_INFO"))


def do_program(ctx, prog):
    name = prog["name"]
    pdir, sibs = program_dir(ctx, prog)
    res = {"name": name, "args": prog["args"], "runs": {}, "notes": []}
    ok_plain, plain, _, bt0 = build_variant(ctx, prog, sibs, pdir, False)
    ok_plug, plug, plog, bt1 = build_variant(ctx, prog, sibs, pdir, True)
    res["build"] = {"plain": ok_plain, "plug": ok_plug, "plain_s": round(bt0, 1), "plug_s": round(bt1, 1)}
    kernels = parse_remarks(plog) if ok_plug else {}
    res["kernels"] = kernels
    runs = res["runs"]
    if ok_plain:
        runs["a"] = run_one(ctx, prog, sibs, pdir, "a", plain)
    for w in ("b", "c", "d"):
        if ok_plug:
            runs[w] = run_one(ctx, prog, sibs, pdir, w, plug)
    # The program's own check, or its output against run a (a2: run a again).
    res["has_check"], res["stable"] = judge(runs, "a", "a2", lambda: run_one(ctx, prog, sibs, pdir, "a2", plain), res["notes"])
    if "d" in runs:
        info = parse_info(runs["d"]["err"])
        res["info"] = info
    compress_logs(runs)
    res["regression"] = regression(res)
    res["tools"] = ctx.tools_id
    with open(os.path.join(pdir, "result.json"), "w") as f:
        json.dump(res, f, default=jsonable, indent=1)
    say(line_of(res))
    return res


def load_result(ctx, name):
    """The result an earlier run with the same build and settings left for `name` (--resume)."""
    try:
        with open(os.path.join(ctx.out, "progs", name, "result.json")) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return None
    if res.get("tools") != ctx.tools_id:
        return None
    i = res.get("info")
    if i:
        i["reasons"] = Counter(i["reasons"])
        i["devices"] = Counter(i["devices"])
    return res


def regression(res):
    """Why this program counts against the exit status (None: it does not)."""
    runs = res["runs"]
    a = runs.get("a")
    if not a or not good(a["verdict"]):
        return None
    if not res["build"]["plug"]:
        return "the plugin build failed"
    bad = ["%s:%s" % (w, runs[w]["verdict"]) for w in ("b", "c", "d") if w in runs and not good(runs[w]["verdict"])]
    return ", ".join(bad) or None


# ---------------------------------------------------------------- reporting


def top(counter, n):
    return "; ".join("%s (%d)" % (k, v) for k, v in counter.most_common(n))


def compile_counts(res):
    ks = res.get("kernels", {})
    acc = sum(1 for k in ks.values() if k["accepted"])
    reasons = Counter(normalize(k["reason"]) for k in ks.values() if not k["accepted"])
    return acc, len(ks) - acc, reasons


def cell(res, w):
    r = res["runs"].get(w)
    if r is None:
        if w == "a" and not res["build"]["plain"]:
            return "BUILD-FAIL"
        if w != "a" and not res["build"]["plug"]:
            return "BUILD-FAIL"
        return "-"
    return r["verdict"]


def line_of(res):
    acc, ref, _ = compile_counts(res)
    i = res.get("info")
    rt = "%d/%d/%d" % (i["spread"], i["refused"], i["resident_nodesc"]) if i else "-"
    walls = "/".join("%.1f" % res["runs"][w]["wall"] if w in res["runs"] else "-" for w in ("a", "b", "c", "d"))
    flag = "  <-- " + res["regression"] if res["regression"] else ""
    return "%-22s a=%-9s b=%-9s c=%-9s d=%-9s kernels %d/%d  launches %s  %ss%s" % (
        res["name"], cell(res, "a"), cell(res, "b"), cell(res, "c"), cell(res, "d"), acc, ref, rt, walls, flag)


TSV_COLS = [
    "program", "a_stock", "b_plugin_stock", "c_spread_auto_off", "d_spread_auto",
    "kernels_accepted", "kernels_refused", "compile_refusals",
    "launches_spread", "launches_refused", "launches_nodesc_resident", "kernels_nodesc",
    "kernels_spread_at_runtime", "runtime_refusals", "blocks",
    "resident_objects", "resident_moved_to_devices", "resident_moved_between", "resident_moved_to_host", "resident_whole_copy_bytes",
    "wall_a", "wall_b", "wall_c", "wall_d", "notes",
]


def tsv_row(res):
    acc, ref, reasons = compile_counts(res)
    i = res.get("info")
    rw = lambda w: ("%.2f" % res["runs"][w]["wall"]) if w in res["runs"] else ""
    row = [res["name"], cell(res, "a"), cell(res, "b"), cell(res, "c"), cell(res, "d"),
           str(acc), str(ref), top(reasons, 3)]
    if i:
        r = i["resident"]
        row += [str(i["spread"]), str(i["refused"]), str(i["resident_nodesc"]), str(len(i["kernels_nodesc"])),
                str(len(i["kernels_spread"])), top(i["reasons"], 3), str(i["blocks"]),
                str(r["objects"]), str(r["to_dev"]), str(r["between"]), str(r["to_host"]), str(r["whole"])]
    else:
        row += [""] * 12
    notes = list(res["notes"])
    for w in ("b", "c", "d"):
        d = res["runs"].get(w, {}).get("detail")
        if d and res["runs"][w]["verdict"].startswith("DIFF"):
            notes.append("%s: %s" % (w, d))
    if i and i["other"]:
        notes.append("d printed: " + " | ".join(i["other"][:3]))
    if res["regression"]:
        notes.append("REGRESSION: " + res["regression"])
    row += [rw("a"), rw("b"), rw("c"), rw("d"), " ; ".join(notes)]
    return row


SHORT = [
    (r"^a call to", "unknown call"),
    (r"^an atomic", "atomic"),
    (r"^a team-number query", "team-number query"),
    (r"^a thread-number query", "thread-number query"),
    (r"^a non-affine write", "non-affine write"),
    (r"^a non-affine read", "non-affine read of a written arg"),
    (r"^a write to argN in a loop nested", "write in an inner loop"),
    (r"^a write to argN at an address that does not depend", "write at a fixed address"),
    (r"^no combined teams distribute parallel for", "not one combined loop"),
    (r"^a reduction the pass cannot follow", "reduction not followed"),
    (r"^an access through a pointer the pass cannot trace", "untraced pointer"),
    (r"the loop touches bytes", "accesses outside the map"),
    (r"^map entries N and N overlap", "overlapping maps"),
    (r"writes back may overlap", "written bytes may overlap"),
    (r"fewer than two blocks", "under 2 iterations"),
    (r"zero-length map", "zero-length map"),
]


def short(reason):
    for pat, label in SHORT:
        if re.search(pat, reason):
            return label
    return reason[:40]


def md_row(res):
    acc, ref, reasons = compile_counts(res)
    i = res.get("info")
    comp = Counter()
    for k, v in reasons.items():
        comp[short(k)] += v
    why = ["%s (%d)" % kv for kv in comp.most_common(2)]
    if i:
        rt = Counter()
        for k, v in i["reasons"].items():
            rt[short(k)] += v
        why += ["run time: %s (%d)" % kv for kv in rt.most_common(2)]
        launches = "%d / %d / %d" % (i["spread"], i["refused"], i["resident_nodesc"])
    else:
        launches = "-"
    return "| %s | %s | %s | %s | %s | %d / %d | %s | %s |" % (
        res["name"], cell(res, "a"), cell(res, "b"), cell(res, "c"), cell(res, "d"), acc, ref, launches, "; ".join(why) or "-")


def main():
    ap = argparse.ArgumentParser(description="automatic spreading on the HeCBench corpus")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--filter", default="")
    ap.add_argument("--out", default=os.path.join(REPO, "target", "auto-corpus"))
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--build-timeout", type=int, default=600)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--resume", action="store_true", help="keep the results an interrupted run with the same build left in --out")
    ap.add_argument("--no-snapshot", action="store_true")
    ap.add_argument("--target", default=os.path.join(REPO, "target"), help="the cargo target folder holding release/libspread_rt.so and release/libspread_pass.so")
    ctx = Ctx()
    o = ap.parse_args(namespace=ctx)
    ctx.out = os.path.abspath(o.out)
    ctx.srcdir = os.path.join(os.path.abspath(o.corpus), "src")
    os.makedirs(ctx.out, exist_ok=True)

    rt_so = os.path.join(os.path.abspath(o.target), "release", "libspread_rt.so")
    plugin = os.path.join(os.path.abspath(o.target), "release", "libspread_pass.so")
    for p in (rt_so, plugin):
        if not os.path.exists(p):
            sys.exit("auto-corpus: %s is missing: run scripts/build.sh first" % p)
    if o.no_snapshot:
        ctx.spread_lib = os.path.join(os.path.abspath(o.target), "spread", "lib")
        ctx.plugin = plugin
    else:
        # One build for the whole run, whatever happens to target/ meanwhile.
        tools = os.path.join(ctx.out, "tools")
        lib = os.path.join(tools, "lib")
        shutil.rmtree(tools, ignore_errors=True)
        snapshot_runtime(rt_so, lib)
        shutil.copy2(plugin, os.path.join(tools, "libspread_pass.so"))
        ctx.spread_lib = lib
        ctx.plugin = os.path.join(tools, "libspread_pass.so")

    progs = [p for p in read_manifest(o.corpus) if p["manifest_stock"] in ("PASS", "NOCHECK")]
    if o.filter:
        progs = [p for p in progs if re.search(o.filter, p["name"])]
    if not progs:
        sys.exit("auto-corpus: no program matches")

    settings = [
        "date\t%s" % time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit\t%s" % commit_line(),
        "libspread_rt.so\tsha256 %s" % sha256(os.path.join(ctx.spread_lib, "libomptarget.so.19.1")),
        "libspread_pass.so\tsha256 %s" % sha256(ctx.plugin),
        "target\t%s" % os.path.abspath(o.target),
        "built\tlibspread_rt.so %s, libspread_pass.so %s" % tuple(time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(p))) for p in (rt_so, plugin)),
        "clang\t%s" % clang_version(),
        "corpus\t%s (%d programs selected)" % (o.corpus, len(progs)),
        "jobs\t%d" % o.jobs,
        "timeout\t%d s per run" % o.timeout,
        "cpus\t%d" % os.cpu_count(),
        "runs\ta: plain binary, LD_LIBRARY_PATH=%s; b: plugin binary, same; c: plugin binary, LD_LIBRARY_PATH=%s; "
        "d: plugin binary, same, SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto (default SPREAD_HOST_DEVICES: 4 host devices)" % (STOCK_LIB, ctx.spread_lib),
    ]
    ctx.tools_id = "%s %s timeout=%d" % (sha256(os.path.join(ctx.spread_lib, "libomptarget.so.19.1")), sha256(ctx.plugin), o.timeout)
    with open(os.path.join(ctx.out, "settings.txt"), "w") as f:
        f.write("\n".join(settings) + "\n")
    say("\n".join(settings))
    say("")

    t0 = time.monotonic()
    results = []
    todo = []
    for p in progs:
        old = load_result(ctx, p["name"]) if o.resume else None
        if old:
            results.append(old)
            say(line_of(old) + "  (earlier run)")
        else:
            todo.append(p)
    failed = lambda p, e: {"name": p["name"], "runs": {}, "notes": ["script error %r" % e], "build": {"plain": False, "plug": False},
                           "kernels": {}, "regression": "script error"}
    results += run_all(todo, lambda p: do_program(ctx, p), o.jobs, failed)
    results.sort(key=lambda r: r["name"])
    total = time.monotonic() - t0

    write_tsv(os.path.join(ctx.out, "summary.tsv"), TSV_COLS, [tsv_row(r) for r in results])
    with open(os.path.join(ctx.out, "summary.md"), "w") as f:
        f.write("| program | stock | plugin on stock | Spread, auto off | Spread, SPREAD_AUTO=1 | kernels spread / refused (compile time) | "
                "launches spread / refused / run without descriptor over resident data | main refusal reasons |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        for r in results:
            f.write(md_row(r) + "\n")
    with open(os.path.join(ctx.out, "results.json"), "w") as f:
        json.dump(results, f, default=jsonable, indent=1)
    with open(os.path.join(ctx.out, "kernels.tsv"), "w") as f:
        f.write("program\tkernel\tsource\taccepted\tsummary_or_reason\n")
        for r in results:
            for k, v in sorted(r.get("kernels", {}).items()):
                f.write("%s\t%s\t%s\t%s\t%s\n" % (r["name"], k, v["src"], "yes" if v["accepted"] else "no",
                                                  v.get("summary") if v["accepted"] else v["reason"]))

    # Summary.
    say("")
    say("%-22s %-10s %-10s %-10s %-10s %-9s %-14s %s" % ("program", "a:stock", "b:plug", "c:spread", "d:auto", "kern a/r", "launch s/r/nr", "wall a/b/c/d s"))
    for r in results:
        acc, ref, _ = compile_counts(r)
        i = r.get("info")
        say("%-22s %-10s %-10s %-10s %-10s %-9s %-14s %s" % (
            r["name"], cell(r, "a"), cell(r, "b"), cell(r, "c"), cell(r, "d"), "%d/%d" % (acc, ref),
            "%d/%d/%d" % (i["spread"], i["refused"], i["resident_nodesc"]) if i else "-",
            "/".join("%.1f" % r["runs"][w]["wall"] if w in r["runs"] else "-" for w in ("a", "b", "c", "d"))))
    comp = Counter()
    run_reasons = Counter()
    run_progs = defaultdict(set)
    comp_progs = defaultdict(set)
    tot = Counter()
    for r in results:
        acc, ref, reasons = compile_counts(r)
        tot["kernels"] += acc + ref
        tot["accepted"] += acc
        comp.update(reasons)
        for k in reasons:
            comp_progs[k].add(r["name"])
        i = r.get("info")
        if i:
            tot["spread"] += i["spread"]
            tot["refused"] += i["refused"]
            tot["resident_nodesc"] += i["resident_nodesc"]
            tot["kernels_spread"] += len(i["kernels_spread"])
            tot["progs_spread"] += 1 if i["spread"] else 0
            run_reasons.update(i["reasons"])
            for k in i["reasons"]:
                run_progs[k].add(r["name"])
        for w in ("a", "b", "c", "d"):
            tot["%s:%s" % (w, cell(r, w))] += 1
    say("")
    say("%d programs in %.0f s. kernels: %d, accepted by the pass %d, refused %d; launches under SPREAD_AUTO: %d spread, "
        "%d refused, %d without descriptor over resident data; %d kernels spread at run time, in %d programs" % (
            len(results), total, tot["kernels"], tot["accepted"], tot["kernels"] - tot["accepted"], tot["spread"],
            tot["refused"], tot["resident_nodesc"], tot["kernels_spread"], tot["progs_spread"]))
    for w in ("a", "b", "c", "d"):
        say("  run %s: %s" % (w, ", ".join("%s %d" % (k.split(":", 1)[1], v) for k, v in sorted(tot.items()) if k.startswith(w + ":"))))
    say("compile-time refusals (kernels, programs):")
    for k, v in comp.most_common(12):
        say("  %4d %3d  %s" % (v, len(comp_progs[k]), k))
    say("run-time refusals (launches, programs):")
    for k, v in run_reasons.most_common(12):
        say("  %6d %3d  %s" % (v, len(run_progs[k]), k))
    bad = [r for r in results if r.get("regression")]
    say("")
    if bad:
        say("%d programs good on a but not on b/c/d:" % len(bad))
        for r in bad:
            say("  %s: %s" % (r["name"], r["regression"]))
    say("results: %s/summary.tsv, summary.md, kernels.tsv, results.json, progs/<name>/ (logs, commands)" % ctx.out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
