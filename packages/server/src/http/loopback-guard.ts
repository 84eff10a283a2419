/**
 * Loopback rules of the keyless server (server README "DNS rebinding and cross-site requests": with no keys configured the server binds to
 * loopback only and serves one local user"). Binding to loopback is not enough: a web page can
 * reach `127.0.0.1` through a DNS name it controls (DNS rebinding) or post to it from another
 * origin. Without API keys the server therefore also checks every request's `Host` and
 * `Origin` headers.
 */
import { isIP } from 'node:net';
import { StateflowError, elidePath } from '@stateflow/core';

/** A loopback host with an optional port: `localhost`, `127.x.y.z` or `[::1]`. */
const LOOPBACK = String.raw`(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\])(?::\d{1,5})?`;
/** A `Host` header naming loopback. */
const LOOPBACK_HOST_HEADER = new RegExp(`^${LOOPBACK}$`, 'i');
/** An `Origin` header (RFC 6454 serialisation) of a loopback page. */
const LOOPBACK_ORIGIN = new RegExp(`^https?://${LOOPBACK}$`, 'i');

/** True when `host` (an interface to bind, without port) is a loopback name or address. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/**
 * Checks the `Host` and `Origin` headers of a request to a server without API keys.
 *
 * - `Host` must be a loopback name or address (`localhost`, `127.0.0.1` or any `127.x.y.z`,
 *   `[::1]`), with any port. A missing `Host` is refused too.
 * - `Origin`, when present, must be an `http:` or `https:` origin whose host is one of those
 *   (any port); `Origin: null` (sandboxed pages, `file:`) is refused.
 *
 * @throws FORBIDDEN (403) with details `{ header, value }` (the value shortened to 200 characters).
 */
export function assertLoopbackRequest(host: string | undefined, origin: string | undefined): void {
  if (host === undefined || !LOOPBACK_HOST_HEADER.test(host)) {
    throw forbidden(
      'Host',
      host ?? '',
      `Host ${host === undefined ? 'header is missing' : `${JSON.stringify(elidePath(host))} is not a loopback name`}: a server without API keys answers only requests addressed to localhost, 127.0.0.1 or [::1] (DNS rebinding protection). Use http://127.0.0.1:<port>, or configure API keys to serve other hosts.`,
    );
  }
  if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin)) {
    throw forbidden(
      'Origin',
      origin,
      `Origin ${JSON.stringify(elidePath(origin))} is not a loopback origin: a server without API keys answers browsers only on pages served from localhost, 127.0.0.1 or [::1]. Configure API keys to serve other origins.`,
    );
  }
}

function forbidden(header: string, value: string, message: string): StateflowError<'FORBIDDEN'> {
  return new StateflowError('FORBIDDEN', message, { header, value: elidePath(value) });
}
