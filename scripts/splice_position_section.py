"""Insert the "Position and length" section into notebook 10 (both editions), idempotently.

    .venv/bin/python scripts/splice_position_section.py [REPO_ROOT]

The section (issue 13, part 2) is written here and lives in the context-engineering notebook, which
another branch owns. This script puts its cells just before the first markdown cell whose first line
is ``## Takeaway`` / ``## Takeaways`` (English) or ``## 要点`` (zh-CN), in
``notebooks/10_context_engineering.ipynb`` and ``notebooks/zh-CN/10_context_engineering.ipynb``.
Each inserted cell carries ``metadata.agentlab_section = "position"`` and a fixed id: when the cells
are already there they are replaced where they stand, so running it twice changes nothing.
The code cells are identical in both editions; the prose is tested in tests/test_position.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

SECTION = "position"
NOTEBOOK = "10_context_engineering.ipynb"
HEADINGS = {"en": ("## Takeaway", "## Takeaways"), "zh": ("## 要点",)}

CODE = [
    'from agentlab.position import layout\n'
    'lim = layout(k=20, gold_position=10)\n'
    'print(lim.prompt()[:700], "...")\n'
    'print("gold document:", lim.gold_position, "of", lim.k, "| answer:", lim.answer)',
    'import agentlab\n'
    'from agentlab.position import position_tokens\n'
    'position_tokens(agentlab.connect("sim", quiet=True), k=20)',
    'from agentlab.position_plots import plot_lost_in_the_middle\n'
    'fig = plot_lost_in_the_middle()',
    'from agentlab.position_plots import plot_context_rot\n'
    'fig = plot_context_rot()',
    'import os\n'
    'if os.environ.get("ANTHROPIC_API_KEY"):  # live only: one question per position, billed\n'
    '    from agentlab.position import live_position_check\n'
    '    display(live_position_check(agentlab.connect("live")))\n'
    'else:\n'
    '    print("no ANTHROPIC_API_KEY: the live check is skipped (the simulator cannot show attention)")',
]

EN = [
    "## Position and length: what we measure, what we can only cite\n\n"
    "Liu et al. (*Lost in the Middle*, 2023; TACL 2024) gave a model 20 documents, exactly one holding the "
    "answer, and moved that one from first to last. Build the same layout (a made-up corpus about lighthouses, "
    "so no model knows the answer by heart) and read what you would send. Look for the gold document.",
    "The prompt has the paper's shape: instruction, numbered documents, question. Now count the request for "
    "each position with `count_tokens` (free; on the simulator, our estimator). Predict: does moving the answer "
    "change the bill?",
    "Every position costs the same 1,504 input tokens (an estimate); only the tokens a reader passes before the "
    "answer change, from 38 to 1,415. The harness sees no difference between these requests. Whether a model "
    "still finds the answer in the middle depends on its attention, which the simulator does not model, so the "
    "accuracy below is published, not simulated.",
    "Liu et al.'s Table 6: accuracy for each position of the answer among 20 documents. Look at the lowest point "
    "of each line, and at the dashed line: GPT-3.5-Turbo given no documents at all.",
    "GPT-3.5-Turbo answered 75.8% of the questions with the answer first and 53.8% with it tenth, below the 56.1% "
    "it scored with no documents. Claude-1.3's curve is flatter (59.9% first, 55.9% at its lowest, 60.1% last). "
    "These are 2023 models: the paper does not say how large the effect is on today's strongest models.",
    "With a key you can ask one real model the same question with the answer at each position. The cell labels "
    "the result with the model and the date: one run, one question per position, an anecdote beside the table, "
    "not a measurement of accuracy. Without a key it does nothing.",
    "One answer per position cannot estimate an accuracy: the paper averaged 2,655 questions per position. "
    "Treat a live row as a reason to test your own task, not as a result.",
    "Chroma's *Context Rot* (2025, 18 models) varies length instead of position. It is a commercial report, not "
    "peer reviewed, and its tasks are deliberately simple. Its charts' values are not stored anywhere we could "
    "read them, so we do not plot them; its repository ships one model's raw LongMemEval answers, which we count.",
    "GPT-4.1 answered 87.3% of 306 questions given only the relevant part of a chat history (about 269 tokens) and "
    "62.4% given the whole history (about 112,673 tokens). One model, one published run, from the maker of a "
    "retrieval product. Sources, tables and versions: `agentlab/data/published/`.",
]

ZH = [
    "## 位置与长度：哪些我们能测量，哪些只能引用\n\n"
    "Liu 等人（《Lost in the Middle》，2023；TACL 2024）给模型 20 篇文档，其中只有一篇含有答案，再把这篇从第一篇"
    "移到最后一篇。这里搭出同样的布局（一个虚构的灯塔语料库，没有模型能凭记忆答出），读一读你将发送的内容。找一找含答案的那篇文档。",
    "提示的结构与论文相同：说明、编号的文档、问题。现在用 `count_tokens`（免费；在模拟器上是我们的估算器）"
    "统计每个位置的请求。先预测：移动答案会改变账单吗？",
    "每个位置的输入都是同样的 1,504 个令牌（估算值）；变化的只是读到答案之前要经过的令牌数，从 38 到 1,415。"
    "对框架来说这些请求没有区别。模型在中间还能不能找到答案取决于它的注意力，而模拟器并不模拟注意力，"
    "所以下面的准确率是已发表的结果，不是模拟出来的。",
    "Liu 等人的表 6：20 篇文档中答案位于各个位置时的准确率。看每条线的最低点，以及虚线：完全不给文档时的 GPT-3.5-Turbo。",
    "答案在第一篇时，GPT-3.5-Turbo 答对 75.8%；答案在第十篇时只有 53.8%，低于完全不给文档时的 56.1%。"
    "Claude-1.3 的曲线更平（第一篇 59.9%，最低 55.9%，最后一篇 60.1%）。这些都是 2023 年的模型："
    "论文并不能说明这一效应在今天最强的模型上有多大。",
    "有密钥时，可以让一个真实模型回答同一个问题，答案依次放在各个位置。这个单元格会给结果标上模型和日期："
    "一次运行、每个位置一个问题，只是放在表格旁的一个例子，不是对准确率的测量。没有密钥时它什么也不做。",
    "每个位置只有一个回答，无法估计准确率：论文在每个位置上平均了 2,655 个问题。"
    "把实时运行的结果当作在你自己的任务上做测试的理由，而不是结论。",
    "Chroma 的《Context Rot》（2025，18 个模型）改变的是长度而不是位置。它是商业报告，未经同行评审，"
    "任务也被刻意简化。它的图表数值没有以我们能读取的形式保存，所以我们不画它们；它的代码仓库附带了一个模型在 "
    "LongMemEval 上的原始回答，我们把它们数了出来。",
    "只给聊天历史中的相关部分（约 269 个令牌）时，GPT-4.1 答对了 306 个问题中的 87.3%；给出全部历史"
    "（约 112,673 个令牌）时只答对 62.4%。一个模型、一次已发表的运行，出自一家做检索产品的公司。"
    "来源、表格和版本见 `agentlab/data/published/`。",
]


def cells(lang: str) -> list:
    """The section's cells in ``lang`` ("en" or "zh"): markdown and code alternating as the notebook reads."""
    prose = EN if lang == "en" else ZH
    order = [("md", 0), ("code", 0), ("md", 1), ("code", 1), ("md", 2), ("md", 3), ("code", 2), ("md", 4),
             ("md", 5), ("code", 4), ("md", 6), ("md", 7), ("code", 3), ("md", 8)]
    out = []
    for n, (kind, i) in enumerate(order, start=1):
        cell = (nbformat.v4.new_markdown_cell(prose[i]) if kind == "md" else nbformat.v4.new_code_cell(CODE[i]))
        cell.id = f"agentlab-{SECTION}-{n:02d}"
        cell.metadata["agentlab_section"] = SECTION
        out.append(cell)
    return out


def splice(path: Path, lang: str) -> bool:
    """Put the section into the notebook at ``path``; True if the file changed."""
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    mine = [i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("agentlab_section") == SECTION]
    new = cells(lang)
    if nb.nbformat_minor < 5:  # cell ids arrived in nbformat 4.5; older notebooks must not carry them
        for cell in new:
            del cell["id"]
    if mine:
        at = mine[0]
        nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("agentlab_section") != SECTION]
    else:
        heads = HEADINGS[lang]
        at = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
                   and c.source.strip().split("\n")[0].strip() in heads), None)
        if at is None:
            raise SystemExit(f"{path}: no markdown cell whose first line is {' or '.join(map(repr, heads))}; "
                             "add the takeaway heading, then run this again")
    nb.cells[at:at] = new
    after = nbformat.writes(nb)
    if after != before:
        nbformat.write(nb, path)
    return after != before


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    for lang, path in (("en", root / "notebooks" / NOTEBOOK), ("zh", root / "notebooks" / "zh-CN" / NOTEBOOK)):
        if not path.exists():
            raise SystemExit(f"{path} does not exist: is {root} the repository root, with notebook 10 merged?")
        print(f"{path}: {'section inserted or updated' if splice(path, lang) else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
