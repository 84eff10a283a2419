/**
 * The simulated processes and their writers. LevelDB's shape has one process (it holds the store
 * alone) with 2–3 concurrent writers; PostgreSQL's has 2–3 processes on the one database, each
 * with 1–2 writers. Each writer runs its operations one after another and records them in the
 * history. A process whose storage crashed is restarted (a new incarnation of its storage, the
 * store opened again, audited); a crash may be a power loss instead (the whole machine, or the
 * database server: every process dies, unsynced commits after the last synced one may be lost).
 * A store that answers `REOPEN_REQUIRED` is closed and opened again, as `stateflow serve` does.
 */
import { isStateflowError } from '@stateflow/core';
import type { Store, StoreOptions } from '@stateflow/store';
import { openStoreOver } from '@stateflow/store';
import { Incarnation } from './faulty-storage.js';
import type { SimulationShape } from '../../simulation-shape.js';
import type { OkValue, OpRecord, OpSpec, Outcome } from './history.js';
import type { Plan } from './plan.js';
import { nextOp, runOp } from './workload.js';
import type { WriterState } from './workload.js';
import type { World } from './world.js';

/** Counts of what the simulation did, for the report. */
export interface DriverStats {
  crashes: number;
  powerLosses: number;
  commitsLost: number;
  restarts: number;
  failedOpens: number;
}

/** One simulated process. */
interface Proc {
  name: string;
  inc: Incarnation;
  store: Store | null;
  epoch: number;
  /** Resolves when the process is open again after its latest restart. */
  ready: Promise<void>;
  /** The incarnation whose end a restart is already handling. */
  handled: Incarnation | null;
}

/** Everything one simulation shares. */
export interface Sim {
  world: World;
  plan: Plan;
  shape: SimulationShape;
  options: StoreOptions;
  history: OpRecord[];
  /** Problems found while running (untyped errors, an audit with problems, a hang of an open). */
  violations: string[];
  stats: DriverStats;
  /** The logical clock of the history. */
  time: number;
  procs: Proc[];
  /** The restarts, one after another. */
  restarting: Promise<void>;
}

/** Classify a rejection: a typed refusal (`fail`), an open outcome (`unknown`), or a violation. */
function classify(sim: Sim, label: string, err: unknown): Outcome {
  if (!isStateflowError(err)) {
    sim.violations.push(`${label}: untyped error ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    return { kind: 'unknown', why: 'untyped error' };
  }
  if (err.code === 'STORE_CORRUPT' || err.code === 'INTERNAL') {
    sim.violations.push(`${label}: ${err.code} without any damage done: ${err.message}`);
    return { kind: 'unknown', why: err.code };
  }
  // A failed storage write is an open outcome on LevelDB (the write may have reached the log);
  // on PostgreSQL the error says which.
  if (err.code === 'STORE_IO') return { kind: 'unknown', why: 'STORE_IO' };
  if (err.code === 'STORE_UNAVAILABLE' && (err.details as { outcome?: string }).outcome === 'unknown') return { kind: 'unknown', why: 'STORE_UNAVAILABLE unknown' };
  return { kind: 'fail', code: err.code };
}

/** Open (or open again) `proc`'s store over a new incarnation of its storage; audit it. */
async function open(sim: Sim, proc: Proc): Promise<void> {
  await openAttempts(sim, proc);
  await record(sim, proc, `${proc.name}.open`, { kind: 'audit' });
}

async function openAttempts(sim: Sim, proc: Proc): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    // After a few failed opens the next one meets no fault, so that every run ends.
    const inc = new Incarnation(sim.world, sim.plan, sim.shape, { faults: attempt < 3 });
    proc.inc = inc;
    proc.store = null;
    const opened = await Promise.race([
      openStoreOver(inc.storage, sim.options).then(
        (store) => ({ store }),
        (err: unknown) => ({ err }),
      ),
      inc.dead.then(() => ({ dead: true as const })),
    ]);
    if ('store' in opened) {
      inc.faults = true;
      proc.store = opened.store;
      proc.epoch = sim.world.epoch;
      break;
    }
    sim.stats.failedOpens++;
    if ('err' in opened) classify(sim, `${proc.name} open`, opened.err);
    if (attempt > 10) {
      sim.violations.push(`${proc.name}: the store does not open after ${attempt} attempts`);
      return;
    }
  }
}

/** Run `spec` in `proc` and record it; a crash of the process meanwhile is an unknown outcome. */
async function record(sim: Sim, proc: Proc, label: string, spec: OpSpec): Promise<Outcome> {
  const { inc, store } = proc;
  const rec: OpRecord = { label, spec, epoch: proc.epoch, invoked: sim.time++, completed: -1, outcome: { kind: 'unknown', why: 'pending' } };
  sim.history.push(rec);
  if (store === null) {
    rec.outcome = { kind: 'fail', code: 'STORE_CLOSED' };
  } else {
    rec.outcome = await Promise.race([
      runOp(store, spec).then(
        (value: OkValue): Outcome => ({ kind: 'ok', value }),
        (err: unknown) => classify(sim, label, err),
      ),
      inc.dead.then((): Outcome => ({ kind: 'unknown', why: 'crashed' })),
    ]);
  }
  // The process may have died after the answer was made but before the writer saw it.
  if (inc.crashed) rec.outcome = { kind: 'unknown', why: 'crashed' };
  rec.completed = sim.time++;
  if (rec.outcome.kind === 'ok' && rec.outcome.value.kind === 'audit' && rec.outcome.value.problems > 0) {
    sim.violations.push(`${label}: the audit found ${rec.outcome.value.problems} problems`);
  }
  return rec.outcome;
}

/**
 * Restart `proc` after its incarnation `inc` ended — it crashed, or (`clean`) its store is to be
 * closed and opened again — once, whichever writer asks first. Restarts run one at a time (a
 * machine reboots as a whole): after a crash, now and then as a power loss, which kills every
 * process, loses unsynced commits and opens every process again.
 */
function restart(sim: Sim, proc: Proc, inc: Incarnation, how: 'crashed' | 'clean'): Promise<void> {
  if (proc.inc !== inc || proc.handled === inc) return proc.ready;
  proc.handled = inc;
  const run: Promise<void> = sim.restarting.then(async (): Promise<void> => {
    let crashed = how === 'crashed';
    if (!crashed) crashed = (await Promise.race([proc.store?.close().then(() => false), inc.dead.then(() => true)])) ?? false;
    if (crashed) sim.stats.crashes++;
    if (crashed && sim.plan.faults && sim.plan.chance(0.35)) return powerLoss(sim, run);
    sim.stats.restarts++;
    // Commits the dead process handed to storage land first, and the opening recovers what
    // reached the log only (a write whose sync failed), as after a real crash.
    await sim.world.settled();
    await sim.world.reveal();
    await open(sim, proc);
  });
  sim.restarting = run.catch(() => undefined);
  proc.ready = run;
  return run;
}

/** A power loss during the restart `run`: every process dies, unsynced commits may go, every process opens again. */
async function powerLoss(sim: Sim, run: Promise<void>): Promise<void> {
  for (const other of sim.procs) {
    other.handled = other.inc;
    other.ready = run;
    other.inc.crash();
  }
  sim.stats.powerLosses++;
  sim.stats.commitsLost += await sim.world.powerLoss((unsynced) => sim.plan.int(0, unsynced));
  for (const other of sim.procs) {
    sim.stats.restarts++;
    await open(sim, other);
  }
}

function learn(writer: WriterState, spec: OpSpec, outcome: Outcome): void {
  const retriable = (spec.kind === 'publish' && spec.input.id !== undefined) || (spec.kind === 'publishMany' && spec.inputs.some((i) => i.id !== undefined)) || spec.kind === 'fork' || (spec.kind === 'merge' && spec.id !== undefined);
  if (retriable && (outcome.kind === 'unknown' || writer.retries.length < 3)) writer.retries.push(spec);
  if (writer.retries.length > 6) writer.retries.shift();
  if (outcome.kind !== 'ok' || outcome.value.kind !== 'publish') return;
  if (spec.kind === 'fork' && outcome.value.results[0]?.status === 'accepted' && writer.forks.length < 6) writer.forks.push([spec.from, spec.to]);
  for (const result of outcome.value.results) {
    for (const change of result.transition?.changes ?? []) writer.seen.set(change.stream, Math.max(writer.seen.get(change.stream) ?? 0, change.rev));
  }
}

/** One writer of `proc`: `budget` operations, restarting its process when it crashed. */
async function writer(sim: Sim, proc: Proc, name: string, budget: number, forks: [string, string][]): Promise<void> {
  const state: WriterState = { name, n: 0, seen: new Map(), retries: [], forks };
  for (let n = 0; n < budget; n++) {
    await proc.ready;
    const inc = proc.inc;
    const label = `${name}.${n}`;
    const spec = nextOp(sim.plan, state, label);
    if (spec === 'restart') {
      await restart(sim, proc, inc, 'clean');
      continue;
    }
    const outcome = await record(sim, proc, label, spec);
    learn(state, spec, outcome);
    if (inc.crashed) await restart(sim, proc, inc, 'crashed');
    else if (outcome.kind === 'fail' && outcome.code === 'REOPEN_REQUIRED') await restart(sim, proc, inc, 'clean');
  }
}

/** Open the processes, run every writer to the end, then close every store without faults. */
export async function drive(sim: Sim, layout: { processes: number; writers: number; budget: number }): Promise<void> {
  for (let p = 0; p < layout.processes; p++) {
    const proc: Proc = { name: `p${p}`, inc: new Incarnation(sim.world, sim.plan, sim.shape, { faults: false }), store: null, epoch: 0, ready: Promise.resolve(), handled: null };
    sim.procs.push(proc);
    proc.ready = open(sim, proc);
    await proc.ready;
  }
  const forks: [string, string][] = [];
  const writers = sim.procs.flatMap((proc) => Array.from({ length: layout.writers }, (_, w) => writer(sim, proc, `${proc.name}.w${w}`, layout.budget, forks)));
  await Promise.all(writers);
  sim.plan.faults = false;
  for (const proc of sim.procs) {
    await proc.ready;
    // A crash during the audit after its last restart: no writer is left to notice it.
    if (proc.inc.crashed) await restart(sim, proc, proc.inc, 'crashed');
    await proc.store?.close();
  }
}
