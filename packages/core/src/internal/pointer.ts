/**
 * RFC 6901 JSON pointer of `key` below the pointer `at` (`""` is the whole document).
 * Index selectors appear verbatim (`/memory/[4]`) so the pointer names the patch key that failed.
 */
export function childPointer(at: string, key: string): string {
  return `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
