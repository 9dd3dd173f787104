"""extract_json_object: one object out of an LLM reply, or a clear llm-json error; never a guess."""

from __future__ import annotations

import pytest

from kari.errors import KariError
from kari.llm import extract_json_object

RULE = '{"op": "AND", "args": [{"pred": "MADE_OF", "value": "metal"}, {"op": "OR", "args": []}]}'
EXPECTED = {"op": "AND", "args": [{"pred": "MADE_OF", "value": "metal"}, {"op": "OR", "args": []}]}


@pytest.mark.parametrize(
    "reply",
    [
        RULE,
        f"  \n{RULE}\n",
        f"```json\n{RULE}\n```",
        f"```\n{RULE}\n```",
        f"Here is the rule:\n```json\n{RULE}\n```\nIt says a knife is metal.",
        f"Sure. {RULE} Hope this helps [1].",
        f"```json {RULE}```",
        f"```JSON\n{RULE}",  # fence never closed (truncated reply)
    ],
)
def test_one_object_is_found(reply: str) -> None:
    assert extract_json_object(reply) == EXPECTED


def test_strings_with_braces_and_unicode_are_kept() -> None:
    assert extract_json_object('Answer: {"text": "use {x} and ```", "é": [1, {"a": null}]}') == {
        "text": "use {x} and ```",
        "é": [1, {"a": None}],
    }


@pytest.mark.parametrize(
    ("reply", "needle"),
    [
        ("", "no JSON object"),
        ("yes, it is sharp", "no JSON object"),
        ('{"a": 1} and also {"b": 2}', "2 JSON objects"),
        ('```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```', "2 JSON objects"),
        ('[{"a": 1}]', "JSON array"),
        ('{"a": 1,}', "invalid JSON"),
        ("{'a': 1}", "invalid JSON"),
        ('{"rule": {"op": "AND"}, }', "invalid JSON"),  # must not fall back to the inner object
        ('{"a": "unterminated', "invalid JSON"),
        ('{"a": 1', "invalid JSON"),
    ],
)
def test_bad_replies_fail_clearly(reply: str, needle: str) -> None:
    with pytest.raises(KariError) as err:
        extract_json_object(reply)
    assert err.value.code == "llm-json" and needle in str(err.value)


def test_error_names_the_source_and_position() -> None:
    with pytest.raises(KariError) as err:
        extract_json_object('ok\n  {"a": 1,}', source="oracle")
    assert str(err.value).startswith("oracle:2:11: llm-json: invalid JSON")
    with pytest.raises(KariError) as err:
        extract_json_object('ok\n  {"a": 1,}')
    assert "at line 2 column 11" in str(err.value)


def test_not_a_string_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        extract_json_object(None)  # type: ignore[arg-type]
