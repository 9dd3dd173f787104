"""The pyparsing grammar of the KARI text form (grammar/kari.ebnf, rule ``expr``): the reference parser.

Comments (``#`` to the end of the line) are blanked out before parsing, keeping every offset. The grammar is
LL(1) after each operator keyword, so every keyword is followed by an error stop (``-``): once
``AND``, ``PART`` or ``MADE_OF`` has matched, a failure is reported at the offending token instead of
backtracking to the start of the rule. Parse actions build the AST bottom-up together with a parallel tree of
source positions (:class:`Pos`); unqualified atoms get their role when the enclosing PART (or the top level)
is reduced. :func:`kari.rules.parser.parse_rule` tries a hand-written fast path first; this grammar is the
reference and produces every error message.

>>> pyparse_rule("PART(x, AND(shape:Pointed, whole.MADE_OF: metal))")[0]
Part(var='x', body=And(args=(Atom(predicate='SHAPE', value='pointed', role='x'), \
Atom(predicate='MADE_OF', value='metal', role='whole'))))
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import NamedTuple

import pyparsing as pp

from kari.core.terms import PREDICATES, WHOLE, fold_case, term_pattern
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.rules.diagnostics import RuleSyntaxError

pp.ParserElement.enable_packrat()

MAX_DEPTH = 50
"""Deepest parenthesis nesting a rule may have (real rules have 2-4 levels)."""

MAX_RULE_CHARS = 65_536
"""Longest rule text accepted (a realistic rule is a few hundred characters)."""

OPERATORS = ("AND", "OR", "PART")
KEYWORDS = frozenset(OPERATORS) | frozenset(PREDICATES)
PREDICATE_PATTERN = "(?i:" + "|".join(PREDICATES) + ")"
"""A regular expression for a predicate name, any case (the fast parser and the rule-file reader use it)."""
OPERATOR_PATTERN = "(?i:" + "|".join(OPERATORS) + ")"
"""A regular expression for an operator name, any case."""
UNBOUND = ""  # role of an unqualified atom until its enclosing PART (or the top level) is reduced


class Pos(NamedTuple):
    """Source offsets of one node: ``loc`` its first character, ``children`` in AST child order, and for an
    atom ``value_loc`` (its value) / for a PART ``var_loc`` (its variable)."""

    loc: int
    children: tuple[Pos, ...] = ()
    value_loc: int | None = None
    var_loc: int | None = None

    def at_path(self, path: tuple[int, ...]) -> Pos:
        node = self
        for index in path:
            node = node.children[index]
        return node


class _Located:
    """A parse-action result: a node and its positions."""

    __slots__ = ("node", "pos")

    def __init__(self, node: Node, pos: Pos) -> None:
        self.node = node
        self.pos = pos


def bind(node: Node, var: str) -> Node:
    """Give every unqualified atom in ``node`` (not under a nested PART) the role ``var``."""
    if isinstance(node, Atom):
        return Atom(node.predicate, node.value, var) if node.role == UNBOUND else node
    if isinstance(node, Part):
        return node  # its atoms were bound when it was reduced
    args = tuple(bind(arg, var) for arg in node.args)
    return And(args) if isinstance(node, And) else Or(args)


def _fail(s: str, loc: int, message: str) -> None:
    raise pp.ParseSyntaxException(s, loc, message)  # a syntax exception is never renamed or backtracked


# --- parse actions ------------------------------------------------------------------------------------------
def _atom(s: str, loc: int, toks: pp.ParseResults) -> _Located:
    role = toks.get("role")
    role_text = UNBOUND if role is None else role.lower()
    if role_text in KEYWORDS or role_text in {"and", "or", "part"}:
        _fail(s, loc, f"{role!r} is a reserved word, not a role")
    value_loc = toks["value_loc"]
    atom = Atom(toks["predicate"].upper(), fold_case(toks["value"]), role_text)
    return _Located(atom, Pos(loc, (), value_loc=value_loc))


def _combinator(s: str, loc: int, toks: pp.ParseResults) -> _Located:
    args = toks.get("args")
    items: list[_Located] = list(args) if args is not None else []
    cls = And if toks["op"].upper() == "AND" else Or
    return _Located(cls(tuple(i.node for i in items)), Pos(loc, tuple(i.pos for i in items)))


def _part(s: str, loc: int, toks: pp.ParseResults) -> _Located:
    var = toks["var"].lower()
    if var.upper() in KEYWORDS:
        _fail(s, toks["var_loc"], f"{toks['var']!r} is a reserved word, not a PART variable")
    body: _Located = toks["body"]
    return _Located(Part(var, bind(body.node, var)), Pos(loc, (body.pos,), var_loc=toks["var_loc"]))


def _unknown_operator(s: str, loc: int, toks: pp.ParseResults) -> None:
    _fail(s, loc, f"unknown operator {toks[0]!r} (expected AND, OR or PART)")


def _unknown_predicate(s: str, loc: int, toks: pp.ParseResults) -> None:
    _fail(s, loc, f"unknown predicate {toks[0]!r} (expected {', '.join(PREDICATES)})")


def _bare_word(s: str, loc: int, toks: pp.ParseResults) -> None:
    _fail(s, loc, f"{toks[0]!r} is not a rule expression (an atom is PREDICATE:value, e.g. MADE_OF:{toks[0]})")


def _build_grammar() -> pp.ParserElement:
    lpar = pp.Suppress("(").set_name("'('")
    rpar = pp.Suppress(")").set_name("')'")
    close_args = pp.Suppress(")").set_name("',' or ')'")
    comma = pp.Suppress(",").set_name("','")
    colon = pp.Suppress(":").set_name("':'")
    dot = pp.Suppress(".").set_name("'.'")
    here = pp.Empty().set_parse_action(lambda s, loc, toks: loc).set_name("position")
    ident = pp.Regex(r"[A-Za-z_][A-Za-z0-9_]*").set_name("identifier")
    variable = pp.Regex(r"[A-Za-z_][A-Za-z0-9_]*").set_name("variable")
    value = pp.Regex(term_pattern()).set_name("value (a snake_case term)")
    predicate = pp.MatchFirst([pp.CaselessKeyword(p) for p in PREDICATES]).set_name("predicate")
    and_kw = pp.CaselessKeyword("AND").set_name("AND")
    or_kw = pp.CaselessKeyword("OR").set_name("OR")
    part_kw = pp.CaselessKeyword("PART").set_name("PART")

    expr = pp.Forward()
    expr.set_name("rule expression")
    atom_tail = predicate("predicate") - colon - here("value_loc") - value("value")
    plain_atom = atom_tail.copy().set_name("atom")
    qualified_atom = (variable("role") + dot - atom_tail).set_name("role-qualified atom")
    args = pp.Group(expr + pp.ZeroOrMore(comma - expr)).set_name("arguments")
    combinator = ((and_kw | or_kw)("op") - lpar - pp.Opt(args)("args") - close_args).set_name("AND/OR")
    part = (part_kw - lpar - here("var_loc") - variable("var") - comma - expr("body") - rpar).set_name("PART")
    unknown_operator = (ident + pp.FollowedBy("(")).set_name("operator")
    unknown_predicate = (ident + pp.FollowedBy(":")).set_name("predicate")
    bare_word = ident.copy().set_name("atom")

    plain_atom.set_parse_action(_atom)
    qualified_atom.set_parse_action(_atom)
    combinator.set_parse_action(_combinator)
    args.set_parse_action(lambda toks: toks[0].as_list())
    part.set_parse_action(_part)
    unknown_operator.set_parse_action(_unknown_operator)
    unknown_predicate.set_parse_action(_unknown_predicate)
    bare_word.set_parse_action(_bare_word)

    expr <<= pp.MatchFirst([combinator, part, plain_atom, qualified_atom, unknown_operator, unknown_predicate,
                            bare_word]).set_name("rule expression")
    return expr


EXPR = _build_grammar()

_TOKEN = re.compile(r"[A-Za-z0-9_]+|\S")
_COMMENT = re.compile(r"#[^\n]*")
SPACES = " \t\r\n"
"""The white space a rule may hold between tokens (pyparsing's default): no other space character."""


def _odd_space(text: str, loc: int) -> str | None:
    """The space or invisible character at ``loc`` that is none of :data:`SPACES` (a no-break space pasted from a
    web page, a zero-width space), named with its code point; None for any other character."""
    if loc >= len(text) or text[loc] in SPACES or unicodedata.category(text[loc]) not in ("Zs", "Zl", "Zp", "Cc", "Cf"):
        return None
    return f"{unicodedata.name(text[loc], 'control character').lower()} (U+{ord(text[loc]):04X})"


def _found(text: str, loc: int) -> str:
    match = _TOKEN.match(text, loc) if loc < len(text) else None
    if match is None:
        rest = text[loc:]
        return "end of input" if not rest.strip() else repr(rest.strip()[:20])
    return repr(match.group())


def _line_col(text: str, loc: int) -> tuple[int, int]:
    line = text.count("\n", 0, loc) + 1
    return line, loc - (text.rfind("\n", 0, loc) + 1) + 1


def check_limits(text: str) -> None:
    if len(text) > MAX_RULE_CHARS:
        raise RuleSyntaxError(f"rule is {len(text):,} characters long; the limit is {MAX_RULE_CHARS:,}",
                              line=1, col=1, code="rule-too-large")
    if text.count("(") <= MAX_DEPTH:
        return
    scan = _COMMENT.sub(lambda m: " " * len(m.group()), text) if "#" in text else text
    depth = 0
    for match in re.finditer(r"[()]", scan):
        depth += 1 if match.group() == "(" else -1
        if depth > MAX_DEPTH:
            line, col = _line_col(text, match.start())
            raise RuleSyntaxError(f"rule nests deeper than {MAX_DEPTH} levels", line=line, col=col,
                                  code="nesting-too-deep")


def syntax_error(text: str, exc: pp.ParseBaseException) -> RuleSyntaxError:
    loc = min(max(exc.loc, 0), len(text))
    # skip whitespace and comments so the error points at the token itself
    while True:
        stripped = len(text) - len(text[loc:].lstrip(SPACES))
        loc = stripped
        if text.startswith("#", loc):
            end = text.find("\n", loc)
            loc = len(text) if end < 0 else end
            continue
        break
    message = str(exc.msg)
    odd = _odd_space(text, loc)
    if odd is not None:
        message = f"a {odd} here: only spaces, tabs and line breaks may stand between a rule's tokens"
    elif message == "Expected end of text":
        message = f"unexpected {_found(text, loc)} after the rule"
    elif message.startswith("Expected "):
        message = f"expected {message[len('Expected '):]}, found {_found(text, loc)}"
    line, col = _line_col(text, loc)
    return RuleSyntaxError(message, line=line, col=col)


def line_col(text: str, loc: int) -> tuple[int, int]:
    """1-based (line, column) of offset ``loc`` in ``text``."""
    return _line_col(text, loc)


class LineIndex:
    """(line, column) of many offsets in one long text, in O(log lines) each."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, loc: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, loc)
        return line, loc - self.starts[line - 1] + 1


def pyparse_rule(text: str) -> tuple[Node, Pos]:
    """Parse one rule expression with pyparsing; return the AST and its positions, or raise RuleSyntaxError."""
    check_limits(text)
    uncommented = _COMMENT.sub(lambda m: " " * len(m.group()), text) if "#" in text else text
    try:
        located: _Located = EXPR.parse_string(uncommented, parse_all=True)[0]
    except pp.ParseBaseException as exc:
        raise syntax_error(uncommented, exc) from None
    except RecursionError:  # defensive: check_limits keeps nesting well inside Python's stack
        raise RuleSyntaxError(f"rule nests too deeply (limit {MAX_DEPTH})", line=1, col=1,
                              code="nesting-too-deep") from None
    return bind(located.node, WHOLE), located.pos
