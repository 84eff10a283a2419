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
import type { TipRecord } from './records.js';
import type { StorageReader } from '../storage.js';
import { loadHeads } from './store-context.js';
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
 * log agree.
 */
async function readUpToTip(ctx: StoreContext): Promise<void> {
  const quick = await readTip(ctx.storage);
  if (quick.seq === ctx.lastSeq && quick.generation === ctx.generation) return;
  await ctx.storage.snapshot(async (reader) => {
    const tip = await readTip(reader);
    if (tip.generation !== ctx.generation) await reloadHeads(ctx, reader);
    if (tip.seq > ctx.lastSeq) await readTransitions(ctx, reader, tip.seq);
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

/** Every head again from storage (after a compaction by another process); current states are dropped. */
async function reloadHeads(ctx: StoreContext, reader: StorageReader): Promise<void> {
  ctx.heads.clear();
  ctx.broken.clear();
  ctx.current.clear();
  ctx.debt.clear();
  await loadHeads(ctx, reader);
}

/** The transitions after `ctx.lastSeq` up to `to`, into memory and to this process's watchers. */
async function readTransitions(ctx: StoreContext, reader: StorageReader, to: number): Promise<void> {
  let expected = ctx.lastSeq + 1;
  for await (const [key, value] of reader.iterate(logRange(expected, to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'log') continue;
    if (parsed.seq !== expected) throw corrupt(logKey(expected), 'transition is missing from the log');
    const record = decodeLog(key, value, parsed.seq);
    if (record.prevHash !== ctx.lastHash) throw corrupt(key, 'hash chain broken: prevHash does not match the previous transition');
    for (const { stream, rev } of record.changes) {
      ctx.heads.set(stream, { rev, seq: record.seq, origin: ctx.heads.get(stream)?.origin ?? 0 });
      ctx.current.delete(stream);
      ctx.debt.delete(stream);
    }
    ctx.lastSeq = record.seq;
    ctx.lastHash = record.hash;
    if (!record.pruned) ctx.hub.publish(record);
    expected++;
  }
  if (expected <= to) throw corrupt(logKey(expected), 'transition is missing from the log');
}
