"""Heavy reads (verify, the audit export, ledger CSV) in flight per client, on one server: a
client holding its slots is answered 429 for another, other clients are not, and a slot is
let go when its answer has been sent, when the read fails, and when its process dies."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app, make_tenant, serving
from httpkit import four_player_round

from service.adapters.errors import DatabaseUnavailable
from service.api import heavy_reads
from service.api.heavy_reads import HeavyReads
from service.services.audit import receipts

HEAVY = [
    ("/v1/audit/verify", {}),
    ("/v1/audit/export", {}),
    ("/v1/ledger/entries?currency=IDR", {"Accept": "text/csv"}),
    ("/v1/ledger/players/a/statement?currency=IDR", {"Accept": "text/csv"}),
    # a period is summed in full from its lines (all time reads the rollups: light)
    ("/v1/ledger/summary?currency=IDR&since=2000-01-01", {}),
    ("/v1/ledger/summary?currency=IDR&until=2100-01-01&group_by=day", {}),
    ("/v1/ledger/players/a?currency=IDR&since=2000-01-01", {}),
    ("/v1/ledger/players/a/statement?currency=IDR", {}),
    # a page of more than 100 events renders up to 500 round documents (60-150 ms of CPU)
    ("/v1/events?limit=101", {}),
]


def get(http: Any, path: str, headers: dict[str, str]) -> Any:
    """The answer read to its end and closed (as a server does once it is sent)."""
    response = http.get(path, headers=headers)
    response.get_data()
    response.close()
    return response


@pytest.fixture(scope="module")
def app(db_url: str) -> Iterator[Any]:
    """An app with the bound as served (this module's own: the tests' others have it off)."""
    yield from serving(make_app(db_url, HEAVY_READS_PER_CLIENT=str(heavy_reads.DEFAULT_PER_CLIENT)))


def assert_both_free(reads: HeavyReads, client_id: str) -> None:
    """Both of the client's slots can be taken (then let go again)."""
    slots = [reads.take(client_id), reads.take(client_id)]
    assert all(slots)
    for slot in slots:
        assert slot is not None
        slot.release()


@pytest.fixture
def reads(app: Any) -> HeavyReads:
    found = heavy_reads.of(app)
    assert isinstance(found, HeavyReads) and found.per_client == heavy_reads.DEFAULT_PER_CLIENT == 2
    return found


def test_a_client_holding_its_slots_is_refused_another_heavy_read_and_no_one_else_is(app, http, reads):
    tenant, other = make_tenant(app), make_tenant(app)
    for who in (tenant, other):
        assert http.post("/v1/rounds", json=four_player_round(), headers=who.headers).status_code == 201
    held = [reads.take(tenant.id), reads.take(tenant.id)]
    assert all(held) and reads.take(tenant.id) is None
    try:
        for path, headers in HEAVY:
            refused = get(http, path, {**tenant.headers, **headers})
            assert refused.status_code == 429, (path, refused.get_data(as_text=True))
            assert refused.headers["Retry-After"] == "1"
            body = refused.get_json()
            assert body["type"].endswith("/rate-limited")
            assert body["detail"].startswith(
                "this client already has 2 heavy reads (verify, exports, CSV, reports over a period, suggestions, "
                "pages of over 100 events, overdue games or turns a list page settles) in flight")
            assert get(http, path, {**other.headers, **headers}).status_code == 200, path
        # The light reads are not bounded: a JSON page of lines, the chain's head, all-time totals.
        for light in ("/v1/ledger/entries?currency=IDR", "/v1/audit/head", "/v1/ledger/summary?currency=IDR",
                      "/v1/ledger/players/a?currency=IDR", "/v1/events", "/v1/events?limit=100"):
            assert get(http, light, tenant.headers).status_code == 200, light
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    for path, headers in HEAVY:
        assert get(http, path, {**tenant.headers, **headers}).status_code == 200, path
    assert_both_free(reads, tenant.id)  # every answer let its slot go


def test_a_streamed_answer_holds_its_slot_until_it_has_been_sent(app, http, reads):
    tenant = make_tenant(app)
    for _ in range(3):
        assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    other = reads.take(tenant.id)
    assert other is not None
    try:
        response = http.get("/v1/audit/export?limit=2", headers=tenant.headers, buffered=False)
        assert response.status_code == 200
        assert reads.take(tenant.id) is None  # the export's slot, and the one held here
        body = b"".join(response.response)
        response.close()
        assert body.count(b"\n") == 2
        freed = reads.take(tenant.id)
        assert freed is not None
        freed.release()
    finally:
        other.release()


def test_a_heavy_read_that_fails_lets_its_slot_go(app, http, reads, monkeypatch):
    def down(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("the database does not answer")

    monkeypatch.setattr(receipts, "plan_export", down)
    tenant = make_tenant(app)
    for _ in range(3):  # more than the slots: each failure gave its slot back
        failed = get(http, "/v1/audit/export", tenant.headers)
        assert failed.status_code == 503, failed.get_data(as_text=True)
    assert_both_free(reads, tenant.id)


def test_the_slots_are_shared_by_the_servers_processes_and_a_dead_ones_go_free(app, http, reads):
    """Another process (another worker of the server) holding both slots of the client: this
    one is refused; once that process is gone, its slots are free."""
    tenant = make_tenant(app)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from service.api.heavy_reads import HeavyReads
        reads = HeavyReads(Path({str(reads.directory)!r}), 2)
        held = [reads.take({tenant.id!r}), reads.take({tenant.id!r})]
        print(sum(s is not None for s in held), flush=True)
        sys.stdin.read()
    """)
    with subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "2"
            assert get(http, "/v1/audit/verify", tenant.headers).status_code == 429
        finally:
            child.kill()
    assert get(http, "/v1/audit/verify", tenant.headers).status_code == 200


def test_the_bound_is_on_by_default_at_two(monkeypatch):
    from service.api.app import _env_config

    monkeypatch.delenv("HEAVY_READS_PER_CLIENT", raising=False)
    assert _env_config()["HEAVY_READS_PER_CLIENT"] == "2" == str(heavy_reads.DEFAULT_PER_CLIENT)


@pytest.mark.parametrize(("setting", "count"), [("2", 2), ("1", 1), ("off", None), ("0", None), ("", None)])
def test_the_setting_is_a_count_or_off(setting, count):
    assert heavy_reads.per_client(setting) == count


@pytest.mark.parametrize("setting", ["-1", "two", "1.5"])
def test_a_bad_setting_is_refused(setting):
    with pytest.raises(ValueError, match=f"HEAVY_READS_PER_CLIENT must be a count of 1 or more, or off: '{setting}'"):
        heavy_reads.per_client(setting)


def test_a_slot_dropped_without_being_let_go_goes_free(reads):
    """An answer dropped unsent (never closed) takes its slot with it."""
    held = reads.take("cl_dropped")
    assert held is not None and reads.take("cl_dropped") is not None  # the second, dropped at once
    del held
    assert_both_free(reads, "cl_dropped")


def test_a_suggestion_takes_a_slot_so_costly_rules_cannot_take_every_worker(app, http, reads):
    """Legal custom rules (max_one_royalty with hundreds of distinct bonuses) make one
    suggestion cost ~0.3 s of a worker; at the rate limit one client held every worker for
    20-34 s of another's latency. A suggestion is a heavy request now: two in flight."""
    tenant, other = make_tenant(app), make_tenant(app)
    body = {"hand": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac".split(), "limit": 1}
    held = [reads.take(tenant.id), reads.take(tenant.id)]
    try:
        refused = http.post("/v1/arrangements/suggest", json=body, headers=tenant.headers)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
        assert "suggestions" in refused.get_json()["detail"]
        assert http.post("/v1/arrangements/suggest", json=body, headers=other.headers).status_code == 200
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert http.post("/v1/arrangements/suggest", json=body, headers=tenant.headers).status_code == 200
    assert_both_free(reads, tenant.id)


def test_a_read_settles_an_overdue_game_in_a_slot_and_leaves_it_to_the_sweeper_without_one(app, http, reads, clock):
    """Settling an overdue Capsa Susun game in the request that reads it costs a suggestion
    per absent player (up to 0.2 s each under some rules): a client reading its games at its
    rate limit could take every worker with them. It takes one of the client's slots; with
    none free the game reads as it is, and the sweeper (or a later read) settles it."""
    tenant = make_tenant(app)
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 1}
    game = http.post("/v1/susun/games", json=body, headers=tenant.headers).get_json()
    clock.advance(seconds=2)
    held = [reads.take(tenant.id), reads.take(tenant.id)]
    try:
        for path in (f"/v1/susun/games/{game['id']}", f"/v1/susun/games/{game['id']}/hands/a", "/v1/susun/games"):
            answer = get(http, path, tenant.headers)
            assert answer.status_code == 200, (path, answer.get_data(as_text=True))
        assert get(http, f"/v1/susun/games/{game['id']}", tenant.headers).get_json()["status"] == "arranging"
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert get(http, f"/v1/susun/games/{game['id']}", tenant.headers).get_json()["status"] == "settled"
    assert_both_free(reads, tenant.id)


def test_a_list_of_big_two_games_plays_their_due_turns_only_in_a_slot(app, http, reads, clock):
    """A list page plays the due auto moves of up to 10 games (0.4-0.5 s of CPU for ten
    games of suited hands): that is a heavy read's work. Without a free slot the page shows
    the games as stored, and the sweeper (or a GET of one game) plays their turns."""
    from test_api_banting_timers import timed

    tenant = make_tenant(app)
    made = timed(http, tenant, 30)
    clock.advance(hours=1)  # every turn ran out: the game plays itself to its end
    held = [reads.take(tenant.id), reads.take(tenant.id)]
    try:
        (stale,) = get(http, "/v1/banting/games", tenant.read_headers).get_json()["items"]
        assert (stale["status"], stale["version"]) == ("playing", made["version"])
        # finished games only: this one would be left out, though its turns finish it
        refused = get(http, "/v1/banting/games?status=finished", tenant.read_headers)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    (played,) = get(http, "/v1/banting/games?status=finished", tenant.read_headers).get_json()["items"]
    assert played["status"] == "finished" and played["round"]
    assert_both_free(reads, tenant.id)


def test_an_all_time_summary_by_day_in_a_zone_whose_days_are_not_kept_is_a_heavy_read(app, http, reads):
    """Such a summary gathers the zone's days from every quarter hour of the history: three
    years of them took 210 ms of PostgreSQL (2 s on SQLite) a read, and past the 8 zones
    kept a client could ask in zone after zone. It takes a slot; a kept zone's, UTC's, and
    the other groupings stay light."""
    from service.services.ledger import rollups

    tenant = make_tenant(app)
    assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    db = app.extensions["capsa"].db
    # Folded: an all-time read starts from the rollups. This client's fold, not a sweep pass,
    # which folds the 100 clients furthest behind of the whole session's database.
    assert rollups.fold(db, tenant.id) == 1
    kept = "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"
    assert get(http, kept, tenant.headers).status_code == 200  # gathered once, in a slot, then kept
    held = [reads.take(tenant.id), reads.take(tenant.id)]
    try:
        refused = get(http, "/v1/ledger/summary?currency=IDR&group_by=day&tz=America/Santiago", tenant.headers)
        assert refused.status_code == 429, refused.get_data(as_text=True)
        for light in (kept, "/v1/ledger/summary?currency=IDR&group_by=day",
                      "/v1/ledger/summary?currency=IDR&group_by=player&tz=America/Santiago"):
            assert get(http, light, tenant.headers).status_code == 200, light
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert_both_free(reads, tenant.id)


def test_a_list_of_susun_games_settles_its_overdue_games_in_one_slot_or_shows_them_as_stored(app, http, reads, clock):
    """A list page settles up to 10 overdue games, a suggestion per absent player each: 1.1 s
    of CPU under slow rules, each game in a slot of its own and the page in none. The page
    now settles them all in one slot; without one it shows them as stored, and a page of
    `status=settled` (which would leave them out) is 429."""
    from test_api_susun_games import start

    tenant = make_tenant(app)
    made = [start(http, tenant, arrange_seconds=60) for _ in range(2)]
    clock.advance(seconds=61)
    taken: list[int] = []
    take = reads.take

    def counting(client_id: str) -> Any:
        slot = take(client_id)
        taken.append(1)
        return slot

    held = [reads.take(tenant.id), reads.take(tenant.id)]
    try:
        listed = get(http, "/v1/susun/games", tenant.read_headers).get_json()["items"]
        assert {g["status"] for g in listed} == {"arranging"} and len(listed) == 2
        refused = get(http, "/v1/susun/games?status=settled", tenant.read_headers)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    reads.take = counting  # type: ignore[method-assign]
    try:
        settled = get(http, "/v1/susun/games?status=settled", tenant.read_headers).get_json()["items"]
    finally:
        del reads.take
    assert sorted(g["id"] for g in settled) == sorted(g["id"] for g in made)
    assert taken == [1]  # one slot for the page, not one a game
    assert_both_free(reads, tenant.id)


def test_a_directory_of_slots_a_process_made_for_itself_goes_when_it_ends(tmp_path):
    """A process serving alone (a test session, a script, `capsa serve`) makes its own
    directory at its first heavy read; every one of them stayed in the temporary directory
    (29 after a day's test runs here). It goes at the process's end, not a forked child's."""
    script = textwrap.dedent("""
        import os, sys
        from service.api.heavy_reads import HeavyReads
        reads = HeavyReads(None, 2)
        slot = reads.take("a-client")
        print(reads.directory, flush=True)
        slot.release()
        if os.fork() == 0:
            sys.exit(0)  # a child forked from it ends first: the directory stays
        os.wait()
        print(reads.directory.is_dir(), flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    directory, still_there_after_child = done.stdout.split()
    assert Path(directory).parent == tmp_path and still_there_after_child == "True"
    assert not Path(directory).exists()
