/**
 * Who wrote a transition, as its meta says (server README "Who wrote it"): `meta.writer`
 * `{ user, surface, client?, ladder?, request? }` as the server, the stdio proxy and the CLI stamp
 * it, or, by convention for meta written by others, the first non-empty string of
 * `meta.writer`, `meta.user` (session records), `meta.agent`, `meta.author`. The CLI's `log`
 * column and `--writer` filter and the history page's blame read it through these functions.
 */
import { isJsonObject } from './json.js';
import type { JsonObject } from './json.js';

/** Keys of meta that name a writer as a plain string, in the order they are tried. */
const STRING_KEYS = ['writer', 'user', 'agent', 'author'] as const;

/** The string fields of a stamped `meta.writer` object, or `null` when there is none. */
export function writerFields(meta: JsonObject | undefined): Record<string, string> | null {
  const writer = meta?.['writer'];
  if (!isJsonObject(writer)) return null;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(writer)) if (typeof value === 'string') fields[key] = value;
  return fields;
}

/**
 * The writer as one line: `user surface ladder-or-client` of a stamped writer (e.g. `local
 * mcp-stdio claude-code/1.2.0`), else the first string of the conventional keys; `undefined` when
 * the meta names no writer.
 */
export function metaWriter(meta: JsonObject | undefined): string | undefined {
  const fields = writerFields(meta);
  if (fields !== null) {
    const label = [fields['user'], fields['surface'], fields['ladder'] ?? fields['client']].filter((part) => part !== undefined).join(' ');
    if (label !== '') return label;
  }
  for (const key of STRING_KEYS) {
    const value = meta?.[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
