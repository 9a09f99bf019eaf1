#!/usr/bin/env python3
# Request latency of `BIN serve` over stdio (LSP framing), the binaries
# interleaved round by round: each round starts each daemon (an empty
# state directory), initializes ROOT, then times N repeats of each request
# after one warm-up. Prints the median and the 10th percentile per binary.
# Usage: python3 scripts/daemon-latency.py ROOT ROUNDS BIN...
import json, os, shutil, subprocess, sys, tempfile, time, statistics

def start(bin_, root):
    state = tempfile.mkdtemp()
    env = dict(os.environ, CTXD_STATE_DIR=state)
    p = subprocess.Popen([bin_, "serve", "--root", root, "--log-level", "error"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    p.state = state
    return p

def send(p, obj):
    b = json.dumps(obj).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    p.stdin.flush()

def recv(p):
    n = None
    while True:
        line = p.stdout.readline()
        if not line:
            raise EOFError
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            n = int(v)
    return p.stdout.read(n)

nid = 0
def call(p, method, params):
    global nid
    nid += 1
    send(p, {"jsonrpc": "2.0", "id": nid, "method": method, "params": params})
    while True:
        body = recv(p)
        m = json.loads(body)
        if m.get("id") == nid:
            if "error" in m:
                raise RuntimeError(m["error"])
            return len(body)

root, rounds, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
big = ("lorem ipsum dolor sit amet " * 40000)  # ~1 MB of text
cases = [
    ("countTokens small", "ctx/countTokens", {"text": "hello world"}, 200),
    ("countTokens 1 MB", "ctx/countTokens", {"text": big}, 20),
    ("status", "ctx/status", {}, 200),
    ("buildPrompt repeat", "ctx/buildPrompt", {"user_request": "how does the router match a path with parameters"}, 20),
]
res = {(b, c[0]): [] for b in bins for c in cases}
size = {}
for r in range(rounds):
    for b in bins:
        p = start(b, root)
        call(p, "initialize", {"root": root})
        for name, m, params, n in cases:
            size[name] = call(p, m, params)  # warm
            for _ in range(n):
                t = time.perf_counter()
                call(p, m, params)
                res[(b, name)].append((time.perf_counter() - t) * 1000)
        call(p, "shutdown", None)
        send(p, {"jsonrpc": "2.0", "method": "exit"})
        p.stdin.close(); p.wait()
        shutil.rmtree(p.state, ignore_errors=True)
print("load", open("/proc/loadavg").read().split()[:3])
for name, *_ in cases:
    row = [f"{name} ({size[name]} B reply)"]
    for b in bins:
        xs = res[(b, name)]
        row.append(f"{os.path.basename(b)}: median {statistics.median(xs):.3f} ms, p10 {sorted(xs)[len(xs)//10]:.3f}")
    print(" | ".join(row))
