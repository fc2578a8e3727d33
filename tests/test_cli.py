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
    failure = [l for l in err.splitlines() if not l.startswith("agentlab: live calls")]  # minus the mode notice
    assert len(failure) == 1 and "Traceback" not in err, err
    assert "could not reach the API" in err and "check your network connection" in err and "offline" in err


def test_make_lab_serves_the_repository_root_with_notebooks_shown_first():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(["make", "-n", "-W", "pyproject.toml", "lab"], cwd=root, capture_output=True, text=True)
    cmd = proc.stdout.split("jupyter lab", 1)[1]
    assert f'--ServerApp.root_dir="{root}"' in cmd and "--ContentsManager.preferred_dir=notebooks" in cmd
    assert (root / "notebooks").is_dir() and (root / "exercises").is_dir()
