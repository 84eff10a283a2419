/**
 * Format migration (README "Storage layout": format versions), run when an older store is
 * opened, in one atomic commit with the new format record, so a crash leaves it wholly old or
 * wholly current:
 *
 * - a version-4 store (each patch also in its revision-index record, transitions as
 *   MessagePack), a version-3 one (no paged checkpoints) or a version-2 one (checkpoint states
 *   as MessagePack) — all of which version 5 still reads, record by record — gets the
 *   version-5 format record and nothing else;
 * - a version-1 store — revision index values that are bare seqs, checkpoints
 *   `{ rev, seq, state, stateHash }` without a seal — has its `R` and `C` records rewritten
 *   (`R` as version 5 writes it, `{ seq, base }`; its transitions stay as they are).
 *   Every record it rewrites is verified first (each transition by its hash, each checkpoint by
 *   its stateHash); a damaged one stops the migration with STORE_CORRUPT and nothing is written.
 */
import { isJsonObject } from '@stateflow/core';
import type { Storage, StorageOp, StorageReader } from '../storage.js';
import { decodeValue } from './codec.js';
import { stateHash } from './hash.js';
import { Family, familyRange, formatKey, logKey, parseKey } from './keys.js';
import { FORMAT, corrupt, decodeCount, decodeLog, encodeCheckpoint, encodeRecord, encodeRevision, sealHolds } from './records.js';
import { stateProblem } from './validate.js';

/** The format versions {@link migrateToCurrent} migrates from. */
export const MIGRATES_FROM: readonly number[] = [1, 2, 3, 4];

/** The version-1 format: unsealed revision-index records. */
const UNSEALED_VERSION = 1;

/**
 * The format record for storage whose format record was lost (a recovery of damaged files): the
 * current one, unless its first revision-index record is unsealed — a version-1 store, which the
 * next open then migrates.
 */
export async function formatOfRecords(storage: StorageReader): Promise<{ format: string; version: number }> {
  for await (const [key, value] of storage.iterate({ ...familyRange(Family.rev), limit: 1 })) {
    if (!sealHolds(key, value)) return { format: FORMAT.format, version: UNSEALED_VERSION };
  }
  return FORMAT;
}

/**
 * Bring a store of a version in {@link MIGRATES_FROM} to the current one (a version-1 store's
 * `R` and `C` records rewritten) and write the current format record, in one write session
 * (another process sharing the storage may have migrated it meanwhile: then nothing is done).
 * @throws STORE_CORRUPT at the first record that does not verify (nothing is written); the storage's errors
 */
export async function migrateToCurrent(storage: Storage): Promise<void> {
  const session = await storage.beginWrite();
  let committed = false;
  try {
    const bytes = await storage.get(formatKey());
    const found = bytes === undefined ? undefined : decodeValue(bytes);
    if (!isJsonObject(found) || typeof found.version !== 'number' || !MIGRATES_FROM.includes(found.version)) return;
    const ops: StorageOp[] = [];
    if (found.version === UNSEALED_VERSION) {
      const checkpoints = await migrateCheckpoints(storage, ops);
      await migrateRevisionIndex(storage, checkpoints, ops);
    }
    ops.push({ type: 'put', key: formatKey(), value: encodeRecord(FORMAT) });
    committed = true;
    await session.commit(ops, { sync: true });
  } finally {
    if (!committed) await session.abort();
  }
}

/** Seal every checkpoint (after checking its stateHash); returns each stream's checkpoint revisions, ascending. */
async function migrateCheckpoints(storage: Storage, ops: StorageOp[]): Promise<Map<string, number[]>> {
  const revs = new Map<string, number[]>();
  for await (const [key, value] of storage.iterate(familyRange(Family.checkpoint))) {
    const k = parseKey(key);
    if (k.family !== 'checkpoint') continue;
    let v;
    try {
      v = decodeValue(value);
    } catch (err) {
      throw corrupt(key, `value does not decode: ${(err as Error).message}`, k.stream, err);
    }
    if (!isJsonObject(v) || v.rev !== k.n || typeof v.seq !== 'number' || !isJsonObject(v.state) || stateProblem(k.stream, v.state) !== null || stateHash(v.state) !== v.stateHash) {
      throw corrupt(key, 'version-1 checkpoint does not verify; not migrated', k.stream);
    }
    ops.push({ type: 'put', key, value: encodeCheckpoint(key, { rev: k.n, seq: v.seq, state: v.state }) });
    revs.set(k.stream, [...(revs.get(k.stream) ?? []), k.n]);
  }
  return revs;
}

/** Give every revision-index entry its base checkpoint, sealed, after checking its transition holds its revision. */
async function migrateRevisionIndex(storage: Storage, checkpoints: Map<string, number[]>, ops: StorageOp[]): Promise<void> {
  // Entries come in key order (stream, then rev): one pointer per stream into its checkpoints.
  let stream: string | undefined;
  let revs: number[] = [];
  let next = 0;
  for await (const [key, value] of storage.iterate(familyRange(Family.rev))) {
    const k = parseKey(key);
    if (k.family !== 'rev') continue;
    if (k.stream !== stream) {
      stream = k.stream;
      revs = checkpoints.get(stream) ?? [];
      next = 0;
    }
    while (next < revs.length && (revs[next] as number) <= k.n) next++;
    const base = next === 0 ? 0 : (revs[next - 1] as number);
    const seq = decodeCount(key, value, k.stream);
    const log = await storage.get(logKey(seq));
    if (log === undefined) throw corrupt(logKey(seq), 'transition is missing', k.stream);
    const record = decodeLog(logKey(seq), log, seq, { stream: k.stream });
    const change = record.pruned ? undefined : record.changes.find((c) => c.stream === k.stream && c.rev === k.n);
    if (change === undefined) throw corrupt(key, `transition ${seq} does not hold revision ${k.n} of the stream; not migrated`, k.stream);
    ops.push({ type: 'put', key, value: encodeRevision(key, { seq, base }) });
  }
}
