"""Serve a study with uvicorn until Ctrl-C (or SIGTERM): the socket is bound first (a port in use is one clear
error, not a server log), the links are announced, and uvicorn's graceful shutdown lets the requests in flight
finish before the study writes its summary and plots."""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

import uvicorn

from kari.errors import KariError
from kari.report.writer import HTML_FILE, ReportOptions, write_report
from kari.serve.app import make_app
from kari.serve.links import LINKS_FILE
from kari.serve.store import PRIVATE_DIR
from kari.serve.study import Study

REPORT_DIR = "report"
"""The coordinator's ``kari report --html`` folder, inside the study's private folder."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port); a refusal is a ``serve-port`` error."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        raise KariError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code="serve-port") from None
    return sock


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def report_builder(out: Path, compare: Sequence[Path]) -> Callable[[], Path]:
    """Build ``kari report --html`` of the study's run directory and the runs compared with it; returns the page."""
    def build() -> Path:
        folder = out / PRIVATE_DIR / REPORT_DIR
        write_report([out, *compare], folder, ReportOptions(html=True))
        return folder / HTML_FILE
    return build


def report_command(out: Path, compare: Sequence[Path]) -> str:
    """The command line the coordinator would type for the same report."""
    runs = " ".join(str(p) for p in (out, *compare))
    return f"kari report {runs} --out {out / PRIVATE_DIR / REPORT_DIR} --html"


def serve(study: Study, out: Path, sock: socket.socket, *, compare: Sequence[Path] = (),
          announce: Callable[[str], None] = print) -> None:
    """Serve ``study`` (whose run directory is ``out``) on the listening socket ``sock`` (:func:`bind`: bound
    before the study is opened, so a port in use is refused before anything is written) until stopped."""
    host, port = sock.getsockname()[:2]
    base = url_of(host, port)
    app = make_app(study, report_builder(out, compare), report_command(out, compare))
    config = uvicorn.Config(app, http="h11", log_level="warning", access_log=False, server_header=False,
                            lifespan="off", timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024,
                            timeout_graceful_shutdown=10)
    announce(f"study: {base}/join (each person who opens it gets the next free participant link)")
    announce(f"coordinator: {base}/c/{study.links.coordinator}")
    announce(f"participant links: {out / PRIVATE_DIR / LINKS_FILE} and the coordinator's page; Ctrl-C stops")
    previous = signal.signal(signal.SIGTERM, _stop)  # uvicorn re-raises the signal it caught once it has stopped
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


class Stopped(Exception):
    """SIGTERM: the server has shut down gracefully; the study closes and the command ends normally."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped


__all__ = ["REPORT_DIR", "Stopped", "bind", "report_builder", "report_command", "serve", "url_of"]
