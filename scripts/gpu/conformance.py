#!/usr/bin/env python3
"""LLVM's offload conformance corpus, compiled here and run on a machine without a compiler.

Two halves, both driven by the corpus's own RUN lines (parsed and expanded with the functions of
../shared/conformance/llvm-offload/run.py, retargeted to nvptx64-nvidia-cuda the way upstream's
lit.cfg does for a CUDA machine, but compiled as fat binaries that also carry an x86_64 image):

  pack   (scripts/gpu-pack.sh, on the build machine): writes one shell script per test whose
         commands call "$CC_WRAP", "$RUN_WRAP", "$FILECHECK" and "$NOT", runs it once with
         CC_WRAP = the real compiler (each output is kept as bin/<test>/cc.<n>) and the other
         three stubbed, and stores the sources (FileCheck reads its CHECK lines from them).
  run    (gpu-check.sh, on the GPU machine): runs the same scripts with CC_WRAP restoring
         cc.<n> instead of compiling, RUN_WRAP running the binary, FILECHECK = the carried
         FileCheck-19 and NOT = not.py below.

Pack layout (under --out): tests/ (sources), bin/<test>/{script.sh,cc.N}, index.tsv
(test, status, reason: BUILT, SKIP or BUILD-FAIL).
"""

import argparse
import concurrent.futures as cf
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Both compiler wrappers find the output file (-o FILE or -oFILE) the same way.
OUTPUT_ARG = r"""out=; prev=
for a in "$@"; do
  [ "$prev" = -o ] && out=$a
  case $a in -o?*) out=${a#-o} ;; esac
  prev=$a
done
"""

PACK_CC_WRAP = r"""#!/bin/bash
# pack-time compiler wrapper: compile, then keep the output as $STORE/cc.<n>
""" + OUTPUT_ARG + r""""$@" || exit $?
n=$(( $(cat .ccn 2>/dev/null || echo 0) + 1 )); echo $n > .ccn
[ -n "$out" ] && cp "$out" "$STORE/cc.$n"
exit 0
"""

CHECK_CC_WRAP = r"""#!/bin/bash
# check-time compiler stand-in: put the output compiled on the build machine in place
""" + OUTPUT_ARG + r"""n=$(( $(cat .ccn 2>/dev/null || echo 0) + 1 )); echo $n > .ccn
if [ -n "$out" ]; then
  [ -f "$STORE/cc.$n" ] || { echo "gpu-check: compile #$n of this test was not packed" >&2; exit 1; }
  cp "$STORE/cc.$n" "$out"
fi
exit 0
"""

CHECK_RUN_WRAP = r"""#!/bin/sh
if [ -n "$RUNTIME_PRELOAD" ]; then
  LD_PRELOAD="$RUNTIME_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"; export LD_PRELOAD
fi
exec "$@"
"""

# Check time: `ar` (binutils) may be missing; its output is only an input of a packed compile.
CHECK_PRELUDE = "ar() { :; }\n"

STUB_OK = "#!/bin/sh\ncat >/dev/null 2>&1 || true\nexit 0\n"


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def load_runpy(path):
    spec = importlib.util.spec_from_file_location("offload_run", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------------------------
# pack

def make_script(R, rel):
    """The test's RUN lines as a script, or (None, reason) when the test does not apply."""
    src_abs = os.path.join(R._tests_abs, rel)
    run, requires, unsupported, xfail = R.parse_test(src_abs)
    if not run:
        return None, "no RUN lines"
    missing = [r for r in requires if not R.eval_feature_expr(r, R.FEATURES)]
    if missing:
        return None, "REQUIRES: " + ", ".join(missing)
    unsup = [u for u in unsupported if R.eval_feature_expr(u, R.FEATURES)]
    if unsup:
        return None, "UNSUPPORTED: " + ", ".join(unsup)
    if any(R.eval_feature_expr(x, R.FEATURES) for x in xfail):
        return None, "XFAIL on this configuration"
    # Paths are shell variables so the scripts run wherever the pack lies.
    src = "$CONF/tests/" + rel
    tmp = "$TW/" + rel + ".dir/" + os.path.basename(rel) + ".tmp"
    S = R.build_substitutions(src, tmp, "$CONF/tests")
    wrappers = {"%cc-wrap": '"$CC_WRAP"', "%run-wrap": '"$RUN_WRAP"',
                "%filecheck": '"$FILECHECK"'}
    try:
        cmds = [R.expand(c, S, wrappers) for c in run]
    except R.UnknownSubstitution as e:
        return None, str(e)
    cmds = [c for c in cmds if c.strip() != "echo ignored-command"]
    if not cmds:
        return None, "no RUN line for this target"
    import re
    rw = wrappers["%run-wrap"]
    cmds = [re.sub(r"(^|&&|\|\||\||;)(\s*(?:env(?:\s+-u\s+\S+|\s+\S+=\S*)*\s+)?)"
                   + re.escape(tmp) + r"(?=[\s]|$)",
                   lambda m: m.group(1) + m.group(2) + rw + " " + tmp, c) for c in cmds]
    import shlex
    body = ["set -o pipefail",
            '[ -n "$GPUCHECK_PRELUDE" ] && . "$GPUCHECK_PRELUDE"',
            'mkdir -p "$TW/%s.dir" && cd "$TW/%s.dir" || exit 1' % (rel, rel),
            "rm -f .ccn"]
    for c in cmds:
        body.append("echo '+ '" + shlex.quote(c))
        body.append("{ " + c + "\n} || exit $?")
    return "\n".join(body) + "\n", ""


def run_command(cmd, env, cwd, timeout):
    """(rc, output, timed_out) of `cmd` in its own process group, killed whole at `timeout`;
    output is stdout and stderr together. Also used by gpucheck.py."""
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        return 127, str(e), False
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        return -9, out.decode("utf-8", "replace"), True


def run_script(script, env, cwd, timeout):
    return run_command(["bash", script], env, cwd, timeout)


def cmd_pack(a):
    R = load_runpy(a.run_py)
    R.init_config()                      # needs clang here
    clang_feats = {f for f in R.FEATURES if f.startswith("clang")}
    gpu = "nvptx64-nvidia-cuda"
    # What upstream's lit.cfg does for a CUDA target, with an x86_64 image added (fat binary).
    R.TARGET = gpu + ",x86_64-unknown-linux-gnu"
    R.TARGET_ALIASES = [gpu]
    R.OTHER_TARGETS = [t for t in R.OTHER_TARGETS if t != gpu] + \
        ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"]
    R.FEATURES = {gpu, "gpu", "unified_shared_memory"} | clang_feats
    R.NOT = '"$NOT"'
    os.environ["EXTRA_CFLAGS"] = (os.environ.get("EXTRA_CFLAGS", "") + " " + a.gpu_flags).strip()
    out = os.path.abspath(a.out)
    tests_src = os.path.abspath(a.tests)
    R._tests_abs = tests_src
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(tests_src, os.path.join(out, "tests"))
    tools = tempfile.mkdtemp(prefix="gpupack-tools-")
    tw = tempfile.mkdtemp(prefix="gpupack-tw-")
    write_exe(os.path.join(tools, "cc-wrap"), PACK_CC_WRAP)
    write_exe(os.path.join(tools, "stub"), STUB_OK)
    tests = R.find_tests(tests_src, None)
    rows = []

    def one(rel):
        script, why = make_script(R, rel)
        if script is None:
            return rel, "SKIP", why
        bdir = os.path.join(out, "bin", rel)
        os.makedirs(bdir, exist_ok=True)
        sp = os.path.join(bdir, "script.sh")
        with open(sp, "w") as f:
            f.write(script)
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env.update(CONF=out, TW=tw, STORE=bdir, CC_WRAP=os.path.join(tools, "cc-wrap"),
                   RUN_WRAP=os.path.join(tools, "stub"), FILECHECK=os.path.join(tools, "stub"),
                   NOT=os.path.join(tools, "stub"), GPUCHECK_PRELUDE="")
        env["LIBRARY_PATH"] = R.LLVM_LIB + (":" + env["LIBRARY_PATH"] if env.get("LIBRARY_PATH") else "")
        rc, log, to = run_script(sp, env, tw, a.timeout)
        if rc != 0:
            with open(os.path.join(bdir, "build-log.txt"), "w") as f:
                f.write(log)
            return rel, "BUILD-FAIL", ("timeout" if to else R.first_error_line(log))
        return rel, "BUILT", ""

    with cf.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        for rel, st, why in ex.map(one, tests):
            rows.append((rel, st, why))
            if st != "BUILT":
                print("conformance: %-10s %s  %s" % (st, rel, why), flush=True)
    shutil.rmtree(tw, ignore_errors=True)
    shutil.rmtree(tools, ignore_errors=True)
    with open(os.path.join(out, "index.tsv"), "w") as f:
        for rel, st, why in rows:
            f.write("%s\t%s\t%s\n" % (rel, st, why.replace("\t", " ")))
    n = {s: sum(1 for r in rows if r[1] == s) for s in ("BUILT", "SKIP", "BUILD-FAIL")}
    print("conformance: %d built, %d skipped (not for this target), %d failed to build"
          % (n["BUILT"], n["SKIP"], n["BUILD-FAIL"]))
    return 0


# --------------------------------------------------------------------------------------------
# run (check time)

def read_index(conf):
    rows = []
    with open(os.path.join(conf, "index.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 2:
                rows.append((p[0], p[1], p[2] if len(p) > 2 else ""))
    return rows


def run_suite(conf, work, libpath, filecheck, jobs=2, timeout=60, extra_env=None,
              label="run", log=None):
    """Runs every built test; returns {test: (status, seconds, first error line)}."""
    conf, work = os.path.abspath(conf), os.path.abspath(work)
    tools = os.path.join(work, "tools")
    os.makedirs(tools, exist_ok=True)
    write_exe(os.path.join(tools, "cc-wrap"), CHECK_CC_WRAP)
    write_exe(os.path.join(tools, "run-wrap"), CHECK_RUN_WRAP)
    with open(os.path.join(tools, "prelude.sh"), "w") as f:
        f.write(CHECK_PRELUDE)
    tw = os.path.join(work, label)
    shutil.rmtree(tw, ignore_errors=True)
    os.makedirs(tw)
    base = {k: v for k, v in os.environ.items() if k in (
        "HOME", "TMPDIR", "TERM", "LANG", "USER", "LC_ALL", "CUDA_VISIBLE_DEVICES")}
    base.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), LD_LIBRARY_PATH=libpath,
                CONF=conf, TW=tw, CC_WRAP=os.path.join(tools, "cc-wrap"),
                RUN_WRAP=os.path.join(tools, "run-wrap"), FILECHECK=filecheck,
                NOT=sys.executable + " " + os.path.abspath(__file__) + " not",
                GPUCHECK_PRELUDE=os.path.join(tools, "prelude.sh"))
    # "$NOT" is quoted in the scripts: give it a one-word command.
    write_exe(os.path.join(tools, "not"),
              '#!/bin/sh\nexec "%s" "%s" not "$@"\n' % (sys.executable, os.path.abspath(__file__)))
    base["NOT"] = os.path.join(tools, "not")
    base.update(extra_env or {})
    results = {}

    def one(rel):
        env = dict(base, STORE=os.path.join(conf, "bin", rel))
        t0 = time.time()
        rc, out, to = run_script(os.path.join(conf, "bin", rel, "script.sh"), env, tw, timeout)
        dt = time.time() - t0
        d = os.path.join(tw, rel + ".dir")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "log.txt"), "w") as f:
            f.write(out)
        if to:
            return rel, "FAIL", dt, "TIMEOUT after %ds" % timeout
        if rc == 0:
            return rel, "PASS", dt, ""
        return rel, "FAIL", dt, first_error(out) or "exit code %d" % rc

    todo = [r for r, st, _ in read_index(conf) if st == "BUILT"]
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for rel, st, dt, err in ex.map(one, todo):
            results[rel] = (st, dt, err)
            if log and st != "PASS":
                log("    %s %-4s %s  -- %s" % (label, st, rel, err))
    return results


def first_error(text):
    import re
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.startswith("+ ")]
    for l in lines:
        if re.search(r"error|Assertion|fatal|CHECK|Segmentation|Aborted|core dumped|not found",
                     l, re.I):
            return l[:240]
    return lines[-1][:240] if lines else ""


# --------------------------------------------------------------------------------------------
# not: LLVM's `not` (the test machine has no LLVM tools but FileCheck)

def cmd_not(argv):
    crash = False
    if argv and argv[0] == "--crash":
        crash, argv = True, argv[1:]
    if not argv:
        return 1
    try:
        rc = subprocess.call(argv)
    except OSError as e:
        print("not: %s" % e, file=sys.stderr)
        return 1
    if rc < 0:                       # killed by a signal: a crash
        return 0 if crash else 1
    if crash:
        return 1
    return 0 if rc != 0 else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "not":
        sys.exit(cmd_not(sys.argv[2:]))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--run-py", required=True)
    p.add_argument("--tests", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--gpu-flags", required=True,
                   help="e.g. -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path=DIR")
    p.add_argument("-j", type=int, default=2)
    p.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    if a.cmd == "pack":
        sys.exit(cmd_pack(a))


if __name__ == "__main__":
    main()
