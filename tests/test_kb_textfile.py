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


@pytest.mark.parametrize(("data", "lines", "blank"), CASES)
def test_a_count_without_blanks_finds_them_when_asked(tmp_path, data, lines, blank):
    path = tmp_path / "f.tsv"
    path.write_bytes(data)
    quick = textfile.count_lines(path, blanks=False)
    assert quick == textfile.LineCount(lines, None, None, blanks_checked=False)
    assert quick.with_blanks(path) == textfile.LineCount(lines, blank)


def test_a_nul_after_a_blank_line_names_the_blank_line_even_when_blanks_were_not_looked_for(tmp_path):
    path = tmp_path / "f.tsv"
    path.write_bytes(b"a\n\nb\nc\0\nd\n")
    problem = textfile.count_lines(path, blanks=False).first_problem(path)
    assert problem is not None and problem.line == 2 and problem.code == "kb-blank"
    path.write_bytes(b"a\nb\0\n\nc\n")
    problem = textfile.count_lines(path, blanks=False).first_problem(path)
    assert problem is not None and problem.line == 2 and problem.code == "kb-nul"


def test_first_line_strips_bom_and_crlf(tmp_path):
    path = tmp_path / "f.tsv"
    path.write_bytes("\ufeffnode1\tlabel\r\nx\ty\r\n".encode())
    assert textfile.first_line(path) == "node1\tlabel"
