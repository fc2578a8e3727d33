"""Pay for imports and first-use set-up once, before any graded test's timer starts.

Importing the SDK takes about a second and jsonschema about 1.5 s on an idle machine, several times
that on a busy one; building the first simulated client compiles tool validators; the first priced call loads
genai-prices' snapshot and the first table imports pandas. Done inside a timed test (or inside each
student's process of a sandbox that skipped it), that cost lands on whichever test needs it first. ``warm_up()`` does it up front.
It never imports an exercise module (``exercises.*``): those stay the tests' own business.
"""

from __future__ import annotations

import importlib
import pkgutil

_SKIP = ("agentlab.__main__", "agentlab.cli", "agentlab.grading")


def before_collection() -> None:
    """Import jsonschema the lab's way before the test files do: ~0.05 s instead of ~1.2 s, per process.

    A test file's ``import jsonschema`` would build the IRI grammar that the lab never uses
    (``agentlab.schema_check.import_jsonschema``). A course without that module skips this."""
    try:
        from agentlab.schema_check import import_jsonschema
    except ImportError:
        return
    import_jsonschema()


def warm_up() -> list[str]:
    """Import the lab and its libraries and make one simulated call; return what could not be loaded."""
    missing: list[str] = []  # the lab's modules import the SDK, jsonschema and the rest themselves
    try:
        import agentlab
    except Exception:  # noqa: BLE001
        return [*missing, "agentlab"]
    for info in pkgutil.walk_packages(agentlab.__path__, "agentlab.", onerror=lambda _name: None):
        if info.name.startswith(_SKIP):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001
            missing.append(info.name)
    try:
        agentlab.connect  # noqa: B018 - a lazy name: importing it may fail in a course without the client
    except Exception:  # noqa: BLE001
        return missing
    try:
        client = agentlab.connect("sim", quiet=True)
        reply = client.messages.create(
            model=agentlab.default_model(),
            max_tokens=64,
            messages=[{"role": "user", "content": agentlab.city_task(["Paris", "Oslo"], "en")}],
            tools=[agentlab.get_weather.spec()],
        )
    except Exception:  # noqa: BLE001 - e.g. a course without the simulator
        return [*missing, "agentlab.connect('sim')"]
    try:  # pricing loads genai-prices' snapshot (about 0.8 s); the experiments' tables import pandas (seconds)
        from agentlab.meter.prices import cost_usd

        cost_usd(reply.model, reply.usage.model_dump())
        importlib.import_module("pandas")
    except Exception:  # noqa: BLE001 - a course without them: the tests that need them pay for it
        missing.append("pricing / pandas")
    return missing
