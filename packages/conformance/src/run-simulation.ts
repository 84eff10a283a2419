/**
 * A deterministic simulation of the store above the storage seam, in the style of FoundationDB's
 * and TigerBeetle's simulators: the real store (`openStoreOver`) runs over a simulated storage
 * (memory-level, with a real backend's shape) whose every call may wait, fail typed, or crash
 * its process by a seeded plan — also around a commit: refused, applied with its answer lost
 * (FoundationDB's `commit_unknown_result`), lost unseen — while concurrent writers publish,
 * publishMany, fork, merge, revert, compact and retry with idempotency ids; crashed processes
 * restart, a crash may be a power loss that drops unsynced commits. Then the history of every
 * call is checked against the commits that reached storage and the conformance model.
 */
import { createHash } from 'node:crypto';
import type { Store, StoreOptions, Transition } from '@stateflow/store';
import { openStoreOver } from '@stateflow/store';
import { Calls } from './internal/simulator/attribution.js';
import { checkLog } from './internal/simulator/check-log.js';
import { checkModel } from './internal/simulator/check-model.js';
import { checkFinal, checkReads } from './internal/simulator/check-reads.js';
import { drive } from './internal/simulator/driver.js';
import type { Sim } from './internal/simulator/driver.js';
import type { OpRecord } from './internal/simulator/history.js';
import { Plan } from './internal/simulator/plan.js';
import { World } from './internal/simulator/world.js';
import { simulationShape } from './simulation-shape.js';
import type { SimulationShape } from './simulation-shape.js';

/** Options of {@link runSimulation}. */
export interface SimulationOptions {
  /** The seed `random` was made from; reported, so that a failure names what replays it. */
  seed: number;
  /** The seeded PRNG every choice comes from: numbers in [0, 1), e.g. test-kit's `seededRandom(seed)`. */
  random: () => number;
  /** The store's clock, e.g. test-kit's `fakeClock({ tick: 1 }).clock`: a real clock would make transition hashes differ per run. */
  clock: () => Date;
  /** The backend imitated ({@link SimulationShape}). Default: by the seed ({@link simulationShape}), so that a seed alone names a run. */
  shape?: SimulationShape;
  /** A run taking longer than this (ms, default 60,000) is reported as a hang. */
  timeoutMs?: number;
  /** Put the whole history in the report (`trace`), one line per call: to read a replayed seed. */
  trace?: boolean;
}

/** What one simulation did and found. */
export interface SimulationReport {
  seed: number;
  shape: SimulationShape;
  /** Calls in the history (the writers', and an audit per open). */
  operations: number;
  outcomes: { ok: number; fail: number; unknown: number };
  /** Transitions in the log at the end. */
  transitions: number;
  /** Probability of a fault per seam call in this run (drawn from the seed). */
  faultRate: number;
  crashes: number;
  powerLosses: number;
  /** Commits power losses took (unsynced, after the last synced one). */
  commitsLost: number;
  restarts: number;
  /** Everything the checks found; empty when the store kept its contract. */
  violations: string[];
  /** sha256 of the history: the same seed gives the same digest (the run is deterministic). */
  digest: string;
  /** Wall time of the run, ms. */
  ms: number;
  /** With `trace`: every call, `invoked–completed label spec → outcome`, in invocation order. */
  trace?: string[];
}

/** The layout and store options of a run, drawn from its plan. */
function drawSetup(plan: Plan, shape: SimulationShape, clock: () => Date): { layout: { processes: number; writers: number; budget: number }; options: StoreOptions } {
  const layout = shape === 'leveldb' ? { processes: 1, writers: plan.int(2, 3), budget: plan.int(8, 16) } : { processes: plan.int(2, 3), writers: plan.int(1, 2), budget: plan.int(6, 12) };
  const options: StoreOptions = { checkpointInterval: plan.pick([2, 3, 4]), clock };
  if (plan.chance(0.3)) options.retention = { keepRevisions: plan.pick([2, 3, 5]) };
  return { layout, options };
}

/** One line of the history: `invoked–completed label spec → outcome`. */
function traceLine(rec: OpRecord): string {
  const o = rec.outcome;
  const answer =
    o.kind === 'ok'
      ? o.value.kind === 'publish'
        ? o.value.results.map((r) => `${r.status}${r.transition === null ? '' : ` seq ${r.transition.seq} ${r.transition.hash.slice(0, 8)}`}`).join(', ')
        : o.value.kind === 'merge'
          ? `${o.value.result.status}${o.value.result.transition === null ? '' : ` seq ${o.value.result.transition.seq}`}`
          : JSON.stringify(o.value)
      : o.kind === 'fail'
        ? o.code
        : o.why;
  return `${rec.invoked}–${rec.completed} ${rec.label} e${rec.epoch} ${JSON.stringify(rec.spec)} → ${o.kind}: ${answer}`;
}

const digestOf = (history: readonly OpRecord[]): string => createHash('sha256').update(history.map(traceLine).join('\n')).digest('hex');

async function readAll(store: Store): Promise<Transition[]> {
  const out: Transition[] = [];
  for await (const t of store.transitions()) out.push(t);
  return out;
}

/** Check the history against what storage holds at the end; every problem goes to `report`. */
async function check(sim: Sim, report: (problem: string) => void): Promise<number> {
  const full = await openStoreOver(await sim.world.image({ unpruned: true }), sim.options);
  const log = await readAll(full).finally(() => full.close());
  const calls = new Calls(sim.history);
  checkLog(sim.history, log, sim.world.lost, calls, report);
  const oracle = checkModel(log, calls, report);
  const store = await openStoreOver(await sim.world.image({ unpruned: false }), sim.options);
  try {
    const origins = await checkFinal(store, oracle, report);
    checkReads(sim.history, log, sim.world.lost, calls, oracle, origins, report);
  } finally {
    await store.close();
  }
  return log.length;
}

/**
 * Run one simulation. Deterministic: the same `random` sequence (seed) and `clock` give the same
 * history (`digest`) and the same findings.
 * @example
 * ```ts
 * import { seededRandom, fakeClock } from '@stateflow/test-kit';
 * const report = await runSimulation({ seed: 7, random: seededRandom(7), clock: fakeClock({ tick: 1 }).clock }); // odd: PostgreSQL's shape
 * if (report.violations.length > 0) throw new Error(report.violations.join('\n'));
 * ```
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationReport> {
  const started = performance.now();
  const plan = new Plan(options.random, { maxCrashes: 0 });
  plan.crashesLeft = plan.int(0, 4);
  const shape = options.shape ?? simulationShape(options.seed);
  const { layout, options: storeOptions } = drawSetup(plan, shape, options.clock);
  const world = await World.create();
  const stats = { crashes: 0, powerLosses: 0, commitsLost: 0, restarts: 0, failedOpens: 0 };
  const sim: Sim = { world, plan, shape, options: storeOptions, history: [], violations: [], stats, time: 0, procs: [], restarting: Promise.resolve() };
  const report = (problem: string): void => void sim.violations.push(problem);
  let transitions = 0;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), options.timeoutMs ?? 60_000)));
  try {
    if ((await Promise.race([drive(sim, layout).then(() => 'done' as const), hang])) === 'hang') {
      const pending = sim.history.filter((rec) => rec.completed < 0).map((rec) => `${rec.label} ${rec.spec.kind}`);
      report(`no progress for ${options.timeoutMs ?? 60_000} ms: calls never answered: ${pending.join(', ') || 'none (a close or an open)'}`);
    }
    else transitions = await check(sim, report).catch((err: unknown) => (report(`the checks could not read the store: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`), 0));
  } finally {
    clearTimeout(timer);
    await world.close().catch(() => undefined);
  }
  const outcomes = { ok: 0, fail: 0, unknown: 0 };
  for (const rec of sim.history) outcomes[rec.outcome.kind]++;
  return {
    seed: options.seed,
    shape,
    operations: sim.history.length,
    outcomes,
    transitions,
    faultRate: plan.faultRate,
    crashes: stats.crashes,
    powerLosses: stats.powerLosses,
    commitsLost: stats.commitsLost,
    restarts: stats.restarts,
    violations: sim.violations,
    digest: digestOf(sim.history),
    ms: performance.now() - started,
    ...(options.trace === true ? { trace: sim.history.map(traceLine) } : {}),
  };
}
