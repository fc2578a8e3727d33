"""Exercise 7.2's world: seats on flights, and a probe that tells whether calls overlap.

Each is a module-level tool whose shared state is declared, so it runs in whichever process calls it (a
graded test hands these to your code by name, ``agentlab.grading.channel.PORTABLE``). Seats are kept per
flight, so one run's flight is not another's. ``book_seat`` takes a moment before it writes (a remote
reservation system), so a count that runs beside it reads the old number.
"""

from __future__ import annotations

import threading
import time

from agentlab.tools import ToolError, tool

SEATS = ("1A", "1B", "1C", "2A", "2B", "2C")
"""The seats every flight starts with."""
BOOKING_DELAY_S = 0.05
"""How long a booking takes before the seat is gone: long enough that a count run beside it reads the old number
and exercise 7.2's test catches a run_turn that runs every call at once (measured 2026-12-07: with no delay it caught
such a run_turn 10 times in 12; with 0.005 s, 12 of 12; with 0.05 s, 20 of 20 beside 4 busy processes).
Short enough that those tests wait 0.2 s a student, not 0.8 s (make grade, and each student of a gradebook)."""
PROBE_WAIT_S = 5.0
"""How long a probe waits for the others of its group before it answers "alone"."""

_lock = threading.Lock()
_flights: dict[str, list[str]] = {}
_groups: dict[tuple[str, int], threading.Barrier] = {}


def _seats(flight: str) -> list[str]:
    with _lock:
        return _flights.setdefault(flight, list(SEATS))


@tool(writes=("seats",))
def book_seat(flight: str, seat: str) -> str:
    """Book one seat on a flight.

    Args:
        flight: The flight, e.g. "TP 443".
        seat: The seat, e.g. "1A".
    """
    seats = _seats(flight)
    time.sleep(BOOKING_DELAY_S)
    with _lock:
        if seat not in seats:
            raise ToolError(f"Seat {seat} on {flight} is not free; free seats: {', '.join(seats) or 'none'}.")
        seats.remove(seat)
    return f"Booked {seat} on {flight}."


@tool(reads=("seats",))
def free_seats(flight: str) -> dict:
    """How many seats are free on a flight.

    Args:
        flight: The flight, e.g. "TP 443".
    """
    return {"flight": flight, "free": len(_seats(flight))}


@tool(reads=("seats",))
def probe(group: str, parties: int) -> str:
    """Wait for the other probes of a group: "together" when all of them ran at the same time, else "alone".

    Args:
        group: A name shared by the probes that should meet.
        parties: How many probes the group has.
    """
    with _lock:
        barrier = _groups.setdefault((group, parties), threading.Barrier(parties))
    try:
        barrier.wait(timeout=PROBE_WAIT_S)
    except threading.BrokenBarrierError:
        return "alone"
    return "together"
