"""Images in requests: the media types the API accepts, and their tokens by the documented formula.

The vision docs (https://platform.claude.com/docs/en/build-with-claude/vision, read 2026-11-30) give
``tokens = (width px * height px) / 750``, after the API scales down an image whose long edge is over
1568 px or whose size is over about 1.15 megapixels (about 1,600 tokens), keeping its aspect ratio.
The size is read from the image's own header (PNG, GIF, JPEG, WebP); an image whose size cannot be
read (a URL or file source, or bytes that are not an image) is counted at that cap, 1,600 tokens:
an upper bound, since the spending guard (``agentlab.live.spend``) bounds a call's cost with this
estimate. The recordings show what that costs in accuracy: images by URL or ``file_id`` were 150 to
440 real tokens, so such a request is over-counted by up to about 1,450 tokens an image.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""Media types the API accepts for base64 images, in the order its error message lists them."""
MAX_EDGE = 1568
"""Long edge (px) above which the API scales an image down."""
MAX_PIXELS = 1_150_000
"""Area (px) above which the API scales an image down (about 1,600 tokens)."""
UNKNOWN_SIZE_TOKENS = 1600
"""Tokens counted for an image whose size cannot be read (the cap after scaling)."""


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, JPEG or WebP header, or ``None`` if it cannot be read."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    for _ in range(10_000):  # bounded walk over the JPEG segments
        if i + 9 > len(data) or data[i] != 0xFF:
            return None
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    return None


def scaled_size(width: int, height: int) -> tuple[int, int]:
    """The size the API resizes an image to before counting it (aspect ratio kept)."""
    scale = min(1.0, MAX_EDGE / max(width, height, 1), math.sqrt(MAX_PIXELS / max(width * height, 1)))
    return max(1, int(width * scale)), max(1, int(height * scale))


def image_tokens(block: dict) -> int:
    """Estimated tokens of one ``image`` content block."""
    source = block.get("source") if isinstance(block, dict) else None
    if not isinstance(source, dict) or source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return UNKNOWN_SIZE_TOKENS
    try:
        size = image_size(base64.b64decode(source["data"][:87384], validate=False))
    except (binascii.Error, ValueError):
        size = None
    if size is None or min(size) <= 0:
        return UNKNOWN_SIZE_TOKENS
    w, h = scaled_size(*size)
    return math.ceil(w * h / 750)
