"""agentlab preview: about N calls, N input tokens, about $X, about T s, with the price data's date."""

import re

from agentlab.cli import main
from agentlab.experiments.preview import Preview, preview
from agentlab.meter.prices import price_data_date

LINE = re.compile(
    r"^about (\d+) calls?, ([\d,]+) input tokens, (about \$\d+\.\d{4}|unknown price), about \d+ s "
    r"\((agent|workflow), [\w-]+; tokens and time simulated; prices: genai-prices [\d.]+, "
    r"price data checked up to 20\d\d-\d\d-\d\d\)$"
)


def test_price_data_has_a_version_and_a_date():
    version, date = price_data_date()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version) and re.fullmatch(r"20\d\d-\d\d-\d\d", date)


def test_preview_line_matches_the_run_it_describes():
    p = preview(["Paris", "London", "Oslo"], "claude-opus-5")
    assert p.calls >= 2 and p.cost_usd > 0 and p.seconds > 0
    m = LINE.match(p.line())
    assert m and int(m.group(1)) == p.calls and int(m.group(2).replace(",", "")) == p.input_tokens


def test_unknown_price_is_shown_as_unknown_never_zero():
    p = preview(["Paris", "London"], "claude-mythos-5")
    assert p.cost_usd is None and "unknown price" in p.line() and "$0" not in p.line()


def test_one_call_is_singular():
    assert Preview("m", "workflow", 1, 40, 10, 0.0001, 1.2).line().startswith("about 1 call, 40 input tokens")


def test_cli_preview_prints_the_line(capsys):
    assert main(["preview", "--cities", "Paris", "London", "--model", "claude-haiku-5-5", "--cache"]) == 0
    assert LINE.match(capsys.readouterr().out.strip())
    assert main(["preview", "--workflow", "--cache"]) == 2
    assert "agent only" in capsys.readouterr().err


def test_the_preview_is_the_run_agentlab_compare_makes(tmp_path):
    """The preview once ran the sweep's one-tool-per-turn agent: 4 calls where the demo it previews makes 3."""
    from agentlab.client import connect
    from agentlab.experiments.comparison import compare

    agent, workflow = compare(connect("sim", model="claude-sonnet-5-5", quiet=True), ["Paris", "London"], tmp_path)
    for run, kind in ((agent, "agent"), (workflow, "workflow")):
        p = preview(["Paris", "London"], "claude-sonnet-5-5", kind)
        assert (p.calls, p.input_tokens, p.output_tokens) == (run.model_calls, run.input_tokens, run.output_tokens)
        assert p.cost_usd == run.cost_usd
