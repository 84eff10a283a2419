import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FC_RUNS, fcParams, fcRuns, testSeed } from './fast-check.js';

const saved = { runs: process.env.STATEFLOW_FC_RUNS, seed: process.env.STATEFLOW_FC_SEED };
afterEach(() => {
  for (const [name, value] of [['STATEFLOW_FC_RUNS', saved.runs], ['STATEFLOW_FC_SEED', saved.seed]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('fast-check parameters', () => {
  it('default to 100 runs and one seed per process', () => {
    delete process.env.STATEFLOW_FC_RUNS;
    delete process.env.STATEFLOW_FC_SEED;
    expect(DEFAULT_FC_RUNS).toBe(100);
    expect(fcRuns()).toBe(100);
    const { numRuns, seed } = fcParams();
    expect(numRuns).toBe(100);
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(testSeed()).toBe(seed);
  });

  it('take STATEFLOW_FC_RUNS / STATEFLOW_FC_SEED, a share scaling the runs (at least one)', () => {
    process.env.STATEFLOW_FC_RUNS = '500';
    process.env.STATEFLOW_FC_SEED = '7411';
    expect(fcParams()).toEqual({ numRuns: 500, seed: 7411 });
    expect(fcParams({ share: 0.2 }).numRuns).toBe(100);
    expect(fcParams({ share: 2 }).numRuns).toBe(1000);
    process.env.STATEFLOW_FC_RUNS = '1';
    expect(fcParams({ share: 0.25 }).numRuns).toBe(1);
  });

  it('refuse what is not a count or a seed', () => {
    for (const bad of ['0', '-3', '2.5', 'many']) {
      process.env.STATEFLOW_FC_RUNS = bad;
      expect(() => fcRuns(), bad).toThrow('STATEFLOW_FC_RUNS must be a positive integer');
    }
    delete process.env.STATEFLOW_FC_RUNS;
    process.env.STATEFLOW_FC_SEED = 'x';
    expect(() => testSeed()).toThrow('STATEFLOW_FC_SEED must be an integer');
    expect(() => fcParams({ share: 0 })).toThrow('share must be > 0');
  });
});
