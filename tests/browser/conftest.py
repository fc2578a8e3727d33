"""Set-up for the real-browser test: Debian's Chromium (installed here where missing) and a JupyterLab server.

Everything started here is stopped in teardown, by the process group this module started; every
wait is bounded. Screenshots go to ``build/browser-screenshots/`` (git-ignored).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from system_packages import apt_install

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
SHOTS = ROOT / "build" / "browser-screenshots"
WORK = ROOT / "build" / "browser-notebooks"
SERVER_START_S = 180

# JupyterLab settings for the test: every cell in the DOM (no windowing, so each cell can be read),
# no autosave, no news fetch (there is no network).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium, installed with apt-get where it is missing; skips (saying why) only if that fails."""
    if not CHROMIUM.exists():
        why = apt_install(str(CHROMIUM), "chromium", "fonts-noto-cjk")
        if why:
            pytest.skip(f"{CHROMIUM} is missing and could not be installed: {why}")
    return str(CHROMIUM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running ``jupyter lab``: its base URL, token and process."""

    def __init__(self, url: str, token: str, proc: subprocess.Popen) -> None:
        self.url, self.token, self.proc = url, token, proc

    def api(self, path: str, method: str = "GET") -> object:
        req = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None


@pytest.fixture(scope="session")
def lab(tmp_path_factory) -> Lab:
    """JupyterLab on 127.0.0.1, a free port and a random token, serving the repository; stopped at the end."""
    import secrets

    home = tmp_path_factory.mktemp("lab")
    settings = home / "settings"
    for name, values in LAB_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_") and k != "AGENTLAB_WIDGETS"}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["JUPYTER_RUNTIME_DIR"] = str(home / "runtime")
    cmd = [
        str(Path(sys.executable).parent / "jupyter"),
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={ROOT}",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
        "--LabApp.news_url=",
        "--ServerApp.open_browser=False",
        "--LabApp.expose_app_in_browser=True",
    ]  # window.jupyterapp: the test opens notebooks with Lab's own commands
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = (home / "lab.log").open("w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT, start_new_session=True)
    server = Lab(f"http://127.0.0.1:{port}", token, proc)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{(home / 'lab.log').read_text()[-3000:]}")
            try:
                server.api("/api/status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"jupyter lab did not answer within {SERVER_START_S} s:\n"
                        f"{(home / 'lab.log').read_text()[-3000:]}"
                    )
                time.sleep(0.5)
        yield server
    finally:
        _stop(proc)
        log.close()


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server and its kernels: SIGTERM to the process group this fixture started, then SIGKILL."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass
    try:  # kernels live in the same session; make sure none is left
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture(scope="session")
def browser(chromium_path):
    """Headless Debian Chromium driven by Playwright (never ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS, timeout=120_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def workdir() -> Path:
    """A fresh copy target for the notebooks, so running them in the browser never touches notebooks/."""
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("*.png"):
        old.unlink()
    return WORK


class LabPage:
    """One Chromium tab with JupyterLab loaded (once per run), in which the test opens each notebook."""

    def __init__(self, browser, lab: Lab) -> None:
        self.browser, self.lab, self.page = browser, lab, None
        self.reload()

    def reload(self) -> None:
        """A fresh tab on a fresh workspace: after a failure left a dialog or a broken page behind."""
        if self.page is not None:
            self.page.close()
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        self.page.goto(f"{self.lab.url}/lab/workspaces/agentlab_test?reset&token={self.lab.token}", timeout=120_000)
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')", timeout=120_000
        )
        self.page.evaluate("async () => { await window.jupyterapp.restored; return true; }")


@pytest.fixture(scope="session")
def lab_page(browser, lab):
    """JupyterLab in one headless Chromium tab, loaded once for every notebook (not once per notebook)."""
    held = LabPage(browser, lab)
    try:
        yield held
    finally:
        held.page.close()
