/**
 * The tag declarations (README "Tags"): the state of `stateflow:tags` is one object, a tag name →
 * `{ seq, stream?, rev? }` — the global seq it names and, for a tag set on a stream's revision,
 * that stream and revision. This module owns its rules (applied when it is written and by the
 * audit) and reading one tag out of it.
 */
import { StateflowError, isJsonObject, isTagName } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { isReservedStream } from '../declarations.js';
import type { StreamId } from '../types.js';

/** One declared tag: a global seq, and the stream revision it was set on when it was. */
export interface TagRecord {
  seq: number;
  stream?: StreamId;
  rev?: number;
}

const RECORD_KEYS = new Set(['seq', 'stream', 'rev']);

/**
 * Check the whole tags state `state`, written by the transition at `context.seq`.
 * @throws TAG_INVALID `{ tag, reason }`: `name` (outside `[A-Za-z][A-Za-z0-9_.-]*`, ≤ 128),
 *   `record` (not `{ seq, stream?, rev? }` with stream and rev together, a non-reserved stream, rev ≥ 1),
 *   `future` (a seq not below the transition's own, or a revision beyond the stream's head)
 */
export function checkTagDeclarations(state: JsonObject, context: { seq: number; headRev(stream: StreamId): number }): void {
  for (const [tag, value] of Object.entries(state)) {
    if (!isTagName(tag)) throw tagInvalid(tag, 'name', `Tag name ${JSON.stringify(tag.slice(0, 140))} is not a tag name: tags match [A-Za-z][A-Za-z0-9_.-]* (at most 128 characters)`);
    const record = tagRecordOf(tag, value);
    if (record.seq >= context.seq) throw tagInvalid(tag, 'future', `Tag ${tag} names seq ${record.seq}, which the log does not hold yet (the tag is written at seq ${context.seq})`);
    if (record.stream !== undefined && (record.rev as number) > context.headRev(record.stream)) {
      throw tagInvalid(tag, 'future', `Tag ${tag} names revision ${record.rev} of ${record.stream}, whose head is revision ${context.headRev(record.stream)}`);
    }
  }
}

/**
 * The record of tag `tag` as stored (`value`).
 * @throws TAG_INVALID `record` when it is not `{ seq, stream?, rev? }`
 */
export function tagRecordOf(tag: string, value: JsonValue | undefined): TagRecord {
  const bad = (): never => {
    throw tagInvalid(tag, 'record', `Tag ${tag} must be { seq, stream?, rev? }: a seq ≥ 0 and, together, a stream that is not reserved and a revision ≥ 1`);
  };
  if (!isJsonObject(value) || Object.keys(value).some((key) => !RECORD_KEYS.has(key))) return bad();
  const { seq, stream, rev } = value;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return bad();
  if ((stream === undefined) !== (rev === undefined)) return bad();
  if (stream === undefined) return { seq };
  if (typeof stream !== 'string' || stream === '' || isReservedStream(stream) || typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 1) return bad();
  return { seq, stream, rev };
}

/** Every tag of a tags state, by name (records that do not verify are left out: the audit reports them). */
export function tagsOf(state: JsonObject): Map<string, TagRecord> {
  const tags = new Map<string, TagRecord>();
  for (const [tag, value] of Object.entries(state)) {
    try {
      tags.set(tag, tagRecordOf(tag, value));
    } catch {
      // see above
    }
  }
  return tags;
}

/** A TAG_INVALID error. */
export function tagInvalid(tag: string, reason: 'name' | 'record' | 'future' | 'exists', message: string): StateflowError<'TAG_INVALID'> {
  return new StateflowError('TAG_INVALID', `${message}; nothing was written`, { tag, reason });
}
