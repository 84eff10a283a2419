/**
 * Proving that a server holds its token before a client sends the token (server README "The
 * server token"). A discovery file names an address and a pid, but after a crash another process
 * may listen on that port, even with a reused pid, and would receive the token and every request
 * — and answer reads with anything it likes. So a client that holds a token from a discovery file
 * sends, before the token, only a fresh random nonce (`GET /v1/server/proof?nonce=…`, no
 * credential); the server answers `HMAC-SHA256(token, "stateflow-server-proof:" + nonce)`, which
 * only a holder of the token can compute. A fresh nonce per check means a recorded answer is
 * worth nothing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { StateflowError, isJsonObject, isStateflowError } from '@stateflow/core';
import { callServer } from './http-call.js';

/** The proof route, relative to a server's base URL. */
export const PROOF_ROUTE = 'v1/server/proof';

/** How long a proof may take before the server counts as unreachable, in ms. */
const PROOF_TIMEOUT_MS = 5_000;

/** A fresh nonce for {@link serverProof}: 32 random bytes as 64 lowercase hex characters. */
export function newProofNonce(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The proof of holding `token` for `nonce`: `HMAC-SHA256(token, "stateflow-server-proof:" + nonce)`,
 * 64 hex; with `pid`, of being that process too: `… + nonce + ":pid:" + pid` (the `pidProof`
 * a client checks against its discovery file's pid, so a process relaying the nonce to another
 * live server of the same token is caught before the token is sent).
 */
export function serverProof(token: string, nonce: string, pid?: number): string {
  return createHmac('sha256', token).update(`stateflow-server-proof:${nonce}${pid === undefined ? '' : `:pid:${pid}`}`).digest('hex');
}

/**
 * Check that the server at `endpoint.url` holds `endpoint.token` — and, given `endpoint.pid`, that
 * it is that process — sending it only a nonce.
 * @throws STORE_UNAVAILABLE `{ url, outcome: 'not-sent' }` when nothing answers (refused, reset,
 *   timed out), and with `reason: 'server-unverified'` when the process that answers does not
 *   prove it holds the token (the message says what it answered). Either way the token and the
 *   request were not sent.
 */
export async function verifyServer(endpoint: { url: string; token: string; pid?: number }, options: { signal?: AbortSignal } = {}): Promise<void> {
  const nonce = newProofNonce();
  let answer: unknown;
  try {
    answer = (await callServer({ url: endpoint.url }, PROOF_ROUTE, { query: { nonce }, timeoutMs: PROOF_TIMEOUT_MS, ...options })).body;
  } catch (err) {
    if (options.signal?.aborted === true) throw err;
    if (isStateflowError(err, 'STORE_UNAVAILABLE')) {
      throw new StateflowError('STORE_UNAVAILABLE', `${err.message} (the server was not sent its token).`, { url: endpoint.url, outcome: 'not-sent' }, { cause: err });
    }
    throw unverified(endpoint.url, isStateflowError(err) ? `answered the proof with ${err.code}: ${err.message}` : 'answered the proof with no Stateflow answer', err);
  }
  const proof = isJsonObject(answer) ? answer['proof'] : undefined;
  if (typeof proof !== 'string') throw unverified(endpoint.url, `answered the proof without one (${JSON.stringify(answer).slice(0, 120)})`);
  if (!sameProof(proof, serverProof(endpoint.token, nonce))) throw unverified(endpoint.url, 'answered the proof with a wrong HMAC: it does not hold the token');
  if (endpoint.pid === undefined) return;
  const pidProof = isJsonObject(answer) ? answer['pidProof'] : undefined;
  if (typeof pidProof !== 'string' || !sameProof(pidProof, serverProof(endpoint.token, nonce, endpoint.pid))) {
    throw unverified(endpoint.url, `holds the token but does not prove it is pid ${endpoint.pid} of the discovery file (a relay to another server, or a server from before pid proofs)`);
  }
}

/** Constant-time comparison of a proof given with the one expected. */
function sameProof(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function unverified(url: string, found: string, cause?: unknown): StateflowError<'STORE_UNAVAILABLE'> {
  return new StateflowError(
    'STORE_UNAVAILABLE',
    `The process listening on ${url} is not the store's server: it ${found}. It was sent neither the token nor the request; a stateflow server of this store writes a new discovery file when it starts.`,
    { url, outcome: 'not-sent', reason: 'server-unverified' },
    cause === undefined ? {} : { cause },
  );
}
