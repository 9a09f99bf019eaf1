#!/usr/bin/env python3
"""Compares ctxd's per-file o200k token counts with Repomix's on the same tree.

    ctxd pack --root TREE --json > ctxd.json
    (cd TREE && repomix --token-count-tree -o /tmp/out.xml > repomix.out)
    scripts/repomix-tokens.py ctxd.json repomix.out

Prints both file sets' sizes, how many common files have equal counts, and
the totals over the common files (Repomix's "Total Tokens" counts its whole
output, headers included, so the per-file tree is what is compared).
"""
import json
import re
import sys

ctxd = json.load(open(sys.argv[1]))
out = open(sys.argv[2], encoding="utf-8", errors="replace").read()
tree = out.split("Token Count Tree:")[1].split("Security Check")[0]
stack, rmx = [], {}
for line in tree.splitlines():
    m = re.match(r"^((?:│   |    )*)(?:├── |└── )(.+?) \(([\d,]+) tokens\)\s*$", line)
    if not m:
        continue
    depth, name, n = len(m.group(1)) // 4, m.group(2), int(m.group(3).replace(",", ""))
    stack = stack[:depth]
    if name.endswith("/"):
        stack.append(name.rstrip("/"))
    else:
        rmx["/".join(stack + [name])] = n
ours = {f["path"]: f["tokens"] for f in ctxd["files"]}
common = set(ours) & set(rmx)
a, b = sum(ours[p] for p in common), sum(rmx[p] for p in common)
print(f"ctxd_files={len(ours)} repomix_files={len(rmx)} common={len(common)} "
      f"equal_counts={sum(ours[p] == rmx[p] for p in common)} "
      f"common_tokens_ctxd={a} common_tokens_repomix={b} delta_pct={100 * (a - b) / b:.4f}")
print("only_ctxd (first 5):", sorted(set(ours) - set(rmx))[:5])
print("only_repomix (first 5):", sorted(set(rmx) - set(ours))[:5])
