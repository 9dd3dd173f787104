"""The study's secret links: one token per participant (their link ``/p/TOKEN``) and one for the coordinator
(``/c/TOKEN``), kept in ``serve/links.json`` inside the study's private folder (mode 0700), made once when the
study starts and read back on every restart, so the links handed out stay valid.

A token is 128 random bits (:func:`secrets.token_urlsafe`); a participant is known to the records only by an
anonymous id (``P01``, ...), never by the token.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_json
from kari.io.text import load_json, read_text

LINKS_FILE = "links.json"
TOKEN_BYTES = 16


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def participant_id(index: int, count: int) -> str:
    """The anonymous id of participant ``index`` of ``count``: ``P01`` ... (as wide as the largest)."""
    return f"P{index + 1:0{len(str(count))}d}"


@dataclass(frozen=True)
class Links:
    """The coordinator's token and each participant's, by participant index."""

    coordinator: str
    participants: tuple[str, ...]

    @cached_property
    def index_of(self) -> Mapping[str, int]:
        return {token: index for index, token in enumerate(self.participants)}

    def participant(self, token: str) -> int | None:
        """The index of the participant whose token this is (None: nobody's)."""
        return self.index_of.get(token)

    def is_coordinator(self, token: str) -> bool:
        return secrets.compare_digest(token.encode(), self.coordinator.encode())

    def to_json(self) -> dict[str, Any]:
        return {"coordinator": self.coordinator, "participants": list(self.participants)}


def open_links(folder: Path, count: int) -> Links:
    """The study's links in ``folder`` (made there on the first start); a file made for another number of
    participants is a ``run-config`` error."""
    path = folder / LINKS_FILE
    if path.exists():
        data = load_json(read_text(path, "study links"), file=str(path), code="run-config")
        ok = isinstance(data, dict) and isinstance(data.get("coordinator"), str) \
            and isinstance(data.get("participants"), list) and all(isinstance(t, str) for t in data["participants"])
        if not ok:
            raise KariError("broken links file: expected {coordinator, participants}", file=str(path),
                            code="run-config")
        links = Links(data["coordinator"], tuple(data["participants"]))
        if len(links.participants) != count or len(set(links.participants)) != count:
            raise KariError(f"the links file holds {len(links.participants)} participants, the study {count}",
                            file=str(path), code="run-config")
        return links
    links = Links(new_token(), tuple(new_token() for _ in range(count)))
    atomic_write_json(path, links.to_json())
    return links


__all__ = ["LINKS_FILE", "Links", "open_links", "participant_id"]
