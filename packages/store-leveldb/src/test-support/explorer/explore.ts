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
import type { LedgerEntry } from './trace.js';

/** The workloads of `workload-child.mjs`. */
export const WORKLOADS = ['publish', 'publishMany', 'forkMerge', 'compaction', 'close', 'logSwitch'] as const;

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
 * Explore `workloads` under `root` (scratch space), checking every `stride`-th distinct state of
 * each (1: all).
 */
export async function explore(root: string, options: { workloads?: readonly string[]; stride?: number } = {}): Promise<ExplorerReport> {
  const names = options.workloads ?? WORKLOADS;
  const stride = options.stride ?? 1;
  const traces = await Promise.all(names.map((name) => traceWorkload(path.join(root, name), name)));
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
    const chosen = new Set([...last.values()].sort((a, b) => a - b).filter((_, i) => i % stride === 0));
    index = 0;
    for (const state of crashStates(ops)) {
      if (!chosen.has(index++)) continue;
      for (const mode of ['same', 'reboot'] as const) {
        const outcome = await checkState(state, mode, written, path.join(scratch, String(opened++)));
        if (outcome.refused && outcome.violations.length === 0) report.refusedIllegal++;
        if (outcome.violations.length > 0) report.violations.push({ workload: name, key: state.key, kind: state.kind, mode, at: state.at, messages: outcome.violations });
      }
      report.checked++;
      if (state.kind === 'power') report.power++;
    }
    report.workloads.push({ name, operations: ops.length, distinct: last.size, checked: chosen.size });
  }
  await rm(scratch, { recursive: true, force: true });
  return report;
}
