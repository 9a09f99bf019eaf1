#!/usr/bin/env python3
"""P(every changed line of a file is shown | the file is an answer, its view):
a logistic regression over every option the fitter had for each answer
file (whole, each structural view, the presence line, the placement), not
only the one it chose, against compress's hand-set quality (qualityAt).
BENCHMARKS.md, "hqual (2026-11-30": the fit agreed with the hand curve for
the structural views and said the outline and the head-and-tail cut show an
answer file's changed lines almost never; used as the fitter's values they
moved eval cells within the noise, so compress keeps its curve.

Rows come from a scratch build (qdump.patch, never merged: eval sets each
case's changed lines, compress writes one JSON line per option of every
answer file's chunk when CTXD_QDUMP names a file). Development
repositories only (docs/eval.md):

  git apply scripts/viewquality/qdump.patch && go build -o ctxd-q ./cmd/ctxd
  CTXD_QDUMP=DIR/<repo>.q.jsonl ctxd-q eval recall --repo /work/data/<repo> \
      --commits 100 --budgets 8000,32000 --json
  python3 fit.py DIR/*.q.jsonl            # MODEL=share+best+size ... to print another
  python3 tables.py DIR/*.q.jsonl         # raw rates by level and share

It prints the rates of the outline, the cut and the whole file, the
held-out log-likelihood per structural row of the hand curve and of each
model (leaving one repository out), the chosen model's coefficients (by
default "slopes+nofocus", the best held out: per level an intercept and a
slope per share of the file's tokens shown, a focus view's whole at most
twice the context budget as in compress, + a term for a view without
focus lines) and its calibration by level and quarter of share."""
import json, math, sys, os
from collections import defaultdict

FOCUS = ("focus", "focus-only")
STRUCT = ("bodies", "signatures") + FOCUS
SHARE_OF = 2  # compress.focusShareOf


def load(paths):
    rows, seen = [], set()
    for p in paths:
        repo = os.path.basename(p).split(".")[0]
        for line in open(p):
            r = json.loads(line)
            k = (r["tag"], r["path"], r["level"], r["tokens"])
            if k in seen:
                continue
            seen.add(k)
            r["repo"] = repo
            rows.append(r)
    return rows


def share(r):
    whole = r["whole"]
    if r["level"] in FOCUS:
        whole = min(whole, SHARE_OF * max(r["budget"], 1))
    return min(1.0, r["tokens"] / max(whole, 1))


def feats(r, model):
    """The features of a structural view; the same in compress's qualityAt."""
    lv = r["level"]
    f = [1.0 if lv == l else 0.0 for l in STRUCT]
    if "slopes" in model:
        f += [share(r) if lv == l else 0.0 for l in STRUCT]
    else:
        f.append(share(r))
    if "best" in model:
        f.append(1.0 if r["best"] == 1 else 0.0)
    if "best" in model or "nofocus" in model:
        f.append(1.0 if r["best"] == -1 else 0.0)
    if "fshown" in model:
        f.append(r["fshown"])
    if "size" in model:
        f.append(math.log(max(r["whole"], 1) / 1000.0))
    return f


def sigmoid(x):
    return 1 / (1 + math.exp(-x)) if x > -30 else 1e-13


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for i in range(n):
            if i != c:
                k = m[i][c] / m[c][c]
                for j in range(c, n + 1):
                    m[i][j] -= k * m[c][j]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def logit(X, y, l2=0.01, iters=30):
    p = len(X[0])
    w = [0.0] * p
    for _ in range(iters):
        g = [-l2 * wi for wi in w]
        H = [[(l2 if i == j else 0.0) for j in range(p)] for i in range(p)]
        for x, t in zip(X, y):
            mu = sigmoid(sum(a * b for a, b in zip(w, x)))
            d = t - mu
            s = mu * (1 - mu)
            for i in range(p):
                g[i] += d * x[i]
                if x[i] == 0:
                    continue
                for j in range(p):
                    H[i][j] += s * x[i] * x[j]
        step = solve(H, g)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def ll(p, y):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p) if y else math.log(1 - p)


def main():
    rows = load(sys.argv[1:])
    st = [r for r in rows if r["level"] in STRUCT and r["ref"] == 1]
    repos = sorted({r["repo"] for r in rows})
    print("rows %d, structural %d, repositories %s" % (len(rows), len(st), " ".join(repos)))
    for lv in ("outline", "middle", "whole"):
        sub = [r for r in rows if r["level"] == lv]
        if sub:
            print("%-8s P(all) = %.4f (n=%d)" % (lv, sum(r["all"] for r in sub) / len(sub), len(sub)))
    models = ["share", "share+nofocus", "slopes+nofocus", "share+best", "share+best+size", "share+best+fshown+size"]
    print("held-out log-likelihood per structural row (leave one repository out):")
    cur = sum(ll(r["q"], r["all"]) for r in st) / len(st)
    print("  %-26s %.4f" % ("current q", cur))
    for m in models:
        tot = 0.0
        per = []
        for rp in repos:
            tr = [r for r in st if r["repo"] != rp]
            te = [r for r in st if r["repo"] == rp]
            if not te:
                continue
            w = logit([feats(r, m) for r in tr], [r["all"] for r in tr])
            s = sum(ll(sigmoid(sum(a * b for a, b in zip(w, feats(r, m)))), r["all"]) for r in te)
            tot += s
            per.append("%s %.3f" % (rp, s / len(te)))
        print("  %-26s %.4f  (%s)" % (m, tot / len(st), ", ".join(per)))
    m = os.environ.get("MODEL", "slopes+nofocus")
    w = logit([feats(r, m) for r in st], [r["all"] for r in st])
    names = ["bodies", "signatures", "focus", "focus-only"]
    names += ["share x " + l for l in STRUCT] if "slopes" in m else ["share"]
    if "best" in m:
        names += ["best shown"]
    if "best" in m or "nofocus" in m:
        names += ["no focus lines"]
    if "fshown" in m:
        names += ["focusShown"]
    if "size" in m:
        names += ["ln(whole/1000)"]
    print("model %s:" % m)
    for n, c in zip(names, w):
        print("  %-16s %+.3f" % (n, c))
    cal = defaultdict(lambda: [0, 0.0, 0])
    for r in st:
        p = sigmoid(sum(a * b for a, b in zip(w, feats(r, m))))
        k = (r["level"], min(int(share(r) * 4), 3))
        cal[k][0] += r["all"]
        cal[k][1] += p
        cal[k][2] += 1
    print("calibration (level, share quarter): observed / fitted / current mean q (n)")
    qc = defaultdict(float)
    for r in st:
        qc[(r["level"], min(int(share(r) * 4), 3))] += r["q"]
    for k in sorted(cal):
        a, p, n = cal[k]
        print("  %-11s %d  %.3f / %.3f / %.3f (%d)" % (k[0], k[1], a / n, p / n, qc[k] / n, n))


if __name__ == "__main__":
    main()
