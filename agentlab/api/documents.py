"""PDF documents in requests: an estimate of their tokens from the pages and the text the file holds.

The PDF docs (https://platform.claude.com/docs/en/build-with-claude/pdf-support, read 2026-12-03) say
the API turns every page into an image and extracts the page's text, and that a PDF's tokens depend
on the text extracted and the number of pages: the text at the usual rate, each page's image by the
image formula (``images.py``). They give no per-page figure for the image, so ours is a stand-in
read from the recordings: each page counts as an image at the size cap, in the shape of its
``/MediaBox`` (an A4 page about 1,530 tokens).

What this module reads of the file, by hand and no more (no PDF library: the estimate needs only a
count of pages and of characters): the pages (``/Type /Page`` objects), their ``/MediaBox``, and
the strings shown by ``Tj`` and ``TJ`` in the page streams, inflating Flate streams. A literal string
``(...)`` counts as its text; a hex string ``<...>`` is glyph ids, whose characters need the font's
map, so it counts as one character per byte. A file that is not a readable PDF, a PDF given by URL or
by ``file_id`` (offline, the simulator cannot see it) counts as one page with no text.

Measured on the bundled recordings (``agentlab calibrate``; ``tests/sim/test_documents.py``), whole
requests: a one-page PDF of three words, 1,615 real tokens against 1,554 estimated; a one-page PDF of
about 2,900 characters of Latin filler, 3,285 against 2,784 (the estimator counts Latin words short);
the same PDF by URL, 3,284 against 2,181 (offline, its text is unseen).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import zlib

from agentlab.api.images import scaled_size

A4_POINTS = (595, 842)
"""Page size assumed where a page states no ``/MediaBox`` (A4, in points)."""
MAX_PDF_BYTES = 32 * 1024 * 1024
"""Most bytes of a PDF read (the API's whole request limit, 32 MB)."""
MAX_STREAM_BYTES = 8 * 1024 * 1024
"""Most bytes one inflated stream may grow to (a zip bomb stops here)."""
MAX_PAGES = 100
"""Most pages counted (the API's limit per request)."""
RENDER_SCALE = 4
"""Pixels per point a page is drawn at before the image formula scales it down: large enough that any
ordinary page reaches the cap (a stand-in fitted on the recordings: a near-empty page costs about as
much as the largest image, 1,615 real tokens for the whole request against about 1,550 so estimated)."""
CHARS_PER_TOKEN = 4
"""Glyphs of a hex string per token (a stand-in: ids are not characters without the font's map)."""

_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_BOX = re.compile(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]")
_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_SHOWN = re.compile(rb"(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|\[(?:\\.|[^\]\\])*\])\s*(?:Tj|TJ|'|\")")
_LITERAL = re.compile(rb"\(((?:\\.|[^\\)])*)\)")
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")


def _pdf_bytes(block: dict) -> bytes | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    try:
        raw = base64.b64decode(source["data"][: MAX_PDF_BYTES * 4 // 3], validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw if raw.startswith(b"%PDF") else None


def _inflate(data: bytes) -> bytes:
    try:
        return zlib.decompressobj().decompress(data, MAX_STREAM_BYTES)
    except zlib.error:
        return data  # not Flate: read it as it is


def page_image_tokens(width: float, height: float) -> int:
    """Tokens of one page's image: the page drawn at the image size cap, keeping its shape."""
    w, h = scaled_size(*(max(1, round(side * RENDER_SCALE)) for side in (width, height)))
    return math.ceil(w * h / 750)


def pdf_parts(raw: bytes) -> tuple[list[tuple[float, float]], str, int]:
    """The page sizes, the literal text shown and the number of hex glyphs shown in a PDF."""
    boxes = [(abs(float(x1) - float(x0)), abs(float(y1) - float(y0))) for x0, y0, x1, y1 in _BOX.findall(raw)]
    pages = min(len(_PAGE.findall(raw)), MAX_PAGES) or 1
    sizes = (boxes[:pages] + [boxes[0] if boxes else A4_POINTS] * pages)[:pages]
    text, glyphs = [], 0
    for stream in _STREAM.findall(raw):
        for shown in _SHOWN.findall(_inflate(stream)):
            text += [s.decode("latin-1") for s in _LITERAL.findall(shown)]
            glyphs += sum(len(re.sub(rb"\s", b"", h)) // 2 for h in _HEX.findall(shown))
    return sizes, " ".join(text), glyphs


def document_parts(block: dict) -> tuple[int, str, int]:
    """(image tokens, text, hex glyphs) of a ``document`` block whose source is a PDF (see the module docstring)."""
    raw = _pdf_bytes(block)
    if raw is None:
        return page_image_tokens(*A4_POINTS), "", 0
    sizes, text, glyphs = pdf_parts(raw)
    return sum(page_image_tokens(w, h) for w, h in sizes), text, glyphs
