"""Roles the simulated model plays inside workflows, chosen from what the request asks.

``role_for(request)`` reads the request the way a model would and picks one (``None``: the default
agent behaviour of ``CarefulAgent`` applies):

- an output schema (``output_config.format``, see ``structured.py``) with a ``label`` or ``vote``
  enum: **classify**; with ``subtasks``: **plan**; with ``score``: **critique**; any other: **extract**;
- no schema but a system prompt that asks to summarise: **summarise**; to write/draft/reply/combine: **write**;
- tools beyond the city task's (``get_itinerary``, ``get_forecast``): the **adaptive agent** (``adaptive.py``).

Every role is deterministic and uses only what the request contains (plus the city names the
simulated model "knows", as ``CarefulAgent`` does). A request written in Chinese (its input, or
its system prompt for the writer) gets Chinese text back; system prompts may ask in Chinese too
(写/合并/回复: write; 总结/概括: summarise). Their known habits, so that the workflows have
something to do: the writer's first draft is wordy and it shortens when feedback asks; a classifier
facing a tie between labels breaks it by a hash of the request, so voters with different prompts
can disagree on an ambiguous input.
"""

from __future__ import annotations

import hashlib
import re
from typing import Callable

from agentlab.sim.models.city_task import compare_text
from agentlab.sim.models.reading import cities_in, is_chinese, text_of
from agentlab.sim.policy import Reply
from agentlab.sim.structured import fit, output_schema

LEXICON = {
    "billing": ["charge", "charged", "refund", "invoice", "payment", "bill", "price", "subscription", "twice"],
    "technical": ["error", "crash", "crashes", "bug", "broken", "fails", "not working", "slow", "app", "install"],
    "account": ["password", "reset", "login", "log in", "email address", "username", "delete my account", "locked"],
    "shipping": ["delivery", "shipped", "parcel", "package", "tracking", "courier"],
    "compare": ["比较"],
    "forecast": ["预报"],
}
"""Words the simulated classifier associates with common labels (a label's own name also counts)."""

_WORD_LIMIT = re.compile(r"at most (\d+) words", re.I)
_CHAR_LIMIT = re.compile(r"最多用?\s*(\d+)\s*个字")
"""A Chinese length limit ("最多用 30 个字"): counted in characters, a number or a Latin word counting as one."""
_TEMPS = re.compile(
    r"([A-Z][\w-]*(?: [A-Z][\w-]*)*|[\u4e00-\u9fff]+)[:：]\s*(-?\d+(?:\.\d+)?)\s*°C"
    r"(?:(?:,\s*([a-z ]+))|(?:，\s*([\u4e00-\u9fff]+)))?"
)
"""``City: 18.5°C`` (optionally ``, sunny``) or ``城市：18.5°C``（optionally ``，晴``) in a prompt: the data a
workflow's code put there."""


def _temps(text: str) -> dict[str, float]:
    return {c: float(v) for c, v, _, _ in _TEMPS.findall(text)}


def _zh_length(text: str) -> int:
    """The length of a Chinese text as a limit in 字 counts it: characters, each number or Latin word as one."""
    return len(re.findall(r"[\u4e00-\u9fff]|[A-Za-z0-9.]+", text))


def role_for(request: dict) -> Callable[[dict], Reply] | None:
    """The role this request asks for, or ``None`` for the default agent behaviour."""
    tools = {t.get("name") for t in request.get("tools") or []}
    if tools & {"get_itinerary", "get_forecast"}:
        from agentlab.sim.models.adaptive import adaptive_agent

        return adaptive_agent
    if tools:
        return None
    schema = output_schema(request)
    props = (schema or {}).get("properties") or {}
    if schema is not None:
        if "label" in props or "vote" in props:
            return classify
        if "subtasks" in props:
            return plan
        if "score" in props:
            return critique
        return extract
    system = _system(request).casefold()
    if re.search(r"summari[sz]e|总结|概括", system):
        return summarise
    if re.search(r"\b(write|draft|reply|combine)\b|写|合并|回复", system):
        return write
    return None


def _system(request: dict) -> str:
    system = request.get("system") or ""
    return system if isinstance(system, str) else text_of(system)


def _user(request: dict) -> str:
    msgs = [m for m in request.get("messages", []) if m.get("role") == "user"]
    return text_of(msgs[-1]["content"]) if msgs else ""


def _json(request: dict, values: dict) -> Reply:
    return Reply([{"type": "text", "text": fit(output_schema(request) or {}, values)}])


def classify(request: dict) -> Reply:
    """Pick the enum label whose words appear most in the input. When the leader is ahead by fewer
    than two words, the pick among the close labels is a hash of the request (an unsure model)."""
    props = output_schema(request)["properties"]
    key = "label" if "label" in props else "vote"
    labels = list(props[key].get("enum") or [])
    temps = {c: t for c, t in _temps(_user(request)).items() if c in labels}
    if len(temps) >= 2 and re.search(r"warm|暖", _user(request), re.I):  # a question the data answers
        return _json(request, {key: max(temps, key=temps.get)})
    text = _user(request).casefold()
    scores = {lab: sum(w in text for w in {lab.casefold(), *LEXICON.get(lab, [])}) for lab in labels}
    best = max(scores.values(), default=0)
    tied = [lab for lab in labels if scores[lab] >= best - 1 and scores[lab] > 0]  # a lead of 1 is not sure
    if len(tied) > 1 and best - sorted(scores.values())[-2] >= 2:
        tied = [lab for lab in labels if scores[lab] == best]
    if not tied:  # nothing matched: the last label (by convention "other") or an honest "unknown"
        return _json(request, {key: labels[-1] if labels else "unknown"})
    pick = tied[int(hashlib.sha256((_system(request) + text).encode()).hexdigest(), 16) % len(tied)]
    return _json(request, {key: pick})


def extract(request: dict) -> Reply:
    """Fill each schema property from the input: ``cities`` from the city names it mentions, other
    fields from ``name: value`` lines."""
    text = _user(request)
    values: dict = {}
    for name, spec in (output_schema(request).get("properties") or {}).items():
        if name == "cities":
            values[name] = cities_in(text)
            continue
        m = re.search(rf"{re.escape(name)}\s*:\s*([^\n;]+)", text, re.I)
        if m and spec.get("type") in ("number", "integer"):
            num = re.search(r"-?\d+(?:\.\d+)?", m.group(1))
            values[name] = (float if spec["type"] == "number" else int)(float(num.group())) if num else 0
        elif m:
            values[name] = m.group(1).strip()
    return _json(request, values)


def plan(request: dict) -> Reply:
    """Decompose the task into one subtask per city it names (one per listed item otherwise)."""
    text = _user(request)
    task = text.split("\n", 1)[0]
    items = cities_in(task) or [s.strip() for s in re.split(r";|\band\b", task) if s.strip()]
    item_spec = (output_schema(request)["properties"]["subtasks"].get("items") or {}).get("properties") or {}
    subtasks = []
    for item in items:
        how = (
            f"用一句话描述{item}今天的天气，并给出气温。"
            if is_chinese(task)
            else f"Describe today's weather in {item} in one sentence, with its temperature."
        )
        sub = {"city": item, "instruction": how}
        subtasks.append({k: sub.get(k, item) for k in item_spec} if item_spec else sub)
    return _json(request, {"subtasks": subtasks})


def critique(request: dict) -> Reply:
    """Score a draft 0-10 against the task's checkable requirements, with one reason per miss."""
    text = _user(request)
    task = text.split("Draft:", 1)[0]
    draft = text.split("Draft:", 1)[1] if "Draft:" in text else ""
    temps = _temps(task)
    checks: list[tuple[bool, str]] = []
    if is_chinese(task):
        return _critique_zh(request, task, draft, temps)
    for city, t in temps.items():
        checks.append((city in draft and f"{t:g}" in draft, f"it should give {city}'s temperature ({t:g}°C)"))
    if temps:
        top = max(temps, key=temps.get)
        checks.append(
            (re.search(rf"{re.escape(top)}[^.]*warm", draft) is not None, f"it should say that {top} is warmest")
        )
    limit = _WORD_LIMIT.search(task)
    if limit:
        n, most = len(draft.split()), int(limit.group(1))
        checks.append((n <= most, f"too long: {n} words where the task allows at most {most}"))
    passed = sum(ok for ok, _ in checks)
    score = round(10 * passed / len(checks)) if checks else 10
    return _json(request, {"score": score, "reasons": [why for ok, why in checks if not ok]})


def _critique_zh(request: dict, task: str, draft: str, temps: dict[str, float]) -> Reply:
    """``critique`` for a task written in Chinese: the same checks, the limit in 字, the reasons in Chinese."""
    checks = [(city in draft and f"{t:g}" in draft, f"应当给出{city}的气温（{t:g}°C）") for city, t in temps.items()]
    if temps:
        top = max(temps, key=temps.get)
        checks.append((re.search(rf"{re.escape(top)}[^。]*暖", draft) is not None, f"应当说明{top}最暖和"))
    limit = _CHAR_LIMIT.search(task) or _WORD_LIMIT.search(task)
    if limit:
        n, most = _zh_length(draft), int(limit.group(1))
        checks.append((n <= most, f"太长了：{n} 个字，任务最多允许 {most} 个字"))
    passed = sum(ok for ok, _ in checks)
    score = round(10 * passed / len(checks)) if checks else 10
    return _json(request, {"score": score, "reasons": [why for ok, why in checks if not ok]})


def summarise(request: dict) -> Reply:
    """The input's first sentence, cut to 25 words."""
    first = re.split(r"(?<=[.!?])\s", _user(request).strip(), maxsplit=1)[0]
    words = first.split()
    return Reply([{"type": "text", "text": " ".join(words[:25]) + (" ..." if len(words) > 25 else "")}])


def write(request: dict) -> Reply:
    """Weather data in the input: a comparison (wordy unless feedback asked for fewer words).
    Otherwise: a short support reply in the voice the system prompt sets."""
    text, system = _user(request), _system(request)
    zh = is_chinese(text.split("Feedback:", 1)[0])
    # the data, not an earlier draft: a Chinese draft's "开罗最暖和：29°C" would read as a city named 开罗最暖和
    temps = _temps(text.split("Previous draft:", 1)[0] if zh else text.split("Feedback:", 1)[0])
    if len(temps) == 1:
        found = _TEMPS.search(text)
        (city, t), cond = next(iter(temps.items())), (found.group(3) or found.group(4) or "").strip()
        if zh:
            return Reply([{"type": "text", "text": f"{city}：{t:g}°C" + (f"，{cond}。" if cond else "。")}])
        return Reply([{"type": "text", "text": f"{city}: {t:g}°C" + (f", {cond}." if cond else ".")}])
    if temps:
        answer = compare_text(temps, zh)
        feedback = text.split("Feedback:", 1)[-1] if "Feedback:" in text else ""
        if re.search(r"words|shorter|too long|太长|更短", feedback, re.I):
            return Reply([{"type": "text", "text": answer}])
        if zh:
            lines = "".join(f"{c}：{v:g}°C。" for c, v in temps.items())
            return Reply([{"type": "text", "text": f"下面是今天各个城市的天气。{lines}总的来说，{answer}"}])
        lines = " ".join(f"{c}: {v:g}°C." for c, v in temps.items())
        return Reply([{"type": "text", "text": f"Here is today's weather, city by city. {lines} Overall, {answer}"}])
    team = re.search(r"You are (?:the )?([\w -]+?)(?: team| desk)?\.", system)
    promise = [s for s in re.split(r"(?<=\.)\s", system) if re.match(r"(Offer|Promise|Always|Tell)", s)]
    about = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0][:80]
    head = f"{team.group(1).strip().capitalize()} team" if team else "Support"
    reply = f'{head}: thank you for writing about "{about}". ' + (promise[0] if promise else "We will look into it.")
    return Reply([{"type": "text", "text": reply}])
