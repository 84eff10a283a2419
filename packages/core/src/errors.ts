/**
 * The one error model of Stateflow (DESIGN.md "Errors"; CONVENTIONS.md "Errors").
 *
 * Every failure anywhere in Stateflow is a {@link StateflowError} with a stable `code`
 * (declared once in {@link ErrorCode}, never renamed or reused), the typed `details` of that
 * code ({@link ErrorDetailsByCode}), a message a person can act on, and `cause` when it wraps a
 * foreign error. `StateflowError` is a union over the codes, so a `switch (err.code)` narrows
 * `err.details`. The facts of each code — meaning, retryable, HTTP status, exit code — are one
 * table, {@link ERROR_FACTS} (`error-facts.ts`), from which every transport derives its own.
 */
import type { MergeConflict } from './merge-conflict.js';

/** Stable error codes. The value equals the key; `errors.md` documents each one. */
export const ErrorCode = {
  // --- paths and reads (core) ---
  PATH_SYNTAX: 'PATH_SYNTAX',
  PATH_NOT_FOUND: 'PATH_NOT_FOUND',
  PATH_KIND: 'PATH_KIND',
  INDEX_OUT_OF_RANGE: 'INDEX_OUT_OF_RANGE',
  OWNER_NOT_SELECTED: 'OWNER_NOT_SELECTED',
  // --- patches (core) ---
  PATCH_INVALID: 'PATCH_INVALID',
  // --- tool inputs (tools) ---
  INPUT_INVALID: 'INPUT_INVALID',
  RESPONSE_TOO_LARGE: 'RESPONSE_TOO_LARGE',
  // --- store ---
  CONFLICT: 'CONFLICT',
  REVISION_NOT_FOUND: 'REVISION_NOT_FOUND',
  TRANSITION_NOT_FOUND: 'TRANSITION_NOT_FOUND',
  HISTORY_NOT_RETAINED: 'HISTORY_NOT_RETAINED',
  STREAM_INVALID: 'STREAM_INVALID',
  STORE_CORRUPT: 'STORE_CORRUPT',
  STORE_LOCKED: 'STORE_LOCKED',
  STORE_VERSION: 'STORE_VERSION',
  STORE_CLOSED: 'STORE_CLOSED',
  STORE_IO: 'STORE_IO',
  REOPEN_REQUIRED: 'REOPEN_REQUIRED',
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  MERGE_CONFLICT: 'MERGE_CONFLICT',
  MERGE_UNRELATED: 'MERGE_UNRELATED',
  UNDO_CONFLICT: 'UNDO_CONFLICT',
  TAG_NOT_FOUND: 'TAG_NOT_FOUND',
  TAG_INVALID: 'TAG_INVALID',
  SHAPE_INVALID: 'SHAPE_INVALID',
  SHAPE_NOT_FOUND: 'SHAPE_NOT_FOUND',
  SHAPE_VIOLATION: 'SHAPE_VIOLATION',
  SHAPE_UPCAST_FAILED: 'SHAPE_UPCAST_FAILED',
  RETENTION_INVALID: 'RETENTION_INVALID',
  // --- ladders, slates and sessions ---
  CONFIG_INVALID: 'CONFIG_INVALID',
  SOURCE_UNRESOLVED: 'SOURCE_UNRESOLVED',
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_CLOSED: 'SESSION_CLOSED',
  SESSION_PAUSED: 'SESSION_PAUSED',
  MODEL_UNAVAILABLE: 'MODEL_UNAVAILABLE',
  MODEL_NOT_CONFIGURED: 'MODEL_NOT_CONFIGURED',
  MODEL_FAILED: 'MODEL_FAILED',
  // --- transports and CLI ---
  USAGE: 'USAGE',
  NOT_FOUND: 'NOT_FOUND',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  RATE_LIMITED: 'RATE_LIMITED',
  MEDIA_TYPE_UNSUPPORTED: 'MEDIA_TYPE_UNSUPPORTED',
  PACKAGE_NOT_INSTALLED: 'PACKAGE_NOT_INSTALLED',
  INTERNAL: 'INTERNAL',
} as const;

/** Union of every stable error code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Stable slugs for `PATCH_INVALID` `details.reason` (DESIGN.md "Patches", "Decisions").
 * Callers may switch on these; they are never renamed.
 */
export type PatchInvalidReason =
  /** The top-level patch is not a JSON object (array, scalar, `null`, `undefined`). */
  | 'not-object'
  /** The top-level patch is `{}`: an invalid no-op. */
  | 'empty'
  /** Not representable as JSON: `undefined`, NaN, ±Infinity, functions, symbols, bigints, class instances, sparse arrays, cycles. */
  | 'not-json'
  /** Containers nested more than 512 levels deep (an operational bound, not a semantic one). */
  | 'too-deep'
  /** `null` inside a value being written (an array, or an indexed element), where it is not a deletion marker. */
  | 'null-in-value'
  /** A key of the form `[…]` that is not a canonical non-negative decimal index (`[01]`, `[+1]`, `[ 1]`, `[1.0]`, `[]`). */
  | 'bad-index-syntax'
  /** An `[N]` key inside an object that is written as a value (inside an array), where it would be stored as data. */
  | 'index-key-in-value'
  /** One patch object mixes `"[N]"` keys with ordinary keys. */
  | 'mixed-index-and-keys'
  /** `"[N]"` keys addressed at a value that is not an array (an object, a scalar, or an absent key). */
  | 'index-on-non-array'
  /** `"[N]"` addresses an element that does not exist (N ≥ length). */
  | 'index-out-of-range'
  /** An object patch would create or replace a value with `{}` (only with `emptyObjects: 'refuse'`). */
  | 'empty-object'
  /** A name the patch adds that no `read_state` path can reach (outside `[A-Za-z_$][A-Za-z0-9_$-]*`; only `validatePatchKeys`, which the agent's `patch_state` applies). */
  | 'unreachable-key'
  /** The patch applies but leaves an invalid state (the store: a non-object `lazy` plane in a scope stream). */
  | 'invalid-state'
  /** A tool patch mixes scope roots (`global`, `cwd`, `session`) with unscoped planes. */
  | 'mixed-scoped-and-unscoped'
  /** A tool patch without scope roots while more than one owner is selected. */
  | 'unscoped-ambiguous'
  /** A tool patch names a key that is not a plane (`intents`, `strategy`, `tactics`, `artifacts`, `response`, `lazy`). */
  | 'unknown-plane'
  /** A tool patch would make a scope's `lazy` plane something other than an object. */
  | 'lazy-root'
  /** A tool patch writes `response` outside the session (new answers go only to the session). */
  | 'response-owner'
  /** A tool patch writes `response` in Passive mode. */
  | 'response-passive';

/**
 * Details of a `PATCH_INVALID` error: `at` is an RFC 6901 pointer into the patch (`""` = the
 * whole patch); `problem` is the message's own words without the location prefix, for callers
 * that report the same problem about another input (tool inputs, `meta`, slate values).
 */
export interface PatchInvalidDetails {
  reason: PatchInvalidReason;
  at: string;
  index?: string;
  length?: number;
  problem?: string;
}

/** Details of a code that carries none. */
export type NoDetails = Record<string, never>;

/**
 * The details every code carries — required, one shape per code (a union where a code is raised
 * about different things). Paths are the caller's path text (at most 200 characters of it);
 * `column` is 1-based; `at` is always an RFC 6901 pointer (`""` for the whole value); `field` is
 * a dotted location in a tool or request input.
 */
export interface ErrorDetailsByCode {
  PATH_SYNTAX: { path: string; column: number };
  PATH_NOT_FOUND: { path: string; at?: string };
  PATH_KIND: { path: string; expected: string; actual: string; at?: string };
  INDEX_OUT_OF_RANGE: { path: string; index: number | string; length: number; at?: string };
  OWNER_NOT_SELECTED: { path?: string; owner: string };
  PATCH_INVALID: PatchInvalidDetails;
  INPUT_INVALID: { field?: string; reason?: string };
  /**
   * A read whose answer would pass a transport ceiling: `cap: 'paths'` — more paths than
   * `limit` in one batch (`requested` of them); `cap: 'bytes'` — results passing `limit` bytes
   * of JSON, crossed at the 0-based path `index` of the batch (0 for a single path).
   */
  RESPONSE_TOO_LARGE: { cap: 'paths'; limit: number; requested: number } | { cap: 'bytes'; limit: number; index: number };
  CONFLICT: { stream: string; expected: number | 'none' | 'any'; actual: number };
  REVISION_NOT_FOUND: { stream: string; rev: number; head: number };
  TRANSITION_NOT_FOUND: { seq: number; lastSeq: number };
  HISTORY_NOT_RETAINED: { stream: string; rev: number; origin: number };
  STREAM_INVALID: { stream: string };
  STORE_CORRUPT: { detail: string; stream?: string; key?: string; file?: string; offset?: number };
  STORE_LOCKED: { dir: string; pid?: number };
  STORE_VERSION: { found: unknown; supported: number };
  STORE_CLOSED: NoDetails;
  STORE_IO: { location: string | null; code: string | null; reason?: 'no-write-access' };
  /**
   * `outcome`: `'not-sent'` — nothing reached a server; `'unknown'` — a write may have been
   * applied. `reason: 'server-unverified'` — the process at `url` could not prove it holds the
   * discovery file's token, so it was sent neither the token nor the request. `holderPid` — the
   * PostgreSQL backend holding the store's lock past the writer's lock timeout.
   */
  STORE_UNAVAILABLE: { url?: string; dir?: string; outcome: 'not-sent' | 'unknown'; reason?: 'server-unverified'; holderPid?: number };
  REOPEN_REQUIRED: { location: string | null; failure: ErrorCode };
  /**
   * A merge of `from`@`fromRev` into `into`@`intoRev` from `base` left conflicts open: every
   * conflict is listed, the settled ones with their `resolution`; nothing was published.
   */
  MERGE_CONFLICT: { from: string; into: string; fromRev: number; intoRev: number; base: { stream: string; rev: number }; conflicts: MergeConflict[] };
  MERGE_UNRELATED: { from: string; into: string };
  /**
   * An undo of the writer's transitions since `since` met paths another writer changed after
   * them and was not told how to settle each; every conflict is listed with its stream, the
   * settled ones with their `resolution`; nothing was published.
   */
  UNDO_CONFLICT: { since: number; through: number; undone: number; conflicts: (MergeConflict & { stream: string })[] };
  TAG_NOT_FOUND: { tag: string };
  /**
   * A tag declaration that is not well-formed (`reason`: `name` — outside the tag grammar;
   * `record` — not `{ seq, stream?, rev? }`; `future` — a seq or revision the log does not hold
   * yet; `exists` — a tag set again without `move`).
   */
  TAG_INVALID: { tag: string; reason: 'name' | 'record' | 'future' | 'exists' };
  /**
   * A shape declaration that is not well-formed (`reason`: `name` — outside the tag grammar;
   * `record` — not `{ streams, versions }`; `streams` — a bad pattern, or one changed after
   * version 1; `schema` — not a JSON Schema ajv compiles in strict mode; `upcast` — a bad
   * operation list; `history` — a version removed or rewritten; `heads` — a head that would
   * not validate under the new version, without `force`).
   */
  SHAPE_INVALID: { shape: string; reason: 'name' | 'record' | 'streams' | 'schema' | 'upcast' | 'history' | 'heads' };
  /** No shape `shape` is declared, or it has no version `version`. */
  SHAPE_NOT_FOUND: { shape: string; version?: number };
  /**
   * A write whose resulting state of `stream` does not validate under version `version` of
   * `shape`: `path` (RFC 6901) is where, `rule` the schema keyword (`required`, `type`, …) and
   * `schemaPath` the rule in the schema; `rule: 'version'` when the head is not in that version
   * yet (an upgrade is running).
   */
  SHAPE_VIOLATION: { stream: string; shape: string; version: number; path: string; rule: string; schemaPath: string };
  /**
   * Revision `rev` of `stream` could not be upcast to `shape`'s version `step` (the step from
   * `step − 1`): `op` is the operation's index (`''` for the step itself), `reason` the core
   * reason, `missing-step` (no such version) or `invalid-result` (the result fails the schema).
   */
  SHAPE_UPCAST_FAILED: { stream: string; rev: number; shape: string; step: number; op: string; reason: 'pointer' | 'not-container' | 'missing-function' | 'function-threw' | 'not-json' | 'missing-step' | 'invalid-result' };
  /**
   * A retention policy declaration that is not well-formed (`reason`: `pattern` — not a stream
   * family pattern; `policy` — not `{ maxAgeMs?, maxRevisions?, maxBytes?, idleMs? }` with at least
   * one limit, each an integer ≥ 1).
   */
  RETENTION_INVALID: { pattern: string; reason: 'pattern' | 'policy' };
  CONFIG_INVALID: { problems: string[] };
  SOURCE_UNRESOLVED: { who: string };
  BUDGET_EXCEEDED: { folder: string; budget: number; tokens: number };
  SESSION_NOT_FOUND: { session: string };
  SESSION_CLOSED: { session: string; status: string };
  SESSION_PAUSED: { session: string };
  MODEL_UNAVAILABLE: { url: string };
  /**
   * `missing: 'upstream'` — no model at all (no `--model`, no `OPENAI_BASE_URL` /
   * `OPENAI_API_KEY`); `'upstream-model'` — a request's `model` named the ladder itself, which
   * means the default upstream model, and none is configured (`model` is that request's name).
   */
  MODEL_NOT_CONFIGURED: { missing: 'upstream' } | { missing: 'upstream-model'; model: string };
  MODEL_FAILED: { step: string } | { url: string; status: number } | { origin: string; calls: number };
  USAGE: { at?: string; stream?: string; mode?: string; reason?: string; dir?: string; model?: string; path?: string; errno?: string };
  NOT_FOUND: { dir: string } | { url: string } | { url: string; database: string } | { file: string } | { stream: string } | { repo: string } | { route: string } | { ladder: string } | { ladder: string; model: string };
  UNAUTHORIZED: NoDetails;
  /**
   * A refused `Host`/`Origin` header; a `local/` ladder on a server with API keys; a route
   * served to the store's owner only (`access: 'owner'`); a stream an API-key user may not
   * write (`reason: 'runtime-stream'`: session records and slates are written by the ladder
   * runtime alone); an undo of another user's writes by an API-key user (`reason: 'others-writes'`).
   */
  FORBIDDEN:
    | { header: string; value: string }
    | { ladder: string; reason: 'local-ladder' }
    | { route: string; access: 'owner' }
    | { stream: string; reason: 'runtime-stream' }
    | { user: string; reason: 'others-writes' };
  BODY_TOO_LARGE: { limit: number };
  HEADERS_TOO_LARGE: { limit: number };
  REQUEST_TIMEOUT: NoDetails;
  /**
   * `limit: 'requests'` — the key's request rate (`max` requests per `windowMs`);
   * `'model-calls'` — the key's concurrent model calls (`max` at once). `retryAfterSeconds` is
   * what the answer's `Retry-After` header says.
   */
  RATE_LIMITED: { limit: 'requests' | 'model-calls' | 'watches' | 'server-watches'; max: number; windowMs?: number; retryAfterSeconds: number };
  MEDIA_TYPE_UNSUPPORTED: { contentType: string };
  /** `package`: the npm package a `feature` needs and that is not installed (an optional peer). */
  PACKAGE_NOT_INSTALLED: { package: string; feature: string };
  /** `requestId`: the HTTP server's id of the request, also in its log line and `x-request-id`. */
  INTERNAL: { requestId?: string; operation?: string };
}

/** The details type of a code. */
export type ErrorDetails<C extends ErrorCode> = ErrorDetailsByCode[C];

/** The one class behind {@link StateflowError}; use that name, never this one. */
class StateflowErrorOfCode<C extends ErrorCode> extends Error {
  /** Stable machine-readable code; switch on this, never on `message`. */
  readonly code: C;
  /** The typed details of this code (paths, columns, revisions, …). */
  readonly details: ErrorDetailsByCode[C];

  constructor(code: C, message: string, details: ErrorDetailsByCode[C], options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StateflowError';
    this.code = code;
    this.details = details;
  }

  /** Plain JSON form, the same on every transport: `{ code, message, details }`. */
  toJSON(): { code: C; message: string; details: ErrorDetailsByCode[C] } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * A Stateflow error of one of the codes `C` (default: any): a union of one type per code, so
 * that `switch (err.code)` (or `err.code === 'CONFLICT'`) narrows `err.details` to that code's
 * shape.
 *
 * @example
 * if (isStateflowError(err, 'CONFLICT')) retryFrom(err.details.actual);
 * switch (err.code) { case 'REVISION_NOT_FOUND': return err.details.head; }
 */
export type StateflowError<C extends ErrorCode = ErrorCode> = C extends ErrorCode ? StateflowErrorOfCode<C> : never;

/** The constructor of {@link StateflowError}: `instanceof StateflowError` narrows to the union. */
export interface StateflowErrorConstructor {
  /**
   * @param code the stable code
   * @param message what went wrong and what to do next, for a person
   * @param details the code's typed details ({@link ErrorDetailsByCode})
   * @param options `cause`: the foreign error this one wraps
   */
  new <C extends ErrorCode>(code: C, message: string, details: ErrorDetailsByCode[C], options?: { cause?: unknown }): StateflowError<C>;
  readonly prototype: StateflowError;
}

/** The single error class of Stateflow (see the type of the same name). */
export const StateflowError = StateflowErrorOfCode as unknown as StateflowErrorConstructor;

/** True when `err` is a {@link StateflowError}, optionally with one of the given codes. */
export function isStateflowError<C extends ErrorCode = ErrorCode>(err: unknown, ...codes: C[]): err is StateflowError<C> {
  return err instanceof StateflowErrorOfCode && (codes.length === 0 || codes.includes(err.code as C));
}

/**
 * The same error — code and details — with `prefix` before its message and the original as its
 * `cause`: for a caller that knows where in a larger request the error arose (`Input 3 of 10: `).
 */
export function withMessagePrefix<E extends StateflowError>(err: E, prefix: string): E {
  const copy: StateflowErrorOfCode<ErrorCode> = new StateflowErrorOfCode<ErrorCode>(err.code, `${prefix}${err.message}`, err.details, { cause: err });
  return copy as E;
}
