/**
 * The crash-state explorer (README "Durability contract", "Every crash state"): record each
 * workload's file-system operations under strace (`trace.ts`), build every crash state they allow
 * (`crash-states.ts`), and open and check each distinct one on both boot modes (`check-state.ts`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { crashStates } from './crash-states.js';
import type { CrashState } from './crash-states.js';
import { checkState } from './check-state.js';
import type { BootMode } from './check-state.js';
import { traceWorkload } from './trace.js';
import type { FsOp, LedgerEntry } from './trace.js';

/** The workloads of `workload-child.mjs`. */
export const WORKLOADS = ['publish', 'publishMany', 'forkMerge', 'compaction', 'close', 'logSwitch'] as const;

/** States held at once (their files in memory), and opens run at once (LevelDB works on its own threads). */
const CHUNK = 24;
const PARALLEL_OPENS = 3;

/** Run `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** One violation: where, and what the open showed. */
export interface Violation {
  workload: string;
  key: string;
  kind: CrashState['kind'];
  mode: BootMode;
  at: number;
  messages: string[];
}

/** What a run explored and found. */
export interface ExplorerReport {
  /** Per workload: operations traced, distinct states, of them checked. */
  workloads: { name: string; operations: number; distinct: number; checked: number }[];
  /** Distinct states opened and checked (each on both boot modes), and of them after a power loss. */
  checked: number;
  power: number;
  /** Opens refused where the state is not a legal crash's for the boot mode (a power loss opened as same-boot). */
  refusedIllegal: number;
  violations: Violation[];
}

/**
 * Explore `workloads` under `root` (scratch space), checking every `strides[workload]`-th
 * distinct state of each (default 1: all).
 */
export async function explore(root: string, options: { workloads?: readonly string[]; strides?: Readonly<Record<string, number>> } = {}): Promise<ExplorerReport> {
  const names = options.workloads ?? WORKLOADS;
  const traces = await Promise.all(names.map((name) => traceWorkload(path.join(root, name), name)));
  const boot = process.env.STATEFLOW_BOOT_ID;
  try {
    return await checkAll(root, names, traces, options.strides ?? {});
  } finally {
    if (boot === undefined) delete process.env.STATEFLOW_BOOT_ID;
    else process.env.STATEFLOW_BOOT_ID = boot;
  }
}

/** Check every `strides[workload]`-th distinct state of each traced workload (see {@link explore}). */
async function checkAll(root: string, names: readonly string[], traces: FsOp[][], strides: Readonly<Record<string, number>>): Promise<ExplorerReport> {
  const report: ExplorerReport = { workloads: [], checked: 0, power: 0, refusedIllegal: 0, violations: [] };
  // Opens write and sync a few files each: in memory (tmpfs) when the machine has one.
  const scratch = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : root, 'crash-states-'));
  let opened = 0;
  for (const [w, name] of names.entries()) {
    const ops = traces[w] ?? [];
    const written = new Map<number, LedgerEntry>(ops.flatMap((op) => (op.op === 'ack' ? [[op.entry.seq, op.entry]] : [])));
    const last = new Map<string, number>();
    let index = 0;
    for (const state of crashStates(ops)) last.set(state.key, index++);
    const chosen = new Set([...last.values()].sort((a, b) => a - b).filter((_, i) => i % (strides[name] ?? 1) === 0));
    index = 0;
    let chunk: CrashState[] = [];
    const checkChunk = async (): Promise<void> => {
      // One boot mode at a time (the boot id is the process's environment), a few opens at once.
      for (const mode of ['same', 'reboot'] as const) {
        await inParallel(chunk, PARALLEL_OPENS, async (state) => {
          const outcome = await checkState(state, mode, written, path.join(scratch, String(opened++)));
          if (outcome.refused && outcome.violations.length === 0) report.refusedIllegal++;
          if (outcome.violations.length > 0) report.violations.push({ workload: name, key: state.key, kind: state.kind, mode, at: state.at, messages: outcome.violations });
        });
      }
      report.checked += chunk.length;
      report.power += chunk.filter((state) => state.kind === 'power').length;
      chunk = [];
    };
    for (const state of crashStates(ops)) {
      if (!chosen.has(index++)) continue;
      chunk.push(state);
      if (chunk.length === CHUNK) await checkChunk();
    }
    await checkChunk();
    report.workloads.push({ name, operations: ops.length, distinct: last.size, checked: chosen.size });
    console.log(`crash states of ${name}: ${chosen.size} of ${last.size} distinct checked on both boot modes (${report.violations.length} violations so far)`);
  }
  await rm(scratch, { recursive: true, force: true });
  return report;
}
