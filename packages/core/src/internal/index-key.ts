/**
 * The `"[N]"` patch key syntax (DESIGN.md "Decisions": index syntax). A key that starts with
 * `[` and ends with `]` is reserved for index selectors; only canonical non-negative decimal
 * integers (`[0]`, `[12]`; not `[01]`, `[+1]`, `[ 1]`, `[1.0]`) are valid selectors.
 */
export type PatchKey =
  | { kind: 'key' }
  | { kind: 'index'; index: number }
  | { kind: 'bad-index' };

const CANONICAL_INDEX = /^\[(0|[1-9][0-9]*)\]$/;

/** Classifies one patch object key as an ordinary key, a valid index selector, or malformed index syntax. */
export function classifyKey(key: string): PatchKey {
  if (key.length < 2 || !key.startsWith('[') || !key.endsWith(']')) return { kind: 'key' };
  const match = CANONICAL_INDEX.exec(key);
  if (match === null) return { kind: 'bad-index' };
  const index = Number(match[1]);
  return Number.isSafeInteger(index) ? { kind: 'index', index } : { kind: 'bad-index' };
}

/** The patch key that addresses element `index`. */
export function indexKey(index: number): string {
  return `[${index}]`;
}
