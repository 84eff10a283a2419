/**
 * The backends the simulator (`run-simulation.ts`) imitates above the storage seam, and which one
 * a seed runs in.
 */

/**
 * `'leveldb'`: one process holds the store — sole writer, synchronous point reads, a failed
 * write needs a reopen (`capabilities.reopenAfterFailedWrite`). `'postgres'`: 2–3 processes
 * share it — `commitIf`, catch-ups, a lost connection's `STORE_UNAVAILABLE` with `outcome:
 * 'not-sent' | 'unknown'`.
 */
export type SimulationShape = 'leveldb' | 'postgres';

/** The shape a seed runs in when none is given: LevelDB's for an even seed, PostgreSQL's for an odd one. */
export const simulationShape = (seed: number): SimulationShape => (Math.abs(seed) % 2 === 0 ? 'leveldb' : 'postgres');
