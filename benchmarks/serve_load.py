"""``agentlab serve`` under load, against the previous server design measured in the same run.

Two servers run in child processes on loopback (127.0.0.1 only), each answering with the simulator:
``current`` (``agentlab.sim.serve``: listen backlog 1024, TCP_NODELAY, one write per answer) and
``baseline`` (the design before issue 8: backlog 5, Nagle on, headers and body written apart).

* sequential: the four requests of the city task (agent loop), sent again and again on ONE keep-alive
  connection for ``--seconds`` (bounded by ``--max-requests``); requests per second.
* concurrent: ``--clients`` clients open a connection at the same moment and send one request each;
  how many got an answer (the rest were reset or timed out).

Targets (issue 8): 200 concurrent clients all answered; >= 300 requests/s sequential. Prints each
figure and the ratio current/baseline. Every loop is bounded in count and time; only loopback is used.
Run: ``.venv/bin/python benchmarks/serve_load.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from socketserver import ThreadingMixIn

HOST = "127.0.0.1"
HEADERS = {"content-type": "application/json", "anthropic-version": "2026-10-21", "x-api-key": "bench"}
TARGET_RPS = 300
TARGET_CLIENTS = 200


def city_requests() -> list[bytes]:
    """The request bodies of one run of the city task (captured from the agent loop on the simulator)."""
    import httpx2

    import agentlab

    bodies: list[bytes] = []
    client = agentlab.connect("sim", quiet=True)
    sim = client.agentlab_simulator

    def spy(request: httpx2.Request) -> httpx2.Response:
        bodies.append(request.content)
        return sim.handle(request)

    client._client = httpx2.Client(transport=httpx2.MockTransport(spy))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp))
    return bodies


def serve_baseline(port: int) -> None:
    """The server as it was before issue 8 (backlog 5, Nagle on, two writes per answer)."""
    import httpx2

    from agentlab.sim.server import Simulator

    sim, lock = Simulator(), threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with lock:
                r = sim.handle(httpx2.Request("POST", f"http://{HOST}:{port}{self.path}", headers=dict(self.headers), content=body))
            self.send_response(r.status_code)
            self.send_header("content-length", str(len(r.content)))
            self.end_headers()
            self.wfile.write(r.content)

        def log_message(self, *args) -> None:
            pass

    class Server(ThreadingMixIn, HTTPServer):
        daemon_threads = True

    Server((HOST, port), Handler).serve_forever()


def serve_current(port: int) -> None:
    from agentlab.sim.serve import make_server
    from agentlab.sim.server import Simulator

    server = make_server(Simulator(), port=port)
    server.quiet = True
    server.serve_forever()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _start(kind: str) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{kind} server did not start on port {port}")


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc (``None`` where there is no /proc)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def sequential(port: int, bodies: list[bytes], seconds: float, max_requests: int) -> tuple[float, int]:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    n, start = 0, time.perf_counter()
    while n < max_requests and time.perf_counter() - start < seconds:
        conn.request("POST", "/v1/messages", body=bodies[n % len(bodies)], headers=HEADERS)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        n += 1
    conn.close()
    return n / (time.perf_counter() - start), n


def concurrent(port: int, body: bytes, clients: int) -> int:
    barrier, answered = threading.Barrier(clients), []

    def one() -> None:
        try:
            barrier.wait(timeout=30)
            conn = http.client.HTTPConnection(HOST, port, timeout=20)
            conn.request("POST", "/v1/messages", body=body, headers=HEADERS)
            response = conn.getresponse()
            if response.status == 200 and json.loads(response.read())["type"] == "message":
                answered.append(1)
            conn.close()
        except (OSError, threading.BrokenBarrierError, http.client.HTTPException):
            pass

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return len(answered)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short smoke run (1 s sequential, 50 clients)")
    p.add_argument("--seconds", type=float, default=5.0, help="sequential test length, s (default 5)")
    p.add_argument("--max-requests", type=int, default=20000, help="sequential request cap (default 20000)")
    p.add_argument("--clients", type=int, default=TARGET_CLIENTS, help=f"concurrent clients (default {TARGET_CLIENTS})")
    p.add_argument("--serve", choices=["current", "baseline"], help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        (serve_current if args.serve == "current" else serve_baseline)(args.port)
        return 0
    seconds, clients = (1.0, 50) if args.quick else (args.seconds, args.clients)
    bodies = city_requests()
    results = {}
    for kind in ("baseline", "current"):
        proc, port = _start(kind)
        try:
            cpu0 = cpu_seconds(proc.pid)
            rps, n = sequential(port, bodies, seconds, args.max_requests)
            cpu1 = cpu_seconds(proc.pid)
            ok = concurrent(port, bodies[0], clients)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        results[kind] = (rps, ok)
        cpu = f"{(cpu1 - cpu0) / n * 1000:.2f} ms" if cpu0 is not None and cpu1 is not None else "n/a"
        print(f"{kind:9s} sequential {rps:8.1f} req/s (one keep-alive connection, city task)   "
              f"concurrent {ok}/{clients} answered   server CPU per request {cpu}", flush=True)
    (b_rps, b_ok), (c_rps, c_ok) = results["baseline"], results["current"]
    print(f"ratio current/baseline: sequential {c_rps / b_rps:.1f}x, concurrent answered {c_ok}/{max(b_ok, 1)} = {c_ok / max(b_ok, 1):.1f}x")
    print(f"targets: sequential >= {TARGET_RPS} req/s: {'met' if c_rps >= TARGET_RPS else 'NOT met'}; "
          f"{clients} concurrent all answered: {'met' if c_ok == clients else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
