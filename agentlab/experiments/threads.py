"""Notebook 09: the same agent run with and without a server-side message thread.

Without a thread the client re-sends the whole history on every turn (notebook 02b's re-prefill). With
one (beta ``message-threads-2026-08-12``) the first request says ``thread: {"type": "create"}`` and
sends everything; each later request says ``{"type": "continue", "previous_message_id": <last reply's
id>}`` and sends only the new messages (the tool results), without ``system`` and ``tools``, which the
server keeps (https://platform.claude.com/docs/en/build-with-claude/message-threads; the installed
SDK's ``anthropic/lib/threads/_thread_state.py``). The server re-reads the whole conversation, so the
model sees, and ``usage.input_tokens`` bills, the same prompt either way: what moves is the bytes on
the wire, not the re-prefill.

``thread_pair`` runs both on fresh simulated clients and returns one row per turn for each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BETA = "message-threads-2026-08-12"
"""The beta the installed SDK's tool runner sends for threads."""
CREATE_ONLY = ("system", "tools")
"""Fields a continued thread takes from the server and does not send again."""


@dataclass
class TurnWire:
    """One model call as the client sent it and the API billed it."""

    turn: int
    """1-based model call."""
    messages_sent: int
    """Messages in the request body the client sent (the whole history without a thread)."""
    bytes_sent: int
    """Size of the JSON body the client sent, in bytes (UTF-8)."""
    input_tokens: int
    """``usage.input_tokens`` the API billed for the call."""


class Threaded:
    """Sends a loop's requests over one message thread: the first creates it, each later one continues it with
    only the messages the server does not hold yet (``create``, handed to the loop in a ``client.StandIn``).
    Keeps a :class:`TurnWire` per call in ``turns``."""

    def __init__(self, client: Any, *, thread: bool = True) -> None:
        self.client = client
        """The ``anthropic.Anthropic`` client (simulated or live) the requests go to."""
        self.thread = thread
        """False: send every request in full, as ``run_agent`` does (the comparison run)."""
        self.turns: list[TurnWire] = []
        """What each call sent and was billed, in order."""
        self._held = 0  # messages the server's thread already holds
        self._last_id: str | None = None

    def body(self, request: dict) -> dict:
        """The request body actually sent for the loop's full ``request``."""
        if not self.thread:
            return dict(request)
        if self._last_id is None:
            return {**request, "thread": {"type": "create"}}
        rest = {k: v for k, v in request.items() if k not in CREATE_ONLY}
        return {
            **rest,
            "messages": request["messages"][self._held :],
            "thread": {"type": "continue", "previous_message_id": self._last_id},
        }

    def create(self, **request: Any) -> Any:
        """One model call of the loop: the reply, as ``client.messages.create`` would give it."""
        body = self.body(request)
        sent = len(json.dumps(body, ensure_ascii=False).encode())
        if self.thread:
            reply = self.client.beta.messages.create(**body, betas=[BETA])
            self._held, self._last_id = len(request["messages"]) + 1, reply.id  # the server keeps the reply too
        else:
            reply = self.client.messages.create(**body)
        self.turns.append(TurnWire(len(self.turns) + 1, len(body["messages"]), sent, reply.usage.input_tokens))
        return reply


def thread_run(
    client: Any, cities: list[str], workdir: str | Path, *, thread: bool, forecast_days: int = 1, max_turns: int = 20
) -> tuple[Any, list[TurnWire]]:
    """The city task run by ``agentlab``'s loop, every request answered with or without a thread."""
    import agentlab
    from agentlab.client import StandIn

    threaded = Threaded(client, thread=thread)
    run = agentlab.run_agent(
        StandIn(client, threaded.create),
        agentlab.city_task(cities),
        agentlab.task_tools(Path(workdir), forecast_days=forecast_days),
        max_turns=max_turns,
    )
    return run, threaded.turns


def thread_pair(cities: list[str], workdir: str | Path, *, forecast_days: int = 1) -> dict[str, list[TurnWire]]:
    """The same run on two fresh simulated clients: ``"full history"`` (no thread) and ``"thread"``."""
    import agentlab

    out = {}
    for label, thread in (("full history", False), ("thread", True)):
        client = agentlab.connect("sim", quiet=True)
        _, turns = thread_run(
            client, cities, Path(workdir) / label.replace(" ", "_"), thread=thread, forecast_days=forecast_days
        )
        out[label] = turns
    return out


def wire_table(pair: dict[str, list[TurnWire]]) -> Any:
    """Per turn: bytes sent and input tokens billed, with and without the thread."""
    import pandas as pd

    full, thread = pair["full history"], pair["thread"]
    rows = [
        {
            "turn": a.turn,
            "bytes sent: full history": a.bytes_sent,
            "bytes sent: thread": b.bytes_sent,
            "input tokens: full history": a.input_tokens,
            "input tokens: thread": b.input_tokens,
        }
        for a, b in zip(full, thread)
    ]
    return pd.DataFrame(rows).set_index("turn")


def plot_wire(pair: dict[str, list[TurnWire]]) -> Any:
    """Two panels: bytes the client sent per turn, and input tokens billed per turn, each with value labels."""
    import matplotlib.pyplot as plt

    from agentlab.views.i18n import localize

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    width = 0.4
    for ax, field, unit in (
        (axes[0], "bytes_sent", "bytes sent by the client"),
        (axes[1], "input_tokens", "input tokens billed"),
    ):
        for k, (label, turns) in enumerate(pair.items()):
            xs = [w.turn + (k - 0.5) * width for w in turns]
            ys = [getattr(w, field) for w in turns]
            bars = ax.bar(xs, ys, width, label=label, color=("#9e9e9e", "#5b3f8c")[k])
            ax.bar_label(bars, fmt="%d", fontsize=7, rotation=90, padding=2)
        ax.set_xlabel("turn")
        ax.set_ylabel(unit)
        ax.set_xticks([w.turn for w in pair["thread"]])
        ax.margins(y=0.25)
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_title("what the client sends")
    axes[1].set_title("what the API bills")
    fig.tight_layout()
    return localize(fig)
