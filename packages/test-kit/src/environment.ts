/**
 * The skip rule for tests that need something of the machine (a tmpfs mount, a database, a
 * browser, the shared histories): where it is absent the test skips with a visible reason, and
 * under `CI=true` — where everything must be present — it fails instead, so that a missing piece
 * can never turn a CI run green by skipping.
 */

/** Whether this run is CI (`CI=true`): requirements are then failures, not skips. */
export const inCi = (): boolean => process.env.CI === 'true';

/**
 * Report that a requirement is unavailable: throws under CI, else prints `SKIPPED: <reason>` on
 * stderr and returns, so the caller can skip.
 * @throws Error under `CI=true`
 */
export function unavailable(reason: string): void {
  if (inCi()) throw new Error(`required under CI=true but unavailable: ${reason}`);
  process.stderr.write(`SKIPPED: ${reason}\n`);
}
