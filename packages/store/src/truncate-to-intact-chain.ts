/**
 * The store's part of recovering damaged storage (README "Fail closed": recovery runs only on a
 * copy, on request): cut raw storage back to the longest prefix of its log whose hash chain
 * verifies. It works on the storage, not on a store, because a store whose heads point past a
 * gap does not load (fail closed). What a backend adds around it — copying the damaged files,
 * letting its own recovery read what it can, naming what its files still held — is the
 * backend's (`recoverStore` of `@stateflow/store-leveldb`).
 */
import { Family, familyRange, formatKey, parseKey } from './internal/keys.js';
import { encodeRecord } from './internal/records.js';
import { formatOfRecords } from './internal/format-migration.js';
import { commitAlone, intactChainTip, truncateAfter } from './internal/truncate-log.js';
import type { Storage } from './storage.js';

/** What {@link truncateToIntactChain} kept and cut. Seqs are global transition numbers. */
export interface TruncationReport {
  /** The last transition kept: the storage now holds exactly 1…tip, with a verified chain. */
  tip: number;
  /** The highest seq of a log record the storage held before the cut (0: none). */
  lastSeq: number;
  /** Log records after `tip` that were removed (they cannot be replayed without the lost ones). */
  dropped: number;
  /** Streams whose retained history starts after the tip (compacted after the loss): removed whole. */
  streamsRemoved: string[];
}

/**
 * Cut `storage` back to the longest run 1, 2, 3, … of log records whose own hashes and chain
 * links verify: every record of a later transition — log records, index entries, checkpoints,
 * idempotency records — is removed and each head moved back to its stream's last revision
 * within the prefix, in one synced commit; a format record the damage took is written again
 * first (the one the records show: version 1 when the revision index is unsealed, so the next
 * open migrates it). The storage is left open; a store opened over it afterwards audits what is
 * left. Destructive by design: run it only on a copy of damaged data.
 *
 * @example
 * ```ts
 * const storage = await openMyStorage(copyOfDamagedData);
 * const { tip, lastSeq } = await truncateToIntactChain(storage); // lost: tip + 1 … lastSeq
 * await storage.close();
 * ```
 * @throws the storage's errors (STORE_IO, STORE_CORRUPT, …); nothing is cut when a read fails
 */
export async function truncateToIntactChain(storage: Storage): Promise<TruncationReport> {
  let lastSeq = 0;
  for await (const [key] of storage.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family === 'log') lastSeq = parsed.seq;
  }
  if ((await storage.get(formatKey())) === undefined) await commitAlone(storage, [{ type: 'put', key: formatKey(), value: encodeRecord(await formatOfRecords(storage)) }]);
  const tip = await intactChainTip(storage);
  return { tip, lastSeq, ...(await truncateAfter(storage, tip)) };
}
