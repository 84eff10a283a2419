/**
 * A clock a test moves by hand, for anything that takes `clock: () => Date` (stores, session
 * managers, servers): lifecycle times, expiry and retention are then exact, never slept for.
 */

/** A fake clock: `clock` to inject, `advance` to move it, `now` to read it without moving it. */
export interface FakeClock {
  /** The current time as a new Date; with a `tick`, each call then moves the time on by it. */
  clock: () => Date;
  /** Move the time forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** The current time in ms since the epoch. */
  now(): number;
}

/**
 * A fake clock starting at `options.start` (ISO 8601 text or ms since the epoch; default
 * 2026-07-21T10:00:00.000Z). `options.tick` (ms, default 0) moves it forward after each
 * reading (the first reading is `start`), for code that needs every reading to be later than
 * the one before.
 */
export function fakeClock(options: { start?: string | number; tick?: number } = {}): FakeClock {
  const { start = '2026-07-21T10:00:00.000Z', tick = 0 } = options;
  let now = typeof start === 'number' ? start : Date.parse(start);
  if (!Number.isFinite(now)) throw new Error(`fakeClock start is not a time: ${String(start)}`);
  return {
    clock: () => {
      const reading = new Date(now);
      now += tick;
      return reading;
    },
    advance: (ms) => {
      now += ms;
    },
    now: () => now,
  };
}
