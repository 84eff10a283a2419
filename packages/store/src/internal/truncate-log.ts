/**
 * The helpers of `truncateToIntactChain` (`truncate-to-intact-chain.ts`; README "Fail closed"):
 * finding the longest prefix of the log whose hash chain verifies, and removing, in one batch,
 * every record that belongs to a later transition — log records, index entries, checkpoints,
 * idempotency records — with each head moved back to its stream's last revision within the
 * prefix. They work on raw storage, because a store whose heads point past a gap does not load
 * (fail closed), and they only ever run on a copy.
 */
import { decodeValue, encodeValue } from './codec.js';
import { GENESIS_HASH } from './hash.js';
import { Family, familyRange, headKey, parseKey, streamRange, tipKey } from './keys.js';
import { decodeHead, decodeLog, decodeTip, storedSeq } from './records.js';
import type { Storage, StorageOp } from '../storage.js';

/** The last seq of the longest run 1, 2, 3, … of log records whose chain (`prevHash` → `hash`) and own hashes verify. */
export async function intactChainTip(storage: Storage): Promise<number> {
  let tip = 0;
  let prevHash = GENESIS_HASH;
  for await (const [key, value] of storage.iterate(familyRange(Family.log))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'log' || parsed.seq !== tip + 1) break;
    try {
      const record = decodeLog(key, value, parsed.seq);
      if (record.prevHash !== prevHash) break;
      prevHash = record.hash;
    } catch {
      break;
    }
    tip = parsed.seq;
  }
  return tip;
}

/**
 * Remove every record of the transitions after `tip` and move heads back, in one synced batch.
 * A stream whose origin lies beyond its last revision within the prefix (compaction ran after
 * the lost transitions) cannot be rebuilt: all its records are removed and it is reported.
 * @returns how many log records after `tip` were removed, and the streams removed whole.
 */
export async function truncateAfter(storage: Storage, tip: number): Promise<{ dropped: number; streamsRemoved: string[] }> {
  const ops: StorageOp[] = [];
  let dropped = 0;
  for await (const [key] of storage.iterate(familyRange(Family.log))) {
    const parsed = parseKey(key);
    if (parsed.family === 'log' && parsed.seq > tip) {
      ops.push({ type: 'del', key });
      dropped++;
    }
  }
  for (const family of [Family.rev, Family.checkpoint, Family.id, Family.principalId]) {
    for await (const [key, value] of storage.iterate(familyRange(family))) {
      const seq = storedSeq(key, value);
      if (seq !== undefined && seq > tip) ops.push({ type: 'del', key });
    }
  }
  for await (const [key] of storage.iterate(familyRange(Family.seq))) {
    const parsed = parseKey(key);
    if (parsed.family === 'seq' && parsed.n > tip) ops.push({ type: 'del', key });
  }
  const streamsRemoved: string[] = [];
  for await (const [key, value] of storage.iterate(familyRange(Family.head))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'head') continue;
    let head;
    try {
      head = decodeHead(key, value, parsed.stream);
    } catch {
      continue; // left as it is: the audit of the copy reports it
    }
    if (head.seq <= tip) continue;
    const last = await lastRevisionUpTo(storage, parsed.stream, tip);
    if (last !== null && last.rev >= head.origin) {
      ops.push({ type: 'put', key: headKey(parsed.stream), value: encodeValue({ rev: last.rev, seq: last.seq, origin: head.origin }) });
      continue;
    }
    ops.push({ type: 'del', key });
    if (last !== null) {
      streamsRemoved.push(parsed.stream);
      for (const family of [Family.rev, Family.seq, Family.checkpoint, Family.page]) {
        for await (const [k] of storage.iterate(streamRange(family, parsed.stream, 0, 2 ** 48 - 1))) ops.push({ type: 'del', key: k });
      }
    }
  }
  const old = await storage.get(tipKey());
  const generation = old === undefined ? 0 : decodeTip(tipKey(), old).generation + 1;
  ops.push({ type: 'put', key: tipKey(), value: encodeValue({ seq: tip, generation }) });
  await commitAlone(storage, ops);
  return { dropped, streamsRemoved };
}

/** Write `ops` in a write session of its own (raw storage, no store over it). */
export async function commitAlone(storage: Storage, ops: StorageOp[]): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(ops, { sync: true });
}

/** A stream's last revision produced at a seq ≤ `tip`, from its seq index. */
async function lastRevisionUpTo(storage: Storage, stream: string, tip: number): Promise<{ rev: number; seq: number } | null> {
  for await (const [key, value] of storage.iterate({ ...streamRange(Family.seq, stream, 0, tip), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    const rev = decodeValue(value);
    if (parsed.family === 'seq' && typeof rev === 'number') return { rev, seq: parsed.n };
  }
  return null;
}
