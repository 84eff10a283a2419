/**
 * RFC 6901 JSON pointer of `key` below the pointer `at` (`""` is the whole document).
 * Index selectors appear verbatim (`/memory/[4]`) so the pointer names the patch key that failed.
 */
export function childPointer(at: string, key: string): string {
  return `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * The unescaped reference tokens of an RFC 6901 JSON pointer (`""` → `[]`,
 * `/patch/a~1b/0` → `["patch", "a/b", "0"]`): the inverse of {@link childPointer}, for callers
 * that turn the `at` of a `PATCH_INVALID` (or an ajv `instancePath`) into their own field names.
 */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}
