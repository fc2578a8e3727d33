import pytest

import agentlab


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Tests never call the real API: no key, no base URL from the environment."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("AGENTLAB_MODEL", raising=False)


@pytest.fixture
def sim():
    """A fresh simulated client (default careful policy)."""
    return agentlab.connect("sim", quiet=True)


@pytest.fixture
def tools(tmp_path):
    """The city task's tools, with notes kept in a temp folder."""
    return agentlab.task_tools(tmp_path / "notes")
