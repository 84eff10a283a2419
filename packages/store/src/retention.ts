/**
 * Retention policies (README "Retention"): per stream family (`stream-family.ts`), how much
 * history its streams keep — revisions younger than an age, at most N revisions, at most B bytes
 * of patches — and how long a stream may stay idle before it is dropped (a thread TTL). Policies
 * are declarations on `stateflow:retention`, so setting and removing one is a transition like any
 * other: audited, exported, replayed and time-travelled. These functions work over any
 * {@link Store} (in process, or a server's through `openRemoteStore`), writing with
 * compare-and-set on the retention stream; `retain` (`retain.ts`) applies them.
 */
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS } from './declarations.js';
import { retryOnConflict } from './conflict-retry.js';
import { policiesOf, policyOf } from './internal/retention-declarations.js';
import type { RetentionPolicy } from './internal/retention-declarations.js';
import { compareFamilies } from './stream-family.js';
import type { PublishResult, Store } from './types.js';

export type { RetentionPolicy } from './internal/retention-declarations.js';

const RETENTION = DECLARATION_STREAMS.retention;

/** A declared policy and the stream-family pattern it governs. */
export interface RetentionDeclaration extends RetentionPolicy {
  pattern: string;
}

/**
 * Every declared policy (as of now), in precedence order (stream families: an exact id first,
 * then the longer literal prefix, …), so the first whose pattern matches a stream governs it.
 */
export async function listRetention(store: Store): Promise<RetentionDeclaration[]> {
  const policies = policiesOf(await store.state(RETENTION)).sort((a, b) => compareFamilies(a.family, b.family));
  return policies.map(({ family, policy }) => ({ pattern: family.pattern, ...policy }));
}

/**
 * Declare the policy of the family `pattern` (replacing the one it had), in one transition on
 * `stateflow:retention` with `meta` (a `{ retention: { set: pattern } }` note beside the caller's);
 * declaring the policy it already has is a `noop`. Nothing is removed until a run (`retain`).
 * @param policy limits, each an integer ≥ 1, at least one: `maxAgeMs`, `maxRevisions`,
 *   `maxBytes` (per stream), `idleMs`
 * @throws RETENTION_INVALID `{ pattern, reason: 'pattern' | 'policy' }`
 */
export async function setRetention(store: Store, pattern: string, policy: RetentionPolicy, options: { meta?: JsonObject } = {}): Promise<PublishResult> {
  const checked = policyOf(pattern, policy as JsonObject).policy;
  return retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(RETENTION);
    // The whole record, limits it no longer has deleted.
    const record = { maxAgeMs: null, maxRevisions: null, maxBytes: null, idleMs: null, ...checked };
    return store.publish({ changes: { [RETENTION]: { [pattern]: record } }, expected: { [RETENTION]: head.rev }, meta: { ...options.meta, retention: { set: pattern } } });
  });
}

/**
 * Remove the policy of `pattern` in one transition on `stateflow:retention` (its history keeps
 * it); a `noop` when there is none.
 */
export async function removeRetention(store: Store, pattern: string, options: { meta?: JsonObject } = {}): Promise<PublishResult> {
  return retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(RETENTION);
    return store.publish({ changes: { [RETENTION]: { [pattern]: null } }, expected: { [RETENTION]: head.rev }, meta: { ...options.meta, retention: { removed: pattern } } });
  });
}
