#!/usr/bin/env python3
# p50/p95 of `ctxd proxy`'s own overhead (proxy_overhead_us from its JSON log,
# --log-file) on TURNS chat requests that grow by two messages each, built from
# a SWE-agent trajectory's history repeated until the body is about 600 KB
# (~150k tokens), sent to a loopback upstream through `ctxd proxy
# --context-window 200000`. Issue 26's bar: p95 <= 30 ms on a 150k-token
# request. GOMEMLIMIT set in the environment turns the proxy's heap goal off.
# Usage: CTXD=./ctxd python3 scripts/proxy-lat.py TRAJ.traj 30
import json, os, subprocess, sys, tempfile, threading, time, http.client, socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
traj, turns = sys.argv[1], int(sys.argv[2])
class Up(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0")); self.rfile.read(n)
        b = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
        self.send_response(200); self.send_header("Content-Type","application/json"); self.send_header("Content-Length",str(len(b))); self.end_headers(); self.wfile.write(b)
up = ThreadingHTTPServer(("127.0.0.1",0), Up); threading.Thread(target=up.serve_forever, daemon=True).start()
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
sock = socket.socket(); sock.bind(("127.0.0.1",0)); port = sock.getsockname()[1]; sock.close()
st = tempfile.mkdtemp(); logf = os.path.join(st, "proxy.log")
env = dict(os.environ, CTXD_STATE_DIR=st)
p = subprocess.Popen([os.environ["CTXD"], "proxy", "--listen", f"127.0.0.1:{port}", "--upstream", f"http://127.0.0.1:{up.server_port}", "--context-window", "200000", "--log-file", logf], env=env, stderr=subprocess.DEVNULL)
for _ in range(100):
    try: socket.create_connection(("127.0.0.1",port),0.2).close(); break
    except OSError: time.sleep(0.1)
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
