"""The one tree rewrite of kari rules: rebuild a body with every atom replaced (the model is clingo's
``ast.Transformer``: one walk, callers say only what happens to an atom).

>>> from kari.rules.parser import parse_rule
>>> from kari.rules.printer import to_text
>>> to_text(map_atoms(parse_rule("OR(SHAPE:flat, PART(x, MADE_OF:steel))"), lambda a: a if a.value != "steel" else
...     type(a)(a.predicate, "metal", a.role)))
'OR(SHAPE:flat, PART(x, MADE_OF:metal))'
"""

from __future__ import annotations

from collections.abc import Callable

from kari.rules.ast import And, Atom, Node, Or, Part


def map_atoms(node: Node, change: Callable[[Atom], Atom]) -> Node:
    """``node`` with every atom ``a`` replaced by ``change(a)``; operators and PART variables are kept."""
    if isinstance(node, Atom):
        return change(node)
    if isinstance(node, Part):
        return Part(node.var, map_atoms(node.body, change))
    if isinstance(node, (And, Or)):
        return type(node)(tuple(map_atoms(arg, change) for arg in node.args))
    raise TypeError(f"not a rule node: {node!r}")
