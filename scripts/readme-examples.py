#!/usr/bin/env python3
"""Build and run the complete programs of a Markdown file (README.md by default).

Marker convention. A fenced C or C++ block (```c, ```cpp, ```c++) is a runnable example when
the line right above its opening fence is

    <!-- example: FILE.c [VAR=VALUE ...] -->

FILE (.c, or .cpp/.cc for C++) is the name the block is saved under, so that the README's own
command lines (`spread-cc -O2 stencil.c -o stencil`) apply to it; the VAR=VALUE words are set in
the program's environment (the README's `SPREAD_INFO=chunks ./stencil`). Each example is built
with `spread-cc -O2 FILE -o NAME -lm` (spread-c++ for C++) and run with a timeout; it passes when
it builds and exits with status 0. Examples check their own results (they compare with a serial
computation on the host, print OK or FAILED and exit non-zero on FAILED); this script relies on
the exit status alone and prints each program's output, one line per output line as
`NAME| line`, so that a test can check more.

A C/C++ block that is only a fragment must say so with `<!-- fragment -->` on the line above its
fence: a C/C++ block with neither marker is an error, so that no block is left unchecked without a
decision. Blocks in other languages (sh, text, ...) are not looked at.

Exit status: 0 when every example passed, 1 when one did not build, did not run or the file's
markers are wrong (an example marker not followed by a C/C++ fence, a name used twice).

    scripts/readme-examples.py [--spread-cc PATH] [--spread-cxx PATH] [--workdir DIR]
                               [--only NAME] [--list] [README.md]

test-suite/docs/readme_examples.test runs it on README.md in the lit suite.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!--\s*example:\s*(\S+)((?:\s+[A-Za-z_][A-Za-z0-9_]*=\S*)*)\s*-->\s*$")
FRAGMENT = re.compile(r"^<!--\s*fragment\s*-->\s*$")
ANY_MARKER = re.compile(r"^<!--\s*(example|fragment)\b")
FENCE = re.compile(r"^```\s*([A-Za-z0-9+_-]*)\s*$")
C_LANGS = {"c": "c", "cpp": "c++", "c++": "c++", "cxx": "c++"}


def parse(path):
    """Returns (examples, errors); an example is a dict with name, line, lang, env, source."""
    lines = open(path, encoding="utf-8").read().split("\n")
    examples, errors, names = [], [], set()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if not m:
            if ANY_MARKER.match(line) and not (i + 1 < len(lines) and FENCE.match(lines[i + 1])):
                errors.append("%s:%d: marker is not right above an opening ```c or ```cpp fence"
                              % (path, i + 1))
            i += 1
            continue
        lang = m.group(1).lower()
        # find the closing fence
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if j == len(lines):
            errors.append("%s:%d: code block is not closed" % (path, i + 1))
            break
        above = lines[i - 1] if i > 0 else ""
        if lang in C_LANGS:
            em, fm = MARKER.match(above), FRAGMENT.match(above)
            if em:
                name = em.group(1)
                env = dict(w.split("=", 1) for w in em.group(2).split())
                want = C_LANGS[lang]
                ext = os.path.splitext(name)[1]
                if ext not in ((".c",) if want == "c" else (".cpp", ".cc", ".cxx")):
                    errors.append("%s:%d: example %s: the name's extension does not fit a "
                                  "```%s block" % (path, i, name, lang))
                elif name in names or "/" in name:
                    errors.append("%s:%d: example name %s is used twice or has a directory"
                                  % (path, i, name))
                else:
                    names.add(name)
                    examples.append({"name": name, "line": i + 2, "lang": want, "env": env,
                                     "source": "\n".join(lines[i + 1:j]) + "\n"})
            elif ANY_MARKER.match(above) and not fm:
                errors.append("%s:%d: malformed marker (expected `<!-- example: FILE.c [VAR=VALUE "
                              "...] -->` or `<!-- fragment -->`)" % (path, i))
            elif not fm:
                errors.append("%s:%d: ```%s block without a marker: put `<!-- example: FILE.c -->` "
                              "(a complete program, built and run) or `<!-- fragment -->` on the "
                              "line above it" % (path, i + 1, lang))
        elif ANY_MARKER.match(above):
            errors.append("%s:%d: marker above a ```%s block (only C and C++ blocks are built)"
                          % (path, i, lang or "(no language)"))
        i = j + 1
    return examples, errors


def run_example(ex, workdir, tools, timeout):
    """Builds and runs one example; returns (ok, text)."""
    # Built in workdir under its own name, so that messages say `stencil.c:9` as in the README.
    exe = os.path.splitext(ex["name"])[0]
    with open(os.path.join(workdir, ex["name"]), "w", encoding="utf-8") as f:
        f.write(ex["source"])
    cc = tools["c++" if ex["lang"] == "c++" else "c"]
    cmd = [cc, "-O2", ex["name"], "-o", exe, "-lm"]
    try:
        b = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)
    except subprocess.TimeoutExpired:
        return False, "build timed out after %d s: %s" % (timeout, " ".join(cmd))
    if b.returncode != 0:
        return False, "does not build (%s, exit %d):\n%s" % (" ".join(cmd), b.returncode,
                                                              b.stdout + b.stderr)
    env = dict(os.environ)
    env.update(ex["env"])
    try:
        r = subprocess.run([os.path.join(".", exe)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout, cwd=workdir,
                           env=env)
    except subprocess.TimeoutExpired:
        return False, "did not finish within %d s" % timeout
    out = "".join("%s| %s\n" % (ex["name"], l) for l in r.stdout.splitlines())
    if r.returncode != 0:
        return False, "exited with status %d:\n%s" % (r.returncode, out)
    return True, out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("readme", nargs="?", default=os.path.join(repo, "README.md"))
    release = os.path.join(repo, "target", "release")
    ap.add_argument("--spread-cc", type=os.path.abspath,
                    default=os.path.join(release, "spread-cc"))
    ap.add_argument("--spread-cxx", type=os.path.abspath,
                    default=os.path.join(release, "spread-c++"))
    ap.add_argument("--workdir", help="where the files are written (default: a temporary "
                    "directory, removed at the end)")
    ap.add_argument("--only", action="append", help="run only this example (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the examples, build nothing")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per build and per run")
    args = ap.parse_args()

    examples, errors = parse(args.readme)
    for e in errors:
        print("error: " + e)
    if args.only:
        unknown = set(args.only) - {ex["name"] for ex in examples}
        if unknown:
            print("error: no example named %s" % ", ".join(sorted(unknown)))
            return 1
        examples = [ex for ex in examples if ex["name"] in args.only]
    if args.list:
        for ex in examples:
            env = " ".join("%s=%s" % kv for kv in ex["env"].items())
            print(("%s:%d: %s %s" % (args.readme, ex["line"], ex["name"], env)).rstrip())
        return 1 if errors else 0

    tools = {"c": args.spread_cc, "c++": args.spread_cxx}
    tmp = None
    workdir = args.workdir
    if not workdir:
        tmp = tempfile.TemporaryDirectory(prefix="readme-examples-")
        workdir = tmp.name
    os.makedirs(workdir, exist_ok=True)
    failed = 0
    for ex in examples:
        ok, text = run_example(ex, workdir, tools, args.timeout)
        failed += not ok
        where = "%s:%d" % (os.path.basename(args.readme), ex["line"])
        print("example %s (%s): %s" % (ex["name"], where, "PASS" if ok else "FAIL"))
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    print("%d examples, %d failed%s" % (len(examples), failed,
                                         ", %d marker errors" % len(errors) if errors else ""))
    if tmp:
        tmp.cleanup()
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
