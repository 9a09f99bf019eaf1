#!/usr/bin/env python3
"""Calibration tables from rows.json (eligible candidates: not tests, not
under docs/examples/...): P(answer | rank), and within ranks 4-12 P(answer)
by a term's value, and the old/new weight's share of the answer."""
import json, math, re, sys
from collections import defaultdict
rows = json.load(open(sys.argv[1]))
EXCL = re.compile(r"(^|/)(docs|examples?|testdata|fixtures|tests?|__tests__)/")
TESTRE = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.[jt]sx?$|(^|/)conftest\.py$")
cases = defaultdict(list)
for r in rows:
    cases[(r["repo"], r["case"])].append(r)
el = []
for k, cs in cases.items():
    if not any(c["answer"] for c in cs):
        continue
    el += [c for c in cs if not TESTRE.search(c["src"]) and not EXCL.search(c["src"])]
print("eligible candidates", len(el), "answers", sum(c["answer"] for c in el), "cases", sum(1 for cs in cases.values() if any(c["answer"] for c in cs)))
def tab(title, key, buckets, sel=lambda c: True):
    print(title)
    for lo, hi, lab in buckets:
        xs = [c for c in el if sel(c) and lo <= key(c) < hi]
        if xs:
            a = sum(c["answer"] for c in xs)
            print("  %-14s n=%5d answers=%4d P=%.3f" % (lab, len(xs), a, a / len(xs)))
tab("P(answer | file rank in score order)", lambda c: c["frank"], [(k, k + 1, str(k)) for k in range(1, 13)] + [(13, 999, "13+")])
mid = lambda c: 4 <= c["frank"] <= 12
tab("ranks 4-12: by relevance term", lambda c: c["relevance"], [(0, 1, "0"), (1, 50, "1-49"), (50, 100, "50-99"), (100, 200, "100-199"), (200, 301, "200-300")], mid)
tab("ranks 4-12: by co-change term", lambda c: c["cochange_rank"], [(0, 1, "0"), (1, 50, "1-49"), (50, 100, "50-99"), (100, 151, "100-150")], mid)
tab("ranks 4-12: by graph term", lambda c: c["graph_rank"], [(0, 1, "0"), (1, 50, "1-49"), (50, 100, "50-99"), (100, 151, "100-150")], mid)
tab("ranks 4-12: by priority base", lambda c: c["priority_base"], [(200, 201, "200"), (500, 501, "500"), (800, 801, "800")], mid)
tab("ranks 4-12: by tokens", lambda c: c["tokens"], [(0, 500, "<500"), (500, 1500, "500-1499"), (1500, 5000, "1500-4999"), (5000, 1e9, ">=5000")], mid)
tab("ranks 4-12: by mention term", lambda c: c["mention"], [(0, 1, "0"), (1, 101, "1-100"), (101, 300, "101-299"), (300, 401, "300-400")], mid)
