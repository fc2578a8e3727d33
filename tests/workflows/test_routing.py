import pytest

from agentlab import StopReason
from agentlab.workflows import run_router

ROUTES = {
    "billing": "You are the billing team. Write a short reply. Offer a refund check within 3 business days.",
    "technical": "You are the technical team. Write a short reply. Tell them to reinstall the app.",
}
FALLBACK = "You are the general help desk. Write a short reply. Promise a human will answer within a day."


def test_router_sends_a_ticket_to_its_branch(sim):
    run = run_router(sim, "I was charged twice, please refund me.", ROUTES, fallback=FALLBACK)
    assert run.stop_reason is StopReason.COMPLETED and run.final_text.startswith("Billing team")
    assert [s.path for s in run.steps] == ["router/classify", "router/branch[billing]"]


def test_unknown_label_goes_to_the_declared_fallback_not_a_key_error(fake, as_json):
    client = fake(lambda p, i: as_json({"label": "refunds"}) if i.get("output_config") else "Help desk: noted.")
    run = run_router(client, "Money back please", ROUTES, fallback=FALLBACK)
    assert run.stop_reason is StopReason.FALLBACK and run.final_text == "Help desk: noted."
    assert "label 'refunds' has no route" in run.detail and run.steps[-1].path == "router/fallback"


def test_other_label_from_the_simulated_classifier_also_falls_back(sim):
    run = run_router(sim, "Do you have an office in Lisbon?", ROUTES, fallback=FALLBACK)
    assert run.stop_reason is StopReason.FALLBACK and "'other'" in run.detail


def test_unparseable_classification_is_answered_by_the_fallback_and_says_so(fake):
    run = run_router(fake(lambda p, i: "billing, I think"), "refund?", ROUTES, fallback=FALLBACK)
    assert run.stop_reason is StopReason.UNPARSEABLE_OUTPUT and run.steps[0].raw == "billing, I think"
    assert "fallback answered" in run.detail


def test_router_refuses_a_missing_fallback(sim):
    with pytest.raises(ValueError, match="fallback=''"):
        run_router(sim, "x", ROUTES, fallback="")
