/**
 * What the server's log must never hold (server README "Errors"): the server token and API keys.
 * A logged URL — the request's, and the page it came from in `Referer` (a browser sends the
 * history page's `?token=` URL there) — has its `token` query parameter replaced, and pino
 * censors the credential headers of every logged request, so a log shared with a bug report gives nobody the store.
 */

/** What replaces a credential in the log. */
export const REDACTED = '[redacted]';

/** pino `redact` paths of the logged request headers that carry credentials. */
export const REDACTED_HEADERS = ['headers.authorization', 'headers["x-stateflow-token"]', 'headers.cookie', 'headers["proxy-authorization"]'];

/**
 * `url` with the value of every `token` query parameter replaced by {@link REDACTED} (the rest,
 * including how it was spelled, kept as sent).
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((part) => (/^token(=|$)/i.test(decodeName(part)) ? `token=${REDACTED}` : part))
    .join('&');
  return `${url.slice(0, at + 1)}${query}`;
}

/** The parameter as written, with its name percent-decoded (`%74oken=` is `token=` too). */
function decodeName(part: string): string {
  const eq = part.indexOf('=');
  const name = eq === -1 ? part : part.slice(0, eq);
  try {
    return `${decodeURIComponent(name.replace(/\+/g, ' '))}${eq === -1 ? '' : part.slice(eq)}`;
  } catch {
    return part;
  }
}

/**
 * The request headers as the log holds them: `Referer` (and `Origin`, in case a client puts a
 * URL with a query there) through {@link redactUrl}; the credential headers are pino's
 * ({@link REDACTED_HEADERS}).
 */
export function loggedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const copy = { ...headers };
  for (const name of ['referer', 'origin']) {
    const value = copy[name];
    if (typeof value === 'string') copy[name] = redactUrl(value);
  }
  return copy;
}
