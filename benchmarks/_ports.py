"""Servers a benchmark starts as processes of their own: a free loopback port, and waiting until one listens."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time

HOST = "127.0.0.1"


def free_port() -> int:
    """A loopback port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    """Return once ``port`` accepts a connection; a clear error, with ``proc`` killed, if it ended first or nothing
    listened within ``seconds``."""
    for _ in range(int(seconds * 10)):  # bounded: a tenth of a second a round
        if proc.poll() is not None:
            raise RuntimeError(f"a server process ended with code {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
            return
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"nothing listened on port {port} within {seconds:g} s")
