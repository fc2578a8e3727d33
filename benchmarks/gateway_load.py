"""The class gateway's cost: latency it adds to a request, and requests per second with a class at once.

Upstream is the simulator served over HTTP on loopback (``agentlab serve``'s server), so both paths cross
HTTP the same way; the gateway (``agentlab.gateway``) forwards to it. ``--layout processes`` (the default) runs
the simulator and the gateway each in a process of its own, as a class runs them (``agentlab gateway serve`` is
its own process, and the real upstream is not in it); ``--layout threads`` runs both on threads of this
process, where the client, the gateway and the simulator share one interpreter lock and its hand-overs count
as the gateway's latency too.

* added latency: the same ``POST /v1/messages`` (the city task's first request) sent ``--requests`` times
  on one keep-alive connection, directly and through the gateway, in alternating blocks; the median of each,
  and the difference (what the gateway adds: auth, the budget check and ledger writes, the forward).
* a class at once: ``--students`` students, each on its own connection with its own token, send
  ``--each`` requests as fast as they are answered; requests per second, and whether every one got a 200.

Target (issue 44): at most 2 ms added at the median; every request of 100 students answered. Prints each
figure and "within target" or "over target". Loopback only; every loop is bounded.
Run: ``.venv/bin/python benchmarks/gateway_load.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _ports import free_port, wait_listening  # noqa: E402

from agentlab.gateway.app import Gateway  # noqa: E402
from agentlab.gateway.serve import Running  # noqa: E402
from agentlab.gateway.store import Store  # noqa: E402

TARGET_ADDED_MS = 2.0
BODY = json.dumps(
    {"model": "claude-haiku-4-5", "max_tokens": 300, "messages": [{"role": "user", "content": "Temperature in Paris?"}]}
).encode()


def _post(conn: http.client.HTTPConnection, key: str) -> int:
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": key}
    conn.request("POST", "/v1/messages", body=BODY, headers=headers)
    answer = conn.getresponse()
    answer.read()
    return answer.status


def _connect(url: str) -> http.client.HTTPConnection:
    host, port = url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=60)


def added_latency(direct: str, gateway: str, key: str, n: int) -> tuple[float, float]:
    """Median ms of one request sent directly and through the gateway (alternating blocks of 10)."""
    times: dict[str, list[float]] = {"direct": [], "gateway": []}
    conns = {"direct": (_connect(direct), "bench"), "gateway": (_connect(gateway), key)}
    for which in conns:  # warm both paths
        for _ in range(20):
            _post(*conns[which])
    for block in range(max(1, n // 10)):
        for which in ("direct", "gateway") if block % 2 == 0 else ("gateway", "direct"):
            conn, k = conns[which]
            for _ in range(10):
                t = time.perf_counter()
                assert _post(conn, k) == 200
                times[which].append((time.perf_counter() - t) * 1000)
    return statistics.median(times["direct"]), statistics.median(times["gateway"])


def class_at_once(gateway: str, tokens: list[str], each: int) -> tuple[float, int, int]:
    """(requests per second, answered 200, sent) with every student sending ``each`` requests at once."""
    statuses: list[int] = []
    lock, start = threading.Lock(), threading.Barrier(len(tokens) + 1)

    def student(token: str) -> None:
        conn = _connect(gateway)
        start.wait(30)
        mine = [_post(conn, token) for _ in range(each)]
        with lock:
            statuses.extend(mine)

    threads = [threading.Thread(target=student, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    start.wait(30)
    t0 = time.perf_counter()
    for t in threads:
        t.join(300)
    seconds = time.perf_counter() - t0
    return len(statuses) / seconds, statuses.count(200), len(tokens) * each


@contextlib.contextmanager
def _on_threads(store: Store):
    """``(direct URL, gateway URL)``: the simulator's server and the gateway on threads of this process."""
    from agentlab.gateway.serve import api_upstream
    from agentlab.sim.serve import make_server
    from agentlab.sim.server import Simulator

    upstream = make_server(Simulator(), 0)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    direct = "http://{}:{}".format(*upstream.server_address[:2])
    gateway = Running(Gateway(store, api_upstream(), direct, "bench", rpm=10**6))
    try:
        yield direct, gateway.url
    finally:
        gateway.stop()
        upstream.shutdown()


_SIM = "import sys; from agentlab.sim.serve import serve; serve(int(sys.argv[1]))"
_GATEWAY = (
    "import sys; from agentlab.gateway.serve import make_gateway, serve; "
    "serve(make_gateway(sys.argv[1], sys.argv[2], rpm=10**6), '127.0.0.1', int(sys.argv[3]))"
)


@contextlib.contextmanager
def _in_processes(store: Store):
    """``(direct URL, gateway URL)``: the simulator's server and ``agentlab gateway serve``'s code, each a process,
    the gateway forwarding to the simulator's URL as it would to Anthropic's (the same transport and limits)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "AGENTLAB_GATEWAY_KEY": "bench", "PYTHONPATH": str(root)}
    env.pop("ANTHROPIC_API_KEY", None)
    sim_port, gw_port = free_port(), free_port()
    direct, gateway = f"http://127.0.0.1:{sim_port}", f"http://127.0.0.1:{gw_port}"
    procs = [subprocess.Popen([sys.executable, "-c", _SIM, str(sim_port)], env=env, stdout=subprocess.DEVNULL)]
    try:
        wait_listening(sim_port, procs[0])
        procs.append(subprocess.Popen([sys.executable, "-c", _GATEWAY, str(store.path), direct, str(gw_port)],
                                      env=env, stdout=subprocess.DEVNULL))  # fmt: skip
        wait_listening(gw_port, procs[1])
        yield direct, gateway
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=400)
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--each", type=int, default=10)
    p.add_argument("--quick", action="store_true", help="40 requests, 20 students x 3")
    p.add_argument("--layout", choices=("processes", "threads"), default="processes",
                   help="simulator and gateway in processes of their own (default, as a class runs them) or on "
                        "threads of this one")  # fmt: skip
    args = p.parse_args(argv)
    if args.quick:
        args.requests, args.students, args.each = 40, 20, 3
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.sqlite")
        tokens = [store.add_student(f"s{i:03}", 1000, 1000) for i in range(max(args.students, 1))]
        with (_in_processes if args.layout == "processes" else _on_threads)(store) as (direct, gateway):
            d, g = added_latency(direct, gateway, tokens[0], args.requests)
            rps, ok, sent = class_at_once(gateway, tokens, args.each)
    added = g - d
    print(f"gateway load ({args.layout}): {args.requests} requests each way; {args.students} students x "
          f"{args.each} at once")  # fmt: skip
    verdict = "within target" if added <= TARGET_ADDED_MS else "over target"
    print(f"median latency: direct {d:.2f} ms, through the gateway {g:.2f} ms, added {added:.2f} ms: "
          f"{verdict} (<= {TARGET_ADDED_MS:g} ms)")  # fmt: skip
    verdict = "within target" if ok == sent else "over target"
    print(f"{args.students} students at once: {ok}/{sent} answered 200, {rps:.0f} requests/s: {verdict} (all answered)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
