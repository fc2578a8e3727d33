"""``agentlab serve`` under load, against the server it replaced, measured in the same run.

Two servers run in child processes on loopback (127.0.0.1 only), each answering with the simulator:
``current`` (``agentlab.sim.serve``: uvicorn + httptools, h11 judging, around an ASGI app, issue 22) and ``baseline``
(the ``http.server`` design it replaced, kept as ``benchmarks/_stdlib_server.py``).

* sequential: the four requests of the city task (agent loop), sent again and again on ONE keep-alive
  connection for ``--seconds`` (bounded by ``--max-requests``); requests per second.
* concurrent: for each of ``--clients`` (default 200 and 500), that many clients open a connection at
  the same moment and send one request each; how many got an answer (the rest were reset or timed
  out), and the whole burst's requests per second.

* start-up: seconds from spawning ``python -m agentlab serve`` until its port accepts, best of 5, beside
  a bare interpreter that only binds a socket; the difference is the server's own.

Targets: start-up under 1 s of its own; 200 and 500 concurrent clients all answered; >= 300 requests/s sequential; the current server
no slower than the baseline (issue 22). Prints each figure and the ratio current/baseline. Every loop
is bounded in count and time; only loopback is used.
Run: ``.venv/bin/python benchmarks/serve_load.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ports import HOST, free_port, wait_listening  # noqa: E402

HEADERS = {"content-type": "application/json", "anthropic-version": "2026-10-21", "x-api-key": "bench"}
TARGET_RPS = 300
TARGET_CLIENTS = (200, 500)


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
    """The ``http.server`` design ``agentlab serve`` had before issue 22."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _stdlib_server import make_stdlib_server

    from agentlab.sim.server import Simulator

    make_stdlib_server(Simulator(), port).serve_forever()


def serve_current(port: int) -> None:
    from agentlab.sim.serve import make_server
    from agentlab.sim.server import Simulator

    server = make_server(Simulator(), port=port)
    server.quiet = True
    server.serve_forever()


def _start(kind: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)])
    wait_listening(port, proc)
    return proc, port


def _until_listening(argv: list[str], port: int, timeout: float = 60.0) -> float:
    """Seconds from spawning ``argv`` until ``port`` accepts a connection (the child is then killed)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - start < timeout:
            try:
                socket.create_connection((HOST, port), timeout=0.5).close()
                return time.perf_counter() - start
            except OSError:
                time.sleep(0.005)
        raise RuntimeError(f"{argv} did not listen on port {port} within {timeout} s")
    finally:
        proc.kill()
        proc.wait(timeout=30)


def startup(reps: int = 5) -> tuple[float, float]:
    """Best of ``reps``: a bare interpreter that binds a socket, and ``python -m agentlab serve`` (both until the port accepts)."""
    bare, serve = [], []
    for _ in range(reps):
        port = free_port()
        bare.append(
            _until_listening(
                [
                    sys.executable,
                    "-c",
                    f"import socket, time; s = socket.create_server(({HOST!r}, {port})); time.sleep(60)",
                ],
                port,
            )
        )
        port = free_port()
        serve.append(_until_listening([sys.executable, "-m", "agentlab", "serve", "--port", str(port)], port))
    return min(bare), min(serve)


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc (``None`` where there is no /proc)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def sequential(port: int, bodies: list[bytes], seconds: float, max_requests: int) -> tuple[float, int]:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    n, start = 0, time.perf_counter()
    while n < max_requests and time.perf_counter() - start < seconds:
        conn.request("POST", "/v1/messages", body=bodies[n % len(bodies)], headers=HEADERS)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        n += 1
    conn.close()
    return n / (time.perf_counter() - start), n


def concurrent(port: int, body: bytes, clients: int) -> tuple[int, float]:
    """How many of ``clients`` simultaneous one-request clients got an answer, and answers per second."""
    barrier, answered = threading.Barrier(clients + 1), []

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
    try:
        barrier.wait(timeout=30)
    except threading.BrokenBarrierError:
        pass
    start = time.perf_counter()
    for t in threads:
        t.join(timeout=60)
    return len(answered), len(answered) / (time.perf_counter() - start)


def measure(
    kind: str, bodies: list[bytes], seconds: float, max_requests: int, warmup: int, bursts: list[int]
) -> tuple[float, float | None, list[tuple[int, float]]]:
    """One server of ``kind`` in a child process: sequential req/s, server CPU ms per request, and each burst's (answered, req/s)."""
    proc, port = _start(kind)
    try:
        sequential(port, bodies, 60.0, warmup)  # warm-up, not measured (the first request imports the SDK's types)
        cpu0 = cpu_seconds(proc.pid)
        rps, n = sequential(port, bodies, seconds, max_requests)
        cpu1 = cpu_seconds(proc.pid)
        burst = [concurrent(port, bodies[0], clients) for clients in bursts]
    finally:
        proc.kill()
        proc.wait(timeout=30)
    cpu = (cpu1 - cpu0) / n * 1000 if cpu0 is not None and cpu1 is not None else None
    return rps, cpu, burst


def _load() -> str:
    """The machine's 1-minute load average (other processes share the cores: compare only figures of one run)."""
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "n/a"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short smoke run (1 s sequential, 50 clients, 1 rep)")
    p.add_argument("--seconds", type=float, default=5.0, help="sequential test length, s (default 5)")
    p.add_argument("--max-requests", type=int, default=20000, help="sequential request cap (default 20000)")
    p.add_argument(
        "--clients",
        type=int,
        nargs="+",
        default=list(TARGET_CLIENTS),
        help=f"concurrent bursts to run, clients each (default {' '.join(map(str, TARGET_CLIENTS))})",
    )
    p.add_argument(
        "--reps", type=int, default=3, help="rounds, servers alternating in order; medians are shown (default 3)"
    )
    p.add_argument("--warmup", type=int, default=20, help="requests sent before measuring (default 20)")
    p.add_argument("--serve", choices=["current", "baseline"], help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        (serve_current if args.serve == "current" else serve_baseline)(args.port)
        return 0
    bare, served = startup(1 if args.quick else 5)
    print(
        f"start-up (best of {1 if args.quick else 5}): bare interpreter {bare:.3f} s, `python -m agentlab serve` "
        f"{served:.3f} s, its own {served - bare:.3f} s (target < 1 s: {'met' if served - bare < 1 else 'NOT met'})",
        flush=True,
    )
    seconds, bursts, reps = (1.0, [50], 1) if args.quick else (args.seconds, args.clients, max(1, args.reps))
    bodies = city_requests()
    runs: dict[str, list] = {"baseline": [], "current": []}
    for rep in range(reps):  # alternate which goes first: a busy machine's load drifts
        load = _load()
        for kind in ("baseline", "current") if rep % 2 == 0 else ("current", "baseline"):
            runs[kind].append(measure(kind, bodies, seconds, args.max_requests, args.warmup, bursts))
        print(
            f"round {rep + 1} (load {load} -> {_load()}): "
            + "; ".join(
                f"{kind} {runs[kind][-1][0]:.0f} req/s "
                + " ".join(f"{c}:{r:.0f}" for c, (_, r) in zip(bursts, runs[kind][-1][2]))
                for kind in ("baseline", "current")
            ),
            flush=True,
        )
    results = {}
    for kind in ("baseline", "current"):
        rps = statistics.median(r[0] for r in runs[kind])
        cpus = [r[1] for r in runs[kind] if r[1] is not None]
        burst = [
            (min(r[2][i][0] for r in runs[kind]), statistics.median(r[2][i][1] for r in runs[kind]))
            for i in range(len(bursts))
        ]
        results[kind] = (rps, burst)
        cpu = f"{statistics.median(cpus):.2f} ms" if cpus else "n/a"
        shown = "   ".join(f"concurrent {ok}/{c} answered ({r:.0f} req/s)" for c, (ok, r) in zip(bursts, burst))
        print(
            f"{kind:9s} sequential {rps:8.1f} req/s (one keep-alive connection, city task)   "
            f"{shown}   server CPU per request {cpu}",
            flush=True,
        )
    (b_rps, b_burst), (c_rps, c_burst) = results["baseline"], results["current"]
    ratios = ", ".join(
        f"{c} concurrent {cr / max(br, 1e-9):.2f}x" for c, (_, br), (_, cr) in zip(bursts, b_burst, c_burst)
    )
    print(f"ratio current/baseline (median of {reps}): sequential {c_rps / b_rps:.2f}x, {ratios}")
    paired = [("sequential", [c[0] / max(b[0], 1e-9) for b, c in zip(runs["baseline"], runs["current"])])]
    paired += [
        (f"{n} concurrent", [c[2][i][1] / max(b[2][i][1], 1e-9) for b, c in zip(runs["baseline"], runs["current"])])
        for i, n in enumerate(bursts)
    ]
    print(
        "ratio within each round, median [min-max]: "
        + ", ".join(f"{name} {statistics.median(r):.2f}x [{min(r):.2f}-{max(r):.2f}]" for name, r in paired)
    )
    all_ok = all(ok == c for c, (ok, _) in zip(bursts, c_burst))
    print(
        f"targets: sequential >= {TARGET_RPS} req/s: {'met' if c_rps >= TARGET_RPS else 'NOT met'}; "
        f"{'/'.join(map(str, bursts))} concurrent all answered (fewest of {reps}): {'met' if all_ok else 'NOT met'}; "
        f"no slower than baseline: {'met' if c_rps >= b_rps else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
