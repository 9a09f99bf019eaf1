#!/usr/bin/env python3
# Peak memory and time of `ctxd proxy` on large or many-message requests.
# Starts a loopback upstream (answers a small chat completion after reading the
# whole body) and `ctxd proxy` in front of it, sends CONC bodies at once and
# prints, per run: the proxy's VmHWM (peak RSS) before and after, the growth
# over the body bytes in flight, wall and CPU time of the proxy, the statuses
# and the bytes the upstream received.
#
# SHAPE=user  one user message of SIZE bytes (critical text, kept)
# SHAPE=tool  an assistant tool call and a tool output of SIZE bytes
# SHAPE=many  SIZE small chat messages (user/assistant turns, ~40 bytes each)
# LINES=same  the text of user and tool is one line repeated (default: every
#             line different)
# HANGUP=S    (SHAPE=many) send the body, hang up after S seconds and sample
#             the proxy's CPU each 0.1 s for 3 s: when does the work stop?
# CTXD names the binary; extra arguments after SIZE go to `ctxd proxy`.
# Usage: CTXD=./ctxd SHAPE=user CONC=4 python3 scripts/proxy-mem.py 8388608
import http.client, json, os, socket, sys, threading, time
from proxyharness import cpu, start_proxy, start_upstream, status

size = int(sys.argv[1])
extra = sys.argv[2:]
shape = os.environ.get("SHAPE", "user")
conc = int(os.environ.get("CONC", "1"))
hangup = float(os.environ.get("HANGUP", "0"))
model = os.environ.get("MODEL", "gpt-4o")


def body(salt):
    if shape == "many":
        msgs = [{"role": "system", "content": "You are helpful. %d" % salt}]
        for i in range(size):
            msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": "message %d says a few words" % i})
        return json.dumps({"model": model, "messages": msgs}).encode()
    if os.environ.get("LINES") == "same":
        text = ("line %d of the text with some words in it\n" % salt) * (size // 40 + 1)
    else:  # every line different, as in a real log or file
        text = "".join("%d: line %d of the text with some words\n" % (salt, i) for i in range(size // 36 + 1))
    text = text[:size]
    msgs = [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "go %d" % salt}]
    if shape == "tool":
        msgs.append({"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}]})
        msgs.append({"role": "tool", "tool_call_id": "c1", "content": text})
        msgs.append({"role": "user", "content": "and now?"})
    else:
        msgs.append({"role": "assistant", "content": "ok"})
        msgs.append({"role": "user", "content": text})
    return json.dumps({"model": model, "messages": msgs}).encode()


up, received = start_upstream(model)
p, host, port = start_proxy(up, ["--log-level", "warn"] + extra)
addr = "%s:%d" % (host, port)
bodies = [body(i) for i in range(conc)]
statuses = []
start = int(status(p.pid)["VmHWM"])


def post(b):
    c = http.client.HTTPConnection(host, int(port), timeout=600)
    c.request("POST", "/v1/chat/completions", body=b, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    statuses.append(r.status)
    c.close()


# A small request first: what every request needs once (tokenizer tables)
# is the constant, apart from what grows with the body.
warm = json.dumps({"model": model, "messages": [{"role": "user", "content": "hello"}]}).encode()
post(warm)
statuses.clear()
base = int(status(p.pid)["VmHWM"])
c0, t0 = cpu(p.pid), time.time()
if hangup > 0:
    s = socket.create_connection((host, int(port)))
    b = bodies[0]
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (addr.encode(), len(b)) + b)
    time.sleep(hangup)
    s.close()
    before = cpu(p.pid) - c0
    last, samples = cpu(p.pid), []
    for i in range(30):
        time.sleep(0.1)
        now = cpu(p.pid)
        samples.append(now - last)
        last = now
    busy = [i for i, d in enumerate(samples) if d > 0.02]
    stop = (busy[-1] + 1) * 0.1 if busy else 0.0
    print("shape many n=%d body %.1f MB: hung up after %.1fs (proxy CPU until then %.2fs); proxy CPU per 0.1s after: %s; "
          "busy until %.1fs after hang-up; upstream got %d requests" %
          (size, len(b) / 1e6, hangup, before, " ".join("%.2f" % d for d in samples), stop, len(received) - 1))
else:
    ts = [threading.Thread(target=post, args=(b,)) for b in bodies]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    st = status(p.pid)
    hwm = int(st["VmHWM"])
    inflight = sum(len(b) for b in bodies)
    print("shape %s size %d conc %d body %.1f MB each: statuses %s upstream got %s; wall %.2fs proxy cpu %.2fs; "
          "VmHWM %d kB at start, %d after a small request (constant %.1f MB), %d kB after: growth %.1f MB = %.2fx the %.1f MB in flight" %
          (shape, size, conc, len(bodies[0]) / 1e6, sorted(statuses), sorted(received[1:]), time.time() - t0, cpu(p.pid) - c0,
           start, base, (base - start) / 1024, hwm, (hwm - base) / 1024, (hwm - base) * 1024 / inflight, inflight / 1e6))
p.terminate()
p.wait()
up.shutdown()
