"""The harness's own lines a student reads in a zh-CN notebook come out in Chinese; English stays as it was.

Each line goes through the figures' translation tables (``agentlab.views.i18n.tr``, keyed by the notebook's
language): connect()'s mode notice, why a workflow stopped (``Run.detail``), the USD guard's stop detail and
the session cap's refusal. What the model reads (tool errors, a guard's "Not run") follows the task's language
instead, through ``agentlab.hints`` (tests/test_hints_zh.py).
"""

from __future__ import annotations

import re

import pytest

import agentlab
from agentlab.experiments.patterns import data_line
from agentlab.guards import Limits
from agentlab.run import StopReason
from agentlab.sim.models.misbehaving import Looper
from agentlab.workflows import run_evaluator, run_orchestrator, run_vote

CJK = re.compile(r"[\u4e00-\u9fff]")
WORKER = dict(
    worker_system="Write one sentence on the city's weather.", synth_system="Combine the parts into one short note."
)


def _details() -> dict[str, str]:
    """Why each of notebook 04b's workflows and 04's vote stopped, from the same calls its cells make (offline)."""
    sim = agentlab.connect("sim", quiet=True)
    ctx = dict(context=lambda s: data_line([s["title"]]), **WORKER)
    task = "Which is warmest today? Answer in at most 20 words. " + data_line(["Paris", "Madrid", "Oslo"])
    return {
        "orchestrator": run_orchestrator(sim, "Which is warmer today, Paris, Madrid or Oslo?", **ctx).detail,
        "worker failed": run_orchestrator(sim, "Which is warmer today, Paris, Atlantis or Oslo?", **ctx).detail,
        "accepted": run_evaluator(sim, task, max_rounds=3).detail,
        "max rounds": run_evaluator(
            sim,
            "Which is warmest today? Answer in at most 5 words. " + data_line(["Paris", "Madrid", "Oslo"]),
            max_rounds=2,
        ).detail,
        "vote": run_vote(
            sim,
            "I was charged twice this month.",
            ["billing", "technical"],
            voters=[f"You are reviewer {i} of 3." for i in (1, 2, 3)],
        ).detail,
    }


def test_why_a_workflow_stopped_reads_in_chinese_in_the_zh_cn_edition_and_is_unchanged_in_english(monkeypatch):
    en = _details()
    assert en["worker failed"] == "workers for ['Atlantis'] failed or timed out; synthesised from the other 2"
    assert en["accepted"].startswith("accepted in round 2 with score") and en["orchestrator"] == "3 workers synthesised"
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")  # what the zh-CN kernel's folder picks, with the same code
    zh = _details()
    assert zh["worker failed"] == "['Atlantis'] 的工作者失败或超时；由其余 2 个工作者的结果合成"
    assert zh["orchestrator"] == "合成了 3 个工作者的结果" and zh["accepted"].startswith("第 2 轮通过，得分")
    assert zh["max rounds"].startswith("max_rounds=2 轮后仍未通过：最后得分") and zh["vote"].startswith("投票 {")
    assert all(CJK.search(v) for v in zh.values()), zh


def test_connects_notice_reads_in_chinese_in_the_zh_cn_edition(monkeypatch, capsys):
    agentlab.connect("sim")
    english = capsys.readouterr().err.strip()
    assert english == (
        "agentlab: simulated Claude (claude-sonnet-5-5), offline; token counts are estimates. "
        "Set ANTHROPIC_API_KEY to go live."
    )
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    agentlab.connect("sim", max_usd=0.5)
    assert capsys.readouterr().err.strip() == (
        "agentlab：模拟的 Claude（claude-sonnet-5-5），离线运行；token 数是估算值；"
        "会话上限 $0.5。设置 ANTHROPIC_API_KEY 即可改用真实 API。"
    )


@pytest.mark.parametrize(
    "note, chinese",
    [
        (
            "agentlab: replaying c.json (3 recorded calls to http://127.0.0.1:9), offline; usage is what was recorded.",
            "agentlab：回放 c.json（录有 3 次发往 http://127.0.0.1:9 的调用），离线运行；用量是录制时的数值。",
        ),
        (
            "agentlab: live calls to https://api.anthropic.com with claude-opus-5; usage and cost are real; session cap $0.5.",
            "agentlab：真实调用，发往 https://api.anthropic.com，模型 claude-opus-5；用量和花费都是真实的；会话上限 $0.5。",
        ),
        (
            "agentlab: live calls to https://api.anthropic.com with claude-opus-5; usage and cost are real; no spending cap "
            "(connect(max_usd=...)); recording to r.json.",
            "agentlab：真实调用，发往 https://api.anthropic.com，模型 claude-opus-5；用量和花费都是真实的；"
            "没有花费上限（connect(max_usd=...)）；录制到 r.json。",
        ),
        (
            "agentlab: live calls to http://localhost:11434 with qwen3, a server that is not Anthropic's API: usage is what it "
            "reports, its model is neither Claude nor the simulator; session cap $0.5.",
            "agentlab：真实调用，发往 http://localhost:11434，模型 qwen3；这不是 Anthropic 的 API 服务器：用量是它自己报告的，"
            "它的模型既不是 Claude，也不是模拟器；会话上限 $0.5。",
        ),
    ],
)
def test_the_replay_and_live_notices_have_their_chinese(note, chinese):
    from agentlab.views.i18n import tr

    assert tr(note, "zh-CN") == chinese and tr(note, "en") == note


def test_the_usd_guard_and_the_session_cap_explain_their_stop_in_chinese_in_the_zh_cn_edition(monkeypatch, tmp_path):
    def stops() -> tuple[str, str]:
        guarded = agentlab.run_agent(
            agentlab.connect("sim", policy=Looper(), quiet=True),
            agentlab.city_task(["Paris", "London"]),
            agentlab.task_tools(tmp_path),
            limits=Limits(max_turns=50, max_usd=0.02),
        )
        capped = agentlab.run_agent(
            agentlab.connect("sim", policy=Looper(), max_usd=0.02, quiet=True),
            agentlab.city_task(["Paris", "London"]),
            agentlab.task_tools(tmp_path),
            max_turns=50,
        )
        assert guarded.stop_reason is capped.stop_reason is StopReason.USD_BUDGET
        return guarded.detail, capped.detail

    guard, cap = stops()
    assert guard.startswith("the next call could cost up to $") and guard.endswith("so it was not sent")
    assert cap.startswith("session cap max_usd=0.02: spent $") and cap.endswith("make the run smaller")
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    guard, cap = stops()
    assert guard.startswith("下一次调用最多可能花费 $") and guard.endswith("所以没有发送"), guard
    assert cap.startswith("会话上限 max_usd=0.02：已花费 $") and cap.endswith("或把运行改小"), cap
