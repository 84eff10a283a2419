/**
 * Request ids (the `x-request-id` answer header, `reqId` in the logs, `meta.writer.request`):
 * `<process id>-<counter>`, e.g. `k3f9a2x1-1z`: a random 8-character base-36 id of this server
 * process and a base-36 counter of its requests. Unique per server process and, in practice,
 * across processes (41 bits of randomness per process). Short and sharing their prefix because
 * every transition a request writes stores it: a UUID cost about 40 bytes per transition on disk,
 * this about 5 (LevelDB compresses the shared prefix away), which keeps the real histories within
 * their budget (server README "Who wrote it").
 */
import { randomInt } from 'node:crypto';

/** A generator of request ids for one server. */
export function requestIds(): () => string {
  const process = randomInt(36 ** 7, 36 ** 8).toString(36);
  let count = 0;
  return () => `${process}-${(++count).toString(36)}`;
}
