#!/usr/bin/env python3
"""P(answer) by the fitter's rank, the score ratio and the weight's share of the highest weight
(BENCHMARKS.md "hfit (2026-11-30"); then P(the first file is an answer) by how close the
second's score is. Reads parse.py's output:  python3 share.py rows.json"""
import json, math, sys, re
from collections import defaultdict
rows = json.load(open(sys.argv[1]))
EXCL = re.compile(r"(^|/)(docs|examples?|testdata|fixtures|tests?|__tests__)/")
TESTRE = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.[jt]sx?$|(^|/)conftest\.py$")
FIT = dict(relevance=0.556/100, lexical_rank=0.083/300, cochange_rank=0.399/150, graph_rank=-0.252/150, mention=0.181/100, recency=0.086/100, size_penalty=-0.164/100, priority_base=-0.298/100)
def odds(r):
    x = 0.373*math.log(max(r["tokens"],1))
    for k,v in FIT.items(): x += v*r.get(k,0)
    return math.exp(x)
cases = defaultdict(list)
for r in rows: cases[(r["repo"], r["case"])].append(r)
el=[]
for k, cs in cases.items():
    best = max(c["score"] for c in cs)
    for c in cs:
        c["ratio"] = c["score"]/best
        c["w"] = max(c["score"],1)/(c["arank"]+1)*odds(c)
        c["test"] = bool(TESTRE.search(c["src"]))
        c["excl"] = bool(EXCL.search(c["src"]))
    wtop = max(c["w"] for c in cs if not c["excl"])
    for c in cs:
        c["wr"] = c["w"]/wtop
        if not c["test"] and not c["excl"]: el.append(c)
print("cases", len(cases), "eligible", len(el), "answers", sum(c["answer"] for c in el))
def tab(title, key, bs):
    print(title)
    for lo,hi in bs:
        xs=[c for c in el if lo<=key(c)<hi]
        if xs:
            a=sum(c["answer"] for c in xs); print("  [%g,%g) n=%5d a=%4d P=%.3f  mean key %.3f" % (lo,hi,len(xs),a,a/len(xs), sum(key(c) for c in xs)/len(xs)))
tab("by arank (fitter i)", lambda c:c["arank"], [(0,1),(1,2),(2,3),(3,4),(4,6),(6,9),(9,13),(13,20),(20,40),(40,999)])
tab("by score ratio", lambda c:c["ratio"], [(0,.2),(.2,.3),(.3,.4),(.4,.5),(.5,.6),(.6,.7),(.7,.8),(.8,.9),(.9,.999),(.999,2)])
tab("by weight ratio w/wtop", lambda c:c["wr"], [(0,.01),(.01,.02),(.02,.05),(.05,.1),(.1,.2),(.2,.3),(.3,.5),(.5,.7),(.7,.999),(.999,1e9)])

# the first file by the second's score over its own
res=defaultdict(lambda:[0,0,0,0])
for k, cs in cases.items():
    cs.sort(key=lambda c:c["arank"])
    for c in cs:
        c["w"] = max(c["score"],1)/(c["arank"]+1)*odds(c)
        if TESTRE.search(c["src"]): c["w"]/=2
    ws = sorted(cs, key=lambda c:-c["w"])
    if len(ws)<2: continue
    t, s = ws[0], ws[1]
    if EXCL.search(t["src"]) or TESTRE.search(t["src"]): continue
    # margin: second's score over top's score
    m = s["score"]/t["score"]
    b = min(int(m*10),9) if m<1 else 10
    res[b][0]+=1; res[b][1]+=t["answer"]; res[b][2]+= s["answer"] if not (TESTRE.search(s["src"]) or EXCL.search(s["src"])) else 0
    res[b][3]+= s["w"]/t["w"]
for b in sorted(res):
    n,a,a2,wr=res[b]; print("second/top score %.1f-%.1f n=%4d P(top)=%.3f P(second)=%.3f mean wr2 %.2f" % (b/10,(b+1)/10,n,a/n,a2/n,wr/n))
