"""The gateway's transport to the API: aiohttp behind httpx2's transport interface.

The transport is httpx-aiohttp's (the one the SDK's own ``aiohttp`` extra vendors), so the gateway and its
tests see one interface (``httpx2.AsyncBaseTransport``) whatever carries the bytes. aiohttp parses with
llhttp in C; httpx2's own transport (httpcore2 over anyio, h11 in Python) cost about 0.8 ms of CPU a request
here, most of what the gateway added to one (``benchmarks/gateway_load.py`` measures the gateway as shipped).

What :class:`APITransport` changes from httpx-aiohttp as published (``tests/gateway/test_gateway_upstream.py``
holds each on a real socket or with the library's own errors):

* **An error says whether the request can have left** (:func:`mapped`), since the gateway releases a
  reservation only for one that never did: httpx-aiohttp calls every ``aiohttp.ClientConnectionError`` a
  connect failure, a connection reset after the request was written too. A malformed answer, which it
  passes on as aiohttp's own error, is a protocol error (502, worst case kept).
* **Every wait is bounded by the read timeout**: for the answer's head, and for each piece of its body
  (aiohttp's C parser can meet a broken chunk and leave the reader waiting with no timer).
* **The student's headers go as they came**: aiohttp adds none of its own (``User-Agent``, ``Accept``,
  ``Accept-Encoding``, ``Content-Type``), and no cookie jar is shared between students. Repeated header
  lines arrive joined by ", " (``httpx2.Headers`` joins them; HTTP reads both forms alike), and a value
  that is not ASCII goes as UTF-8 (the SDK sends none).
* **It can be used again after** ``aclose()`` (a notebook may stop a gateway and serve it again).
"""

from __future__ import annotations

import asyncio

import aiohttp
import httpx2
from aiohttp.http_exceptions import HttpProcessingError
from httpx_aiohttp.httpx2 import AiohttpTransport

AIOHTTP_ERRORS = (httpx2.HTTPError, aiohttp.ClientError, HttpProcessingError, TimeoutError)
"""What a forward through aiohttp can raise, as httpx-aiohttp maps it or not (``asyncio.timeout`` raises
``TimeoutError``)."""
KEEPALIVE_S = 5.0
"""Seconds an idle connection to the API is kept for the next request."""


def mapped(error: BaseException, request: httpx2.Request) -> httpx2.HTTPError:
    """The httpx2 error the gateway reads for ``error``: a connect error only for a request that never left."""
    cause = error.__cause__ if isinstance(error, httpx2.HTTPError) and error.__cause__ is not None else error
    text = str(error) or type(cause).__name__
    if isinstance(cause, aiohttp.ConnectionTimeoutError):  # no connection within the connect timeout
        return httpx2.ConnectTimeout(text, request=request)
    if isinstance(cause, aiohttp.ClientConnectorError):  # refused, unreachable, unknown host, TLS refused
        return httpx2.ConnectError(text, request=request)
    if isinstance(cause, TimeoutError):  # sent, and no answer (or no more of it) within the read timeout
        return httpx2.ReadTimeout(text, request=request)
    if isinstance(error, httpx2.HTTPError) and not isinstance(error, (httpx2.ConnectError, httpx2.ConnectTimeout)):
        return error  # httpx-aiohttp's own mapping, right where no connection is in question (a bad URL...)
    if isinstance(cause, (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError)):  # connected, then lost
        return httpx2.ReadError(text, request=request)
    return httpx2.RemoteProtocolError(text, request=request)  # an answer aiohttp could not read as HTTP


class APITransport(AiohttpTransport):
    """httpx-aiohttp's transport with the changes the module's docstring lists."""

    def __init__(self) -> None:
        super().__init__(retries=0)
        self.client = self._session

    def _session(self) -> aiohttp.ClientSession:
        """A session made on the serving loop at the first request: no pool limit (no queue behind 100 in
        flight), no cookies kept, no header of aiohttp's own."""
        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEPALIVE_S, ssl=self.ssl_context),
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        read = (request.extensions.get("timeout") or {}).get("read")
        try:
            async with asyncio.timeout(read):
                response = await super().handle_async_request(request)
        except AIOHTTP_ERRORS as e:
            raise mapped(e, request) from e
        response.stream = Bounded(response.stream, read, request)
        return response

    async def aclose(self) -> None:
        await super().aclose()
        self.client = self._session


class Bounded(httpx2.AsyncByteStream):
    """An answer's body, each piece within ``read`` seconds, its errors :func:`mapped`."""

    def __init__(self, inner: httpx2.AsyncByteStream, read: float | None, request: httpx2.Request) -> None:
        self.inner, self.read, self.request = inner, read, request

    async def __aiter__(self):
        pieces = self.inner.__aiter__()
        while True:  # bounded: each round yields a piece or ends, within the read timeout
            try:
                async with asyncio.timeout(self.read):
                    piece = await pieces.__anext__()
            except StopAsyncIteration:
                return
            except AIOHTTP_ERRORS as e:
                raise mapped(e, self.request) from e
            yield piece

    async def aclose(self) -> None:
        await self.inner.aclose()
