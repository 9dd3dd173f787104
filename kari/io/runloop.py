"""The one resumable run loop: items answered into a locked run directory, one record each, resumed on rerun.

``kari play`` (``games.jsonl``) and ``kari creativity solve`` (``answers.jsonl``) both run it:

1. :func:`resumable` creates and locks the directory (a second writer fails at once; a directory created for a
   command that then fails before writing anything is removed again);
2. :meth:`ResumableRun.check_resume` refuses a rerun with other settings (``config.json``; the item counts may
   differ);
3. :meth:`ResumableRun.start` writes ``config.json`` and reads the log back (:func:`kari.io.runlog.load_log`:
   a half-written last line is dropped, a whole one kept, glued lines split, and the file rewritten clean);
4. :meth:`ResumableRun.todo` keeps the items not in the log yet; :meth:`ResumableRun.record` appends each new
   record as one whole line and flushes it, behind a progress bar;
5. :meth:`ResumableRun.finish` writes ``summary.json`` atomically.

Records are typed: the command's reader turns a JSON line into its record (or a ``run-corrupt`` error) and
each record serialises itself with ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.lock import output_folder
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, append, check_settings, load_log


class Record(Protocol):
    def to_json(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Record)
T = TypeVar("T")


@dataclass(frozen=True)
class RunSpec(Generic[R]):
    """One run directory: its log file, its settings and how to read and key its records.

    ``settings`` must match on resume; ``counts`` (how many items were asked for) may differ; ``config.json``
    holds both, in that order. ``reads`` are the files the command reads: no file the run writes may be one of
    them. ``inputs`` is where fingerprints of the inputs go once a resume checks them too (today nothing reads
    it: a rerun on changed inputs is not refused)."""

    folder: Path
    log: str
    settings: Mapping[str, Any]
    counts: Mapping[str, Any]
    read: Callable[[dict[str, Any], Path, int], R]
    key: Callable[[R], Hashable]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    reads: tuple[Path, ...] = ()


class ResumableRun(Generic[R]):
    """The steps of one session in a locked run directory (see the module docstring)."""

    def __init__(self, spec: RunSpec[R]) -> None:
        self.spec = spec
        self.records: list[R] = []

    @property
    def log_path(self) -> Path:
        return self.spec.folder / self.spec.log

    def check_resume(self) -> None:
        """Refuse to go on in a directory made with other settings."""
        check_settings(self.spec.folder / CONFIG_FILE, self.spec.settings, ignore=tuple(self.spec.counts))

    def start(self) -> list[R]:
        """Write ``config.json`` and read the records already there (the log rewritten when a crash left it
        unclean)."""
        atomic_write_json(self.spec.folder / CONFIG_FILE, {**self.spec.settings, **self.spec.counts})
        self.records, dirty = load_log(self.log_path, self.spec.read)
        if dirty:
            atomic_write_jsonl(self.log_path, [r.to_json() for r in self.records])
        return self.records

    def todo(self, items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
        """The items whose key no record of the log has yet, in order."""
        done = {self.spec.key(r) for r in self.records}
        return [item for item in items if key(item) not in done]

    def record(self, results: Iterable[R], total: int, *, desc: str, unit: str, progress: bool) -> list[R]:
        """Append each result to the log as it comes (one whole line, flushed) and return every record."""
        from tqdm import tqdm

        bar = tqdm(total=total, desc=desc, unit=unit, disable=not progress, leave=False)
        try:
            with self.log_path.open("a", encoding="utf-8") as handle:
                for result in results:
                    append(handle, result.to_json())
                    self.records.append(result)
                    bar.update(1)
        finally:
            bar.close()
        return self.records

    def finish(self, summary: Mapping[str, Any]) -> None:
        """Write ``summary.json`` (the scores of every record of the directory)."""
        atomic_write_json(self.spec.folder / SUMMARY_FILE, dict(summary))


@contextmanager
def resumable(spec: RunSpec[R]) -> Iterator[ResumableRun[R]]:
    """Create and lock ``spec.folder`` for the block (:func:`kari.io.lock.output_folder`), after checking that
    none of the files the run writes is one of the files it reads."""
    with output_folder(spec.folder, writes=(spec.log, CONFIG_FILE, SUMMARY_FILE), inputs=spec.reads):
        yield ResumableRun(spec)


def usage_of(client: Any) -> dict[str, Any]:
    """The summary's ``llm_usage`` entry of a chat client (none without one)."""
    return {} if client is None else {"llm_usage": client.usage.as_dict()}


__all__ = ["Record", "ResumableRun", "RunSpec", "resumable", "usage_of"]
