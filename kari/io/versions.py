"""Format versions of the files kari writes and reads back: rule files' JSONL lines (``kari-rules``), run
records (``config.json``, ``summary.json``, ``plan.json`` of a run directory: ``kari-run``) and reports
(``report.json``: ``kari-report``).

A JSON object names its version with ``"format": "KIND/N"`` (its first key). Version 1 of the rules and of the
run records is the format every kari so far has written, and it is written as before, with no tag (so that a
run's files stay byte-identical); a later version is written with its tag (:attr:`FormatVersion.tagged_from`).
``report.json`` has carried ``kari-report/1`` from the start. A reader takes an object without a tag as version
1 and refuses one of a newer kari (a version above the one this kari writes) or of another kind by name, with a
one-line ``format-version`` error, never misreading it. docs/formats.md lists the versions.

>>> RUN_FORMAT.version_of({"format": "kari-run/1"}, "config.json")
1
>>> RUN_FORMAT.version_of({}, "config.json")
1
>>> RUN_FORMAT.version_of({"format": "kari-run/9"}, "config.json")
Traceback (most recent call last):
...
kari.errors.KariError: config.json: format-version: kari-run/9 is newer than this kari reads (kari-run/1): upgrade kari
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kari.errors import KariError

FORMAT_KEY = "format"
"""The key of a JSON object's format version."""
_TAG = re.compile(r"([a-z][a-z0-9-]*)/([1-9][0-9]{0,8})")


@dataclass(frozen=True)
class FormatVersion:
    """One format: its kind (``kari-run``), the version this kari writes (and the newest it reads) and the first
    version written with its tag (the formats older than their tag are written without one)."""

    kind: str
    current: int = 1
    tagged_from: int = 1

    @property
    def tag(self) -> str:
        """The name of the version this kari writes: ``kari-run/1``."""
        return f"{self.kind}/{self.current}"

    @property
    def written_tag(self) -> str | None:
        """What a written object carries under ``"format"``: :attr:`tag`, or None for a version older than its tag.

        >>> RUN_FORMAT.written_tag is None, REPORT_FORMAT.written_tag, FormatVersion("kari-x", 2, 2).written_tag
        (True, 'kari-report/1', 'kari-x/2')
        """
        return self.tag if self.current >= self.tagged_from else None

    def stamped(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """``data`` as this kari writes it: its :attr:`written_tag` first (a format it carried is replaced; with
        no tag to write, the object is ``data`` without one).

        >>> FormatVersion("kari-x", 2, 2).stamped({"a": 1, "format": "kari-x/1"}), RUN_FORMAT.stamped({"a": 1})
        ({'format': 'kari-x/2', 'a': 1}, {'a': 1})
        """
        rest = {k: v for k, v in data.items() if k != FORMAT_KEY}
        return rest if self.written_tag is None else {FORMAT_KEY: self.written_tag, **rest}

    def version_of(self, data: Mapping[str, Any], file: str | None = None, line: int | None = None) -> int:
        """The version ``data`` is written in (1 when it names none); a ``format-version`` error naming ``file``
        and ``line`` for another kind of file or a version newer than :attr:`current`."""
        tag = data.get(FORMAT_KEY)
        if tag is None:
            return 1
        match = _TAG.fullmatch(tag) if isinstance(tag, str) else None
        if match is None or match.group(1) != self.kind:
            raise KariError(f"{tag!r} is not a {self.kind} format (expected {self.kind}/N)", file=file, line=line,
                            code="format-version")
        version = int(match.group(2))
        if version > self.current:
            raise KariError(f"{tag} is newer than this kari reads ({self.tag}): upgrade kari", file=file,
                            line=line, code="format-version")
        return version


RULES_FORMAT = FormatVersion("kari-rules", tagged_from=2)
"""A line of a rule file in JSONL (``rules.jsonl``, ``RULES.cv/fold<k>.jsonl``)."""
RUN_FORMAT = FormatVersion("kari-run", tagged_from=2)
"""A run directory's ``config.json``, ``summary.json`` and ``plan.json`` (``kari play``, ``kari creativity solve``;
``judge_config.json`` and ``judge_summary.json`` of ``kari creativity judge``)."""
REPORT_FORMAT = FormatVersion("kari-report")
"""``kari report``'s ``report.json``."""

__all__ = ["FORMAT_KEY", "REPORT_FORMAT", "RULES_FORMAT", "RUN_FORMAT", "FormatVersion"]
