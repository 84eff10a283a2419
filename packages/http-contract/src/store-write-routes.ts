/**
 * The store API's writes (server README "Store API"): publish, fork, merge, revert and compact
 * name only streams the caller may write; append and the audit cover the whole log and are for
 * the store's owner only.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { bodyErrors } from './error-responses.js';
import { VISIBILITY } from './store-read-routes.js';
import { AuditReport, MergeInput, MergeResult, PublishInput, PublishResult, Transition, expectedRevision, principal, revision, streamId } from './store-shapes.js';
import { UndoInput, UndoResult } from './undo-shapes.js';

/** Most inputs one `publish-many` (or transitions one `append-many`) request may carry: its cost stays bounded, like the body size. */
export const PUBLISH_MANY_LIMIT = 1_000;

const OWNER_ONLY = " For the store's owner only (403 FORBIDDEN for an API-key user).";

/**
 * An exported transition as `append` takes it: the store checks every member of it (seq, chain,
 * hash) and says what is wrong, so the schema asks only for an object.
 */
const exportedTransition = Type.Unsafe<Static<typeof Transition>>({ type: 'object', description: 'An exported transition: seq, time, id, meta, changes, prevHash, hash' });

export const publishRoute = {
  method: 'POST',
  url: '/v1/store/publish',
  schema: {
    operationId: 'publish',
    summary: `Publish one transition atomically with CAS (store \`publish\`): a patch per stream, expected revisions, an idempotency id, meta, durability.${VISIBILITY}`,
    body: PublishInput,
    response: { 200: Type.Union(PublishResult.anyOf, { description: 'accepted, duplicate (an id already accepted) or noop' }), ...bodyErrors(401, 404, 409, 503) },
  },
} as const;

export const publishManyRoute = {
  method: 'POST',
  url: '/v1/store/publish-many',
  schema: {
    operationId: 'publishMany',
    summary: `Publish up to 1,000 inputs all or nothing (store \`publishMany\`): each its own transition, one atomic write; \`results\` in input order. The first input that fails fails the request and nothing is published.${VISIBILITY}`,
    body: Type.Object({ inputs: Type.Array(PublishInput, { minItems: 1, maxItems: PUBLISH_MANY_LIMIT }) }, { additionalProperties: false }),
    response: { 200: Type.Object({ results: Type.Array(PublishResult) }, { description: 'One result per input' }), ...bodyErrors(401, 404, 409, 503) },
  },
} as const;

export const forkRoute = {
  method: 'POST',
  url: '/v1/store/fork',
  schema: {
    operationId: 'fork',
    summary: `Set stream \`to\` to \`from\`'s state at \`at\` (default its head) in one transition.${VISIBILITY}`,
    body: Type.Object(
      { from: streamId, to: streamId, at: Type.Optional(revision), expected: Type.Optional(expectedRevision), id: Type.Optional(Type.String()), principal: Type.Optional(principal) },
      { additionalProperties: false },
    ),
    response: { 200: Type.Union(PublishResult.anyOf, { description: 'The result' }), ...bodyErrors(401, 404, 409, 410) },
  },
} as const;

export const mergeRoute = {
  method: 'POST',
  url: '/v1/store/merge',
  schema: {
    operationId: 'merge',
    summary:
      'Three-way merge of stream `from` into stream `into` from their merge base (store `merge`): one transition on `into` with meta `merge`. ' +
      'Conflicts left open answer 409 MERGE_CONFLICT with every conflict in `error.details.conflicts`, and nothing is published; `dryRun` answers the plan (status preview) instead. ' +
      `Streams with no common origin answer 422 MERGE_UNRELATED; a base compacted away 410.${VISIBILITY}`,
    body: MergeInput,
    response: { 200: Type.Union(MergeResult.anyOf, { description: 'accepted, noop, preview or duplicate' }), ...bodyErrors(401, 404, 409, 410, 422) },
  },
} as const;

export const undoRoute = {
  method: 'POST',
  url: '/v1/store/undo',
  schema: {
    operationId: 'undo',
    summary:
      "Undo one writer's transitions since a seq, time or tag (store `undo`): per stream, a three-way merge of the head with the state without them, published as one transition with meta `undo`. " +
      'Paths another writer changed after them that the undo is not told how to settle answer 409 UNDO_CONFLICT with every conflict in `error.details.conflicts`, and nothing is published; `dryRun` answers the plan (status preview) instead. ' +
      "An API-key user undoes only her own writes (`writer.user` is hers, or left out; another user's is 403 FORBIDDEN) on streams she may write; the store's owner anyone's.",
    body: UndoInput,
    response: { 200: Type.Union(UndoResult.anyOf, { description: 'accepted, noop, preview or duplicate' }), ...bodyErrors(401, 403, 404, 409, 410) },
  },
} as const;

export const revertRoute = {
  method: 'POST',
  url: '/v1/store/revert',
  schema: {
    operationId: 'revert',
    summary: `A new transition restoring the stream's state at \`rev\`; history is never rewritten.${VISIBILITY}`,
    body: Type.Object({ stream: streamId, rev: revision }, { additionalProperties: false }),
    response: { 200: Type.Union(PublishResult.anyOf, { description: 'The result' }), ...bodyErrors(401, 404, 410) },
  },
} as const;

export const compactRoute = {
  method: 'POST',
  url: '/v1/store/compact',
  schema: {
    operationId: 'compact',
    summary: `Keep the newest \`keepRevisions\` revisions of a stream; reads below the new origin answer 410.${VISIBILITY}`,
    body: Type.Object({ stream: streamId, keepRevisions: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    response: {
      200: Type.Object({ origin: revision, deleted: Type.Integer({ minimum: 0 }) }, { description: 'The new origin and the revisions deleted' }),
      ...bodyErrors(401, 404),
    },
  },
} as const;

export const appendRoute = {
  method: 'POST',
  url: '/v1/store/append',
  schema: {
    operationId: 'append',
    summary: `Append an exported transition verbatim (store \`append\`: same seq, time, id, meta and hash, each checked), as \`stateflow replay\` does.${OWNER_ONLY}`,
    body: Type.Object({ transition: exportedTransition }, { additionalProperties: false }),
    response: { 200: Type.Object({ seq: revision }, { description: 'Appended' }), ...bodyErrors(401) },
  },
} as const;

export const appendManyRoute = {
  method: 'POST',
  url: '/v1/store/append-many',
  schema: {
    operationId: 'appendMany',
    summary: `Append up to 1,000 exported transitions verbatim, all or nothing (store \`appendMany\`: each checked as \`append\` checks it, against the ones before it; one atomic write).${OWNER_ONLY}`,
    body: Type.Object({ transitions: Type.Array(exportedTransition, { minItems: 1, maxItems: PUBLISH_MANY_LIMIT }) }, { additionalProperties: false }),
    response: { 200: Type.Object({ seq: revision }, { description: 'Appended; `seq` is the last seq' }), ...bodyErrors(401) },
  },
} as const;

export const auditRoute = {
  method: 'POST',
  url: '/v1/store/audit',
  schema: {
    operationId: 'audit',
    summary: `Replay and verify the whole store (hash chain, checkpoints, heads, indexes).${OWNER_ONLY} Takes \`{}\`.`,
    body: Type.Object({}, { additionalProperties: false }),
    response: { 200: Type.Object(AuditReport.properties, { description: 'The report: problems is empty when clean' }), ...bodyErrors(401) },
  },
} as const;

/** The store API's writes. */
export const STORE_WRITE_ROUTES = [publishRoute, publishManyRoute, forkRoute, mergeRoute, undoRoute, revertRoute, compactRoute, appendRoute, appendManyRoute, auditRoute] as const;
