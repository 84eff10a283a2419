import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_USER, authenticate, loadApiKeys } from './api-keys.js';
import { errorOf, removeDir, tempDir } from '@stateflow/test-kit';

const codeOf = (fn: () => unknown): string => errorOf(fn).code;

describe('loadApiKeys', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('keys');
  });
  afterAll(() => removeDir(dir));

  it('reads the keys option, then the file, then STATEFLOW_API_KEYS; none → null', async () => {
    const file = path.join(dir, 'keys.json');
    await writeFile(file, '{"k1": "alice"}');
    expect([...(loadApiKeys({ keys: { k0: 'zed' }, keysFile: file, env: '{"k2":"bob"}' }) ?? [])]).toEqual([['k0', 'zed']]);
    expect([...(loadApiKeys({ keysFile: file, env: '{"k2":"bob"}' }) ?? [])]).toEqual([['k1', 'alice']]);
    expect([...(loadApiKeys({ env: '{"k2":"bob"}' }) ?? [])]).toEqual([['k2', 'bob']]);
    expect(loadApiKeys({})).toBeNull();
    expect(loadApiKeys({ env: '  ' })).toBeNull();
  });

  it('rejects unreadable files, non-JSON, non-objects, empty maps and non-string users with USAGE', () => {
    expect(codeOf(() => loadApiKeys({ keysFile: path.join(dir, 'missing.json') }))).toBe('USAGE');
    expect(codeOf(() => loadApiKeys({ env: 'not json' }))).toBe('USAGE');
    expect(codeOf(() => loadApiKeys({ env: '["k"]' }))).toBe('USAGE');
    expect(codeOf(() => loadApiKeys({ env: '{}' }))).toBe('USAGE');
    expect(codeOf(() => loadApiKeys({ env: '{"k": 7}' }))).toBe('USAGE');
    expect(codeOf(() => loadApiKeys({ env: '{"k": ""}' }))).toBe('USAGE');
  });
});

describe('authenticate', () => {
  const keys = new Map([['secret', 'alice']]);
  it('maps a Bearer key to its user, and serves the local user without keys', () => {
    expect(authenticate(keys, 'Bearer secret')).toBe('alice');
    expect(authenticate(keys, 'bearer   secret ')).toBe('alice');
    expect(authenticate(null, undefined)).toBe(LOCAL_USER);
    expect(authenticate(null, 'Bearer anything')).toBe(LOCAL_USER);
  });
  it('rejects a missing, malformed or unknown key with UNAUTHORIZED', () => {
    for (const header of [undefined, '', 'secret', 'Basic secret', 'Bearer nope', 'Bearer secret extra']) {
      expect(codeOf(() => authenticate(keys, header))).toBe('UNAUTHORIZED');
    }
  });
});
