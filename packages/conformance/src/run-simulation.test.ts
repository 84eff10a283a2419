/**
 * The deterministic simulator (`run-simulation.ts`) over many seeds, both shapes (even seeds
 * LevelDB's, odd ones PostgreSQL's), with the figures printed: seeds, violations, the median and
 * slowest run (a replay of one seed takes that long). Every violation names its seed and the
 * command that replays it with the whole history printed.
 *
 * - `STATEFLOW_SIM_SEEDS` seeds per run (default 500; `npm run test:deep` runs 10,000), from
 *   `STATEFLOW_SIM_FROM` (default drawn per run and printed, so that each run explores new
 *   seeds and any run can be repeated);
 * - `STATEFLOW_SIM_SEED=<seed>` replays that seed alone and prints its history.
 * The regression seeds below run every time: each found a bug (fixed, with a test of its own in
 * the store). A seed stands for the same run only as long as the simulator draws its choices the
 * same way; the store's own tests keep the bugs out for good.
 */
import { describe, expect, it } from 'vitest';
import { fakeClock, seededRandom } from '@stateflow/test-kit';
import { envInt } from './internal/fc-params.js';
import { runSimulation } from './run-simulation.js';
import type { SimulationReport } from './run-simulation.js';

/**
 * Seeds that catch a store bug found by the simulator (or, for the fork, while writing its
 * test), each fixed with a test of its own in the store: with the fix undone, each seed fails.
 */
const REGRESSION_SEEDS: Record<number, string> = {
  10: 'a fork retried with its id answered CONFLICT or noop instead of duplicate (fork checked expected first)',
  65: 'the same, on PostgreSQL',
  68: 'stateAt of the head revision answered a later revision when a publish landed while it loaded the current state',
  2567: 'the same, on PostgreSQL',
  229: 'creating a store left its write session open when the read inside it failed: the next open waited for ever',
  538: 'the same, on LevelDB',
  5297: 'a current-state load racing another process\'s compaction failed closed (revision index entry missing)',
};

const simulate = (seed: number, trace = false): Promise<SimulationReport> =>
  runSimulation({ seed, random: seededRandom(seed), clock: fakeClock({ tick: 1 }).clock, trace });

const replay = (seed: number): string => `STATEFLOW_SIM_SEED=${seed} npx vitest run src/run-simulation.test.ts (in packages/conformance)`;

/** Run `seeds` one after another; the figures and every violation with its replay command. */
async function runSeeds(seeds: number[]): Promise<{ failures: string[]; reports: SimulationReport[] }> {
  const reports: SimulationReport[] = [];
  const failures: string[] = [];
  for (const seed of seeds) {
    const report = await simulate(seed);
    reports.push(report);
    if (report.violations.length > 0) failures.push(`seed ${seed} (${report.shape}): ${report.violations.join('; ')} — replay: ${replay(seed)}`);
  }
  return { failures, reports };
}

function figures(label: string, reports: SimulationReport[]): string {
  const ms = reports.map((r) => r.ms).sort((a, b) => a - b);
  const sum = (pick: (r: SimulationReport) => number): number => reports.reduce((n, r) => n + pick(r), 0);
  const violations = reports.filter((r) => r.violations.length > 0).length;
  return [
    `simulator, ${label}: ${reports.length} seeds, ${violations} with violations; replay median ${ms[Math.floor(ms.length / 2)]?.toFixed(0)} ms, slowest ${ms.at(-1)?.toFixed(0)} ms`,
    `  ${sum((r) => r.operations)} calls (${sum((r) => r.outcomes.ok)} ok, ${sum((r) => r.outcomes.fail)} refused, ${sum((r) => r.outcomes.unknown)} unknown), ${sum((r) => r.transitions)} transitions,`,
    `  ${sum((r) => r.crashes)} crashes, ${sum((r) => r.powerLosses)} power losses (${sum((r) => r.commitsLost)} commits lost), ${sum((r) => r.restarts)} restarts`,
  ].join('\n');
}

const only = envInt('STATEFLOW_SIM_SEED');

describe('deterministic simulation above the storage seam', () => {
  if (only !== undefined) {
    it(`replays seed ${only}`, async () => {
      const report = await simulate(only, true);
      process.stdout.write(`${(report.trace ?? []).join('\n')}\n${JSON.stringify({ ...report, trace: undefined }, null, 2)}\n`);
      expect(report.violations).toEqual([]);
    }, 120_000);
    return;
  }

  it('the same seed makes the same run', async () => {
    for (const seed of [1, 2, 3, 4]) {
      const [a, b] = [await simulate(seed), await simulate(seed)];
      expect(b.digest).toBe(a.digest);
      expect(b.operations).toBe(a.operations);
    }
    expect((await simulate(5)).digest).not.toBe((await simulate(6)).digest);
  });

  it(`the regression seeds (${Object.keys(REGRESSION_SEEDS).join(', ')}) keep the store contract`, async () => {
    const { failures } = await runSeeds(Object.keys(REGRESSION_SEEDS).map(Number));
    expect(failures).toEqual([]);
  });

  const count = envInt('STATEFLOW_SIM_SEEDS') ?? 500;
  const from = envInt('STATEFLOW_SIM_FROM') ?? Math.floor(Math.random() * 1_000_000_000);
  it(`${count} seeds from ${from} keep the store contract: no violation`, async () => {
    const { failures, reports } = await runSeeds(Array.from({ length: count }, (_, i) => from + i));
    process.stdout.write(`${figures(`STATEFLOW_SIM_FROM=${from} STATEFLOW_SIM_SEEDS=${count}`, reports)}\n`);
    expect(failures).toEqual([]);
    expect(reports.length).toBe(count);
  }, Math.max(120_000, count * 500));
});
