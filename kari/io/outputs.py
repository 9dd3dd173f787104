"""One rule for every output of every command: nothing a command writes is one of its inputs, and no two of its
outputs are one file. Checked once, before any work, by :func:`check_outputs`.

A command names what it writes (:class:`Output`: a file with the files written beside it, such as a rules file's
``.jsonl`` form; a folder with the names written in it; a database written in place) and what it reads
(:class:`Input`: every file, a rules file's metadata twin and a benchmark folder's files included). A written
file and an input are the same file when they are one inode (whatever symbolic links, hard links or ``..`` lead
there) or, for a file that does not exist yet, when their paths resolve to the same place. Refused:

- an output of the wrong kind (a folder where a file goes, a FIFO, a database file: :mod:`kari.io.atomic`);
- a written file that is an input (code ``output-is-input``): ``kari coverage --bench B --ledger
  B/objects.jsonl`` would replace the benchmark's objects, ``--rules R.kari --explain R.jsonl`` the rules'
  metadata (refused whether or not ``R.jsonl`` exists yet: once written there, every later command would read it
  as the rules' metadata; beside the path as given and beside the file a link leads to);
- two outputs that are one file (code ``outputs-collide``): ``--ledger X --explain X``, or a file inside an
  output folder under a name that folder's command writes.

The CLI marks every option that writes with :func:`kari.cli.options.output` (so ``tests/test_cli_fuzz.py``
finds them all and generates these cases for each).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kari.errors import KariError
from kari.io.atomic import check_output_dir, check_output_file

__all__ = ["Input", "Output", "OutputKind", "check_outputs", "file_key", "inputs_of"]


class OutputKind(StrEnum):
    """What an output is: a file (replaced atomically), a folder (files written in it) or a DuckDB database
    (written in place; it may be the command's own input, as ``kari coverage --db`` reads and writes it)."""

    FILE = "file"
    FOLDER = "folder"
    DATABASE = "database"


@dataclass(frozen=True)
class Input:
    """A file a command reads; ``what`` names it in an error (``--rules``, ``the metadata twin of --rules``).
    ``absent_too``: the path counts even while no file is there, because the command's inputs would read one
    written there later (a ``.kari`` file's metadata twin: an output written there becomes that rules file's
    metadata for every later command)."""

    path: Path
    what: str
    absent_too: bool = False


@dataclass(frozen=True)
class Output:
    """Something a command writes. ``what`` names it in an error (``--explain``). A :attr:`~OutputKind.FILE`
    output also writes the files ``beside`` it (paths: ``induce --out R.kari`` writes ``R.jsonl``); a
    :attr:`~OutputKind.FOLDER` writes the ``names`` in it (a name ending in ``/`` is a subfolder: everything in
    it is written) and the ``databases`` (DuckDB files it writes in place); a :attr:`~OutputKind.DATABASE` is the
    database file and its WAL."""

    path: Path
    what: str
    kind: OutputKind = OutputKind.FILE
    beside: tuple[Path, ...] = ()
    names: tuple[str, ...] = ()
    databases: tuple[str, ...] = ()

    def files(self) -> list[tuple[Path, str]]:
        """Each file this output writes, with how an error names it."""
        if self.kind == OutputKind.FILE:
            return [(self.path, self.what), *((p, f"{self.what} (its {p.name})") for p in self.beside)]
        if self.kind == OutputKind.DATABASE:
            return [(self.path, self.what), (self.path.with_name(self.path.name + ".wal"), f"{self.what} (its WAL)")]
        named = [(self.path / name.rstrip("/"), f"{self.what} ({name})") for name in self.names]
        for name in self.databases:
            named += [(self.path / name, f"{self.what} ({name})"), (self.path / f"{name}.wal", f"{self.what} ({name}.wal)")]
        return named


def inputs_of(what: str, paths: Iterable[str | os.PathLike[str] | None]) -> list[Input]:
    """:class:`Input` records for ``paths`` (None skipped), all named ``what``."""
    return [Input(Path(p), what) for p in paths if p is not None]


def file_key(path: str | os.PathLike[str]) -> tuple[object, ...]:
    """What makes two paths one file: the device and inode of the file the path resolves to (symbolic links
    and ``..`` resolved first, as creating the path's missing folders and writing it would: ``new/../x`` is
    ``x``), else that resolved absolute path."""
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except OSError:
        return ("path", real)
    return ("inode", info.st_dev, info.st_ino)


def _under(path: Path, folder: Path) -> bool:
    """Is ``path`` inside ``folder`` (both resolved)?"""
    here, there = os.path.realpath(path), os.path.realpath(folder)
    return here != there and here.startswith(there.rstrip(os.sep) + os.sep)


def check_outputs(outputs: Sequence[Output], inputs: Iterable[Input] = ()) -> None:
    """Refuse, before any work, an output of the wrong kind, a written file that is one of ``inputs`` and two
    outputs that are one file (see the module docstring); a :class:`KariError` naming the output as given."""
    for output in outputs:
        if output.kind == OutputKind.FOLDER:
            check_output_dir(output.path)
            for name in output.names:
                (check_output_dir if name.endswith("/") else check_output_file)(output.path / name.rstrip("/"))
        elif output.kind == OutputKind.FILE:
            for path, _ in output.files():
                check_output_file(path)
    read: dict[tuple[object, ...], Input] = {}
    for item in inputs:
        if item.path is not None and (item.absent_too or os.path.lexists(item.path)):
            read.setdefault(file_key(item.path), item)
    written: dict[tuple[object, ...], tuple[Path, str]] = {}
    for output in outputs:
        for path, what in output.files():
            key = file_key(path)
            found = read.get(key)
            if found is not None:
                raise KariError(f"is an input of this command ({found.what}: {found.path}); refusing to let {what} "
                                "replace it: give another output", file=str(path), code="output-is-input")
            other = written.get(key)
            if other is not None and other[1] != what:
                raise KariError(f"{what} and {other[1]} are one file; give each output its own",
                                file=str(path), code="outputs-collide")
            written[key] = (path, what)
    _check_nesting(outputs, read)


def _check_nesting(outputs: Sequence[Output], read: dict[tuple[object, ...], Input]) -> None:
    """An output folder is no other output's file, and a subfolder an output writes whole (a name ending in
    ``/``) holds no input and no other output."""
    for output in outputs:
        if output.kind == OutputKind.FOLDER:
            for other in outputs:
                if other is not output and any(file_key(p) == file_key(output.path) for p, _ in other.files()):
                    raise KariError(f"{other.what} is the folder {output.what}; give each output its own place",
                                    file=str(output.path), code="outputs-collide")
        for name in output.names:
            if not name.endswith("/"):
                continue
            folder = output.path / name.rstrip("/")
            for item in read.values():
                if _under(item.path, folder):
                    raise KariError(f"{output.what} writes the folder {name} which holds {item.what} "
                                    f"({item.path}), an input of this command; give another output",
                                    file=str(folder), code="output-is-input")
            for other in outputs:
                if other is not output and any(_under(p, folder) or file_key(p) == file_key(folder)
                                               for p, _ in other.files()):
                    raise KariError(f"{output.what} writes the folder {name} where {other.what} goes; give each "
                                    "output its own place", file=str(other.path), code="outputs-collide")
