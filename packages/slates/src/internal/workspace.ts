/**
 * The working copy of one ladder call's slate stream: reads see the call's own writes, every
 * read and write is logged so the call can be re-applied on a newer head after a CAS conflict,
 * and the whole call becomes one net patch (DESIGN.md "Ladder slates as a projection":
 * "one transition per ladder call").
 */
import type { JsonValue } from '@stateflow/core';
import type { SlateRef, WriteTarget } from '../config-types.js';
import { readSlate } from '../slate-read.js';
import type { SlateStreamState } from '../slate-state.js';
import { materialize } from '../slate-state.js';
import type { Evicted, Refused, WriteContext, WriteRequest } from '../slate-write.js';
import { applyWrite } from '../slate-write.js';

type Op =
  | { kind: 'read'; slate: string; folder: string; file: string }
  | { kind: 'write'; req: WriteRequest }
  | { kind: 'refuse'; refused: Refused };

/** The refusal of a write whose value never reached the slate (see {@link Workspace.refuse}). */
export function refusal(to: WriteTarget, step: string, node: number, reason: string): Refused {
  return { slate: to.slate, folder: to.folder, file: to.file, ...(to.metatag === undefined ? {} : { metatag: to.metatag }), step, node, reason };
}

/** Mutable slate state of one call, with its read/write log and outcomes. */
export class Workspace {
  readonly state: SlateStreamState;
  readonly evicted: Evicted[] = [];
  readonly refused: Refused[] = [];
  /** Writes that changed the state (written outcomes). */
  writes = 0;
  /**
   * Reads of files in LRU folders: their recency decides what LRU evicts later, so the call
   * publishes it even when it writes nothing.
   */
  lruReads = 0;
  readonly #ctx: WriteContext;
  readonly #ops: Op[] = [];

  constructor(ctx: WriteContext, ladder: Parameters<typeof materialize>[0], base: SlateStreamState) {
    this.#ctx = ctx;
    this.state = materialize(ladder, base, ctx.at);
  }

  /** slateRead semantics; reading a file's contents records the read for LRU. */
  read(ref: SlateRef): JsonValue {
    const value = readSlate(this.#ctx.catalog, this.state, ref, this.#ctx.count);
    if (ref.file !== undefined && ref.metatag === undefined) this.markRead(ref.slate, ref.folder, ref.file);
    return value;
  }

  /** Record a read of a file's contents (LRU recency); unknown files are ignored. */
  markRead(slate: string, folder: string, file: string): void {
    const f = this.state.slates[slate]?.folders[folder]?.files[file];
    if (f === undefined) return;
    this.state.tick += 1;
    f.used = this.state.tick;
    f.lastRead = this.#ctx.at;
    if (this.#ctx.catalog.get(slate)?.folders.get(folder)?.evictionPolicy === 'LRU') this.lruReads += 1;
    this.#ops.push({ kind: 'read', slate, folder, file });
  }

  /** Apply a write; evictions and refusals are collected on this workspace. */
  write(req: WriteRequest): void {
    this.#ops.push({ kind: 'write', req });
    const outcome = applyWrite(this.#ctx, this.state, req);
    if (outcome.status === 'written') {
      this.writes += 1;
      this.evicted.push(...outcome.evicted);
    } else if (outcome.status === 'refused') {
      this.refused.push(outcome.refused);
    }
  }

  /**
   * Record a write refused before it reached the slate (its value is not JSON by core's
   * definition): reported in `refused`, nothing changes. Kept across {@link replayOn}.
   */
  refuse(refused: Refused): void {
    this.#ops.push({ kind: 'refuse', refused });
    this.refused.push(refused);
  }

  /** The same reads, writes and refusals applied to another base state (a newer head after a conflict). */
  replayOn(ladder: Parameters<typeof materialize>[0], base: SlateStreamState): Workspace {
    const next = new Workspace(this.#ctx, ladder, base);
    for (const op of this.#ops) {
      if (op.kind === 'read') next.markRead(op.slate, op.folder, op.file);
      else if (op.kind === 'refuse') next.refuse(op.refused);
      else next.write(op.req);
    }
    return next;
  }
}
