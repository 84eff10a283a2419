/**
 * Credentials never reach the server's log (server README "Errors"): a 5xx is logged with its
 * URL and headers, with the `token` query parameter, `Authorization` and `X-Stateflow-Token`
 * replaced by `[redacted]`.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@stateflow/store-leveldb';
import type { Store } from '@stateflow/store';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { removeDir, tempDir } from '@stateflow/test-kit';

let root: string;
let store: Store;
let server: ServerHandle;
const lines: string[] = [];

beforeAll(async () => {
  root = await tempDir('redaction');
  store = await openStore(path.join(root, 'store'));
  server = await startServer({ store, port: 0, keys: { 'key-alice-0123456789': 'alice' }, sweepIntervalMs: 0, logDestination: { write: (line) => lines.push(line) } });
  // A store closed under the server: every read answers 503 STORE_CLOSED, which is logged.
  await store.close();
});

afterAll(async () => {
  await server?.close();
  await removeDir(root);
});

describe('the log of a 5xx', () => {
  it('holds the request with its credentials redacted: token in the query and headers, the API key', async () => {
    const answers = [
      await fetch(`${server.url}/v1/store/streams?limit=1&token=${server.token}&x=1`),
      await fetch(`${server.url}/v1/store/streams?%74oken=${server.token}`, { headers: { 'x-stateflow-token': server.token } }),
      await fetch(`${server.url}/v1/store/streams`, { headers: { authorization: 'Bearer key-alice-0123456789' } }),
      await fetch(`${server.url}/v1/store/streams`, { headers: { authorization: `Bearer ${server.token}` } }),
      // A browser sends the history page's URL, with its ?token=, as the Referer of its requests.
      await fetch(`${server.url}/v1/store/streams`, { headers: { authorization: `Bearer ${server.token}`, referer: `${server.url}/ui?token=${server.token}&stream=global` } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503, 503]);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line).not.toContain(server.token);
      expect(line).not.toContain('key-alice-0123456789');
      expect(JSON.parse(line)).toMatchObject({ code: 'STORE_CLOSED', status: 503 });
    }
    const [query, encoded, key, bearer, referer] = lines.map((line) => JSON.parse(line) as { url: string; headers: Record<string, string> });
    expect(query?.url).toBe('/v1/store/streams?limit=1&token=[redacted]&x=1');
    expect(encoded?.url).toBe('/v1/store/streams?token=[redacted]');
    expect(encoded?.headers['x-stateflow-token']).toBe('[redacted]');
    expect(key?.headers.authorization).toBe('[redacted]');
    expect(bearer?.headers.authorization).toBe('[redacted]');
    expect(referer?.headers.referer).toBe(`${server.url}/ui?token=[redacted]&stream=global`);
  });
});
