"""How the gateway is served: connections without Nagle's delay, and the load benchmark as an instructor runs it."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest
from gateway_room import run_async

from agentlab.gateway.serve import listen


def _nodelay_of_an_accepted_connection(server_socket: socket.socket) -> int:
    async def main() -> int:
        seen: list[int] = []

        async def handle(reader, writer):
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=server_socket)
        host, port = server_socket.getsockname()[:2]
        _, writer = await asyncio.open_connection(host, port)
        for _ in range(200):  # bounded: the handler runs within a few loop turns
            if seen:
                break
            await asyncio.sleep(0.005)
        writer.close()
        server.close()
        return seen[0]

    return run_async(main)


def test_the_gateways_connections_send_without_nagles_delay_where_create_servers_would_not():
    assert _nodelay_of_an_accepted_connection(listen("127.0.0.1", 0)) != 0
    assert _nodelay_of_an_accepted_connection(socket.create_server(("127.0.0.1", 0))) == 0, (
        "asyncio now sets TCP_NODELAY on create_server's sockets too: listen() may go"
    )


@pytest.mark.slow
def test_the_load_benchmark_reports_added_latency_and_a_class_at_once(capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import gateway_load

    assert gateway_load.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "added" in out and "20 students at once: 60/60 answered 200" in out
