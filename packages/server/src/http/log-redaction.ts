/**
 * What the server's log must never hold (server README "Errors"): the server token and API keys.
 * A logged URL has its `token` query parameter replaced, and pino censors the credential headers
 * of every logged request, so a log shared with a bug report gives nobody the store.
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
