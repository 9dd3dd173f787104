"""What the rule parsers and the static checker report: :class:`RuleSyntaxError` and :class:`Diagnostic`.

Both render as one line, ``FILE:LINE:COL: code: message`` (unknown parts left out). The codes are listed in
``grammar/README.md``; each static check has its own.

>>> print(Diagnostic("free-variable", "role 'y' is not declared", file="r.kari", line=3, col=7))
r.kari:3:7: free-variable: role 'y' is not declared
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kari.errors import ExitCode, KariError

ERROR = "error"
WARNING = "warning"


class RuleSyntaxError(KariError):
    """A rule text or rule file that does not parse (its location points at the offending token): bad input,
    exit 2, wherever the rules are read (``kari rules check`` reports it as a finding, exit 1)."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None, col: int | None = None,
                 code: str = "syntax-error") -> None:
        super().__init__(message, file=file, line=line, col=col, code=code, exit_code=ExitCode.BAD_INPUT)

    def located(self, file: str | None, line_offset: int = 0, col_offset: int = 0) -> RuleSyntaxError:
        """The same error relative to an enclosing file (``col_offset`` applies to the first line only)."""
        line = None if self.line is None else self.line + line_offset
        col = None if self.col is None else self.col + (col_offset if self.line == 1 else 0)
        return RuleSyntaxError(self.message, file=file, line=line, col=col, code=self.code or "syntax-error")

    def to_diagnostic(self, affordance: str | None = None) -> Diagnostic:
        return Diagnostic(self.code or "syntax-error", self.message, ERROR, file=self.file, line=self.line,
                          col=self.col, affordance=affordance)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a rule. ``path`` is the child-index path of the offending node from the rule body."""

    code: str
    message: str
    severity: str = ERROR
    file: str | None = None
    line: int | None = None
    col: int | None = None
    affordance: str | None = None
    path: tuple[int, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def at(self, file: str | None, line: int | None, col: int | None) -> Diagnostic:
        """A copy with a location."""
        return replace(self, file=file, line=line, col=col)

    def __str__(self) -> str:
        location = ":".join(str(p) for p in (self.file, self.line, self.col) if p is not None)
        code = self.code if self.severity == ERROR else f"{self.code} ({self.severity})"
        where = f" [{self.affordance}]" if self.affordance and not location else ""
        return ": ".join(p for p in (location, code) if p) + f": {self.message}{where}"
