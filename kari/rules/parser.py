"""Parse the text form of one rule: the fast path first, the pyparsing reference grammar for everything else.

>>> parse_rule("PART(x, AND(shape:Pointed, whole.MADE_OF: metal))")
Part(var='x', body=And(args=(Atom(predicate='SHAPE', value='pointed', role='x'), \
Atom(predicate='MADE_OF', value='metal', role='whole'))))
"""

from __future__ import annotations

from kari.rules.ast import Node
from kari.rules.diagnostics import RuleSyntaxError
from kari.rules.fastparse import fast_parse
from kari.rules.syntax import Pos, check_limits, pyparse_rule


def parse_rule_located(text: str) -> tuple[Node, Pos]:
    """Parse one rule expression; return the AST and its source positions (offsets into ``text``)."""
    _check_input(text)
    fast = fast_parse(text, positions=True)
    if fast is not None:
        node, pos = fast
        assert pos is not None
        return node, pos
    return pyparse_rule(text)


def parse_rule(text: str) -> Node:
    """Parse the text form of one rule body (``OR(PART(x, AND(SHAPE:pointed, ...)), ...)``).

    Raises :class:`RuleSyntaxError` (line and column relative to ``text``) for anything that is not a rule.
    """
    _check_input(text)
    fast = fast_parse(text)
    return fast[0] if fast is not None else pyparse_rule(text)[0]


def _check_input(text: object) -> None:
    if not isinstance(text, str):
        raise RuleSyntaxError(f"rule text must be a string, not {type(text).__name__}")
    check_limits(text)
