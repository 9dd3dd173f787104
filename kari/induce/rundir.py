"""The run directory: manifest, one finished-result file per affordance (resume), call logs, coverage, report.

Layout::

    manifest.json            config, seed, model ids, prompt versions, cache key, status (a shard: its K/N)
    affordances/<aff>.json   one finished affordance (written atomically: a crash never loses finished ones)
    calls/<session>.jsonl    every LLM call of one session (a resumed run adds a session; a merged run holds
                             the shards' as calls/shard<K>-<session>.jsonl)
    coverage.jsonl           per-round coverage of every affordance
    vocabulary.jsonl         every Auditor decision (with provenance)
    tuning.json              the offline settings chosen by inner cross-validation (kari.induce.tuning)
    heldout.json             KB input: each rule's precision held out within the KB (kari.induce.kbweights)
    left_out.jsonl           KB input: every KB verb that got no rule, and why (kari.induce.targets, .pooling)
    cv/fold<k>/              with --cv: one run directory per fold (rules induced without fold k's objects)
    report.md                the summary

A run directory belongs to one cache key (and, for a shard, to one K/N); resuming with different settings or
as another shard is an error, not a silent mix.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_json
from kari.io.text import BadJSON, decode_json, load_json, read_text, text_lines
from kari.induce.records import InductionResult

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def cache_key(parts: dict[str, Any]) -> str:
    """A stable digest of everything that determines the induced rules."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


class RunDir:
    """One run's folder."""

    NAMES = ("manifest.json", "affordances/", "coverage.jsonl", "vocabulary.jsonl", "report.md", "tuning.json", "cv/")
    """What a run writes in its folder (a name ending in ``/``: a folder of its own)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.affordance_dir = self.path / "affordances"
        self.coverage_path = self.path / "coverage.jsonl"
        self.vocabulary_path = self.path / "vocabulary.jsonl"
        self.report_path = self.path / "report.md"
        self.tuning_path = self.path / "tuning.json"
        self.left_out_path = self.path / "left_out.jsonl"
        self.heldout_path = self.path / "heldout.json"

    def open(self, manifest: dict[str, Any], fresh: bool = False) -> dict[str, InductionResult]:
        """Start or resume the run; returns the finished affordances (empty when starting fresh)."""
        if self.path.exists() and not self.path.is_dir():
            raise KariError("run directory is a file", file=str(self.path), code="induce-run-dir")
        previous = self.manifest()
        if previous is not None and not fresh and previous.get("cache_key") != manifest["cache_key"]:
            raise KariError(
                f"holds a run with other settings (cache key {previous.get('cache_key')}, now "
                f"{manifest['cache_key']}); use another --run-dir or --fresh",
                file=str(self.path),
                code="induce-run-dir",
            )
        if previous is not None and not fresh and previous.get("shard") != manifest.get("shard"):
            def name(shard: Any) -> str:
                return f"shard {shard}" if shard else "a run that is not a shard"

            raise KariError(
                f"holds {name(previous.get('shard'))} of this run, not {name(manifest.get('shard'))}; use another "
                "--run-dir or --fresh",
                file=str(self.path),
                code="induce-run-dir",
            )
        finished = {} if fresh or previous is None else self.finished()
        if fresh:
            for stale in self.affordance_dir.glob("*.json") if self.affordance_dir.is_dir() else ():
                stale.unlink()
            self.tuning_path.unlink(missing_ok=True)
            self.heldout_path.unlink(missing_ok=True)
        sessions = 0 if fresh or previous is None else int(previous.get("sessions", 0))
        manifest = {**manifest, "sessions": sessions + 1, "status": "running", "resumed_affordances": sorted(finished)}
        atomic_write_json(self.manifest_path, manifest)
        return finished

    def manifest(self) -> dict[str, Any] | None:
        """The manifest on disk, or None."""
        if not self.manifest_path.is_file():
            return None
        data = load_json(read_text(self.manifest_path, "manifest"), file=str(self.manifest_path),
                         code="induce-run-dir")
        if not isinstance(data, dict):
            raise KariError("broken manifest: not a JSON object", file=str(self.manifest_path), code="induce-run-dir")
        return data

    def update_manifest(self, **changes: Any) -> None:
        atomic_write_json(self.manifest_path, {**(self.manifest() or {}), **changes})

    @contextmanager
    def recording_failure(self) -> Iterator[None]:
        """Mark the manifest ``failed`` (with the error), ``interrupted`` or ``budget-spent`` when the block raises,
        so that a run never stays "running" after it ended; the exception goes on unchanged."""
        try:
            yield
        except BaseException as exc:
            code = getattr(exc, "code", None)
            stopped = isinstance(exc, KeyboardInterrupt) or code in ("interrupted", "budget")
            status = "budget-spent" if code == "budget" else "interrupted" if stopped else "failed"
            try:
                self.update_manifest(status=status, error=None if stopped else " ".join(str(exc).split())[:500])
            except Exception:  # noqa: BLE001 - never hide the original failure behind a manifest problem
                pass
            raise

    def call_log_path(self) -> Path:
        """The call log of the current session."""
        return self.path / "calls" / f"{int((self.manifest() or {}).get('sessions', 1)):03d}.jsonl"

    def calls(self) -> list[dict[str, Any]]:
        """Every logged LLM call of every session (a line cut off by a crash at the end of a log is skipped)."""
        out = []
        for path in sorted((self.path / "calls").glob("*.jsonl")):
            text = read_text(path, "call log")
            lines = text_lines(text)
            for number, line in enumerate(lines, 1):
                if not line.strip() or (number == len(lines) and not text.endswith("\n")):
                    continue
                record = load_json(line, file=str(path), line=number, code="induce-run-dir")
                out += [record] if isinstance(record, dict) else []
        return out

    def result_path(self, affordance: str) -> Path:
        return self.affordance_dir / f"{_UNSAFE.sub('_', affordance)}.json"

    def save(self, result: InductionResult) -> None:
        """Persist one finished affordance atomically."""
        atomic_write_json(self.result_path(result.affordance), result.to_json())

    def finished(self) -> dict[str, InductionResult]:
        """Affordance -> finished result; unreadable files (never produced by atomic writes) are ignored."""
        out = {}
        for path in sorted(self.affordance_dir.glob("*.json")) if self.affordance_dir.is_dir() else ():
            try:
                data = decode_json(path.read_text(encoding="utf-8"))
            except (BadJSON, UnicodeDecodeError):
                continue
            if isinstance(data, dict) and "affordance" in data:
                out[data["affordance"]] = InductionResult.from_json(data)
        return out
