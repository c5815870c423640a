"""The flood benchmark's record: legal, within the upload limits, and as large as they allow."""

from __future__ import annotations

from analysis.bench.flood import limit_record
from analysis.sgf import SgfLimits, read_sgf
from analysis.sgf.tree import walk


def test_the_flood_record_is_legal_and_just_under_the_upload_limits() -> None:
    text = limit_record()
    record = read_sgf(text, limits=SgfLimits(nodes=10_000, values=1000, moves=1000, passes_in_a_row=4))
    nodes = sum(1 for _ in record.nodes())
    assert 9_900 <= nodes <= 10_000 and len(text) < 512 * 1024
    _, placed = walk(record)
    assert sum(1 for _ in placed) == nodes - 1  # every move of every line is legal
