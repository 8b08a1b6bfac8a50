# Reads a SPREAD_TRACE HTML page (test-suite/runtime/trace_html.c): its size, rows, totals and
# the operations its data keeps.
import json
import os
import re
import sys

path = sys.argv[1]
page = open(path, encoding="utf-8").read()
size = os.path.getsize(path)
print("size under 4 MiB" if size < 4 << 20 else "size %d bytes" % size)
data = json.loads(re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.S).group(1))
print("rows " + ", ".join(data["rows"]))
for m in re.finditer(r"<tr><th>(device \d+)</th><td>(\d+)</td><td>(\d+)</td>", page):
    print("totals %s: %s operations, %s kernels" % m.groups())
print("kept %d of %d, %d windows, busy fractions %s"
      % (len(data["ev"]) // 6, data["total"], len(data["windows"]), "yes" if "agg" in data else "no"))
