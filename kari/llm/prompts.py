"""Prompt files: ``kari/llm/prompts/<name>.md``, versioned by a front-matter header.

A prompt file starts with ``key: value`` lines, optionally between two ``---`` lines, and must give a positive
integer ``version``; the header ends at the first blank line (or the closing ``---``). The rest is the prompt
text, with ``$name`` / ``${name}`` placeholders filled by :meth:`Prompt.render` (``$$`` is a literal ``$``;
JSON braces need no escaping)::

    version: 3
    role: questioner

    You are playing a guessing game about $object ...
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from kari.errors import KariError

_HEADER_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*?)\s*$")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Prompt:
    """A loaded prompt: ``sha256`` is of ``text``, so logs can tell exactly which wording was used."""

    name: str
    version: int
    text: str
    sha256: str
    meta: dict[str, str] = field(default_factory=dict, compare=False)
    path: str = ""

    @property
    def placeholders(self) -> frozenset[str]:
        """The ``$name`` fields the text expects."""
        found = set()
        for m in string.Template.pattern.finditer(self.text):
            name = m.group("named") or m.group("braced")
            if name:
                found.add(name)
        return frozenset(found)

    def render(self, **values: Any) -> str:
        """The text with every placeholder filled; a missing or unused value is a :class:`KariError`."""
        missing = sorted(self.placeholders - values.keys())
        extra = sorted(values.keys() - self.placeholders)
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unused {', '.join(extra)}"] if extra else []
            )
            raise KariError(
                f"prompt {self.name!r} v{self.version}: {'; '.join(parts)}", file=self.path or None, code="llm-prompt"
            )
        try:
            return string.Template(self.text).substitute({k: str(v) for k, v in values.items()})
        except ValueError as exc:
            raise KariError(
                f"prompt {self.name!r}: bad placeholder ({exc})", file=self.path or None, code="llm-prompt"
            ) from None


def prompts_dir() -> Path:
    """The folder of shipped prompt files."""
    return Path(str(resources.files("kari.llm").joinpath("prompts")))


def list_prompts(root: str | Path | None = None) -> list[str]:
    """Sorted names of the prompt files in ``root`` (default: shipped ones); names starting with ``_`` are internal."""
    folder = Path(root) if root is not None else prompts_dir()
    return sorted(p.stem for p in folder.glob("*.md") if not p.stem.startswith("_"))


def load_prompt(name: str, root: str | Path | None = None) -> Prompt:
    """Load ``<root>/<name>.md`` (default root: the shipped prompts)."""
    if not _NAME.match(name):
        raise KariError(f"bad prompt name {name!r}", code="llm-prompt")
    path = (Path(root) if root is not None else prompts_dir()) / f"{name}.md"
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KariError(f"no prompt named {name!r}", file=str(path), code="llm-prompt") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KariError(f"cannot read prompt: {exc}", file=str(path), code="llm-prompt") from None
    meta, text = parse_prompt_file(raw, str(path))
    version_text = meta.get("version")
    if version_text is None:
        raise KariError("prompt file has no 'version: N' header line", file=str(path), line=1, code="llm-prompt")
    if not version_text.isdigit() or int(version_text) < 1:
        raise KariError(
            f"version must be a positive integer, got {version_text!r}",
            file=str(path),
            line=_line_of(raw, "version"),
            code="llm-prompt",
        )
    if not text.strip():
        raise KariError("prompt file has a header but no text", file=str(path), code="llm-prompt")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Prompt(name, int(version_text), text, digest, meta, str(path))


def parse_prompt_file(raw: str, file: str = "<prompt>") -> tuple[dict[str, str], str]:
    """Split a prompt file into its header fields and its text (leading/trailing blank lines removed)."""
    lines = raw.splitlines()
    fenced = bool(lines) and lines[0].strip() == "---"
    i = 1 if fenced else 0
    meta: dict[str, str] = {}
    while i < len(lines):
        line = lines[i]
        if fenced and line.strip() == "---":
            i += 1
            break
        if not line.strip():
            if fenced:
                i += 1
                continue
            break
        m = _HEADER_LINE.match(line)
        if not m:
            if not fenced and not meta:
                return {}, raw.strip("\n") + "\n"  # no header at all: the caller reports the missing version
            why = "a 'key: value' header line" if fenced else "a blank line after the header"
            raise KariError(
                f"expected {why}, got {line.strip()[:60]!r}", file=file, line=i + 1, col=1, code="llm-prompt"
            )
        if m.group(1) in meta:
            raise KariError(f"duplicate header field {m.group(1)!r}", file=file, line=i + 1, col=1, code="llm-prompt")
        meta[m.group(1)] = m.group(2)
        i += 1
    else:
        if fenced:
            raise KariError(
                "front matter opened with '---' is never closed", file=file, line=1, col=1, code="llm-prompt"
            )
    text = "\n".join(lines[i:]).strip("\n")
    return meta, text + "\n" if text else ""


def _line_of(raw: str, key: str) -> int | None:
    for n, line in enumerate(raw.splitlines(), 1):
        if line.lstrip().startswith(f"{key}:") or line.lstrip().startswith(f"{key} :"):
            return n
    return None
