"""Running ``kari`` command lines in-process in tests, and the one-line error they must end with."""

from __future__ import annotations

import pytest

from kari.cli import run


def kari(capfd: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """Run one ``kari`` command line in-process; (exit code, stdout, stderr)."""
    capfd.readouterr()
    code = run([str(a) for a in argv])
    out, err = capfd.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    """The one ``kari: ...`` line a failed command prints on stderr (no traceback, nothing else)."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kari: ") and "Traceback" not in err, err
    return lines[0]
