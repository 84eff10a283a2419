/**
 * Store URLs (README "API": `openPostgresStore(url)`): the location a store reports and every
 * message carry no password, wherever the URL put one; bad URLs are USAGE.
 */
import { describe, expect, it } from 'vitest';
import { errorOf } from '@stateflow/test-kit';
import { parseTarget, storeLocationKind } from './store-url.js';

describe('parseTarget', () => {
  it('keeps the password for the connection and out of the location (user info and query)', () => {
    const target = parseTarget('postgres://app:s3cret@db:5432/agents?password=q-secret&sslpassword=ssl-secret&sslmode=disable&schema=memory');
    expect(target.schema).toBe('memory');
    expect(target.connectionString).toContain('s3cret');
    expect(target.connectionString).toContain('password=q-secret');
    expect(target.location).toBe('postgres://app@db:5432/agents?sslmode=disable&schema=memory');
  });

  it('does not echo the user info of a URL that does not parse', () => {
    const err = errorOf(() => parseTarget('postgres://postgres:LEAKPW@127.0.0.1:99999/test?schema=s'));
    expect(err.code).toBe('USAGE');
    expect(err.message).not.toContain('LEAKPW');
    expect(err.message).toContain('postgres://…@127.0.0.1:99999/test');
  });

  it('refuses a schema given twice', () => {
    const err = errorOf(() => parseTarget('postgres://db/test?schema=a&schema=b'));
    expect(err.code).toBe('USAGE');
    expect(err.message).toContain('schema= once');
  });
});

describe('storeLocationKind', () => {
  it('tells a PostgreSQL URL (either scheme, any case) from a directory', () => {
    expect(['postgres://db/x', 'postgresql://u@db:5432/x?schema=s', 'POSTGRES://db/x'].map(storeLocationKind)).toEqual(['postgres', 'postgres', 'postgres']);
    expect(['.stateflow', '/abs/dir', 'rel/dir:with-colon', 'C:\\stores\\one', 'name:tag'].map(storeLocationKind)).toEqual(Array(5).fill('directory'));
  });

  it('refuses a URL of another scheme with USAGE naming the schemes supported, instead of making a directory of it', () => {
    for (const [url, scheme] of [['mysql://root@db/app', 'mysql:'], ['file:///tmp/store', 'file:'], ['Redis://cache:6379', 'redis:']] as const) {
      const err = errorOf(() => storeLocationKind(url));
      expect(err.code).toBe('USAGE');
      expect(err.details).toEqual({ at: scheme, reason: 'url-scheme' });
    }
  });
});
