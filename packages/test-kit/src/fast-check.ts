/**
 * How many runs a property gets and from which seed, the same for every package (CONVENTIONS.md
 * "Tests": seed and run count from the environment so CI can raise them).
 *
 * - `STATEFLOW_FC_RUNS` (a positive integer; default {@link DEFAULT_FC_RUNS}) is the run count of
 *   an ordinary property. A property whose every run is expensive (a real store opened and
 *   closed, many commands, a database round trip) asks for a `share` of it, so raising the one
 *   number (`npm run test:deep` sets 500) deepens every property in proportion.
 * - `STATEFLOW_FC_SEED` (an integer) replays a run; without it the seed is drawn once per test
 *   process. fast-check names the seed in every failure report, so any failure can be replayed
 *   with `STATEFLOW_FC_SEED=<seed>`.
 */

/** Runs of an ordinary property when `STATEFLOW_FC_RUNS` is not set. */
export const DEFAULT_FC_RUNS = 100;

function envInteger(name: string, check: (n: number) => boolean, what: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || !check(n)) throw new Error(`${name} must be ${what}, got ${JSON.stringify(raw)}`);
  return n;
}

const drawnSeed = Math.floor(Math.random() * 2 ** 31);

/**
 * The seed of this run: `STATEFLOW_FC_SEED`, else one drawn once per process.
 * @throws Error when `STATEFLOW_FC_SEED` is not an integer
 */
export function testSeed(): number {
  return envInteger('STATEFLOW_FC_SEED', () => true, 'an integer') ?? drawnSeed;
}

/**
 * Run count of an ordinary property: `STATEFLOW_FC_RUNS`, else {@link DEFAULT_FC_RUNS}.
 * @throws Error when `STATEFLOW_FC_RUNS` is not a positive integer
 */
export function fcRuns(): number {
  return envInteger('STATEFLOW_FC_RUNS', (n) => n >= 1, 'a positive integer') ?? DEFAULT_FC_RUNS;
}

/**
 * `{ numRuns, seed }` for `fc.assert`. `options.share` (default 1, > 0) scales the run count for
 * a property that costs more (0.2: a fifth) or less (2: twice) than an ordinary one; at least 1
 * run.
 */
export function fcParams(options: { share?: number } = {}): { numRuns: number; seed: number } {
  const share = options.share ?? 1;
  if (!(share > 0)) throw new Error(`fcParams share must be > 0, got ${share}`);
  return { numRuns: Math.max(1, Math.round(fcRuns() * share)), seed: testSeed() };
}
