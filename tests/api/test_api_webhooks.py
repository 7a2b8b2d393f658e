"""Webhooks over HTTP: endpoints, events, redelivery, and the dispatcher against a real
receiver on loopback that checks every signature with the `standardwebhooks` package."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import threading
import time
from typing import Any

import pytest
from banting_scripts import THREE, THREE_SCRIPT
from conftest import Tenant
from httpkit import fields_of, problem, two_player_round
from sqlalchemy import func, select
from sqlalchemy import update as sa_update
from ssrf_hosts import ALLOWED, REFUSED
from webhookkit import Receiver

from service.adapters.models import Webhook, WebhookDelivery
from service.domain import webhooks as hooks
from service.services.webhooks.dispatcher import Dispatcher, Lanes, Metrics, Settings

FAST = Settings(schedule=(0.05, 0.05, 0.05), timeout_s=1.0, allow_private=True, poll_s=0.02)


@pytest.fixture(autouse=True)
def private_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")


@pytest.fixture
def receiver() -> Any:
    r = Receiver().start()
    yield r
    r.stop()


def add_hook(http: Any, tenant: Tenant, url: str, events: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    r = http.post("/v1/webhooks", json={"url": url, "events": events or ["*"], **extra}, headers=tenant.headers)
    assert r.status_code == 201, r.get_data(as_text=True)
    return dict(r.get_json())


def store_round(http: Any, tenant: Tenant) -> dict[str, Any]:
    r = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    assert r.status_code == 201, r.get_data(as_text=True)
    return dict(r.get_json())


def void(http: Any, tenant: Tenant, round_id: str) -> dict[str, Any]:
    r = http.post(f"/v1/rounds/{round_id}/void", json={"reason": "dealer error"}, headers=tenant.headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json())


def dispatch(app: Any, settings: Settings = FAST) -> Dispatcher:
    d = Dispatcher(app.extensions["capsa"].db, settings)
    d.run_until_idle()
    return d


def settle(app: Any, rounds: int = 20, settings: Settings = FAST) -> None:
    """Dispatch until nothing is due (retries included)."""
    for _ in range(rounds):
        dispatch(app, settings)
        time.sleep(0.07)
    dispatch(app, settings)


# -- endpoints ---------------------------------------------------------------------------------


def test_a_new_endpoint_answers_its_secret_once_and_lists_without_it(http, tenant):
    created = add_hook(http, tenant, "https://wallet.example.com/hook", ["round.settled"], description="wallet")
    assert created["id"].startswith("whk_") and created["enabled"] is True
    assert created["secret"].startswith("whsec_") and len(hooks.secret_key(created["secret"])) == 32
    listed = http.get("/v1/webhooks", headers=tenant.read_headers).get_json()["items"]
    assert [w["id"] for w in listed] == [created["id"]]
    assert "secret" not in listed[0] and listed[0]["events"] == ["round.settled"]
    one = http.get(f"/v1/webhooks/{created['id']}", headers=tenant.read_headers).get_json()
    assert one["description"] == "wallet" and "secret" not in one


def test_a_retried_create_with_its_idempotency_key_adds_no_second_endpoint(http, tenant):
    """A game server that lost the answer retries: without the key that was a second
    endpoint at the same URL, every event delivered twice."""
    body = {"url": "https://wallet.example.com/hook", "events": ["*"]}
    headers = {**tenant.headers, "Idempotency-Key": "hook-1"}
    first = http.post("/v1/webhooks", json=body, headers=headers)
    again = http.post("/v1/webhooks", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_data() == first.get_data() and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"] == f"/v1/webhooks/{first.get_json()['id']}"
    assert "Idempotent-Replayed" not in first.headers
    assert len(http.get("/v1/webhooks", headers=tenant.read_headers).get_json()["items"]) == 1
    other = problem(http.post("/v1/webhooks", json={**body, "events": ["round.settled"]}, headers=headers), 422,
                    "idempotency-key-reused")
    assert fields_of(other) == {"header.Idempotency-Key"}
    fresh = http.post("/v1/webhooks", json=body, headers=tenant.headers)  # no key: a new endpoint
    assert fresh.status_code == 201 and fresh.get_json()["id"] != first.get_json()["id"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://x.example/h", "events": ["*"]}, "url"),
        ({"url": "https://user:pw@x.example/h", "events": ["*"]}, "url"),
        ({"url": "https://x.example/h#frag", "events": ["*"]}, "url"),
        ({"url": "https://x.example/h", "events": []}, "events"),
        ({"url": "https://x.example/h", "events": ["round.paid"]}, "events[0]"),
        ({"url": "https://x.example/h", "events": ["*", "*"]}, "events"),
        ({"url": "https://x.example/h", "events": ["*", "round.voided"]}, "events"),
        ({"url": "https://x.example/h"}, "events"),
        ({"url": "https://x.example/h", "events": ["*"], "colour": "red"}, "colour"),
    ],
)
def test_a_bad_endpoint_is_422_naming_the_field_and_nothing_is_stored(http, tenant, body, field):
    body_ = problem(http.post("/v1/webhooks", json=body, headers=tenant.headers), 422, "validation")
    assert any(e["field"] == field for e in body_["errors"]), body_
    if field == "events[0]":
        assert "'round.paid'" in body_["detail"]
    assert http.get("/v1/webhooks", headers=tenant.headers).get_json()["items"] == []


def test_private_addresses_are_refused_unless_allowed(http, tenant, monkeypatch):
    monkeypatch.delenv("WEBHOOK_ALLOW_PRIVATE")
    for url in ("http://127.0.0.1:9/h", "http://10.1.2.3/h", "http://169.254.169.254/latest", "http://localhost/h",
                "http://[::1]/h", "http://[::ffff:192.168.1.1]/h"):
        body = problem(http.post("/v1/webhooks", json={"url": url, "events": ["*"]}, headers=tenant.headers),
                       422, "validation")
        assert [e["field"] for e in body["errors"]] == ["url"] and url in body["detail"]
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    add_hook(http, tenant, "http://127.0.0.1:9/h")


@pytest.mark.parametrize(("host", "address"), REFUSED)
def test_a_refused_address_in_any_form_is_422_naming_url_and_quoting_it(http, tenant, monkeypatch, host, address):
    monkeypatch.delenv("WEBHOOK_ALLOW_PRIVATE")
    url = f"http://{host}/h"
    body = problem(http.post("/v1/webhooks", json={"url": url, "events": ["*"]}, headers=tenant.headers),
                   422, "validation")
    assert [e["field"] for e in body["errors"]] == ["url"] and repr(url) in body["detail"]
    if address is not None:
        assert f"is {ipaddress.ip_address(address)}," in body["detail"]
    assert http.get("/v1/webhooks", headers=tenant.headers).get_json()["items"] == []


@pytest.mark.parametrize(("host", "address"), ALLOWED)
def test_a_public_address_in_any_form_makes_an_endpoint(http, tenant, monkeypatch, host, address):
    monkeypatch.delenv("WEBHOOK_ALLOW_PRIVATE")
    assert add_hook(http, tenant, f"http://{host}/h")["url"] == f"http://{host}/h"


def test_patch_changes_url_events_and_enabled_and_delete_removes_it(http, tenant):
    w = add_hook(http, tenant, "https://a.example/h")
    r = http.patch(f"/v1/webhooks/{w['id']}", json={"url": "https://b.example/h", "events": ["round.voided"],
                                                     "enabled": False}, headers=tenant.headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    doc = r.get_json()
    assert (doc["url"], doc["events"], doc["enabled"], doc["disabled_reason"]) == (
        "https://b.example/h", ["round.voided"], False, "disabled")
    doc = http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": True}, headers=tenant.headers).get_json()
    assert (doc["enabled"], doc["disabled_reason"]) == (True, None)
    problem(http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": 1}, headers=tenant.headers), 422, "validation")
    gone = http.delete(f"/v1/webhooks/{w['id']}", headers=tenant.headers)
    assert gone.status_code == 204
    assert (gone.data, "Content-Type" in gone.headers) == (b"", False)  # no content, so no type
    problem(http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers), 404, "not-found")


def test_replacing_an_endpoint_writes_only_the_columns_it_changes(app, http, tenant):
    """A PATCH holds the endpoint's row; what it did not change (the dispatcher's cursor) is
    not written back from the state it read."""
    db = app.extensions["capsa"].db
    w = add_hook(http, tenant, "https://a.example/h")
    with db.unit_of_work() as uow:
        read = uow.webhooks.get(tenant.id, w["id"])
    assert read is not None and read.cursor == 0
    with db.unit_of_work(write=True) as uow:  # the dispatcher queues events 1 to 7 meanwhile
        uow.session.execute(sa_update(Webhook).where(Webhook.id == w["id"]).values(cursor=7))
        uow.commit()
    with db.unit_of_work(write=True) as uow:
        uow.webhooks.replace(read, dataclasses.replace(read, url="https://b.example/h", events=("round.voided",)))
        uow.commit()
    with db.unit_of_work() as uow:
        now = uow.webhooks.get(tenant.id, w["id"])
    assert now == dataclasses.replace(read, url="https://b.example/h", events=("round.voided",), cursor=7)


def test_read_keys_list_but_cannot_change_and_other_clients_see_nothing(http, tenant, other_tenant):
    w = add_hook(http, tenant, "https://a.example/h")
    problem(http.post("/v1/webhooks", json={"url": "https://a.example/h", "events": ["*"]},
                      headers=tenant.read_headers), 403, "forbidden")
    problem(http.delete(f"/v1/webhooks/{w['id']}", headers=tenant.read_headers), 403, "forbidden")
    problem(http.post(f"/v1/webhooks/{w['id']}/rotate-secret", headers=tenant.read_headers), 403, "forbidden")
    for method, path in (("get", ""), ("patch", ""), ("delete", ""), ("post", "/rotate-secret"), ("get", "/deliveries")):
        kwargs = {"json": {"enabled": False}} if method == "patch" else {}
        r = getattr(http, method)(f"/v1/webhooks/{w['id']}{path}", headers=other_tenant.headers, **kwargs)
        problem(r, 404, "not-found")
    assert http.get("/v1/webhooks", headers=other_tenant.headers).get_json()["items"] == []


def test_a_client_has_at_most_twenty_endpoints(http, tenant):
    for _ in range(20):
        add_hook(http, tenant, "https://a.example/h")
    problem(http.post("/v1/webhooks", json={"url": "https://a.example/h", "events": ["*"]}, headers=tenant.headers),
            409, "conflict")


# -- events --------------------------------------------------------------------------------------


def test_events_list_the_clients_records_oldest_first_with_their_documents(http, tenant, other_tenant):
    first, second = store_round(http, tenant), store_round(http, tenant)
    voided = void(http, tenant, first["id"])
    store_round(http, other_tenant)
    page = http.get("/v1/events", headers=tenant.read_headers).get_json()
    ids = [e["id"] for e in page["items"]]
    assert ids == [hooks.event_id(first["id"], hooks.SETTLED), hooks.event_id(second["id"], hooks.SETTLED),
                   hooks.event_id(first["id"], hooks.VOIDED)]
    assert [e["type"] for e in page["items"]] == ["round.settled", "round.settled", "round.voided"]
    assert page["has_more"] is False
    assert page["items"][0]["data"] == first  # as stored, settled (not as voided later)
    assert page["items"][2]["data"] == voided == http.get(f"/v1/rounds/{first['id']}", headers=tenant.headers).get_json()
    assert page["items"][0]["timestamp"] == first["created_at"]
    assert page["items"][2]["timestamp"] == voided["void"]["at"]


def test_events_page_with_after_limit_and_type(http, tenant):
    made = [store_round(http, tenant) for _ in range(5)]
    void(http, tenant, made[1]["id"])
    all_ids = [e["id"] for e in http.get("/v1/events?limit=500", headers=tenant.headers).get_json()["items"]]
    assert len(all_ids) == 6
    seen, after = [], None
    while True:
        q = "/v1/events?limit=2" + (f"&after={after}" if after else "")
        page = http.get(q, headers=tenant.headers).get_json()
        seen += [e["id"] for e in page["items"]]
        if not page["has_more"]:
            break
        after = page["items"][-1]["id"]
    assert seen == all_ids
    voids = http.get("/v1/events?type=round.voided", headers=tenant.headers).get_json()["items"]
    assert [e["id"] for e in voids] == [hooks.event_id(made[1]["id"], hooks.VOIDED)]
    after_last = http.get(f"/v1/events?after={all_ids[-1]}", headers=tenant.headers).get_json()
    assert after_last == {"items": [], "has_more": False}


@pytest.mark.postgres
def test_a_page_of_voided_events_reads_the_voids_not_the_chain(app, http, tenant):
    """`type=round.voided` reads the voids by their own index (migration 0020): a page of
    them reads that page, not the rounds between them (it used to walk the chain after its
    cursor, and at millions of records ran past the statement timeout)."""
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("plans are PostgreSQL's")
    from conftest import explained, most_rows

    made = [store_round(http, tenant) for _ in range(40)]
    for n in (3, 36):
        void(http, tenant, made[n]["id"])

    def reads_records(statement: str) -> bool:
        return statement.lstrip().startswith("SELECT") and "FROM chain_records" in statement

    with explained(app.extensions["capsa"].db.engine, reads_records) as plans:
        first = http.get("/v1/events?type=round.voided&limit=1", headers=tenant.headers).get_json()
        after = first["items"][0]["id"]
        rest = http.get(f"/v1/events?type=round.voided&after={after}", headers=tenant.headers).get_json()
    assert [e["id"] for e in first["items"] + rest["items"]] == [
        hooks.event_id(made[n]["id"], hooks.VOIDED) for n in (3, 36)
    ]
    pages = [plan for plan in plans if "kind" in plan and "void" in plan and "Index" in plan]
    assert pages and all("ix_chain_records_voids" in plan for plan in pages), plans
    # nothing read and passed over (a walk's rounds show as rows removed by its filter)
    assert all(most_rows(plan) <= 2 and "Removed by Filter" not in plan for plan in pages), pages


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=0", "limit"), ("limit=501", "limit"), ("type=round.paid", "type"),
     ("after=evt_nope", "after"), ("after=evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled", "after"), ("colour=red", "colour")],
)
def test_bad_event_queries_are_422_naming_the_parameter(http, tenant, query, field):
    body = problem(http.get(f"/v1/events?{query}", headers=tenant.headers), 422, "validation")
    assert any(field in e["field"] for e in body["errors"]), body


def test_another_clients_event_is_not_found(http, tenant, other_tenant):
    doc = store_round(http, tenant)
    eid = hooks.event_id(doc["id"], hooks.SETTLED)
    assert http.get(f"/v1/events/{eid}", headers=tenant.headers).get_json()["data"] == doc
    problem(http.get(f"/v1/events/{eid}", headers=other_tenant.headers), 404, "not-found")
    problem(http.post(f"/v1/events/{eid}/redeliver", headers=other_tenant.headers), 404, "not-found")
    problem(http.get(f"/v1/events?after={eid}", headers=other_tenant.headers), 422, "validation")


# -- delivery --------------------------------------------------------------------------------------


def test_each_subscribed_event_is_delivered_signed_and_in_the_standard_format(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url, ["round.voided"])
    every = add_hook(http, tenant, receiver.url + "?all=1", ["*"])
    receiver.secrets = [w["secret"], every["secret"]]
    made = store_round(http, tenant)
    voided = void(http, tenant, made["id"])
    settle(app)
    assert receiver.invalid == 0
    by_target = sorted((r.headers.get("webhook-id"), r.type) for r in receiver.requests)
    settled_id, voided_id = hooks.event_id(made["id"], hooks.SETTLED), hooks.event_id(made["id"], hooks.VOIDED)
    assert by_target == sorted([(settled_id, "round.settled"), (voided_id, "round.voided"), (voided_id, "round.voided")])
    got = next(r for r in receiver.requests if r.type == "round.settled")
    assert set(got.body) == {"type", "timestamp", "data"} and got.body["data"] == made
    assert got.headers["content-type"] == "application/json"
    assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 60
    assert next(r for r in receiver.requests if r.type == "round.voided").body["data"] == voided
    attempts = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.read_headers).get_json()["items"]
    assert [(a["event_id"], a["outcome"], a["status_code"], a["error"]) for a in attempts] == [
        (voided_id, "delivered", 200, None)]
    assert attempts[0]["latency_ms"] >= 0


def test_a_failing_endpoint_is_retried_on_the_schedule_until_it_answers(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    answers = iter(["fail", "fail", "ok"])
    receiver.fate = lambda _id: next(answers, "ok")
    made = store_round(http, tenant)
    settle(app)
    assert [r.fate for r in receiver.requests] == ["fail", "fail", "ok"]
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1  # the same id every time
    attempts = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"]
    assert [(a["outcome"], a["status_code"]) for a in attempts] == [
        ("delivered", 200), ("http_error", 500), ("http_error", 500)]
    assert attempts[1]["error"].startswith("HTTP 500")
    assert hooks.event_id(made["id"], hooks.SETTLED) == attempts[0]["event_id"]


def test_when_the_schedule_is_used_up_the_delivery_fails_and_redeliver_sends_it_again(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    receiver.fate = lambda _id: "fail"
    made = store_round(http, tenant)
    settle(app)
    assert len(receiver.requests) == 4  # the first attempt and the schedule's three retries
    receiver.fate = lambda _id: "ok"
    settle(app, rounds=2)
    assert len(receiver.requests) == 4  # failed for good: not retried any more
    eid = hooks.event_id(made["id"], hooks.SETTLED)
    r = http.post(f"/v1/events/{eid}/redeliver", headers=tenant.headers)
    assert r.status_code == 202 and r.get_json() == {"event_id": eid, "webhooks": [w["id"]]}
    settle(app, rounds=1)
    assert [x.fate for x in receiver.requests][-1] == "ok" and receiver.requests[-1].id == eid


def queued(app: Any, client_id: str) -> list[tuple[str, str]]:
    """The client's rows in the delivery queue: (event id, state)."""
    d = WebhookDelivery
    with app.extensions["capsa"].db.unit_of_work() as uow:
        rows = uow.session.execute(select(d.event_id, d.state).where(d.client_id == client_id)).all()
    return sorted((str(r[0]), str(r[1])) for r in rows)


def test_a_delivered_event_leaves_the_queue_and_a_redelivery_queues_it_again(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    made = store_round(http, tenant)
    eid = hooks.event_id(made["id"], hooks.SETTLED)
    settle(app, rounds=1)
    assert [r.id for r in receiver.requests] == [eid]
    assert queued(app, tenant.id) == []  # delivered: its row is gone, its attempt listed
    listed = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"]
    assert [(a["event_id"], a["outcome"]) for a in listed] == [(eid, "delivered")]
    settle(app, rounds=2)
    assert len(receiver.requests) == 1  # the endpoint's cursor is past it: never queued again
    r = http.post(f"/v1/events/{eid}/redeliver", headers=tenant.headers)
    assert r.status_code == 202 and r.get_json() == {"event_id": eid, "webhooks": [w["id"]]}
    assert queued(app, tenant.id) == [(eid, "pending")]
    settle(app, rounds=1)
    assert [r.id for r in receiver.requests] == [eid, eid] and queued(app, tenant.id) == []
    listed = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"]
    assert [(a["event_id"], a["outcome"]) for a in listed] == [(eid, "delivered"), (eid, "delivered")]


def test_redeliver_to_one_endpoint_reaches_an_endpoint_made_after_the_event(app, http, tenant, receiver):
    made = store_round(http, tenant)
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    settle(app, rounds=1)
    assert receiver.requests == []  # an endpoint takes the events stored after it
    eid = hooks.event_id(made["id"], hooks.SETTLED)
    problem(http.post(f"/v1/events/{eid}/redeliver", json={"webhook": "whk_nope"}, headers=tenant.headers),
            422, "validation")
    r = http.post(f"/v1/events/{eid}/redeliver", json={"webhook": w["id"]}, headers=tenant.headers)
    assert r.status_code == 202, r.get_data(as_text=True)
    settle(app, rounds=1)
    assert [x.id for x in receiver.requests] == [eid]


def test_redeliver_to_one_endpoint_not_subscribed_to_the_type_is_409_and_sends_nothing(app, http, tenant, receiver):
    """An endpoint of `round.voided` alone was sent a `round.settled` event it never asked
    for when named; like a disabled one, it is refused until its events hold the type."""
    made = store_round(http, tenant)
    w = add_hook(http, tenant, receiver.url, events=["round.voided"])
    receiver.secrets = [w["secret"]]
    eid = hooks.event_id(made["id"], hooks.SETTLED)
    refused = problem(http.post(f"/v1/events/{eid}/redeliver", json={"webhook": w["id"]}, headers=tenant.headers),
                      409, "conflict")
    assert refused["errors"] == [{"field": "webhook", "message": (
        "subscribed to round.voided, not round.settled: add the type to its events first (PATCH events)")}]
    settle(app, rounds=1)
    assert receiver.requests == []
    patched = http.patch(f"/v1/webhooks/{w['id']}", json={"events": ["round.voided", "round.settled"]},
                         headers=tenant.headers)
    assert patched.status_code == 200, patched.get_data(as_text=True)
    assert http.post(f"/v1/events/{eid}/redeliver", json={"webhook": w["id"]}, headers=tenant.headers).status_code == 202
    settle(app, rounds=1)
    assert [x.id for x in receiver.requests] == [eid]


def test_a_rotated_secret_signs_beside_the_old_one_for_24_hours(app, http, tenant, receiver, clock):
    w = add_hook(http, tenant, receiver.url)
    rotated = http.post(f"/v1/webhooks/{w['id']}/rotate-secret", headers=tenant.headers).get_json()
    assert rotated["secret"] != w["secret"] and rotated["previous_secret_expires_at"] == "2026-11-30T10:00:00.000Z"
    store_round(http, tenant)
    for secret in (w["secret"], rotated["secret"]):  # each receiver knows one secret only
        receiver.secrets = [secret]
        receiver.requests.clear()
        made = store_round(http, tenant)
        dispatch(app)
        assert receiver.invalid == 0
        assert hooks.event_id(made["id"], hooks.SETTLED) in {r.id for r in receiver.requests}
    signatures = receiver.requests[-1].headers["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(s.startswith("v1,") for s in signatures)
    clock.advance(hours=24, seconds=1)
    store_round(http, tenant)
    receiver.requests.clear()
    dispatch(app)
    assert len(receiver.requests[-1].headers["webhook-signature"].split(" ")) == 1


def test_the_ssrf_guard_refuses_a_private_address_at_delivery_time(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url)
    store_round(http, tenant)
    dispatch(app, Settings(schedule=(60.0,), timeout_s=1.0, allow_private=False))
    assert receiver.requests == []
    attempt = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"][0]
    assert attempt["outcome"] == "refused" and "127.0.0.1" in attempt["error"] and attempt["status_code"] is None


def test_redirects_are_not_followed(app, http, tenant):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hits = []

    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_POST(self) -> None:
            hits.append(self.path)
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(307)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        w = add_hook(http, tenant, f"http://127.0.0.1:{server.server_address[1]}/hook")
        store_round(http, tenant)
        dispatch(app, Settings(schedule=(60.0,), timeout_s=1.0, allow_private=True))
    finally:
        server.shutdown()
        server.server_close()
    assert hits == ["/hook"]
    attempt = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"][0]
    assert (attempt["outcome"], attempt["status_code"]) == ("http_error", 307)


def test_an_endpoint_failing_for_the_disable_period_is_disabled(app, http, tenant, receiver, clock):
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    receiver.fate = lambda _id: "fail"
    settings = Settings(schedule=(0.0,) * 10, timeout_s=1.0, allow_private=True, disable_after_s=3 * 86400)
    store_round(http, tenant)
    dispatch(app, settings)
    doc = http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()
    assert doc["enabled"] is True and doc["failing_since"] == "2026-11-29T10:00:00.000Z"
    clock.advance(days=3)
    store_round(http, tenant)
    metrics = Metrics()
    Dispatcher(app.extensions["capsa"].db, settings, metrics).run_until_idle()
    doc = http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()
    assert (doc["enabled"], doc["disabled_reason"]) == (False, "failing")
    assert metrics.registry.get_sample_value("capsa_webhook_endpoints_disabled_total") == 1
    assert metrics.registry.get_sample_value("capsa_webhook_deliveries_total", {"outcome": "http_error"}) == 1
    before = len(receiver.requests)
    store_round(http, tenant)
    dispatch(app, settings)
    assert len(receiver.requests) == before  # disabled: nothing is sent


def test_an_endpoint_whose_retries_ran_out_is_disabled_once_failing_for_the_period(app, http, tenant, receiver, clock):
    """The retries (2.8 days by default, +-20%) can run out before the disable period (3
    days): no attempt follows to disable the endpoint, so the dispatcher looks for overdue
    ones itself; enabling it again then sends what failed for good."""
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    receiver.fate = lambda _id: "fail"
    settings = dataclasses.replace(FAST, schedule=(0.0,), disable_after_s=3 * 86400)
    gave_up = store_round(http, tenant)["id"]
    dispatch(app, settings)  # two attempts, then failed for good
    clock.advance(days=2)
    metrics = Metrics()
    Dispatcher(app.extensions["capsa"].db, settings, metrics).run_until_idle()
    doc = http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()
    assert (doc["enabled"], doc["failing_since"]) == (True, "2026-11-29T10:00:00.000Z")  # not yet the period
    clock.advance(days=1)
    Dispatcher(app.extensions["capsa"].db, settings, metrics).run_until_idle()
    doc = http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()
    assert (doc["enabled"], doc["disabled_reason"]) == (False, "failing")
    assert metrics.registry.get_sample_value("capsa_webhook_endpoints_disabled_total") == 1
    receiver.fate = lambda _id: "ok"
    assert http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": True}, headers=tenant.headers).status_code == 200
    dispatch(app, settings)
    assert receiver.acknowledged() == {hooks.event_id(gave_up, hooks.SETTLED)}


def test_an_endpoint_enabled_again_is_sent_at_once_everything_it_missed(app, http, tenant, receiver, clock):
    """Enabling resumes an endpoint "with everything it missed": the deliveries that failed
    for good while it was failing and those waiting for a late retry are made due at once,
    with a fresh schedule, besides the events stored while it was disabled."""
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    receiver.fate = lambda _id: "fail"
    gave_up = [store_round(http, tenant)["id"] for _ in range(2)]
    dispatch(app, dataclasses.replace(FAST, schedule=(0.0,)))  # two attempts each, then failed for good
    late = store_round(http, tenant)["id"]
    dispatch(app, dataclasses.replace(FAST, schedule=(86400.0,)))  # its retry is a day away
    with app.extensions["capsa"].db.unit_of_work() as uow:
        states = sorted(uow.session.execute(
            select(WebhookDelivery.state, WebhookDelivery.attempts).where(WebhookDelivery.webhook_id == w["id"])
        ).all())
    assert states == [("failed", 2), ("failed", 2), ("pending", 1)]
    assert http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": False}, headers=tenant.headers).status_code == 200
    meanwhile = store_round(http, tenant)["id"]
    receiver.fate = lambda _id: "ok"
    assert http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": True}, headers=tenant.headers).status_code == 200
    dispatch(app)
    wanted = {hooks.event_id(r, hooks.SETTLED) for r in [*gave_up, late, meanwhile]}
    assert receiver.acknowledged() == wanted
    with app.extensions["capsa"].db.unit_of_work() as uow:
        left = uow.session.execute(select(WebhookDelivery.event_id).where(WebhookDelivery.webhook_id == w["id"])).all()
        mark = uow.session.scalar(select(Webhook.resume_before).where(Webhook.id == w["id"]))
    assert left == [] and mark is None  # all delivered, and the endpoint's resume is done


def _running(d: Dispatcher, stop: threading.Event, failures: list[BaseException]) -> Any:
    def run() -> None:
        try:
            d.run(stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            failures.append(exc)
    return run


def test_a_failing_pass_is_logged_and_the_loop_waits_its_poll_before_the_next(app, caplog, monkeypatch):
    """A step that raises (the database gone) is logged and retried after `poll_s`, not in a
    tight loop."""
    d = Dispatcher(app.extensions["capsa"].db, dataclasses.replace(FAST, poll_s=0.1))
    calls = []

    def failing(lanes: Any, linger: float = 0.0) -> bool:
        calls.append(time.monotonic())
        d._due = time.monotonic()  # as if the pass before had left a fan-out to its linger
        raise ConnectionError("the database went away")

    monkeypatch.setattr(d, "step", failing)
    stop = threading.Event()
    failures: list[BaseException] = []
    loop = threading.Thread(target=_running(d, stop, failures), daemon=True)
    with caplog.at_level("ERROR", logger="capsa.webhooks"):
        loop.start()
        time.sleep(0.55)
        stop.set()
        loop.join(5)
    assert not loop.is_alive() and failures == []
    assert 3 <= len(calls) <= 8  # one a poll, not thousands
    assert [r.getMessage() for r in caplog.records][:3] == ["dispatcher step failed"] * 3


def test_attempts_abandoned_at_the_stop_are_counted_and_logged(app, caplog, monkeypatch):
    d = Dispatcher(app.extensions["capsa"].db, FAST)
    real = d._close
    monkeypatch.setattr(d, "_close", lambda lanes: real(lanes) + 2)  # as if two outlived the grace
    stop = threading.Event()
    stop.set()
    with caplog.at_level("WARNING", logger="capsa.webhooks"):
        d.run(stop)
    assert d.abandoned == 2
    assert [r.getMessage() for r in caplog.records] == [
        "stopping with 2 attempts still in flight: their claims will run out"]


def test_an_error_out_of_the_loop_still_closes_the_lanes_and_is_raised(app, monkeypatch):
    d = Dispatcher(app.extensions["capsa"].db, FAST)
    closed = []
    real = d._close
    monkeypatch.setattr(d, "_close", lambda lanes: closed.append(lanes) or real(lanes))

    class Broken(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        d.run(Broken())
    assert len(closed) == 1 and closed[0].stopped


def test_a_pass_claims_no_more_than_its_free_attempts(app, http, tenant, receiver):
    """Plain claims (no endpoint known fast yet): a pass claims `concurrency` minus what its
    lanes still hold, so a dispatcher killed mid-flight leaves no more duplicates than that.
    A quarter of the slots is kept for clients with none in flight: one client runs 3 of 4,
    and what waits for the kept slot (up to its size) is not counted, so another client's
    event would still be claimed: 3 in flight and 2 waiting."""
    add_hook(http, tenant, receiver.url)
    for _ in range(12):
        store_round(http, tenant)
    d = Dispatcher(app.extensions["capsa"].db, dataclasses.replace(FAST, concurrency=4, endpoint_concurrency=50, client_concurrency=50, timeout_s=5.0))
    lanes = Lanes(d.settings, lambda p: asyncio.sleep(3600))  # attempts that never end
    try:
        for _ in range(5):  # the first pass queues the events; each later one may claim
            d.step(lanes)
            time.sleep(0.1)  # the lanes' thread takes what was claimed
        assert (sum(d.claims), lanes.pending, lanes.inflight, lanes.reserve_waiting) == (5, 5, 3, 2)
    finally:
        lanes.close(grace=0.1)
        d._release()  # on SQLite its passes took the lease: the next test's dispatcher needs it


def test_on_sqlite_one_dispatcher_at_a_time_holds_the_lease_and_gives_it_back_at_its_stop(app, http, tenant, receiver):
    """SQLite has no row locks to share claims by, so dispatchers take turns by a lease: the
    second one sends nothing while the first holds it, and a clean stop releases it."""
    db = app.extensions["capsa"].db
    if db.dialect != "sqlite":
        pytest.skip("PostgreSQL's dispatchers share the work by row locks, not a lease")
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    first, second = Dispatcher(db, FAST), Dispatcher(db, FAST)
    assert first.sqlite and second.sqlite
    first_lanes = Lanes(first.settings, first.deliver)
    try:
        first.step(first_lanes)  # holds the lease from here
        store_round(http, tenant)
        second.run_until_idle(timeout=2)
        assert receiver.requests == [] and second.claims == []
    finally:
        first_lanes.close(grace=1)
        first._release()
    second.run_until_idle()
    assert len(receiver.requests) == 1


def test_the_dispatcher_loop_delivers_until_stopped_and_records_what_it_sent(app, http, tenant, receiver):
    """`run`, the loop `capsa webhooks dispatch` runs: it delivers what is stored while it runs,
    records every attempt, and returns soon after its stop is set, abandoning nothing."""
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    d = Dispatcher(app.extensions["capsa"].db, FAST)
    stop = threading.Event()
    failures: list[BaseException] = []
    loop = threading.Thread(target=_running(d, stop, failures), daemon=True)
    loop.start()
    made = [store_round(http, tenant)["id"] for _ in range(3)]
    deadline = time.monotonic() + 10
    while len(receiver.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    for _ in range(50):  # the outcomes are recorded on the loop's next pass
        attempts = http.get(f"/v1/webhooks/{w['id']}/deliveries", headers=tenant.headers).get_json()["items"]
        if len(attempts) == 3:
            break
        time.sleep(0.05)
    stop.set()
    loop.join(5)
    assert not loop.is_alive() and failures == [] and d.abandoned == 0
    assert sorted(a["event_id"] for a in attempts) == sorted(hooks.event_id(i, hooks.SETTLED) for i in made)
    assert {a["outcome"] for a in attempts} == {"delivered"}
    assert len(receiver.requests) == 3


def test_an_endpoint_that_answers_again_is_no_longer_failing_and_its_disable_clock_restarts(
        app, http, tenant, receiver, clock):
    """Recovery: a 2xx clears `failing_since`, so a failure days later starts a new failing
    period instead of disabling the endpoint on the strength of the old one."""
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    settings = Settings(schedule=(0.0,) * 10, timeout_s=1.0, allow_private=True, disable_after_s=3 * 86400)

    def failing_since() -> Any:
        return http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()["failing_since"]

    receiver.fate = lambda _id: "fail"
    store_round(http, tenant)
    dispatch(app, settings)
    assert failing_since() == "2026-11-29T10:00:00.000Z"

    clock.advance(days=1)
    receiver.fate = lambda _id: "ok"
    store_round(http, tenant)
    dispatch(app, settings)
    assert failing_since() is None

    clock.advance(days=3)
    receiver.fate = lambda _id: "fail"
    store_round(http, tenant)
    dispatch(app, settings)
    doc = http.get(f"/v1/webhooks/{w['id']}", headers=tenant.headers).get_json()
    assert (doc["enabled"], doc["failing_since"]) == (True, "2026-12-03T10:00:00.000Z")


def test_a_finished_big_two_game_sends_settled_and_finished(app, http, tenant, receiver):
    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    game = _finish_a_game(http, tenant)
    settle(app, rounds=1)
    types = sorted(r.type for r in receiver.requests)
    assert types == ["banting.game.finished", "round.settled"]
    finished = next(r for r in receiver.requests if r.type == "banting.game.finished")
    assert finished.body["data"] == http.get(f"/v1/banting/games/{game['id']}", headers=tenant.headers).get_json()
    assert finished.body["data"]["status"] == "finished"
    settled = next(r for r in receiver.requests if r.type == "round.settled")
    assert settled.body["data"]["id"] == finished.body["data"]["round"]
    listed = http.get("/v1/events?type=banting.game.finished", headers=tenant.headers).get_json()["items"]
    assert [e["id"] for e in listed] == [finished.id]


@pytest.mark.postgres
def test_a_page_of_finished_games_reads_the_big_two_rounds_not_the_chain(app, http, tenant):
    """`type=banting.game.finished` reads the Big Two rounds by their own index (migration
    0020), then their records by key: a page of them among Capsa Susun rounds reads that
    page (it used to walk every record after its cursor, each with its round's game)."""
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("plans are PostgreSQL's")
    from conftest import explained, most_rows

    games = []
    for _ in range(2):
        for _ in range(15):
            store_round(http, tenant)
        games.append(_finish_a_game(http, tenant))
    store_round(http, tenant)

    def reads_rounds_or_records(statement: str) -> bool:
        return statement.lstrip().startswith("SELECT") and ("FROM rounds" in statement or "FROM chain_records" in statement)

    with explained(app.extensions["capsa"].db.engine, reads_rounds_or_records) as plans:
        first = http.get("/v1/events?type=banting.game.finished&limit=1", headers=tenant.headers).get_json()
        rest = http.get(f"/v1/events?type=banting.game.finished&after={first['items'][0]['id']}",
                        headers=tenant.headers).get_json()
    assert [e["data"]["id"] for e in first["items"] + rest["items"]] == [g["id"] for g in games]
    assert first["has_more"] is True and rest["has_more"] is False
    # Each page: its Big Two rounds by their index, passing over nothing, then their records
    # by key (on a chain this short the planner may read the client's 33 records and keep
    # the two: cheaper than two look-ups; at 50,000 it looks them up).
    rounds = [plan for plan in plans if "ix_rounds_banting" in plan]
    records = [plan for plan in plans if "on chain_records" in plan]
    assert len(rounds) == 2 and len(records) == 2, plans
    for plan in rounds:
        assert most_rows(plan) <= 2 and "Removed by Filter" not in plan, plan
    assert all("sequence = ANY" in plan for plan in records), records


def _finish_a_game(http: Any, tenant: Tenant) -> dict[str, Any]:
    r = http.post("/v1/banting/games", headers=tenant.headers, json={
        "currency": "IDR", "stake": "1000", "table": "table-7",
        "players": [{"id": pid, "hand": hand.split()} for pid, hand in THREE.items()]})
    assert r.status_code == 201, r.get_data(as_text=True)
    game = dict(r.get_json())
    for line in THREE_SCRIPT:
        player, _, what = line.partition(":")
        what = what.strip()
        move = {"player": player.strip(), "pass": True} if what == "pass" else {"player": player.strip(), "play": what.split()}
        r = http.post(f"/v1/banting/games/{game['id']}/moves", json=move, headers=tenant.headers)
        assert r.status_code == 200, r.get_data(as_text=True)
    return game


# -- the outbox --------------------------------------------------------------------------------


def test_the_gauges_count_what_waits_and_how_old_the_oldest_is(app, http, tenant, clock):
    add_hook(http, tenant, "http://127.0.0.1:9/nobody-listens")
    store_round(http, tenant)
    metrics = Metrics()
    d = Dispatcher(app.extensions["capsa"].db, Settings(schedule=(3600.0,), timeout_s=1.0, allow_private=True), metrics)
    d.run_until_idle()  # refused connection: retried in an hour
    clock.advance(minutes=10)
    d._last_gauges = 0.0
    d._gauges()
    waiting = metrics.registry.get_sample_value("capsa_webhook_events_waiting")
    assert waiting is not None and waiting >= 1
    assert metrics.registry.get_sample_value("capsa_webhook_oldest_waiting_seconds") >= 600
    assert metrics.registry.get_sample_value("capsa_webhook_deliveries_total", {"outcome": "connection_error"}) == 1


def test_a_failed_connection_names_no_address_the_host_resolved_to(app, http, tenant):
    """The socket's message named the address ("Connect call failed ('127.0.0.1', 9)"): the
    attempts are the endpoint owner's to read, and must not map what the service's network
    resolves a name to, as a refused attempt's error does not."""
    hook = add_hook(http, tenant, "http://localhost:9/nobody-listens")
    store_round(http, tenant)
    Dispatcher(app.extensions["capsa"].db, Settings(schedule=(3600.0,), timeout_s=1.0, allow_private=True)).run_until_idle()
    attempts = http.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=tenant.headers).get_json()["items"]
    assert [(a["outcome"], a["error"]) for a in attempts] == [("connection_error", "ConnectionRefusedError: Connection refused")]


def test_deliveries_queued_before_patch_took_their_type_away_are_never_sent(app, http, tenant, receiver):
    """An endpoint of every type fails on a round and its void; PATCH then subscribes it to
    `round.settled` only. The void's queued delivery was still sent on the next retry, a
    type the endpoint no longer takes (a redelivery of it is refused with 409). It is now
    dropped unsent, with no attempt; the settled one is delivered."""
    receiver.fate = lambda event_id: "fail"
    hook = add_hook(http, tenant, receiver.url)
    receiver.secrets.append(hook["secret"])
    made = store_round(http, tenant)
    void(http, tenant, made["id"])
    slow = Settings(schedule=(0.3, 0.3), timeout_s=1.0, allow_private=True, poll_s=0.02)
    dispatch(app, slow)  # both fail: due again in 0.3 s
    assert sorted(r.type for r in receiver.requests) == ["round.settled", "round.voided"]
    patched = http.patch(f"/v1/webhooks/{hook['id']}", json={"events": ["round.settled"]}, headers=tenant.headers)
    assert patched.status_code == 200, patched.get_json()
    receiver.fate = lambda event_id: "ok"
    time.sleep(0.4)
    settle(app, 5, slow)
    assert [r.type for r in receiver.requests[2:]] == ["round.settled"]
    voided = hooks.event_id(made["id"], hooks.VOIDED)
    attempts = http.get(f"/v1/webhooks/{hook['id']}/deliveries?event={voided}", headers=tenant.headers).get_json()
    assert [a["outcome"] for a in attempts["items"]] == ["http_error"]  # the one before the PATCH
    with app.extensions["capsa"].db.engine.connect() as conn:
        left = conn.execute(select(func.count()).where(WebhookDelivery.webhook_id == hook["id"])).scalar()
    assert left == 0


def test_an_attempt_is_dated_when_its_request_went_out_not_when_its_outcome_was_recorded(app, http, tenant, receiver):
    """Every attempt of a pass was stamped with the pass's time, after the answer: a
    receiver answering in 0.6 s found `attempted_at` 0.6 s after the request it logged
    (with the 5 s timeout, 5 s or more from its `webhook-timestamp`)."""
    from datetime import datetime

    receiver.delay_s = 0.6
    hook = add_hook(http, tenant, receiver.url)
    receiver.secrets.append(hook["secret"])
    store_round(http, tenant)
    dispatch(app)
    (got,) = receiver.requests
    (attempt,) = http.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=tenant.headers).get_json()["items"]
    started = datetime.fromisoformat(attempt["attempted_at"]).timestamp()
    assert attempt["outcome"] == "delivered" and attempt["latency_ms"] >= 600
    assert got.at - 0.3 < started <= got.at + 0.001  # before the request arrived, not 0.6 s after


def test_the_deliveries_cursor_takes_every_id_shown_and_nothing_past_them(http, tenant):
    """Attempt ids are shown as a permutation of [0, 2^52): 0 is an id a page can end on,
    and was refused as a cursor (the bound was 1 to 2^62), so that page's next one could not
    be read; 2^52 and beyond are no shown id and are refused by the schema."""
    hook = add_hook(http, tenant, "http://127.0.0.1:9/nobody-listens")
    url = f"/v1/webhooks/{hook['id']}/deliveries"
    assert http.get(f"{url}?cursor=0", headers=tenant.headers).status_code == 200
    assert http.get(f"{url}?cursor={2**52 - 1}", headers=tenant.headers).status_code == 200
    assert fields_of(problem(http.get(f"{url}?cursor={2**52}", headers=tenant.headers), 422, "validation")) == {
        "query.cursor"}


def test_a_refused_round_or_void_has_no_event(http, tenant):
    made = store_round(http, tenant)
    again = http.post("/v1/rounds", json=two_player_round(reference=made["reference"]), headers=tenant.headers)
    problem(again, 409, "conflict")
    void(http, tenant, made["id"])
    problem(http.post(f"/v1/rounds/{made['id']}/void", json={"reason": "twice"}, headers=tenant.headers), 409, "conflict")
    ids = [e["id"] for e in http.get("/v1/events", headers=tenant.headers).get_json()["items"]]
    assert ids == [hooks.event_id(made["id"], hooks.SETTLED), hooks.event_id(made["id"], hooks.VOIDED)]


def test_with_webhooks_a_round_is_still_stored_in_one_statement_on_postgresql(app, http, tenant, monkeypatch):
    import psycopg

    from service.services.rounds import store as rounds

    db = app.extensions["capsa"].db
    if db.dialect != "postgresql":
        pytest.skip("the one-statement write path is PostgreSQL's")
    add_hook(http, tenant, "https://wallet.example.com/hook")
    rounds.create(db, tenant.id, two_player_round(), None)  # connections and prepared plans warm
    seen: list[str] = []
    execute = psycopg.Cursor.execute

    def counting(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(query)[:40])
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counting)
    created = rounds.create(db, tenant.id, two_player_round(), None)
    monkeypatch.undo()
    assert len(seen) == 1 and seen[0].startswith("WITH"), seen
    eid = hooks.event_id(orjson_loads(created.response.body)["id"], hooks.SETTLED)
    assert http.get(f"/v1/events/{eid}", headers=tenant.headers).status_code == 200


def orjson_loads(raw: bytes) -> Any:
    import orjson

    return orjson.loads(raw)


def test_attempt_ids_tell_a_client_nothing_of_other_clients_attempts(app, http, tenant, other_tenant, receiver):
    """Attempts are stored in one sequence for every client: shown as stored, the gap
    between two of a client's attempts was the others' count (five here)."""
    mine, theirs = add_hook(http, tenant, receiver.url), add_hook(http, other_tenant, receiver.url, events=["round.settled"])
    receiver.secrets = [mine["secret"], theirs["secret"]]
    store_round(http, tenant)
    dispatch(app)
    for _ in range(5):
        store_round(http, other_tenant)
        dispatch(app)
    store_round(http, tenant)
    dispatch(app)
    path = f"/v1/webhooks/{mine['id']}/deliveries"
    page = http.get(path, headers=tenant.read_headers).get_json()
    newer, older = (item["id"] for item in page["items"])
    assert abs(newer - older) not in (1, 6) and 0 <= min(newer, older) and max(newer, older) < 2**52
    assert len(http.get(f"/v1/webhooks/{theirs['id']}/deliveries", headers=other_tenant.headers).get_json()["items"]) == 5
    # stable, and a page's cursor still leads to the next page
    assert [i["id"] for i in http.get(path, headers=tenant.headers).get_json()["items"]] == [newer, older]
    first = http.get(f"{path}?limit=1", headers=tenant.headers).get_json()
    assert [i["id"] for i in first["items"]] == [newer] and first["next_cursor"] == newer
    rest = http.get(f"{path}?limit=1&cursor={first['next_cursor']}", headers=tenant.headers).get_json()
    assert [i["id"] for i in rest["items"]] == [older] and rest["next_cursor"] is None
    # a cursor no page gave (past the shown ids' 52 bits) names the field
    forged = problem(http.get(f"{path}?cursor={2**52}", headers=tenant.headers), 422, "validation")
    assert [e["field"] for e in forged["errors"]] == ["query.cursor"]


def test_a_client_has_at_most_max_endpoints_even_made_all_at_once(app, tenant):
    """The count and the insert were not serialised per client: 32 creates at once stored
    25-31 endpoints on PostgreSQL, past the limit of 20."""
    from concurrent.futures import ThreadPoolExecutor

    from service.services.webhooks.endpoints import MAX_PER_CLIENT

    barrier = threading.Barrier(32)

    def make(i: int) -> int:
        http = app.test_client()
        barrier.wait()
        body = {"url": f"https://wallet-{i}.example.com/hook", "events": ["*"]}
        return int(http.post("/v1/webhooks", json=body, headers=tenant.headers).status_code)

    with ThreadPoolExecutor(32) as pool:
        statuses = sorted(pool.map(make, range(32)))
    assert statuses == [201] * MAX_PER_CLIENT + [409] * (32 - MAX_PER_CLIENT)
    listed = app.test_client().get("/v1/webhooks", headers=tenant.headers).get_json()["items"]
    assert len(listed) == MAX_PER_CLIENT


def test_a_pass_leaves_an_endpoint_held_by_a_request_to_resume_later(app, http, tenant, receiver, db_url):
    """Resuming an endpoint enabled again updated its deliveries, then its row; deleting (or
    changing) it takes the row, then the deliveries: the two could deadlock. A pass now locks
    the endpoints it resumes first, and leaves one a request holds to a later pass."""
    if not db_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL's (SQLite's writers take turns)")
    import psycopg

    w = add_hook(http, tenant, receiver.url)
    receiver.secrets = [w["secret"]]
    receiver.fate = lambda _id: "fail"
    gave_up = store_round(http, tenant)["id"]
    dispatch(app, dataclasses.replace(FAST, schedule=(0.0,)))  # failed for good
    assert http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": False}, headers=tenant.headers).status_code == 200
    assert http.patch(f"/v1/webhooks/{w['id']}", json={"enabled": True}, headers=tenant.headers).status_code == 200
    receiver.fate = lambda _id: "ok"
    with psycopg.connect(db_url.replace("postgresql+psycopg://", "postgresql://")) as held:
        held.execute("SELECT 1 FROM webhooks WHERE id = %s FOR UPDATE", (w["id"],))  # a request's
        started = time.monotonic()
        dispatch(app)  # neither waits for the row nor fails on it
        assert time.monotonic() - started < 1.5
        assert receiver.acknowledged() == set()
    dispatch(app)
    assert receiver.acknowledged() == {hooks.event_id(gave_up, hooks.SETTLED)}
