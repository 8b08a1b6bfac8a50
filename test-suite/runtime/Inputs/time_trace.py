"""Summarizes a LIBOMPTARGET_PROFILE file: per event name, the events kept and the Total event's
count; checks the file's shape (valid JSON, traceEvents, beginningOfTime, non-negative times)."""
import json
import sys
from collections import Counter

d = json.load(open(sys.argv[1]))
names = sys.argv[2:]
assert isinstance(d.get("beginningOfTime"), int), "no beginningOfTime"
kept = Counter()
totals = {}
detail = {}
for e in d["traceEvents"]:
    if e["ph"] != "X":
        continue
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    if e["name"].startswith("Total "):
        totals[e["name"][6:]] = e["args"]["count"]
    else:
        kept[e["name"]] += 1
        detail.setdefault(e["name"], e.get("args", {}).get("detail", ""))
for n in names:
    print(f"{n}: kept={kept[n]} total={totals.get(n, 0)}")
for n in kept:
    if kept[n] > totals.get(n, 0):
        print(f"FAIL: {n}: {kept[n]} events kept but the total counts {totals.get(n, 0)}")
