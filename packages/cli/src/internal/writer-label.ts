/**
 * The writer of a transition as the CLI shows and filters it (cli README "log"): `meta.writer`
 * `{ user, surface, client?, ladder? }` as stamped by the server and the CLI (server README
 * "Who wrote it"), or what a library caller put there.
 */
import { isJsonObject } from '@stateflow/core';
import type { Transition } from '@stateflow/store';

/** `meta.writer`'s string fields, or `null` when the transition has no writer object. */
function writerOf(transition: Transition): Record<string, string> | null {
  const writer = transition.meta?.['writer'];
  if (!isJsonObject(writer)) return null;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(writer)) if (typeof value === 'string') fields[key] = value;
  return fields;
}

/** `user surface client` (e.g. `local mcp-stdio claude-code/1.2.0`), `-` for a transition without a writer. */
export function writerLabel(transition: Transition): string {
  const writer = writerOf(transition);
  if (writer === null) return '-';
  return [writer['user'], writer['surface'], writer['ladder'] ?? writer['client']].filter((part) => part !== undefined).join(' ') || '-';
}

/**
 * Whether `name` names the transition's writer: its client (`claude-code/1.2.0`), the client's
 * name alone (`claude-code`), its user, its surface or its ladder.
 */
export function writtenBy(transition: Transition, name: string): boolean {
  const writer = writerOf(transition);
  if (writer === null) return false;
  const client = writer['client'];
  const clientName = client === undefined ? undefined : client.slice(0, client.lastIndexOf('/') === -1 ? client.length : client.lastIndexOf('/'));
  return [client, clientName, writer['user'], writer['surface'], writer['ladder']].includes(name);
}
