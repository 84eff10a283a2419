/**
 * Errors Node's HTTP parser raises before a request reaches fastify (a header section over
 * `maxHeaderSize`, a request that does not arrive in time, bytes that are not HTTP): they are
 * answered in the same `{error: {code, type, message, details}}` body as every other failure,
 * through the one status table, instead of fastify's own `{"error": "…", "statusCode": …}`.
 */
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { StateflowError } from '@stateflow/core';
import { toHttpError } from './error-status.js';

/** The Stateflow error for a `clientError` of Node's HTTP server. */
export function clientError(err: NodeJS.ErrnoException): StateflowError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new StateflowError(
        'HEADERS_TOO_LARGE',
        `The request's headers are larger than ${maxHeaderSize} bytes; send fewer or shorter headers.`,
        { limit: maxHeaderSize },
        { cause: err },
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new StateflowError('REQUEST_TIMEOUT', 'The request did not arrive completely in time; send it again.', {}, { cause: err });
    default:
      return new StateflowError('INPUT_INVALID', 'The request is not valid HTTP/1.1.', { field: 'request', reason: 'malformed-http' }, { cause: err });
  }
}

/**
 * fastify's `clientErrorHandler`: writes the error response on the raw socket (there is no
 * request object yet) and closes it, as Node's default handler does.
 */
export function handleClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body } = toHttpError(clientError(err));
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}
