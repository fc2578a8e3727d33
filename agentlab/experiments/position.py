"""Position and length: the Lost-in-the-Middle layout, built so you can inspect it, and its cost measured.

Liu et al. (TACL 2024) gave a model k documents, exactly one of which (the *gold* document) holds
the answer, and moved that document from first to last. Here the same layout is built from a small
fictional corpus (made-up lighthouses and keepers, so no model knows the answer from training), as
the Messages API payload you would send, with its size counted by the simulator's estimator.

What this lab can measure is the harness's side: every position costs the same tokens, only the
offset of the answer changes. What a model *does* with the position depends on its attention and
is not simulated: ``agentlab.experiments.published`` holds the published accuracy figures, cited.

Our documents are shorter than the paper's (about 70 estimated tokens each against its Wikipedia
chunks of up to 100 tokens), so 20 of them make about 1,500 tokens where the paper's made about 4K.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from agentlab.experiments.published import longmemeval_accuracy, published
from agentlab.views.figures import pyplot
from agentlab.views.i18n import localize, tr

# The instruction of Liu et al.'s multi-document QA prompt (qa.prompt in
# https://github.com/nelson-liu/lost-in-the-middle, commit 29b8a6d): instruction, documents, question.
INSTRUCTION = (
    "Write a high-quality answer for the given question using only the provided search results "
    "(some of which might be irrelevant)."
)
QUESTION = "Who kept the Varnholm Point light in the winter of 1911?"
"""The question every layout asks."""
ANSWER = "Ilse Brandvik"
"""The answer: it appears in the gold document and in no distractor."""
GOLD = (
    "Varnholm Point Light",
    "In the winter of 1911 the Varnholm Point light was kept by Ilse Brandvik, "
    "who took over the lamp after the storm of November and logged every ship that passed the reef "
    "until the spring relief boat arrived.",
)
"""The gold document (title, text)."""

_LIGHTS = [
    "Varnholm Point",
    "Skerry Head",
    "Osmund Reef",
    "Tollan Spit",
    "Graa Holm",
    "Helleby Bank",
    "Kvist Island",
    "Marrow Ness",
    "Sundby Rock",
    "Oddvar Shoal",
    "Brekke Cape",
    "Linna Sound",
    "Farsund Stack",
    "Ytre Holm",
    "Selje Narrows",
    "Rauma Point",
]
_KEEPERS = [
    "Anders Lunde",
    "Marit Solberg",
    "Per Haugen",
    "Sigrid Fossum",
    "Johan Dahl",
    "Kari Moen",
    "Einar Vik",
    "Astrid Nesse",
    "Olav Berge",
    "Tove Rud",
    "Lars Eide",
    "Ragna Holt",
]
_EVENTS = [
    "a new lens was fitted",
    "the fog bell was replaced",
    "the tower was painted red and white",
    "a supply boat ran aground on the reef",
    "the keeper's cottage was rebuilt",
    "the light was converted from oil to paraffin",
    "a telegraph line reached the station",
    "the station was inspected by the harbour board",
]
_SEASONS = ["spring", "summer", "autumn", "winter"]


@dataclass(frozen=True)
class Document:
    """One search result of the layout."""

    title: str
    """The document's title, e.g. ``"Skerry Head Light"``."""
    text: str
    """Its text (two sentences, about 40 words)."""
    gold: bool = False
    """True for the one document that contains the answer."""


def distractors(n: int, seed: int = 0) -> list[Document]:
    """``n`` distractor documents, the same for the same ``seed``: other lights, other years, other
    keepers; some about Varnholm Point itself in other years (near misses), none naming the answer."""
    if not isinstance(n, int) or not 0 <= n <= 200:
        raise ValueError(f"distractors(n={n!r}): n must be a whole number from 0 to 200")
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        light = _LIGHTS[0] if i % 5 == 2 else rng.choice(_LIGHTS[1:])
        year = rng.choice([y for y in range(1880, 1940) if not (light == _LIGHTS[0] and y == 1911)])
        keeper, event = rng.choice(_KEEPERS), rng.choice(_EVENTS)
        season = rng.choice(_SEASONS)
        text = (
            f"In the {season} of {year} {event} at the {light} light. The keeper at the time, "
            f"{keeper}, noted it in the station log, which is kept in the county archive."
        )
        docs.append(Document(f"{light} Light ({year})", text))
    return docs


@dataclass(frozen=True)
class Layout:
    """``k`` documents with the gold one at ``gold_position`` (1-based), as Liu et al. lay them out."""

    documents: tuple[Document, ...]
    """The documents in the order the prompt lists them."""
    gold_position: int
    """Where the gold document is, 1 = first."""
    question: str = QUESTION
    """The question asked after the documents."""
    answer: str = ANSWER
    """The expected answer (for checking a live model's reply by code)."""

    @property
    def k(self) -> int:
        """How many documents the prompt holds."""
        return len(self.documents)

    def prompt(self) -> str:
        """The user message's text: instruction, ``Document [i](Title: ...) text`` lines, the question."""
        lines = [f"Document [{i}](Title: {d.title}) {d.text}" for i, d in enumerate(self.documents, start=1)]
        return f"{INSTRUCTION}\n\n" + "\n".join(lines) + f"\n\nQuestion: {self.question}\nAnswer:"

    def messages(self) -> list[dict]:
        """The Messages API ``messages`` list: one user turn holding the prompt."""
        return [{"role": "user", "content": self.prompt()}]

    def payload(self, model: str, max_tokens: int = 100) -> dict:
        """A complete request body you could pass as ``client.messages.create(**payload)``."""
        return {"model": model, "max_tokens": max_tokens, "messages": self.messages()}

    def text_before_gold(self) -> str:
        """The prompt up to (not including) the gold document: what a reader passes before the answer."""
        return self.prompt().split(f"Document [{self.gold_position}](", 1)[0]


def layout(k: int = 20, gold_position: int = 1, seed: int = 0) -> Layout:
    """The layout with ``k`` documents and the gold one at ``gold_position`` (1..k); the distractors
    depend only on ``k`` and ``seed``, so moving the gold document changes nothing else."""
    if not isinstance(k, int) or not 1 <= k <= 200:
        raise ValueError(f"layout(k={k!r}): k must be a whole number from 1 to 200 (documents in the prompt)")
    if not isinstance(gold_position, int) or not 1 <= gold_position <= k:
        raise ValueError(f"layout(gold_position={gold_position!r}): must be a whole number from 1 to k={k}")
    others = distractors(k - 1, seed)
    docs = others[: gold_position - 1] + [Document(*GOLD, gold=True)] + others[gold_position - 1 :]
    return Layout(tuple(docs), gold_position)


def count(client: Any, messages: list[dict], model: str | None = None) -> int:
    """Input tokens of ``messages`` by ``client.messages.count_tokens`` (estimates on the simulator)."""
    from agentlab.client import model_of

    return client.messages.count_tokens(model=model or model_of(client), messages=messages).input_tokens


def position_tokens(client: Any, k: int = 20, positions: list[int] | None = None, model: str | None = None) -> Any:
    """One row per gold position: the prompt's input tokens and the tokens before the gold document.

    Both counted with ``count_tokens`` (free; on the simulator its estimator). The total is the same at
    every position: the harness pays the same for any order, only where the answer sits changes.
    """
    import pandas as pd

    rows = []
    for p in positions or [q for q in (1, 5, 10, 15, 20) if q <= k]:
        lay = layout(k, p)
        before = [{"role": "user", "content": lay.text_before_gold().rstrip()}]
        rows.append(
            {
                "gold position": p,
                "documents": k,
                "input tokens": count(client, lay.messages(), model),
                "tokens before the gold document": count(client, before, model),
            }
        )
    return pd.DataFrame(rows).set_index("gold position")


def live_position_check(client: Any, k: int = 20, positions: list[int] | None = None, model: str | None = None) -> Any:
    """Ask a *real* model the layout's question with the gold document at each position; one row per
    position: whether the reply names the answer (checked by code), labelled with the model and the date.

    One run, one question per position: an anecdote to set beside the published curve, not a measurement
    of it. Refuses a simulated client: the simulator does not model attention, so its answers would say
    only what it was written to say.
    """
    import datetime

    import pandas as pd

    from agentlab.client import model_of

    if getattr(client, "agentlab_simulator", None) is not None:
        raise ValueError(
            "live_position_check(client=<simulated>): the simulator does not model attention, so "
            "its answers show nothing about position; pass agentlab.connect('live') (needs ANTHROPIC_API_KEY)"
        )
    model = model or model_of(client)
    today = datetime.date.today().isoformat()
    rows = []
    for p in positions or [q for q in (1, 5, 10, 15, 20) if q <= k]:
        reply = client.messages.create(**layout(k, p).payload(model))
        text = " ".join(b.text for b in reply.content if getattr(b, "type", "") == "text")
        rows.append(
            {
                "gold position": p,
                "answer found": ANSWER.lower() in text.lower(),
                "reply": text[:80],
                "model": reply.model,
                "date": today,
                "runs": 1,
            }
        )
    return pd.DataFrame(rows).set_index("gold position")


# Figures of the published long-context results (cited, never simulated) for the position section.

SHOWN = ("GPT-3.5-Turbo", "Claude-1.3", "LongChat-13B (16K)", "MPT-30B-Instruct")
"""The models drawn by default (their 16K / 100K twins give nearly the same curves)."""
COLORS = {
    "GPT-3.5-Turbo": "#D55E00",
    "Claude-1.3": "#CC79A7",
    "LongChat-13B (16K)": "#0072B2",
    "MPT-30B-Instruct": "#009E73",
}


def plot_lost_in_the_middle(models: tuple[str, ...] = SHOWN) -> Any:
    """Published accuracy against the gold document's position at 20 documents (Liu et al., Table 6),
    with GPT-3.5-Turbo's closed-book accuracy dashed; the first, lowest and last value of each line labelled."""
    data = published("lost_in_the_middle")
    acc = data["position_accuracy_20_documents"]
    pos = acc["positions"]
    unknown = [m for m in models if m not in acc["models"]]
    if unknown:
        raise ValueError(
            f"plot_lost_in_the_middle(models=...): {unknown} not in the paper's table; "
            f"choose from {list(acc['models'])}"
        )
    fig, ax = pyplot().subplots(figsize=(8.5, 4.6), constrained_layout=True)
    for m in models:
        ys = acc["models"][m]
        color = COLORS.get(m, "#555555")
        ax.plot(pos, ys, marker="o", color=color, label=m)
        low = min(range(len(ys)), key=ys.__getitem__)
        for i in sorted({0, low, len(ys) - 1}):
            last = i == len(ys) - 1
            ax.annotate(
                f"{ys[i]:.1f}",
                (pos[i], ys[i]),
                xytext=(7, -3) if last else (0, 6 if i != low else -12),
                textcoords="offset points",
                ha="left" if last else "center",
                fontsize=8,
                color=color,
            )
    closed = data["closed_book_and_oracle"]["models"]["GPT-3.5-Turbo"]["closed_book"]
    ax.axhline(
        closed,
        color=COLORS["GPT-3.5-Turbo"],
        linestyle="--",
        linewidth=1,
        label=f"GPT-3.5-Turbo closed-book (no documents): {closed:.1f}",
    )
    ax.set_xticks(pos)
    ax.set_xlim(0, pos[-1] + 2.5)
    ax.set_xlabel("position of the document with the answer (1 = first of 20)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(45, 80)
    ax.set_title(
        "Published, not simulated: accuracy by answer position, 20 documents\n"
        "Liu et al., TACL 2024 (arXiv 2307.03172v3), Table 6; 2023 models",
        fontsize=10,
    )
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    return localize(fig)


def plot_context_rot() -> Any:
    """Chroma's shipped GPT-4.1 LongMemEval results: percent correct with only the relevant history
    (focused) and with the whole history (full), each bar labelled with its value and input size."""
    d = published("context_rot")["longmemeval_gpt_4_1"]
    acc = longmemeval_accuracy()
    fig, ax = pyplot().subplots(figsize=(6.5, 4.0), constrained_layout=True)
    names = ["focused input", "full input"]
    values = [acc["focused"], acc["full"]]
    bars = ax.bar([0, 1], values, color=["#0072B2", "#D55E00"], width=0.55)
    ax.set_xticks([0, 1], [tr(name) for name in names])  # tick texts are redrawn: translate them now
    for bar, key, v in zip(bars, ("focused", "full"), values):
        ax.annotate(
            f"{v:.1f}%",
            (bar.get_x() + bar.get_width() / 2, v),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize=9,
        )
        ax.annotate(
            f"about {d[key]['mean_input_tokens']:,} tokens",
            (bar.get_x() + bar.get_width() / 2, 4),
            ha="center",
            fontsize=8,
            color="white",
        )
    ax.set_ylim(0, 100)
    ax.set_ylabel("questions answered correctly (%)")
    ax.set_title(
        "Published, not simulated: GPT-4.1 on LongMemEval, 306 questions\n"
        "Chroma, Context Rot (2025, not peer reviewed), shipped results",
        fontsize=10,
    )
    return localize(fig)
