/**
 * The crash-state explorer's check of one state (README "Durability contract", "Every crash
 * state"): write the state's files into a fresh directory, open the store there as a process of
 * the same boot or of a later one would (`STATEFLOW_BOOT_ID`), and hold what it shows against the
 * workload's ledger:
 *
 * - every fsync-acknowledged transition is present exactly once, with its hash;
 * - a buffered one is present, or — after a power loss — named lost by the open's notice
 *   (`BUFFERED_TRANSITIONS_LOST`, from its seq); a process crash loses nothing and says so;
 * - every transition present is the one the workload wrote (its hash), and the audit is clean;
 * - an open is refused only where the state is not one a legal crash leaves (a power loss opened
 *   as if the machine had not rebooted), and a refused open changes no byte.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isStateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { openStore } from '../../open-store.js';
import type { CrashState } from './crash-states.js';
import type { LedgerEntry } from './trace.js';

/** How the state is opened: on the writer's boot of the machine, or after a reboot. */
export type BootMode = 'same' | 'reboot';

/** What one open of one state showed: the violations (none is the goal), and whether it was refused. */
export interface StateOutcome {
  violations: string[];
  refused: boolean;
}

/** The boot id a "later boot" opener claims. */
const LATER_BOOT = 'crash-explorer-a-later-boot';

/**
 * Open `state` in `dir` (created; removed after) in boot mode `mode` and check it (module comment).
 * @param written every transition the workload acknowledged, by seq (the whole ledger)
 */
export async function checkState(state: CrashState, mode: BootMode, written: Map<number, LedgerEntry>, dir: string): Promise<StateOutcome> {
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of state.files) await writeFile(path.join(dir, name), bytes);
  const before = await dump(dir);
  // Every open running at once has the same mode: the boot id is read from the environment.
  if (mode === 'reboot') process.env.STATEFLOW_BOOT_ID = LATER_BOOT;
  else delete process.env.STATEFLOW_BOOT_ID;
  let store: Store;
  try {
    store = await openStore(dir);
  } catch (err) {
    const violations: string[] = [];
    if (JSON.stringify(await dump(dir)) !== JSON.stringify(before)) violations.push('a refused open changed the directory');
    if (state.kind === 'process' || mode === 'reboot') violations.push(`false alarm: a legal crash state refused: ${(err as Error).message}`);
    await rm(dir, { recursive: true, force: true });
    return { violations, refused: true };
  }
  try {
    return { violations: await ledgerViolations(store, state, mode, written), refused: false };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What an opened store shows against the ledger (module comment). */
async function ledgerViolations(store: Store, state: CrashState, mode: BootMode, written: Map<number, LedgerEntry>): Promise<string[]> {
  const violations: string[] = [];
  const present = new Map<number, { hash: string; id: string | undefined }>();
  const ids = new Map<string, number>();
  for await (const t of store.transitions()) {
    present.set(t.seq, { hash: t.hash, id: t.id });
    if (t.id !== undefined) ids.set(t.id, (ids.get(t.id) ?? 0) + 1);
    const expected = written.get(t.seq);
    if (expected !== undefined && expected.hash !== t.hash) violations.push(`seq ${t.seq} is not the transition acknowledged (hash ${t.hash.slice(0, 12)}, acknowledged ${expected.hash.slice(0, 12)})`);
  }
  const notice = store.notices.find((n) => n.code === 'BUFFERED_TRANSITIONS_LOST');
  // On the writer's boot a process crash loses nothing; after a reboot the opener cannot tell it
  // from a power loss, and may say buffered transitions after the last one kept may be lost.
  if (notice !== undefined && state.kind === 'process' && mode === 'same') violations.push(`a process crash loses nothing, but the open says: ${notice.message}`);
  if (notice !== undefined && [...present.keys()].some((seq) => seq >= notice.details.fromSeq)) violations.push(`the notice names as lost a transition that is present: ${notice.message}`);
  for (const entry of state.acked) {
    if (present.has(entry.seq)) {
      if (ids.get(entry.id) !== 1) violations.push(`transition ${entry.seq} (${entry.id}) present ${ids.get(entry.id) ?? 0} times`);
      continue;
    }
    if (await pruned(store, entry.seq)) continue;
    const named = notice !== undefined && notice.details.fromSeq <= entry.seq && (notice.details.throughSeq === null || notice.details.throughSeq >= entry.seq);
    const mayGo = entry.durability === 'buffered' && state.kind === 'power' && (mode === 'same' || named);
    if (!mayGo) violations.push(`acknowledged ${entry.durability} transition ${entry.seq} (${entry.id}) is missing${notice === undefined ? ', no notice' : `; the notice says: ${notice.message}`}`);
  }
  const audit = await store.audit();
  if (audit.problems.length > 0) violations.push(`audit: ${audit.problems.map((p) => p.code).join(', ')}`);
  return violations;
}

/**
 * Whether transition `seq` is kept as a stub compaction left (`HISTORY_NOT_RETAINED`): the audit
 * verifies its hash in the chain.
 */
async function pruned(store: Store, seq: number): Promise<boolean> {
  if (seq > store.lastSeq()) return false;
  return store.transition(seq).then(
    () => false,
    (err: unknown) => isStateflowError(err, 'HISTORY_NOT_RETAINED'),
  );
}

/** Every file of `dir` by name → sha256 of its bytes. */
async function dump(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const file = path.join(dir, name);
    out[name] = (await stat(file)).isDirectory() ? 'directory' : createHash('sha256').update(await readFile(file)).digest('hex');
  }
  return out;
}
