/** fast-check run parameters from options, then the environment (brief: "Tests"). */
import type { ConformanceOptions } from '../initializer.js';

const DEFAULT_RUNS = 20;

/** The integer in the environment variable `name`, or `undefined` when unset or empty. @throws Error for anything else */
export function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** `numRuns` and `seed` for `fc.assert`: options win, then STATEFLOW_FC_RUNS / STATEFLOW_FC_SEED. */
export function fcParams(options: ConformanceOptions): { numRuns: number; seed?: number } {
  const numRuns = options.runs ?? envInt('STATEFLOW_FC_RUNS') ?? DEFAULT_RUNS;
  const seed = options.seed ?? envInt('STATEFLOW_FC_SEED');
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
