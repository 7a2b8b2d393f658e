// The client against a running service: CAPSA_BASE_URL and CAPSA_API_KEY (a write key) name
// it; tests/integration/test_clients.py starts one under gunicorn and runs this file. Without
// them the tests are skipped (`npm test` alone).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { CapsaClient, CapsaProblemError, type RoundRequest, unwrap } from "../src/index.js";

const baseUrl = process.env.CAPSA_BASE_URL ?? "";
const apiKey = process.env.CAPSA_API_KEY ?? "";
const skip = baseUrl && apiKey ? false : "set CAPSA_BASE_URL and CAPSA_API_KEY to run against a service";
const example = process.env.CAPSA_ROUND_BODY
  ?? new URL("../../../../service/examples/round-4p-capsa-susun-id.json", import.meta.url);

function exampleRound(): RoundRequest {
  const round = JSON.parse(readFileSync(example, "utf8")) as RoundRequest;
  return { ...round, reference: `ts-${randomUUID()}` };
}

function problem(type: string, status: number) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CapsaProblemError, `not a CapsaProblemError: ${String(error)}`);
    assert.equal(error.type, type);
    assert.equal(error.status, status);
    assert.equal(error.problem.status, status);
    assert.equal(error.response.headers.get("Content-Type"), "application/problem+json");
    return true;
  };
}

test("a round is scored, stored, replayed by its Idempotency-Key and voided", { skip }, async () => {
  const capsa = new CapsaClient({ baseUrl, apiKey });
  const round = exampleRound();

  const score = await capsa.score(round);
  assert.equal(score.game, "susun");
  assert.equal(score.house_fee, "1860");
  assert.equal(score.players.length, 4);

  const key = randomUUID();
  const stored = await capsa.storeRound(round, { idempotencyKey: key });
  assert.equal(stored.response.status, 201);
  assert.equal(stored.replayed, false);
  assert.equal(stored.document.status, "settled");
  assert.equal(stored.document.reference, round.reference);
  assert.deepEqual(stored.document.players, score.players);
  assert.equal(stored.document.house_fee, score.house_fee);
  assert.equal(stored.location, `/v1/rounds/${stored.document.id}`);

  const replay = await capsa.storeRound(round, { idempotencyKey: key });
  assert.equal(replay.response.status, 201);
  assert.equal(replay.replayed, true);
  assert.equal(replay.text, stored.text, "a replay answers the first answer's bytes");
  await assert.rejects(
    capsa.storeRound({ ...round, stake: "2000" }, { idempotencyKey: key }),
    problem("/problems/idempotency-key-reused", 422),
  );

  const voidKey = randomUUID();
  const voided = await capsa.voidRound(stored.document.id, { reason: "dealer error" }, { idempotencyKey: voidKey });
  assert.equal(voided.replayed, false);
  assert.equal(voided.document.id, stored.document.id);
  assert.equal(voided.document.status, "void");
  assert.equal(voided.document.void?.reason, "dealer error");
  const again = await capsa.voidRound(stored.document.id, { reason: "dealer error" }, { idempotencyKey: voidKey });
  assert.equal(again.replayed, true);
  assert.equal(again.text, voided.text);
  assert.equal((await capsa.getRound(stored.document.id)).status, "void");
  await assert.rejects(
    capsa.voidRound(stored.document.id, { reason: "twice" }),
    problem("/problems/conflict", 409),
  );
});

test("the openapi-fetch client covers every path, and unwrap throws the problem", { skip }, async () => {
  const capsa = new CapsaClient({ baseUrl, apiKey });
  const rules = await unwrap(capsa.api.GET("/v1/rules"));
  assert.ok(rules.items.some((preset) => preset.preset === "capsa-susun-id"));
  await assert.rejects(
    unwrap(capsa.api.GET("/v1/rounds/{round_id}", { params: { path: { round_id: "rnd_missing" } } })),
    problem("/problems/not-found", 404),
  );
  const stranger = new CapsaClient({ baseUrl, apiKey: `capsa_00000000_${"x".repeat(43)}` });
  await assert.rejects(stranger.score(exampleRound()), problem("/problems/unauthorized", 401));
});
