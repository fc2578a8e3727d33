"""One call's token counts as one typed value: :class:`Usage`.

The API reports a call's tokens as a ``usage`` object whose fields may be missing or ``null`` (an
old response has no cache fields; a streamed one fills them in as it goes). ``Usage.from_api`` reads
that object once, as JSON or as the SDK's ``Usage``, with every missing count as 0, so the rest of
the lab never writes ``usage.get("input_tokens") or 0`` again. Usages add up field by field
(``run_a + run_b``, ``sum(usages, Usage())``), and ``as_api()`` turns one back into the API's shape,
the form :func:`agentlab.meter.prices.cost_usd` prices.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

_API_NAMES = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
              "cache_read_tokens": "cache_read_input_tokens", "cache_write_tokens": "cache_creation_input_tokens"}
"""Usage field -> the API's name for it (the 1-hour writes live inside ``cache_creation``)."""


def _read(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


@dataclass(frozen=True)
class Usage:
    """The tokens of one call (or, added up, of many)."""

    input_tokens: int = 0
    """``usage.input_tokens``: input not read from or written to the cache."""
    output_tokens: int = 0
    """``usage.output_tokens``: tokens the model generated."""
    cache_read_tokens: int = 0
    """``usage.cache_read_input_tokens``: input read from the prompt cache (billed apart, cheaper)."""
    cache_write_tokens: int = 0
    """``usage.cache_creation_input_tokens``: input written to the prompt cache, 5-minute and 1-hour together."""
    cache_write_1h_tokens: int = 0
    """The part of ``cache_write_tokens`` written with the 1-hour lifetime (priced at its higher rate)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"Usage({f.name}={value!r}): a token count is a whole number >= 0; "
                                 "build one from a response with Usage.from_api(response.usage)")
        if self.cache_write_1h_tokens > self.cache_write_tokens:
            raise ValueError(f"Usage(cache_write_1h_tokens={self.cache_write_1h_tokens}): more than "
                             f"cache_write_tokens={self.cache_write_tokens}; the 1-hour writes are part of all writes")

    @property
    def prompt_total(self) -> int:
        """Every input token of the call: ``input_tokens`` plus cache reads and cache writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @classmethod
    def from_api(cls, obj: Any) -> "Usage":
        """The usage of a response: the API's ``usage`` JSON (a dict) or the SDK's ``Usage`` object.

        Missing or ``None`` counts are 0 (``None`` itself is an empty usage). The 1-hour share of the
        cache writes is read from ``cache_creation.ephemeral_1h_input_tokens``.
        """
        if obj is None:
            return cls()
        counts = {name: _read(obj, api) or 0 for name, api in _API_NAMES.items()}
        split = _read(obj, "cache_creation")
        one_hour = (_read(split, "ephemeral_1h_input_tokens") if split is not None else None) or 0
        return cls(**counts, cache_write_1h_tokens=one_hour)

    def as_api(self) -> dict:
        """This usage in the API's JSON shape, 5-minute / 1-hour split of the writes included."""
        out = {api: getattr(self, name) for name, api in _API_NAMES.items()}
        out["cache_creation"] = {"ephemeral_5m_input_tokens": self.cache_write_tokens - self.cache_write_1h_tokens,
                                 "ephemeral_1h_input_tokens": self.cache_write_1h_tokens}
        return out

    def __add__(self, other: "Usage") -> "Usage":
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __radd__(self, other: Any) -> "Usage":
        return self if other == 0 else NotImplemented  # so sum(usages) starts from Python's 0
