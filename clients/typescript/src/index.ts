/**
 * A typed client of the Capsa scoring service for game servers (Node.js 20+, or anything with
 * fetch).
 *
 * `schema.ts` beside this file is generated from the service's openapi.yaml by `make clients`
 * (openapi-typescript); this file is written by hand on top of it and of openapi-fetch:
 *
 * - `new CapsaClient({ baseUrl, apiKey })` sends `Authorization: Bearer <key>` on every call;
 * - `score`, `storeRound`, `getRound` and `voidRound` return the documents, typed, and take an
 *   `idempotencyKey` where the service honours one (`Idempotency-Key`);
 * - every answer that is not 2xx throws: a `CapsaProblemError` carrying the RFC 9457 problem
 *   (`application/problem+json`) typed as the schema's `Problem`, or a `CapsaHttpError` when the
 *   body is not a problem (a proxy's HTML page, say);
 * - `client.api` is the underlying openapi-fetch client, typed for every path of the API, and
 *   `unwrap()` turns its answers into data or the same errors.
 */
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

type Schemas = components["schemas"];
/** An RFC 9457 problem, as every error of the service is. */
export type Problem = Schemas["Problem"];
/** `/problems/validation`, `/problems/conflict`, ... (the service's list). */
export type ProblemType = Problem["type"];
export type RoundRequest = Schemas["RoundRequest"];
export type ScoreDocument = Schemas["ScoreDocument"];
export type RoundDocument = Schemas["RoundDocument"];
export type VoidRequest = Schemas["VoidRequest"];

/** A non-2xx answer whose body is not a problem document. */
export class CapsaHttpError extends Error {
  readonly status: number;
  readonly response: Response;
  /** The body as openapi-fetch read it: parsed JSON, or the text when it is not JSON. */
  readonly body: unknown;
  /** Retry-After in seconds (409 idempotency-in-flight, 429, 503), or null. */
  readonly retryAfter: number | null;

  constructor(response: Response, body: unknown, message?: string) {
    super(message ?? `${response.status} ${response.statusText || "error"} from ${response.url}`);
    this.name = "CapsaHttpError";
    this.status = response.status;
    this.response = response;
    this.body = body;
    const retryAfter = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    this.retryAfter = Number.isNaN(retryAfter) ? null : retryAfter;
  }
}

/** A non-2xx answer carrying the service's problem document. */
export class CapsaProblemError extends CapsaHttpError {
  readonly problem: Problem;

  constructor(response: Response, problem: Problem) {
    super(response, problem, `${problem.status} ${problem.type}: ${problem.detail}`);
    this.name = "CapsaProblemError";
    this.problem = problem;
  }

  get type(): ProblemType {
    return this.problem.type;
  }
}

/** Whether a parsed body has the shape of the service's problem documents. */
export function isProblem(body: unknown): body is Problem {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.type === "string" && typeof b.title === "string" && typeof b.status === "number"
    && typeof b.detail === "string" && Array.isArray(b.errors);
}

function failure(response: Response, error: unknown): CapsaHttpError {
  return isProblem(error) ? new CapsaProblemError(response, error) : new CapsaHttpError(response, error);
}

/** The data of an openapi-fetch answer, or a thrown CapsaProblemError / CapsaHttpError. */
export async function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(
  pending: Promise<R> | R,
): Promise<Exclude<R["data"], undefined>> {
  const { data, error, response } = await pending;
  if (!response.ok) throw failure(response, error);
  return data as Exclude<R["data"], undefined>;
}

export interface CapsaClientOptions {
  /** The service's root, e.g. `https://capsa.example.net` (no `/v1`). */
  baseUrl: string;
  /** `capsa_<prefix>_<secret>`, from `capsa clients create`. */
  apiKey: string;
  /** Headers for every request (a User-Agent, say). */
  headers?: Record<string, string>;
  /** Another fetch (tests, a proxy agent). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface WriteOptions {
  /**
   * 1-255 printable ASCII characters, kept 24 hours by the service: the same key with the same
   * body replays the first answer byte for byte (`replayed: true`), so a write retried after a
   * timeout or a lost connection is stored once. Use one key per round (the game's own round
   * id, say) and resend the same body with it.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A document written by the service, with the exact bytes it answered. */
export interface Written<T> {
  document: T;
  /** `Idempotent-Replayed: true`: an earlier request with this Idempotency-Key wrote it. */
  replayed: boolean;
  /** The answer's body as sent (a replay sends the first answer's bytes again). */
  text: string;
  response: Response;
}

export interface StoredRound extends Written<RoundDocument> {
  /** The round's URL (Location). */
  location: string | null;
}

function written<T>(text: string, response: Response): Written<T> {
  return {
    document: JSON.parse(text) as T,
    replayed: response.headers.get("Idempotent-Replayed") === "true",
    text,
    response,
  };
}

function idempotency(options: WriteOptions): { "Idempotency-Key"?: string } {
  return options.idempotencyKey === undefined ? {} : { "Idempotency-Key": options.idempotencyKey };
}

export class CapsaClient {
  /** openapi-fetch, typed for every path of openapi.yaml, with the key already set. */
  readonly api: Client<paths>;

  constructor(options: CapsaClientOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** `POST /v1/score`: the document `storeRound` would store, without storing it. */
  async score(round: RoundRequest, options: { signal?: AbortSignal } = {}): Promise<ScoreDocument> {
    return unwrap(this.api.POST("/v1/score", { body: round, signal: options.signal }));
  }

  /** `POST /v1/rounds`: score the round and store it (201, or the replay of an earlier 201). */
  async storeRound(round: RoundRequest, options: WriteOptions = {}): Promise<StoredRound> {
    const { response, text } = await this.text(this.api.POST("/v1/rounds", {
      body: round,
      params: { header: idempotency(options) },
      parseAs: "text",
      signal: options.signal,
    }));
    return { ...written<RoundDocument>(text, response), location: response.headers.get("Location") };
  }

  /** `GET /v1/rounds/{id}`: one of this client's rounds. */
  async getRound(roundId: string, options: { signal?: AbortSignal } = {}): Promise<RoundDocument> {
    return unwrap(this.api.GET("/v1/rounds/{round_id}", {
      params: { path: { round_id: roundId } },
      signal: options.signal,
    }));
  }

  /** `POST /v1/rounds/{id}/void`: void a stored round (a second void is a 409 `conflict`). */
  async voidRound(roundId: string, request: VoidRequest, options: WriteOptions = {}): Promise<Written<RoundDocument>> {
    const { response, text } = await this.text(this.api.POST("/v1/rounds/{round_id}/void", {
      body: request,
      params: { path: { round_id: roundId }, header: idempotency(options) },
      parseAs: "text",
      signal: options.signal,
    }));
    return written<RoundDocument>(text, response);
  }

  private async text(
    pending: Promise<{ data?: string; error?: unknown; response: Response }>,
  ): Promise<{ response: Response; text: string }> {
    const { data, error, response } = await pending;
    if (!response.ok) throw failure(response, error);
    return { response, text: data ?? "" };
  }
}

export function createCapsaClient(options: CapsaClientOptions): CapsaClient {
  return new CapsaClient(options);
}
