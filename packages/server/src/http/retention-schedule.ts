/**
 * The server's retention schedule (`retainIntervalMs`, default off): every interval, one run of
 * the store's declared retention policies (store README "Retention") as of the server's clock.
 * Runs never overlap; a failure is a warning and the next tick tries again.
 */
import { retain } from '@stateflow/store';
import type { RetainReport, Store } from '@stateflow/store';

/** A running schedule: `stop` ends the timer and waits for a run in progress. */
export interface RetentionSchedule {
  stop(): Promise<void>;
}

/** Schedule a retention run of `store` every `intervalMs` (none for `0`); `reported` gets each run's report. */
export function scheduleRetention(store: Store, intervalMs: number, clock: () => Date, warn: (message: string) => void, reported: (report: RetainReport) => void): RetentionSchedule {
  if (intervalMs <= 0) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const tick = (): void => {
    if (running !== null) return;
    running = retain(store, { now: clock().getTime(), meta: { schedule: 'retention' } })
      .then(reported, (err: unknown) => warn(`stateflow: warning: the scheduled retention run failed: ${(err as Error).message}`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
