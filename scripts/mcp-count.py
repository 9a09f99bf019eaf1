#!/usr/bin/env python3
# One MCP count_tokens call on a generated text of SIZE bytes through `ctxd mcp`:
# wall and CPU time of the server for the call, and its peak RSS (VmHWM).
# KIND=code (Go-like lines, default), b64 (random base64, one long line) or a
# (one run of a single letter). CTXD names the binary, ROOT the workspace.
# TOOL=build_context sends the text as build_context's request instead.
# Usage: CTXD=./ctxd KIND=a python3 scripts/mcp-count.py 30000000
import json, subprocess, sys, time, os
size = int(sys.argv[1])
model = sys.argv[2] if len(sys.argv) > 2 else "gpt-4o"
chunk = "".join("func f%d() { return x + %d } // some words here\n" % (i, i) for i in range(2000))
import base64, random
kind = os.environ.get("KIND", "code")
if kind == "code": t = (chunk * (size // len(chunk) + 1))[:size]
elif kind == "b64": random.seed(1); t = base64.b64encode(random.randbytes(size*3//4)).decode()[:size]
else: t = "a" * size
p = subprocess.Popen([os.environ.get("CTXD", "ctxd"), "mcp", "--root", os.environ.get("ROOT", ".")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(m): p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
def recv(i):
    while True:
        l = p.stdout.readline()
        m = json.loads(l)
        if m.get("id") == i: return m
send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}); recv(1)
send({"jsonrpc":"2.0","method":"notifications/initialized","params":{}})
def hwm():
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith("VmHWM"): return l.split()[1]
def cpu():
    f = open("/proc/%d/stat" % p.pid).read().split(")")[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
print("before: hwm kB", hwm())
c0 = cpu(); t0 = time.time()
if os.environ.get("TOOL") == "build_context":
    send({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"build_context","arguments":{"request":t}}})
else:
    send({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":t,"model":model}}})
m = recv(2)
print("size MB %.1f wall %.2fs cpu %.2fs hwm kB %s" % (size/1e6, time.time()-t0, cpu()-c0, hwm()), json.dumps(m)[:300])
p.stdin.close(); p.wait()
