/**
 * Bounded echo of a caller's path text in error messages and details (DESIGN.md "Errors": a
 * message a person — or a model, over MCP — can act on). A caller may send a megabyte of path;
 * echoing it back in full would flood the caller's context, so at most
 * {@link PATH_ECHO_LIMIT} characters of it are ever repeated.
 */

/** The most characters of a caller's path text repeated in a message or in error details. */
export const PATH_ECHO_LIMIT = 200;

/**
 * `text` itself when it has at most {@link PATH_ECHO_LIMIT} (200) characters; otherwise its
 * first 100 and last 99 characters around `…` (200 characters in all), so both the root and
 * the failing end stay visible. Column numbers in error details always count the original text.
 *
 * @example elidePath('cwd.lazy.' + 'a'.repeat(1000)) // 'cwd.lazy.aaaa…aaaa' (200 characters)
 */
export function elidePath(text: string): string {
  if (text.length <= PATH_ECHO_LIMIT) return text;
  const head = Math.ceil((PATH_ECHO_LIMIT - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (PATH_ECHO_LIMIT - 1 - head))}`;
}

/** `elidePath(text)` as a JSON string literal, for messages: `"cwd.lazy.x"`. */
export function quotePath(text: string): string {
  return JSON.stringify(elidePath(text));
}
