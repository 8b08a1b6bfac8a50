#!/usr/bin/env python3
"""A small FileCheck for gpu-check.sh, used only when the carried FileCheck-19 cannot run on the
GPU machine (it needs glibc 2.36). Covers what the llvm-offload corpus uses: CHECK, -NEXT, -SAME,
-NOT, -EMPTY, -LABEL, -DAG (matched in order), {{regex}}, [[VAR:regex]], [[VAR]],
[[#%x,VAR:]], [[#%u,VAR:]], [[#VAR]]; --check-prefix(es), --allow-empty, --strict-whitespace.

usage: pyfilecheck.py CHECK_FILE [options] < input
"""
import re
import sys


def parse_args(argv):
    prefixes, allow_empty, strict, path = [], False, False, None
    i = 0
    while i < len(argv):
        a = argv[i]
        m = re.match(r"--?check-prefix(es)?(=(.*))?$", a)
        if m:
            v = m.group(3)
            if v is None:
                i += 1
                v = argv[i]
            prefixes += [x for x in v.split(",") if x]
        elif re.match(r"--?allow-empty$", a):
            allow_empty = True
        elif re.match(r"--?strict-whitespace$", a):
            strict = True
        elif a.startswith("-"):
            pass
        else:
            path = a
        i += 1
    return path, prefixes or ["CHECK"], allow_empty, strict


class Pattern:
    def __init__(self, kind, text, lineno, strict):
        self.kind, self.text, self.lineno, self.strict = kind, text, lineno, strict

    def regex(self, vars_):
        """(compiled regex, [(group name, variable, numeric format)])."""
        out, binds, i, t = [], [], 0, self.text.strip(" \t")
        if not self.strict:
            t = re.sub(r"[ \t]+", " ", t)
        while i < len(t):
            if t.startswith("{{", i):
                j = t.index("}}", i + 2)
                out.append("(?:%s)" % t[i + 2:j])
                i = j + 2
            elif t.startswith("[[", i):
                j = t.index("]]", i + 2)
                body = t[i + 2:j]
                i = j + 2
                if body.startswith("#"):
                    m = re.match(r"#(?:%(\w),)?\s*(\w*)\s*(:)?\s*$", body)
                    if not m:
                        raise ValueError("unsupported numeric expression [[%s]]" % body)
                    fmt, name, define = m.group(1) or "u", m.group(2), m.group(3)
                    if define:
                        g = "g%d" % len(binds)
                        rx = "[0-9a-fA-F]+" if fmt in "xX" else "-?[0-9]+"
                        out.append("(?P<%s>%s)" % (g, rx))
                        binds.append((g, name, fmt))
                    else:
                        if name not in vars_:
                            raise ValueError("undefined variable %s" % name)
                        v, f = vars_[name]
                        out.append(re.escape(("%x" if f in "xX" else "%d") % v))
                else:
                    name, colon, rx = body.partition(":")
                    if colon:
                        g = "g%d" % len(binds)
                        out.append("(?P<%s>%s)" % (g, rx))
                        binds.append((g, name, None))
                    else:
                        if name not in vars_:
                            raise ValueError("undefined variable %s" % name)
                        out.append(re.escape(vars_[name]))
            else:
                j = len(t)
                for k in ("{{", "[["):
                    x = t.find(k, i)
                    if x >= 0:
                        j = min(j, x)
                lit = t[i:j]
                out.append(re.escape(lit) if self.strict else
                           r"[ \t]+".join(re.escape(w) for w in lit.split(" ")))
                i = j
        return re.compile("".join(out)), binds


def load_checks(path, prefixes, strict):
    pats = []
    alt = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    rx = re.compile(r"(?<![\w-])(%s)(-NEXT|-SAME|-NOT|-EMPTY|-LABEL|-DAG)?:(.*)$" % alt)
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = rx.search(line.rstrip("\n"))
            if m:
                kind = (m.group(2) or "")[1:] or "CHECK"
                pats.append(Pattern(kind, m.group(3), n, strict))
    return pats


def main(argv):
    path, prefixes, allow_empty, strict = parse_args(argv)
    if not path:
        print("pyfilecheck: no check file", file=sys.stderr)
        return 2
    data = sys.stdin.read()
    pats = load_checks(path, prefixes, strict)
    if not pats:
        print("pyfilecheck: no check strings found with prefix %s" % ",".join(prefixes),
              file=sys.stderr)
        return 2
    if not data and not allow_empty:
        print("pyfilecheck: error: empty input file", file=sys.stderr)
        return 1
    lines = data.split("\n")
    vars_ = {}
    line, col = 0, 0            # where the next match may start
    last = -1                   # line of the previous positive match
    nots = []

    def fail(p, msg):
        print("%s:%d: error: %s: %s\n  %s" % (path, p.lineno, p.kind, msg, p.text.strip()),
              file=sys.stderr)
        return 1

    def bind(p, m, binds):
        for g, name, fmt in binds:
            if fmt is None:
                vars_[name] = m.group(g)
            else:
                vars_[name] = (int(m.group(g), 16 if fmt in "xX" else 10), fmt)

    def check_nots(upto_line, upto_col):
        for p in nots:
            rx, _ = p.regex(vars_)
            for ln in range(line, min(upto_line, len(lines) - 1) + 1):
                s = lines[ln]
                a = col if ln == line else 0
                b = upto_col if ln == upto_line else len(s)
                if rx.search(s, a, max(a, b)):
                    return fail(p, "excluded string found in input (line %d)" % (ln + 1))
        return 0

    for p in pats:
        try:
            rx, binds = p.regex(vars_)
        except (ValueError, re.error) as e:
            return fail(p, str(e))
        if p.kind == "NOT":
            nots.append(p)
            continue
        if p.kind == "EMPTY":
            ln = last + 1
            if ln >= len(lines) or lines[ln].strip():
                return fail(p, "expected an empty line")
            found = (ln, 0, 0)
        elif p.kind == "SAME":
            m = rx.search(lines[last], col) if last >= 0 else None
            if not m:
                return fail(p, "expected string not found on the same line")
            found = (last, m.start(), m.end())
        elif p.kind == "NEXT":
            ln = last + 1
            m = rx.search(lines[ln]) if ln < len(lines) else None
            if not m:
                return fail(p, "expected string not found on the next line")
            found = (ln, m.start(), m.end())
        else:
            found = None
            for ln in range(line, len(lines)):
                m = rx.search(lines[ln], col if ln == line else 0)
                if m:
                    found = (ln, m.start(), m.end())
                    break
            if not found:
                return fail(p, "expected string not found in input")
        if check_nots(found[0], found[1]):
            return 1
        nots = []
        if p.kind != "EMPTY":
            bind(p, m, binds)
        last, line, col = found[0], found[0], found[2]
    if nots and check_nots(len(lines) - 1, len(lines[-1])):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
