import subprocess
import sys

import pytest

from agentlab.cli import main


def test_compare_prints_the_table_and_writes_the_png(tmp_path, capsys):
    png = tmp_path / "c.png"
    assert main(["compare", "--cities", "Paris", "London", "--png", str(png), "--out", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "agent" in out and "workflow" in out and "re-prefill tokens" in out
    assert png.stat().st_size > 10_000
    assert (tmp_path / "runs" / "agent.jsonl").exists() and (tmp_path / "runs" / "workflow.jsonl").exists()


def test_unknown_city_is_a_usage_error_with_suggestions(capsys):
    with pytest.raises(SystemExit) as e:
        main(["compare", "--cities", "Pariss", "London"])
    assert e.value.code == 2 and "unknown city 'Pariss'; did you mean Paris?" in capsys.readouterr().err


def test_one_city_is_refused(capsys):
    assert main(["compare", "--cities", "Paris"]) == 2
    assert "two or more cities" in capsys.readouterr().err


def test_live_without_key_exits_2_naming_the_variable(capsys):
    assert main(["compare", "--live"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_bad_port_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["serve", "--port", "http"])
    assert e.value.code == 2 and "--port 'http' is not a number" in capsys.readouterr().err


def test_module_entry_point_shows_usage():
    proc = subprocess.run([sys.executable, "-m", "agentlab"], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage: agentlab" in proc.stderr


def test_help_names_the_real_default_model(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = capsys.readouterr().out
    assert "claude-sonnet-5-5" in out and "4-5" not in out


def test_live_without_network_is_one_line_saying_what_to_do(monkeypatch, capsys, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on: the connection is refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    assert main(["compare", "--live", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    failure = [ln for ln in err.splitlines() if not ln.startswith("agentlab: live calls")]  # minus the mode notice
    assert len(failure) == 1 and "Traceback" not in err, err
    assert "could not reach the API" in err and "check your network connection" in err and "offline" in err


def test_make_lab_serves_the_repository_root_with_notebooks_shown_first():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(["make", "-n", "-W", "pyproject.toml", "lab"], cwd=root, capture_output=True, text=True)
    cmd = proc.stdout.split("jupyter lab", 1)[1]
    assert f'--ServerApp.root_dir="{root}"' in cmd and "--ContentsManager.preferred_dir=notebooks" in cmd
    assert (root / "notebooks").is_dir() and (root / "exercises").is_dir()


def _live_on_the_simulator(monkeypatch):
    """`--live` with a key, its calls answered by the simulator (no network): the live code path, priced live."""
    import agentlab.client
    from agentlab.sim.server import Simulator

    real = agentlab.client.connect
    made = []

    def connect(mode="auto", **kwargs):
        if mode == "live":
            kwargs["transport"] = Simulator().transport()
        made.append(real(mode, **kwargs))
        return made[-1]

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    monkeypatch.setattr(agentlab.client, "connect", connect)
    return made


def test_live_compare_is_capped_by_default(monkeypatch, capsys, tmp_path):
    from agentlab.cli import LIVE_MAX_USD

    made = _live_on_the_simulator(monkeypatch)
    assert main(["compare", "--live", "--out", str(tmp_path)]) == 0
    assert made[0].agentlab_cap.max_usd == LIVE_MAX_USD
    assert f"session cap ${LIVE_MAX_USD:g}" in capsys.readouterr().err


def test_a_cap_that_stops_the_run_says_which_cap_what_was_spent_and_how_to_raise_it(monkeypatch, capsys, tmp_path):
    _live_on_the_simulator(monkeypatch)
    assert main(["compare", "--live", "--max-usd", "0.000001", "--out", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if line.startswith("agentlab compare:")]
    assert len(said) == 1, captured.err
    assert "--max-usd 1e-06 stopped the agent and the workflow" in said[0] and "$0.0000 spent" in said[0]
    assert "Raise the cap" in said[0] and "--max-usd 4e-06" in said[0]
    assert "usd_budget" in captured.out  # the table's stop row


def test_a_bad_cap_is_a_usage_error_with_an_example(capsys):
    with pytest.raises(SystemExit) as e:
        main(["compare", "--live", "--max-usd", "-1"])
    assert e.value.code == 2 and "--max-usd '-1': a cap is a positive number of US dollars" in capsys.readouterr().err


def test_the_default_cap_leaves_room_for_the_comparison_on_the_dearest_model():
    from agentlab.cli import LIVE_MAX_USD
    from agentlab.experiments.preview import preview

    cost = sum(preview(["Paris", "London"], "claude-opus-5", kind).cost_usd for kind in ("agent", "workflow"))
    assert 3 * cost < LIVE_MAX_USD, cost
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert f"capped at ${LIVE_MAX_USD:.2f} unless `--max-usd`" in readme


def test_a_simulated_demo_with_a_key_set_says_how_to_go_live_and_what_it_would_cost(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    assert main(["compare", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "Set ANTHROPIC_API_KEY to go live" not in captured.err + captured.out
    assert "ANTHROPIC_API_KEY is set, but this client is simulated" in captured.err
    line = next(ln for ln in captured.out.splitlines() if ln.startswith("ANTHROPIC_API_KEY is set:"))
    from agentlab.client import default_model
    from agentlab.experiments.preview import preview

    calls = sum(preview(["Paris", "London"], default_model("live"), kind).calls for kind in ("agent", "workflow"))
    assert "`agentlab compare --live`" in line and f"about {calls} calls" in line and "capped at $0.10" in line
    assert default_model("live") in line


def test_without_a_key_the_demo_says_how_to_set_one(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["compare", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "Set ANTHROPIC_API_KEY to go live" in captured.err and "ANTHROPIC_API_KEY is set" not in captured.out
