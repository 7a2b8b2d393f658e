"""The round view page in a real browser: Debian's chromium, headless, over the DevTools protocol.

A real HTTP server (werkzeug in a thread, SQLite in a temp dir) serves the app; the test
stores a Susun round in IDR, one in USD, a voided round, a fouled hand and two finished Big
Two games, opens their view links at 390 px (a phone) and 1366 px, and checks what a person sees:
no horizontal scrolling, cards in line, money labels over their values, amounts exactly
as Babel formats them for the currency's locale, the void's reversal, the Big Two
history grouped by trick with each combination named, the winner, why a hand fouled; and
the front page and problem pages: their links, no literal backticks, every text's contrast
WCAG AA (4.5:1, 3:1 for large text). Screenshots go to $ROUND_PAGE_SCREENSHOTS (default:
pytest's temporary directory of the run, which keeps the last three).

Skipped where chromium is missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from babel.numbers import format_currency
from conftest import migrated_sqlite

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
EXAMPLE = json.loads((Path(__file__).parents[2] / "service/examples/round-4p-capsa-susun-id.json").read_text())
TWO_PLAYERS = {  # a sweeps b, three of a kind in front: 11 points at 1000 IDR
    "rules": "capsa-susun-id", "table": "table-7", "currency": "IDR", "stake": "1000",
    "players": [
        {"id": "a", "arrangement": {"front": ["2c", "2d", "2h"], "middle": ["3s", "4d", "5c", "6h", "7d"],
                                    "back": ["8h", "Th", "Qh", "Kh", "4h"]}},
        {"id": "b", "arrangement": {"front": ["Ac", "Kd", "9s"], "middle": ["9h", "9d", "Jc", "Qc", "3c"],
                                    "back": ["Ts", "Td", "Js", "Jd", "5s"]}},
    ],
}
WIDTHS = (390, 1366)
FOULED = {  # b's front pair of aces beats its middle's high card: a foul
    "rules": "chinese-poker-2-4", "currency": "USD", "stake": "1", "reference": "fouled-1",
    "players": [
        {"id": "a", "arrangement": {"front": ["2c", "3d", "5h"], "middle": ["3c", "3h", "6d", "8s", "Tc"],
                                    "back": ["5c", "6c", "7h", "8h", "9c"]}},
        {"id": "b", "arrangement": {"front": ["Ac", "Ad", "2h"], "middle": ["Kc", "Qd", "9h", "7s", "4c"],
                                    "back": ["Js", "Jd", "4d", "4s", "2s"]}},
    ],
}
# WCAG 2.x contrast of every text node's colour against the background it is painted on.
CONTRAST = r"""
(() => {
  const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
  const bg = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const e = n.parentElement, st = getComputedStyle(e);
    out.push({text: n.textContent.trim().slice(0, 40), tag: e.tagName, color: rgb(st.color).slice(0, 3), bg: bg(e),
              size: parseFloat(st.fontSize), bold: Number(st.fontWeight) >= 700});
  }
  return {texts: out, backticks: document.body.innerText.includes('`'),
          links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
          scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
          height: document.documentElement.scrollHeight, title: document.title};
})()
"""

# Collects, in the page, everything the assertions need (no script runs in the page
# itself: the CSP forbids it; Runtime.evaluate is the browser's, not the page's).
PROBE = r"""
(() => {
  const el = document.documentElement;
  const box = e => e.getBoundingClientRect();
  const text = e => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;
  const players = [...document.querySelectorAll('article.player')].map(a => ({
    id: a.id.replace(/^player-/, ''),
    rows: [...a.querySelectorAll('.rows > .cards')].map(c => [...c.querySelectorAll('.card')].map(k => {
      const b = box(k); return {title: k.title, left: b.left, top: b.top, right: b.right};
    })),
    labels: [...a.querySelectorAll('.money .m')].map(m => ({
      key: text(m.querySelector('.k')), field: m.querySelector('.v').dataset.field,
      key_right: box(m.querySelector('.k')).right, value_right: box(m.querySelector('.v')).right,
      key_bottom: box(m.querySelector('.k')).bottom, value_top: box(m.querySelector('.v')).top,
    })),
    cards_left: text(a.querySelector('[data-field=cards_left]')),
    text: text(a),
  }));
  return {
    scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, innerWidth: window.innerWidth,
    height: el.scrollHeight,
    scrollers: [...document.querySelectorAll('.scroll')].map(s => [s.scrollWidth, s.clientWidth]),
    stylesheets: document.styleSheets.length,
    cssApplied: getComputedStyle(document.body).margin === '0px',
    money: [...document.querySelectorAll('[data-amount]')].map(e => ({
      amount: e.dataset.amount, field: e.dataset.field || null, text: e.textContent,
      player: (e.closest('article.player') || {id: ''}).id.replace(/^player-/, ''),
    })),
    players,
    matrix: [...document.querySelectorAll('#matrix tbody tr')].map(tr => ({
      player: text(tr.querySelector('th')),
      cells: [...tr.querySelectorAll('td')].map(td => text(td)),
    })),
    reversal: document.querySelector('#reversal') && {
      text: text(document.querySelector('#reversal')),
      at: document.querySelector('#void-at').getAttribute('datetime'),
      reason: text(document.querySelector('#void-reason')),
      lines: [...document.querySelectorAll('#ledger tbody tr')].map(tr =>
        [...tr.querySelectorAll('td')].map((td, i) => i < 2 ? text(td) : td.querySelector('[data-amount]').dataset.amount)),
    },
    history: [...document.querySelectorAll('#history tbody tr.move')].map(tr => ({
      n: text(tr.children[0]), player: text(tr.children[1]),
      cards: [...tr.children[2].querySelectorAll('.card')].map(k => k.title), text: text(tr.children[2]),
      name: text(tr.children[3]), auto: !!tr.querySelector('.auto-move'),
      trick: tr.closest('tbody').dataset.trick,
    })),
    tricks: [...document.querySelectorAll('#history tbody.trick')].map(t => text(t.querySelector('.trick-head'))),
    fouls: Object.fromEntries([...document.querySelectorAll('article.player')].map(a =>
      [a.id.replace(/^player-/, ''), text(a.querySelector('[data-field=foul_reason]'))])),
    winner: text(document.querySelector('#winner h2 strong')),
    status: text(document.querySelector('#status')),
  };
})()
"""


# -- the browser -------------------------------------------------------------------------------


class DevTools:
    """A page of a headless chromium, driven over its DevTools websocket."""

    def __init__(self, websocket_url: str) -> None:
        import websocket

        self._ws = websocket.create_connection(websocket_url, timeout=15, suppress_origin=True)
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self.events.append(message)

    def wait_for(self, event: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(event)
            self.events.append(json.loads(self._ws.recv()))

    def open(self, url: str, width: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def blocked(self) -> list[str]:
        """What the page's Content-Security-Policy refused since the last navigation."""
        texts = [e["params"]["entry"].get("text", "") for e in self.events if e.get("method") == "Log.entryAdded"]
        return [t for t in texts if "Content Security Policy" in t]

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def screenshot(self, path: Path, width: int, height: int) -> None:
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        self._ws.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[DevTools]:
    if not (os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        if os.environ.get("CI") == "true":
            pytest.fail(f"chromium is required under CI=true and {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("websocket", reason="pip install websocket-client (the test extra)")
    profile = tempfile.mkdtemp(prefix="capsa-chromium-")
    process = subprocess.Popen(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", f"--user-data-dir={profile}", "--remote-debugging-port=0",
            "--window-size=390,2000", "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # its own temporary files (a singleton socket's directory, left in /tmp after every
        # run) in the profile, which goes at the end
        env={**os.environ, "TMPDIR": profile},
        # its own process group: its helpers (zygote, renderer, GPU) are stopped with it, so
        # none writes into the profile after it is removed
        start_new_session=True,
    )
    page = None
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 15
        while not (port_file.exists() and port_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chromium did not start its DevTools endpoint (exit {process.poll()})")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            targets = json.load(answer)
        target = next(t for t in targets if t["type"] == "page")
        page = DevTools(target["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Log.enable")
        yield page
    finally:
        if page is not None:
            page.close()
        _stop_group(process)
        shutil.rmtree(profile, ignore_errors=True)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop chromium and every process of its group, and wait until none is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)  # a member left (a helper still exiting)
            except ProcessLookupError:
                return
            time.sleep(0.05)


# -- the server and its rounds -------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from banting_scripts import BOMB_SCRIPT, FOUR, THREE, THREE_SCRIPT
    from conftest import make_app, make_tenant
    from werkzeug.serving import WSGIRequestHandler, make_server

    url = migrated_sqlite(tmp_path_factory.mktemp("browser") / "capsa.db")
    app = make_app(url)
    http = app.test_client()
    tenant = make_tenant(app)

    def stored(body: dict[str, Any]) -> dict[str, Any]:
        answer = http.post("/v1/rounds", json=body, headers=tenant.headers)
        assert answer.status_code == 201, answer.get_data(as_text=True)
        return dict(answer.get_json())

    def big_two(hands: dict[str, str], script: list[str], **extra: Any) -> dict[str, Any]:
        body = {"currency": "IDR", "stake": "1000", "table": "table-3",
                "players": [{"id": p, "hand": h.split()} for p, h in hands.items()], **extra}
        game = http.post("/v1/banting/games", json=body, headers=tenant.headers).get_json()
        for line in script:
            player, _, what = (part.strip() for part in line.partition(":"))
            move = {"player": player, "pass": True} if what == "pass" else {"player": player, "play": what.split()}
            answer = http.post(f"/v1/banting/games/{game['id']}/moves", json=move, headers=tenant.headers)
            assert answer.status_code == 200, answer.get_data(as_text=True)
        round_id = answer.get_json()["round"]
        return dict(http.get(f"/v1/rounds/{round_id}", headers=tenant.headers).get_json())

    def served(clock: Any) -> dict[str, Any]:
        """A server-run game: a submits its suggested rows, the others are auto-arranged."""
        game = http.post("/v1/susun/games", json={"players": ["a", "b", "c", "d"], "currency": "IDR",
                                                   "stake": "1000", "table": "table-9", "arrange_seconds": 30},
                         headers=tenant.headers).get_json()
        hand = http.get(f"/v1/susun/games/{game['id']}/hands/a", headers=tenant.headers).get_json()["hand"]
        rows = http.post("/v1/arrangements/suggest", json={"hand": hand, "limit": 1},
                         headers=tenant.headers).get_json()["suggestions"][0]["arrangement"]
        answer = http.put(f"/v1/susun/games/{game['id']}/arrangements/a", json={"arrangement": rows},
                          headers=tenant.headers)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        clock.advance(seconds=30)
        round_id = http.get(f"/v1/susun/games/{game['id']}", headers=tenant.headers).get_json()["round"]
        return dict(http.get(f"/v1/rounds/{round_id}", headers=tenant.headers).get_json())

    from datetime import UTC, datetime

    from service.services.clock import FixedClock, use_clock

    game_clock = FixedClock(datetime.now(UTC))
    previous_clock = use_clock(game_clock)
    try:
        auto = served(game_clock)
    finally:
        use_clock(previous_clock)
    docs = {
        "auto": auto,
        "susun": stored(EXAMPLE),
        "usd": stored({**EXAMPLE, "reference": "example-usd", "currency": "USD", "stake": "2.50", "table": "high-roller-table-12"}),
        "voided": stored(TWO_PLAYERS),
        "fouled": stored(FOULED),
        "bigtwo": big_two(THREE, THREE_SCRIPT),
        "bomb": big_two(FOUR, BOMB_SCRIPT, currency="USD", stake="12.50"),
    }
    answer = http.post(f"/v1/rounds/{docs['voided']['id']}/void", json={"reason": "misdeal at table 7"},
                       headers=tenant.headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    docs["voided"] = answer.get_json()

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: Any) -> None:
            pass

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    links = {}
    for name, doc in docs.items():
        answer = http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.read_headers)
        links[name] = base + answer.get_json()["url"]
    # pytest's own temporary directory by default: kept for the last three runs, then removed
    # (a directory of /tmp of its own stayed behind after every run, 3 MB each)
    shots = Path(os.environ.get("ROUND_PAGE_SCREENSHOTS") or tmp_path_factory.mktemp("round-page"))
    shots.mkdir(parents=True, exist_ok=True)
    try:
        yield {"docs": docs, "links": links, "shots": shots, "base": base}
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
        app.extensions["capsa"].db.dispose()


def visit(
    browser: DevTools, site: dict[str, Any], name: str, url: str | None = None, probe: str = PROBE
) -> dict[int, dict[str, Any]]:
    """The page at each width (a round's view link, or `url`): the probe's findings; a
    screenshot of the whole page each, named `name-width.png`."""
    seen = {}
    for width in WIDTHS:
        browser.open(url or site["links"][name], width)
        found = browser.evaluate(probe)
        assert browser.blocked() == [], f"{name} needs what its policy refuses at {width} px"
        path = site["shots"] / f"{name}-{width}.png"
        browser.screenshot(path, width, found["height"])
        print(f"screenshot: {path}")
        seen[width] = found
    return seen


def babel(amount: str, currency: str, locale: str) -> str:
    return str(format_currency(Decimal(amount), currency, locale=locale))


# -- what a person sees -------------------------------------------------------------------------


def assert_laid_out(found: dict[str, Any], width: int) -> None:
    assert found["cssApplied"] and found["stylesheets"] == 1, "the stylesheet did not load"
    assert found["scrollWidth"] <= found["clientWidth"] <= width, (width, found["scrollWidth"])
    for scroll_width, client_width in found["scrollers"]:
        assert scroll_width <= client_width, f"a table scrolls sideways at {width} px"
    for player in found["players"]:
        lefts = [row[0]["left"] for row in player["rows"]]
        assert len(set(lefts)) <= 1, f"{player['id']}'s rows start at {lefts} at {width} px"
        for row in player["rows"]:
            assert len({card["top"] for card in row}) == 1, f"{player['id']}'s row wraps at {width} px"
            assert row[-1]["right"] <= width
        assert [label["key"] for label in player["labels"]] == ["result", "winnings", "fee", "net"]
        for label in player["labels"]:
            assert abs(label["key_right"] - label["value_right"]) <= 1, (player["id"], label)
            assert label["key_bottom"] <= label["value_top"] + 1, (player["id"], label)
            assert label["key"] == label["field"]


def assert_money(found: dict[str, Any], doc: dict[str, Any], locale: str) -> None:
    currency = doc["currency"]
    assert found["money"], "no amounts on the page"
    for item in found["money"]:
        if item["amount"]:
            assert item["text"] == babel(item["amount"], currency, locale), item
    shown = {(m["player"], m["field"]): m["text"] for m in found["money"] if m["player"] and m["field"]}
    for player in doc["players"]:
        for field in ("result", "winnings", "fee", "net"):
            assert shown[(player["id"], field)] == babel(player[field], currency, locale)
    house = [m["text"] for m in found["money"] if m["field"] == "house_fee"]
    assert house == [babel(doc["house_fee"], currency, locale)]


@pytest.mark.parametrize(
    ("name", "locale", "examples"),
    [
        ("susun", "id_ID", {"a": "Rp47.530", "b": "-Rp1.360"}),
        ("usd", "en_US", {"a": "$118.82", "b": "-$3.40"}),
    ],
)
def test_susun_rounds_fit_a_phone_and_show_money_as_the_currency_is_written(browser, site, name, locale, examples):
    doc = site["docs"][name]
    for width, found in visit(browser, site, name).items():
        assert_laid_out(found, width)
        assert_money(found, doc, locale)
        assert {p["id"]: len(p["rows"]) for p in found["players"]} == {p["id"]: 3 for p in doc["players"]}
        for player in found["players"]:
            titles = [card["title"] for row in player["rows"] for card in row]
            source = next(p for p in doc["players"] if p["id"] == player["id"])
            assert titles == [c for row in ("front", "middle", "back") for c in source["rows"][row]["cards"]]
        nets = {m["player"]: m["text"] for m in found["money"] if m["field"] == "net"}
        for player, text in examples.items():
            assert nets[player] == text
        assert found["status"] == "settled" and found["reversal"] is None


def test_a_voided_round_shows_its_reversal(browser, site):
    doc = site["docs"]["voided"]
    assert doc["status"] == "void"
    for width, found in visit(browser, site, "voided").items():
        assert_laid_out(found, width)
        assert_money(found, doc, "id_ID")
        reversal = found["reversal"]
        assert reversal is not None and found["status"] == "void"
        assert reversal["at"] == doc["void"]["at"] and reversal["reason"] == "misdeal at table 7"
        assert "Every ledger line of this round was reversed" in reversal["text"]
        assert doc["void"]["at"][:10] in reversal["text"]
        # a settlement line per player, a fee line for the one who paid a fee, the house's fee
        assert [line[:2] for line in reversal["lines"]] == [
            ["a", "settlement"], ["a", "fee"], ["b", "settlement"], ["house", "fee"],
        ]
        for _, _, booked, reversed_ in reversal["lines"]:
            assert Decimal(reversed_) == -Decimal(booked) != 0
        assert sum(Decimal(line[2]) for line in reversal["lines"]) == 0
        for player in found["players"]:
            assert "reversed by the void" in player["text"]


# (trick, combination) per move of tests/banting_scripts.py's THREE_SCRIPT and BOMB_SCRIPT.
TRICKS = {
    "bigtwo": [("1", "straight"), ("1", "straight"), ("1", ""), ("1", "full house"), ("1", ""),
               ("2", "pair"), ("2", "pair"), ("2", ""), ("2", ""),
               ("3", "single"), ("3", "single"), ("3", "single")],
    "bomb": [("1", "single"), ("1", ""), ("1", "single"), ("1", "single"), ("1", "bomb (four of a kind)")],
}
TRICK_HEADS = {
    "bigtwo": ["trick 1: b leads, b takes it", "trick 2: b leads, c takes it", "trick 3: c leads, b takes it"],
    "bomb": ["trick 1: a leads, a takes it"],
}


@pytest.mark.parametrize("name", ["bigtwo", "bomb"])
def test_a_big_two_round_shows_its_history_and_winner_and_no_loser_reads_win(browser, site, name):
    doc = site["docs"][name]
    winner = doc["pairs"][0]["players"][0]
    losers = {p["id"] for p in doc["players"]} - {winner}
    locale = {"IDR": "id_ID", "USD": "en_US"}[doc["currency"]]
    for width, found in visit(browser, site, name).items():
        assert_laid_out(found, width)
        assert_money(found, doc, locale)
        assert found["winner"] == winner
        assert [(h["n"], h["player"], h["cards"] or "pass") for h in found["history"]] == [
            (str(m["n"]), m["player"], "pass" if m["pass"] else m["play"]) for m in doc["history"]
        ]
        assert all(h["text"] == "pass" for h in found["history"] if not h["cards"])
        assert [(h["trick"], h["name"]) for h in found["history"]] == TRICKS[name]
        assert found["tricks"] == TRICK_HEADS[name]
        for row in found["matrix"]:
            if row["player"] in losers:
                assert not any("win" in (cell or "").lower() for cell in row["cells"]), row
        for player in found["players"]:
            source = next(p for p in doc["players"] if p["id"] == player["id"])
            assert player["cards_left"] == str(source["cards_left"])
            if player["id"] in losers:
                assert not re.search(r"\bwin(s|ner)?\b", player["text"].lower()), player["text"]
            else:
                assert "winner" in player["text"]


def test_auto_arranged_hands_are_tagged_and_the_page_still_fits_a_phone(browser, site):
    doc = site["docs"]["auto"]
    assert [p["auto_arranged"] for p in doc["players"]] == [False, True, True, True]
    for width, found in visit(browser, site, "auto").items():
        assert_laid_out(found, width)
        assert_money(found, doc, "id_ID")
        browser.open(site["links"]["auto"], width)  # visit() leaves the page at its last width
        tags = browser.evaluate(
            "Object.fromEntries([...document.querySelectorAll('article.player')].map(a => [a.id,"
            " [...a.querySelectorAll('.tag.auto')].map(t => [t.textContent, getComputedStyle(t).display,"
            " t.getBoundingClientRect().right])]))"
        )
        assert {k.removeprefix("player-"): [t[0] for t in v] for k, v in tags.items()} == {
            "a": [], "b": ["auto-arranged"], "c": ["auto-arranged"], "d": ["auto-arranged"]}
        assert all(t[1] != "none" and t[2] <= width for v in tags.values() for t in v), tags


def test_an_expired_or_forged_link_is_a_styled_404_page(browser, site):
    browser.open(site["links"]["susun"] + "x", 390)
    found = browser.evaluate(
        "({title: document.title, css: getComputedStyle(document.body).display,"
        " w: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth})"
    )
    assert found["title"] == "Round not found" and found["css"] == "flex" and found["w"] <= found["cw"]


def test_the_api_docs_render_every_operation_under_a_nonce_policy_with_nothing_blocked(browser, site):
    import yaml

    spec = yaml.safe_load((Path(__file__).parents[2] / "openapi.yaml").read_text())
    operations = sorted(
        (method.upper(), path) for path, item in spec["paths"].items() for method in item
        if method in ("get", "put", "post", "patch", "delete")
    )
    with urllib.request.urlopen(site["base"] + "/docs", timeout=10) as answer:
        policy, html = answer.headers["Content-Security-Policy"], answer.read().decode()
    nonce = re.search(r"<script nonce=\"([^\"]+)\">", html)
    assert nonce is not None and f"'nonce-{nonce.group(1)}'" in policy
    assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    browser.open(site["base"] + "/docs", 1366)
    listed: list[list[str]] = []
    deadline = time.monotonic() + 20
    while len(listed) < len(operations) and time.monotonic() < deadline:
        time.sleep(0.2)  # the UI fetches /openapi.json, then renders
        listed = browser.evaluate(
            "[...document.querySelectorAll('.opblock-summary')].map(s => ["
            " s.querySelector('.opblock-summary-method').textContent,"
            " s.querySelector('.opblock-summary-path').dataset.path])"
        )
    assert sorted(map(tuple, listed)) == operations
    assert browser.blocked() == [], "the docs page needs what its policy refuses"
    browser.screenshot(site["shots"] / "docs-1366.png", 1366, 900)


def test_a_fouled_hand_says_which_row_beats_which(browser, site):
    doc = site["docs"]["fouled"]
    assert [p["foul"] for p in doc["players"]] == [False, True]
    for width, found in visit(browser, site, "fouled").items():
        assert_laid_out(found, width)
        assert found["fouls"] == {
            "a": None,
            "b": "Foul: the front (pair) beats the middle (high card); the middle must be at least as "
                 "strong as the front.",
        }


def luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def assert_readable(found: dict[str, Any], width: int) -> None:
    assert found["texts"], "no text on the page"
    assert found["backticks"] is False, "a literal backtick is shown"
    assert found["scrollWidth"] <= found["clientWidth"] <= width
    for item in found["texts"]:
        large = item["size"] >= 24 or (item["bold"] and item["size"] >= 18.66)
        need = 3.0 if large else 4.5
        ratio = contrast(item["color"], item["bg"])
        assert ratio >= need, f"{item['text']!r} ({item['tag']}) {ratio:.2f}:1 < {need}:1 at {width} px"


@pytest.mark.parametrize(
    ("path", "name"),
    [("/problems", "problems"), ("/problems/invalid-cards", "problem"), ("/problems/nope", "problem-404")],
)
def test_the_problem_pages_are_readable_with_no_backticks(browser, site, path, name):
    from service.api.schemas.problems import PROBLEM_TYPES

    for width, found in visit(browser, site, name, site["base"] + path, CONTRAST).items():
        assert_readable(found, width)
        expected = ["/problems/" + t for t in PROBLEM_TYPES] if path == "/problems" else ["/problems"]
        assert found["links"] == expected


def test_the_front_page_links_the_docs_the_contract_and_the_problems(browser, site):
    from service.domain.version import ENGINE_VERSION

    for width, found in visit(browser, site, "home", site["base"] + "/", CONTRAST).items():
        assert_readable(found, width)
        assert found["title"] == "Capsa scoring service"
        assert found["links"] == ["/docs", "/openapi.yaml", "/problems"]
        assert any(t["text"] == ENGINE_VERSION for t in found["texts"])
    request = urllib.request.Request(site["base"] + "/", headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.headers["Content-Type"] == "application/json"
        index = json.load(answer)
    assert index["engine_version"] == ENGINE_VERSION and index["name"] == "Capsa scoring service"
    assert index["links"] == {"docs": "/docs", "openapi_yaml": "/openapi.yaml", "problems": "/problems"}
    with urllib.request.urlopen(site["base"] + "/docs/", timeout=10) as answer:  # follows the redirect
        assert answer.geturl() == site["base"] + "/docs" and answer.status == 200
