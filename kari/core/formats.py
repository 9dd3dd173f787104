"""The fixed sets of formats a command reads or prints: KB input formats (``kari kb load --format``), the
forms ``kari kb sql`` and ``kari report`` print, the forms a rule file is printed in (``kari rules fmt --to``).

Cheap to import: the CLI's help texts are written from these (``str``-valued, so a name from the command line
compares equal to its member)."""

from __future__ import annotations

from enum import StrEnum


class KBFormat(StrEnum):
    """A KB input file's format; ``auto`` tells them apart by their header (docs/formats.md)."""

    AUTO = "auto"
    KGTK = "kgtk"
    CSKG5 = "cskg5"
    ARISTO = "aristo"
    TRIPLES = "triples"


class SqlFormat(StrEnum):
    """How ``kari kb sql`` prints its rows."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"


class ReportFormat(StrEnum):
    """What ``kari report`` prints: the Markdown report, or the leaderboard as CSV or JSON."""

    MD = "md"
    CSV = "csv"
    JSON = "json"


class RuleForm(StrEnum):
    """How a rule file is printed (``kari rules fmt --to``)."""

    TEXT = "text"
    PRETTY = "pretty"
    JSON = "json"
    ENGLISH = "english"


__all__ = ["KBFormat", "ReportFormat", "RuleForm", "SqlFormat"]
