#!/usr/bin/env python3
"""Rates of P(every changed line shown | the file is an answer, its view) by
level and fifth of the file's tokens shown, by whether a view shows its
best focus function, and of the views the fitter chose, from the rows
qdump.patch's build writes (see fit.py)."""
import json, sys, glob, os, math

from fit import load  # the one reader of the rows
from collections import defaultdict

if __name__ == "__main__":
    rows = load(sys.argv[1:])
    t = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["level"] == "whole":
            continue
        sh = r["tokens"] / max(r["whole"], 1)
        b = min(int(sh * 5), 4)
        bud = "8k" if r["budget"] < 10000 else "32k"
        t[(r["level"], b)][0] += r["all"]
        t[(r["level"], b)][1] += 1
        if r["best"] >= 0:
            t[(r["level"] + " best=%d" % r["best"], -1)][0] += r["all"]
            t[(r["level"] + " best=%d" % r["best"], -1)][1] += 1
        if r["chosen"]:
            t[("chosen " + r["level"], -1)][0] += r["all"]
            t[("chosen " + r["level"], -1)][1] += 1
    for k in sorted(t):
        a, n = t[k]
        print("%-28s share %s  %5.1f%% (n=%d)" % (k[0], "%.1f-%.1f" % (k[1] / 5, (k[1] + 1) / 5) if k[1] >= 0 else "all    ", 100 * a / n, n))
