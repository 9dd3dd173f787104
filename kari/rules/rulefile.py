"""Rule files: ``.kari`` text (``affordance_id := RULE`` definitions) and ``.jsonl`` (one JSON record a line).

``.kari``: a definition starts at the beginning of a line with an affordance id followed by ``:=`` (or ``:``,
as the paper prints rules) and runs to the next definition; rules span lines freely; ``#`` starts a comment.
Comment lines directly above a definition are kept as its ``metadata["comments"]`` (those after the last
definition as its ``metadata["trailing_comments"]``) and written back by :func:`dump_rules_kari`; comments inside
a rule are not. A UTF-8 byte-order mark at the start of a file is ignored.

``.jsonl``: ``{"affordance": id, "rule": <JSON form or text form>, "branches": [{...}, ...], ...}``; ``branches``
(optional) holds one metadata object per top-level OR branch (round, source, objects covered), every other key
is rule metadata.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kari.core.formats import RuleForm
from kari.core.terms import normalise_term, term_pattern
from kari.errors import KariError, unknown
from kari.io.fingerprint import file_input
from kari.io.outputs import Input, inputs_of
from kari.io.text import BadJSON, decode_json, read_text
from kari.io.versions import FORMAT_KEY, RULES_FORMAT
from kari.rules.ast import And, Node, Or, Part, Rule
from kari.rules.diagnostics import Diagnostic, RuleSyntaxError
from kari.rules.english import verbalise
from kari.rules.jsonform import node_from_json, to_json
from kari.rules.parser import parse_rule, parse_rule_located
from kari.rules.printer import to_pretty, to_text
from kari.rules.syntax import OPERATOR_PATTERN, PREDICATE_PATTERN, LineIndex, Pos

RULE_FILE_SUFFIXES = (".kari", ".jsonl")
_HEADER = re.compile(rf"^[ \t]*(?!{PREDICATE_PATTERN}\b|{OPERATOR_PATTERN}\b)({term_pattern()})[ \t]*:=?",
                     re.MULTILINE | re.ASCII)
_AFFORDANCE = re.compile(term_pattern() + r"\Z")  # a benchmark's id as it is: 3d_print, mâcher
_COMMENT_LINE = re.compile(r"[ \t]*#(.*)")
_CODE = re.compile(r"[^\s#]")  # a line holding code (not blank, not only a comment)


@dataclass
class Entry:
    """One definition of a rule file: the rule, or the syntax error that stopped it, and how to locate nodes."""

    affordance: str
    file: str
    line: int
    col: int | None
    rule: Rule | None = None
    error: RuleSyntaxError | None = None
    locate: Callable[[Diagnostic], Diagnostic] = field(default=lambda d: d, repr=False)


def read_rule_file(path: str | Path) -> tuple[list[Entry], list[RuleSyntaxError]]:
    """Every definition of a ``.kari`` or ``.jsonl`` file, plus errors outside any definition."""
    path = Path(path)
    if path.suffix not in RULE_FILE_SUFFIXES:
        raise KariError(f"unknown rule file type {path.suffix!r} (expected .kari or .jsonl)", file=str(path),
                        code="unknown-format")
    text = read_text(path, "rule file")
    entries, errors = (read_kari if path.suffix == ".kari" else read_jsonl)(text, str(path))
    if not entries and not errors:
        errors.append(RuleSyntaxError("the file defines no rule", file=str(path), line=1, col=1, code="empty-file"))
    return entries, errors


def load_rules(path: str | Path) -> list[Rule]:
    """The rules of a ``.kari`` or ``.jsonl`` file; the first syntax error raises :class:`RuleSyntaxError`."""
    entries, errors = read_rule_file(path)
    problems = errors + [e.error for e in entries if e.error is not None]
    if problems:
        raise min(problems, key=lambda e: (e.line or 0, e.col or 0))
    seen: dict[str, Entry] = {}
    for entry in entries:
        first = seen.setdefault(affordance_key(entry.affordance), entry)
        if first is not entry:
            raise RuleSyntaxError(duplicate_message(entry, first), file=entry.file, line=entry.line, col=entry.col,
                                  code="duplicate-affordance")
    return [e.rule for e in entries if e.rule is not None]


def affordance_key(affordance: str) -> str:
    """What tells two rules' affordances apart: their spelling key (``cut`` and ``Cut`` are one affordance, as
    the rule matcher reads them)."""
    return normalise_term(affordance)


def duplicate_message(entry: Entry, first: Entry) -> str:
    """The error for a second rule of one affordance (``first``'s)."""
    spelled = "" if first.affordance == entry.affordance else f" as {first.affordance!r}; ids that differ only in " \
        "case or punctuation name one affordance"
    return f"second rule for {entry.affordance!r} (first on line {first.line}{spelled})"


def load_rule_file(path: str | Path) -> list[Rule]:
    """The rules of a ``.kari`` or ``.jsonl`` file; a ``.kari`` file written by ``kari induce`` gets the metadata
    of the ``.jsonl`` beside it (KB verbs, KB positives, evidence counts) for every rule whose body is the same."""
    where = Path(path)
    return with_twin_metadata(where, load_rules(where))


def with_twin_metadata(path: Path, rules: Sequence[Rule]) -> list[Rule]:
    """``rules`` (read from ``path``) each with the metadata of the same rule in the ``.jsonl`` beside a ``.kari``
    file (:func:`metadata_twin`; a rule whose body differs there keeps its own)."""
    beside = metadata_twin(path)
    if beside is None:
        return list(rules)
    recorded = {r.affordance: r for r in load_rules(beside)}
    out = []
    for rule in rules:
        twin = recorded.get(rule.affordance)
        if twin is not None and twin.body == rule.body:
            rule = replace(rule, metadata={**twin.metadata, **rule.metadata}, branch_metadata=twin.branch_metadata)
        out.append(rule)
    return out


def rule_file_fingerprint(path: str | Path) -> dict[str, Any]:
    """The content fingerprint of a rules file as :func:`load_rule_file` reads it: a ``.kari`` file with the
    ``.jsonl`` beside it whose metadata it takes (``metadata``), so a resume notices either changing."""
    where = Path(path)
    out = file_input("the rules file", where)
    beside = metadata_twin(where)
    if beside is not None:
        out["metadata"] = file_input("the rules' metadata", beside)
    return out


def rule_file_inputs(path: str | Path, what: str = "--rules") -> list[Input]:
    """What reading a rules file reads (:mod:`kari.io.outputs`): the file and, for a ``.kari`` file, the
    metadata twin :func:`load_rule_file` takes, beside the path as given and beside the file a link leads to,
    whether or not it exists yet (a file written there would be read as the rules' metadata by every later
    command); for a folder (``RULES.cv``), every file in it."""
    where = Path(path)
    if where.is_dir():
        return inputs_of(f"a file of {what}", sorted(p for p in where.iterdir() if p.is_file()))
    twins: list[Path] = []
    if where.suffix == ".kari":
        twins = list(dict.fromkeys([where.with_suffix(".jsonl"), where.resolve().with_suffix(".jsonl")]))
    return [Input(where, what), *(Input(t, f"the metadata twin of {what}", absent_too=True) for t in twins)]


def metadata_twin(path: Path) -> Path | None:
    """The ``.jsonl`` beside a ``.kari`` file whose metadata :func:`load_rule_file` takes, if there is one."""
    beside = path.with_suffix(".jsonl")
    return beside if path.suffix == ".kari" and beside.is_file() else None


# --- .kari -------------------------------------------------------------------------------------------------
def read_kari(text: str, file: str) -> tuple[list[Entry], list[RuleSyntaxError]]:
    """Split a ``.kari`` text at its definition headers and parse each body."""
    headers = list(_HEADER.finditer(text))
    errors: list[RuleSyntaxError] = []
    prelude = text[: headers[0].start()] if headers else text
    stray = _CODE.search(_strip_comments(prelude))
    where = LineIndex(text)
    if stray:
        line, col = where(stray.start())
        errors.append(RuleSyntaxError("expected a definition 'affordance_id := RULE'", file=file, line=line, col=col))
    comments = _trailing_comments(prelude, skip_first=False)
    entries = []
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        body = text[header.end(): end]
        entries.append(_kari_entry(where, file, header, body, comments))
        comments = _trailing_comments(body) if "#" in body else []
    if comments and entries and entries[-1].rule is not None:   # comments after the last rule: keep them too
        last = entries[-1].rule
        entries[-1].rule = Rule(last.affordance, last.body, {**last.metadata, "trailing_comments": comments},
                                last.branch_metadata)
    return entries, errors


def _strip_comments(text: str) -> str:
    return re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), text)


def _trailing_comments(text: str, skip_first: bool = True) -> list[str]:
    """The comment lines at the end of ``text`` after its last line of code (``skip_first``: the first line is
    the rest of a definition header)."""
    lines = text.split("\n")[1 if skip_first else 0:]
    out: list[str] = []
    for line in reversed(lines):
        match = _COMMENT_LINE.match(line)
        if match:
            out.append(match.group(1).strip())
        elif line.strip():
            break
    return out[::-1]


def _kari_entry(where: LineIndex, file: str, header: re.Match[str], body: str, comments: list[str]) -> Entry:
    affordance = header.group(1)
    line, col = where(header.start(1))
    body_line, body_col = where(header.end())
    entry = Entry(affordance, file, line, col)
    if not _CODE.search(_strip_comments(body) if "#" in body else body):
        entry.error = RuleSyntaxError(f"missing rule after '{header.group().strip()}'", file=file, line=body_line,
                                      col=body_col)
        return entry
    try:
        node = parse_rule(body)
    except RuleSyntaxError as exc:
        entry.error = exc.located(file, body_line - 1, body_col - 1)
        return entry
    entry.rule = Rule(affordance, node, {"comments": comments} if comments else {}, origin=(file, line))

    positions: list[Pos] = []          # the body's source positions, parsed once for all its diagnostics

    def locate(diag: Diagnostic) -> Diagnostic:
        if not positions:
            positions.append(parse_rule_located(body)[1])
        offset = header.end() + _offset(positions[0].at_path(diag.path), diag.code)
        return diag.at(file, *where(offset))

    entry.locate = locate
    return entry


def _offset(pos: Pos, code: str) -> int:
    """Where a diagnostic points: the value of an atom for value checks, the variable of a PART for scoping."""
    if code.endswith("-value") and pos.value_loc is not None:
        return pos.value_loc
    if code in ("part-not-fresh", "reserved-variable", "unused-part") and pos.var_loc is not None:
        return pos.var_loc
    return pos.loc


# --- .jsonl ------------------------------------------------------------------------------------------------
def read_jsonl(text: str, file: str) -> tuple[list[Entry], list[RuleSyntaxError]]:
    """Parse a JSONL rule file: one record per non-blank line."""
    entries: list[Entry] = []
    errors: list[RuleSyntaxError] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = decode_json(line, strict_keys=True)
        except BadJSON as exc:
            code = "nesting-too-deep" if "nested too deeply" in exc.message else "json-error"
            errors.append(RuleSyntaxError(exc.message, file=file, line=number, col=exc.col, code=code))
            continue
        entries.append(_jsonl_entry(record, file, number))
    return entries, errors


def _jsonl_entry(record: Any, file: str, number: int) -> Entry:
    entry = Entry(str(record.get("affordance")) if isinstance(record, dict) else "?", file, number, None)
    if isinstance(record, dict):
        try:
            RULES_FORMAT.version_of(record)  # a line of a newer kari is refused by name, never misread
        except KariError as exc:
            entry.error = RuleSyntaxError(exc.message, file=file, line=number, code=exc.code or "format-version")
            entry.error.exit_code = exc.exit_code   # bad input (2), not a rule's own fault
            return entry
    try:
        entry.rule = replace(rule_from_record(record), origin=(file, number))
    except RuleSyntaxError as exc:
        entry.error = RuleSyntaxError(exc.message, file=file, line=number, code=exc.code or "json-schema")
        return entry

    def locate(diag: Diagnostic) -> Diagnostic:
        assert entry.rule is not None
        where = json_path(entry.rule.body, diag.path, "rule")
        return Diagnostic(diag.code, f"{diag.message} (at {where})", diag.severity, file, number, None,
                          diag.affordance, diag.path)

    entry.locate = locate
    return entry


def rule_from_record(record: Any) -> Rule:
    """A :class:`Rule` from one decoded JSONL record."""
    if not isinstance(record, dict):
        raise RuleSyntaxError("expected a JSON object per line", code="json-schema")
    for key in ("affordance", "rule"):
        if key not in record:
            raise RuleSyntaxError(f"missing key {key!r}", code="json-schema")
    affordance = record["affordance"]
    if not isinstance(affordance, str) or not _AFFORDANCE.match(affordance):
        raise RuleSyntaxError(f"'affordance' must be a name of letters, digits and '_', got {affordance!r}",
                              code="json-schema")
    raw = record["rule"]
    if isinstance(raw, str):
        try:
            body = parse_rule(raw)
        except RuleSyntaxError as exc:
            raise RuleSyntaxError(f"rule text, line {exc.line} col {exc.col}: {exc.message}",
                                  code=exc.code or "syntax-error") from None
    else:
        body = node_from_json(raw, "rule")
    branches = record.get("branches", [])
    rule = Rule(affordance, body)
    if not isinstance(branches, list) or not all(isinstance(b, dict) for b in branches):
        raise RuleSyntaxError("'branches' must be a list of objects", code="json-schema")
    if branches and len(branches) != len(rule.branches()):
        raise RuleSyntaxError(f"'branches' has {len(branches)} entries but the rule has {len(rule.branches())} "
                              "OR branches", code="json-schema")
    metadata = {k: v for k, v in record.items() if k not in ("affordance", "rule", "branches", FORMAT_KEY)}
    return Rule(affordance, body, metadata, tuple(branches))


def rule_to_record(rule: Rule) -> dict[str, Any]:
    """The JSONL record of ``rule`` (its format version when it is written with one, then ``affordance``,
    ``rule``, ``branches`` and the metadata keys)."""
    record: dict[str, Any] = {"affordance": rule.affordance, "rule": to_json(rule.body)}
    if rule.branch_metadata:
        record["branches"] = [dict(b) for b in rule.branch_metadata]
    record.update({k: v for k, v in rule.metadata.items() if k not in record and k != FORMAT_KEY})
    return RULES_FORMAT.stamped(record)


def json_path(body: Node, path: tuple[int, ...], root: str = "$") -> str:
    """The JSON path (``rule.args[1].body``) of the node at child-index ``path``."""
    out = root
    node = body
    for index in path:
        if isinstance(node, Part):
            out += ".body"
            node = node.body
        else:
            assert isinstance(node, (And, Or))
            out += f".args[{index}]"
            node = node.args[index]
    return out


# --- writers ------------------------------------------------------------------------------------------------
def dump_rules_kari(rules: Iterable[Rule], pretty: bool = False) -> str:
    """A ``.kari`` text: one canonical definition per line (``pretty``: multi-line bodies)."""
    blocks = []
    for rule in rules:
        comments, trailing = ([f"# {c}".rstrip() for c in rule.metadata.get(key, ())]
                              for key in ("comments", "trailing_comments"))
        body = to_pretty(rule.body) if pretty else to_text(rule.body)
        blocks.append("\n".join([*comments, f"{rule.affordance} := {body}", *trailing]))
    separator = "\n\n" if pretty or any(rule.metadata.get("comments") for rule in rules) else "\n"
    return separator.join(blocks) + ("\n" if blocks else "")


FORMS: tuple[str, ...] = tuple(RuleForm)


def format_rules(rules: Sequence[Rule], form: str = "text") -> str:
    """``rules`` as a ``.kari`` text (``text``: canonical, ``pretty``), JSONL (``json``) or English lines."""
    if form == "text":
        return dump_rules_kari(rules)
    if form == "pretty":
        return dump_rules_kari(rules, pretty=True)
    if form == "json":
        return dump_rules_jsonl(rules)
    if form == "english":
        return "".join(verbalise(rule) + "\n" for rule in rules)
    raise unknown("output form", form, RuleForm, code="bad-option")


def dump_rules_jsonl(rules: Iterable[Rule]) -> str:
    """A ``.jsonl`` text: one record per rule."""
    return "".join(json.dumps(rule_to_record(rule), ensure_ascii=False) + "\n" for rule in rules)
