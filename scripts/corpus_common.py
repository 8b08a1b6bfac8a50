"""What the HeCBench corpus harnesses share (scripts/corpus.py, scripts/auto-corpus.py).

The corpus is ../shared/conformance/hecbench (its README.md and manifest.tsv describe it). This
module reads the manifest, stages scratch copies of a program's folder (the corpus is read-only
and programs may write next to their sources), builds a program with the manifest's command,
runs a binary under `timeout` with a given environment, tells a run's verdict from its exit
status and output, compares the outputs of programs without a check of their own, and writes
the summary tables.

Verdict of a run: TIMEOUT, CRASH:<signal>, RC<n> (non-zero exit), else the program's own check
(FAIL when it prints FAIL/FAILED or "test/verification failed", PASS when it prints PASS/PASSED
or "test passed"), else, for programs without a check, its output compared with the base run's:
SAME (equal once lines about time, bandwidth, rates are dropped), CLOSE (numbers within a
relative 1e-6 or one unit of their printed precision), DIFF; DIFF~ when two base runs already
differ in their length or exit status (the output cannot be compared), a trailing * when lines
the two base runs disagree on were left out of the comparison.
"""

import concurrent.futures
import gzip
import hashlib
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STOCK_LIB = "/usr/lib/llvm-19/lib"
OFFLOAD = ["-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu"]
DEFAULT_CORPUS = os.environ.get("HECBENCH", os.path.join(os.path.dirname(REPO), "shared", "conformance", "hecbench"))
RTOL = 1e-6

_print_lock = threading.Lock()


def say(*a):
    """print(), one whole line at a time from concurrent jobs."""
    with _print_lock:
        print(*a, flush=True)


class Ctx:
    """The settings of a harness run (argparse fills it, the harness adds what it derives)."""


# ---------------------------------------------------------------- manifest and files


def read_manifest(corpus):
    """The programs of corpus/manifest.tsv, each a dict: name, sources, flags, args (lists),
    manifest_stock, manifest_libpath, manifest_preload (the verdicts measured when the corpus
    was made: information only) and note."""
    progs = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (8 - len(cols))
            progs.append(
                {
                    "name": cols[0],
                    "sources": cols[1].split(),
                    "flags": shlex.split(cols[2]),
                    "args": shlex.split(cols[3]),
                    "manifest_stock": cols[4],
                    "manifest_libpath": cols[5],
                    "manifest_preload": cols[6],
                    "note": cols[7],
                }
            )
    return progs


def siblings(srcdir, prog):
    """The folders of src/ that the program's folder refers to as ../X (flags, sources, text)."""
    folder = prog["name"] + "-omp"
    names = set()
    pat = re.compile(r"\.\./([A-Za-z0-9_.+-]+)")
    for s in prog["flags"] + prog["sources"]:
        names.update(pat.findall(s))
    for root, _, files in os.walk(os.path.join(srcdir, folder)):
        for fn in files:
            try:
                with open(os.path.join(root, fn), errors="replace") as f:
                    names.update(pat.findall(f.read(1 << 20)))
            except OSError:
                pass
    return sorted(n for n in names if n != folder and not n.startswith(".") and os.path.isdir(os.path.join(srcdir, n)))


def program_dir(ctx, prog):
    """A fresh OUT/progs/<name>/ for one program, and the sibling folders it refers to."""
    pdir = os.path.join(ctx.out, "progs", prog["name"])
    shutil.rmtree(pdir, ignore_errors=True)
    os.makedirs(pdir)
    return pdir, siblings(ctx.srcdir, prog)


def stage(srcdir, prog, sibs, dest):
    """dest/<name>-omp: a copy of the program's folder, its siblings linked next to it."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    folder = prog["name"] + "-omp"
    shutil.copytree(os.path.join(srcdir, folder), os.path.join(dest, folder), symlinks=True)
    # The corpus is read-only; programs may write next to their sources.
    for root, dirs, files in os.walk(os.path.join(dest, folder)):
        for n in dirs + files:
            p = os.path.join(root, n)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o200)
    os.chmod(os.path.join(dest, folder), 0o755)
    for s in sibs:
        os.symlink(os.path.join(srcdir, s), os.path.join(dest, s))
    return os.path.join(dest, folder)


def snapshot_runtime(rt_so, lib):
    """Copy Spread's runtime into `lib` as a drop-in folder (libspread_rt.so, and
    libomptarget.so.19.1 and libomptarget.so linked to it), so that one build serves a whole
    run whatever happens to target/ meanwhile."""
    shutil.rmtree(lib, ignore_errors=True)
    os.makedirs(lib)
    shutil.copy2(rt_so, os.path.join(lib, "libspread_rt.so"))
    os.symlink("libspread_rt.so", os.path.join(lib, "libomptarget.so.19.1"))
    os.symlink("libomptarget.so.19.1", os.path.join(lib, "libomptarget.so"))


# ---------------------------------------------------------------- building and running


def compile_command(prog, cc="clang-19", cxx="clang++-19"):
    """The manifest's compile command for `prog`, without -o: C sources with `cc` and no -std,
    others with `cxx -std=c++17`."""
    c = all(s.endswith(".c") for s in prog["sources"])
    cmd = [cc] if c else [cxx, "-std=c++17"]
    return cmd + ["-O2"] + OFFLOAD + prog["flags"] + prog["sources"]


def build(ctx, prog, sibs, pdir, tag, cmd, exe, env=None):
    """Run compile command `cmd` (the output `exe` appended) in a scratch copy of the program's
    folder, pdir/build-<tag>/, logging to pdir/build-<tag>.log; ctx.srcdir and
    ctx.build_timeout are used. Returns (whether exe was built, the log's path, seconds)."""
    folder = stage(ctx.srcdir, prog, sibs, os.path.join(pdir, "build-" + tag))
    cmd = cmd + ["-o", exe]
    log = os.path.join(pdir, "build-%s.log" % tag)
    t0 = time.monotonic()
    with open(log, "w") as lf:
        lf.write("# cd %s && %s\n" % (folder, " ".join(shlex.quote(x) for x in cmd)))
        lf.flush()
        try:
            rc = subprocess.run(cmd, cwd=folder, env=env, stdout=lf, stderr=subprocess.STDOUT, timeout=ctx.build_timeout).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    dt = time.monotonic() - t0
    shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    return (rc == 0 and os.path.exists(exe)), log, dt


def clean_env():
    """This process's environment without the settings that choose or tune an offload runtime
    (SPREAD_*, LIBOMPTARGET_*, OMP_TARGET_OFFLOAD, LD_PRELOAD): each run sets its own."""
    return {k: v for k, v in os.environ.items() if not re.match(r"^(SPREAD_|LIBOMPTARGET_|OMP_TARGET_OFFLOAD$|LD_PRELOAD$)", k)}


def run_program(ctx, prog, sibs, pdir, which, exe, env, shown):
    """Run `exe` with the program's arguments under `timeout ctx.timeout` in a scratch copy of
    its folder (pdir/run-<which>/, kept with ctx.keep), stdout and stderr to
    pdir/<which>.out/.err, and the command, with the variables `shown` of env, to
    pdir/<which>.cmd. Returns the run: rc, status (status_of), wall seconds, out, err."""
    folder = stage(ctx.srcdir, prog, sibs, os.path.join(pdir, "run-" + which))
    out = os.path.join(pdir, which + ".out")
    err = os.path.join(pdir, which + ".err")
    cmd = ["timeout", "-k", "10", str(ctx.timeout), exe] + prog["args"]
    t0 = time.monotonic()
    with open(out, "wb") as fo, open(err, "wb") as fe:
        rc = subprocess.run(cmd, cwd=folder, env=env, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL).returncode
    dt = time.monotonic() - t0
    if not ctx.keep:
        shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    with open(os.path.join(pdir, which + ".cmd"), "w") as f:
        sets = " ".join("%s=%s" % (k, shlex.quote(env[k])) for k in shown if k in env)
        f.write("cd %s && %s %s\n" % (os.path.join(ctx.srcdir, prog["name"] + "-omp"), sets, " ".join(shlex.quote(x) for x in cmd)))
    # A program that outlives the -k grace period too is killed with its whole process
    # group, timeout included.
    status = "TIMEOUT" if rc == -signal.SIGKILL and dt >= ctx.timeout else status_of(rc)
    return {"rc": rc, "status": status, "wall": round(dt, 2), "out": out, "err": err}


def compress_logs(runs, limit=1 << 20):
    """gzip the runs' outputs larger than `limit` bytes (their paths in `runs` follow)."""
    for r in runs.values():
        for k in ("out", "err"):
            p = r[k]
            if os.path.exists(p) and os.path.getsize(p) > limit:
                with open(p, "rb") as fi, gzip.open(p + ".gz", "wb") as fo:
                    shutil.copyfileobj(fi, fo)
                os.unlink(p)
                r[k] = p + ".gz"


def run_all(progs, do_program, jobs, on_error):
    """do_program(prog) for each program, `jobs` at a time; a Python exception in one (a bug of
    the harness, not of the program) is said and turned into on_error(prog, exception), the
    others go on. Returns the results in the order they finished."""
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = {ex.submit(do_program, p): p for p in progs}
        for fu in concurrent.futures.as_completed(futs):
            try:
                results.append(fu.result())
            except Exception as e:  # a bug here, not in the program: say so, go on
                p = futs[fu]
                say("%-22s script error: %r" % (p["name"], e))
                results.append(on_error(p, e))
    return results


# ---------------------------------------------------------------- verdicts and output comparison

SIGNAMES = {s.value: s.name for s in signal.Signals}
TIMING = re.compile(
    r"time|\bms\b|msec|millisec|\bsec|second|\bus\b|usec|micros|\bns\b|nanosec|[0-9.]s\b|"
    r"[GMKT]i?B/s|[GMT]FLOP|flops|throughput|bandwidth|elapsed|duration|speed|"
    r"per sec|/s\b|cycles|clock|\bperf|\brate\b",
    re.I,
)
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)(?:inity)?", re.I)
FAIL_RE = re.compile(r"\bFAIL(?:ED|URE)?\b|(?i:\b(?:test|verification|check|checksum)\s+failed)")
PASS_RE = re.compile(r"\bPASS(?:ED)?\b|(?i:\btest passed\b)")
# Verdict words in other cases ("1 51165125 pass pass", "Success", "Fail"), but not "forward
# pass" and the like.
WORD_RE = re.compile(r"(?i)(?<![\w-])(pass|passed|success|fail|failed|failure)(?![\w-])")
NOT_VERDICT = re.compile(r"(?i)(forward\d?|backward\d?|number of|nkpass|each) pass")


def program_text(out_path, err_path):
    """The program's stdout and stderr, without Spread's own lines."""
    text = []
    for p in (out_path, err_path):
        try:
            with open(p, errors="replace") as f:
                for line in f:
                    if not line.startswith("spread:"):
                        text.append(line.rstrip("\n"))
        except OSError:
            pass
    return text


def check_of(lines):
    """The program's own check in its output: FAIL, PASS or NOCHECK (none printed)."""
    text = "\n".join(lines)
    words = set()
    for l in lines:
        if not NOT_VERDICT.search(l):
            words.update(w.lower() for w in WORD_RE.findall(l))
    if FAIL_RE.search(text) or words & {"fail", "failed", "failure"}:
        return "FAIL"
    if PASS_RE.search(text) or words & {"pass", "passed", "success"}:
        return "PASS"
    return "NOCHECK"


def status_of(rc):
    """OK, TIMEOUT, CRASH:<signal> or RC<n> of the exit status of `timeout ... PROGRAM`: 124 is
    timeout's own for a program that ran out of time; a program killed by a signal makes
    timeout raise the same signal on itself (a negative status here); any other status is the
    program's own exit code, even above 128."""
    if rc == 0:
        return "OK"
    if rc == 124:
        return "TIMEOUT"
    if rc < 0 and -rc in SIGNAMES:
        return "CRASH:" + SIGNAMES[-rc]
    return "RC%d" % rc


def comparable(lines):
    """The lines of an output that are compared: not empty, not about time or rates."""
    return [l.strip() for l in lines if l.strip() and not TIMING.search(l)]


def printed_ulp(tok):
    """One unit of the last printed digit of a number token (0 for an integer)."""
    m = re.match(r"[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$", tok)
    if not m:
        return 0.0
    dec = len(m.group(2) or "")
    exp = int(m.group(3) or 0)
    if m.group(2) is None and m.group(3) is None:
        return 0.0  # an integer: exact (but for the relative tolerance)
    return 10.0 ** (exp - dec)


def line_diff(x, y):
    """None when line y equals x within the tolerance, else why not; and the largest relative
    difference of their numbers."""
    if x == y:
        return None, 0.0
    if NUM.split(x) != NUM.split(y):
        return "%r vs %r" % (x[:120], y[:120]), 0.0
    worst = 0.0
    for tx, ty in zip(NUM.findall(x), NUM.findall(y)):
        if tx == ty:
            continue
        try:
            fx, fy = float(tx), float(ty)
        except ValueError:
            return "%r vs %r" % (x[:120], y[:120]), 0.0
        if fx != fx and fy != fy:
            continue
        big = max(abs(fx), abs(fy))
        ulp = max(printed_ulp(tx), printed_ulp(ty))
        if not abs(fx - fy) <= max(RTOL * big, ulp * 1.0000001):
            return "%r vs %r" % (x[:120], y[:120]), 0.0
        if big > 0:
            worst = max(worst, abs(fx - fy) / big)
    return None, worst


def compare(base, other, skip=()):
    """('SAME'|'CLOSE'|'DIFF', detail) of two comparable() line lists, lines `skip` of base
    (those two stock runs disagree on) left out."""
    if len(base) != len(other):
        return "DIFF", "%d lines vs %d" % (len(base), len(other))
    worst = 0.0
    exact = True
    for i, (x, y) in enumerate(zip(base, other)):
        if i in skip or x == y:
            continue
        exact = False
        why, w = line_diff(x, y)
        if why:
            return "DIFF", "line %d: %s" % (i + 1, why)
        worst = max(worst, w)
    if exact:
        return "SAME", ""
    return "CLOSE", "max relative difference %.3g" % worst


def judge(runs, base, again, rerun, notes):
    """Give each run of `runs` (name -> run_program()'s dict) its "verdict" (and a "detail" for
    output comparisons). `base` names the reference run (stock). When no run printed a check
    and the base run exited cleanly, rerun() runs the base binary again, stored as
    runs[again], to learn which lines of the output are deterministic. Notes on the way go to
    `notes`. Returns (whether the program prints a check, whether its output can be compared)."""
    texts = {w: program_text(r["out"], r["err"]) for w, r in runs.items()}
    checks = {w: check_of(t) for w, t in texts.items()}
    has_check = any(c != "NOCHECK" for c in checks.values())
    ref = None
    stable = True
    skip = set()
    if base in runs and runs[base]["status"] == "OK" and not has_check:
        runs[again] = rerun()
        ref = comparable(texts[base])
        second = comparable(program_text(runs[again]["out"], runs[again]["err"]))
        if runs[again]["status"] != "OK" or len(second) != len(ref):
            stable = False
            notes.append("the output on stock changes from run to run")
        else:
            skip = {i for i, (x, y) in enumerate(zip(ref, second)) if line_diff(x, y)[0]}
            if skip:
                notes.append("%d of %d compared lines differ between two stock runs: left out (verdicts marked *)" % (len(skip), len(ref)))
    for w, r in runs.items():
        if w == again:
            r["verdict"] = r["status"] if r["status"] != "OK" else "NOCHECK"
            continue
        if r["status"] != "OK":
            r["verdict"] = r["status"]
        elif has_check:
            r["verdict"] = checks[w]
            if checks[w] == "NOCHECK":
                notes.append("run %s printed no PASS/FAIL" % w)
        elif w == base or ref is None:
            r["verdict"] = "NOCHECK"
        else:
            v, detail = compare(ref, comparable(texts[w]), skip)
            if v == "DIFF" and not stable:
                v = "DIFF~"
            elif skip:
                v += "*"
            r["verdict"] = v
            if detail:
                r["detail"] = detail
    return has_check, stable


def good(v):
    """Whether a verdict is a good one: a pass, a clean run without a check, an output equal or
    close to the base run's, or one that cannot be compared (DIFF~)."""
    return v.rstrip("*") in ("PASS", "NOCHECK", "SAME", "CLOSE", "DIFF~")


# ---------------------------------------------------------------- reporting


def geomean(xs):
    """The geometric mean of positive numbers (None for none)."""
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def write_tsv(path, header, rows):
    """A tab-separated table; tabs and newlines inside cells become spaces."""
    with open(path, "w") as f:
        for row in [header] + rows:
            f.write("\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in row) + "\n")


def md_table(header, rows):
    """A Markdown table's lines; | inside cells is escaped."""
    cell = lambda c: str(c).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def jsonable(o):
    """json.dump's default= for the sets of a result (as sorted lists)."""
    if isinstance(o, set):
        return sorted(o)
    raise TypeError(type(o))


def sha256(p):
    """The SHA-256 of a file's contents, in hex."""
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def git(*a):
    """git's output in the repository ('?' when git cannot run)."""
    try:
        return subprocess.run(["git", "-C", REPO] + list(a), capture_output=True, text=True).stdout.rstrip()
    except OSError:
        return "?"


def commit_line():
    """The commit under test, with the tracked files the working tree modifies."""
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return "%s%s" % (git("rev-parse", "--short", "HEAD"), " (working tree modified: %s)" % ", ".join(l[3:] for l in dirty.splitlines()) if dirty else "")


def clang_version():
    """clang++-19's first --version line."""
    return subprocess.run(["clang++-19", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
