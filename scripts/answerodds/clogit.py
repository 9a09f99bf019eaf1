#!/usr/bin/env python3
"""Conditional logit (softmax within a request) of which candidate files are
answer files, leave-one-repository-out: the fit behind compress's answerOdds
(BENCHMARKS.md, "h25rank (2026-11-29 21:28"). weight = exp(theta . x); the
fitter's old weight is exp(log score - log(rank+1)) ("current"); the
"offset*" sets fit corrections on top of it (answerFit is "offset+g").
Development repositories only (docs/eval.md).

  ctxd eval recall --repo REPO --commits 100 --json -v --dump DIR/dump-<name>
  python3 parse.py DIR 8000 > rows.json
  python3 clogit.py rows.json current offset+g
  python3 calib.py rows.json

"order*" fit the odds as the order itself: offset log score only, no
rank; "+w" evaluates an order set as the fitter would weigh it (score x
odds over the rank by score x odds), "+rerank" refits at the ranks by the
odds. The answer_odds score term tried and taken back (cd77090) used
"order-cap" for the order and "offset+g-cap" for the weight; compress's
answerFit is "offset+g" (BENCHMARKS.md, "h25score (2026-11-30")."""
import json, math, sys, re
from collections import defaultdict

rows = json.load(open(sys.argv[1]))
EXCL = re.compile(r"(^|/)(docs|examples?|testdata|fixtures|tests?|__tests__)/")
TESTRE = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.[jt]sx?$|(^|/)conftest\.py$")

def feats(r, case):
    top = case[0]["score"]
    nxt = [c["score"] for c in case if c["crank"] == r["crank"] + 1]
    nxt = nxt[0] if nxt else r["score"]
    prv = [c["score"] for c in case if c["crank"] == r["crank"] - 1]
    prv = prv[0] if prv else r["score"]
    s = max(r["score"], 1)
    lex = r["lexical_rank"] / 300.0
    gr = r["graph_rank"] / 150.0
    cc = r["cochange_rank"] / 150.0
    f = {
        "logscore": math.log(s),
        "logrank": math.log(r["crank"]),
        "logi1": math.log(r["arank"] + 1),
        "rel": s / max(top, 1),
        "gapnext": (r["score"] - nxt) / 100.0,
        "gapprev": (prv - r["score"]) / 100.0,
        "gaptop": (top - r["score"]) / 100.0,
        "prio": r["priority_base"] / 100.0,
        "recency": r["recency"] / 100.0,
        "mention": r["mention"] / 100.0,
        "relev": r["relevance"] / 100.0,
        "lexrank": lex,
        "graph": gr,
        "cochange": cc,
        "size": r["size_penalty"] / 100.0,
        "task": r["task"] / 100.0,
        "logtok": math.log(max(r["tokens"], 1)),
        # the size bounded: below 1,500 tokens alike (floor), or above it
        # alike (cap)
        "logtokF": math.log(max(r["tokens"], 1500)),
        "logtokC": math.log(min(max(r["tokens"], 1), 1500)),
        "test": 1.0 if TESTRE.search(r["src"]) else 0.0,
        "lexXgraph": lex * gr,
        "lexXcc": lex * cc,
        "nolex": 1.0 if r["lexical_rank"] == 0 else 0.0,
        "named": 1.0 if "named in the request" in r["why"] else 0.0,
    }
    return f

FULL = {}
cases = defaultdict(list)
for r in rows:
    cases[(r["repo"], r["case"])].append(r)
data = []
for k, cs in cases.items():
    # crank: rank among all chunks in score order as the fitter sees it is
    # approximated by rank among files
    cs.sort(key=lambda c: -c["score"])
    for i, c in enumerate(cs):
        c["crank"] = i + 1
    if not any(c["answer"] for c in cs):
        continue
    full = list(cs)
    # test files and files under docs/, examples/... are never answers by
    # the eval's definition: they stay out of the fit (the fitter halves a
    # test's weight already)
    cs = [c for c in cs if not TESTRE.search(c["src"]) and not EXCL.search(c["src"])]
    if not any(c["answer"] for c in cs):
        continue
    X = [feats(c, cs) for c in cs]
    y = [c["answer"] for c in cs]
    data.append((k[0], k[1], X, y, cs))
    # every file candidate (tests and docs too: they take ranks), for
    # "rerank": the rank the offset uses is the order by the odds
    FULL[(k[0], k[1])] = ([feats(c, full) for c in full], [id(c) for c in full])

OFF = {}
def off(x):
    return sum(v * x[k] for k, v in OFF.items())

def fit(train, names, l2=0.01, iters=25, fixed=None):
    th = [0.0] * len(names)
    if fixed:
        return fixed
    for it in range(iters):
        g = [0.0] * len(names)
        H = [[0.0] * len(names) for _ in names]
        for _, _, X, y, _ in train:
            xs = [[x[n] for n in names] for x in X]
            u = [sum(t * v for t, v in zip(th, x)) + off(X[i]) for i, x in enumerate(xs)]
            m = max(u)
            e = [math.exp(v - m) for v in u]
            Z = sum(e)
            p = [v / Z for v in e]
            mean = [sum(p[i] * xs[i][j] for i in range(len(xs))) for j in range(len(names))]
            na = sum(y)
            for i, yi in enumerate(y):
                if yi:
                    for j in range(len(names)):
                        g[j] += xs[i][j] - mean[j]
            for i in range(len(xs)):
                d = [xs[i][j] - mean[j] for j in range(len(names))]
                for a in range(len(names)):
                    pa = p[i] * d[a] * na
                    for b in range(len(names)):
                        H[a][b] += pa * d[b]
        for j in range(len(names)):
            g[j] -= l2 * th[j] * len(train)
            H[j][j] += l2 * len(train)
        step = solve(H, g)
        cur = objective(train, names, th, l2)
        a = 1.0
        while a > 1e-4:
            cand = [t + a * s for t, s in zip(th, step)]
            if objective(train, names, cand, l2) >= cur - 1e-9:
                break
            a /= 2
        th = cand
        if max(abs(a * s) for s in step) < 1e-5:
            break
    return th

def objective(train, names, th, l2):
    ll = 0.0
    for _, _, X, y, _ in train:
        u = [sum(t * x[n] for t, n in zip(th, names)) + off(x) for x in X]
        m = max(u)
        lz = m + math.log(sum(math.exp(v - m) for v in u))
        ll += sum(u[i] - lz for i, yi in enumerate(y) if yi)
    return ll - 0.5 * l2 * len(train) * sum(t * t for t in th)

def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        if abs(M[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                for k in range(c, n + 1):
                    M[r][k] -= f * M[c][k]
    return [M[i][n] / M[i][i] if abs(M[i][i]) > 1e-12 else 0.0 for i in range(n)]

def evaluate(test, names, th):
    ll, n, mrr, top1, top3, na = 0.0, 0, 0.0, 0, 0, 0
    for _, _, X, y, _ in test:
        xs = [[x[nm] for nm in names] for x in X]
        u = [sum(t * v for t, v in zip(th, x)) + off(X[i]) for i, x in enumerate(xs)]
        m = max(u)
        lz = m + math.log(sum(math.exp(v - m) for v in u))
        order = sorted(range(len(u)), key=lambda i: -u[i])
        pos = {i: k + 1 for k, i in enumerate(order)}
        for i, yi in enumerate(y):
            if yi:
                ll += u[i] - lz
                n += 1
                mrr += 1.0 / pos[i]
                top1 += pos[i] == 1
                top3 += pos[i] <= 3
    return ll / n, mrr / n, top1 / n, top3 / n

SETS = {
    "current": (["logscore", "logi1"], [1.0, -1.0]),
    "cur-i": (["logscore", "logi1"], None),
    "min": (["logi1", "relev", "lexrank", "cochange", "mention", "recency", "size", "logtok"], None),
    "min+score": (["logscore", "logi1", "relev", "lexrank", "cochange", "mention", "recency", "size", "logtok"], None),
    "min+gap": (["logi1", "relev", "lexrank", "cochange", "mention", "recency", "size", "logtok", "rel", "gapnext", "gapprev", "lexXcc", "lexXgraph", "graph", "prio"], None),
    "offset": (["relev", "lexrank", "cochange", "mention", "recency", "size", "logtok"], None),
    "offset+g": (["relev", "lexrank", "cochange", "mention", "recency", "size", "logtok", "graph", "prio"], None),
    "offset-terms": (["relev", "lexrank", "cochange", "mention", "recency", "graph", "prio"], None),
    "offset-size": (["size", "logtok"], None),
}
SETS["offset+g-floor"] = (["relev", "lexrank", "cochange", "mention", "recency", "size", "logtokF", "graph", "prio"], None)
SETS["offset+g-cap"] = (["relev", "lexrank", "cochange", "mention", "recency", "size", "logtokC", "graph", "prio"], None)

def rerank(names, th):
    """Set each candidate's logi1 to the log of 1 + its rank (0-based)
    among the request's files in the order by score x odds: the order
    the fitter sees when the odds are a score term."""
    for rp, case, X, y, cs in data:
        fx, ids = FULL[(rp, case)]
        u = [x["logscore"] + sum(t * x[n] for t, n in zip(th, names)) for x in fx]
        order = sorted(range(len(u)), key=lambda i: -u[i])
        pos = {ids[i]: k for k, i in enumerate(order)}
        for x, c in zip(X, cs):
            x["logi1"] = math.log(pos[id(c)] + 1)

def keep_ranks():
    saved = [[x["logi1"] for x in X] for _, _, X, _, _ in data]
    def restore():
        for (_, _, X, _, _), ls in zip(data, saved):
            for x, l in zip(X, ls):
                x["logi1"] = l
    return restore

want = sys.argv[2:] or list(SETS)
repos = sorted({d[0] for d in data})
# "order*": the odds fit as the order itself (offset log score, no
# rank): what a score term carrying them does to the order. "+w": then
# evaluated as the fitter weighs them, score x odds over the rank in the
# order by score x odds.
SETS["order"] = SETS["offset+g"]
SETS["order-floor"] = SETS["offset+g-floor"]
SETS["order-cap"] = SETS["offset+g-cap"]
SETS["order-terms"] = SETS["offset-terms"]
# "named": the request names the file (its path, or the one file that
# defines a qualified name it writes), apart from the mention term's
# points, which also count the names a file defines or uses
SETS["order+named"] = (SETS["offset+g"][0] + ["named"], None)
SETS["order-cap+named"] = (SETS["offset+g-cap"][0] + ["named"], None)

restore = keep_ranks()
for name in want:
    restore()
    # +rerank: refit at the ranks by the odds (fixed point); +rerank1:
    # the fit at the old ranks, evaluated at the ranks by its odds
    once = name.endswith("+rerank1")
    re_rank = once or name.endswith("+rerank")
    base = name.rsplit("+rerank", 1)[0] if re_rank else name
    # "+w" or "+wB": over (rank+1) to the power B (1 when not given)
    weigh, wpow = False, 1.0
    if "+w" in base:
        base, b = base.split("+w")
        weigh, wpow = True, float(b or 1)
    names, fixed = SETS[base]
    OFF.clear()
    if name.startswith("offset"):
        OFF.update({"logscore": 1.0, "logi1": -1.0})
    if name.startswith("order"):
        OFF.update({"logscore": 1.0})
    res = defaultdict(list)
    for r in repos:
        tr = [d for d in data if d[0] != r]
        te = [d for d in data if d[0] == r]
        th = fit(tr, names, fixed=fixed)
        if re_rank:
            # fixed point: the ranks by the fitted odds, refit, twice
            for _ in range(0 if once else 2):
                rerank(names, th)
                th = fit(tr, names, fixed=fixed)
            rerank(names, th)
        if weigh:
            rerank(names, th)
            OFF["logi1"] = -wpow
        res[r] = evaluate(te, names, th)
        OFF.pop("logi1", None) if weigh else None
        restore()
    thall = fit(data, names, fixed=fixed)
    if re_rank and not once:
        for _ in range(2):
            rerank(names, thall)
            thall = fit(data, names, fixed=fixed)
    mean = [sum(res[r][k] for r in repos) / len(repos) for k in range(4)]
    print("%-10s LORO mean ll %.3f mrr %.3f top1 %.3f top3 %.3f | %s" % (name, *mean,
          " ".join("%s:%.3f/%.2f" % (r, res[r][0], res[r][1]) for r in repos)))
    print("           all-data theta: " + " ".join("%s=%.3f" % (n, t) for n, t in zip(names, thall)))
