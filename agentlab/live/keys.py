"""API keys: trimmed on the way in, never shown whole on the way out.

A key pasted with a trailing newline or space is the common case (``export KEY=$(cat key.txt)``,
a copied line): httpx2 refuses the header and its error message quotes the whole value, so a raw key
ends up in a traceback, a notebook output or the CLI's message. :func:`clean_key` trims it before the
SDK sees it; :func:`scrub` takes any key we know out of a text before agentlab prints or saves it.
"""

from __future__ import annotations

import os
from typing import Any, Iterable

KEY_ENV = "ANTHROPIC_API_KEY"
"""The environment variable the SDK and agentlab read the key from."""


def clean_key(key: str | None) -> str | None:
    """``key`` without surrounding whitespace (and without quotes pasted with it); ``None`` if empty."""
    if key is None:
        return None
    key = key.strip().strip("'\"").strip()
    return key or None


def env_key() -> str | None:
    """``ANTHROPIC_API_KEY``, trimmed (``None`` when unset or blank)."""
    return clean_key(os.environ.get(KEY_ENV))


def mask(key: str) -> str:
    """A key as it may be shown: its first 7 and last 4 characters (``sk-ant-...wxyz``)."""
    key = key.strip()
    return "***" if len(key) < 16 else f"{key[:7]}...{key[-4:]}"


_seen: set[str] = set()
"""Keys ``connect()`` was given in this process (so a key passed as ``api_key=`` is scrubbed too)."""


def remember(key: str | None) -> None:
    """Note a key so :func:`scrub` hides it wherever it appears later."""
    if key:
        _seen.add(key)


def known_keys(client: Any = None) -> list[str]:
    """Every form of the key agentlab might meet: the environment's raw and trimmed value, the keys
    ``connect()`` was given, the client's."""
    raw = os.environ.get(KEY_ENV) or ""
    found = [raw, raw.strip(), clean_key(raw) or "", str(getattr(client, "api_key", "") or ""), *_seen]
    return sorted({k for k in found if len(k.strip()) >= 8}, key=len, reverse=True)


def scrub(text: str, keys: Iterable[str] = ()) -> str:
    """``text`` with every known key (and its trimmed form) replaced by its mask."""
    for key in [*keys, *known_keys()]:
        for form in {key, key.strip()}:
            if len(form) >= 8 and form in text:
                text = text.replace(form, mask(form))
    return text
