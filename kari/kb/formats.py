"""Input formats of ``kari kb load``: detection from the first line, and the SQL that reads a file.

Every format is read by DuckDB (``read_csv`` / ``read_json``, all columns as text, no quote handling by the
CSV reader) and decoded in SQL into the same *staged* columns:
``line, id, node1, relation, node2, node1_label, node2_label, relation_label, relation_dimension, source,
sentence, weight, qstrength, quantifier, score, tuple_provenance, problem``, where ``problem`` names what is
wrong with the line (NULL when it is fine). Node, relation and text values are decoded; KGTK label fields are
validated and kept as written (``|`` lists of KGTK values). Formats:

- ``kgtk``: any KGTK edge file with node1 / label-or-relation / node2 columns (KGTK value rules: backslash
  escapes, ``|`` lists, ``"text"`` and ``'text'@lang`` strings; a list in node2 gives one edge per value);
- ``cskg5``: the early 5-column CSKG file ``node1 label node2 datasource weight`` (CSV-style ``"..."`` quoting);
- ``aristo``: the Aristo Tuple KB TSV (13 columns, with or without its header line);
- ``triples``: ``subject relation object [weight [source]]`` as TSV, CSV (by extension) or JSONL objects.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from kari.core.formats import KBFormat
from kari.errors import KariError, choice
from kari.kb import textfile

FORMATS: tuple[str, ...] = tuple(KBFormat)

CSKG5_HEADER = ("node1", "label", "node2", "datasource", "weight")
ARISTO_HEADER = ("qstrength", "quantifier", "arg1", "pred", "arg2", "sentence", "score", "inferred?",
                 "multiword?", "canonical?", "domain", "range", "provenance")
TRIPLE_FIELDS = ("subject", "relation", "object", "weight", "source")
TRIPLE_ALIASES = {
    "subject": "subject", "head": "subject", "node1": "subject", "arg1": "subject",
    "relation": "relation", "predicate": "relation", "rel": "relation", "label": "relation", "pred": "relation",
    "object": "object", "tail": "object", "node2": "object", "arg2": "object",
    "weight": "weight", "score": "weight", "source": "source", "datasource": "source",
}
# KGTK column -> staged field; the first name present in the header wins.
KGTK_COLUMNS = {
    "id": ("id",), "node1": ("node1",), "relation": ("relation", "label"), "node2": ("node2",),
    "node1_label": ("node1;label",), "node2_label": ("node2;label",),
    "relation_label": ("relation;label", "label;label"), "relation_dimension": ("relation;dimension",),
    "source": ("source",), "sentence": ("sentence",), "weight": ("weight",), "qstrength": ("qstrength",),
    "quantifier": ("quantifier",), "score": ("score",), "tuple_provenance": ("tuple_provenance",),
}
STAGED = ("id", "node1", "relation", "node2", "node1_label", "node2_label", "relation_label",
          "relation_dimension", "source", "sentence", "weight", "qstrength", "quantifier", "score",
          "tuple_provenance")
NUMERIC = ("weight", "qstrength", "score")
# Every column name of a header kari knows: a first line with two of them is taken for a header, never data.
COLUMN_NAMES = frozenset({*TRIPLE_ALIASES, *CSKG5_HEADER, *ARISTO_HEADER, "id"}
                         | {name for names in KGTK_COLUMNS.values() for name in names})
LISTS = ("node1_label", "node2_label", "relation_label")


@dataclass(frozen=True)
class Source:
    """A detected input file: its format, column names (header or positional) and how to read it."""

    path: Path
    fmt: str
    columns: tuple[str, ...]
    header: bool
    delim: str = "\t"
    json_lines: bool = False

    @property
    def where(self) -> str:
        return str(self.path)


def _strip_gz(name: str) -> str:
    return name[:-3] if name.lower().endswith(".gz") else name


def detect(path: Path, fmt: str = "auto") -> Source:
    """Work out the format and columns of ``path`` (``fmt`` forces a format; ``auto`` looks at the header)."""
    choice(fmt, KBFormat, "format", code="kb-format")
    textfile.check_readable(path)
    suffix = Path(_strip_gz(path.name)).suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json") and fmt in ("auto", "triples"):
        if textfile.first_line(path) is None:
            raise KariError("empty file", file=str(path), line=1, code="kb-empty")
        return Source(path, "triples", TRIPLE_FIELDS, header=False, json_lines=True)
    first = textfile.first_line(path)
    if first is None:
        raise KariError("empty file: no header line", file=str(path), line=1, code="kb-empty")
    if not first.strip():
        raise KariError("empty header line", file=str(path), line=1, code="kb-header")
    delim = "," if suffix == ".csv" else "\t"
    fields = tuple(first.split(delim)) if delim == "\t" else tuple(next(csv.reader([first])))
    lowered = tuple(f.strip().lower() for f in fields)
    auto = fmt == "auto"
    if auto:
        fmt = _guess(fields, lowered)
    return _source(path, fmt, fields, lowered, delim, auto)


def _guess(fields: tuple[str, ...], lowered: tuple[str, ...]) -> str:
    if fields == CSKG5_HEADER:
        return "cskg5"
    if "node1" in fields and "node2" in fields and ("label" in fields or "relation" in fields):
        return "kgtk"
    if lowered == ARISTO_HEADER or _looks_like_aristo_row(fields):
        return "aristo"
    return "triples"


def _looks_like_aristo_row(fields: tuple[str, ...]) -> bool:
    if len(fields) != len(ARISTO_HEADER) or fields[1] not in ("most", "some"):
        return False
    try:
        float(fields[0]), float(fields[6])
    except ValueError:
        return False
    return True


def _source(path: Path, fmt: str, fields: tuple[str, ...], lowered: tuple[str, ...], delim: str,
            auto: bool = False) -> Source:
    if fmt in ("cskg5", "kgtk", "aristo") and delim != "\t":
        raise KariError(f"a {fmt} file is TAB-separated, and this .csv file's header is read with commas "
                        f"({', '.join(fields[:4])}{', ...' if len(fields) > 4 else ''}): give it TABs in a .tsv "
                        "file, or load it as plain triples (--format triples reads node1, label, node2 as subject, "
                        "relation, object)", file=str(path), line=1,
                        code="kb-header")
    if fmt in ("cskg5", "kgtk") and len(set(fields)) != len(fields):
        dup = next(f for f in fields if fields.count(f) > 1)
        raise KariError(f"duplicate column {dup!r} in the header", file=str(path), line=1, code="kb-header")
    if fmt == "cskg5":
        if fields != CSKG5_HEADER:
            raise KariError(f"expected the CSKG header {' '.join(CSKG5_HEADER)}", file=str(path), line=1,
                            code="kb-header")
        return Source(path, fmt, fields, header=True)
    if fmt == "kgtk":
        missing = [k for k in ("node1", "relation", "node2") if not any(c in fields for c in KGTK_COLUMNS[k])]
        if missing:
            raise KariError(f"KGTK header lacks {', '.join(missing)} (need node1, label or relation, node2)",
                      file=str(path), line=1, code="kb-header")
        return Source(path, fmt, fields, header=True)
    if fmt == "aristo":
        if len(fields) != len(ARISTO_HEADER):
            raise KariError(f"expected {len(ARISTO_HEADER)} Aristo columns, found {len(fields)}", file=str(path),
                      line=1, code="kb-columns")
        return Source(path, fmt, ARISTO_HEADER, header=lowered == ARISTO_HEADER)
    if all(f in TRIPLE_ALIASES for f in lowered):
        names = tuple(TRIPLE_ALIASES[f] for f in lowered)
        if len(set(names)) != len(names) or not {"subject", "relation", "object"} <= set(names):
            raise KariError("a triples header needs subject, relation and object columns once each",
                      file=str(path), line=1, code="kb-header")
        return Source(path, fmt, names, header=True, delim=delim)
    named = [f for f, low in zip(fields, lowered) if low in COLUMN_NAMES]
    if len(named) >= 2 and auto:     # one could be data (``head PartOf body``); two make a header
        raise KariError(f"line 1 looks like a header ({', '.join(named)}) that kari does not know; give every "
                        "column a known name (KGTK: node1, label or relation, node2; triples: subject, relation, "
                        "object[, weight, source]) or --format triples to load line 1 as data", file=str(path),
                        line=1, code="kb-header")
    if not 3 <= len(fields) <= 5:
        raise KariError(f"expected 3 to 5 columns (subject, relation, object[, weight, source]), found {len(fields)}",
                  file=str(path), line=1, code="kb-columns")
    return Source(path, fmt, TRIPLE_FIELDS[: len(fields)], header=False, delim=delim)


def _lit(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_GLOB_ESCAPES = {"[": "[[]", "*": "[*]", "?": "[?]"}


def duckdb_file(path: Path) -> str:
    """``path`` as DuckDB's file readers must be given it to read exactly that one file: absolute (DuckDB would
    expand a leading ``~``) and with the glob characters ``[``, ``*`` and ``?`` escaped as one-character classes
    (DuckDB expands globs in every file name: ``a[1].tsv`` would read ``a1.tsv``)."""
    return "".join(_GLOB_ESCAPES.get(c, c) for c in os.path.abspath(path))


def scan_sql(src: Source) -> str:
    """The DuckDB table function reading the raw columns of ``src`` (``c0, c1, ...``; for JSON Lines, the
    triple fields as JSON values), one row per data line."""
    gz = ", compression='gzip'" if textfile.is_gzip(src.path) else ""
    if src.json_lines:   # JSON-typed columns: _triples tells strings from objects and arrays
        cols = "{" + ", ".join(f"{_lit(c)}: 'JSON'" for c in src.columns) + "}"
        return (f"read_json({_lit(duckdb_file(src.path))}, format='newline_delimited', columns={cols}, "
                f"maximum_object_size=16777216{gz})")
    cols = "{" + ", ".join(f"{_lit(r)}: 'VARCHAR'" for r in _raw_names(src)) + "}"
    quote = "'\"'" if src.delim == "," else "''"
    return (f"read_csv({_lit(duckdb_file(src.path))}, delim={_lit(src.delim)}, header={str(src.header).lower()}, "
            f"quote={quote}, escape={quote}, auto_detect=false, columns={cols}, strict_mode=true, "
            f"null_padding=false, comment='', max_line_size=16777216{gz})")


def _raw_names(src: Source) -> list[str]:
    return list(src.columns) if src.json_lines else [f"c{i}" for i in range(len(src.columns))]


def _named(src: Source, row_number: str, source: str) -> str:
    """SELECT of the staged column names and ``line`` from ``source``, whose 1-based data row number is
    ``row_number``."""
    names = ", ".join(f"{_ident(r)} AS {_ident(c)}" for r, c in zip(_raw_names(src), src.columns))
    offset = 1 if src.header else 0
    return f"(SELECT {names}, {row_number} + {offset} AS line FROM {source})"


def reader_sql(src: Source) -> str:
    """A FROM-clause item reading the raw columns of ``src`` plus ``line`` (1-based line number), straight from
    the file (``WITH ORDINALITY`` numbers the rows on one thread)."""
    return _named(src, "ordinality", f"{scan_sql(src)} WITH ORDINALITY")


def table_reader_sql(src: Source, table: str) -> str:
    """A FROM-clause item reading the raw columns of ``src`` plus ``line`` from ``table``, a copy of
    :func:`scan_sql`'s rows made with ``preserve_insertion_order`` on (its ``rowid`` is then the row's place in
    the file, and the copy was made on all threads)."""
    return _named(src, "rowid + 1", table)


def staged_sql(src: Source, raw: str | None = None) -> str:
    """SELECT producing the staged columns (see the module docstring) for every line of ``src``.

    ``raw`` is the FROM item of the numbered raw lines (:func:`table_reader_sql`); by default they are read
    from the file (:func:`reader_sql`) and materialized first, so that the costly rest - decoding, checking and
    the insert that consumes this query - runs on all threads."""
    decode = {"kgtk": _kgtk, "cskg5": _cskg5, "aristo": _aristo, "triples": _triples}[src.fmt]
    exprs, syntax, source, guard = decode(src, "raw_lines" if raw is None else raw)
    # the syntax checks run only on rows the cheap guard flags (most rows have no quote, backslash or bar)
    problems = [f"CASE WHEN {guard} THEN coalesce({', '.join(syntax)}) END"] if syntax else []
    for name in NUMERIC:
        if name in exprs:
            problems.append(f"CASE WHEN {exprs[name]} IS NOT NULL AND NOT coalesce(isfinite(TRY_CAST({exprs[name]} "
                            f"AS DOUBLE)), false) THEN '{name} is not a finite number: ' || left({exprs[name]}, 40) END")
            exprs[name] = f"TRY_CAST({exprs[name]} AS DOUBLE)"
    for name in ("node1", "relation", "node2"):
        problems.append(f"CASE WHEN {exprs[name]} IS NULL OR {exprs[name]} = '' THEN 'empty {name}' END")
    select = ",\n  ".join(f"{exprs.get(name, 'NULL')} AS {name}" for name in STAGED)
    lines = f"WITH raw_lines AS MATERIALIZED {reader_sql(src)}\n" if raw is None else ""  # a table is scanned as is
    return (f"{lines}SELECT line,\n  {select},\n  coalesce({', '.join(problems)}) AS problem\nFROM {source} AS raw")


Decoded = tuple[dict[str, str], list[str], str, str]
"""Per format: staged column -> SQL expression, syntax problem expressions (NULL when fine), the FROM item, and
a cheap guard: a SQL condition true for every row on which a syntax problem is possible."""


def _any_char(refs: list[str], chars: str) -> str:
    """SQL: one of ``chars`` occurs in one of the columns ``refs``: one ``contains`` per character on the columns
    joined (``concat`` skips NULLs; a needle of one character cannot straddle two columns). On 500,000 CSKG
    rows of ten columns this is half the CPU of one ``contains`` per column and character."""
    joined = refs[0] if len(refs) == 1 else f"concat({', '.join(refs)})"
    return "(" + " OR ".join(f"coalesce(contains({joined}, {_lit(c)}), false)" for c in chars) + ")"

_QUOTED = "(starts_with({0}, '\"') OR starts_with({0}, ''''))"
_UNESCAPED_BAR = r"contains(replace(replace({0}, '\\', ''), '\|', ''), '|')"


def _kgtk(src: Source, reader: str) -> Decoded:
    col = {k: next((c for c in names if c in src.columns), None) for k, names in KGTK_COLUMNS.items()}
    exprs: dict[str, str] = {}
    problems: list[str] = []
    refs = {key: {"node2": "node2_value", "node2_label": "node2_label_value"}.get(key, _ident(name))
            for key, name in col.items() if name is not None}
    # kgtk_text is the identity on a row without backslash or quote: decode only the rows that have one (the
    # test computed once per line, as the column kari_escaped, not once per column that reads it; on the raw
    # node2 and node2;label, before a list is split: a member holds only characters its list holds)
    escapes = _any_char([_ident(name) for name in col.values() if name is not None], chr(92) + chr(34) + chr(39))
    escaped = "kari_escaped"
    for key, ref in refs.items():
        if key in LISTS:
            exprs[key] = ref
            problems.append(f"'column {col[key]}: ' || kgtk_list_problem({ref})")
        elif key in NUMERIC:
            exprs[key] = ref
        else:
            exprs[key] = f"CASE WHEN {escaped} THEN kgtk_text({ref}) ELSE {ref} END"
            problems.append(f"'column {col[key]}: ' || kgtk_problem({ref})")
    if "id" in exprs:                      # members of a node2 list get ids ID-1, ID-2, ...
        exprs["id"] = f"CASE WHEN i > 0 THEN {exprs['id']} || '-' || i ELSE {exprs['id']} END"
    for key in ("node1", "relation"):
        ref = _ident(_required(col, key))
        problems.append(f"CASE WHEN NOT {_QUOTED.format(ref)} AND {_UNESCAPED_BAR.format(ref)} "
                        f"THEN 'column {col[key]}: a list (|) is not allowed here' END")
    bars = f"contains({_ident(_required(col, 'node1'))}, '|') OR contains({_ident(_required(col, 'relation'))}, '|')"
    exploded = _explode_node2(col, f"(SELECT *, {escapes} AS {escaped} FROM {reader})")
    return exprs, problems, exploded, f"({escaped} OR {bars})"


def _required(col: dict[str, str | None], key: str) -> str:
    """The header name of a column every KGTK file has (:func:`detect` checked the header)."""
    name = col[key]
    if name is None:
        raise KariError(f"the KGTK file has no {key} column", code="kb-header")
    return name


def _explode_node2(col: dict[str, str | None], reader: str) -> str:
    """FROM item with one row per value of a node2 list: ``i`` (0 for a single value, else 1..n),
    ``node2_value`` and ``node2_label_value`` (the i-th label when the label list is as long). Rows without a
    list (nearly all) take the first branch, which builds no list."""
    node2 = _ident(_required(col, "node2"))
    label = _ident(col["node2_label"]) if col["node2_label"] else "NULL"
    is_list = f"coalesce(contains({node2}, '|'), false)"
    single = f"SELECT *, 0 AS i, {node2} AS node2_value, {label} AS node2_label_value FROM {reader} WHERE NOT {is_list}"
    listed = (f"SELECT *, kgtk_split({node2}) AS node2_list, unnest(range(1, len(kgtk_split({node2})) + 1)) AS i "
              f"FROM {reader} WHERE {is_list}")
    multi = (f"SELECT * EXCLUDE (node2_list), node2_list[i] AS node2_value, CASE WHEN len(kgtk_split({label})) = "
             f"len(node2_list) THEN kgtk_split({label})[i] END AS node2_label_value FROM ({listed})")
    return f"({single} UNION ALL BY NAME {multi})"


def _cskg5(src: Source, reader: str) -> Decoded:
    names = {"node1": "node1", "relation": "label", "node2": "node2", "source": "datasource", "weight": "weight"}
    exprs = {k: f"csv_unquote({_ident(v)})" for k, v in names.items()}
    problems = [f"'column {v}: ' || csv_quote_problem({_ident(v)})" for v in names.values()]
    return exprs, problems, reader, _any_char([_ident(v) for v in names.values()], '"')


def _aristo(src: Source, reader: str) -> Decoded:
    exprs = {"node1": "trim(arg1)", "relation": "trim(pred)", "node2": "trim(arg2)", "source": "'aristo'",
             "sentence": "sentence", "weight": "score", "qstrength": "qstrength", "quantifier": "quantifier",
             "score": "score", "tuple_provenance": "trim(provenance)"}
    problems = [("CASE WHEN quantifier NOT IN ('most', 'some') THEN 'Quantifier must be most or some, not ' "
                 "|| coalesce(quantifier, 'empty') END")]
    return exprs, problems, reader, "true"


def _triples(src: Source, reader: str) -> Decoded:
    names = {"node1": "subject", "relation": "relation", "node2": "object", "weight": "weight", "source": "source"}
    if not src.json_lines:
        return {k: f"trim({_ident(v)})" for k, v in names.items() if v in src.columns}, [], reader, "false"
    present = {k: _ident(v) for k, v in names.items() if v in src.columns}
    exprs = {k: f"trim({ref} ->> '$')" for k, ref in present.items()}
    problems = [f"CASE WHEN json_type({ref}) IN ('OBJECT', 'ARRAY') THEN '{names[k]} must be a string or a number, "
                f"not a JSON ' || lower(json_type({ref})) END" for k, ref in present.items()]
    # a \u0000 escape decodes to a NUL character: refused like a NUL byte in a text file
    problems += [f"CASE WHEN contains({ref} ->> '$', chr(0)) THEN '{names[k]} holds a NUL character (\\u0000)' END"
                 for k, ref in present.items()]
    return exprs, problems, reader, "true"
