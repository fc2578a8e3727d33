"""Write notebooks/10_context_engineering.ipynb and its zh-CN twin (same code cells, translated prose).

Run: .venv/bin/python scripts/make_notebook10.py
Each cell is (kind, english, chinese); code cells share one source (comments in English).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NAME = "10_context_engineering.ipynb"

CELLS = [
    ("md", """# 10 · Context engineering

**Question: when one long task no longer fits the window you allow it, which tactic keeps every call
under that window, keeps the answer right, and what does each one cost?**

Notebook 02 showed the history growing every turn. Here the task is long on purpose: a report over 30
cities, each lookup returning a 7-day forecast (a few hundred tokens). We configure a 12,000-token
window and try the course's tactics: summarise and continue (compaction), clear old tool results (in
our harness, or by the API's context editing), keep notes outside the window (a memory tool across
sessions), hand work to sub-agents with clean windows, and fetch details just in time.

**Read the numbers honestly.** The model here is simulated: it does what `agentlab/sim/context_agent.py`
was written to do (note each temperature as it goes, summarise by a fixed rule, use memory when
offered). So this lab **measures what the harness decides**: what is in each call's window, tokens,
peak context, calls, cost, whether the answer (checked by code against the data) is right. It does not
measure how well a real model attends to a long context; token counts are estimates.""",
     """# 10 · 上下文工程

**问题：当一个长任务装不进你给它的窗口时，哪种战术能让每次调用都不超过这个窗口、答案仍然正确？各自又要付出什么代价？**

第 02 本笔记本展示了历史如何逐轮增长。这里的任务故意很长：给 30 个城市写一份报告，每次查询都返回 7 天预报（几百个词元）。我们设定一个 12,000 词元的窗口，然后逐一尝试课程里的战术：先摘要再继续（压缩）、清除旧的工具结果（在我们的 harness 里做，或交给 API 的上下文编辑）、把笔记放在窗口之外（跨会话的记忆工具）、把工作交给拥有干净窗口的子 agent，以及即时检索细节。

**如实解读数字。** 这里的模型是模拟的：它只做 `agentlab/sim/context_agent.py` 写好要它做的事（边查边记下每个温度、按固定规则写摘要、提供记忆工具时就用）。所以本实验**测量的是 harness 的决定**：每次调用的窗口里有什么、词元数、峰值上下文、调用次数、花费，以及答案（由代码对照数据检查）是否正确。它不测量真实模型在长上下文中的注意力；词元数是估算值。"""),
    ("md", "Set up: the task, and the window we allow. Look at the task's second line: it is a planted fact we follow later.",
     "准备：任务本身，以及我们允许的窗口大小。注意任务的第二行：它是一条埋下的事实，后面会追踪它。"),
    ("code", """import tempfile
from pathlib import Path

import agentlab
from agentlab.context import WINDOW_TOKENS, compare_tactics, report_cities, report_task
from agentlab.context.plots import plot_tactics, plot_tokens_per_call

workdir = Path(tempfile.mkdtemp(prefix="nb10-"))
task = report_task(report_cities(30))
print(task[:120], "...", task.splitlines()[-1])
print("configured window:", WINDOW_TOKENS, "tokens per call")"""),
    ("md", """## Every tactic on the same task

Run the task seven ways. Look at the `window exceeded` column first, then at `input tokens` (what you
pay for) and `peak context` (the largest single call). `answer correct` compares the final answer with
the data.""",
     """## 同一个任务，每种战术各跑一遍

把任务用七种方式运行。先看 `window exceeded`（是否超出窗口）一列，再看 `input tokens`（你要付费的输入词元）和 `peak context`（单次调用的最大上下文）。`answer correct` 把最终答案与数据对照。"""),
    ("code", """table, results = compare_tactics(n_cities=30, workdir=workdir)  # simulated; pass client=agentlab.connect("live") for one paid live run
table"""),
    ("md", """The plain agent's last call sends about 19,000 tokens, past the 12,000-token window: a real model with that
window would have refused the call. Every tactic stays under it, and every answer is still right. The
totals differ a lot: the tactics that shrink what each call re-sends also shrink the bill.""",
     """不做处理的 agent，最后一次调用要发送约 19,000 个词元，超过了 12,000 词元的窗口：窗口这么大的真实模型会直接拒绝这次调用。每种战术都没有超出窗口，答案也都正确。总量差别很大：缩小每次重发内容的战术，同时也缩小了账单。"""),
    ("md", """## The sawtooth

Plot the input tokens of every call for the plain agent, compaction and the two kinds of clearing. Look
for where each line falls back, and for the extra point on the compaction line: the summary call.""",
     """## 锯齿形

画出不做处理、压缩和两种清除方式下每次调用的输入词元。注意每条线在哪里回落，以及压缩那条线上多出来的点：那是写摘要的调用。"""),
    ("code", "fig = plot_tokens_per_call(results)"),
    ("md", """Compaction and harness-side clearing make a sawtooth: the history grows to the threshold, is cut back, and
grows again. Compaction falls lowest (a summary replaces everything) but pays for a summary call that
re-reads the whole history. The API's clearing stays flat: the client keeps the full history and the
server clears old results from every request once it is past the trigger.""",
     """压缩和 harness 端清除都画出锯齿：历史涨到阈值、被截短、再涨。压缩降得最低（一段摘要替换了全部历史），但要为一次重读全部历史的摘要调用付费。API 端清除则是一条平线：客户端保留完整历史，一旦超过触发值，服务器就在每次请求中清掉旧结果。"""),
    ("md", """## What a summary keeps

Compaction loses whatever the summary leaves out. We planted five facts (the task line, a note on the
task's second line, and three facts in Paris's tool result) and check which are still in the window
right after the first compaction. This tests **our** summariser's rule, not a model's.""",
     """## 摘要留下了什么

压缩会丢掉摘要没写进去的一切。我们埋下了五条事实（任务那一行、任务第二行的备注，以及巴黎工具结果里的三条事实），检查第一次压缩之后窗口里还剩哪些。这测的是**我们的**摘要规则，而不是模型。"""),
    ("code", """compaction = results["compaction"]
print(compaction.events[0]["summary"][:300], "...")
compaction.extra["facts kept by the first summary"]"""),
    ("md", """Our summariser kept 2 of the 5 planted facts: the task line and Paris's temperature (which the agent had
noted). Who reads the report, Paris's condition and its forecast are gone. The answer stays right only
because the task needs nothing the summary dropped; a task that needed the reader's name would now fail.""",
     """我们的摘要器保留了 5 条埋下事实中的 2 条：任务那一行，以及巴黎的温度（agent 之前记下了它）。报告给谁看、巴黎的天气状况和预报都没了。答案之所以仍然正确，只是因为任务不需要摘要丢掉的内容；如果任务需要读者的名字，现在就会出错。"""),
    ("md", """## The API's own names

The API can do both server-side. Context editing (`clear_tool_uses_20250919`, beta header
`context-management-2025-06-27`) is simulated here, and its response reports what it cleared;
server-side compaction (`compact_20260112`) is only shown: the simulator does not implement it.""",
     """## API 自己的名字

这两件事 API 都能在服务器端完成。上下文编辑（`clear_tool_uses_20250919`，beta 请求头 `context-management-2025-06-27`）在这里是模拟的，响应里会报告它清除了什么；服务器端压缩（`compact_20260112`）只展示名字：模拟器没有实现它。"""),
    ("code", """from agentlab.context import ServerClearing
from agentlab.context.compaction import API_COMPACTION

print(ServerClearing(trigger_tokens=8_000, keep=3).request_fields())
print(results["clearing (API, simulated)"].events[0])
API_COMPACTION"""),
    ("md", """The request carries the edit and the beta header; each response's `context_management.applied_edits`
says how many tool uses and input tokens the server cleared before the model read the prompt. Sources:
the context-editing and compaction pages of the Claude docs, and the installed SDK's types.""",
     """请求里带着编辑配置和 beta 请求头；每个响应的 `context_management.applied_edits` 说明服务器在模型读到提示之前清掉了多少次工具调用、多少输入词元。来源：Claude 文档的上下文编辑与压缩页面，以及已安装 SDK 的类型定义。"""),
    ("md", """## Notes outside the window

The memory tool uses the API memory tool's commands (`view`, `create`, `str_replace`, `insert`, `delete`,
`rename`) under `/memories`, sandboxed to one folder. First try to write outside it.""",
     """## 窗口之外的笔记

记忆工具使用 API 记忆工具的命令（`view`、`create`、`str_replace`、`insert`、`delete`、`rename`），路径都在 `/memories` 之下，并被限制在一个文件夹里。先试试往外面写。"""),
    ("code", """from agentlab.context import make_memory_tool
from agentlab.tools import run_tool

memory = make_memory_tool(workdir / "notes")
print(run_tool({"memory": memory}, "memory", {"command": "create", "path": "/memories/../secret.md", "file_text": "x"}))
results["memory (sessions)"].events"""),
    ("md", """The escape is refused with an error the model can read, and nothing is written. In the run, the task ran
in three sessions of at most 12 calls, each a fresh conversation: each window started clean, and what
carried over was only what the agent had written to its memory file.""",
     """越界写入被拒绝，返回一条模型能读懂的错误，且什么都没写。在这次运行中，任务分成三个最多 12 次调用的会话，每个会话都是全新的对话：每个窗口都从干净开始，能延续下来的只有 agent 写进记忆文件的内容。"""),
    ("md", """## Sub-agents and just-in-time retrieval

Sub-agents research 8 cities each in a clean window and return a few lines. Their tokens are billed too:
look at how the total splits.""",
     """## 子 agent 与即时检索

每个子 agent 在干净的窗口里调查 8 个城市，只返回几行结果。它们的词元同样要付费：看看总量是怎么分摊的。"""),
    ("code", 'results["sub-agents"].extra'),
    ("md", """The orchestrator's window stays small, but more than nine tenths of the tokens are the sub-agents':
each re-pays the tool overhead and its own growing history. Just-in-time retrieval is the cheapest
here because its lookups return a reading and a reference, never the forecast the report does not need.""",
     """编排者的窗口一直很小，但九成以上的词元都花在子 agent 身上：每个子 agent 都要重新支付工具开销和自己不断增长的历史。即时检索在这里最便宜，因为它的查询只返回读数和一个引用，从不返回报告用不到的预报。"""),
    ("md", "## Side by side\n\nThe two numbers each tactic trades: the total you pay for, and the largest single call against the window.",
     "## 并排比较\n\n每种战术在两个数字之间权衡：你要付费的总量，以及单次最大调用与窗口的比较。"),
    ("code", "fig = plot_tactics(table)"),
    ("md", """Every tactic puts the peak under the window; their totals differ by almost three times, and the cheapest is under a fifth of the plain agent's.
Which is best depends on the task: here the facts are small and the results large, which favours
clearing and just-in-time retrieval.""",
     """每种战术都把峰值压到窗口以下；它们的总量相差近三倍，最便宜的不到不做处理时的五分之一。哪种最好取决于任务：这里事实很小、工具结果很大，所以清除和即时检索占优。"""),
    ("md", """## Takeaways

- **The window is a budget the harness manages.** Left alone, one long task re-sends every old result on
  every call; each tactic here is code in the harness (or a request field) that decides what goes back in.
- **Each tactic trades something.** Compaction pays a summary call and loses what the summary leaves out;
  clearing loses old results (safe only for facts already noted); memory needs the model to write and read
  notes; sub-agents multiply calls; just-in-time retrieval needs tools designed around references.
- **Limits.** The simulated model does what it was written to do, so the "answer correct" column shows our
  policy's bookkeeping, not a model's recall; token counts are estimates; one task, one window. Whether a
  real model loses facts in a long window is a question for published measurements and live runs.""",
     """## 要点

- **窗口是 harness 管理的预算。** 放任不管时，一个长任务每次调用都会重发所有旧结果；这里的每种战术都是 harness 里的代码（或一个请求字段），由它决定哪些内容回到窗口里。
- **每种战术都有代价。** 压缩要多付一次摘要调用，并丢掉摘要没写的内容；清除会丢掉旧结果（只有已经记下的事实才安全）；记忆需要模型去写、去读笔记；子 agent 让调用次数成倍增加；即时检索需要围绕引用来设计工具。
- **局限。** 模拟模型只做它被写好要做的事，所以“答案正确”一列显示的是我们策略的记账，而不是模型的回忆能力；词元数是估算；只有一个任务、一个窗口。真实模型在长窗口中会不会丢事实，要看已发表的测量和真实运行。"""),
    ("md", """## Exercises

### Graded (`make grade`, `exercises/ex10_context.py`)
- **10.1** Write the compaction trigger `compact_now(prompt_tokens, output_tokens, threshold)`.
- **10.2** Write `clear_old_results(messages, keep)`: clear all but the newest tool results and keep every
  `tool_use` answered by its `tool_result`.

### Change, predict, run
1. Run `run_tactic("compaction", threshold=4_000)`. Predict the number of compactions and the peak, then check.
2. Plant a fact the answer needs in the task's second line (e.g. "give the mean in Fahrenheit"). Which
   tactic still answers it? Why?
3. Run `run_tactic("clearing (harness)")` on a model whose text before a tool call comes back as thinking
   (`agentlab.connect("sim", model="claude-sonnet-5-5", policy=ContextAgent())`). What happens to the
   agent's notes, and to the run?""",
     """## 练习

### 计分练习（`make grade`，`exercises/ex10_context.py`）
- **10.1** 编写压缩触发条件 `compact_now(prompt_tokens, output_tokens, threshold)`。
- **10.2** 编写 `clear_old_results(messages, keep)`：除最新的几个之外清除所有工具结果，并让每个 `tool_use` 仍有对应的 `tool_result`。

### 改一改、预测、运行
1. 运行 `run_tactic("compaction", threshold=4_000)`。先预测压缩次数和峰值，再验证。
2. 在任务第二行埋一条答案需要的事实（例如“用华氏度给出平均值”）。哪种战术还能答对？为什么？
3. 在一个把工具调用前的文字作为 thinking 返回的模型上运行 `run_tactic("clearing (harness)")`（`agentlab.connect("sim", model="claude-sonnet-5-5", policy=ContextAgent())`）。agent 的笔记会怎样？这次运行又会怎样？"""),
]


def build(lang: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    for cell in CELLS:
        if cell[0] == "code":
            nb.cells.append(nbformat.v4.new_code_cell(cell[1]))
        else:
            nb.cells.append(nbformat.v4.new_markdown_cell(cell[1] if lang == "en" else cell[2]))
    return nb


if __name__ == "__main__":
    nbformat.write(build("en"), ROOT / "notebooks" / NAME)
    nbformat.write(build("zh"), ROOT / "notebooks" / "zh-CN" / NAME)
    print("wrote", NAME, "(en, zh-CN)")
