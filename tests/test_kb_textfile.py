"""Byte-level line counting and blank-line detection (chunk boundaries included)."""

from __future__ import annotations

import gzip

import pytest

from kari.kb import textfile

CASES = [
    (b"a\nb\n", 2, None), (b"a\nb", 2, None), (b"a\n\nb\n", 3, 2), (b"a\nb\n\n\n", 2, None),
    (b"a\r\n\r\nb\r\n", 3, 2), (b"", 0, None), (b"a\n\n", 1, None), (b"a\n\nb\n\nc", 5, 2),
    (b"abc\n\nb\n", 3, 2), (b"abcd\n\nxx\n", 3, 2), (b"a\nb\nc\nd\ne\n\nf", 7, 6),
]


@pytest.mark.parametrize("chunk", [3, 4, 5, 1 << 20])
@pytest.mark.parametrize(("data", "lines", "blank"), CASES)
def test_count_lines(tmp_path, monkeypatch, chunk, data, lines, blank):
    monkeypatch.setattr(textfile, "_CHUNK", chunk)
    path = tmp_path / "f.tsv"
    path.write_bytes(data)
    assert textfile.count_lines(path) == textfile.LineCount(lines, blank)
    gz = tmp_path / "f.tsv.gz"
    gz.write_bytes(gzip.compress(data))
    assert textfile.count_lines(gz) == textfile.LineCount(lines, blank)


def test_first_line_strips_bom_and_crlf(tmp_path):
    path = tmp_path / "f.tsv"
    path.write_bytes("\ufeffnode1\tlabel\r\nx\ty\r\n".encode())
    assert textfile.first_line(path) == "node1\tlabel"
