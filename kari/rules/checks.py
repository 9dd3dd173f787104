"""Static checks of rules (method.md 1): scoping of PART variables, empty and duplicate arguments, and values.

Each check has its own code (:data:`CHECKS`). Errors make a rule invalid; warnings are reported but do not
(``kari rules check --strict`` turns them into failures). Value checks, in this order:

1. banned terms (``data/vocabulary/banned.tsv``): dynamic behaviour -> ``dynamic-value``; affordance adjectives
   -> ``affordance-value``; checked on the whole value and on each ``_``-separated word of a value that is not a
   canonical vocabulary value;
2. the affordance itself: the rule's own verb (and those passed in ``affordances``), its ``-able``/``-ible``/
   ``-ing``/``-ive``/``-ent`` adjectives -> ``affordance-value``; a SHAPE value the vocabulary knows as a part's
   name (a part noun: ``opening``, ``cover``) is a shape and never refused for resembling a verb;
3. the vocabulary: a canonical value of the predicate is fine; a synonym -> ``non-canonical-value`` (warning:
   ``kari rules fmt --normalise`` rewrites it); a value of another predicate only -> ``ill-typed-value``;
   a term the vocabulary does not know -> ``unknown-value`` (warning: the Auditor maps it or adds it).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kari.core.terms import WHOLE, normalise_term
from kari.rules.ast import And, Atom, Node, Or, Part, Rule
from kari.errors import KariError
from kari.rules.diagnostics import ERROR, WARNING, Diagnostic
from kari.rules.rulefile import Entry, affordance_key, duplicate_message, read_rule_file, with_twin_metadata
from kari.rules.simplification import branch_atom_set, subsumed_indices
from kari.rules.values import MEND, induced_by_kari, vocabulary_for
from kari.vocab.vocabulary import Vocabulary

CHECKS: dict[str, tuple[str, str]] = {
    "syntax-error": (ERROR, "the text is not a rule (the location points at the offending token)"),
    "json-error": (ERROR, "no single JSON object could be read"),
    "json-schema": (ERROR, "a JSON node has wrong keys or value types"),
    "nesting-too-deep": (ERROR, "deeper than 50 nested operators"),
    "rule-too-large": (ERROR, "rule text longer than 65,536 characters"),
    "empty-file": (ERROR, "a rule file defines no rule"),
    "duplicate-affordance": (ERROR, "two rules in one file for the same affordance"),
    "empty-and": (ERROR, "AND() without arguments"),
    "empty-or": (ERROR, "OR() without arguments"),
    "reserved-variable": (ERROR, "PART(whole, ...): 'whole' names the entire object"),
    "part-not-fresh": (ERROR, "a PART reuses a variable bound by an enclosing PART or a conjunct"),
    "free-variable": (ERROR, "an atom's role is neither 'whole' nor declared by an enclosing PART"),
    "duplicate-branch": (ERROR, "two OR branches are the same (argument order ignored)"),
    "dynamic-value": (ERROR, "a value names dynamic behaviour (compressible, foldable...)"),
    "empty-value": (ERROR, "a value without a letter or digit (SHAPE:_): it names nothing"),
    "affordance-value": (ERROR, "a value names an affordance verb or its adjective (cuttable, reflective...)"),
    "ill-typed-value": (ERROR, "a value of another predicate (MADE_OF:cylinder)"),
    "unknown-value": (WARNING, "a value not in the vocabulary"),
    "non-canonical-value": (WARNING, "a synonym of a canonical vocabulary value (metallic -> metal)"),
    "duplicate-conjunct": (WARNING, "the same argument twice in one AND"),
    "subsumed-branch": (WARNING, "an OR branch whose atoms include all atoms of another branch"),
    "unused-part": (WARNING, "a PART whose body never mentions its variable"),
}


def _diag(code: str, message: str, path: tuple[int, ...], affordance: str | None) -> Diagnostic:
    return Diagnostic(code, message, CHECKS[code][0], affordance=affordance, path=path)


def check_rule(rule: Rule | Node, vocab: Vocabulary, affordances: Iterable[Any] = ()) -> list[Diagnostic]:
    """Every problem in ``rule`` (no locations: ``path`` names the node; :func:`kari.rules.check_file` adds
    file positions). ``affordances`` are further affordance ids (or objects with ``.id``) whose verbs are
    banned as values."""
    body = rule.body if isinstance(rule, Rule) else rule
    name = rule.affordance if isinstance(rule, Rule) else None
    ids = [name] if name else []
    ids += [getattr(a, "id", a) for a in affordances]
    checker = _Checker(vocab, affordance_terms(ids), name)
    checker.walk(body, (), frozenset())
    out = checker.out
    if isinstance(body, Or):
        duplicates = {d.path for d in out if d.code == "duplicate-branch"}
        keys = checker.branch_keys
        for index in subsumed_indices([k if isinstance(k, frozenset) else None for k in keys]):
            if (index,) not in duplicates:
                out.append(_diag("subsumed-branch", f"OR branch {index + 1} adds nothing: its atoms include all "
                                 "atoms of another branch", (index,), name))
    out.sort(key=lambda d: d.path)
    return out


def affordance_terms(affordances: Iterable[str]) -> dict[str, frozenset[str]]:
    """Per affordance id: the words a value may not be (the id, its verb, the verb's adjective forms).

    >>> sorted(affordance_terms(["cut"])["cut"])
    ['cut', 'cutable', 'cutent', 'cutible', 'cuting', 'cutive', 'cuttable', 'cuttent', 'cuttible', 'cutting', 'cuttive']
    """
    out: dict[str, frozenset[str]] = {}
    for affordance in affordances:
        verb = affordance.split("_", 1)[0]
        stems = {verb, verb[:-1] if verb.endswith("e") and len(verb) > 3 else verb}
        if len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
            stems.add(verb + verb[-1])  # cut -> cutt(able)
        forms = {stem + suffix for stem in stems for suffix in ("able", "ible", "ing", "ive", "ent")}
        out[affordance] = frozenset(forms | {affordance, verb})
    return out


class _Checker:
    def __init__(self, vocab: Vocabulary, terms: dict[str, frozenset[str]], name: str | None) -> None:
        self.vocab = vocab
        self.terms = terms
        self.name = name
        self.out: list[Diagnostic] = []
        self.branch_keys: list[object] = []  # canonical keys of the top-level OR branches

    def report(self, code: str, message: str, path: tuple[int, ...]) -> None:
        self.out.append(_diag(code, message, path, self.name))

    def walk(self, node: Node, path: tuple[int, ...], scope: frozenset[str]) -> dict[str, tuple[int, ...]]:
        """Check ``node``; return the PART variables it declares (variable -> path of its PART)."""
        if isinstance(node, Atom):
            if node.role != WHOLE and node.role not in scope:
                self.report("free-variable", f"role {node.role!r} is not declared by an enclosing PART", path)
            self.check_value(node, path)
            return {}
        if isinstance(node, Part):
            return self.walk_part(node, path, scope)
        op = "AND" if isinstance(node, And) else "OR"
        if not node.args:
            self.report(f"empty-{op.lower()}", f"{op}() has no arguments", path)
        declared: dict[str, tuple[int, ...]] = {}
        seen: dict[object, int] = {}
        keys = [_canonical(arg) for arg in node.args]
        if not path and op == "OR":
            self.branch_keys = keys
        for index, arg in enumerate(node.args):
            child = path + (index,)
            inner = self.walk(arg, child, scope)
            for var, where in inner.items():
                if var in declared and op == "AND":
                    self.report("part-not-fresh", f"PART variable {var!r} is also bound in another argument of this "
                                "AND (a distinct part needs a new variable)", where)
                declared.setdefault(var, where)
            key = keys[index]
            if key in seen:
                if op == "OR":
                    self.report("duplicate-branch", f"OR branch {index + 1} repeats branch {seen[key] + 1}", child)
                else:
                    self.report("duplicate-conjunct", f"AND argument {index + 1} repeats argument {seen[key] + 1}",
                                child)
            else:
                seen[key] = index
        return declared

    def walk_part(self, node: Part, path: tuple[int, ...], scope: frozenset[str]) -> dict[str, tuple[int, ...]]:
        if node.var == WHOLE:
            self.report("reserved-variable", "'whole' is the entire object, not a PART variable", path)
        elif node.var in scope:
            self.report("part-not-fresh", f"PART variable {node.var!r} is already bound by an enclosing PART", path)
        if not _uses_its_part(node):
            self.report("unused-part", f"no atom in this PART is about part {node.var!r}", path)
        declared = self.walk(node.body, path + (0,), scope | {node.var})
        return {node.var: path, **{v: p for v, p in declared.items() if v != node.var}}

    def check_value(self, atom: Atom, path: tuple[int, ...]) -> None:
        value, predicate = atom.value, atom.predicate
        if not normalise_term(value):
            self.report("empty-value", f"{predicate}:{value} names no value ({value!r} has no letter or digit)",
                        path)
            return
        canonical = self.vocab.has_value(predicate, value)
        words = [value] if canonical else [value, *value.split("_")]
        for word in words:
            kind = self.vocab.banned_reason(word)
            if kind == "dynamic":
                self.report("dynamic-value", f"{value!r} describes dynamic behaviour, not a static property "
                            "(name the material or shape that causes it)", path)
                return
            if kind is not None:
                which = "" if word == value else f" ({word!r})"
                self.report("affordance-value", f"{value!r} names an affordance{which}, not a physical property",
                            path)
                return
        part_noun = self.vocab.is_part_noun(predicate, value)  # a part (opening, cover) is a shape, not a verb
        for affordance, forms in () if part_noun else self.terms.items():
            if value in forms or any(word in forms and word != affordance.split("_", 1)[0] for word in words[1:]):
                self.report("affordance-value", f"{value!r} names the affordance {affordance!r}", path)
                return
        if canonical:
            return
        normal = self.vocab.normalise(predicate, value)
        if normal is not None:
            self.report("non-canonical-value", f"{value!r} is a synonym of {predicate} value {normal!r}", path)
            return
        others = sorted(self.vocab.predicates_of(value))
        if others:
            self.report("ill-typed-value", f"{value!r} is a {' / '.join(others)} value, not a {predicate} value",
                        path)
        else:
            self.report("unknown-value", f"{value!r} is not in the {predicate} vocabulary", path)


def _canonical(node: Node) -> object:
    """An order-insensitive key of ``node``: a conjunctive node is its atom set with PART variables renamed in
    order of appearance, unless a PART in it mentions no atom of its part (its atoms then do not show the PART,
    which under ``strict`` still needs a part: ``PART(x, whole.SHAPE:flat)`` is not ``SHAPE:flat``); otherwise the
    operator with the set of its arguments' keys."""
    if isinstance(node, Atom):
        return frozenset(((node.predicate, node.value, node.role),))  # as branch_atom_set, without its walk
    atoms = branch_atom_set(node) if not _has_unused_part(node) else None
    if atoms is not None:
        return atoms
    if isinstance(node, Part):  # an unused variable's name says nothing
        return ("PART", node.var if _uses_its_part(node) else None, _canonical(node.body))
    assert not isinstance(node, Atom)
    return (type(node).__name__, frozenset(_canonical(arg) for arg in node.args))


def _uses_its_part(node: Part) -> bool:
    """Is some atom of the PART's body about its part (its role the PART's variable)?"""
    return any(atom.role == node.var for atom in node.body.atoms())


def _has_unused_part(node: Node) -> bool:
    """Does ``node`` hold a PART none of whose atoms is about its part?"""
    if isinstance(node, Atom):
        return False
    if isinstance(node, Part):
        return not _uses_its_part(node) or _has_unused_part(node.body)
    return any(_has_unused_part(arg) for arg in node.args)


def check_file(path: str | Path, vocab: Vocabulary, affordances: Iterable[Any] = ()) -> list[Diagnostic]:
    """Every problem in a rule file, located (``FILE:LINE:COL``): syntax errors of each definition (one bad
    rule does not hide the others), duplicate affordances, and :func:`check_rule` on every rule, against
    ``vocab`` with the values the file's rules record (:mod:`kari.rules.values`: in a ``.jsonl`` file itself or
    the ``.jsonl`` twin of a ``.kari`` file) applied to a copy; an ill-typed value of a rule ``kari induce``
    wrote names the mend."""
    entries, errors = read_rule_file(path)
    try:
        vocab = vocabulary_for(with_twin_metadata(Path(path), [e.rule for e in entries if e.rule is not None]), vocab)
    except KariError as exc:  # a malformed record of values: the file cannot be read as it says
        raise KariError(exc.message, file=str(path), code=exc.code) from None
    out = [error.to_diagnostic() for error in errors]
    first: dict[str, Entry] = {}
    extra = list(affordances)
    for entry in entries:
        if entry.error is not None:
            out.append(entry.error.to_diagnostic(entry.affordance))
            continue
        seen = first.setdefault(affordance_key(entry.affordance), entry)
        if seen is not entry:
            out.append(Diagnostic("duplicate-affordance", duplicate_message(entry, seen), ERROR, entry.file,
                                  entry.line, entry.col, entry.affordance))
        assert entry.rule is not None
        induced = induced_by_kari(entry.rule)
        out.extend(entry.locate(_mended(d, MEND) if induced else d) for d in check_rule(entry.rule, vocab, extra))
    return sorted(out, key=lambda d: (d.line or 0, d.col or 0))


def _mended(diagnostic: Diagnostic, mend: str) -> Diagnostic:
    """An ill-typed value's diagnostic with what to do about a value the file's database reads otherwise."""
    if diagnostic.code != "ill-typed-value":
        return diagnostic
    return Diagnostic(diagnostic.code, f"{diagnostic.message} ({mend})", diagnostic.severity, diagnostic.file,
                      diagnostic.line, diagnostic.col, diagnostic.affordance, diagnostic.path)
