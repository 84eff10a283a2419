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
import { isStateflowError } from '@stateflow/core';
import { Family, familyRange, logKey, logRange, parseKey, tipKey } from './keys.js';
import { corrupt, decodeHead, decodeLog, decodeTip } from './records.js';
import type { TipRecord } from './records.js';
import type { StoreContext } from './store-context.js';

/**
 * Bring memory up to the storage's tip (no-op for a sole writer). Concurrent callers share a
 * catch-up that starts after they called, so each sees every commit made before its call.
 * @throws STORE_CORRUPT when a new log record does not verify or breaks the chain; the
 *   storage's errors
 */
export function catchUp(ctx: StoreContext): Promise<void> {
  if (ctx.storage.capabilities.soleWriter) return Promise.resolve();
  const running = ctx.catchingUp;
  if (running === null) return start(ctx);
  // One already runs, and may have read the tip before this call: share the next one.
  ctx.nextCatchUp ??= running.then(
    () => start(ctx),
    () => start(ctx),
  );
  return ctx.nextCatchUp;
}

function start(ctx: StoreContext): Promise<void> {
  ctx.nextCatchUp = null;
  const run = readUpToTip(ctx).finally(() => {
    if (ctx.catchingUp === run) ctx.catchingUp = null;
  });
  ctx.catchingUp = run;
  return run;
}

async function readUpToTip(ctx: StoreContext): Promise<void> {
  const tip = await readTip(ctx);
  if (tip.generation !== ctx.generation) await reloadHeads(ctx);
  if (tip.seq > ctx.lastSeq) await readTransitions(ctx, tip.seq);
  ctx.generation = tip.generation;
}

/** `M/tip`, or for a store without one the last log record's seq at generation 0. */
async function readTip(ctx: StoreContext): Promise<TipRecord> {
  const bytes = await ctx.storage.get(tipKey());
  if (bytes !== undefined) return decodeTip(tipKey(), bytes);
  for await (const [key] of ctx.storage.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family === 'log') return { seq: parsed.seq, generation: 0 };
  }
  return { seq: 0, generation: 0 };
}

/** Every head again from storage (after a compaction by another process); current states are dropped. */
async function reloadHeads(ctx: StoreContext): Promise<void> {
  ctx.heads.clear();
  ctx.broken.clear();
  ctx.current.clear();
  ctx.debt.clear();
  for await (const [key, value] of ctx.storage.iterate(familyRange(Family.head))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'head') continue;
    try {
      ctx.heads.set(parsed.stream, decodeHead(key, value, parsed.stream));
    } catch (err) {
      if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
      ctx.broken.set(parsed.stream, err);
    }
  }
}

/** The transitions after `ctx.lastSeq` up to `to`, into memory and to this process's watchers. */
async function readTransitions(ctx: StoreContext, to: number): Promise<void> {
  let expected = ctx.lastSeq + 1;
  for await (const [key, value] of ctx.storage.iterate(logRange(expected, to))) {
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
