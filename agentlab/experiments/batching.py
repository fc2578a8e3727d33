"""Many agent runs through the Message Batches API, at the batch price: one batch per round.

    round 1: one batch with every run's first request       (custom_id: the run's number)
    wait until the batch has ended (poll, bounded)
    hand each run its result: the run executes its tools and asks for its next call, or ends
    round 2: one batch with every unfinished run's next request ... until every run has ended

Each run is an ordinary ``run_agent`` (or any function of a client), run in a thread of its own with a
stand-in for its client: everything is the run's own client (its Meter, its model), except that
``messages.create`` waits for the round's batch. So the trace, the guards and the ``Run`` are exactly
those of a direct run; its ``response`` events carry the ``batch_id`` that answered them, and its turns
are billed at the batch price (50% of the standard price,
https://platform.claude.com/docs/en/build-with-claude/batch-processing#pricing). A batch round is slower
than a direct call: processing may take up to 24 hours (most batches end within one, the docs say), so
this suits sweeps and evaluations, not a student waiting at a prompt.

Live safety: when the batch client has a session cap (``connect(max_usd=...)``), the predicted upper
bound of the *whole* batch (every request's input estimate plus its ``max_tokens``, at the standard
price, twice what a batch is billed) is checked against the cap before the batch is sent; a batch
that could cross it is not sent, and every run in it ends with ``USD_BUDGET``, as ``run_agent`` ends.
Each run's own ``Limits(max_usd=...)`` is checked by its loop before it asks for a call.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from agentlab.client import StandIn
from agentlab.live.spend import SpendRefused, upper_bound_usd
from agentlab.meter.middleware import meter_of
from agentlab.run import Run

POLL_S = 60.0
"""Seconds between two looks at a batch in progress (simulated seconds on the simulator)."""
BATCH_LIMIT_S = 24 * 3600.0
"""The API ends every batch within 24 hours of its creation (what is left then expires)."""
MAX_ROUNDS = 200
"""Most batch rounds: far above any run's turn limit (each round is one turn of each unfinished run)."""


class BatchResultError(RuntimeError):
    """A run's request came back from its batch ``errored``, ``canceled`` or ``expired``: that run ends there."""

    def __init__(self, custom_id: str, batch_id: str, result: Any) -> None:
        kind = getattr(result, "type", "missing from the results")
        error = getattr(getattr(result, "error", None), "error", None)
        said = f": {error.type}: {error.message}" if error is not None else ""
        super().__init__(
            f"batch {batch_id}, request {custom_id!r}: {kind}{said}. The run's trace ends here; "
            "fix the request (an invalid one is errored), or run it again (canceled, expired)"
        )
        self.custom_id = custom_id
        """The request's ``custom_id`` in its batch."""
        self.batch_id = batch_id
        """The batch it was sent in."""
        self.result_type = kind
        """``errored``, ``canceled``, ``expired`` (or missing from the results)."""


def run_batched(
    client: Any,
    runs: list[tuple[Any, Callable[[Any], Run]]],
    *,
    poll_s: float = POLL_S,
    wait: Callable[[float], None] | None = None,
) -> list[Run | BaseException]:
    """Run every ``(run_client, run)`` in ``runs`` to its end, each round's model calls sent as one Message Batch
    through ``client.messages.batches``. ``run`` is a function of a client, e.g.
    ``lambda c: run_agent(c, task, tools)``; it gets a stand-in for ``run_client``.

    Each run needs its own ``run_client`` (its own Meter, where its turns are recorded: nothing is sent
    through it); ``client`` sends the batches, and its Meter (its session cap) sees every run's spending.
    ``wait(seconds)`` waits between polls: on the simulator, simulated time (nothing sleeps), live
    ``time.sleep``. Returns one ``Run`` per run, in order, or the exception that ended it (a
    ``BatchResultError`` for a request that did not succeed).
    """
    meters = [meter_of(c) for c, _ in runs]
    if len({id(m) for m in meters}) < len(meters):
        raise ValueError(
            "run_batched(runs=...): each run needs a client of its own (its own Meter, where its turns "
            "are recorded), e.g. agentlab.connect('sim', quiet=True) per run; the batches go through client"
        )
    if not poll_s > 0:
        raise ValueError(f"run_batched(poll_s={poll_s!r}): seconds between polls must be > 0, e.g. 60")
    sim = getattr(client, "agentlab_simulator", None)
    wait = wait or (sim.batches.wait if sim is not None else time.sleep)
    rounds, done = _Rounds(len(runs)), {}

    def go(i: int, run_client: Any, run: Callable[[Any], Run]) -> None:
        try:
            done[i] = run(StandIn(run_client, lambda **request: rounds.ask(i, request)))
        except BaseException as e:  # noqa: BLE001  (the run's trace has recorded it; the other runs go on)
            done[i] = e
        finally:
            rounds.ended()

    threads = [
        threading.Thread(target=go, args=(i, c, r), name=f"batched-run-{i}", daemon=True)
        for i, (c, r) in enumerate(runs)
    ]
    for t in threads:
        t.start()
    try:
        for _ in range(MAX_ROUNDS):  # bounded: every run ends within its own turn limit
            asked = rounds.gather()
            if not asked:
                break
            rounds.answer(_one_round(client, asked, meters, poll_s, wait, sim is not None))
        else:
            raise RuntimeError(f"run_batched: runs still unfinished after {MAX_ROUNDS} rounds")
    except BaseException as e:  # a batch call failed (or Ctrl-C): every run still going ends with it, then it is raised
        rounds.fail(e)
        for t in threads:
            t.join()
        raise
    for t in threads:
        t.join()
    return [done[i] for i in range(len(runs))]


def _one_round(
    client: Any,
    asked: dict[int, dict],
    meters: list[Any],
    poll_s: float,
    wait: Callable[[float], None],
    estimated: bool,
) -> dict[int, Any]:
    """Send one batch of the ``asked`` requests; each run's answer: its reply, or the exception its call raises."""
    refused = _over_cap(client, asked)
    if refused is not None:
        return {i: refused for i in asked}
    batch = client.messages.batches.create(requests=[{"custom_id": f"run-{i}", "params": r} for i, r in asked.items()])
    batch = _ended(client, batch, poll_s, wait)
    seconds = (batch.ended_at - batch.created_at).total_seconds()
    results = {line.custom_id: line.result for line in client.messages.batches.results(batch.id)}
    answers: dict[int, Any] = {}
    for i, request in asked.items():
        result = results.get(f"run-{i}")
        if result is None or result.type != "succeeded":
            answers[i] = BatchResultError(f"run-{i}", batch.id, result)
            continue
        for meter in {id(m): m for m in (meters[i], meter_of(client))}.values():
            meter.record_batched(request, result.message, batch.id, seconds, estimated=estimated)
        answers[i] = result.message
    return answers


class _Rounds:
    """The runs' requests gathered for the next batch, and what each run gets back (its threads wait here)."""

    def __init__(self, running: int) -> None:
        self.cond = threading.Condition()
        self.running = running  # runs not ended yet
        self.asked: dict[int, dict] = {}
        self.answers: dict[int, Any] = {}
        self.failed: BaseException | None = None

    def ask(self, i: int, request: dict) -> Any:
        """Run ``i``'s model call (in its thread): wait for its round's answer; raise it if it is an exception."""
        with self.cond:
            if self.failed is None:
                self.asked[i] = request
                self.cond.notify_all()
                self.cond.wait_for(lambda: i in self.answers or self.failed is not None)
            answer = self.answers.pop(i, self.failed)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def ended(self) -> None:
        with self.cond:
            self.running -= 1
            self.cond.notify_all()

    def gather(self) -> dict[int, dict]:
        """Every unfinished run's request, once each has asked (empty once all have ended)."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.asked) >= self.running)  # each run either asks or ends
            asked, self.asked = self.asked, {}
            return asked

    def answer(self, answers: dict[int, Any]) -> None:
        with self.cond:
            self.answers.update(answers)
            self.cond.notify_all()

    def fail(self, error: BaseException) -> None:
        """Every run waiting now, or asking later, gets ``error``."""
        with self.cond:
            self.failed = error
            self.cond.notify_all()


def _over_cap(client: Any, pending: dict[int, dict]) -> SpendRefused | None:
    """The refusal for a batch whose predicted upper bound could take the session past its cap, else ``None``."""
    cap = getattr(client, "agentlab_cap", None)
    if cap is None:
        return None
    bounds = [upper_bound_usd(r) for r in pending.values()]
    spent = cap.spent() + cap.in_flight
    if any(b is None for b in bounds):
        cap.refused += 1
        return SpendRefused(
            f"connect(max_usd={cap.max_usd:g}): a request in this batch names a model with no known "
            "price, so the cap cannot be kept; the batch was not sent. Pick a priced model",
            observed=spent,
            predicted=None,
            limit=cap.max_usd,
        )
    if spent + sum(bounds) > cap.max_usd:  # type: ignore[arg-type]
        cap.refused += 1
        return SpendRefused(
            f"session cap max_usd={cap.max_usd:g}: spent ${spent:.6f}, and this batch of {len(bounds)} "
            f"requests could cost up to ${sum(bounds):.6f} (each one's input estimate + max_tokens at "  # type: ignore[arg-type]
            "the standard price), so it was not sent. Raise connect(max_usd=...) or batch fewer runs",
            observed=round(spent, 9),
            predicted=round(sum(bounds), 9),
            limit=cap.max_usd,
        )  # type: ignore[arg-type]
    return None


def _ended(client: Any, batch: Any, poll_s: float, wait: Callable[[float], None]) -> Any:
    """The batch once its ``processing_status`` is ``ended``, polling every ``poll_s`` seconds."""
    for _ in range(int(BATCH_LIMIT_S / poll_s) + 2):  # bounded: the API ends every batch within 24 hours
        if batch.processing_status == "ended":
            return batch
        wait(poll_s)
        batch = client.messages.batches.retrieve(batch.id)
    client.messages.batches.cancel(batch.id)
    raise TimeoutError(
        f"batch {batch.id} had not ended {BATCH_LIMIT_S / 3600:g} hours after it was sent "
        "(the API expires what is left by then); it was canceled"
    )
