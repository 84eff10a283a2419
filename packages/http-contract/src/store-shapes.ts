/**
 * The store's shapes as the store API sends and takes them (store `types.ts`: `Transition`,
 * `StreamHead`, `PublishInput`, `PublishResult`, `MergeInput`, `MergeResult`, `AuditReport`).
 * Request parts are validated exactly as written here: bodies without coercion, query strings
 * with integers coerced (`?rev=3`; server `request-validation.ts`).
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { enumOf, jsonObject, jsonValueOrNull } from './json-schemas.js';

/** A stream id. */
export const streamId = Type.String({ description: 'A stream id: global, cwd:/abs/dir, session:ID, slate:@author/name:ID, …' });

/**
 * A revision or seq. Query strings are coerced: "1e400" arrives as Infinity and 2^53 + 1
 * rounded, so the maximum refuses both.
 */
export const revision = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** Most streams one request may name. */
export const MAX_STREAMS = 1000;

/** A list of stream ids. */
export const streamList = Type.Array(streamId, { maxItems: MAX_STREAMS });

/** The server token may ride in any query string (browser URLs, EventSource); it is checked before routing. */
export const tokenParameter = Type.String({ description: 'The server token (for browsers; clients send the X-Stateflow-Token header)' });

/** An expected revision (store `ExpectedRevision`). */
export const expectedRevision = Type.Union([revision, enumOf(['none', 'any'])], { description: 'a revision (integer ≥ 0), "none" or "any"' });

/** One changed stream of a transition (store `StreamChange`). */
export const StreamChange = Type.Object({
  stream: streamId,
  rev: Type.Integer({ minimum: 1 }),
  patch: jsonObject({ description: 'The net patch' }),
});
export type StreamChange = Static<typeof StreamChange>;

/** A transition (store `Transition`): what the store recorded, hashes included. */
export const Transition = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  time: Type.String({ format: 'date-time' }),
  id: Type.Optional(Type.String()),
  meta: Type.Optional(jsonObject()),
  changes: Type.Array(StreamChange),
  prevHash: Type.String({ description: 'Hash of the previous transition, 64 hex (64 zeros for seq 1)' }),
  hash: Type.String({ description: 'sha256(prevHash ‖ canonical(body)), 64 hex' }),
});
export type Transition = Static<typeof Transition>;

/**
 * A transition as a reader may see it (the log, one transition, the watch stream): with API keys
 * only the caller's streams' changes, and then without the hashes when some were left out (they
 * hash the whole body).
 */
export const ShownTransition = Type.Object({
  ...Transition.properties,
  prevHash: Type.Optional(Type.String({ description: '64 hex; absent on a transition shown with only some of its changes' })),
  hash: Type.Optional(Type.String({ description: '64 hex; absent on a transition shown with only some of its changes' })),
});
export type ShownTransition = Static<typeof ShownTransition>;

/** A stream head (store `StreamHead`). */
export const StreamHead = Type.Object({ stream: streamId, rev: revision, seq: revision, origin: revision });
export type StreamHead = Static<typeof StreamHead>;

/** Store `PrunedTransition`: what compaction keeps of a transition (a `duplicate` of a pruned one carries it). */
export const PrunedTransition = Type.Object({
  pruned: Type.Literal(true),
  seq: Type.Integer(),
  id: Type.Optional(Type.String()),
  changes: Type.Array(Type.Object({ stream: streamId, rev: revision })),
  prevHash: Type.String(),
  hash: Type.String(),
});
export type PrunedTransition = Static<typeof PrunedTransition>;

/**
 * The transition a `duplicate` answers, as its caller may see it: the stored transition or its
 * pruned stub — with API keys only the caller's streams' changes, and without hashes and meta
 * when some were left out (as {@link ShownTransition}).
 */
export const DuplicateTransition = Type.Union([
  ShownTransition,
  Type.Object({ ...PrunedTransition.properties, prevHash: Type.Optional(Type.String()), hash: Type.Optional(Type.String()) }),
]);
export type DuplicateTransition = Static<typeof DuplicateTransition>;

/**
 * Whose idempotency id an input's `id` is (store `principal`). Honoured for the store's owner
 * only: the server sets an API-key user's to her own, so her ids never meet another user's.
 */
export const principal = Type.String({ minLength: 1, maxLength: 1024, description: "Whose idempotency id this is (the store's owner only; a key user's ids are always her own)" });

/** The store's `PublishInput`. */
export const PublishInput = Type.Object(
  {
    changes: Type.Unsafe<Record<string, JsonObject>>({
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: 'object' },
      description: 'Patch per stream id',
    }),
    expected: Type.Optional(
      Type.Unsafe<Record<string, number | 'none' | 'any'>>({ type: 'object', additionalProperties: expectedRevision, description: 'Expected head revision per stream id' }),
    ),
    id: Type.Optional(Type.String({ description: 'Idempotency id: a retry with an accepted id answers the original transition' })),
    principal: Type.Optional(principal),
    meta: Type.Optional(jsonObject()),
    durability: Type.Optional(enumOf(['buffered', 'fsync'])),
  },
  { additionalProperties: false },
);
export type PublishInput = Static<typeof PublishInput>;

/** Store `PublishResult`: accepted, duplicate (an id already accepted, with that transition or its pruned stub) or noop. */
export const PublishResult = Type.Union([
  Type.Object({ status: Type.Literal('accepted'), transition: Transition }),
  Type.Object({ status: Type.Literal('duplicate'), transition: DuplicateTransition }),
  Type.Object({ status: Type.Literal('noop'), transition: Type.Null() }),
]);
export type PublishResult = Static<typeof PublishResult>;

/** A conflict's resolution (core `MergeResolution`). */
export const mergeResolution = Type.Union([
  enumOf(['ours', 'theirs']),
  Type.Object({ value: jsonValueOrNull({ description: 'any JSON value; null deletes the path' }) }, { additionalProperties: false }),
]);

/** The store's `MergeInput`. */
export const MergeInput = Type.Object(
  {
    from: streamId,
    into: streamId,
    fromRev: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Revision of from to merge (default: its head)' })),
    expected: Type.Optional(Type.Union([revision, enumOf(['none', 'any'])], { description: 'Expected head revision of into' })),
    resolve: Type.Optional(
      Type.Unsafe<Record<string, 'ours' | 'theirs' | { value: JsonValue | null }>>({
        type: 'object',
        additionalProperties: mergeResolution,
        description: 'Resolution per conflict path (RFC 6901 pointer)',
      }),
    ),
    prefer: Type.Optional(enumOf(['ours', 'theirs'], { description: 'The side taken at every conflict resolve does not name' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'Answer the merge (status preview) without publishing' })),
    id: Type.Optional(Type.String({ description: 'Idempotency id' })),
    principal: Type.Optional(principal),
    meta: Type.Optional(jsonObject({ description: 'Metadata beside the merge record (may not hold merge or fork)' })),
  },
  { additionalProperties: false },
);
export type MergeInput = Static<typeof MergeInput>;

/** A merge conflict (core `MergeConflict`): `null` where the path is absent on that side. */
export const MergeConflict = Type.Object({
  path: Type.String({ description: 'RFC 6901 pointer into the state' }),
  base: jsonValueOrNull({ description: 'The base value (null: absent)' }),
  ours: jsonValueOrNull({ description: "into's value (null: deleted or absent)" }),
  theirs: jsonValueOrNull({ description: "from's value (null: deleted or absent)" }),
  resolution: Type.Optional(mergeResolution),
});
export type MergeConflict = Static<typeof MergeConflict>;

/** What a merge computed (store `MergePlan`). */
const mergePlan = {
  from: streamId,
  fromRev: revision,
  into: streamId,
  intoRev: revision,
  base: Type.Object({ stream: streamId, rev: revision }),
  patch: jsonObject({ description: 'The net patch on into (published, or that would be)' }),
  conflicts: Type.Array(MergeConflict),
};

/** Store `MergeResult`: the plan (absent for a duplicate) and the transition. */
export const MergeResult = Type.Union([
  Type.Object({ ...mergePlan, status: Type.Literal('accepted'), transition: Transition }),
  Type.Object({ ...mergePlan, status: enumOf(['noop', 'preview']), transition: Type.Null() }),
  Type.Object({ status: Type.Literal('duplicate'), transition: DuplicateTransition }),
]);
export type MergeResult = Static<typeof MergeResult>;

/** Store `AuditReport`. */
export const AuditReport = Type.Object({
  transitions: Type.Integer(),
  streams: Type.Integer(),
  checkpoints: Type.Integer(),
  problems: Type.Array(
    Type.Object({ code: Type.String(), stream: Type.Optional(Type.String()), key: Type.Optional(Type.String()), detail: Type.String() }),
  ),
});
export type AuditReport = Static<typeof AuditReport>;
