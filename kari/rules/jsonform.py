"""The JSON form of rules (what LLMs emit) and its tolerant-but-never-guessing reader.

Nodes: ``{"op": "AND"|"OR", "args": [...]}``, ``{"op": "PART", "role": "x", "body": {...}}`` and atoms
``{"op": "MADE_OF"|"SHAPE"|"SIZE"|"SURFACE", "role": "whole", "class": "metal"}``. ``op`` is case-insensitive;
an atom's ``role`` may be left out (it then defaults as in the text form: the enclosing PART variable, else
``whole``); no other key is allowed. ``class`` gets the spelling normalisation of the vocabulary (lower case,
spaces and hyphens to ``_``) and must then be a snake_case term.

LLM wrapping accepted around exactly one JSON object: a fenced code block (```json ... ```) or prose before
and after it. Two candidate objects, or none, are an error, never a guess.

>>> parse_rule_json('Here it is: ```json\\n{"op": "PART", "role": "x", "body": {"op": "SHAPE", "class": "Sharp edge"}}\\n```')
Part(var='x', body=Atom(predicate='SHAPE', value='sharp_edge', role='x'))
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kari.core.terms import PREDICATES, WHOLE, fold_case, term_pattern
from kari.io.text import BadJSON, unique_keys
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.rules.diagnostics import RuleSyntaxError
from kari.rules.syntax import KEYWORDS, MAX_DEPTH, MAX_RULE_CHARS

MAX_JSON_CHARS = 4 * MAX_RULE_CHARS
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n(.*?)```", re.DOTALL)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_VALUE = re.compile(term_pattern() + r"\Z")
_SPACES_AND_HYPHENS = re.compile(r"[\s\-]+")


def fold_json_value(raw: str) -> str:
    """The grammar's folding of a JSON ``class`` string (grammar/kari.ebnf ``json_string``): lower case, runs of
    spaces and hyphens become ``_``; the result must then be a value."""
    return _SPACES_AND_HYPHENS.sub("_", fold_case(raw.strip()))
_KEYS = {"AND": ("args",), "OR": ("args",), "PART": ("role", "body")}


def to_json(node: Node) -> dict[str, Any]:
    """The JSON form of ``node`` (atoms always carry their role)."""
    if isinstance(node, Atom):
        return {"op": node.predicate, "role": node.role, "class": node.value}
    if isinstance(node, Part):
        return {"op": "PART", "role": node.var, "body": to_json(node.body)}
    return {"op": "AND" if isinstance(node, And) else "OR", "args": [to_json(arg) for arg in node.args]}


def parse_rule_json(text: str | Mapping[str, Any]) -> Node:
    """Parse the JSON form: an already-decoded mapping, or text holding one JSON object (LLM wrapping allowed)."""
    if isinstance(text, Mapping):
        return node_from_json(text)
    if not isinstance(text, str):
        raise RuleSyntaxError(f"JSON rule must be text or an object, not {type(text).__name__}", code="json-error")
    if len(text) > MAX_JSON_CHARS:
        raise RuleSyntaxError(f"JSON rule is {len(text):,} characters long; the limit is {MAX_JSON_CHARS:,}",
                              code="rule-too-large")
    return node_from_json(extract_json_object(text))


def extract_json_object(text: str) -> Any:
    """The one JSON object in ``text``: the whole text, the one fenced block, or the one object amid prose."""
    stripped = text.strip()
    if not stripped:
        raise RuleSyntaxError("empty input: expected a JSON rule object", line=1, col=1, code="json-error")
    try:
        return _loads(stripped)
    except json.JSONDecodeError:
        pass
    fences = _FENCE.findall(text)
    if len(fences) > 1:
        raise RuleSyntaxError(f"{len(fences)} fenced code blocks: expected exactly one JSON rule", code="json-error")
    if fences:
        try:
            return _loads(fences[0].strip())
        except json.JSONDecodeError as exc:
            start = text.index(fences[0])
            raise _decode_error(text, start + exc.pos, f"invalid JSON in the code block: {exc.msg}") from None
    found = _objects_in(text)
    if not found:
        raise RuleSyntaxError("no JSON object found", line=1, col=1, code="json-error")
    if len(found) > 1:
        raise _decode_error(text, found[1][0], "more than one JSON object: expected exactly one rule")
    return found[0][1]


def _loads(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except RecursionError:
        raise RuleSyntaxError(f"JSON nests deeper than {MAX_DEPTH} levels", code="nesting-too-deep") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise _number_too_long(exc) from None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a rule, refusing a key given twice (``{"op": "AND", "op": "OR"}`` is no rule)."""
    try:
        return unique_keys(pairs)
    except BadJSON as exc:
        raise RuleSyntaxError(exc.message.removeprefix("invalid JSON: ") + " of the JSON rule",
                              code="json-schema") from None


def _number_too_long(exc: ValueError) -> RuleSyntaxError:
    """json's error for an integer longer than Python converts (``sys.get_int_max_str_digits``)."""
    return RuleSyntaxError(f"invalid JSON: {str(exc).split(';')[0]}", code="json-error")


def _objects_in(text: str) -> list[tuple[int, Any]]:
    """Every top-level JSON object decodable in ``text`` (start offset, value), scanning left to right."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique)
    found: list[tuple[int, Any]] = []
    index = text.find("{")
    while index >= 0 and len(found) < 2:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        except RecursionError:
            raise RuleSyntaxError(f"JSON nests deeper than {MAX_DEPTH} levels", code="nesting-too-deep") from None
        except ValueError as exc:
            raise _number_too_long(exc) from None
        found.append((index, value))
        index = text.find("{", end)
    return found


def _decode_error(text: str, offset: int, message: str) -> RuleSyntaxError:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return RuleSyntaxError(message, line=line, col=col, code="json-error")


def node_from_json(obj: Any, path: str = "$") -> Node:
    """Convert a decoded JSON value to a node; errors name the JSON path of the offending value."""
    return _node(obj, path, WHOLE, 0)


def _schema(path: str, message: str) -> RuleSyntaxError:
    return RuleSyntaxError(f"{path}: {message}", code="json-schema")


def _node(obj: Any, path: str, role: str, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise RuleSyntaxError(f"rule nests deeper than {MAX_DEPTH} levels", code="nesting-too-deep")
    if not isinstance(obj, Mapping):
        raise _schema(path, f"expected a rule object, got {_kind(obj)}")
    op = obj.get("op")
    if not isinstance(op, str):
        raise _schema(path, "missing key 'op'" if op is None else f"'op' must be a string, got {_kind(op)}")
    op = op.strip().upper()
    if op in PREDICATES:
        _keys(obj, path, ("class",), ("role",))
        value = _string(obj, "class", path)
        canonical = fold_json_value(value)
        if not _VALUE.match(canonical):
            raise _schema(f"{path}.class", f"{value!r} is not a snake_case term")
        own = obj.get("role")
        if own is not None:
            role = _identifier(obj, "role", path)
        return Atom(op, canonical, role)
    if op not in _KEYS:
        raise _schema(f"{path}.op", f"unknown operator {obj['op']!r} (expected AND, OR, PART, {', '.join(PREDICATES)})")
    _keys(obj, path, _KEYS[op])
    if op == "PART":
        var = _identifier(obj, "role", path)
        return Part(var, _node(obj["body"], f"{path}.body", var, depth + 1))
    args = obj["args"]
    if not isinstance(args, list):
        raise _schema(f"{path}.args", f"expected a list, got {_kind(args)}")
    nodes = tuple(_node(arg, f"{path}.args[{i}]", role, depth + 1) for i, arg in enumerate(args))
    return And(nodes) if op == "AND" else Or(nodes)


def _keys(obj: Mapping[str, Any], path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    for key in required:
        if key not in obj:
            raise _schema(path, f"{obj['op']} needs key {key!r}")
    allowed = {"op", *required, *optional}
    extra = sorted(str(k) for k in obj if k not in allowed)
    if extra:
        raise _schema(path, f"unexpected key {extra[0]!r} in {obj['op']} (allowed: {', '.join(sorted(allowed))})")


def _string(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _schema(f"{path}.{key}", f"expected a string, got {_kind(value)}")
    return value


def _identifier(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = _string(obj, key, path).strip()
    if not _IDENT.match(value) or value.upper() in KEYWORDS:
        raise _schema(f"{path}.{key}", f"{value!r} is not a variable name (letters, digits, '_')")
    return value.lower()


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
