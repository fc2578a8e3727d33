"""The ``anthropic-version`` header and the top-level request fields, as the API checks them.

* The header is required, and must be a version the API knows
  (https://platform.claude.com/docs/en/api/versioning, read 2026-11-30: ``2023-01-01``,
  ``2023-06-01``, ``2026-10-21``).
* Top-level fields the Messages API does not document are rejected with pydantic's
  "Extra inputs are not permitted". The documented fields are read from the installed SDK's own
  request types (``MessageCreateParams`` and its beta twin, or the count-tokens ones), so a field the
  current API documents (``thinking``, ``output_config``, ``context_management``, ``thread``...) passes.
* Under ``2026-10-21`` ``temperature``, ``top_p`` and ``top_k`` are removed, so they are extra inputs
  even at default values (https://platform.claude.com/docs/en/api/migration-2026-10-21). Under
  ``2023-06-01`` they are accepted, except on models whose profile says they are deprecated (there a
  lone ``temperature: 1``, the default, still passes) or takes defaults only, and ``temperature`` with
  ``top_p`` is refused on the models whose profile says so (the 4.5 and 4.6 models).
* Every value of the ``anthropic-beta`` header must be a beta the API knows: the installed SDK's
  ``AnthropicBetaParam`` names them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping

from agentlab.api.profiles import Profile
from agentlab.sim.errors import invalid

VERSIONS = ("2023-01-01", "2023-06-01", "2026-10-21")
"""API versions the API accepts in ``anthropic-version``."""
LATEST = "2026-10-21"
"""The version the installed SDK sends."""
SAMPLING = ("temperature", "top_p", "top_k")
"""Request fields removed in 2026-10-21."""


def check_version(headers: Mapping[str, str]) -> str:
    """The request's API version; the API's 400 when the header is missing or unknown."""
    version = headers.get("anthropic-version")
    if version is None:
        # Quoted: https://github.com/PipedreamHQ/pipedream/issues/9697
        raise invalid("anthropic-version: header is required")
    if version not in VERSIONS:
        # Quoted: https://github.com/decolua/9router/issues/2357 ('anthropic-version: "2023-06-01, 2023-06-01" is not a valid version')
        raise invalid(f'anthropic-version: "{version}" is not a valid version')
    return version


@lru_cache(maxsize=2)
def documented_fields(count_tokens: bool) -> frozenset[str]:
    """Top-level body fields the installed SDK documents for the endpoint (``betas`` is a header, not a field)."""
    if count_tokens:
        from anthropic.types import message_count_tokens_params as plain
        from anthropic.types.beta import message_count_tokens_params as beta

        names = set(plain.MessageCountTokensParams.__annotations__) | set(beta.MessageCountTokensParams.__annotations__)
    else:
        from anthropic.types import message_create_params as plain
        from anthropic.types.beta import message_create_params as beta

        names = set(plain.MessageCreateParamsBase.__annotations__) | set(beta.MessageCreateParamsBase.__annotations__)
        names.add("stream")
    return frozenset(names - {"betas"})


def check_fields(body: dict, version: str, *, count_tokens: bool = False) -> None:
    """Reject undocumented top-level fields (sampling parameters count as such under 2026-10-21)."""
    # count_tokens: its own documented fields, and (leniently: not verified that the API rejects them)
    # the create endpoint's, since clients often count the very body they will send.
    allowed = documented_fields(count_tokens) | (documented_fields(False) - {"stream"} if count_tokens else frozenset())
    if version != LATEST:
        allowed = allowed | set(SAMPLING)
    for field in body:
        if field not in allowed:
            # Quoted: "temperature: Extra inputs are not permitted" under 2026-10-21
            # (https://github.com/ttlequals0/MinusPod/releases/tag/v2.101.10, https://qiita.com/Synthorai/items/01a0067e88747257a4e6)
            raise invalid(f"{field}: Extra inputs are not permitted")


def check_betas(headers: Mapping[str, str]) -> None:
    """The API's 400 when the ``anthropic-beta`` header names a beta the API does not know."""
    raw = headers.get("anthropic-beta")
    if raw is None or not raw.strip():  # not modelled: an empty value, which a report shows refused too
        return
    unknown = [v for v in (v.strip() for v in raw.split(",")) if v and v not in known_betas()]
    if unknown:
        # Quoted: https://github.com/anthropics/claude-code/issues/53855 (one value) and
        # https://github.com/QuantumNous/new-api/issues/2975 (two values, joined with ", ").
        listed = ", ".join(f"`{v}`" for v in unknown)
        raise invalid(
            f"Unexpected value(s) {listed} for the `anthropic-beta` header. Please consult our documentation "
            "at docs.anthropic.com or try again without the header."
        )


@lru_cache(maxsize=1)
def known_betas() -> frozenset[str]:
    """Beta names the installed SDK lists (``AnthropicBetaParam``): the ones the simulator accepts in ``anthropic-beta``.

    Not modelled: betas the API knows but refuses for one model or platform (the API answers those with the same message)."""
    import typing

    from anthropic.types.anthropic_beta_param import AnthropicBetaParam

    return frozenset(v for arg in typing.get_args(AnthropicBetaParam) for v in typing.get_args(arg))


def check_sampling(body: dict, profile: Profile) -> None:
    """Under 2023-06-01: sampling parameters on models whose profile deprecates them, or refuses two together."""
    if profile.sampling_exclusive and "temperature" in body and "top_p" in body:
        # Quoted: https://github.com/langfuse/langfuse/issues/9882 (Sonnet 4.5) and
        # https://github.com/skydiscover-ai/skydiscover/issues/15 (Sonnet 4.6); the rule's sources are in the profile.
        raise invalid("`temperature` and `top_p` cannot both be specified for this model. Please use only one.")
    sent = [name for name in SAMPLING if name in body]
    for name in sent:
        if profile.sampling == "none":
            if sent == ["temperature"] and _is_one(body["temperature"]):
                # Source: the thinking docs' "Sampling parameters" section, as quoted by
                # https://docs.memberjunction.org/v6.2/api/functions/_memberjunction_ai-anthropic.ResolveSamplingParams.html
                # (the page itself was not retrievable here): a lone temperature of 1, the default, is accepted.
                continue
            # Quoted: "temperature is deprecated for this model" (https://github.com/Cratis/AI/releases/tag/v7.105.1)
            raise invalid(f"{name} is deprecated for this model")
        default = {"temperature": 1, "top_p": 1}.get(name)
        if profile.sampling == "defaults_only" and body[name] != default:
            # Reconstructed, not quoted: the Sonnet 5 page says non-default sampling values return 400
            # (https://platform.claude.com/docs/en/models/sonnet-5/overview).
            raise invalid(f"{name}: only the default value is supported for this model")


def _is_one(value: object) -> bool:
    return type(value) in (int, float) and value == 1


def check_version_content(messages: list[dict], version: str) -> None:
    """2026-10-21: no ``document`` block in an assistant message, no non-empty ``citations`` on user text."""
    if version != LATEST:
        return
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            if message.get("role") == "assistant" and block.get("type") == "document":
                # Reconstructed, not quoted: the rule is in https://platform.claude.com/docs/en/api/migration-2026-10-21
                raise invalid(f"messages.{i}.content.{j}: `document` blocks are not allowed in `assistant` messages")
            if message.get("role") == "user" and _has_citations(block):
                # Reconstructed, not quoted: the rule is in https://platform.claude.com/docs/en/api/migration-2026-10-21
                raise invalid(
                    f"messages.{i}.content.{j}: `citations` on `text` blocks are not allowed in `user` messages"
                )


def _has_citations(block: dict) -> bool:
    if block.get("type") == "text":
        return bool(block.get("citations"))
    if block.get("type") == "search_result" and isinstance(block.get("content"), list):
        return any(isinstance(b, dict) and b.get("type") == "text" and b.get("citations") for b in block["content"])
    return False
