"""PDF documents: pages as images at the cap plus the text they show, bounded reads, and the recordings."""

import base64
import zlib

from agentlab.api.documents import A4_POINTS, MAX_STREAM_BYTES, page_image_tokens, pdf_parts
from agentlab.api.images import UNKNOWN_SIZE_TOKENS
from agentlab.api.tokens import content_tokens, pdf_tokens
from agentlab.sim import calibrate


def _pdf(pages: list[bytes], box: bytes = b"[0 0 595 842]") -> bytes:
    """A minimal PDF: one Flate content stream per page, each showing the given operators."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count %d >>" % len(pages)]
    for ops in pages:
        stream = zlib.compress(b"BT /F1 12 Tf " + ops + b" ET")
        objs.append(b"<< /Type /Page /MediaBox " + box + b" /Contents %d 0 R >>" % (len(objs) + 2))
        objs.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
    return b"%PDF-1.4\n" + b"".join(b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n" for i, o in enumerate(objs)) + b"%%EOF"


def _block(raw: bytes) -> dict:
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(raw).decode()},
    }


def test_each_page_counts_as_an_image_at_the_cap():
    one, three = _block(_pdf([b"(Hi) Tj"])), _block(_pdf([b"(Hi) Tj"] * 3))
    assert 1400 < page_image_tokens(*A4_POINTS) <= UNKNOWN_SIZE_TOKENS
    assert pdf_tokens(three) - pdf_tokens(one) == 2 * (page_image_tokens(*A4_POINTS) + 1)  # two more pages, "Hi" each


def test_shown_text_adds_its_tokens_literal_and_hex():
    sizes, text, glyphs = pdf_parts(_pdf([b"(Hello world) Tj [(Agent) -20 (lab)] TJ <0102030405> Tj"]))
    assert sizes == [(595.0, 842.0)] and text == "Hello world Agent lab" and glyphs == 5
    assert pdf_tokens(_block(_pdf([b"(" + b"word " * 200 + b") Tj"]))) - pdf_tokens(_block(_pdf([b"(x) Tj"]))) == 199


def test_a_pdf_the_simulator_cannot_see_counts_one_page_with_no_text():
    page = page_image_tokens(*A4_POINTS)
    for source in (
        {"type": "url", "url": "https://example.com/a.pdf"},
        {"type": "file", "file_id": "file_1"},
        {"type": "base64", "media_type": "application/pdf", "data": "bm90IGEgcGRm"},
    ):
        assert pdf_tokens({"type": "document", "source": source}) == page + 3  # the block's frame


def test_an_inflating_stream_is_read_only_up_to_its_cap():
    bomb = zlib.compress(b"(" + b"a" * (4 * MAX_STREAM_BYTES) + b") Tj", 9)  # 32 MB of text in about 32 KB
    raw = (
        b"%PDF-1.4\n1 0 obj\n<< /Type /Page >>\nendobj\n2 0 obj\n<< /Filter /FlateDecode >>\nstream\n"
        + bomb
        + b"\nendstream\n"
    )
    sizes, text, glyphs = pdf_parts(raw)
    assert sizes == [A4_POINTS] and text == "" and glyphs == 0  # cut before its Tj: nothing shown is counted


def test_pdfs_in_tool_results_count_the_same():
    block = _block(_pdf([b"(Hello) Tj"]))
    assert content_tokens([{"type": "tool_result", "tool_use_id": "t", "content": [block]}]) == 3 + pdf_tokens(block)


def test_recorded_pdfs_come_within_fifteen_percent_of_their_real_usage():
    records = [rec for rec in calibrate.bundled()["records"] if "'application/pdf'" in str(rec["request"])]
    assert len(records) >= 4
    for rec, row in zip(records, calibrate.replay(records)):
        assert row.estimate is not None and abs(row.estimate - row.real) / row.real < 0.16, (
            rec["cassette"],
            row.estimate,
            row.real,
        )
