/**
 * The outcome of one request: the server's typed error comes back as itself, and a failed
 * connection is STORE_UNAVAILABLE saying whether the request may have been applied.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callServer } from './http-call.js';

let server: Server | undefined;
afterEach(async () => {
  if (server !== undefined) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const http = createServer(handler);
  server = http;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

describe('callServer', () => {
  it('returns the body and the last seq header', async () => {
    const url = await listen((_req, res) => res.setHeader('stateflow-last-seq', '12').setHeader('content-type', 'application/json').end('{"ok": true}'));
    expect(await callServer({ url }, 'v1/x')).toMatchObject({ body: { ok: true }, lastSeq: 12 });
  });

  it("rethrows the server's typed error with its code and details", async () => {
    const url = await listen((_req, res) => {
      res.statusCode = 409;
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ error: { code: 'CONFLICT', message: 'stale', details: { stream: 's', expected: 1, actual: 2 } } }));
    });
    await expect(callServer({ url }, 'v1/x', { body: {} })).rejects.toMatchObject({ code: 'CONFLICT', details: { stream: 's', expected: 1, actual: 2 } });
  });

  it('an error answer that is not a Stateflow error (no body, unknown code, details off its code) is INTERNAL saying so', async () => {
    const answers = [
      '{"message": "bad gateway"}',
      JSON.stringify({ error: { code: 'NO_SUCH_CODE', message: 'x', details: {} } }),
      JSON.stringify({ error: { code: 'CONFLICT', message: 'stale', details: { stream: 's', expected: 1 } } }),
    ];
    const url = await listen((_req, res) => {
      res.statusCode = 409;
      res.setHeader('content-type', 'application/json').end(answers.shift());
    });
    const problems = [];
    for (let i = 0; i < 3; i++) problems.push(await callServer({ url }, 'v1/x').catch((err: unknown) => err));
    expect(problems.map((err) => (err as { code?: unknown }).code)).toEqual(['INTERNAL', 'INTERNAL', 'INTERNAL']);
    expect(problems.map((err) => (err as Error).message)).toEqual([
      `The server at ${url} answered v1/x with HTTP 409, and its body is not a Stateflow error body ({"error": {"code", "message", "details"}}).`,
      `The server at ${url} answered v1/x with HTTP 409, and its body names the unknown error code "NO_SUCH_CODE".`,
      expect.stringMatching(/and its body carries details that do not fit CONFLICT: \/actual /),
    ]);
  });

  it('a refused connection is STORE_UNAVAILABLE with outcome not-sent', async () => {
    const url = await listen(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    await expect(callServer({ url }, 'v1/x')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', details: { outcome: 'not-sent' } });
  });

  it('a connection closed after the request was sent is STORE_UNAVAILABLE with outcome unknown', async () => {
    const url = await listen((req) => req.socket.destroy());
    await expect(callServer({ url }, 'v1/x', { body: { a: 1 } })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', details: { outcome: 'unknown' } });
  });

  it('an answer that does not come in time is STORE_UNAVAILABLE with outcome unknown', async () => {
    const url = await listen(() => undefined);
    await expect(callServer({ url }, 'v1/x', { timeoutMs: 200 })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', details: { outcome: 'unknown' } });
  });
});
