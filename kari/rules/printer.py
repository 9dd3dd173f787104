"""Printers of the text form: the canonical one-line form and a pretty multi-line form.

The canonical form is what :func:`to_text` prints and what rule files, caches and prompts store: operators
upper-case, values and variables lower-case, ``", "`` between arguments, no space around ``:``, and an atom's
role written only when it differs from its default (the nearest enclosing PART variable, else ``whole``).
``parse_rule(to_text(n)) == n`` for every node.

>>> from kari.rules.parser import parse_rule
>>> to_text(parse_rule("or( part(x,and(Shape:pointed , whole.MADE_OF:metal)), SIZE:thin )"))
'OR(PART(x, AND(SHAPE:pointed, whole.MADE_OF:metal)), SIZE:thin)'
"""

from __future__ import annotations

from kari.core.terms import WHOLE
from kari.rules.ast import And, Atom, Node, Or, Part

INDENT = "  "


def to_text(node: Node, default_role: str = WHOLE) -> str:
    """The canonical one-line text form of ``node`` (atoms whose role is ``default_role`` print unqualified)."""
    if isinstance(node, Atom):
        text = f"{node.predicate}:{node.value}"
        return text if node.role == default_role else f"{node.role}.{text}"
    if isinstance(node, Part):
        return f"PART({node.var}, {to_text(node.body, node.var)})"
    op = "AND" if isinstance(node, And) else "OR"
    return f"{op}({', '.join([to_text(arg, default_role) for arg in node.args])})"


def to_pretty(node: Node, width: int = 88) -> str:
    """A multi-line form: a node that fits in ``width`` stays on one line, a longer AND/OR puts one argument
    per line; a top-level OR always lists its branches one per line. It parses back to the same tree."""
    top_break = isinstance(node, Or) and len(node.args) > 1
    return "\n".join(_pretty(node, WHOLE, 0, width, force=top_break))


def _pretty(node: Node, default_role: str, level: int, width: int, force: bool = False) -> list[str]:
    flat = to_text(node, default_role)
    if not force and (len(INDENT) * level + len(flat) <= width or isinstance(node, Atom)):
        return [flat]
    if isinstance(node, Part):
        body = _pretty(node.body, node.var, level, width)
        body[0] = f"PART({node.var}, {body[0]}"
        body[-1] += ")"
        return body
    assert isinstance(node, (And, Or))
    if not node.args:
        return [flat]
    lines = [f"{'AND' if isinstance(node, And) else 'OR'}("]
    for index, arg in enumerate(node.args):
        arg_lines = _pretty(arg, default_role, level + 1, width)
        if index < len(node.args) - 1:
            arg_lines[-1] += ","
        lines.extend(INDENT + line for line in arg_lines)
    lines.append(")")
    return lines
