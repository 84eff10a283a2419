/**
 * The write-ahead-log mark (README "Durability contract"): the LevelDB adapter puts it in every
 * batch it writes, so that each record of LevelDB's log says whether it was synced and on which
 * boot of the machine it was written — what the crash policy (`crash-policy.ts`) reads before
 * LevelDB opens the log. It lives under a key of the adapter's own, outside the store's key
 * space (every store key starts with an ASCII family letter; this one with 0xff), and iteration
 * never returns it: the storage holds exactly what its callers committed. Only the last mark
 * is kept once the log is flushed into a table.
 *
 * The value is JSON text, `{"boot":"<boot id>","synced":true|false,"ackedThrough":N}` in UTF-8
 * (with `"closed":true` in the batch a clean close writes last, so the mark the database holds
 * at the next open says whether the session before it closed):
 * `ackedThrough` is the highest seq of a transition whose synced batch had been written (and
 * every older write-ahead log synced) before this batch was built — "synced through seq N", so
 * that a record after damage says whether the damage took a synced transition. The adapter's own
 * record, read by nothing but the crash policy, so it needs none of the store's encodings. A
 * mark that does not parse as one (a mark of a development build, which wrote MessagePack) says
 * nothing, and the policy then judges its log by the strict rule of a process crash.
 */
import { isJsonObject } from '@stateflow/core';

/** The mark's key: 0xff then `stateflow-wal-mark`. */
export const WAL_MARK_KEY: Buffer = Buffer.concat([Buffer.from([0xff]), Buffer.from('stateflow-wal-mark', 'latin1')]);

/** What a batch says of itself. */
export interface WalMark {
  /** The writing process's boot id (`boot-id.ts`). */
  boot: string;
  /** The batch was written with `sync: true`: acknowledged only once on stable storage. */
  synced: boolean;
  /**
   * Every transition up to this seq was on stable storage (its batch synced) before this batch
   * was written (0: none this session; `null`: a mark of a build that did not record it).
   */
  ackedThrough: number | null;
  /** The batch a clean close writes last, just before LevelDB flushes its memtable into a table. */
  closed: boolean;
}

/** Encode a mark as UTF-8 JSON text `{"boot":…,"synced":…}`. */
export const encodeWalMark = (mark: WalMark): Uint8Array =>
  Buffer.from(JSON.stringify({ boot: mark.boot, synced: mark.synced, ackedThrough: mark.ackedThrough, ...(mark.closed ? { closed: true } : {}) }), 'utf8');

/** Decode a mark; `null` when the bytes are not one. */
export function decodeWalMark(bytes: Uint8Array): WalMark | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    if (!isJsonObject(v) || typeof v.boot !== 'string' || typeof v.synced !== 'boolean') return null;
    const through = v.ackedThrough;
    return { boot: v.boot, synced: v.synced, ackedThrough: typeof through === 'number' && Number.isSafeInteger(through) && through >= 0 ? through : null, closed: v.closed === true };
  } catch {
    return null;
  }
}
