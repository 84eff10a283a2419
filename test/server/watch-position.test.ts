/**
 * Where a watch stream starts (server README "Watch"): `from` and `Last-Event-ID` are
 * non-negative safe integers (400 otherwise, never `Infinity` or a rounded seq), a position
 * beyond the store's last seq is refused naming it (404 TRANSITION_NOT_FOUND: a position from
 * another store, or from before a restore, must not skip transitions silently), the last seq
 * itself means "only new ones". Many open streams print no MaxListenersExceededWarning.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { removeDir, tempDir } from '@stateflow/test-kit';

let root: string;
let server: ServerHandle;

/** Open `GET /v1/watch…` and read until its `ready` event; the caller aborts `signal` to end it. */
async function openWatch(query: string, headers: Record<string, string>, signal: AbortSignal): Promise<{ status: number; text: string; reader?: ReadableStreamDefaultReader<string> }> {
  const response = await fetch(`${server.url}/v1/watch${query}`, { headers, signal });
  if (response.headers.get('content-type')?.includes('text/event-stream') !== true) return { status: response.status, text: await response.text() };
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!/event: ?ready\n[^]*?\n\n/.test(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += chunk.value;
  }
  return { status: response.status, text, reader };
}

beforeAll(async () => {
  root = await tempDir('watch-position');
  server = await startServer({ dir: path.join(root, 'store'), port: 0, sweepIntervalMs: 0 });
  for (const n of [1, 2, 3]) await server.store.publish({ changes: { 'cwd:/p': { lazy: { n } } } });
});

afterAll(async () => {
  await server?.close();
  await removeDir(root);
});

describe('the start of a watch stream', () => {
  it.each(['1e400', '9007199254740993', '9007199254740992', '-1', '1.5', 'abc', ''])('?from=%s answers 400 INPUT_INVALID', async (from) => {
    const answer = await openWatch(`?from=${from}`, {}, AbortSignal.timeout(10_000));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'INPUT_INVALID', details: { field: 'querystring.from' } });
  });

  it.each(['9007199254740993', '1e3', '-1', '01'])('Last-Event-ID %s answers 400 INPUT_INVALID', async (id) => {
    const answer = await openWatch('', { 'last-event-id': id }, AbortSignal.timeout(10_000));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'INPUT_INVALID', details: { field: 'Last-Event-ID' } });
  });

  it('a position beyond the last seq, in from or Last-Event-ID, is refused naming the last seq', async () => {
    for (const [query, headers] of [['?from=4', {}], ['?from=9007199254740991', {}], ['', { 'last-event-id': '10' }], ['?from=1', { 'last-event-id': '4' }]] as const) {
      const answer = await openWatch(query, headers, AbortSignal.timeout(10_000));
      expect(answer.status, `${query} ${JSON.stringify(headers)}`).toBe(404);
      const error = JSON.parse(answer.text).error;
      expect(error.code).toBe('TRANSITION_NOT_FOUND');
      expect(error.details.lastSeq).toBe(3);
    }
  });

  it('the last seq means only new ones; an earlier one replays what follows it', async () => {
    const stop = new AbortController();
    const live = await openWatch('?from=3', {}, stop.signal);
    expect(live.text).toMatch(/^id: ?3$/m);
    await server.store.publish({ changes: { 'cwd:/p': { lazy: { n: 4 } } } });
    let text = '';
    while (!/event: ?transition/.test(text)) text += (await live.reader?.read())?.value ?? '';
    expect(text).toMatch(/^id: ?4$/m);
    stop.abort();
    const replay = new AbortController();
    const from2 = await openWatch('', { 'last-event-id': '2' }, replay.signal);
    let more = from2.text;
    while ((more.match(/event: ?transition/g) ?? []).length < 2) more += (await from2.reader?.read())?.value ?? '';
    expect([...more.matchAll(/^id: ?(\d+)$/gm)].map((m) => Number(m[1]))).toEqual([2, 3, 4]);
    replay.abort();
  });

  it('50 open watch streams print no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    const stop = new AbortController();
    try {
      const streams = await Promise.all(Array.from({ length: 50 }, () => openWatch('', {}, stop.signal)));
      expect(streams.map((s) => s.status)).toEqual(Array.from({ length: 50 }, () => 200));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      stop.abort();
      process.off('warning', onWarning);
    }
  });
});
