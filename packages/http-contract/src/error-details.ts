/**
 * The shape of each error code's `details` on the wire, as a schema per code: what a client
 * checks an error answer against before it hands the caller a typed `StateflowError`
 * (`ErrorDetailsByCode` of `@stateflow/core`; the compiler holds each schema to that type).
 * Objects allow members beyond the declared ones: a 5xx answer adds `requestId`, and a newer
 * server may add a member a client does not know yet.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { ErrorCode } from '@stateflow/core/errors';
import type { ErrorDetailsByCode } from '@stateflow/core/errors';
import type { PatchInvalidReason } from '@stateflow/core';

/** Any JSON value, or `null` (a side of a merge conflict where the path is absent). */
const JsonValue = Type.Recursive((This) =>
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(This), Type.Record(Type.String(), This)]),
);

const { Object: O, String: S, Number: N, Literal: L, Optional: Opt, Union: U } = Type;
const path = S();
const at = Opt(S());
const stream = S();

/** Every `PatchInvalidReason` of core (the checks below keep the two lists equal). */
const PATCH_INVALID_REASONS = [
  'not-object',
  'empty',
  'not-json',
  'too-deep',
  'null-in-value',
  'bad-index-syntax',
  'index-key-in-value',
  'mixed-index-and-keys',
  'index-on-non-array',
  'index-out-of-range',
  'empty-object',
  'unreachable-key',
  'invalid-state',
  'mixed-scoped-and-unscoped',
  'unscoped-ambiguous',
  'unknown-plane',
  'lazy-root',
  'response-owner',
  'response-passive',
] as const satisfies readonly PatchInvalidReason[];
/** A reason core has and the list lacks: `never` while they are equal. */
type MissingReason = Exclude<PatchInvalidReason, (typeof PATCH_INVALID_REASONS)[number]>;
// A reason core adds and this list lacks fails to compile here.
const PATCH_INVALID_REASONS_COMPLETE: [MissingReason] extends [never] ? true : MissingReason = true;

const PatchInvalid = O({ reason: U(PATCH_INVALID_REASONS.map((r) => L(r))), at: S(), index: Opt(S()), length: Opt(N()), problem: Opt(S()) });

const MergeConflict = O({
  path: S(),
  base: JsonValue,
  ours: JsonValue,
  theirs: JsonValue,
  resolution: Opt(U([L('ours'), L('theirs'), O({ value: JsonValue })])),
});

/** A schema whose static type is `T`. */
export type SchemaOf<T> = TSchema & { static: T };

/**
 * The details schema of every code. The compiler holds each to `ErrorDetailsByCode` both ways:
 * what the schema accepts has the code's type (`satisfies`), and every value of the type is
 * accepted ({@link ERROR_DETAILS_COMPLETE}).
 */
export const ERROR_DETAILS = {
  PATH_SYNTAX: O({ path, column: N() }),
  PATH_NOT_FOUND: O({ path, at }),
  PATH_KIND: O({ path, expected: S(), actual: S(), at }),
  INDEX_OUT_OF_RANGE: O({ path, index: U([N(), S()]), length: N(), at }),
  OWNER_NOT_SELECTED: O({ path: Opt(S()), owner: S() }),
  PATCH_INVALID: PatchInvalid,
  INPUT_INVALID: O({ field: Opt(S()), reason: Opt(S()) }),
  RESPONSE_TOO_LARGE: U([O({ cap: L('paths'), limit: N(), requested: N() }), O({ cap: L('bytes'), limit: N(), index: N() })]),
  CONFLICT: O({ stream, expected: U([N(), L('none'), L('any')]), actual: N() }),
  REVISION_NOT_FOUND: O({ stream, rev: N(), head: N() }),
  TRANSITION_NOT_FOUND: O({ seq: N(), lastSeq: N() }),
  HISTORY_NOT_RETAINED: O({ stream, rev: N(), origin: N() }),
  STREAM_INVALID: O({ stream }),
  STORE_CORRUPT: O({ detail: S(), stream: Opt(S()), key: Opt(S()), file: Opt(S()), offset: Opt(N()) }),
  STORE_LOCKED: O({ dir: S(), pid: Opt(N()) }),
  STORE_VERSION: O({ found: Type.Unknown(), supported: N() }),
  STORE_CLOSED: O({}),
  STORE_IO: O({ location: U([S(), Type.Null()]), code: U([S(), Type.Null()]), reason: Opt(L('no-write-access')) }),
  STORE_UNAVAILABLE: O({ url: Opt(S()), dir: Opt(S()), outcome: U([L('not-sent'), L('unknown')]), reason: Opt(L('server-unverified')), holderPid: Opt(N()) }),
  REOPEN_REQUIRED: O({ location: U([S(), Type.Null()]), failure: Type.Enum(ErrorCode) }),
  MERGE_CONFLICT: O({ from: S(), into: S(), fromRev: N(), intoRev: N(), base: O({ stream, rev: N() }), conflicts: Type.Array(MergeConflict) }),
  MERGE_UNRELATED: O({ from: S(), into: S() }),
  UNDO_CONFLICT: O({ since: N(), through: N(), undone: N(), conflicts: Type.Array(Type.Intersect([MergeConflict, O({ stream })])) }),
  TAG_NOT_FOUND: O({ tag: S() }),
  TAG_INVALID: O({ tag: S(), reason: U([L('name'), L('record'), L('future'), L('exists')]) }),
  SHAPE_INVALID: O({ shape: S(), reason: U([L('name'), L('record'), L('streams'), L('schema'), L('upcast'), L('history'), L('heads')]) }),
  SHAPE_NOT_FOUND: O({ shape: S(), version: Opt(N()) }),
  SHAPE_VIOLATION: O({ stream, shape: S(), version: N(), path: S(), rule: S(), schemaPath: S() }),
  SHAPE_UPCAST_FAILED: O({
    stream,
    rev: N(),
    shape: S(),
    step: N(),
    op: S(),
    reason: U([L('pointer'), L('not-container'), L('missing-function'), L('function-threw'), L('not-json'), L('missing-step'), L('invalid-result')]),
  }),
  RETENTION_INVALID: O({ pattern: S(), reason: U([L('pattern'), L('policy')]) }),
  CONFIG_INVALID: O({ problems: Type.Array(S()) }),
  SOURCE_UNRESOLVED: O({ who: S() }),
  BUDGET_EXCEEDED: O({ folder: S(), budget: N(), tokens: N() }),
  SESSION_NOT_FOUND: O({ session: S() }),
  SESSION_CLOSED: O({ session: S(), status: S() }),
  SESSION_PAUSED: O({ session: S() }),
  MODEL_UNAVAILABLE: O({ url: S() }),
  MODEL_NOT_CONFIGURED: U([O({ missing: L('upstream') }), O({ missing: L('upstream-model'), model: S() })]),
  MODEL_FAILED: U([O({ step: S() }), O({ url: S(), status: N() }), O({ origin: S(), calls: N() })]),
  USAGE: O({ at, stream: Opt(S()), mode: Opt(S()), reason: Opt(S()), dir: Opt(S()), model: Opt(S()), path: Opt(S()), errno: Opt(S()) }),
  NOT_FOUND: U([
    O({ dir: S() }),
    O({ url: S() }),
    O({ url: S(), database: S() }),
    O({ file: S() }),
    O({ stream }),
    O({ repo: S() }),
    O({ route: S() }),
    O({ ladder: S() }),
    O({ ladder: S(), model: S() }),
  ]),
  UNAUTHORIZED: O({}),
  FORBIDDEN: U([
    O({ header: S(), value: S() }),
    O({ ladder: S(), reason: L('local-ladder') }),
    O({ route: S(), access: L('owner') }),
    O({ stream, reason: L('runtime-stream') }),
    O({ user: S(), reason: L('others-writes') }),
  ]),
  BODY_TOO_LARGE: O({ limit: N() }),
  HEADERS_TOO_LARGE: O({ limit: N() }),
  REQUEST_TIMEOUT: O({}),
  RATE_LIMITED: O({ limit: U([L('requests'), L('model-calls'), L('watches'), L('server-watches')]), max: N(), windowMs: Opt(N()), retryAfterSeconds: N() }),
  MEDIA_TYPE_UNSUPPORTED: O({ contentType: S() }),
  PACKAGE_NOT_INSTALLED: O({ package: S(), feature: S() }),
  INTERNAL: O({ requestId: Opt(S()), operation: Opt(S()) }),
} as const satisfies { readonly [C in ErrorCode]: SchemaOf<ErrorDetailsByCode[C]> };

/** {@link ERROR_DETAILS} as the schema of each code's details type, for a check generic over the code. */
export const DETAILS_SCHEMA_OF: { readonly [C in ErrorCode]: SchemaOf<ErrorDetailsByCode[C]> } = ERROR_DETAILS;

/** The codes whose details type has values the schema refuses: `never` while there are none. */
type TooStrict = { [C in ErrorCode]: ErrorDetailsByCode[C] extends Static<(typeof ERROR_DETAILS)[C]> ? never : C }[ErrorCode];
// A schema stricter than its code's type (a member required that the type makes optional) fails to compile here.
const ERROR_DETAILS_COMPLETE: [TooStrict] extends [never] ? true : TooStrict = true;
