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


def crossings(events: list[dict]) -> list[tuple[str, str]]:
    """Exercise 7.2: list what crosses between the swim lanes of an agent run, in order.

    `events` is a trace's events as `agentlab.read_trace(path)` returns them (the header first).
    Return one `(lane, what)` pair per crossing, in the order of the events:

    - a "request" event: `("host application", "request")` (the host sends the whole history);
    - a "response" event: `("model", "tool_use")` for each tool_use block of its `content`, in order,
      or `("model", "text")` once when it has no tool_use block (the final reply);
    - a "tool_call" event: `("your code", "call")` (your function runs and calls the tool);
    - a "tool_result" event: `("tools", "tool_result")` (failed or not);
    - the "stop" event: `("host application", "stop")`.

    Skip the header and every other kind of event.
    """
    ### BEGIN SOLUTION
    out: list[tuple[str, str]] = []
    for e in events[1:]:
        kind = e.get("event")
        if kind == "request":
            out.append(("host application", "request"))
        elif kind == "response":
            uses = [b for b in e.get("content", []) if b.get("type") == "tool_use"]
            out += [("model", "tool_use")] * len(uses) if uses else [("model", "text")]
        elif kind == "tool_call":
            out.append(("your code", "call"))
        elif kind == "tool_result":
            out.append(("tools", "tool_result"))
        elif kind == "stop":
            out.append(("host application", "stop"))
    return out
    ### END SOLUTION
