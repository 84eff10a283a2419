/**
 * The retention declarations (README "Retention"): the state of `stateflow:retention` is one
 * object, a stream-family pattern → `{ maxAgeMs?, maxRevisions?, maxBytes?, idleMs? }`. This
 * module owns its rules (applied when it is written and by the audit) and reading the policies
 * out of it.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { parseStreamFamily } from '../stream-family.js';
import type { StreamFamily } from '../stream-family.js';

/**
 * What one family keeps. Every limit is an integer ≥ 1, at least one is given, and a stream
 * keeps what every limit given keeps (the strictest wins).
 */
export interface RetentionPolicy {
  /** Keep revisions younger than this many milliseconds (and the state as of that age). */
  maxAgeMs?: number;
  /** Keep at most this many revisions (the head included). */
  maxRevisions?: number;
  /** Keep at most this many bytes of net patches (UTF-8 JSON) per stream. */
  maxBytes?: number;
  /** Drop a stream idle (no revision) for longer than this many milliseconds: a thread TTL. */
  idleMs?: number;
}

/** A policy with the family it governs. */
export interface FamilyPolicy {
  family: StreamFamily;
  policy: RetentionPolicy;
}

const LIMITS = ['maxAgeMs', 'maxRevisions', 'maxBytes', 'idleMs'] as const;

/**
 * Check the whole retention state `state`.
 * @throws RETENTION_INVALID `{ pattern, reason }`: `pattern` (not a stream family pattern),
 *   `policy` (not `{ maxAgeMs?, maxRevisions?, maxBytes?, idleMs? }` with at least one limit, each
 *   an integer ≥ 1)
 */
export function checkRetentionDeclarations(state: JsonObject): void {
  for (const [pattern, value] of Object.entries(state)) policyOf(pattern, value);
}

/**
 * The family and policy of member `pattern` (its stored `value`).
 * @throws RETENTION_INVALID as {@link checkRetentionDeclarations}
 */
export function policyOf(pattern: string, value: JsonValue | undefined): FamilyPolicy {
  let family: StreamFamily;
  try {
    family = parseStreamFamily(pattern);
  } catch (err) {
    throw retentionInvalid(pattern, 'pattern', (err as Error).message);
  }
  if (!isJsonObject(value)) throw badPolicy(pattern);
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((key) => !(LIMITS as readonly string[]).includes(key))) throw badPolicy(pattern);
  const policy: RetentionPolicy = {};
  for (const limit of LIMITS) {
    const n = value[limit];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badPolicy(pattern);
    policy[limit] = n;
  }
  return { family, policy };
}

/** Every policy of a retention state (members that do not verify are left out: the audit reports them). */
export function policiesOf(state: JsonObject): FamilyPolicy[] {
  const out: FamilyPolicy[] = [];
  for (const [pattern, value] of Object.entries(state)) {
    try {
      out.push(policyOf(pattern, value));
    } catch {
      // see above
    }
  }
  return out;
}

/** A RETENTION_INVALID error. */
export function retentionInvalid(pattern: string, reason: 'pattern' | 'policy', message: string): StateflowError<'RETENTION_INVALID'> {
  return new StateflowError('RETENTION_INVALID', `${message}; nothing was written`, { pattern, reason });
}

function badPolicy(pattern: string): StateflowError<'RETENTION_INVALID'> {
  return retentionInvalid(pattern, 'policy', `Retention policy of ${pattern} must be { maxAgeMs?, maxRevisions?, maxBytes?, idleMs? } with at least one limit, each an integer ≥ 1`);
}
