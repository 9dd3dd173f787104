"""Writing KB facts as a KGTK edge file (standard library only; shared by the bundled and the outside KB builds)."""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from sources import Fact

KGTK_HEADER = ("id", "node1", "relation", "node2", "node1;label", "node2;label", "relation;label",
               "relation;dimension", "source", "sentence")
RELATIONS = {"MadeOf": ("made of", "part-whole"), "HasProperty": ("has property", "quality"),
             "HasA": ("has a", "part-whole"), "UsedFor": ("used for", "utility"),
             "CapableOf": ("capable of", "utility"), "ReceivesAction": ("receives action", "utility"),
             "NotCapableOf": ("not capable of", "utility"), "NotUsedFor": ("not used for", "utility")}


def kb_rows(facts: Iterable[Fact]) -> list[tuple[str, ...]]:
    """One KGTK edge per (node1, relation, node2), sorted; sources joined with '|', the first source's sentence
    and words kept (``node2;label``: the source's words, else node2 with spaces)."""
    merged: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        merged[(f.node1, f.relation, f.node2)].append(f)
    rows = []
    for (n1, rel, n2), group in sorted(merged.items()):
        group.sort(key=lambda f: (f.source, f.sentence))
        label, dimension = RELATIONS[rel]
        sentence = " ".join(group[0].sentence.replace("|", "/").split())
        words = group[0].label or n2.replace("_", " ")
        rows.append((f"{n1}-{rel}-{n2}", n1, rel, n2, n1.replace("_", " "), words, label, dimension,
                     "|".join(sorted({f.source for f in group})), sentence))
    return rows


def tsv(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    lines = ["\t".join(header)] + ["\t".join(r) for r in rows]
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it (never a half-written file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
