"""An exclusive lock on an output folder while a command writes it, so two runs never interleave records.

The lock is an ``flock`` on ``FOLDER/.kari.lock``: the operating system drops it when the process ends, so a
killed run never leaves a stale lock. A second command on the same folder fails at once (code ``locked``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kari.errors import KariError
from kari.io.atomic import prepare_output_dir
from kari.io.outputs import Input, Output, OutputKind, check_outputs

LOCK_FILE = ".kari.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locking
    fcntl = None  # type: ignore[assignment]  # the module's stand-in where there is none


@contextmanager
def folder_lock(folder: str | os.PathLike[str], what: str = "run directory") -> Iterator[None]:
    """Hold the lock of ``folder`` (which must exist) for the duration of the block."""
    path = Path(folder) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise KariError(f"cannot create the lock file: {exc.strerror}", file=str(path), code="locked") from None
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise KariError(f"another kari command is writing this {what}; wait for it to finish",
                                file=str(folder), code="locked") from None
            except OSError as exc:  # e.g. ENOLCK: a network file system mounted without locks
                raise KariError(f"cannot lock this {what}: {exc.strerror or exc} (the file system must support "
                                "flock)", file=str(folder), code="locked") from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextmanager
def output_folder(folder: str | os.PathLike[str], what: str = "run directory", *, writes: Iterable[str] = (),
                  inputs: Iterable[Input] = (), option: str = "--out") -> Iterator[Path]:
    """Create ``folder`` if needed (:func:`~kari.io.atomic.prepare_output_dir`) and hold its lock for the block.
    The files the command ``writes`` there (names) must not be among its ``inputs`` (``play --bench B --out B``
    would append its records to the benchmark's games.jsonl): checked first (:func:`kari.io.outputs.check_outputs`,
    ``option`` names the folder), before anything is created. When the block fails and the folder was created
    here and holds nothing but its lock file, it is removed again: a command that fails before writing anything
    leaves no trace."""
    path = Path(folder)
    check_outputs([Output(path, option, OutputKind.FOLDER, names=tuple(writes))], inputs)
    created = not path.exists()
    prepare_output_dir(path)
    try:
        with folder_lock(path, what):
            yield path
    except BaseException:
        if created and [p.name for p in path.iterdir()] == [LOCK_FILE]:
            (path / LOCK_FILE).unlink()
            path.rmdir()
        raise
