/**
 * The `"[N]"` patch key syntax (DESIGN.md "Decisions": index syntax). A bracketed key whose
 * content is numeric (digits with optional sign, spaces or dots) is index syntax; only canonical
 * non-negative decimal integers (`[0]`, `[12]`; not `[01]`, `[+1]`, `[ 1]`, `[1.0]`) are valid
 * selectors; other bracketed keys made only of digits, signs, dots and spaces (`[]`, `[-1]`) are malformed index syntax. Any other bracketed key, such as
 * `"[number]"` (a real key in the matrix-react-sdk string catalogue), is ordinary data.
 */
export type PatchKey =
  | { kind: 'key' }
  | { kind: 'index'; index: number }
  | { kind: 'bad-index' };

const CANONICAL_INDEX = /^\[(0|[1-9][0-9]*)\]$/;
const INDEX_LIKE = /^\[[\s+\-0-9.]*\]$/;

/** Classifies one patch object key as an ordinary key, a valid index selector, or malformed index syntax. */
export function classifyKey(key: string): PatchKey {
  if (!INDEX_LIKE.test(key)) return { kind: 'key' };
  const match = CANONICAL_INDEX.exec(key);
  if (match === null) return { kind: 'bad-index' };
  const index = Number(match[1]);
  return Number.isSafeInteger(index) ? { kind: 'index', index } : { kind: 'bad-index' };
}

/** The patch key that addresses element `index`. */
export function indexKey(index: number): string {
  return `[${index}]`;
}
