"""CreativityBench's own code, run from the user's checkout of its repository (``--benchmark-repo DIR``).

The benchmark's repository carries no licence, so kari holds none of its code or text: given a checkout, kari
imports the four modules of its ``evaluation/`` folder from there at run time (as lm-eval-harness loads a task's
``utils``), each under a name of its own, with the checkout's ``models`` and ``utils`` standing in for the plain
module names its files import. Every request is then built by the checkout's functions:

- ``static`` / ``cot``: ``evaluate._run_static(task, temperature)`` / ``evaluate._run_cot(task, temperature)``
  (``SYS_STATIC`` / ``SYS_COT`` with ``utils.build_static_prompt`` / ``build_cot_prompt``, the reply read by
  ``utils.parse_response``); ``interactive``: ``utils.run_interactive(MODEL, task, temperature)``;
- the judge: ``judge._judge_one(task, sample)`` (its snapping, its rubric prompts, its reading of replies).

The checkout's ``models.call_model`` makes each call, with its own defaults (``max_tokens``, its temperature
rules), through an ``openai.OpenAI`` stand-in that hands the request to kari's client (cache, retries, call log,
token counts): kari sends exactly what the checkout would send (system and user text, temperature,
``max_tokens``, the model). Module settings the checkout reads from the environment at import (``MODEL``,
``MODE``, ``MAX_TURNS``, ``JUDGE_MODEL``) are set from kari's options while its modules are imported; the others
(``JUDGE_TEMPERATURE``...) are the user's environment, as for the benchmark's own scripts. The interactive mode's
listing order (the checkout shuffles with Python's ``random``) is seeded per task and sample, so reruns agree.

kari was matched against commit :data:`MATCHED_COMMIT` of the repository's ``evaluation/`` folder; a checkout that
lacks one of the names above is a one-line error naming it.
"""

from __future__ import annotations

import importlib.util
import os
import random
import secrets
import sys
import threading
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from kari.errors import KariError
from kari.io.fingerprint import file_input
from kari.io.text import load_json, read_text, text_lines

MATCHED_COMMIT = "f73f26af8d320a50d36b329568fc2859c9b823a5"
"""The commit of CreativityBench/CreativityBench whose ``evaluation/`` folder kari was matched against."""
FILES = ("models.py", "utils.py", "evaluate.py", "judge.py")
NEEDED = {"evaluate": ("_run_static", "_run_cot"), "utils": ("run_interactive", "parse_response"),
          "judge": ("_judge_one",), "models": ("call_model",)}
"""The names kari calls in each module of the checkout."""
ALLOWED_REQUEST_KEYS = frozenset({"model", "messages", "temperature", "max_tokens", "timeout"})
"""What the checkout may pass to ``chat.completions.create`` (``timeout`` is the client's, never sent)."""


def git_commit(root: Path) -> str | None:
    """The commit a git checkout has out (``.git/HEAD``, a ref or a detached hash); None when it is no git
    checkout or the ref cannot be read."""
    head = root / ".git" / "HEAD"
    try:
        text = head.read_text(encoding="utf-8").strip()
        if text.startswith("ref: "):
            ref = text[5:]
            loose = root / ".git" / ref
            if loose.is_file():
                return loose.read_text(encoding="utf-8").strip()
            packed = root / ".git" / "packed-refs"
            for line in packed.read_text(encoding="utf-8").splitlines() if packed.is_file() else ():
                if line.endswith(" " + ref):
                    return line.split()[0]
            return None
        return text or None
    except OSError:
        return None


def checkout_files(root: Path) -> dict[str, Path]:
    """The checkout's four ``evaluation/`` files, or a :class:`KariError` naming the first one missing."""
    folder = Path(root) / "evaluation"
    files = {name: folder / name for name in FILES}
    for name, path in files.items():
        if not path.is_file():
            raise KariError(f"not a checkout of CreativityBench's repository: no evaluation/{name}", file=str(root),
                            code="benchmark-repo")
    return files


def checkout_record(root: Path) -> dict[str, Any]:
    """What a run records of the checkout: its path, its commit and the content fingerprint of each file."""
    files = checkout_files(root)
    return {"path": str(Path(root).resolve()), "commit": git_commit(Path(root)), "matched_commit": MATCHED_COMMIT,
            "files": {name: file_input(f"the checkout's evaluation/{name}", path)["sha256"]
                      for name, path in files.items()}}


class _Completions:
    """``client.chat.completions`` of the ``openai.OpenAI`` stand-in: each ``create`` is one call of kari's
    client."""

    def __init__(self, code: BenchmarkCode) -> None:
        self.code = code

    def create(self, **request: Any) -> Any:
        return self.code.complete(request)


class _OpenAIStandIn:
    """What the checkout's ``models.py`` gets for ``openai.OpenAI``: its chat completions go through kari."""

    def __init__(self, code: BenchmarkCode) -> None:
        self.chat = SimpleNamespace(completions=_Completions(code))

    def close(self) -> None:
        """The checkout closes its clients at exit; kari's client stays kari's."""


@contextmanager
def _set_items(store: MutableMapping[str, Any], values: Mapping[str, Any]) -> Iterator[None]:
    """``store`` (``sys.modules``, ``os.environ``) with ``values`` set for the block, as it was afterwards."""
    saved = {key: store.get(key) for key in values}
    store.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                store.pop(key, None)
            else:
                store[key] = value


def _load(path: Path, name: str, deps: Mapping[str, ModuleType]) -> ModuleType:
    """``path`` imported as a fresh module, with ``deps`` answering the plain names it imports."""
    spec = importlib.util.spec_from_file_location(f"kari_benchmark_{secrets.token_hex(4)}_{name}", path)
    if spec is None or spec.loader is None:
        raise KariError("cannot be imported", file=str(path), code="benchmark-repo")
    module = importlib.util.module_from_spec(spec)
    with _set_items(sys.modules, deps):
        try:
            spec.loader.exec_module(module)
        except KariError:
            raise
        except Exception as exc:  # the checkout's own code failed: say where, in one line
            raise KariError(f"the checkout's code failed to import: {type(exc).__name__}: {exc}", file=str(path),
                            code="benchmark-repo") from None
    return module


class BenchmarkCode:
    """The checkout's ``evaluation/`` modules, their model calls sent through kari's ``client``.

    ``model`` is the name kari's client sends (the checkout's ``MODEL`` / ``JUDGE_MODEL``); ``mode`` its
    ``MODE``; ``max_turns`` its ``MAX_TURNS``; ``role`` names kari's calls in the call log."""

    def __init__(self, root: str | Path, client: Any, *, model: str, mode: str = "static", max_turns: int = 15,
                 role: str = "creativity") -> None:
        self.root = Path(root)
        files = checkout_files(self.root)
        self.client = client
        self.model = model
        self.role = role
        self.record = checkout_record(self.root)
        self._last = threading.local()
        settings = {"MODEL": model, "JUDGE_MODEL": model, "MODE": mode, "MAX_TURNS": str(max_turns)}
        with _set_items(os.environ, settings):  # the checkout reads its settings at import
            self.models = _load(files["models.py"], "models", {})
            # the checkout's module is loaded at run time (its attributes unknown to the checker)
            self.models.OpenAI = lambda *args, **kwargs: _OpenAIStandIn(self)  # type: ignore[attr-defined]
            self.utils = _load(files["utils.py"], "utils", {"models": self.models})
            deps = {"models": self.models, "utils": self.utils}
            self.evaluate = _load(files["evaluate.py"], "evaluate", deps)
            self.judge = _load(files["judge.py"], "judge", deps)
        for module, names in NEEDED.items():
            for name in names:
                if not callable(getattr(getattr(self, module), name, None)):
                    raise KariError(f"the checkout's evaluation/{module}.py has no {name} (kari calls it as commit "
                                    f"{MATCHED_COMMIT[:12]} defines it)", file=str(files[f"{module}.py"]),
                                    code="benchmark-repo")

    def complete(self, request: Mapping[str, Any]) -> Any:
        """One chat completion the checkout asked for, made by kari's client; the reply in the shape the openai
        library gives."""
        extra = sorted(set(request) - ALLOWED_REQUEST_KEYS)
        if extra:
            raise KariError(f"the checkout sends {', '.join(extra)}, which kari's client cannot send as it does",
                            file=str(self.root / "evaluation" / "models.py"), code="benchmark-repo")
        if request.get("model") != self.model:
            raise KariError(f"the checkout asked for model {request.get('model')!r}, kari's client sends "
                            f"{self.model!r}", file=str(self.root / "evaluation" / "models.py"),
                            code="benchmark-repo")
        max_tokens = request.get("max_tokens")
        if not isinstance(max_tokens, int):
            raise KariError("the checkout's call_model sends no max_tokens: kari's client needs one",
                            file=str(self.root / "evaluation" / "models.py"), code="benchmark-repo")
        reply = self.client.chat(list(request["messages"]), max_tokens=max_tokens,
                                 temperature=float(request.get("temperature") or 0.0), role=self.role)
        self._last.reply = reply
        message = SimpleNamespace(content=reply.text, role="assistant")
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=reply.finish_reason)],
                               model=reply.model or self.model)

    def last_reply(self) -> Any:
        """The last reply this thread received (None before any)."""
        return getattr(self._last, "reply", None)

    def solve(self, task: Mapping[str, Any], mode: str, temperature: float, seed: str) -> dict[str, Any]:
        """The checkout's answer to ``task`` in ``mode``, in its runner's sample form (``interactive``: its
        listing shuffled with ``random`` seeded by ``seed``)."""
        task = dict(task)
        if mode == "static":
            return dict(self.evaluate._run_static(task, temperature))
        if mode == "cot":
            return dict(self.evaluate._run_cot(task, temperature))
        state = random.getstate()
        random.seed(seed)
        try:
            return dict(self.utils.run_interactive(self.model, task, temperature=temperature))
        finally:
            random.setstate(state)

    def use_entity_lookup(self, records: list[Any] | None) -> None:
        """Give the checkout's judge the entity lookup (``--entities``: its records, as its own loader reads the
        lookup file); without one, its own ``ENTITY_LOOKUP_FILE`` must exist."""
        if records is not None:
            setattr(self.judge, "ENTITY_LOOKUP_CACHE", records)  # as its own loader fills it
            return
        path = getattr(self.judge, "ENTITY_LOOKUP_FILE", None)
        if getattr(self.judge, "ENTITY_LOOKUP_CACHE", None) is None and path and not Path(path).is_file():
            raise KariError(f"the checkout's judge reads the entity lookup {path}, which is not there: give "
                            "--entities FILE (the benchmark's 1_entity_lookup.json)", file=str(self.root),
                            code="benchmark-repo")

    def judge_sample(self, task: Mapping[str, Any], sample: Mapping[str, Any]) -> dict[str, Any]:
        """The checkout's judgement of one runner-format sample (its judged-output form)."""
        return dict(self.judge._judge_one(dict(task), dict(sample)))


def lookup_records(paths: Sequence[str | Path]) -> list[Any]:
    """The records of entity files for the checkout's judge, as its own loader reads the entity lookup: an object
    keyed ``scenario+entity`` gives its values, an array its items, JSON Lines one record a line."""
    records: list[Any] = []
    for path in paths:
        text = read_text(path, "entity file")
        try:
            data = load_json(text, file=str(path))
        except KariError:
            data = [load_json(line, file=str(path), line=n) for n, line in enumerate(text_lines(text), 1)
                    if line.strip()]
        records += list(data.values()) if isinstance(data, dict) else list(data) if isinstance(data, list) else []
    return records
