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
