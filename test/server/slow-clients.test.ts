/**
 * Slow clients are bounded (server README "Limits"): a connection that sends its headers, or its
 * body, a byte at a time is answered 408 REQUEST_TIMEOUT and closed once the header or request
 * timeout passes, long before it would have finished sending. Raw sockets: every HTTP client
 * sends whole requests.
 */
import path from 'node:path';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { openSocket, parseAnswer, readUntilClosed } from './raw-http.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

const CONNECTIONS = 50;
/** A byte every this many ms: the padded requests below would take two minutes to send (longer than Node's default header timeout of 60 s, checked every 30 s). */
const BYTE_EVERY_MS = 200;

/** Bytes a slow client gets through before the 1 s / 2 s timeouts close it, with fivefold slack. */
const MAX_BYTES_BEFORE_CLOSE = 50;

let root: string;
let server: ServerHandle;
let port: number;

/**
 * Open `CONNECTIONS` sockets, write `head` at once and then `trickle` a byte every
 * `BYTE_EVERY_MS`; resolves with each socket's answer and how many trickled bytes it had sent
 * when the server closed it.
 */
async function slowClients(head: string, trickle: string): Promise<Array<{ text: string; sent: number }>> {
  return Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const socket: Socket = await openSocket(port);
      const closed = readUntilClosed(socket);
      socket.write(head);
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent === trickle.length) return clearInterval(timer);
        socket.write(trickle[sent] ?? '');
        sent++;
      }, BYTE_EVERY_MS);
      const text = await closed;
      clearInterval(timer);
      return { text, sent };
    }),
  );
}

beforeAll(async () => {
  root = await tempDir('slow');
  server = await startServer({ dir: path.join(root, 'store'), port: 0, sweepIntervalMs: 0, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  await server?.close();
  await removeDir(root);
});

describe('slow clients', () => {
  it(`${CONNECTIONS} connections sending headers a byte at a time are answered 408 and closed`, async () => {
    const headers = `GET /v1/server HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'a'.repeat(600)}\r\n\r\n`;
    const answers = await slowClients('', headers);
    for (const { text, sent } of answers) {
      expect(parseAnswer(text).status).toBe(408);
      expect(JSON.parse(parseAnswer(text).body).error.code).toBe('REQUEST_TIMEOUT');
      // Closed after the 1 s header timeout (checked every second): about 10 bytes in. The bound
      // counts bytes, not time — client and server share this event loop, so a slow machine
      // slows both — and Node's own defaults (60 s, checked every 30 s) let about 450 through.
      expect(sent).toBeLessThan(MAX_BYTES_BEFORE_CLOSE);
    }
  });

  it(`${CONNECTIONS} connections sending a body a byte at a time are answered 408 and closed`, async () => {
    const body = JSON.stringify({ selection: { cwd: '/p', mode: 'active' }, path: 'cwd', pad: 'b'.repeat(600) });
    const head = `POST /v1/state/read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answers = await slowClients(head, body);
    for (const { text, sent } of answers) {
      expect(parseAnswer(text).status).toBe(408);
      expect(sent).toBeLessThan(MAX_BYTES_BEFORE_CLOSE);
    }
  });

  it('a client that sends nothing is closed after the header timeout too', async () => {
    const [answer] = await slowClients('', '');
    expect(parseAnswer(answer?.text ?? '').status).toBe(408);
  });

  it('rejects timeouts that are not whole milliseconds, or a request timeout below the header timeout (USAGE)', async () => {
    for (const options of [{ headersTimeoutMs: 0 }, { requestTimeoutMs: 1.5 }, { headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 }]) {
      await expect(startServer({ dir: path.join(root, 'other'), port: 0, sweepIntervalMs: 0, ...options })).rejects.toMatchObject({ code: 'USAGE' });
    }
  });
});
