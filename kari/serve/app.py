"""The web application of ``kari serve``: Starlette routes over a :class:`~kari.serve.study.Study` (served by
uvicorn, :mod:`kari.serve.server`).

Pages are static files (``kari/serve/static``) that fetch JSON and write every text they get with
``textContent``: a participant's text is never HTML. Routes (:data:`ROUTES`):

- ``GET /join``: the study's link, the next free participant link (303), or "full";
- ``GET /p/TOKEN``, ``GET /api/p/TOKEN``: a participant's page, and its state
  (:func:`~kari.serve.views.participant_view`);
- ``POST /api/p/TOKEN/STEP``: the steps :data:`STEPS` (``consent``, ``start``, ``ask``, ``answer``, ``guess``,
  ``withdraw``), each with a JSON body;
- ``GET /c/TOKEN``, ``GET /api/c/TOKEN``: the coordinator's page and its state
  (:func:`~kari.serve.views.coordinator_view`);
- ``POST /api/c/TOKEN/report``, ``GET /c/TOKEN/report``: build ``kari report --html`` of the study (and the runs
  compared with it), and open it;
- ``GET /static/NAME``: the pages' scripts and style; ``GET /``, ``GET /favicon.ico``: nothing to see.

Safe by default: request bodies are bounded (:data:`~kari.serve.settings.MAX_BODY`, 413 beyond) and so are
request heads (:data:`MAX_HEAD`, 431 beyond); a step is a JSON POST (a cross-site form cannot send one) from the
same origin; an unknown token is a 404 like any unknown path; every response carries a strict
Content-Security-Policy, ``nosniff``, no referrer and no caching.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kari.errors import KariError
from kari.serve.settings import MAX_BODY
from kari.serve.study import Participant, Study
from kari.serve.views import coordinator_view, participant_view

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The pages' Content-Security-Policy: their own scripts and style only, no inline code, no other origin."""
REPORT_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""``kari report --html`` is one self-contained page with inline script and style."""
MAX_HEAD = 16 * 1024
"""The most bytes of a request's path, query and headers together."""
STATIC = {"participant.js": "text/javascript", "coordinator.js": "text/javascript", "style.css": "text/css"}
STATUS = {"serve-input": 400, "serve-state": 409, "serve-withdrawn": 410}
"""HTTP status of each step error (a bad value; a step out of turn; a withdrawn participant)."""

ROUTES = (("GET", "/"), ("GET", "/favicon.ico"), ("GET", "/join"), ("GET", "/p/{token}"),
          ("GET", "/api/p/{token}"), ("POST", "/api/p/{token}/{step}"), ("GET", "/c/{token}"),
          ("GET", "/api/c/{token}"), ("POST", "/api/c/{token}/report"), ("GET", "/c/{token}/report"),
          ("GET", "/static/{name}"))
"""Every route of the application (method, path)."""
STEPS = ("consent", "start", "ask", "answer", "guess", "withdraw")
"""The steps a participant POSTs (``/api/p/TOKEN/STEP``)."""

ReportBuilder = Callable[[], Path]


class Guard:
    """ASGI middleware, outermost: bounded request heads (:data:`MAX_HEAD` bytes of headers and path, 431 beyond)
    and the security headers on every response, the framework's own answers included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + \
            sum(len(k) + len(v) for k, v in scope.get("headers", []))
        if head > MAX_HEAD:
            app: ASGIApp = _error(431, f"a request's path and headers hold at most {MAX_HEAD} bytes")
            await self._secured(app, scope, receive, send)
            return
        await self._secured(self.app, scope, receive, send)

    async def _secured(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        report = scope.get("path", "").endswith("/report") and scope.get("method") == "GET"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                headers += [(b"content-security-policy", (REPORT_CSP if report else CSP).encode()),
                            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"cache-control", b"no-store"), (b"x-frame-options", b"DENY"),
                            (b"cross-origin-opener-policy", b"same-origin")]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_with_headers)


def _page(name: str) -> Response:
    text = resources.files("kari.serve").joinpath("static", name).read_text(encoding="utf-8")
    return Response(text, media_type=STATIC.get(name, "text/html"))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


NOT_FOUND = "no such page"


def make_app(study: Study, build_report: ReportBuilder | None = None, report_command: str = "") -> ASGIApp:
    """The application serving ``study``; ``build_report`` writes the coordinator's report and returns its
    ``report.html`` (None: no report button)."""
    report_state: dict[str, Path | None] = {"html": None}

    def person_of(request: Request) -> int | None:
        return study.links.participant(request.path_params["token"])

    def is_coordinator(request: Request) -> bool:
        return study.links.is_coordinator(request.path_params["token"])

    async def body_of(request: Request) -> Mapping[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            raise KariError("send JSON (Content-Type: application/json)", code="serve-input")
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            raise KariError("a step comes from the study's own pages", code="serve-origin")
        try:
            data = json.loads(await request.body() or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise KariError("the body is not JSON", code="serve-input") from None
        if not isinstance(data, dict):
            raise KariError("the body is not a JSON object", code="serve-input")
        return data

    def field(data: Mapping[str, Any], name: str, kind: type) -> Any:
        value = data.get(name)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise KariError(f"{name!r} missing or not {kind.__name__}", code="serve-input")
        return value

    def viewed(step: Callable[[], Participant]) -> dict[str, Any]:
        with study.lock:  # the step and the state it leaves, seen together
            return participant_view(study, step())

    async def run_step(step: Callable[[], Participant]) -> Response:
        try:
            view = await run_in_threadpool(viewed, step)
        except KariError as exc:
            return _error(STATUS.get(exc.code or "", 500), exc.message)
        return JSONResponse(view)

    async def home(request: Request) -> Response:
        return PlainTextResponse("A kari study. Open the link you were given.")

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)

    async def join(request: Request) -> Response:
        index = await run_in_threadpool(study.claim)
        if index is None:
            return PlainTextResponse("This study is full: every participant link has been taken.", status_code=410)
        return RedirectResponse(f"/p/{study.links.participants[index]}", status_code=303)

    async def participant_page(request: Request) -> Response:
        return _page("participant.html") if person_of(request) is not None else _error(404, NOT_FOUND)

    async def participant_state(request: Request) -> Response:
        index = person_of(request)
        if index is None:
            return _error(404, NOT_FOUND)
        return await run_step(lambda: study.visit(index))

    async def participant_step(request: Request) -> Response:
        index = person_of(request)
        if index is None:
            return _error(404, NOT_FOUND)
        step = request.path_params["step"]
        try:
            data = await body_of(request)
            action = _step(study, index, step, data, field)
        except KariError as exc:
            return _error(403 if exc.code == "serve-origin" else STATUS.get(exc.code or "", 400), exc.message)
        if action is None:
            return _error(404, NOT_FOUND)
        return await run_step(action)

    async def coordinator_page(request: Request) -> Response:
        return _page("coordinator.html") if is_coordinator(request) else _error(404, NOT_FOUND)

    async def coordinator_state(request: Request) -> Response:
        if not is_coordinator(request):
            return _error(404, NOT_FOUND)
        token = request.path_params["token"]
        url = f"/c/{token}/report" if report_state["html"] is not None else None
        view = await run_in_threadpool(coordinator_view, study, url, report_command)
        view["can_report"] = build_report is not None
        return JSONResponse(view)

    async def coordinator_report(request: Request) -> Response:
        if not is_coordinator(request):
            return _error(404, NOT_FOUND)
        if request.method == "GET":
            html = report_state["html"]
            return FileResponse(html, media_type="text/html") if html is not None and html.is_file() else \
                _error(404, "no report yet: build it from the coordinator's page")
        try:
            await body_of(request)
            if build_report is None:
                raise KariError("this server builds no report", code="serve-state")
            report_state["html"] = await run_in_threadpool(build_report)
        except KariError as exc:
            return _error(403 if exc.code == "serve-origin" else STATUS.get(exc.code or "", 500), exc.message)
        return JSONResponse({"url": f"/c/{request.path_params['token']}/report"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        return _page(name) if name in STATIC else _error(404, NOT_FOUND)

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(getattr(exc, "status_code", 404), NOT_FOUND if getattr(exc, "status_code", 404) == 404
                      else "request refused")

    endpoints = {("GET", "/"): home, ("GET", "/favicon.ico"): no_icon, ("GET", "/join"): join,
                 ("GET", "/p/{token}"): participant_page, ("GET", "/api/p/{token}"): participant_state,
                 ("POST", "/api/p/{token}/{step}"): participant_step, ("GET", "/c/{token}"): coordinator_page,
                 ("GET", "/api/c/{token}"): coordinator_state, ("POST", "/api/c/{token}/report"): coordinator_report,
                 ("GET", "/c/{token}/report"): coordinator_report, ("GET", "/static/{name}"): static}
    assert tuple(endpoints) == ROUTES
    routes = [Route(path, endpoint, methods=[method]) for (method, path), endpoint in endpoints.items()]
    app = Starlette(routes=routes, max_body_size=MAX_BODY, exception_handlers={404: not_found, 405: not_found})
    return Guard(app)  # outermost: the framework's own answers (413, 500) carry the headers too


def _step(study: Study, index: int, step: str, data: Mapping[str, Any],
          field: Callable[[Mapping[str, Any], str, type], Any]) -> Callable[[], Participant] | None:
    """The study step a POST names, with its arguments read from the body (None: no such step)."""
    if step == "consent":
        return lambda: study.agree(index)
    if step == "start":
        number = field(data, "game", int)
        return lambda: study.start(index, number)
    if step == "ask":
        number, turn, text = field(data, "game", int), field(data, "turn", int), field(data, "question", str)
        return lambda: study.ask(index, number, turn, text)
    if step == "answer":
        number, turn, value = field(data, "game", int), field(data, "turn", int), field(data, "answer", str)
        return lambda: study.answer(index, number, turn, value)
    if step == "guess":
        number, candidate = field(data, "game", int), field(data, "candidate", str)
        return lambda: study.guess(index, number, candidate)
    if step == "withdraw":
        if data.get("confirm") is not True:
            raise KariError("withdrawing needs {\"confirm\": true}", code="serve-input")
        return lambda: study.withdraw(index)
    return None


__all__ = ["CSP", "MAX_BODY", "MAX_HEAD", "ROUTES", "STATIC", "STEPS", "make_app"]
