/**
 * A real PostgreSQL for tests (the project's machines and CI run PostgreSQL 15 on
 * 127.0.0.1:5432 with trust auth): the server named by `STATEFLOW_TEST_POSTGRES` (default
 * `postgres://postgres@127.0.0.1:5432/test`), and a fresh schema name per use so that test files
 * never share a store. Where no server answers, callers skip with a visible reason; under
 * `CI=true` that is a failure ({@link unavailable}).
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { unavailable } from './environment.js';

/** The test server's URL (without a schema). */
export const testPostgresUrl = (): string => process.env.STATEFLOW_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether the test server accepts TCP connections (within 2 s); the reason when not.
 * @returns `null` when it answers, else why not
 */
export async function postgresUnavailable(): Promise<string | null> {
  const url = new URL(testPostgresUrl());
  const port = Number(url.port || 5432);
  const reason = await new Promise<string | null>((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (why: string | null): void => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(2_000, () => done('timed out'));
    socket.once('connect', () => done(null));
    socket.once('error', (err) => done(err.message));
  });
  return reason === null ? null : `no PostgreSQL at ${url.host} (${reason}); set STATEFLOW_TEST_POSTGRES, or start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`;
}

/** A store URL on the test server with a schema of its own (`sf_test_<prefix>_<random>`). */
export function freshPostgresUrl(prefix = 't'): string {
  const url = new URL(testPostgresUrl());
  url.searchParams.set('schema', `sf_${prefix}_${randomBytes(6).toString('hex')}`);
  return url.toString();
}

/**
 * The test server for a test file: `{ url }` when it answers, else `{ unavailable }` after
 * reporting it (a visible skip; under `CI=true` this throws instead).
 */
export async function testPostgres(): Promise<{ url: string } | { unavailable: string }> {
  const reason = await postgresUnavailable();
  if (reason === null) return { url: testPostgresUrl() };
  unavailable(reason);
  return { unavailable: reason };
}
