"""Take the one JSON object out of an LLM reply, or fail clearly; never guess.

Tolerated: a Markdown code fence (```json ... ```) and prose before or after the object. Refused (a
:class:`KariError` with code ``llm-json``): no object, several objects, a ``{`` that does not start valid JSON,
or a top-level array instead of an object.

>>> extract_json_object('Sure! ```json\\n{"op": "AND", "args": []}\\n``` Hope this helps.')
{'op': 'AND', 'args': []}
"""

from __future__ import annotations

import json
from typing import Any

from kari.errors import KariError

_DECODER = json.JSONDecoder()


def extract_json_object(text: str, *, source: str | None = None) -> dict[str, Any]:
    """The single JSON object in ``text``; ``source`` names the reply in error messages (e.g. a role or file)."""
    if not isinstance(text, str):
        raise TypeError(f"expected the reply text, got {type(text).__name__}")
    # Fence markers (```json) and prose hold no "{" or "[", so scanning for JSON values skips them as they are.
    body = text
    objects: list[dict[str, Any]] = []
    arrays = 0
    pos = 0
    while True:
        starts = [i for i in (body.find("{", pos), body.find("[", pos)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(body, start)
        except json.JSONDecodeError as exc:
            if body[start] == "[":  # "[1]" style prose or a broken array: skip the bracket, keep looking
                pos = start + 1
                continue
            raise _error(f"invalid JSON in the reply: {exc.msg}", source, exc.lineno, exc.colno, text) from None
        except RecursionError:
            raise _error("the reply's JSON nests too deeply", source, None, None, text) from None
        except ValueError as exc:  # an integer longer than Python converts (sys.get_int_max_str_digits)
            raise _error(f"invalid JSON in the reply: {str(exc).split(';')[0]}", source, None, None, text) from None
        if isinstance(value, dict):
            objects.append(value)
        else:
            arrays += 1
        pos = end
    if len(objects) == 1:
        return objects[0]
    if len(objects) > 1:
        raise _error(f"the reply holds {len(objects)} JSON objects, expected exactly one", source, None, None, text)
    if arrays:
        raise _error("the reply holds a JSON array, expected one JSON object", source, None, None, text)
    raise _error("the reply holds no JSON object", source, None, None, text)


def _error(message: str, source: str | None, line: int | None, col: int | None, text: str) -> KariError:
    snippet = " ".join(text.split())
    snippet = snippet if len(snippet) <= 120 else snippet[:117] + "..."
    if source is None and line is not None:  # no file to anchor a FILE:LINE:COL prefix: say it in words
        message, line, col = f"{message} at line {line} column {col}", None, None
    return KariError(f"{message} (reply: {snippet!r})", file=source, line=line, col=col, code="llm-json")
