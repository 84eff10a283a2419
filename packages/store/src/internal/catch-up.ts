/**
 * Catching up with other writers (README "Storage seam"). On storage that other processes write
 * (`capabilities.soleWriter` false), this store's memory — heads, current states, the chain
 * tip — is only a cache. Before each operation, and first thing in each write session, the
 * store reads the tip record `M/tip`: when the log grew, it reads the new transitions in seq
 * order (each verified, each chain link checked), moves the heads they changed, drops those
 * streams' current states (reloaded on next use) and hands the transitions to this process's
 * watchers; when the generation moved (a compaction elsewhere), it reloads every head first.
 * Stores that are the only writer skip all of it: their memory is the storage.
 */
import { Family, familyRange, logKey, logRange, parseKey, tipKey } from './keys.js';
import { corrupt, decodeLog, decodeTip } from './records.js';
import type { LogRecord, TipRecord } from './records.js';
import type { StorageReader } from '../storage.js';
import { readHeads } from './store-context.js';
import type { StoreContext } from './store-context.js';

/**
 * Bring memory up to the storage's tip (no-op for a sole writer). Catch-ups run one at a time;
 * a caller joins the one queued but not started yet (it will read the tip after the call), or
 * queues one, so each caller sees every commit made before its call.
 * @throws STORE_CORRUPT when a new log record does not verify or breaks the chain; the
 *   storage's errors
 */
export function catchUp(ctx: StoreContext): Promise<void> {
  if (ctx.storage.capabilities.soleWriter) return Promise.resolve();
  if (ctx.pendingCatchUp !== null) return ctx.pendingCatchUp;
  const pending = ctx.catchUpChain.then(() => {
    ctx.pendingCatchUp = null;
    return readUpToTip(ctx);
  });
  ctx.pendingCatchUp = pending;
  ctx.catchUpChain = pending.catch(() => undefined);
  return pending;
}

/**
 * One point read of the tip; when it moved, everything else in one snapshot of the storage —
 * the tip again, every head when the generation moved, the new transitions — so that heads and
 * log agree. Memory changes only once everything is read, in one step, and only forward: a read
 * that fails part way (a lost connection) leaves it as it was, never with heads reloaded and the
 * log not; and this store's own commits, installed while the reads ran, are not read again (a
 * snapshot memory has moved past meanwhile teaches nothing).
 */
async function readUpToTip(ctx: StoreContext): Promise<void> {
  const quick = await readTip(ctx.storage);
  if (quick.seq === ctx.lastSeq && quick.generation === ctx.generation) return;
  await ctx.storage.snapshot(async (reader) => {
    const tip = await readTip(reader);
    const heads = tip.generation === ctx.generation ? null : await readHeads(reader);
    const records = tip.seq > ctx.lastSeq ? await newTransitions(ctx, reader, tip.seq) : [];
    if (tip.seq < ctx.lastSeq || tip.generation < ctx.generation) return;
    if (heads !== null && tip.generation !== ctx.generation) {
      // Every head again (another process compacted); current states are dropped.
      ctx.heads.clear();
      ctx.broken.clear();
      ctx.current.clear();
      ctx.debt.clear();
      for (const [stream, head] of heads.heads) ctx.heads.set(stream, head);
      for (const [stream, err] of heads.broken) ctx.broken.set(stream, err);
    }
    for (const record of records) {
      if (record.seq <= ctx.lastSeq) continue;
      for (const { stream, rev } of record.changes) {
        ctx.heads.set(stream, { rev, seq: record.seq, origin: ctx.heads.get(stream)?.origin ?? 0 });
        ctx.current.delete(stream);
        ctx.debt.delete(stream);
      }
      ctx.lastSeq = record.seq;
      ctx.lastHash = record.hash;
      if (!record.pruned) ctx.hub.publish(record);
    }
    ctx.generation = tip.generation;
  });
}

/** `M/tip`, or for a store without one the last log record's seq at generation 0. */
export async function readTip(reader: StorageReader): Promise<TipRecord> {
  const bytes = await reader.get(tipKey());
  if (bytes !== undefined) return decodeTip(tipKey(), bytes);
  for await (const [key] of reader.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family === 'log') return { seq: parsed.seq, generation: 0 };
  }
  return { seq: 0, generation: 0 };
}

/** The transitions after `ctx.lastSeq` up to `to`, each verified and chained to the one before. */
async function newTransitions(ctx: StoreContext, reader: StorageReader, to: number): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  let expected = ctx.lastSeq + 1;
  let prevHash = ctx.lastHash;
  for await (const [key, value] of reader.iterate(logRange(expected, to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'log') continue;
    if (parsed.seq !== expected) throw corrupt(logKey(expected), 'transition is missing from the log');
    const record = decodeLog(key, value, parsed.seq);
    if (record.prevHash !== prevHash) throw corrupt(key, 'hash chain broken: prevHash does not match the previous transition');
    records.push(record);
    prevHash = record.hash;
    expected++;
  }
  if (expected <= to) throw corrupt(logKey(expected), 'transition is missing from the log');
  return records;
}
