"""Simulated latency: from usage, cached tokens cheaper, carried in a header, on the clock, into Turn.latency_s."""

import agentlab
from agentlab.sim.caching import SimClock
from agentlab.sim.latency import latency_facts, rates, simulated_latency_s


def test_every_rate_says_it_is_an_assumption():
    facts = latency_facts()
    assert "ASSUMPTIONS" in facts["source"]
    assert all(row["status"] == "assumption" for row in facts["families"])


def test_cached_tokens_are_faster_than_fresh_ones_and_output_costs_time():
    fresh = simulated_latency_s("claude-sonnet-5-5", {"input_tokens": 10000, "output_tokens": 10})
    cached = simulated_latency_s(
        "claude-sonnet-5-5", {"input_tokens": 0, "cache_read_input_tokens": 10000, "output_tokens": 10}
    )
    longer = simulated_latency_s("claude-sonnet-5-5", {"input_tokens": 10000, "output_tokens": 500})
    assert cached < fresh < longer
    assert rates("claude-haiku-5-5")["decode_tps"] > rates("claude-opus-5")["decode_tps"]


def test_turn_latency_comes_from_the_header_and_the_sim_clock_moves_by_it(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    clock = client.agentlab_simulator.clock = SimClock()
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
    expected = [
        simulated_latency_s(run.model, {"input_tokens": t.input_tokens, "output_tokens": t.output_tokens})
        for t in run.turns
    ]
    assert [round(t.latency_s, 4) for t in run.turns] == [round(e, 4) for e in expected]
    assert abs(clock() - sum(t.latency_s for t in run.turns)) < 0.01
