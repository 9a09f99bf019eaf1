#!/usr/bin/env python3
# p50/p95 of `ctxd proxy`'s own overhead (proxy_overhead_us from its JSON log,
# --log-file) on TURNS chat requests that grow by two messages each, built from
# a SWE-agent trajectory's history repeated until the body is about 600 KB
# (~150k tokens), sent to a loopback upstream through `ctxd proxy
# --context-window 200000`. Issue 26's bar: p95 <= 30 ms on a 150k-token
# request. GOMEMLIMIT set in the environment turns the proxy's heap goal off.
# Usage: CTXD=./ctxd python3 scripts/proxy-lat.py TRAJ.traj 30
import json, os, sys, time, http.client
from proxyharness import scratch_dir, start_proxy, start_upstream
traj, turns = sys.argv[1], int(sys.argv[2])
up, _ = start_upstream()
h = json.load(open(traj))["history"]
msgs = []
for m in h:
    role = m.get("role"); c = m.get("content")
    if isinstance(c, list): c = "".join(x.get("text","") for x in c if isinstance(x, dict))
    if not isinstance(c, str) or not c: continue
    if role not in ("system","user","assistant"): role = "user"
    msgs.append({"role": role, "content": c})
# repeat the trajectory's messages until ~600 KB (about 150k tokens)
base = list(msgs); k = 1
while sum(len(m["content"]) for m in msgs) < 600000:
    msgs += [dict(m) for m in base[1:]]
    k += 1
# make role order valid: alternate after system? chat accepts any order; keep.
logf = os.path.join(scratch_dir("proxy-lat-"), "proxy.log")
p, _, port = start_proxy(up, ["--context-window", "200000", "--log-file", logf])
n = len(msgs); start = n - turns*2
walls = []
for t in range(turns):
    body = json.dumps({"model":"gpt-4o","messages":msgs[:start+2*t+2]}).encode()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.time(); c.request("POST","/v1/chat/completions", body, {"Content-Type":"application/json","Authorization":"Bearer x"}); r = c.getresponse(); r.read(); walls.append(time.time()-t0); c.close()
p.terminate(); p.wait()
ov = []
for line in open(logf):
    try: d = json.loads(line)
    except: continue
    if "proxy_overhead_us" in d: ov.append(d["proxy_overhead_us"]/1000)
ov.sort(); walls.sort()
q = lambda xs, f: xs[min(len(xs)-1, int(f*len(xs)))]
print(f"bytes {len(body)} requests {len(ov)} overhead p50 {q(ov,.5):.1f} ms p95 {q(ov,.95):.1f} ms max {ov[-1]:.1f}; wall p50 {q(walls,.5)*1000:.1f} ms")
