"""Atomic file writes: write to a temporary file in the same folder, then rename over the target.

A crash or Ctrl-C therefore never leaves a half-written output. The target must be a regular file (or not exist):
a directory, device, FIFO, socket or database file is never replaced (:func:`check_output_file`). A symbolic
link is followed, so the file it points to is replaced and the link stays. A new file gets the permissions the
umask allows (like ``open``); a replaced file keeps its mode.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from kari.errors import KariError

_DATABASE_MAGIC = ((8, b"DUCK"), (0, b"SQLite format 3\x00"))


def is_database_file(path: str | os.PathLike[str]) -> bool:
    """True for a DuckDB or SQLite database file (by its magic bytes)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return False
    return any(head[at: at + len(magic)] == magic for at, magic in _DATABASE_MAGIC)


def _os_error(exc: OSError, path: str | os.PathLike[str], doing: str) -> KariError:
    return KariError(f"cannot {doing}: {exc.strerror or exc}", file=str(exc.filename or path), code="output-write")


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """The file an output for ``path`` will replace (symlinks followed); a :class:`KariError` (code
    ``output-kind``) when it exists as anything but a regular non-database file, or when a folder on its way is
    a file. Whether it is one of the command's inputs is :func:`kari.io.outputs.check_outputs`'s question."""
    given = str(path)
    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    if target.exists():
        if target.is_dir():
            raise KariError("is a directory; this output is a file: give a file name", file=given,
                            code="output-kind")
        if not target.is_file():
            raise KariError("exists and is not a regular file (a device, FIFO or socket); refusing to replace it",
                            file=given, code="output-kind")
        if is_database_file(target):
            raise KariError("is a database file; refusing to replace it with an output: give another file name",
                            file=given, code="output-kind")
    _check_folders(target.parent, given)
    return target


def _check_folders(folder: Path, given: str) -> None:
    """The nearest existing folder on the way to ``folder`` must be a directory."""
    for ancestor in (folder, *folder.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise KariError(f"{ancestor} is not a directory", file=given, code="output-kind")
            return


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder an output can go to; a :class:`KariError` (code ``output-kind``) when it or a
    folder on its way exists as something other than a directory. Creates nothing."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise KariError("exists and is not a directory; this output is a folder: give a folder name",
                        file=str(folder), code="output-kind")
    _check_folders(folder, str(folder))
    return folder


def prepare_output_dir(path: str | os.PathLike[str]) -> Path:
    """Create the output folder ``path`` (and its parents) unless it exists; see :func:`check_output_dir`."""
    folder = check_output_dir(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, folder, "create the folder") from None
    return folder


def _create_temp(target: Path) -> tuple[int, Path]:
    """A new, empty sibling of ``target``; created with mode 0666 so that the umask applies."""
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), tmp
        except FileExistsError:
            continue
        except OSError as exc:  # the error is about the output the user named, not kari's temporary name
            raise OSError(exc.errno, exc.strerror, str(target)) from None


def new_temp_sibling(target: Path) -> Path:
    """A new, empty, closed sibling of ``target`` for a file another writer fills (a copied database), with the
    mode the umask allows, as the file a program creates at ``target`` would have; ``OSError`` when the folder
    cannot take it."""
    fd, tmp = _create_temp(target)
    os.close(fd)
    return tmp


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path`` for writing; rename it to ``path`` only if the block succeeds."""
    target = check_output_file(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        keep_mode = target.stat().st_mode & 0o7777 if target.is_file() else None
        fd, tmp = _create_temp(target)
    except OSError as exc:
        raise _os_error(exc, path, "write") from None
    binary = "b" in mode
    try:
        try:
            with os.fdopen(fd, mode, encoding=None if binary else encoding) as handle:
                if keep_mode is not None:
                    os.fchmod(handle.fileno(), keep_mode)
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            if exc.filename is not None and exc.filename != str(tmp):
                raise                       # about another file: it names itself
            raise _os_error(exc, path, "write") from None   # a full disk, a quota, an I/O error
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def create_once(path: str | os.PathLike[str], text: str) -> bool:
    """Write ``text`` to ``path`` unless a file is there already: the first writer wins, on one machine or on many
    sharing a network file system. A temporary sibling is written whole and hard-linked into place, which fails
    when ``path`` exists (``link`` is atomic on NFS too, where ``O_EXCL`` on the file itself was not always);
    where hard links are not supported, the sibling is renamed into place unless ``path`` exists by then.
    Returns whether this call created ``path``."""
    target = check_output_file(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _create_temp(target)
    except OSError as exc:
        raise _os_error(exc, path, "write") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)
            return True
        except FileExistsError:
            return False
        except OSError:             # no hard links on this file system
            if os.path.lexists(target):
                return False
            os.replace(tmp, target)
            return True
    except OSError as exc:
        raise _os_error(exc, path, "write") from None
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented JSON atomically."""
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def atomic_write_jsonl(path: str | os.PathLike[str], records: Iterable[Any]) -> None:
    """Write one JSON object per line atomically."""
    with atomic_open(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
