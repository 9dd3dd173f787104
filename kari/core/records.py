"""Typed records that read and write one JSON object each, key for key (the records of run directories).

A record's class names its fields; :class:`Layout` remembers how the object it was read from was laid out (the
keys in their order, and any key the class does not know), so that a record read from a file written by an
older or a newer kari writes back exactly the same object. A record made in memory has no layout and writes its
keys in the class's order, leaving out the optional ones it does not have.

>>> layout = Layout.of({"b": 1, "a": 2, "z": 3}, known=("a", "b"))
>>> emit({"a": 2, "b": 1}, layout)
{'b': 1, 'a': 2, 'z': 3}
>>> emit({"a": 2, "b": None}, None, omit=("b",))
{'a': 2}
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Self


@dataclass(frozen=True)
class Layout:
    """The keys of a JSON object in their order, and the values of those its record does not know."""

    keys: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any], known: Collection[str]) -> Layout:
        return cls(tuple(data), {key: value for key, value in data.items() if key not in known})


def emit(values: Mapping[str, Any], layout: Layout | None, omit: Collection[str] = ()) -> dict[str, Any]:
    """The JSON object of a record: ``values`` (every field, in the class's order) laid out as read, or, without
    a layout, in order with the keys in ``omit`` (optional ones the record does not have) left out."""
    if layout is None:
        return {key: value for key, value in values.items() if key not in omit}
    return {key: values[key] if key in values else layout.extra[key] for key in layout.keys}


class JsonView(Mapping[str, Any]):
    """Read access to a record as its JSON object (``record["success"]``), for code written against the files;
    kari's own modules read the typed fields. Two records, or a record and a mapping, are equal when their JSON
    objects are (the record classes are dataclasses with ``eq=False``)."""

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonView):
            return type(self) is type(other) and self.to_json() == other.to_json()
        if isinstance(other, Mapping):
            return self.to_json() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # records compare by value and are mutable mappings' peers: unhashable


class JsonRecord(JsonView):
    """A record whose fields are named :attr:`KEYS`, in its JSON object's order; the keys in :attr:`OPTIONAL`
    are left out when None; ``layout`` (a field of every subclass) is how the object read was laid out.
    Subclasses with nested records convert them in :meth:`from_json` and :meth:`json_values`."""

    KEYS: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[tuple[str, ...]] = ()
    layout: Layout | None

    if TYPE_CHECKING:  # each subclass is a dataclass whose __init__ takes its fields
        def __init__(self, **fields: Any) -> None: ...

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        return cls(**{key: data.get(key) for key in cls.KEYS}, layout=Layout.of(data, cls.KEYS))

    def json_values(self) -> dict[str, Any]:
        """Every field's JSON value, in order."""
        return {key: getattr(self, key) for key in self.KEYS}

    def to_json(self) -> dict[str, Any]:
        return emit(self.json_values(), self.layout, omit=[k for k in self.OPTIONAL if getattr(self, k) is None])

    def json_view(self) -> Mapping[str, Any]:
        """The JSON object that read access (``record[key]``) looks into, built on first use and kept: records
        are frozen, and a report reads a few keys of thousands of records many times over. Not to be changed by
        callers; :meth:`to_json` builds a new object each time."""
        view = self.__dict__.get("_json_view")
        if view is None:
            view = self.to_json()
            object.__setattr__(self, "_json_view", view)
        return view

    def __getitem__(self, key: str) -> Any:
        return self.json_view()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.json_view())

    def __len__(self) -> int:
        return len(self.json_view())
