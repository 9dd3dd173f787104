"""One error type for every bad input kari reports to a user.

A :class:`KariError` renders as one line, ``FILE:LINE:COL: code: message`` (parts that are unknown are left
out), and carries the process exit code the CLI uses.

>>> str(KariError("bad column count", file="a.tsv", line=3, code="kb-columns"))
'a.tsv:3: kb-columns: bad column count'
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum


class ExitCode(IntEnum):
    """The exit codes of ``kari`` (docs/guarantees.md lists which failure gets which)."""

    OK = 0
    FINDINGS = 1       # rules check / bench validate found problems; kb show found no edge
    BAD_INPUT = 2      # bad input or option, an unreadable or locked file, out of memory
    INTERNAL = 70      # a bug in kari (EX_SOFTWARE)
    BUDGET = 75        # an LLM budget (kari induce --budget-calls / --budget-tokens) spent: rerun to go on
    INTERRUPTED = 130  # Ctrl-C
    BROKEN_PIPE = 141  # stdout closed by the reader (kari ... | head)


INTERNAL_ERROR_EXIT = ExitCode.INTERNAL


class KariError(Exception):
    """A user-facing error with an optional location and a stable error code."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
        code: str | None = None,
        exit_code: int = ExitCode.BAD_INPUT,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.code = code
        self.exit_code = exit_code

    @property
    def location(self) -> str:
        """``FILE:LINE:COL`` with the known parts only ('' when nothing is known)."""
        parts = [str(p) for p in (self.file, self.line, self.col) if p is not None]
        return ":".join(parts)

    def __str__(self) -> str:
        head = [p for p in (self.location, self.code) if p]
        return ": ".join([*head, self.message])


def one_of(names: Iterable[str], conjunction: str = "or") -> str:
    """A fixed set of names as messages and help texts write it: ``"kb or llm"``, ``"a, b or c"``."""
    words = [str(name) for name in names]
    return ", ".join(words[:-1]) + f" {conjunction} {words[-1]}" if len(words) > 1 else "".join(words)


def unknown(what: str, value: object, names: Iterable[str], *, code: str, file: str | None = None,
            line: int | None = None, col: int | None = None) -> KariError:
    """The one error for a name outside a fixed set (a :class:`~enum.StrEnum` of kari's, mostly), as every
    command writes it.

    >>> str(unknown("mode", "psychic", ["static", "cot"], code="bad-option"))
    "bad-option: unknown mode 'psychic' (expected one of static or cot)"
    """
    return KariError(f"unknown {what} {value!r} (expected one of {one_of(names)})", file=file, line=line, col=col,
                     code=code)


def choice(value: str, names: Iterable[str], what: str, *, code: str) -> str:
    """``value`` when it is one of ``names``, else :func:`unknown`'s error."""
    allowed = [str(name) for name in names]
    if value not in allowed:
        raise unknown(what, value, allowed, code=code)
    return value
