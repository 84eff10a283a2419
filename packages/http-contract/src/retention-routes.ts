/**
 * Retention over HTTP (store README "Retention"): list, set and remove the policies of stream
 * families, and run them (dry or not). Every route is for the store's owner only: a policy and
 * a run act on every stream of a family, not only on a caller's own. A run over HTTP writes no
 * archive (a path on the server's disk is not the caller's); `stateflow retain run --archive`
 * through a server writes it on the caller's side.
 */
import { Type } from '@sinclair/typebox';
import { bodyErrors, errors } from './error-responses.js';
import { PublishResult, revision, streamId, tokenParameter } from './store-shapes.js';

const OWNER_ONLY = " For the store's owner only (403 FORBIDDEN for an API-key user).";

const limit = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description }));

/** A policy's limits (store `RetentionPolicy`). */
export const RetentionPolicy = Type.Object(
  {
    maxAgeMs: limit('keep revisions younger than this many milliseconds'),
    maxRevisions: limit('keep at most this many revisions per stream'),
    maxBytes: limit('keep at most this many bytes of net patches (UTF-8 JSON) per stream'),
    idleMs: limit('drop a stream with no revision for this many milliseconds'),
  },
  { additionalProperties: false },
);

const pattern = Type.String({ description: 'A stream-family pattern: session:*, langgraph:*, cwd:/repo' });
const totals = { streams: revision, revisions: revision, bytes: revision };

/** Store `RetainReport` (without an archive over HTTP: `archive` is null). */
export const RetainReport = Type.Object({
  dryRun: Type.Boolean(),
  now: Type.String({ description: 'The time applied, ISO 8601' }),
  families: Type.Array(Type.Object({ pattern, ...totals, kept: Type.Object(totals, { description: 'What the family\'s streams hold after the run: streams with a state, readable revisions above the origin, their net-patch bytes' }) })),
  total: Type.Object(totals),
  streams: Type.Array(
    Type.Object({ stream: streamId, family: pattern, rev: revision, fromOrigin: revision, origin: revision, revisions: revision, bytes: revision, expired: Type.Boolean() }),
  ),
  archive: Type.Null(),
});

export const listRetentionRoute = {
  method: 'GET',
  url: '/v1/store/retention',
  schema: {
    operationId: 'listRetention',
    summary: `Every retention policy, in precedence order (store \`listRetention\`).${OWNER_ONLY}`,
    querystring: Type.Object({ token: Type.Optional(tokenParameter) }, { additionalProperties: false }),
    response: { 200: Type.Object({ policies: Type.Array(Type.Intersect([Type.Object({ pattern }), RetentionPolicy])) }, { description: 'The policies' }), ...errors(400, 401, 403) },
  },
} as const;

export const setRetentionRoute = {
  method: 'POST',
  url: '/v1/store/retention/set',
  schema: {
    operationId: 'setRetention',
    summary: `Declare a stream family's retention policy, replacing its policy, in one transition on stateflow:retention (store \`setRetention\`).${OWNER_ONLY}`,
    body: Type.Object({ pattern, policy: RetentionPolicy }, { additionalProperties: false }),
    response: { 200: Type.Union(PublishResult.anyOf, { description: 'accepted, or noop when it had that policy' }), ...bodyErrors(401, 403) },
  },
} as const;

export const removeRetentionRoute = {
  method: 'POST',
  url: '/v1/store/retention/remove',
  schema: {
    operationId: 'removeRetention',
    summary: `Remove a stream family's retention policy (store \`removeRetention\`); noop when it has none.${OWNER_ONLY}`,
    body: Type.Object({ pattern }, { additionalProperties: false }),
    response: { 200: Type.Union(PublishResult.anyOf, { description: 'accepted or noop' }), ...bodyErrors(401, 403) },
  },
} as const;

export const retainRoute = {
  method: 'POST',
  url: '/v1/store/retain',
  schema: {
    operationId: 'retain',
    summary: `Apply every retention policy (store \`retain\`): per family and in total the streams, revisions and bytes removed and each stream's new origin; \`dryRun\` reports the same and writes nothing.${OWNER_ONLY}`,
    body: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 200: Type.Object(RetainReport.properties, { description: 'The report' }), ...bodyErrors(401, 403) },
  },
} as const;

/** The retention routes. */
export const RETENTION_ROUTES = [listRetentionRoute, setRetentionRoute, removeRetentionRoute, retainRoute] as const;
