"""Shared parts of the proxy measurement scripts (proxy-mem.py, proxy-lat.py):
a loopback upstream that reads each whole body and answers a small chat
completion, `ctxd proxy` started in front of it, and /proc readings of the
proxy process. Loopback only; nothing here reaches the network."""
import atexit, json, os, shutil, signal, subprocess, sys, tempfile, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A script stopped by SIGTERM exits through sys.exit, so the exit handlers
# below still stop the proxy and remove its state (SIGINT already does).
if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(128 + signal.SIGTERM))


def scratch_dir(prefix):
    """A fresh directory under the temporary directory, removed when the
    script exits: normally, on an error, or stopped by SIGINT or SIGTERM."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def _stop(p):
    if p.poll() is None:
        p.terminate()
    p.wait()


def _read_body(h):
    n = 0
    if h.headers.get("Transfer-Encoding", "").lower() == "chunked":
        while True:
            k = int(h.rfile.readline().split(b";")[0], 16)
            if k == 0:
                h.rfile.readline()
                return n
            while k > 0:
                b = h.rfile.read(min(k, 1 << 20))
                n += len(b)
                k -= len(b)
            h.rfile.readline()
    left = int(h.headers.get("Content-Length", "0"))
    while left > 0:
        b = h.rfile.read(min(left, 1 << 20))
        if not b:
            break
        n += len(b)
        left -= len(b)
    return n


def start_upstream(model="gpt-4o"):
    """Starts the loopback upstream; returns (server, received) where received
    lists the body bytes of every request it answered."""
    received = []
    out = json.dumps({"id": "x", "object": "chat.completion", "model": model,
                      "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                      "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}).encode()

    class Upstream(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            received.append(_read_body(self))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    up = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=up.serve_forever, daemon=True).start()
    return up, received


def start_proxy(up, extra=(), env=None):
    """Starts `ctxd proxy` (the binary named by $CTXD) on a free loopback port
    in front of up, with a fresh state directory; returns (process, host, port)
    once it listens. At the script's exit the proxy is stopped (if the script
    did not stop it) and its state directory removed, also after an error."""
    state = scratch_dir("ctxd-proxy-")
    p = subprocess.Popen([os.environ.get("CTXD", "ctxd"), "proxy", "--upstream", "http://127.0.0.1:%d" % up.server_port,
                          "--listen", "127.0.0.1:0", "--state-dir", state] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    # Registered after the directory's removal, so it runs before it.
    atexit.register(_stop, p)
    line = p.stdout.readline().decode()
    if "http://" not in line:
        raise RuntimeError("ctxd proxy did not start (exit %s): run it by hand to see why" % p.wait())
    addr = line.split("http://")[1].split()[0]
    host, port = addr.rsplit(":", 1)
    return p, host, int(port)


def status(pid):
    """The fields of /proc/PID/status (values without units)."""
    d = {}
    for l in open("/proc/%d/status" % pid):
        k, v = l.split(":", 1)
        d[k] = v.split()[0] if v.split() else ""
    return d


def cpu(pid):
    """User plus system CPU seconds of the process so far."""
    f = open("/proc/%d/stat" % pid).read().split(")")[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
