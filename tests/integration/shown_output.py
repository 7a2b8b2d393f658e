"""What a document shows a command printing, and the check of it against what it printed.

The syntax, which tests/integration/test_docs_examples.py checks in README.md and docs/*.md:

- In an `sh` block, `#` comment lines directly after a command line (no blank line between)
  show what the command (with the lines since the previous shown output) printed. A comment
  that introduces the next command is written after a blank line, or before any command.
- A `text` block whose first line is `$ COMMAND` shows COMMAND's whole output (stdout and
  stderr; it may exit non-zero: the text is the check).
- An HTTP status is shown only where the command prints it: a last shown line that is a
  status alone (`201`) is the last line printed (as `curl -w '\n%{http_code}\n'` ends its
  output), and the lines above it are checked against what came before it. A status in
  front of JSON (`201 {...}`) is checked as text: curl prints no such line, so it fails.
- JSON (the last JSON value the command printed is compared): every key shown must be
  present with an equal value; an object or array with a bare `...` among its members may
  hold more (an array's shown members must then appear in order), one without it must hold
  exactly those. An object or array left open at the end of the shown lines is read as if
  it ended in `...`.
- In a string (a JSON string, or a line of text) `...` matches any text: `"rnd_..."`, a
  time `"..."`, as does a placeholder in angle brackets (`"<the game's start + 30 s>"`,
  `<id>`); a text line that is only `...` matches any number of lines.
- Text (not JSON): the shown lines must equal the last lines printed (trailing spaces aside).
"""

from __future__ import annotations

import json
import re
from typing import Any

MORE = "\u2026more\u2026"  # stands for a bare `...` member once the shown JSON is parsed
STATUS = re.compile(r"^(\d{3})\s+(?=[\[{])")  # a status in front of JSON
STATUS_LINE = re.compile(r"[1-5]\d\d")  # a status alone on the last shown line
PLACEHOLDER = re.compile(r"\.\.\.|<[^<>\n]+>")  # any text, in a string or a line of text


def parse_json(shown: str) -> Any:
    """The shown JSON with each bare `...` member as MORE (an object's as a key `MORE`), and
    what the shown lines leave open closed as if it ended in `...`; ValueError if not JSON."""
    out: list[str] = []
    stack: list[str] = []
    in_string = escaped = False
    text, i = shown.strip(), 0
    while i < len(text):
        ch = text[i]
        if in_string:
            escaped = ch == "\\" and not escaped
            in_string = not (ch == '"' and not escaped)
        elif text.startswith("...", i):
            out.append(f'"{MORE}": null' if stack[-1:] == ["}"] else f'"{MORE}"')
            i += 3
            continue
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
        out.append(ch)
        i += 1
    closed = "".join(out)
    if stack:
        closed = closed.rstrip().rstrip(",")
        while stack:
            more = f'"{MORE}": null' if stack[-1] == "}" else f'"{MORE}"'
            closed += ("" if closed.endswith(("[", "{")) else ", ") + more + stack.pop()
    return json.loads(closed)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text.replace(f'"{MORE}": null', "...").replace(f'"{MORE}"', "...")[:80]


def _string_matches(shown: str, printed: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in PLACEHOLDER.split(shown))
    return re.fullmatch(pattern, printed, re.S) is not None


def json_mismatch(shown: Any, printed: Any, where: str = "$") -> str | None:
    """Why `printed` is not what `shown` shows, or None when it is."""
    if isinstance(shown, dict):
        if not isinstance(printed, dict):
            return f"{where}: shown an object, printed {json.dumps(printed)[:80]}"
        keys = [k for k in shown if k != MORE]
        for key in keys:
            if key not in printed:
                return f"{where}: no key {key!r} (printed keys {sorted(printed)})"
            why = json_mismatch(shown[key], printed[key], f"{where}.{key}")
            if why:
                return why
        if MORE not in shown and set(printed) != set(keys):
            return f"{where}: printed more keys than shown, with no `...`: {sorted(set(printed) - set(keys))}"
        return None
    if isinstance(shown, list):
        if not isinstance(printed, list):
            return f"{where}: shown an array, printed {json.dumps(printed)[:80]}"
        members = [m for m in shown if m != MORE]
        if MORE not in shown:
            if len(members) != len(printed):
                return f"{where}: shown {len(members)} members, printed {len(printed)}"
            for i, (s, p) in enumerate(zip(members, printed)):
                why = json_mismatch(s, p, f"{where}[{i}]")
                if why:
                    return why
            return None
        at = 0
        for s in members:  # in order, others between them allowed
            while at < len(printed) and json_mismatch(s, printed[at]):
                at += 1
            if at == len(printed):
                return f"{where}: no member matching {_show(s)} (in order)"
            at += 1
        return None
    if isinstance(shown, str) and isinstance(printed, str):
        return None if _string_matches(shown, printed) else f"{where}: shown {shown!r}, printed {printed!r}"
    if type(shown) is not type(printed) or shown != printed:
        return f"{where}: shown {json.dumps(shown)}, printed {json.dumps(printed)}"
    return None


def _json_values(printed: str) -> list[Any]:
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(printed):
        start = min((i for i in (printed.find("{", at), printed.find("[", at)) if i >= 0), default=-1)
        if start < 0:
            break
        try:
            value, end = decoder.raw_decode(printed, start)
        except ValueError:
            at = start + 1
            continue
        values.append(value)
        at = end
    return values


def _lines_match(shown: list[str], printed: list[str]) -> bool:
    if not shown:
        return not printed
    if shown[0].strip() == "...":
        return any(_lines_match(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and _string_matches(shown[0].rstrip(), printed[0].rstrip()) and _lines_match(shown[1:], printed[1:])


def mismatch(shown: str, printed: str, whole: bool = False) -> str | None:
    """Why `printed` is not what the document shows (`shown`, comment marks removed), or None.
    `whole`: the shown lines are the whole output (a `text` block), not its last lines."""
    shown_lines = shown.strip("\n").splitlines()
    if len(shown_lines) > 1 and STATUS_LINE.fullmatch(shown_lines[-1].strip()):
        printed_lines = printed.rstrip("\n").splitlines()
        last = printed_lines[-1].strip() if printed_lines else ""
        if last != shown_lines[-1].strip():
            return f"shown the HTTP status {shown_lines[-1].strip()} as the last line, printed {last!r}"
        return mismatch("\n".join(shown_lines[:-1]), "\n".join(printed_lines[:-1]) + "\n", whole)
    status = STATUS.match(shown.strip())
    if status and not any(line.startswith(status.group(1) + " ") for line in printed.splitlines()):
        return (
            f"shown a leading HTTP status {status.group(1)} that the command does not print "
            f"(curl prints one only with -w '%{{http_code}}'): {printed[-200:]!r}"
        )
    body = shown.strip()
    if body[:1] in "[{":
        try:
            expected = parse_json(body)
        except ValueError:
            expected = None
        if expected is not None:
            values = _json_values(printed)
            if not values:
                return f"shown JSON, printed no JSON: {printed[-300:]!r}"
            return json_mismatch(expected, values[-1])
    want = [line for line in shown.strip("\n").splitlines()]
    got = [line for line in printed.rstrip("\n").splitlines() if line.strip() or whole]
    if not whole:
        tail = len(want) if not any(w.strip() == "..." for w in want) else len(got)
        got = got[-tail:] if tail else []
        if any(w.strip() == "..." for w in want):
            return None if any(_lines_match(want, got[i:]) for i in range(len(got) + 1)) else (
                f"shown {want!r}, printed {got[-len(want):]!r}"
            )
    return None if _lines_match(want, got) else f"shown {want!r}, printed {got if whole else got[-len(want):]!r}"
