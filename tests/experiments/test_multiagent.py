"""Chat, agent, multi-agent on the same question: every call metered, and the order of their token bills."""

import agentlab
from agentlab.experiments.multiplying import OrchestratorPolicy, chat_answer, run_multiagent, token_ratios, total_tokens


def test_chat_is_one_call_without_tools_and_names_the_warmest(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    run = chat_answer(client, ["Oslo", "Cairo"])
    assert run.model_calls == 1 and run.final_text.startswith("Cairo")


def test_orchestrator_delegates_one_sub_agent_per_city_and_saves_one_note(tmp_path):
    client = agentlab.connect("sim", policy=OrchestratorPolicy(), quiet=True)
    run, subs = run_multiagent(client, ["Paris", "London", "Oslo"], tmp_path)
    assert [r["name"] for r in run.tool_results] == ["research_city"] * 3 + ["save_note"]
    assert len(subs) == 3 and all(s.model_calls == 2 for s in subs)  # get_weather, then a one-sentence answer
    assert run.model_calls == 5 + sum(s.model_calls for s in subs)  # the orchestrator's own 5 calls and theirs
    assert (tmp_path / "notes.md").read_text().count("\n") == 1
    assert total_tokens(run) > sum(total_tokens(s) for s in subs)


def test_token_bills_order_chat_then_agent_then_multi_agent(tmp_path):
    for n in (2, 5):
        r = token_ratios(agentlab.city_names()[:n], tmp_path)
        assert r["chat tokens"] < r["agent tokens"] < r["multi-agent tokens"]
        assert r["sub-agents"] == n and r["multi-agent calls"] == r["agent calls"] + 2 * n
        assert r["agent / chat"] > 4 and r["multi-agent / chat"] / r["agent / chat"] < 15 / 4
