/**
 * The crash states a recorded operation sequence allows (README "Durability contract", "Every
 * crash state"), replayed over a model of the file system:
 *
 * - **Process crash** after operation k: every operation up to k, nothing after (the kernel has
 *   every byte written; a write(2) is whole or absent).
 * - **Power loss** after operation k: each file holds what it held at its last fsync plus any
 *   prefix of the pages appended since, the frontier page possibly torn (its first sectors
 *   written) or zeroed (the size grew, the data did not); the directory operations since the last
 *   fsync of anything are persisted as a prefix, in order (ext4's journal commits every earlier
 *   name change with any fsync, and an fsynced file's name with it).
 *
 * Every state has a key (which bytes of which file, by identity, not content), so the same state
 * reached at several points is opened once, at its last point: the one with the most
 * acknowledgements to check.
 */
import type { FsOp, LedgerEntry } from './trace.js';

/** Bytes per page, bytes per sector of a torn page. */
const PAGE = 4096;
const SECTOR = 512;

/** One crash state: its files and what had been acknowledged before it. */
export interface CrashState {
  key: string;
  kind: 'process' | 'power';
  /** Index of the last operation it follows. */
  at: number;
  files: Map<string, Buffer>;
  acked: LedgerEntry[];
}

interface Inode {
  data: Buffer;
  length: number;
  /** Bumped by a truncate or an overwrite: bytes below `length` are then new. */
  gen: number;
  synced: { gen: number; length: number; data: Buffer | null };
}

/** A file of a state: which inode, how many bytes, zeros from where (`zeroFrom` = length: none). */
interface Cut {
  ino: number;
  length: number;
  zeroFrom: number;
  fromSynced: boolean;
}

/** The file-system model the operations are replayed over. */
class Model {
  names = new Map<string, number>();
  durable = new Map<string, number>();
  pending: FsOp[] = [];
  inodes = new Map<number, Inode>();
  acked: LedgerEntry[] = [];

  apply(op: FsOp): void {
    switch (op.op) {
      case 'create':
        this.names.set(op.name, op.ino);
        this.inodes.set(op.ino, { data: Buffer.alloc(0), length: 0, gen: 0, synced: { gen: 0, length: 0, data: null } });
        this.pending.push(op);
        break;
      case 'truncate': {
        const inode = this.inode(op.ino);
        if (inode.synced.gen === inode.gen && inode.synced.data === null) inode.synced.data = Buffer.from(inode.data.subarray(0, inode.synced.length));
        inode.data = Buffer.from(inode.data.subarray(0, Math.min(op.length, inode.length)));
        inode.length = op.length;
        inode.gen++;
        break;
      }
      case 'write':
        this.write(this.inode(op.ino), op.offset, op.data);
        break;
      case 'sync': {
        const inode = this.inode(op.ino);
        inode.synced = { gen: inode.gen, length: inode.length, data: null };
        this.syncNames();
        break;
      }
      case 'syncdir':
        this.syncNames();
        break;
      case 'rename':
      case 'unlink':
        renameOrUnlink(this.names, op);
        this.pending.push(op);
        break;
      case 'ack':
        this.acked.push(op.entry);
        break;
    }
  }

  inode(ino: number): Inode {
    const inode = this.inodes.get(ino);
    if (inode === undefined) throw new Error(`no inode ${ino}`);
    return inode;
  }

  write(inode: Inode, offset: number, data: Buffer): void {
    const end = offset + data.length;
    if (offset < inode.length) {
      // An overwrite: keep what was synced, and start a new generation of bytes.
      if (inode.synced.gen === inode.gen && inode.synced.data === null) inode.synced.data = Buffer.from(inode.data.subarray(0, inode.synced.length));
      inode.data = Buffer.from(inode.data.subarray(0, inode.length));
      inode.gen++;
    }
    if (end > inode.data.length) {
      const grown = Buffer.alloc(Math.max(end, inode.data.length * 2));
      inode.data.copy(grown, 0, 0, inode.length);
      inode.data = grown;
    }
    data.copy(inode.data, offset);
    inode.length = Math.max(inode.length, end);
  }

  syncNames(): void {
    this.durable = new Map(this.names);
    this.pending = [];
  }

  /** The names after the first `persisted` pending directory operations. */
  namesWith(persisted: number): Map<string, number> {
    const names = new Map(this.durable);
    for (const op of this.pending.slice(0, persisted)) {
      if (op.op === 'create') names.set(op.name, op.ino);
      else renameOrUnlink(names, op);
    }
    return names;
  }

  /** The ways a power loss can leave an inode's bytes, the fully written one last. */
  cuts(ino: number): Cut[] {
    const inode = this.inode(ino);
    const full: Cut = { ino, length: inode.length, zeroFrom: inode.length, fromSynced: false };
    const synced = inode.synced;
    if (synced.gen !== inode.gen) return [{ ino, length: synced.length, zeroFrom: synced.length, fromSynced: true }, full];
    const out: Cut[] = [];
    for (let kept = synced.length; kept < inode.length; kept = (Math.floor(kept / PAGE) + 1) * PAGE) {
      out.push({ ino, length: kept, zeroFrom: kept, fromSynced: false });
      const frontier = Math.min(inode.length, (Math.floor(kept / PAGE) + 1) * PAGE);
      const written = frontier - kept;
      const torn = kept + Math.floor(written / 2 / SECTOR) * SECTOR;
      if (torn > kept) out.push({ ino, length: torn, zeroFrom: torn, fromSynced: false });
      out.push({ ino, length: frontier, zeroFrom: kept, fromSynced: false });
    }
    out.push(full);
    return out;
  }

  materialize(names: Map<string, number>, cutOf: (ino: number) => Cut): { key: string; files: Map<string, Buffer> } {
    const files = new Map<string, Buffer>();
    const parts: string[] = [];
    for (const [name, ino] of [...names].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const cut = cutOf(ino);
      const inode = this.inode(ino);
      const gen = cut.fromSynced ? inode.synced.gen : inode.gen;
      parts.push(`${name}=${ino}.${gen}.${cut.length}.${cut.zeroFrom}`);
      const source = cut.fromSynced ? (inode.synced.data ?? inode.data) : inode.data;
      const bytes = Buffer.alloc(cut.length);
      source.copy(bytes, 0, 0, Math.min(cut.zeroFrom, cut.length));
      files.set(name, bytes);
    }
    return { key: parts.join(' '), files };
  }
}

function renameOrUnlink(names: Map<string, number>, op: FsOp): void {
  if (op.op === 'unlink') {
    names.delete(op.name);
  } else if (op.op === 'rename') {
    const ino = names.get(op.from);
    names.delete(op.from);
    if (ino !== undefined) names.set(op.to, ino);
  }
}

/**
 * Every crash state of `ops` (see the module comment), in order of the operation they follow;
 * the same key may come more than once (the caller keeps its last).
 */
export function* crashStates(ops: FsOp[]): Generator<CrashState> {
  const model = new Model();
  for (let at = 0; at < ops.length; at++) {
    model.apply(ops[at] as FsOp);
    if (model.names.size === 0) continue;
    const acked = [...model.acked];
    const full = (ino: number): Cut => model.cuts(ino).at(-1) as Cut;
    const processState = model.materialize(model.names, full);
    yield { ...processState, key: `process ${processState.key}`, kind: 'process', at, acked };
    const seen = new Set<string>([processState.key]);
    const power = (names: Map<string, number>, cutOf: (ino: number) => Cut): CrashState | null => {
      const state = model.materialize(names, cutOf);
      if (seen.has(state.key)) return null;
      seen.add(state.key);
      return { ...state, key: `power ${state.key}`, kind: 'power', at, acked };
    };
    const syncedOnly = (ino: number): Cut => model.cuts(ino)[0] as Cut;
    for (let persisted = 0; persisted <= model.pending.length; persisted++) {
      const state = power(model.namesWith(persisted), syncedOnly);
      if (state !== null) yield state;
    }
    const names = model.namesWith(model.pending.length);
    for (const ino of new Set(names.values())) {
      for (const cut of model.cuts(ino)) {
        for (const others of [full, syncedOnly]) {
          const state = power(names, (i) => (i === ino ? cut : others(i)));
          if (state !== null) yield state;
        }
      }
    }
  }
}
