"""Provably fair deals over HTTP: the test vector of docs/rules.md#provably-fair-deals, hidden then revealed seeds, one use,
hands checked against the deal in Susun rounds and Big Two games."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import make_tenant
from httpkit import fields_of, problem

from service.domain.deals import deal
from service.services import deals

VECTOR_SEED = bytes(range(32))
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_PLAYER_0 = "7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s".split()
VECTOR_PLAYER_3 = "3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h".split()


def make_deal(http: Any, tenant: Any, players: str = "a b c d", seed: str = "table-7") -> dict[str, Any]:
    response = http.post(
        "/v1/deals", json={"players": players.split(), "client_seed": seed}, headers=tenant.headers
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    doc = response.get_json()
    assert response.headers["Location"] == f"/v1/deals/{doc['id']}"
    return dict(doc)


def susun_round(made: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """A round whose rows are the dealt hands in order (fouled rows are still a valid round)."""
    body: dict[str, Any] = {
        "currency": "IDR",
        "stake": "1000",
        "deal": made["id"],
        "players": [
            {"id": pid, "arrangement": {"front": h[:3], "middle": h[3:8], "back": h[8:]}}
            for pid, h in made["hands"].items()
        ],
    }
    body.update(overrides)
    return body


def test_a_round_refused_for_its_used_deal_leaves_its_reference_free(http, tenant):
    """The round's write takes its reference before it uses the deal: refused, it takes
    nothing (PostgreSQL: the one statement aborts whole; SQLite: its transaction)."""
    made = make_deal(http, tenant, players="a b")
    reference = f"after-a-used-deal-{tenant.id}"
    assert http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers).status_code == 201
    refused = http.post("/v1/rounds", json=susun_round(made, reference=reference), headers=tenant.headers)
    assert "has already been used" in problem(refused, 409, "conflict")["detail"]
    again = susun_round(make_deal(http, tenant, players="a b", seed="table-8"), reference=reference)
    assert http.post("/v1/rounds", json=again, headers=tenant.headers).status_code == 201


def test_the_documented_test_vector_reproduces_through_the_service(app, monkeypatch):
    monkeypatch.setattr(deals, "new_server_seed", lambda: VECTOR_SEED)
    tenant = make_tenant(app)  # a new client: its first deal has nonce 0
    made = make_deal(app.test_client(), tenant)
    # the fields of GET /v1/deals/{id}, players included; no server_seed before use
    assert list(made) == [
        "id", "status", "commitment", "commitment_id", "committed_at", "nonce", "client_seed", "players", "hands",
        "created_at", "used_at", "used_by", "revealed_at",
    ]
    assert (made["commitment_id"], made["committed_at"]) == (None, made["created_at"])  # drawn with it
    assert (made["commitment"], made["nonce"], made["client_seed"]) == (VECTOR_COMMITMENT, 0, "table-7")
    assert list(made["hands"]) == ["a", "b", "c", "d"]
    assert made["hands"]["a"] == VECTOR_PLAYER_0
    assert made["hands"]["d"] == VECTOR_PLAYER_3


def test_the_service_draws_a_fresh_32_byte_seed_for_every_deal():
    seeds = {deals.new_server_seed() for _ in range(20)}
    assert len(seeds) == 20 and {len(s) for s in seeds} == {32}


def test_nonces_count_each_clients_deals_from_zero(http, tenant, other_tenant):
    assert [make_deal(http, tenant)["nonce"] for _ in range(3)] == [0, 1, 2]
    assert make_deal(http, other_tenant)["nonce"] == 0


def test_before_use_the_deal_hides_its_server_seed(http, tenant):
    made = make_deal(http, tenant)
    shown = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers)
    assert shown.status_code == 200
    doc = shown.get_json()
    assert "server_seed" not in doc
    assert (doc["used_at"], doc["used_by"], doc["revealed_at"]) == (None, None, None)
    assert doc["hands"] == made["hands"] and doc["players"] == ["a", "b", "c", "d"]


def _cards_in(text: str, made: dict[str, Any]) -> list[str]:
    return [c for h in made["hands"].values() for c in h if f'"{c}"' in text or f" {c}" in text or f"{c} " in text]


def test_a_read_key_sees_an_unused_deals_hands_only_once_its_seed_is_public(http, tenant):
    """Its hands are the players' hands of the round or game that will use it: an auditor
    sees hands only in stored rounds (or once anyone can recompute them)."""
    made, kept = make_deal(http, tenant, seed="read-1"), make_deal(http, tenant, seed="read-2")
    for path in (f"/v1/deals/{made['id']}", "/v1/deals", "/v1/deals?status=open"):
        answer = http.get(path, headers=tenant.read_headers)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert _cards_in(answer.get_data(as_text=True), made) == [] and "hands" not in answer.get_data(as_text=True)
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.read_headers).get_json()
    assert (doc["id"], doc["status"], doc["commitment"]) == (made["id"], "open", made["commitment"])
    # a write key sees what POST /v1/deals answered
    assert http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()["hands"] == made["hands"]
    # revealed: its seed is public, so are its hands; used by a round: the round shows them
    assert http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.headers).status_code == 200
    assert http.get(f"/v1/deals/{made['id']}", headers=tenant.read_headers).get_json()["hands"] == made["hands"]
    stored = http.post("/v1/rounds", json=susun_round(kept), headers=tenant.headers)
    assert stored.status_code == 201, stored.get_data(as_text=True)
    assert http.get(f"/v1/deals/{kept['id']}", headers=tenant.read_headers).get_json()["hands"] == kept["hands"]


def test_scoring_against_an_unused_deal_tells_a_read_key_no_card_of_its_hands(http, tenant):
    made = make_deal(http, tenant, "a b", seed="oracle")
    body = susun_round(made)
    hand = made["hands"]["a"]
    guess = [c for c in (f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs") if c not in hand and c not in made["hands"]["b"]]
    wrong = hand[:12] + guess[:1]  # one card off: the answer must not say which
    body["players"][0]["arrangement"] = {"front": wrong[:3], "middle": wrong[3:8], "back": wrong[8:]}
    read = http.post("/v1/score", json=body, headers=tenant.read_headers)
    problem(read, 422, "invalid-cards")
    assert _cards_in(read.get_data(as_text=True), made) == []
    assert guess[0] not in read.get_data(as_text=True)
    assert fields_of(read.get_json()) == {"players[0].arrangement"}
    assert "not the cards deal" in read.get_json()["errors"][0]["message"]
    # a write key is told which card differs
    write = http.post("/v1/score", json=body, headers=tenant.headers)
    problem(write, 422, "invalid-cards")
    assert f"not dealt {guess[0]}; dealt but missing {hand[12]}" in write.get_data(as_text=True)


def test_a_game_hides_its_deals_seed_and_hands_until_it_ends_then_recomputing_gives_the_hands(http, tenant, clock):
    """And `revealed_at` says when the seed was published: the game's end, not its start
    (an auditor reading the start would take every hand for public during play)."""
    made = make_deal(http, tenant)
    response = http.post(
        "/v1/banting/games",
        json={"currency": "IDR", "stake": "1000", "deal": made["id"],
              "players": [{"id": p} for p in "abcd"]},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    game = response.get_json()
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert doc["used_by"] == game["id"] and doc["used_at"] == "2026-11-29T10:00:00.000Z"
    assert doc["revealed_at"] is None and doc["status"] == "used"
    assert "server_seed" not in doc and "hands" not in doc  # the game is in play
    clock.advance(seconds=90)
    while game["status"] == "playing":
        hint = http.post(f"/v1/banting/games/{game['id']}/hint", json={"player": game["turn"]},
                         headers=tenant.headers).get_json()
        game = http.post(f"/v1/banting/games/{game['id']}/moves", json=hint["move"],
                         headers=tenant.headers).get_json()
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert doc["hands"] == made["hands"]
    assert doc["revealed_at"] == "2026-11-29T10:01:30.000Z"  # the game's end, its round's time
    assert http.get(f"/v1/rounds/{game['round']}", headers=tenant.headers).get_json()["created_at"] == doc["revealed_at"]
    seed = bytes.fromhex(doc["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == made["commitment"]
    recomputed = deal(seed, made["client_seed"], made["nonce"], 4)
    assert {p: [str(c) for c in h] for p, h in zip("abcd", recomputed)} == made["hands"]


def test_the_status_filter_lists_exactly_the_deals_in_that_status_newest_first(http, tenant):
    open_, revealed, used = (make_deal(http, tenant, "a b c d", f"filter-{n}") for n in range(3))
    assert http.post(f"/v1/deals/{revealed['id']}/reveal", headers=tenant.headers).status_code == 200
    stored = http.post("/v1/rounds", json=susun_round(used), headers=tenant.headers)
    assert stored.status_code == 201, stored.get_data(as_text=True)
    for status, made in (("open", open_), ("revealed", revealed), ("used", used)):
        page = http.get(f"/v1/deals?status={status}", headers=tenant.read_headers).get_json()
        assert [(d["id"], d["status"]) for d in page["items"]] == [(made["id"], status)]
    every = http.get("/v1/deals", headers=tenant.read_headers).get_json()
    assert [(d["id"], d["status"]) for d in every["items"]] == [
        (used["id"], "used"), (revealed["id"], "revealed"), (open_["id"], "open")
    ]


def test_reveal_publishes_the_seed_without_a_body_and_twice_is_harmless(http, tenant):
    made = make_deal(http, tenant, "a b")
    first = http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.headers)
    assert first.status_code == 200, first.get_data(as_text=True)
    seed = bytes.fromhex(first.get_json()["server_seed"])
    assert [[str(c) for c in h] for h in deal(seed, "table-7", made["nonce"], 2)] == list(
        made["hands"].values()
    )
    again = http.post(f"/v1/deals/{made['id']}/reveal", json={}, headers=tenant.headers)
    assert again.get_json() == first.get_json()
    problem(http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.read_headers), 403, "forbidden")


def test_another_clients_deal_is_not_found(http, tenant, other_tenant):
    made = make_deal(http, tenant)
    problem(http.get(f"/v1/deals/{made['id']}", headers=other_tenant.headers), 404, "not-found")
    problem(http.post(f"/v1/deals/{made['id']}/reveal", headers=other_tenant.headers), 404, "not-found")
    body = problem(http.post("/v1/rounds", json=susun_round(made), headers=other_tenant.headers), 422,
                   "validation")
    assert fields_of(body) == {"deal"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": ["a"], "client_seed": "x"}, "players"),
        ({"players": ["a", "b", "c", "d", "e"], "client_seed": "x"}, "players"),
        ({"players": ["a", "a"], "client_seed": "x"}, "players[1]"),
        ({"players": ["a", "b"], "client_seed": ""}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "x" * 129}, "client_seed"),
        # What a player reads must be what was mixed in: no override showing other text, no
        # line of its own, not only what shows nothing.
        ({"players": ["a", "b"], "client_seed": "table-\u202e7-elbat"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "table-7\nhand-2"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "table-7\u2028hand-2"}, "client_seed"),  # line separator
        ({"players": ["a", "b"], "client_seed": "table-7\u2029hand-2"}, "client_seed"),  # paragraph separator
        ({"players": ["a", "b"], "client_seed": "\u200b"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "  "}, "client_seed"),
        # ... nor a character that shows nothing inside text that shows something: it reads
        # "table-7" while other bytes were mixed in.
        ({"players": ["a", "b"], "client_seed": "table-7\u200b"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "table\u2060-7"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "table-7\U000E0020"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "table-7\ufe0f"}, "client_seed"),
        ({"players": ["a", "b"], "client_seed": "ta\u00adble-7"}, "client_seed"),
        ({"players": ["a", "b"]}, "client_seed"),
        ({"players": ["a b", "c"], "client_seed": "x"}, "players[0]"),
    ],
)
def test_bad_deal_requests_are_422_on_their_field(http, tenant, body, field):
    answer = problem(http.post("/v1/deals", json=body, headers=tenant.headers), 422, "validation")
    assert field in fields_of(answer)
    assert len(answer["errors"]) == 1, answer["errors"]  # one refusal a value: "" is too short, not also blank


def test_a_read_key_cannot_deal(http, tenant):
    answer = http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "x"},
                       headers=tenant.read_headers)
    problem(answer, 403, "forbidden")


# -- Capsa Susun rounds with a deal ---------------------------------------------------------


def test_a_susun_round_with_the_dealt_hands_uses_the_deal_once(http, tenant):
    made = make_deal(http, tenant)
    first = http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers)
    assert first.status_code == 201, first.get_data(as_text=True)
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert doc["used_by"] == first.get_json()["id"] and "server_seed" in doc
    second = problem(http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers), 409,
                     "conflict")
    assert fields_of(second) == {"deal"}
    game = http.post(
        "/v1/banting/games",
        json={"currency": "IDR", "stake": "1000", "deal": made["id"],
              "players": [{"id": p} for p in "abcd"]},
        headers=tenant.headers,
    )
    problem(game, 409, "conflict")


def _tamper(app: Any, http: Any, tenant: Any, round_id: str, row_id: str) -> tuple[Any, Any]:
    """The round's verify, and a change to the row `row_id` of the client (a deal or a
    commitment) made in the database behind the service's back."""
    from sqlalchemy import text

    def verify() -> Any:
        return http.get(f"/v1/rounds/{round_id}/verify", headers=tenant.read_headers).get_json()

    def change(sql: str, **params: Any) -> None:
        with app.extensions["capsa"].db.engine.begin() as conn:
            conn.execute(text(sql + " WHERE client_id = :c AND id = :d"), {"c": tenant.id, "d": row_id, **params})

    return verify, change


def test_a_rounds_verify_recomputes_its_deal_and_finds_a_changed_deal_row(app, http, tenant):
    """A round that names a deal is verified against it: the deal's seed must hash to its
    commitment, the seeds must shuffle to its hands, the deal must be used by this round,
    and the round's cards must be its hands."""
    import json

    from conftest import TAMPERED

    TAMPERED.add(tenant.id)  # its deal row is changed below: the suite's last verify skips it
    made = make_deal(http, tenant)
    stored = http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers).get_json()

    verify, change = _tamper(app, http, tenant, stored["id"], made["id"])

    assert verify() == {"ok": True, "differences": []}
    hands = [made["hands"][p] for p in "abcd"]
    swapped = [hands[1], hands[0], *hands[2:]]
    change("UPDATE deals SET hands = :h", h=json.dumps(swapped))
    assert [d["field"] for d in verify()["differences"]] == ["deal.hands", "deal"]
    assert verify()["differences"][0] == {"field": "deal.hands", "stored": swapped, "recomputed": hands}
    change("UPDATE deals SET hands = :h", h=json.dumps(hands))
    assert verify()["ok"] is True
    change("UPDATE deals SET used_by = :u", u="rnd_someone_else")
    assert verify()["differences"] == [{"field": "deal.used_by", "stored": "rnd_someone_else", "recomputed": stored["id"]}]
    change("UPDATE deals SET used_by = :u", u=stored["id"])
    seed = bytes.fromhex(http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()["server_seed"])
    change("UPDATE deals SET server_seed = :s", s=bytes(32))
    assert [d["field"] for d in verify()["differences"]] == ["deal.commitment", "deal.hands"]
    change("UPDATE deals SET server_seed = :s", s=seed)
    change("UPDATE deals SET players = :p", p=json.dumps(list("abcde")))  # no deal has 5 players
    found = http.get(f"/v1/rounds/{stored['id']}/verify", headers=tenant.read_headers)
    assert found.status_code == 200 and "deal.hands" in [d["field"] for d in found.get_json()["differences"]]
    change("DELETE FROM deals")
    assert verify()["differences"] == [{"field": "request.deal", "stored": made["id"], "recomputed": None}]


def test_a_susun_round_whose_cards_differ_from_the_deal_is_422_naming_the_player(http, tenant):
    made = make_deal(http, tenant, "a b")
    body = susun_round(made)
    theirs, mine = body["players"][1]["arrangement"], body["players"][0]["arrangement"]
    mine["back"][0], theirs["back"][0] = theirs["back"][0], mine["back"][0]  # swap one card
    answer = problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 422, "invalid-cards")
    assert fields_of(answer) == {"players[0].arrangement", "players[1].arrangement"}
    assert "'a'" in answer["errors"][0]["message"]
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert doc["used_at"] is None and "server_seed" not in doc  # a rejected round uses nothing


def test_a_susun_round_with_other_players_than_the_deal_is_422(http, tenant):
    made = make_deal(http, tenant, "a b")
    body = susun_round(made)
    body["players"][1]["id"] = "z"
    assert fields_of(problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 422,
                             "validation")) == {"players"}


def test_score_checks_the_dealt_hands_but_does_not_use_the_deal(http, tenant):
    made = make_deal(http, tenant, "a b")
    body = susun_round(made)
    for _ in range(2):
        assert http.post("/v1/score", json=body, headers=tenant.read_headers).status_code == 200
    assert http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()["used_at"] is None
    swapped = susun_round(made)
    a, b = swapped["players"][0]["arrangement"], swapped["players"][1]["arrangement"]
    a["front"][0], b["front"][0] = b["front"][0], a["front"][0]
    problem(http.post("/v1/score", json=swapped, headers=tenant.headers), 422, "invalid-cards")
    assert http.post("/v1/rounds", json=body, headers=tenant.headers).status_code == 201


def test_an_idempotent_replay_of_the_round_that_used_the_deal_replays(http, tenant):
    made = make_deal(http, tenant, "a b")
    headers = {**tenant.headers, "Idempotency-Key": "dealt-round"}
    first = http.post("/v1/rounds", json=susun_round(made), headers=headers)
    again = http.post("/v1/rounds", json=susun_round(made), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"


# -- Big Two games with a deal --------------------------------------------------------------


def test_a_game_from_a_deal_needs_the_deals_players_in_its_order(http, tenant):
    made = make_deal(http, tenant, "a b c")
    body = {"currency": "IDR", "stake": "1000", "deal": made["id"],
            "players": [{"id": p} for p in "bac"]}
    answer = problem(http.post("/v1/banting/games", json=body, headers=tenant.headers), 422, "validation")
    assert fields_of(answer) == {"players"}
    body["players"] = [{"id": "a", "hand": made["hands"]["a"]}, {"id": "b", "hand": made["hands"]["c"]},
                       {"id": "c"}]
    answer = problem(http.post("/v1/banting/games", json=body, headers=tenant.headers), 422,
                     "invalid-cards")
    assert fields_of(answer) == {"players[1].hand"}
    body["players"][1] = {"id": "b", "hand": made["hands"]["b"]}
    created = http.post("/v1/banting/games", json=body, headers=tenant.headers)
    assert created.status_code == 201, created.get_data(as_text=True)
    # The holder of the lowest dealt card (3 players: maybe not 3d) leads.
    lowest = min(
        (c for h in made["hands"].values() for c in h),
        key=lambda c: ("3456789TJQKA2".index(c[0]), "dchs".index(c[1])),
    )
    leader = next(p for p, h in made["hands"].items() if lowest in h)
    assert created.get_json()["turn"] == leader


def test_two_rounds_racing_for_one_deal_store_exactly_one(app, tenant):
    import threading

    made = make_deal(app.test_client(), tenant, "a b")
    barrier = threading.Barrier(2)
    answers: list[Any] = []
    lock = threading.Lock()

    def one() -> None:
        client = app.test_client()
        barrier.wait(10)
        response = client.post("/v1/rounds", json=susun_round(made), headers=tenant.headers)
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(r.status_code for r in answers) == [201, 409]
    winner = next(r.get_json() for r in answers if r.status_code == 201)
    doc = app.test_client().get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert doc["used_by"] == winner["id"]


def test_concurrent_deals_of_one_client_all_succeed_with_nonces_0_to_n_minus_1(app, tenant, db_url):
    """16 threads x 25 deals: no 409 (two deals used to count the same nonce on PostgreSQL)."""
    import threading

    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers (16 in-process writers meet its busy timeout); the race is PostgreSQL's")

    threads_n, each = 16, 25
    barrier = threading.Barrier(threads_n)
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def sender() -> None:
        client = app.test_client()
        barrier.wait(10)
        for _ in range(each):
            response = client.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "race"},
                                   headers=tenant.headers)
            with lock:
                answers.append((response.status_code, response.get_json()))

    threads = [threading.Thread(target=sender) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    statuses = sorted({status for status, _ in answers})
    assert statuses == [201], [body for status, body in answers if status != 201][:3]
    assert sorted(body["nonce"] for _, body in answers) == list(range(threads_n * each))


def test_a_deal_takes_its_nonce_from_the_clients_counter_without_counting_deals(app, tenant):
    from sqlalchemy import update

    from service.adapters.models import Client

    http = app.test_client()
    assert make_deal(http, tenant)["nonce"] == 0
    with app.extensions["capsa"].db.unit_of_work(write=True) as uow:  # as 0006 sets it for old clients
        uow.session.execute(update(Client).where(Client.id == tenant.id).values(deals_made=1000))
        uow.commit()
    assert make_deal(http, tenant)["nonce"] == 1000  # one deal stored, so a count would say 1
    assert make_deal(http, tenant)["nonce"] == 1001


@pytest.mark.parametrize("game", ["susun", "banting"])
def test_a_game_never_starts_on_a_deal_revealed_after_the_game_read_it(http, tenant, monkeypatch, game):
    """A reveal racing a game's start: the game read the deal before the reveal committed
    (here, its plain reads are made stale on purpose), and the reveal answered the seed. The
    game must not then use the deal, whose hands are public: 409 on `deal`, nothing stored."""
    from dataclasses import replace

    from service.adapters.deals import DealRepository

    made = make_deal(http, tenant, "a b c d", "race-1")
    assert http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.headers).get_json()["server_seed"]
    real_get = DealRepository.get

    def read_before_the_reveal(self: Any, client_id: str, deal_id: str, lock: bool = False) -> Any:
        row = real_get(self, client_id, deal_id, lock)
        return row if row is None or lock else replace(row, revealed_at=None)

    monkeypatch.setattr(DealRepository, "get", read_before_the_reveal)
    if game == "susun":
        path, body = "/v1/susun/games", {"players": list("abcd"), "currency": "IDR", "stake": "1000",
                                         "deal": made["id"], "arrange_seconds": 60}
    else:
        path, body = "/v1/banting/games", {"currency": "IDR", "stake": "1000", "deal": made["id"],
                                           "players": [{"id": p} for p in "abcd"]}
    answer = problem(http.post(path, json=body, headers=tenant.headers), 409, "conflict")
    assert fields_of(answer) == {"deal"} and "revealed" in answer["detail"]
    monkeypatch.undo()
    doc = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert (doc["used_at"], doc["used_by"]) == (None, None)
    assert http.get(path, headers=tenant.headers).get_json()["items"] == []


def _race(app: Any, headers: Any, *requests: Any) -> list[Any]:
    """The requests sent at once, each from a client of its own: their answers, in order."""
    import threading

    barrier = threading.Barrier(len(requests))
    answers: list[Any] = [None] * len(requests)

    def send(i: int, request: Any) -> None:
        client = app.test_client()
        barrier.wait(10)
        answers[i] = request(client, headers)

    threads = [threading.Thread(target=send, args=(i, r)) for i, r in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers


def _game(kind: str, deal_id: str) -> Any:
    if kind == "susun":
        path, body = "/v1/susun/games", {"players": list("abcd"), "currency": "IDR", "stake": "1000",
                                         "deal": deal_id, "arrange_seconds": 60}
    else:
        path, body = "/v1/banting/games", {"currency": "IDR", "stake": "1000", "deal": deal_id,
                                           "players": [{"id": p} for p in "abcd"]}
    return lambda client, headers: client.post(path, json=body, headers=headers)


def _reveal(deal_id: str) -> Any:
    return lambda client, headers: client.post(f"/v1/deals/{deal_id}/reveal", headers=headers)


def test_a_reveal_racing_a_games_start_either_reveals_or_says_in_play(app, http, tenant):
    """Either the reveal wins (the seed answered, the game refused: revealed) or the game does
    (201, and the reveal 409 `deal-in-play`); never a 200 that reveals nothing (the reveal's
    update found the row the game had used meanwhile and changed nothing)."""
    for i in range(16):
        made = make_deal(http, tenant, "a b c d", f"reveal-race-{i}")
        reveal, game = _race(app, tenant.headers, _reveal(made["id"]), _game("banting" if i % 2 else "susun", made["id"]))
        outcome = (reveal.status_code, game.status_code)
        assert outcome in {(200, 409), (409, 201)}, (outcome, reveal.get_json(), game.get_json())
        if outcome == (200, 409):
            assert reveal.get_json()["server_seed"] and "revealed" in game.get_json()["detail"]
        else:
            assert reveal.get_json()["type"].endswith("/deal-in-play")
            assert fields_of(reveal.get_json()) == {"path.deal_id"}  # the route's {deal_id}, not a body field


def test_a_round_whose_deal_a_game_took_after_its_check_is_409_deal_in_play(app, http, tenant, monkeypatch):
    """The round checks its deal in a read of its own, then writes: a game that starts on
    the deal between the two is still in play, so the round's refusal says so, as it does
    when the round comes after the game (before: 409 `conflict`, "already used")."""
    import threading

    from service.services.rounds import store

    made = make_deal(http, tenant, "a b c d", "round-after-game")
    real_store = store._store
    started: list[Any] = []

    def a_game_starts_first(*args: Any, **kw: Any) -> Any:
        thread = threading.Thread(target=lambda: started.append(_game("banting", made["id"])(app.test_client(), tenant.headers)))
        thread.start()
        thread.join(30)
        return real_store(*args, **kw)

    monkeypatch.setattr(store, "_store", a_game_starts_first)
    refused = problem(http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers), 409, "deal-in-play")
    assert started[0].status_code == 201, started[0].get_json()
    assert fields_of(refused) == {"deal"} and started[0].get_json()["id"] in refused["detail"]
    assert not any(card in refused["detail"] for card in made["hands"]["a"])


def test_two_games_and_a_reveal_on_one_deal_take_turns_without_a_deadlock(app, http, tenant):
    """Two games starting on one deal and its reveal, at once: one of them wins, the others
    are refused with a 409; before the games locked the deal first, PostgreSQL found a
    deadlock in a few runs of eight, answered as 503 `unavailable`."""
    for i in range(12):
        made = make_deal(http, tenant, "a b c d", f"triple-{i}")
        answers = _race(app, tenant.headers, _game("banting", made["id"]),
                        _game("susun" if i % 2 else "banting", made["id"]), _reveal(made["id"]))
        statuses = sorted(a.status_code for a in answers)
        assert statuses in ([200, 409, 409], [201, 409, 409]), [a.get_json() for a in answers]


# -- commitments: the server seed fixed before the client's seed exists -----------------------


def commit(http: Any, tenant: Any) -> dict[str, Any]:
    response = http.post("/v1/deals/commitments", headers=tenant.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    doc = response.get_json()
    assert response.headers["Location"] == f"/v1/deals/commitments/{doc['id']}"
    return dict(doc)


def test_a_deal_from_a_commitment_shuffles_with_the_seed_and_nonce_committed_before_the_client_seed(
    app, monkeypatch, clock
):
    """The documented test vector through a commitment: the commitment answered first is the
    seed's, the client's seed chosen after it, and the deal recomputes from the seed the
    reveal publishes."""
    monkeypatch.setattr(deals, "new_server_seed", lambda: VECTOR_SEED)
    tenant = make_tenant(app)  # a new client: its first commitment takes nonce 0
    http = app.test_client()
    drawn = commit(http, tenant)
    assert list(drawn) == ["id", "commitment", "nonce", "created_at", "used_by"]
    assert (drawn["commitment"], drawn["nonce"], drawn["used_by"]) == (VECTOR_COMMITMENT, 0, None)
    monkeypatch.setattr(deals, "new_server_seed", lambda: bytes(32))  # a deal must not draw again
    clock.advance(seconds=5)
    response = http.post(
        "/v1/deals", json={"players": list("abcd"), "client_seed": "table-7", "commitment_id": drawn["id"]},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.get_json()
    made = response.get_json()
    assert (made["commitment"], made["nonce"], made["commitment_id"]) == (VECTOR_COMMITMENT, 0, drawn["id"])
    assert made["committed_at"] == drawn["created_at"] < made["created_at"]
    assert (made["hands"]["a"], made["hands"]["d"]) == (VECTOR_PLAYER_0, VECTOR_PLAYER_3)
    shown = http.get(f"/v1/deals/commitments/{drawn['id']}", headers=tenant.read_headers).get_json()
    assert shown == {**drawn, "used_by": made["id"]}
    revealed = http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.headers).get_json()
    assert revealed["server_seed"] == VECTOR_SEED.hex()
    assert hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest() == drawn["commitment"]


def test_a_commitment_makes_one_deal_and_the_refusal_names_it(http, tenant):
    """A retry of a deal whose answer was lost is 409, naming the deal made: the client
    finds it rather than deal again."""
    drawn = commit(http, tenant)
    body = {"players": ["a", "b"], "client_seed": "once", "commitment_id": drawn["id"]}
    made = http.post("/v1/deals", json=body, headers=tenant.headers).get_json()
    again = problem(http.post("/v1/deals", json=body, headers=tenant.headers), 409, "conflict")
    assert made["id"] in again["detail"] and fields_of(again) == {"commitment_id"}
    assert http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()["commitment_id"] == drawn["id"]


def test_commitments_and_deals_take_nonces_from_one_count(http, tenant):
    first = commit(http, tenant)
    plain = make_deal(http, tenant)
    second = commit(http, tenant)
    late = http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "s", "commitment_id": first["id"]},
                     headers=tenant.headers).get_json()
    assert [first["nonce"], plain["nonce"], second["nonce"], late["nonce"]] == [0, 1, 2, 0]
    assert make_deal(http, tenant)["nonce"] == 3


def test_another_clients_commitment_is_unknown_and_a_read_key_cannot_commit(http, tenant, other_tenant):
    drawn = commit(http, tenant)
    problem(http.get(f"/v1/deals/commitments/{drawn['id']}", headers=other_tenant.headers), 404, "not-found")
    refused = problem(
        http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "s", "commitment_id": drawn["id"]},
                  headers=other_tenant.headers),
        422, "validation",
    )
    assert fields_of(refused) == {"commitment_id"}
    problem(http.post("/v1/deals/commitments", headers=tenant.read_headers), 403, "forbidden")
    assert http.get(f"/v1/deals/commitments/{drawn['id']}", headers=tenant.headers).get_json()["used_by"] is None


def test_two_deals_racing_for_one_commitment_make_exactly_one(app, tenant):
    import threading

    drawn = commit(app.test_client(), tenant)
    barrier = threading.Barrier(2)
    answers: list[Any] = []
    lock = threading.Lock()

    def one(seed: str) -> None:
        client = app.test_client()
        barrier.wait(10)
        response = client.post("/v1/deals", json={"players": ["a", "b"], "client_seed": seed,
                                                  "commitment_id": drawn["id"]}, headers=tenant.headers)
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=one, args=(seed,)) for seed in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(r.status_code for r in answers) == [201, 409]
    winner = next(r.get_json() for r in answers if r.status_code == 201)
    loser = next(r.get_json() for r in answers if r.status_code == 409)
    assert winner["id"] in loser["detail"]  # whichever way it lost: read used, or beaten to the row
    shown = app.test_client().get(f"/v1/deals/commitments/{drawn['id']}", headers=tenant.headers).get_json()
    assert shown["used_by"] == winner["id"]
    listed = app.test_client().get("/v1/deals", headers=tenant.headers).get_json()["items"]
    assert [d["id"] for d in listed if d["commitment_id"] == drawn["id"]] == [winner["id"]]


def test_a_rounds_verify_checks_the_commitment_its_deal_was_made_from(app, http, tenant):
    from conftest import TAMPERED

    TAMPERED.add(tenant.id)  # its commitment row is changed below: the suite's last verify skips it
    drawn = commit(http, tenant)
    made = http.post("/v1/deals", json={"players": list("abcd"), "client_seed": "v", "commitment_id": drawn["id"]},
                     headers=tenant.headers).get_json()
    stored = http.post("/v1/rounds", json=susun_round(made), headers=tenant.headers).get_json()

    verify, change = _tamper(app, http, tenant, stored["id"], drawn["id"])

    assert verify() == {"ok": True, "differences": []}
    wanted = {"commitment": drawn["commitment"], "nonce": drawn["nonce"], "used_by": made["id"],
              "created_at": made["committed_at"]}
    change("UPDATE deal_commitments SET nonce = :n", n=99)
    assert verify()["differences"] == [{"field": "deal.commitment_id", "stored": {**wanted, "nonce": 99}, "recomputed": wanted}]
    change("UPDATE deal_commitments SET nonce = :n", n=drawn["nonce"])
    assert verify()["ok"] is True
    later = datetime(2030, 1, 1, tzinfo=UTC)  # drawn after the deal it made, as the row now says
    change("UPDATE deal_commitments SET created_at = :t", t=later)
    assert verify()["differences"] == [{"field": "deal.commitment_id",
                                        "stored": {**wanted, "created_at": "2030-01-01T00:00:00.000Z"},
                                        "recomputed": wanted}]
    change("DELETE FROM deal_commitments")
    assert verify()["differences"] == [{"field": "deal.commitment_id", "stored": None, "recomputed": wanted}]



@pytest.mark.parametrize("status", ["revealed", "used", "open"])
def test_a_list_by_status_reads_that_statuss_index_not_the_history(app, http, tenant, status):
    """A page of one status read the client's deals newest first and filtered them: a page of
    a status few deals have walked the whole history (30 ms at 500,000 deals). Each status has
    an index of its own (0025); the page reads it (after an ANALYZE, as autovacuum would)."""
    from conftest import explained
    from sqlalchemy import text

    engine = app.extensions["capsa"].db.engine
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's plan")
    made = [make_deal(http, tenant, "a b") for _ in range(3)]
    assert http.post(f"/v1/deals/{made[0]['id']}/reveal", headers=tenant.headers).status_code == 200
    with engine.connect() as conn:  # a history of 20,000 open deals before them (rows of their shape)
        conn.execute(text(
            "INSERT INTO deals (id, client_id, nonce, server_seed, commitment, client_seed, players, hands, created_at)"
            " SELECT 'dl_old_' || g, :c, 1000000 + g, '\\x00'::bytea, 'x', 's', '[\"a\",\"b\"]', '[[],[]]',"
            " now() - interval '1 day' - (g || ' seconds')::interval FROM generate_series(1, 20000) g"
        ), {"c": tenant.id})
        conn.execute(text("ANALYZE deals"))
        conn.commit()
    with explained(engine, lambda s: "FROM deals" in s and "ORDER BY" in s, analyze=False) as plans:
        assert http.get(f"/v1/deals?status={status}&limit=5", headers=tenant.headers).status_code == 200
    assert len(plans) == 1 and f"ix_deals_{status}" in plans[0], plans
