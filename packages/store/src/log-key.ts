/**
 * Reading the store's key layout from outside it (README "Storage layout"): a backend that reads
 * its own files for evidence of what they held (`@stateflow/store-leveldb`'s crash policy and
 * recovery read the keys of LevelDB's write-ahead-log records) needs to know which keys are
 * transitions, without the store's other records.
 */
import { Family, parseKey } from './internal/keys.js';

/**
 * The seq of a log key — `L` (0x4c) then the seq as 8 bytes big-endian, the top two zero — or
 * `null` for any other key (another family, or an `L` key of another length).
 * @example
 * ```ts
 * seqOfLogKey(Buffer.from('4c000000000000002a', 'hex')); // 42
 * ```
 */
export function seqOfLogKey(key: Uint8Array): number | null {
  if (key[0] !== Family.log) return null;
  const parsed = parseKey(key);
  return parsed.family === 'log' ? parsed.seq : null;
}
