/**
 * HTTP/1.1 written byte for byte on a TCP socket, for the attacks `fetch`, `node:http` and
 * fastify's `inject` cannot send because they normalise the request target (absolute-form,
 * `*`, `%2e%2e`, `#`) or always send whole requests (slow clients).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** An answer read off the socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as text (JSON bodies are small here; chunked framing is not decoded). */
  body: string;
}

/** Open a TCP connection to `port` on 127.0.0.1. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server writes until it closes the connection (or `socket` errors). */
export function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
}

/** Parse the status line, headers and body of `text`. */
export function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: end === -1 ? '' : text.slice(end + 4) };
}

/**
 * One request with the request line `${method} ${target} HTTP/1.1` exactly as given, `headers`
 * (a `Host` and `Connection: close` are added), and `body`.
 */
export async function rawRequest(port: number, method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<RawAnswer> {
  const socket = await openSocket(port);
  const closed = readUntilClosed(socket);
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '') lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  return parseAnswer(await closed);
}
