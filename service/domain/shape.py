"""The shape of a JSON body: types, required and unknown keys, lengths, with every problem's path.

The domain validates a request in one pass: `check` walks the body against a declared
shape and reports every problem at its path (`players[1].arrangement.front[2]`), before
the game's own rules read the values. The HTTP schemas only describe the same shapes for
OpenAPI; they do not validate these bodies again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import FieldError


class Shape:
    """A node of a shape; `nullable` allows JSON null."""

    nullable: bool = False

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Shape):
    """A JSON string, `min_len` to `max_len` characters, optionally matching `pattern` whole."""

    min_len: int = 0
    max_len: int | None = None
    pattern: str | None = None
    nullable: bool = False
    message: str = "must be a string"
    pattern_message: str = ""

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        if not isinstance(value, str):
            out.append(FieldError(path, self.message.format(value=value)))
            return
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            out.append(FieldError(path, self.pattern_message.format(value=value)))
        elif len(value) < self.min_len or (self.max_len is not None and len(value) > self.max_len):
            upper = "" if self.max_len is None else f" to {self.max_len}"
            out.append(FieldError(path, f"must be {self.min_len}{upper} characters"))


@dataclass(frozen=True)
class Boolean(Shape):
    nullable: bool = False

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        if not isinstance(value, bool):
            out.append(FieldError(path, "must be true or false"))


@dataclass(frozen=True)
class Items(Shape):
    """A JSON array of `of`, with `min_items` to `max_items` items."""

    of: Shape
    min_items: int = 0
    max_items: int | None = None
    nullable: bool = False
    count_message: str = ""  # says what a wrong count means, with {n}
    known: frozenset[str] = frozenset()  # items known to fit (card notations): a set check in C

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        if not isinstance(value, list):
            out.append(FieldError(path, "must be a list"))
            return
        n = len(value)
        if n < self.min_items or (self.max_items is not None and n > self.max_items):
            if self.count_message:
                out.append(FieldError(path, self.count_message.format(n=n)))
            elif self.max_items == self.min_items:
                out.append(FieldError(path, f"must have {self.min_items} items, not {n}"))
            elif self.max_items is None:
                out.append(FieldError(path, f"must have at least {self.min_items} items, not {n}"))
            else:
                out.append(FieldError(path, f"must have {self.min_items} to {self.max_items} items, not {n}"))
            if self.max_items is not None and n > self.max_items:
                return  # do not walk an oversized list
        of = self.of
        if self.known:
            try:
                if self.known.issuperset(value):
                    return
            except TypeError:  # an unhashable item: the walk below names it
                pass
        if isinstance(of, Text) and of.pattern is None and not of.nullable:
            # Lists of cards, the common case: one pass in C when every item fits.
            low, high = of.min_len, of.max_len if of.max_len is not None else 2**63
            if all(type(item) is str and low <= len(item) <= high for item in value):
                return
        for i, item in enumerate(value):
            check_value(item, of, f"{path}[{i}]", out)


@dataclass(frozen=True)
class Fields(Shape):
    """A JSON object with exactly these keys (those in `required` must be present)."""

    keys: Mapping[str, Shape]
    required: frozenset[str] = field(default_factory=frozenset)
    nullable: bool = False

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        if not isinstance(value, Mapping):
            out.append(FieldError(path, "must be an object"))
            return
        prefix = f"{path}." if path else ""
        for key in sorted(set(value) - set(self.keys), key=str):
            out.append(FieldError(f"{prefix}{key}", f"unknown field {key!r}"))
        for key, shape in self.keys.items():
            if key in value:
                check_value(value[key], shape, f"{prefix}{key}", out)
            elif key in self.required:
                out.append(FieldError(f"{prefix}{key}", "required"))


@dataclass(frozen=True)
class AnyObject(Shape):
    """A JSON object whose content another check reads (a rule set's parameters)."""

    nullable: bool = False

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        if not isinstance(value, Mapping):
            out.append(FieldError(path, "must be an object"))


@dataclass(frozen=True)
class Either(Shape):
    """Any of `options` (the first one's problems are reported when none fits)."""

    options: Sequence[Shape]
    message: str
    nullable: bool = False

    def problems(self, value: Any, path: str, out: list[FieldError]) -> None:
        for option in self.options:
            found: list[FieldError] = []
            option.problems(value, path, found)
            if not found:
                return
        out.append(FieldError(path, self.message))


def check_value(value: Any, shape: Shape, path: str, out: list[FieldError]) -> None:
    if value is None:
        if not shape.nullable:
            out.append(FieldError(path, "must not be null"))
        return
    shape.problems(value, path, out)


def check(body: Any, shape: Shape) -> list[FieldError]:
    """Every problem of `body` against `shape`, at its path; empty when it fits."""
    out: list[FieldError] = []
    if not isinstance(body, Mapping) and isinstance(shape, Fields):
        return [FieldError("body", "the body must be a JSON object")]
    check_value(body, shape, "", out)
    return out
