"""Graded exercises for notebook 07 (parallel vs serial tools). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from agentlab.tools import Tool, tool


def booking_tools(seats: list[str]) -> list[Tool]:
    """Exercise 7.1: declare shared state so book_seat and free_seats never overlap.

    `seats` is the shared list of free seat names. Return two tools made with @tool:
    `book_seat(seat: str) -> str` removes the seat from `seats` (raise agentlab.ToolError if it is not
    free) and returns "Booked <seat>."; `free_seats() -> dict` returns {"free": <number of free seats>}.
    Declare with reads=/writes= what each touches, so the executor keeps a booking and a count in
    order, while two free_seats calls may still run at the same time.
    """
    ### BEGIN SOLUTION
    from agentlab.tools import ToolError

    @tool(writes=("seats",))
    def book_seat(seat: str) -> str:
        """Book one seat.

        Args:
            seat: The seat's name, e.g. "12A".
        """
        if seat not in seats:
            raise ToolError(f"Seat {seat!r} is not free; free seats: {', '.join(seats) or 'none'}.")
        seats.remove(seat)
        return f"Booked {seat}."

    @tool(reads=("seats",))
    def free_seats() -> dict:
        """How many seats are free."""
        return {"free": len(seats)}

    return [book_seat, free_seats]
    ### END SOLUTION
