/**
 * PostgreSQL's failures as Stateflow errors, against the real test server: a database that does
 * not exist is NOT_FOUND naming it, with the `createdb` line that makes it (it was STORE_IO with
 * SQLSTATE 3D000), whether or not the store may be created.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPostgres, testPostgresUrl } from '@stateflow/test-kit';
import { openPostgresStore } from './open-postgres-store.js';

const server = await testPostgres();

describe.skipIf('unavailable' in server)('a database that does not exist', () => {
  it('is NOT_FOUND { url, database } with the createdb line for that server and user', async () => {
    const url = new URL(testPostgresUrl());
    const database = `sf_missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${database}`;
    url.searchParams.set('schema', 'app');
    for (const createIfMissing of [true, false]) {
      const err = await rejectionOf(() => openPostgresStore(url.toString(), { createIfMissing }));
      expect(err.code).toBe('NOT_FOUND');
      expect(err.details).toEqual({ url: url.toString(), database });
      const words = ['createdb', '-h', url.hostname, ...(url.port === '' ? [] : ['-p', url.port]), ...(url.username === '' ? [] : ['-U', url.username]), database];
      expect(err.message).toContain(`"${words.join(' ')}"`);
    }
  });
});
