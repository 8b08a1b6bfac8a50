#!/usr/bin/env python3
"""Summarise one valgrind memcheck XML log for scripts/memcheck.sh.

    memcheck-report.py LOG.xml REPORT.txt [--no-leaks]

Prints "SPREAD OTHER": the number of error contexts with a frame in Spread's runtime
(libspread_rt.so, also when loaded as libomptarget.so.19.1 from target/spread/lib) and the number of
the others. Leaks count only when definite (valgrind's --errors-for-leak-kinds=definite), and not
at all with --no-leaks (programs that end with a fatal error, where valgrind still reports what
the aborted program held). REPORT.txt gets each error: its kind, whose it is, its stack and the
suppression valgrind generated for it (for scripts/memcheck.supp, when the error is not Spread's)."""

import os
import sys
import xml.etree.ElementTree as ET


def is_spread(obj):
    base = os.path.basename(os.path.realpath(obj)) if obj else ""
    return base == "libspread_rt.so" or "libspread_rt" in (obj or "")


def frame_text(fr):
    fn = fr.findtext("fn") or "???"
    where = ""
    if fr.findtext("file"):
        where = "%s:%s" % (fr.findtext("file"), fr.findtext("line"))
    else:
        where = os.path.basename(fr.findtext("obj") or "?")
    return "%s (%s)" % (fn, where)


def main():
    xml_path, report_path = sys.argv[1], sys.argv[2]
    no_leaks = "--no-leaks" in sys.argv[3:]
    spread = other = 0
    lines = []
    try:
        root = ET.parse(xml_path).getroot()
    except (ET.ParseError, FileNotFoundError) as e:
        # A run killed before valgrind closed its log: read what there is.
        text = open(xml_path, errors="replace").read() if os.path.exists(xml_path) else ""
        end = text.rfind("</error>")
        if end < 0:
            lines.append("(no readable valgrind XML: %s)" % e)
            open(report_path, "w").write("\n".join(lines) + "\n")
            print(0, 0)
            return
        root = ET.fromstring(text[: end + len("</error>")] + "</valgrindoutput>")
    for err in root.iter("error"):
        kind = err.findtext("kind") or ""
        if kind.startswith("Leak_") and (no_leaks or kind != "Leak_DefinitelyLost"):
            continue
        frames = []
        for stack in err.findall("stack"):
            frames.extend(stack.findall("frame"))
        mine = any(is_spread(fr.findtext("obj")) for fr in frames)
        if mine:
            spread += 1
        else:
            other += 1
        what = err.findtext("what") or err.findtext("xwhat/text") or ""
        lines.append("%s: %s: %s" % ("SPREAD" if mine else "other", err.findtext("kind"), what))
        for stack in err.findall("stack"):
            for fr in stack.findall("frame")[:16]:
                lines.append("    %s" % frame_text(fr))
            lines.append("    --")
        if not mine:
            raw = err.findtext("suppression/rawtext")
            if raw:
                lines.append("    suppression:")
                lines.extend("      " + l for l in raw.strip().splitlines())
    open(report_path, "w").write("\n".join(lines) + "\n")
    print(spread, other)


if __name__ == "__main__":
    main()
