/**
 * Memo of stored records whose hash this process has verified (README "Fail closed"): a record
 * read again with byte-identical contents decodes to the same value, so its canonical-JSON
 * re-hash (RFC 8785 over a whole state: the dominant cost of a historical read of a large
 * document) is replaced by a native sha256 of the raw bytes. Different bytes are verified in
 * full again. Audit never uses this memo.
 */
import { createHash } from 'node:crypto';
import { Lru } from './lru.js';

/** Records remembered (key and a 32-byte digest each). */
const REMEMBERED = 4096;

export class VerifiedRecords {
  readonly #digests = new Lru<string, string>(REMEMBERED);

  /**
   * Decode a record with `decode({ verifyHash })`: `verifyHash` is false only when these exact
   * bytes were decoded with verification under this key before.
   */
  decode<T>(key: Uint8Array, bytes: Uint8Array, decode: (options: { verifyHash: boolean }) => T): T {
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    const digest = createHash('sha256').update(bytes).digest('base64');
    const known = this.#digests.get(id) === digest;
    const value = decode({ verifyHash: !known });
    if (!known) this.#digests.set(id, digest);
    return value;
  }
}
