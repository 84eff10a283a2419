/**
 * Selecting transitions by who wrote them (store README "Undo"): a {@link WriterMatch} names some
 * fields of a stamped `meta.writer` (server README "Who wrote it"), and a transition matches when
 * its writer has every one of them. What `store.undo`, `stateflow undo --writer` and the history
 * tools select by.
 */
import { describeInput } from './describe-input.js';
import { StateflowError } from './errors.js';
import type { JsonObject } from './json.js';
import { isJsonObject } from './json.js';
import { writerFields } from './meta-writer.js';

/**
 * Fields of `meta.writer` a transition must carry, each compared exactly — except `client`, which
 * also matches a stamped client's name without its `/version` (`claude-code` matches
 * `claude-code/1.2.0`). At least one field; each a non-empty string of at most 256 characters.
 */
export interface WriterMatch {
  user?: string;
  surface?: string;
  client?: string;
  ladder?: string;
  /** The MCP tool whose call wrote the transition (`meta.writer.tool`). */
  tool?: string;
}

/** The fields a {@link WriterMatch} may name. */
export const WRITER_MATCH_FIELDS = ['user', 'surface', 'client', 'ladder', 'tool'] as const;

/**
 * A checked copy of `match`.
 * @throws StateflowError `INPUT_INVALID` `{ field: 'writer', reason }`: `reason` is `type` (not an
 *   object), `empty` (no field), `unknown-field`, or `bad-value` (not a non-empty string ≤ 256).
 */
export function checkWriterMatch(match: unknown): WriterMatch {
  const refuse = (reason: string, why: string): never => {
    throw new StateflowError('INPUT_INVALID', `writer ${why}`, { field: 'writer', reason });
  };
  if (!isJsonObject(match)) return refuse('type', `must be an object such as { user: "agent-7" }, got ${describeInput(match)}`);
  const out: WriterMatch = {};
  for (const [key, value] of Object.entries(match)) {
    if (!(WRITER_MATCH_FIELDS as readonly string[]).includes(key)) refuse('unknown-field', `has unknown field ${JSON.stringify(key)}; match on ${WRITER_MATCH_FIELDS.join(', ')}`);
    if (typeof value !== 'string' || value === '' || value.length > 256) refuse('bad-value', `.${key} must be a non-empty string of at most 256 characters, got ${describeInput(value)}`);
    out[key as keyof WriterMatch] = value as string;
  }
  if (Object.keys(out).length === 0) refuse('empty', `names no field: say whose writes, as in { user: "agent-7" } or { client: "claude-code" }`);
  return out;
}

/** Whether the writer `meta` records has every field `match` names (see {@link WriterMatch}). */
export function matchesWriter(meta: JsonObject | undefined, match: WriterMatch): boolean {
  const writer = writerFields(meta);
  if (writer === null) return false;
  for (const key of WRITER_MATCH_FIELDS) {
    const wanted = match[key];
    if (wanted === undefined) continue;
    const actual = writer[key];
    if (actual === wanted) continue;
    if (key === 'client' && actual !== undefined && actual.startsWith(`${wanted}/`)) continue;
    return false;
  }
  return true;
}
