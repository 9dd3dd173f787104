"""Prompt files: version header, text hash, rendering, clear errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kari.errors import KariError
from kari.llm import list_prompts, load_prompt


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_selftest_prompt_loads_and_renders() -> None:
    prompt = load_prompt("_selftest")
    assert prompt.name == "_selftest" and prompt.version == 1 and prompt.meta["role"] == "selftest"
    assert prompt.sha256 == hashlib.sha256(prompt.text.encode()).hexdigest()
    assert prompt.placeholders == {"thing"}
    rendered = prompt.render(thing="a spoon")
    assert "is a spoon made of metal?" in rendered and '{"answer": "yes"}' in rendered
    assert "_selftest" not in list_prompts()


@pytest.mark.parametrize(
    "header",
    [
        "version: 3\nrole: oracle\n\n",
        "---\nversion: 3\nrole: oracle\n---\n",
        "---\nversion: 3\n\nrole: oracle\n---\n\n",
    ],
)
def test_header_forms(tmp_path: Path, header: str) -> None:
    write(tmp_path, "oracle", header + 'Answer ${answer} about $$5 items {"json": 1}.\n')
    prompt = load_prompt("oracle", tmp_path)
    assert prompt.version == 3 and prompt.meta == {"version": "3", "role": "oracle"}
    assert prompt.text == 'Answer ${answer} about $$5 items {"json": 1}.\n'
    assert prompt.render(answer="yes") == 'Answer yes about $5 items {"json": 1}.\n'
    assert list_prompts(tmp_path) == ["oracle"]


def test_text_change_changes_hash(tmp_path: Path) -> None:
    write(tmp_path, "a", "version: 1\n\nHello.\n")
    first = load_prompt("a", tmp_path).sha256
    write(tmp_path, "a", "version: 1\n\nHello!\n")
    assert load_prompt("a", tmp_path).sha256 != first


@pytest.mark.parametrize(
    ("text", "needle", "line"),
    [
        ("Just a prompt with no header.\n", "no 'version: N' header", 1),
        ("role: x\n\nText\n", "no 'version: N' header", 1),
        ("version: three\n\nText\n", "positive integer", 1),
        ("role: q\nversion: 0\n\nText\n", "positive integer", 2),
        ("version: 1\nversion: 2\n\nText\n", "duplicate header field", 2),
        ("version: 1\nText right after\n", "blank line after the header", 2),
        ("---\nversion: 1\nnot a header\n---\nText\n", "'key: value' header line", 3),
        ("---\nversion: 1\n", "never closed", 1),
        ("version: 1\n\n\n", "no text", None),
    ],
)
def test_bad_prompt_files(tmp_path: Path, text: str, needle: str, line: int | None) -> None:
    path = write(tmp_path, "bad", text)
    with pytest.raises(KariError) as err:
        load_prompt("bad", tmp_path)
    assert err.value.code == "llm-prompt" and needle in str(err.value)
    assert err.value.file == str(path) and err.value.line == line


def test_missing_and_bad_names(tmp_path: Path) -> None:
    with pytest.raises(KariError, match="no prompt named 'nope'"):
        load_prompt("nope", tmp_path)
    with pytest.raises(KariError, match="bad prompt name"):
        load_prompt("../etc/passwd")


def test_render_needs_exactly_the_placeholders(tmp_path: Path) -> None:
    write(tmp_path, "p", "version: 2\n\nGuess $object in $turns turns.\n")
    prompt = load_prompt("p", tmp_path)
    with pytest.raises(KariError, match="missing turns"):
        prompt.render(object="knife")
    with pytest.raises(KariError, match="unused colour"):
        prompt.render(object="knife", turns=20, colour="red")
    assert prompt.render(object="knife", turns=20) == "Guess knife in 20 turns.\n"
