/**
 * Tags (README "Tags"): a name for a point of the history — a global seq, or a stream's revision
 * (with its seq) — declared on the declaration stream `stateflow:tags`, so setting, moving and
 * removing a tag are transitions like any other: audited, exported, replayed and time-travelled
 * (`stateAt('stateflow:tags', rev)` is the tags as they were). Compaction and retention keep
 * every tagged revision. These functions work over any {@link Store} (in process, or a server's
 * through `openRemoteStore`), writing with compare-and-set on the tags stream.
 */
import { StateflowError, isTagName } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS } from './declarations.js';
import { retryOnConflict } from './conflict-retry.js';
import { tagInvalid, tagsOf } from './internal/tag-declarations.js';
import type { TagRecord } from './internal/tag-declarations.js';
import type { PublishResult, Store, StreamId } from './types.js';

const TAGS = DECLARATION_STREAMS.tags;

/** A declared tag: its name, the global seq it names and, for a tag set on a revision, that stream and revision. */
export interface Tag extends TagRecord {
  name: string;
}

/** What {@link setTag} points a tag at: a global seq (default: the last), or a stream's revision. */
export type TagTarget = { seq?: number } | { stream: StreamId; rev: number };

/** Every tag, sorted by name (the tags as of now). */
export async function listTags(store: Store): Promise<Tag[]> {
  const tags = tagsOf(await store.state(TAGS));
  return [...tags].map(([name, record]) => ({ name, ...record })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The tag `name`.
 * @throws TAG_NOT_FOUND `{ tag }`; INPUT_INVALID for a name outside the tag grammar
 */
export async function resolveTag(store: Store, name: string): Promise<Tag> {
  checkName(name);
  const record = tagsOf(await store.state(TAGS)).get(name);
  if (record === undefined) throw new StateflowError('TAG_NOT_FOUND', `There is no tag ${name}; list the tags with "stateflow tag list"`, { tag: name });
  return { name, ...record };
}

/**
 * The revision of `stream` as of the tag `name`: the one it names for a tag set on that stream,
 * else the stream's last revision at or before the tag's seq (0 when it had none) — a binary
 * search of the revision index (`revisionSeq`, one point read a step).
 * @throws TAG_NOT_FOUND; HISTORY_NOT_RETAINED when compaction removed that revision
 */
export async function revisionAtTag(store: Store, stream: StreamId, name: string): Promise<number> {
  const tag = await resolveTag(store, name);
  if (tag.stream === stream) return tag.rev as number;
  const head = await store.head(stream);
  if (head.seq <= tag.seq) return head.rev;
  let lo = Math.max(head.origin, 1);
  if ((await store.revisionSeq(stream, lo)) > tag.seq) {
    if (head.origin <= 1) return 0;
    throw new StateflowError('HISTORY_NOT_RETAINED', `Tag ${name} (seq ${tag.seq}) is before the retained history of ${stream} (it starts at revision ${head.origin})`, { stream, rev: head.origin - 1, origin: head.origin });
  }
  let hi = head.rev;
  // Invariant: revision lo was produced at or before the tag's seq, revision hi after it.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await store.revisionSeq(stream, mid)) <= tag.seq) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The state of `stream` as of the tag `name` (at {@link revisionAtTag}; `{}` when the stream had
 * no revision then).
 * @throws TAG_NOT_FOUND; HISTORY_NOT_RETAINED
 */
export async function stateAtTag(store: Store, stream: StreamId, name: string): Promise<JsonObject> {
  const rev = await revisionAtTag(store, stream, name);
  // Revision 0 is the empty state, which needs no retained history.
  return rev === 0 ? Object.freeze({}) : store.stateAt(stream, rev);
}

/**
 * Declare tag `name` at `target` (default: the last seq), in one transition on `stateflow:tags`
 * with `meta` (a `{ tag: { set: name } }` note beside the caller's). Setting a tag that exists
 * is refused unless `move` (then it points at the new target; its old target stays in the tags'
 * history); setting it to where it already points is a `noop`.
 * @throws TAG_INVALID `{ tag, reason }` (`name`, `exists`, `future`); REVISION_NOT_FOUND /
 *   HISTORY_NOT_RETAINED for a stream revision; TRANSITION_NOT_FOUND for a seq beyond the log
 */
export async function setTag(store: Store, name: string, target: TagTarget = {}, options: { move?: boolean; meta?: JsonObject } = {}): Promise<{ tag: Tag; result: PublishResult }> {
  checkName(name);
  const record = await recordOf(store, target);
  return retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(TAGS);
    const existing = tagsOf(await store.state(TAGS)).get(name);
    if (existing !== undefined && options.move !== true && !sameRecord(existing, record)) {
      throw tagInvalid(name, 'exists', `Tag ${name} exists (seq ${existing.seq}${existing.stream === undefined ? '' : `, ${existing.stream}@${existing.rev}`}): move it, or remove it first`);
    }
    // The whole record, old members deleted: a tag on a seq has no stream or rev left over.
    const patch = { seq: record.seq, stream: record.stream ?? null, rev: record.rev ?? null };
    const result = await store.publish({ changes: { [TAGS]: { [name]: patch } }, expected: { [TAGS]: head.rev }, meta: { ...options.meta, tag: { set: name } } });
    return { tag: { name, ...record }, result };
  });
}

/**
 * Remove tag `name` in one transition on `stateflow:tags` (its history keeps it).
 * @throws TAG_NOT_FOUND
 */
export async function removeTag(store: Store, name: string, options: { meta?: JsonObject } = {}): Promise<PublishResult> {
  checkName(name);
  return retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(TAGS);
    if (!tagsOf(await store.state(TAGS)).has(name)) throw new StateflowError('TAG_NOT_FOUND', `There is no tag ${name}; list the tags with "stateflow tag list"`, { tag: name });
    return store.publish({ changes: { [TAGS]: { [name]: null } }, expected: { [TAGS]: head.rev }, meta: { ...options.meta, tag: { removed: name } } });
  });
}

async function recordOf(store: Store, target: TagTarget): Promise<TagRecord> {
  if ('stream' in target) return { seq: await store.revisionSeq(target.stream, target.rev), stream: target.stream, rev: target.rev };
  const seq = target.seq ?? store.lastSeq();
  if (seq > store.lastSeq()) throw new StateflowError('TRANSITION_NOT_FOUND', `There is no transition ${seq} to tag (the last is ${store.lastSeq()})`, { seq, lastSeq: store.lastSeq() });
  return { seq };
}

function sameRecord(a: TagRecord, b: TagRecord): boolean {
  return a.seq === b.seq && a.stream === b.stream && a.rev === b.rev;
}

function checkName(name: string): void {
  if (!isTagName(name)) throw tagInvalid(String(name), 'name', `Tag name ${JSON.stringify(String(name).slice(0, 140))} is not a tag name: tags match [A-Za-z][A-Za-z0-9_.-]* (at most 128 characters)`);
}
