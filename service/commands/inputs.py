"""The files a command reads, where `-` names standard input (`... | capsa score -`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

from ..strictjson import MAX_BODY

STDIN = "-"


def shown(path: str) -> str:
    """How a message names the input."""
    return "standard input" if path == STDIN else path


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """The file at `path` opened for reading bytes, or standard input for `-` (left open)."""
    if path == STDIN:
        if sys.stdin is None:  # started with standard input closed (`<&-`)
            raise OSError("standard input is closed")
        yield sys.stdin.buffer
        return
    with open(path, "rb") as f:
        yield f


def read_input(path: str, cap: int | None = None) -> bytes:
    """Everything in the input, or its first `cap + 1` bytes when capped (so a caller can
    tell an input over the cap from one at it). OSError when it cannot be read."""
    with open_input(path) as f:
        return f.read() if cap is None else f.read(cap + 1)


class InputTooLarge(Exception):
    """An input larger than the command reads; the message names it and the limit."""


def read_body(path: str) -> bytes:
    """The input, read as the API reads a request body: at most MAX_BODY bytes, else
    InputTooLarge (nothing past one byte over the limit is read). OSError when it cannot be
    read."""
    data = read_input(path, MAX_BODY)
    if len(data) > MAX_BODY:
        raise InputTooLarge(f"{shown(path)}: larger than {MAX_BODY:,} bytes, the API's limit for a request body")
    return data


def more_than_one_stdin(paths: Iterable[str | None]) -> bool:
    """Whether several inputs are `-`: standard input can be read once."""
    return sum(path == STDIN for path in paths) > 1


LARGEST = 2**63 - 1  # a sequence, a count or a batch the database can hold (bigint)


def _whole(text: str) -> int:
    """The value of ASCII digits, else 0: `int` would also read "٣" (an Arabic-Indic 3)."""
    digits = text.strip()
    return int(digits) if digits.isascii() and digits.isdigit() else 0


def positive(text: str) -> int:
    """A whole number of 1 or more, else argparse's usage error (exit 2) naming the value.
    Its digits are ASCII, as the API's are."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    if value > LARGEST:
        raise argparse.ArgumentTypeError(f"must be a whole number of at most {LARGEST}, not {text!r}")
    return value


def from_one_to(largest: int) -> Callable[[str], int]:
    """A whole number from 1 to `largest` (an option with a range), else argparse's usage
    error (exit 2) naming the value and the range."""

    def whole_number(text: str) -> int:
        value = _whole(text)
        if not 1 <= value <= largest:
            raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {largest}, not {text!r}")
        return value

    return whole_number
