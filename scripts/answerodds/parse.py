#!/usr/bin/env python3
"""(see clogit.py) Parse eval --dump files into one row per (case, candidate file) with the
score terms, rank, tokens, and whether the file is an answer file.
usage: parse.py DUMPROOT BUDGET > rows.tsv   (DUMPROOT/dump-<repo>/...)"""
import os, re, sys, json

root, budget = sys.argv[1], sys.argv[2]
NONFILE = {"git:log", "deps", "structure"}
TERMS = ["priority_base", "task_relevance", "recency", "mention", "relevance", "lexical_rank",
         "graph_rank", "cochange_rank", "custom", "size_penalty", "answer_odds"]
out = []
for d in sorted(os.listdir(root)):
    if not d.startswith("dump-"):
        continue
    repo = d[5:]
    for fn in sorted(os.listdir(os.path.join(root, d))):
        if not fn.endswith("-%s.txt" % budget):
            continue
        idx, commit = fn.split("-")[0], fn.split("-")[1]
        lines = open(os.path.join(root, d, fn)).read().split("\n")
        answers = {}
        sec = None
        cands = []
        i = 0
        while i < len(lines):
            l = lines[i]
            if l.startswith("answer:"):
                sec = "a"
            elif l.startswith("included (score order):"):
                sec = "i"
            elif l.startswith("skipped:"):
                sec = "s"
            elif l.startswith("bm25 whole files"):
                sec = None
            elif sec == "a" and l.startswith("  ") and not l.startswith("    "):
                m = re.match(r"  (\S+) rank=(\d+) bm25rank=(\d+) view=(\S+) bm25=\S+ seen=\[(.*?)\] hidden=\[(.*?)\]", l)
                if m:
                    answers[m.group(1)] = dict(rank=int(m.group(2)), view=m.group(4),
                                               hidden=len(m.group(6).split()) if m.group(6) else 0)
            elif sec in ("i", "s") and l.strip() and not l.startswith("      "):
                if sec == "i":
                    m = re.match(r"[* ] (\S+)\s+(\S+)\s+(\d+)/(\d+)\s+score\s+(-?[\d.]+)\s*(.*)", l)
                    if not m:
                        print("skip", fn, repr(l[:120]), file=sys.stderr)
                        i += 1
                        continue
                    src, view, tok, orig, score, why = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5)), m.group(6)
                    full = orig if orig > 0 else tok
                else:
                    m = re.match(r"  (\S+)\s+(\d+) score\s+(-?[\d.]+)\s*(.*)", l)
                    src, view, tok, score, why = m.group(1), "skipped", int(m.group(2)), float(m.group(3)), m.group(4)
                    full = tok
                tl = lines[i + 1].strip()
                terms = {}
                for p in tl.split():
                    k, v = p.split("=")
                    terms[k] = float(v)
                i += 1
                cands.append(dict(src=src, view=view, tokens=full, shown=tok if sec == "i" else 0,
                                  score=score, why=why, terms=terms))
            i += 1
        # the fit's offset is the score without the answer odds (the term
        # that multiplies the others' sum by the odds this fit makes)
        for c in cands:
            c["score"] -= c["terms"].get("answer_odds", 0.0)
        # score order over included+skipped
        cands.sort(key=lambda c: -c["score"])
        for k, c in enumerate(cands):
            c["arank"] = k
        files = [c for c in cands if c["src"] not in NONFILE]
        for r, c in enumerate(files):
            a = answers.get(c["src"])
            row = dict(repo=repo, case=idx, commit=commit, src=c["src"], frank=r + 1, arank=c["arank"], n=len(files),
                       score=c["score"], tokens=c["tokens"], view=c["view"], why=c["why"],
                       answer=1 if a else 0, hidden=a["hidden"] if a else 0, nanswer=len(answers))
            for t in TERMS:
                row[t.replace("task_relevance", "task")] = c["terms"].get(t, 0.0)
            out.append(row)
json.dump(out, sys.stdout)
