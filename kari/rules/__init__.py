"""The KARI rule language: AST (ast.py), parsers, printers, static checks and simplification.

The language is specified in ``grammar/kari.ebnf`` and described for users in ``grammar/README.md``. Names are
loaded on first use (:mod:`kari.exports`) so that ``kari.rules.ast`` stays cheap to import (the domain core
needs it, and the checker needs the vocabulary).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.core.terms import PREDICATES, WHOLE
    from kari.rules.ast import And, Atom, Node, Or, Part, Rule, any_of
    from kari.rules.checks import CHECKS, affordance_terms, check_file, check_rule
    from kari.rules.diagnostics import Diagnostic, RuleSyntaxError
    from kari.rules.jsonform import node_from_json, parse_rule_json, to_json
    from kari.rules.normalise import normalise_rule, normalise_values
    from kari.rules.parser import parse_rule, parse_rule_located
    from kari.rules.printer import to_pretty, to_text
    from kari.rules.anchors import kb_positives, rule_verbs
    from kari.rules.rulefile import dump_rules_jsonl, dump_rules_kari, load_rule_file, load_rules, read_rule_file
    from kari.rules.simplification import simplify, simplify_rule, subsumed_branches
    from kari.rules.stats import rule_stats
    from kari.rules.english import verbalise

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.core.terms": ("PREDICATES", "WHOLE"),
    "kari.rules.ast": ("And", "Atom", "Node", "Or", "Part", "Rule", "any_of"),
    "kari.rules.checks": ("CHECKS", "affordance_terms", "check_file", "check_rule"),
    "kari.rules.diagnostics": ("Diagnostic", "RuleSyntaxError"),
    "kari.rules.jsonform": ("node_from_json", "parse_rule_json", "to_json"),
    "kari.rules.normalise": ("normalise_rule", "normalise_values"),
    "kari.rules.parser": ("parse_rule", "parse_rule_located"),
    "kari.rules.printer": ("to_pretty", "to_text"),
    "kari.rules.anchors": ("kb_positives", "rule_verbs"),
    "kari.rules.rulefile": ("dump_rules_jsonl", "dump_rules_kari", "load_rule_file", "load_rules", "read_rule_file"),
    "kari.rules.simplification": ("simplify", "simplify_rule", "subsumed_branches"),
    "kari.rules.stats": ("rule_stats",),
    "kari.rules.english": ("verbalise",),
})
