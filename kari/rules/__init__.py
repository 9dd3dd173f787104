"""The KARI rule language: AST (ast.py), parsers, printers, static checks and simplification.

The language is specified in ``grammar/kari.ebnf`` and described for users in ``grammar/README.md``. Names are
imported lazily (PEP 562) so that ``kari.rules.ast`` stays cheap to import (the domain core needs it, and the
checker needs the vocabulary).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "kari.domain.terms": ("PREDICATES", "WHOLE"),
    "kari.rules.ast": ("And", "Atom", "Node", "Or", "Part", "Rule"),
    "kari.rules.checks": ("CHECKS", "affordance_terms", "check_file", "check_rule"),
    "kari.rules.diagnostics": ("Diagnostic", "RuleSyntaxError"),
    "kari.rules.jsonform": ("node_from_json", "parse_rule_json", "to_json"),
    "kari.rules.normalise": ("normalise_rule", "normalise_values"),
    "kari.rules.parser": ("parse_rule", "parse_rule_located"),
    "kari.rules.printer": ("to_pretty", "to_text"),
    "kari.rules.rulefile": ("dump_rules_jsonl", "dump_rules_kari", "load_rules", "read_rule_file"),
    "kari.rules.simplification": ("simplify", "simplify_rule", "subsumed_branches"),
    "kari.rules.stats": ("rule_stats",),
    "kari.rules.english": ("verbalise",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "CHECKS",
    "PREDICATES",
    "WHOLE",
    "And",
    "Atom",
    "Diagnostic",
    "Node",
    "Or",
    "Part",
    "Rule",
    "RuleSyntaxError",
    "affordance_terms",
    "check_file",
    "check_rule",
    "dump_rules_jsonl",
    "dump_rules_kari",
    "load_rules",
    "node_from_json",
    "normalise_rule",
    "normalise_values",
    "parse_rule",
    "parse_rule_json",
    "parse_rule_located",
    "read_rule_file",
    "rule_stats",
    "simplify",
    "simplify_rule",
    "subsumed_branches",
    "to_json",
    "to_pretty",
    "to_text",
    "verbalise",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'kari.rules' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


if TYPE_CHECKING:
    from kari.domain.terms import PREDICATES, WHOLE
    from kari.rules.ast import And, Atom, Node, Or, Part, Rule
    from kari.rules.checks import CHECKS, affordance_terms, check_file, check_rule
    from kari.rules.diagnostics import Diagnostic, RuleSyntaxError
    from kari.rules.english import verbalise
    from kari.rules.jsonform import node_from_json, parse_rule_json, to_json
    from kari.rules.normalise import normalise_rule, normalise_values
    from kari.rules.parser import parse_rule, parse_rule_located
    from kari.rules.printer import to_pretty, to_text
    from kari.rules.rulefile import (
        dump_rules_jsonl,
        dump_rules_kari,
        load_rules,
        read_rule_file,
    )
    from kari.rules.simplification import simplify, simplify_rule, subsumed_branches
    from kari.rules.stats import rule_stats
