"""A fast path for the text form: one regular-expression tokenizer and a recursive-descent parser.

It accepts exactly the language of the pyparsing grammar in :mod:`kari.rules.syntax` (the reference; property
tests check the two against each other) but explains nothing: on any doubt it returns None and the caller
re-parses with pyparsing, which reports the error. Why it exists (measured on this machine): the pyparsing
grammar with packrat parses fewer than 100 realistic rules/s; the goal is 2,223 rules parsed, checked and
printed in under a second. Roles are resolved top-down, so no subtree is ever rebuilt, and source positions
are only computed when asked for (a checker that found a problem wants them, a loader does not).
"""

from __future__ import annotations

import re

from kari.core.terms import WHOLE, fold_case, term_pattern
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.rules.syntax import KEYWORDS, OPERATOR_PATTERN, PREDICATE_PATTERN, Pos

_WS = r"[ \t\r\n]"
_GAP = rf"(?:{_WS}|\#[^\n]*(?![^\n]))*"  # whitespace and comments (to the line's end), which pyparsing skips
# groups: 1 role, 2 predicate, 3 value (an atom is one token), 4 operator with its '(', 5 ',' or ')',
# 6 identifier, 7 anything else; whitespace and comments match no group
_TOKEN = re.compile(
    rf"{_WS}+|\#[^\n]*"
    rf"|(?:([A-Za-z_][A-Za-z0-9_]*){_GAP}\.{_GAP})?({PREDICATE_PATTERN}){_GAP}:{_GAP}({term_pattern()})"
    rf"|({OPERATOR_PATTERN}){_GAP}\("
    r"|([,)])"
    r"|([A-Za-z_][A-Za-z0-9_]*)"
    r"|(.)",
    re.ASCII | re.DOTALL,
)
_SKIP = ("",) * 7
_ROLE, _PRED, _VALUE, _OP, _PUNCT, _VAR, _BAD, _START, _VALUE_START = range(9)


class _Reject(Exception):
    """The fast path gives up; pyparsing will explain why."""


def fast_parse(text: str, positions: bool = False) -> tuple[Node, Pos | None] | None:
    """The AST of ``text`` (and its positions when asked), or None when the fast path does not accept it."""
    if positions:
        tokens = [m.groups("") + (m.start(), m.start(3)) for m in _TOKEN.finditer(text) if m.lastindex]
    else:
        tokens = [t for t in _TOKEN.findall(text) if t != _SKIP]
    if not tokens:
        return None
    try:
        index, node, pos = _expr(tokens, 0, WHOLE, positions)
    except (_Reject, IndexError):
        return None
    return (node, pos) if index == len(tokens) else None


def _expr(tokens: list[tuple], i: int, role: str, positions: bool) -> tuple[int, Node, Pos | None]:
    token = tokens[i]
    if token[_PRED]:
        if token[_ROLE]:
            if token[_ROLE].upper() in KEYWORDS:
                raise _Reject
            role = token[_ROLE].lower()
        atom = Atom(token[_PRED].upper(), fold_case(token[_VALUE]), role)
        return i + 1, atom, Pos(token[_START], (), token[_VALUE_START]) if positions else None
    op = token[_OP].upper()
    if op == "PART":
        var = tokens[i + 1][_VAR]
        if not var or var.upper() in KEYWORDS or tokens[i + 2][_PUNCT] != ",":
            raise _Reject
        var_token = tokens[i + 1]
        i, body, body_pos = _expr(tokens, i + 3, var.lower(), positions)
        if tokens[i][_PUNCT] != ")":
            raise _Reject
        pos = Pos(token[_START], (body_pos,) if body_pos is not None else (), None, var_token[_START]) \
            if positions else None
        return i + 1, Part(var.lower(), body), pos
    if not op:
        raise _Reject
    args: list[Node] = []
    arg_positions: list[Pos | None] = []
    i += 1
    if tokens[i][_PUNCT] == ")":
        i += 1
    else:
        while True:
            i, arg, arg_pos = _expr(tokens, i, role, positions)
            args.append(arg)
            arg_positions.append(arg_pos)
            punct = tokens[i][_PUNCT]
            i += 1
            if punct == ")":
                break
            if punct != ",":
                raise _Reject
    node = And(tuple(args)) if op == "AND" else Or(tuple(args))
    return i, node, Pos(token[_START], tuple(p for p in arg_positions if p is not None)) if positions else None
