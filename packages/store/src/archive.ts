/**
 * Retention archives (README "Retention": archives): a run given `archive` first writes what it
 * removes to a JSON Lines file (`internal/archive-file.ts`) and records the file's name, ranges
 * and digest on `stateflow:archives`. `auditArchive` verifies a file against the store;
 * `openArchive` opens one read-only, so the revisions it holds are readable again — each state
 * byte-identical (canonical JSON) to what the store served before the run.
 */
import { StateflowError, applyPatch, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS } from './declarations.js';
import { archiveRecordOf } from './internal/archive-declarations.js';
import type { ArchiveRange, ArchiveRecord } from './internal/archive-declarations.js';
import { readArchive } from './internal/archive-file.js';
import type { ArchiveContents } from './internal/archive-file.js';
import { stateHash, transitionHash } from './internal/hash.js';
import type { Store, StreamId, Transition } from './types.js';

export type { ArchiveRange, ArchiveRecord } from './internal/archive-declarations.js';

/** A problem {@link auditArchive} found. */
export interface ArchiveProblem {
  /** `NOT_RECORDED`, `DIGEST_MISMATCH`, `HASH_MISMATCH`, `CHAIN_BROKEN`, `REVISION_MISSING` or `STATE_MISMATCH`. */
  code: string;
  detail: string;
}

/** Report of {@link auditArchive}. */
export interface ArchiveAuditReport {
  name: string;
  transitions: number;
  streams: Record<StreamId, ArchiveRange>;
  problems: ArchiveProblem[];
}

/** An archive opened read-only. */
export interface OpenArchive {
  name: string;
  /** Per stream, the revisions it holds (inclusive). */
  streams: Record<StreamId, ArchiveRange>;
  transitions: readonly Transition[];
  /**
   * The state of `stream` at `rev`, replayed from the archive's checkpoint.
   * @throws REVISION_NOT_FOUND `{ stream, rev, head }` for a revision the archive does not hold
   *   (`head`: the last one it holds, 0 for a stream it does not hold)
   */
  stateAt(stream: StreamId, rev: number): JsonObject;
}

/** Every archive the store records (as of now), by name. */
export async function listArchives(store: Store): Promise<Record<string, ArchiveRecord>> {
  const state = await store.state(DECLARATION_STREAMS.archives);
  return Object.fromEntries(Object.entries(state).map(([name, value]) => [name, archiveRecordOf(name, value)]));
}

/**
 * Open the archive `file` read-only.
 * @throws NOT_FOUND; INPUT_INVALID `{ field: 'archive', reason: 'malformed' }`
 */
export async function openArchive(file: string): Promise<OpenArchive> {
  const archive = await readArchive(file);
  return { name: archive.name, streams: archive.streams, transitions: archive.transitions, stateAt: (stream, rev) => replay(archive, stream, rev) };
}

/**
 * Verify the archive `file` against `store`: the store records it with the file's digest and
 * size; every transition's hash recomputes and links to the one before it; each transition the
 * store still holds (or the one after it) carries the same hash; each stream's revisions are all
 * there, and its last archived state equals the store's where the store still holds it.
 * Never writes.
 * @throws NOT_FOUND; INPUT_INVALID `{ field: 'archive', reason: 'malformed' }`
 */
export async function auditArchive(store: Store, file: string): Promise<ArchiveAuditReport> {
  const archive = await readArchive(file);
  const problems: ArchiveProblem[] = [];
  const record = (await listArchives(store))[archive.name];
  if (record === undefined) problems.push({ code: 'NOT_RECORDED', detail: `The store records no archive ${archive.name} (stateflow:archives)` });
  else if (record.digest !== archive.digest || record.bytes !== archive.bytes) {
    problems.push({ code: 'DIGEST_MISMATCH', detail: `${archive.name} has sha256 ${archive.digest} (${archive.bytes} bytes); the store recorded ${record.digest} (${record.bytes} bytes)` });
  }
  await checkChain(store, archive.transitions, problems);
  for (const [stream, range] of Object.entries(archive.streams)) await checkStream(store, archive, stream, range, problems);
  return { name: archive.name, transitions: archive.transitions.length, streams: archive.streams, problems };
}

async function checkChain(store: Store, transitions: Transition[], problems: ArchiveProblem[]): Promise<void> {
  const bySeq = new Map(transitions.map((t) => [t.seq, t]));
  for (const t of transitions) {
    if (transitionHash(t.prevHash, t) !== t.hash) problems.push({ code: 'HASH_MISMATCH', detail: `Transition ${t.seq}: its hash does not match sha256(prevHash ‖ canonical(body))` });
    const before = bySeq.get(t.seq - 1);
    if (before !== undefined && before.hash !== t.prevHash) problems.push({ code: 'CHAIN_BROKEN', detail: `Transition ${t.seq}: prevHash is not the hash of ${t.seq - 1}` });
    const kept = await retained(store, t.seq);
    if (kept !== null && kept.hash !== t.hash) problems.push({ code: 'HASH_MISMATCH', detail: `Transition ${t.seq}: the store holds it with another hash` });
    const next = bySeq.has(t.seq + 1) ? null : await retained(store, t.seq + 1);
    if (next !== null && next.prevHash !== t.hash) problems.push({ code: 'CHAIN_BROKEN', detail: `Transition ${t.seq}: the store's transition ${t.seq + 1} does not link to it` });
  }
}

async function checkStream(store: Store, archive: ArchiveContents, stream: StreamId, range: ArchiveRange, problems: ArchiveProblem[]): Promise<void> {
  let state: JsonObject;
  try {
    state = replay(archive, stream, range.to);
  } catch (err) {
    problems.push({ code: 'REVISION_MISSING', detail: (err as Error).message });
    return;
  }
  const head = await store.head(stream);
  if (range.to < head.origin || range.to > head.rev) return;
  if (stateHash(state) !== stateHash(await store.stateAt(stream, range.to))) problems.push({ code: 'STATE_MISMATCH', detail: `${stream} revision ${range.to}: the archive's state is not the store's` });
}

/** The store's transition `seq` when it still holds it whole, else `null`. */
async function retained(store: Store, seq: number): Promise<Transition | null> {
  if (seq < 1 || seq > store.lastSeq()) return null;
  try {
    return await store.transition(seq);
  } catch (err) {
    if (isStateflowError(err, 'HISTORY_NOT_RETAINED')) return null;
    throw err;
  }
}

function replay(archive: ArchiveContents, stream: StreamId, rev: number): JsonObject {
  const range = archive.streams[stream];
  const checkpoint = archive.checkpoints.get(stream);
  if (range === undefined || checkpoint === undefined || rev < range.from || rev > range.to) {
    throw new StateflowError('REVISION_NOT_FOUND', `Archive ${archive.name} does not hold revision ${rev} of ${stream}${range === undefined ? '' : ` (it holds ${range.from}…${range.to})`}`, { stream, rev, head: range?.to ?? 0 });
  }
  let state = checkpoint;
  let at = range.from;
  for (const t of archive.transitions) {
    if (at >= rev) break;
    const change = t.changes.find((c) => c.stream === stream);
    if (change === undefined || change.rev <= at) continue;
    if (change.rev !== at + 1) break;
    state = applyPatch(state, change.patch);
    at = change.rev;
  }
  if (at !== rev) throw new StateflowError('REVISION_NOT_FOUND', `Archive ${archive.name} lacks revision ${at + 1} of ${stream}`, { stream, rev, head: at });
  return state;
}
