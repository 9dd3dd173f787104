"""The KARI rule language: AST (ast.py), parsers, printers, static checks and simplification.

The language is specified in ``grammar/kari.ebnf`` and described for users in ``grammar/README.md``. Names are
loaded on first use (:mod:`kari.exports`) so that ``kari.rules.ast`` stays cheap to import (the domain core
needs it, and the checker needs the vocabulary).
"""

from kari.exports import lazy_exports

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
