"""Errors the simulated API answers with, in the Messages API's own envelope.

The real API answers every failure as
``{"type": "error", "error": {"type": ..., "message": ...}, "request_id": ...}``
with an HTTP status that matches the error type
(https://docs.anthropic.com/en/api/errors). The SDK turns that status into its typed
exception (400 -> ``anthropic.BadRequestError``, 404 -> ``anthropic.NotFoundError``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

#: HTTP status for each error type, as listed on the API's errors page.
STATUS_OF = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


@dataclass
class SimAPIError(Exception):
    """A failure the simulator reports to the client as an API error response."""

    type: str
    """The API's error type, e.g. ``"invalid_request_error"``; it fixes the HTTP status."""
    message: str
    """The human-readable message, worded as the real API words it where that is known."""
    details: dict | None = None
    """Machine-readable ``error.details`` (e.g. ``{"error_code": "thread_not_found"}``), when the API sends one."""
    headers: dict | None = None
    """Extra response headers (``retry-after``, ``anthropic-ratelimit-*``...) for this error."""

    def __post_init__(self) -> None:
        if self.type not in STATUS_OF:
            raise ValueError(f"unknown API error type {self.type!r}; known: {sorted(STATUS_OF)}")
        super().__init__(self.message)

    @property
    def status(self) -> int:
        """The HTTP status code the API uses for this error type."""
        return STATUS_OF[self.type]

    def envelope(self, request_id: str) -> dict:
        """The JSON body the API sends for this error."""
        error: dict = {"type": self.type, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"type": "error", "error": error, "request_id": request_id}


def invalid(message: str) -> SimAPIError:
    """A ``400 invalid_request_error`` with ``message``."""
    return SimAPIError("invalid_request_error", message)
