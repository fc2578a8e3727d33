"""Write notebooks/12_capstone.ipynb and notebooks/zh-CN/12_capstone.ipynb (same code, translated prose).

    .venv/bin/python scripts/make_capstone_notebook.py

Both editions are written stripped (no outputs). Every number in the prose is checked by
tests/test_notebook12_claims.py, which runs the same code.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent

# (kind, English, Chinese); a code cell has the same source in both editions.
CELLS: list[tuple[str, str, str]] = [
    ("md",
     "# 12 · Capstone: three questions for any agent demo\n\n"
     "**Question: given only what a run recorded, can you say who chose each step, what stopped it, and what each "
     "extra turn cost?**\n\n"
     "When you next watch an agent demo, ask three things. Who chooses the next step: your code or the model? "
     "What stops the loop? What does each extra turn cost? Here you ask them of four recorded runs, reading only "
     "their traces (the JSONL file every agentlab run writes). Then you take up one of the two questions the "
     "course leaves open: what happens to the bill when agents multiply. The other one, untrusted content, has "
     "its own notebook (11).",
     "# 12 · 综合练习：看任何智能体演示时都该问的三个问题\n\n"
     "**问题：只凭一次运行记录下来的内容，你能说出每一步是谁选的、是什么让它停下、每多一轮要花多少吗？**\n\n"
     "下次看智能体演示时，问三件事：下一步由谁选择，你的代码还是模型？什么让循环停下来？每多一轮要付出多少？"
     "这里我们把这三个问题用在四次录好的运行上，只读它们的 trace（每次 agentlab 运行都会写下的 JSONL 文件）。"
     "然后讨论课程留下的两个问题之一：智能体变多时账单会怎样。另一个问题（不可信的内容）在第 11 本笔记本里。"),
    ("md", "Set up. Look for the stderr line saying the client is simulated.",
     "准备工作。留意 stderr 中说明客户端是模拟的那一行。"),
    ("code",
     "import pandas as pd\n"
     "import agentlab\n"
     "from agentlab import capstone\n"
     "from agentlab.capstone import events_table\n"
     "from agentlab.capstone_plots import plot_call_tokens\n\n"
     "client = agentlab.connect()\n"
     "traces = {name: agentlab.read_trace(capstone.trace_path(name)) for name in capstone.NAMES}\n"
     "for name, events in traces.items():\n"
     "    print(f\"{name:9} {events[0]['kind']:9} {len(events) - 1:3} events, stop: {events[-1]['reason']}\")", ""),
    ("md",
     "Four runs, recorded on the simulator by `scripts/make_capstone_traces.py` (rerun it and you get the same "
     "bytes): the city task as an agent and as a workflow, a model that keeps asking for the same call, and a "
     "model that does what a web page tells it. Each file is a header line, one line per event, a `stop` line last.",
     "四次运行，都由 `scripts/make_capstone_traces.py` 在模拟器上录制（重新运行会得到完全相同的字节）："
     "城市任务分别以智能体和工作流运行，一个不停请求同一个调用的模型，以及一个照网页上的话去做的模型。"
     "每个文件都是一行文件头、每个事件一行、最后一行是 `stop`。"),
    ("md",
     "## Question 1: who chooses the next step?\n\n"
     "In a trace, a step the model chose is a `tool_call` answering a `tool_use` block of the `response` before "
     "it; a step your code chose is a `code_step`, run without asking anyone. Read the agent's events first.",
     "## 问题一：下一步由谁选择？\n\n"
     "在 trace 里，模型选择的步骤是一个 `tool_call`，它回应的是前一个 `response` 中的 `tool_use` 块；"
     "你的代码选择的步骤是 `code_step`，不问任何人就执行。先读智能体的事件。"),
    ("code", "events_table(traces[\"agent\"])", ""),
    ("md",
     "Each of the agent's 3 tool calls comes right after a `response` that asked for it: the model chose "
     "`get_weather` twice, then `save_note`. The harness only decided to go round again. Now the workflow.",
     "智能体的 3 次工具调用，每一次都紧跟在请求它的 `response` 之后：模型两次选择了 `get_weather`，"
     "然后选择了 `save_note`。框架只决定了再转一圈。接下来看工作流。"),
    ("code", "events_table(traces[\"workflow\"])", ""),
    ("md",
     "The workflow's two lookups and its note are `code_step`s around its single model call: the code chose "
     "every step, and the model only wrote the sentence. The same agent run in the course's four lanes: look at "
     "which lane each arrow into the tools starts from.",
     "工作流的两次查询和一条笔记都是 `code_step`，围绕着唯一的一次模型调用：每一步都是代码选的，模型只写了那句话。"
     "下面用课程的四条泳道画出同一次智能体运行：看每一支指向工具的箭头是从哪条泳道出发的。"),
    ("code", "fig = agentlab.plot_swimlane(capstone.trace_path(\"agent\"))", ""),
    ("md",
     "Every request reaches the model from the host application, and every tool runs because a `tool_use` in "
     "the model's lane asked for it.",
     "每个请求都由宿主应用发给模型，每个工具之所以运行，都是因为模型泳道里的某个 `tool_use` 要求了它。"),
    ("md",
     "### The injected run: who chose *that* step?\n\n"
     "The task was to read a travel page and say what to pack. Look at the page the tool returned and at the "
     "call that came next.",
     "### 被注入指令的运行：*那一步*是谁选的？\n\n"
     "任务是读一个旅行网页，说出该带什么。看工具返回的网页内容，以及紧接着的那次调用。"),
    ("code",
     "injected = traces[\"injected\"]\n"
     "print(next(e[\"content\"] for e in injected if e.get(\"event\") == \"tool_result\"))\n"
     "events_table(injected)", ""),
    ("md",
     "The page carries an instruction in a comment, and the next `tool_call` saves the user's key in a note. By "
     "the trace, the model chose that step exactly as it chose its others: nothing in the trace marks it as coming "
     "from the page rather than from the user. Be clear about what this shows: this model is *scripted* to obey "
     "(the key is a placeholder). The trace shows what a harness records when a model obeys, not how often real "
     "models do; that is measured by published benchmarks (notebook 11).",
     "网页的注释里藏着一条指令，而下一个 `tool_call` 把用户的密钥存进了笔记。按 trace 来看，模型选择这一步的方式"
     "和选择其他步骤一模一样：trace 里没有任何标记说明它来自网页而不是用户。要说清楚这说明了什么：这个模型是"
     "*按脚本*服从的（密钥只是占位符）。trace 展示的是模型服从时框架会记录下什么，而不是真实模型有多常服从；"
     "后者由已发表的基准来测量（见第 11 本笔记本）。"),
    ("md",
     "## Question 2: what stops the loop?\n\n"
     "The last line of every trace says why the run ended. When a guard in the harness ended it, the line names "
     "the guard, the value it saw and its limit.",
     "## 问题二：什么让循环停下来？\n\n"
     "每个 trace 的最后一行都写着运行为什么结束。如果是框架里的护栏结束了它，这一行会写出护栏的名字、它看到的值和上限。"),
    ("code",
     "pd.DataFrame([{k: v for k, v in events[-1].items() if k not in (\"final_text\", \"steps\")}\n"
     "              for events in traces.values()], index=list(traces)).fillna(\"\")", ""),
    ("md",
     "The agent and the injected run stopped with `end_turn`: the model answered without asking for a tool, so "
     "the model decided it was done. The workflow stopped with `completed`: its code path ran out. The looper "
     "asked for the same call 3 times and the `max_repeats` guard stopped it at its limit of 3: the harness "
     "decided. Without that guard it would have run on to its turn limit, 50 calls.",
     "智能体和被注入的运行以 `end_turn` 结束：模型回答时没有再请求工具，是模型决定自己做完了。工作流以 `completed` "
     "结束：它的代码路径走完了。反复调用的模型把同一个调用请求了 3 次，`max_repeats` 护栏在上限 3 处停下了它："
     "是框架做的决定。没有这个护栏，它会一直运行到轮数上限，也就是 50 次调用。"),
    ("md",
     "## Question 3: what does each extra turn cost?\n\n"
     "Every `response` event carries the API's `usage`. Read the agent's input and output tokens, call by call.",
     "## 问题三：每多一轮要付出多少？\n\n"
     "每个 `response` 事件都带着 API 的 `usage`。逐次读出智能体每次调用的输入和输出令牌。"),
    ("code",
     "calls = [e[\"usage\"] for e in traces[\"agent\"] if e.get(\"event\") == \"response\"]\n"
     "pd.DataFrame(calls, index=range(1, len(calls) + 1))[[\"input_tokens\", \"output_tokens\"]]", ""),
    ("md",
     "The agent's last call sent 666 input tokens against 505 for its first: each extra turn costs more than the "
     "one before, because it carries the whole history. All four runs, call by call: compare the heights.",
     "智能体最后一次调用发送了 666 个输入令牌，第一次是 505 个：每多一轮都比上一轮更贵，因为它带着全部历史。"
     "下面是四次运行的每一次调用：比较柱子的高度。"),
    ("code", "fig = plot_call_tokens(traces)", ""),
    ("md",
     "The workflow made one call of 59 input tokens, since it offered no tools and re-sent nothing. The looper's "
     "calls grew like the agent's while learning nothing new: a loop without a guard pays more for every "
     "useless turn. (Tokens are the simulator's estimates; compare shapes, not absolute numbers.)",
     "工作流只调用了一次，输入 59 个令牌，因为它没有提供工具，也没有重发任何内容。反复调用的模型每次调用的令牌"
     "像智能体一样增长，却什么新东西也没学到：没有护栏的循环，为每一轮无用的循环付出更多。"
     "（令牌数是模拟器的估算值；比较形状，不要比较绝对数值。）"),
    ("md",
     "## When agents multiply\n\n"
     "The course's other open question. One task that fans out (which of n cities is warmest, for n = 1, 2, 4, 8), "
     "done four ways: one chat call given the data, the agent, orchestrator-workers (a plan, one worker call per "
     "city, a synthesis) and a multi-agent system (an orchestrator agent handing each city to a sub-agent with its "
     "own window). Predict the order of their token counts.",
     "## 当智能体变多时\n\n"
     "这是课程留下的另一个问题。一个会分散开来的任务（n 个城市中哪个最暖和，n = 1、2、4、8），用四种方式完成："
     "给出数据的一次聊天调用、智能体、编排者—工作者（一次规划、每个城市一次工作者调用、一次汇总），以及多智能体系统"
     "（一个编排智能体把每个城市交给一个有自己窗口的子智能体）。先预测它们令牌数的大小顺序。"),
    ("code",
     "from agentlab.multiplying import multiplying_table, plot_multiplying, ratios\n"
     "table = multiplying_table((1, 2, 4, 8))\n"
     "table.pivot(index=\"cities\", columns=\"kind\", values=\"tokens\")[[\"chat\", \"orchestrator-workers\", \"agent\", \"multi-agent\"]]", ""),
    ("md",
     "At every n: chat, then orchestrator-workers, then the agent, then the multi-agent system, and every way "
     "grows with n. The figure puts our multiples of chat beside Anthropic's.",
     "在每个 n 上，顺序都是：聊天、编排者—工作者、智能体、多智能体系统，而且每种方式都随 n 增长。"
     "下图把我们相对于聊天的倍数和 Anthropic 的放在一起。"),
    ("code", "fig = plot_multiplying(table)\nratios(table)", ""),
    ("md",
     "At 8 cities our agent used 45.4x the tokens of our chat and our multi-agent system 86.4x; the "
     "orchestrator-workers workflow only 6.8x. Anthropic measured about 4x and 15x on its research system "
     "([How we built our multi-agent research system](https://www.anthropic.com/engineering/built-multi-agent-research-system), 2025). "
     "The two are not comparable and the figure keeps them apart: ours are simulated estimates on a task whose chat "
     "call is tiny (one line of temperatures), so the fixed cost of offering tools dominates every agent call; "
     "theirs is one vendor's measurement of one system on long research tasks. What carries over is the order: "
     "each layer of agents multiplies the calls, and every call sends its own window.",
     "在 8 个城市时，我们的智能体用了聊天的 45.4 倍令牌，多智能体系统用了 86.4 倍；编排者—工作者工作流只用了 6.8 倍。"
     "Anthropic 在它的研究系统上测得约 4 倍和 15 倍"
     "（[How we built our multi-agent research system](https://www.anthropic.com/engineering/built-multi-agent-research-system)，2025）。"
     "两者不能直接比较，图中也把它们分开：我们的是模拟估算，任务里的聊天调用极小（一行温度），"
     "所以提供工具的固定开销主导了每次智能体调用；他们的是一个厂商在一个系统、长研究任务上的测量。"
     "能迁移的是顺序：每多一层智能体，调用次数就成倍增加，而每次调用都要发送它自己的窗口。"),
    ("md",
     "## Takeaway\n\n"
     "**Finding.** The three questions have answers in any trace. Who chose: a `tool_call` answers the model's "
     "`tool_use`, a `code_step` was your code's choice. What stopped: the `stop` line, naming the guard, the value it "
     "saw and its limit when the harness stopped the run. What a turn cost: each `response`'s `usage`; an agent's "
     "calls grow because each re-sends the history. Sub-agents multiply calls and windows.\n\n"
     "**Limits.** Token counts are the simulator's estimates. The recorded models were written to behave as shown "
     "(the injected run obeys because its script says so): the traces show what a harness records, not how often a "
     "real model misbehaves. The multiples of chat depend on the task and on what you call a chat. Rerun live "
     "(`agentlab.connect()` with a key) for one run's real usage, and label it with the model and the date.",
     "## 要点\n\n"
     "**发现。** 三个问题在任何 trace 里都有答案。谁选的：`tool_call` 回应模型的 `tool_use`，`code_step` 是你的代码"
     "的选择。什么让它停下：`stop` 那一行；如果是框架停下了运行，它会写出护栏、看到的值和上限。每轮花多少：每个 "
     "`response` 的 `usage`；智能体的调用越来越大，因为每次都重发历史。子智能体让调用和窗口成倍增加。\n\n"
     "**局限。** 令牌数是模拟器的估算值。录下的模型是按所示行为写出来的（被注入的运行之所以服从，是因为脚本这么写）："
     "trace 展示的是框架会记录什么，而不是真实模型有多常出错。相对于聊天的倍数取决于任务，也取决于什么算作一次聊天。"
     "用真实 API 重跑（设置密钥后 `agentlab.connect()`）可以看到一次运行的真实用量，并注明模型和日期。"),
    ("md",
     "## Exercises\n\n"
     "### Recall\n"
     "1. Which event tells you the model, not your code, chose a tool call?\n"
     "2. Which fields of the `stop` line say that the harness, not the model, ended the run?\n\n"
     "### Change, predict, run\n"
     "1. Record the looper with `capstone.record_looper(\"runs/looper5.jsonl\", max_repeats=5)`. Predict its model "
     "calls and the input tokens of its last call, then read them from the trace.\n"
     "2. Give the injected run a page without the instruction (`capstone.record_injected(path, page=\"Bring a coat.\")`). "
     "Predict which tools it calls.\n\n"
     "### Graded (`exercises/ex12_capstone.py`, run `make grade`)\n"
     "- **12.1** `who_chose(events)`: for every tool step, the model or the code;\n"
     "- **12.2** `what_stopped(events)`: the stop reason, who decided it, and the guard with its observed value and limit;\n"
     "- **12.3** `extra_turn_cost(events, prices)`: tokens and USD of the first and the last model call.\n\n"
     "They are graded on these four traces and on traces the tests record fresh, with other cities and limits.",
     "## 练习\n\n"
     "### 回忆\n"
     "1. 哪个事件告诉你是模型而不是你的代码选择了一次工具调用？\n"
     "2. `stop` 那一行的哪些字段说明是框架而不是模型结束了运行？\n\n"
     "### 修改、预测、运行\n"
     "1. 用 `capstone.record_looper(\"runs/looper5.jsonl\", max_repeats=5)` 录下反复调用的模型。先预测它的模型调用次数"
     "和最后一次调用的输入令牌，再从 trace 中读出来。\n"
     "2. 给被注入的运行换一个没有指令的网页（`capstone.record_injected(path, page=\"Bring a coat.\")`）。预测它会调用哪些工具。\n\n"
     "### 评分练习（`exercises/ex12_capstone.py`，运行 `make grade`）\n"
     "- **12.1** `who_chose(events)`：每个工具步骤是模型选的还是代码选的；\n"
     "- **12.2** `what_stopped(events)`：停止原因、由谁决定，以及护栏、它看到的值和上限；\n"
     "- **12.3** `extra_turn_cost(events, prices)`：第一次和最后一次模型调用的令牌与美元花费。\n\n"
     "评分既用这四个 trace，也用测试现场录制的新 trace（换了城市和上限）。"),
]


def notebook(lang: str) -> nbformat.NotebookNode:
    """The notebook in ``lang`` ("en" or "zh"), stripped."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    for i, (kind, en, zh) in enumerate(CELLS):
        cell = nbformat.v4.new_code_cell(en) if kind == "code" else nbformat.v4.new_markdown_cell(en if lang == "en" else zh)
        cell.id = f"capstone-{i:02d}"
        nb.cells.append(cell)
    return nb


def main() -> None:
    for lang, path in (("en", ROOT / "notebooks" / "12_capstone.ipynb"), ("zh", ROOT / "notebooks" / "zh-CN" / "12_capstone.ipynb")):
        nbformat.write(notebook(lang), path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
