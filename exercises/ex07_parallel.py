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

    练习 7.1：声明共享状态，让 book_seat 和 free_seats 永远不会重叠。
    `seats` 是空闲座位名的共享列表。返回两个用 @tool 做出的工具：`book_seat(seat: str) -> str` 把座位从 `seats` 中移
    除（座位不空闲时抛出 agentlab.ToolError），并返回 "Booked <seat>."；`free_seats() -> dict` 返回 {"free": <空闲座
    位数>}。用 reads=/writes= 声明每个工具碰到什么，让执行器保持预订和计数的先后顺序，同时两次 free_seats 调用仍然可
    以同时运行。
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


def run_turn(calls: list[dict], tools: list[Tool]) -> list[dict]:
    """Exercise 7.2: run one turn's tool calls at the same time where that is safe, in order where it is not.

    `calls` are the tool_use blocks of one reply ({"type", "id", "name", "input"}), in the order the model
    wrote them. Two calls conflict when one writes state that the other reads or writes (each tool's `reads`
    and `writes`, sets of names). A call may run beside the others unless it conflicts with an earlier call of the turn; then
    it must see that call's effect, as if the turn had run in the model's order (no stale read). Return one
    tool_result block per call, in the calls' order: {"type": "tool_result", "tool_use_id": ..., "content": ...},
    with "is_error": True when the call failed. Run each call with agentlab.tools.run_tool and schedule them
    yourself, with threads: agentlab.execute_tools and the executor's Executor, waves and conflicts fail the tests.

    练习 7.2：一轮的工具调用，安全时同时运行，不安全时按顺序运行。
    `calls` 是一次回复中的 tool_use 块（{"type", "id", "name", "input"}），按模型写出的顺序。一个调用写入的状态被另
    一个调用读或写时，两者冲突（每个工具的 `reads` 和 `writes`，都是名字的集合）。一个调用可以和其他调用并行运行，除
    非它与本轮中更早的某个调用冲突；那时它必须看到那个调用的效果，就像这一轮按模型的顺序运行一样（没有过期的读取）。
    每个调用返回一个 tool_result 块，按调用的顺序：{"type": "tool_result", "tool_use_id": ..., "content": ...}，调用
    失败时带上 "is_error": True。用 agentlab.tools.run_tool 运行每个调用，并用线程自己安排它们：
    agentlab.execute_tools 以及执行器的 Executor、waves 和 conflicts 会让测试失败。
    """
    ### BEGIN SOLUTION
    from concurrent.futures import ThreadPoolExecutor

    from agentlab.tools import run_tool, toolset

    by_name = toolset(tools)

    def conflict(a: dict, b: dict) -> bool:
        ta, tb = by_name.get(a["name"]), by_name.get(b["name"])
        if ta is None or tb is None:
            return False
        return bool(ta.writes & (tb.reads | tb.writes) or tb.writes & ta.reads)

    wave: list[int] = []
    for i, call in enumerate(calls):
        wave.append(max((wave[j] + 1 for j in range(i) if conflict(calls[j], call)), default=0))
    results: list[dict] = [{} for _ in calls]
    with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
        for w in range(max(wave, default=-1) + 1):
            running = {
                i: pool.submit(run_tool, by_name, calls[i]["name"], calls[i]["input"])
                for i in range(len(calls))
                if wave[i] == w
            }
            for i, future in running.items():
                out = future.result()
                results[i] = {"type": "tool_result", "tool_use_id": calls[i]["id"], "content": out.content}
                if out.is_error:
                    results[i]["is_error"] = True
    return results
    ### END SOLUTION
