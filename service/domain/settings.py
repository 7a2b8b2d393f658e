"""Numbers read from a process's environment settings, each checked as it is read: one it
cannot run with stops it with `SettingError`, naming the variable and the value sent."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from service.domain.errors import SettingError

# The longest duration a setting may name: ten years. Far beyond any use, and far below
# where adding it to a date leaves the calendar (year 9999): a link's expiry, a retry's due
# time or a lease then overflowed on every request or pass.
MAX_DURATION_S = 10 * 365 * 86_400


def number(
    env: Mapping[str, str], name: str, default: float, *,
    whole: bool = False, least: float | None = None, above: float | None = None, unit: str = "",
    most: float | None = None,
) -> Any:
    """`name` in `env` as a number (an int when `whole`), at least `least` or more than
    `above`, and at most `most`; `default` when it is unset or empty. `unit` names what it
    counts in the refusal (`a number of seconds, more than 0`)."""
    text = str(env.get(name) or "").strip()
    if not text:
        return int(default) if whole else default
    try:
        value: float = int(text) if whole else float(text)
    except ValueError:
        value = math.nan
    if (not math.isfinite(value) or (least is not None and value < least) or (above is not None and value <= above)
            or (most is not None and value > most)):
        kind = ("a whole number" if whole else "a number") + (f" of {unit}" if unit else "")
        bound = f"more than {above:g}" if above is not None else f"{least:g} or more"
        if most is not None:
            bound += f" and at most {most:.15g}"
        raise SettingError(f"{name} must be {kind}, {bound}, not {text!r}")
    return value


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def log_level(env: Mapping[str, str], name: str = "LOG_LEVEL", default: str = "INFO") -> str:
    """`name` in `env` as a logging level, any case (`debug` as gunicorn spells its own);
    `default` when unset or empty."""
    text = str(env.get(name) or "").strip()
    if not text:
        return default
    if text.upper() not in LOG_LEVELS:
        raise SettingError(f"{name} must be one of {', '.join(LOG_LEVELS)} (any case), not {text!r}")
    return text.upper()
