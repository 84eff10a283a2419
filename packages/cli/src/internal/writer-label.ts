/**
 * The writer of a transition as the CLI shows and filters it (cli README "log"): `meta.writer`
 * `{ user, surface, client?, ladder? }` as stamped by the server and the CLI (server README
 * "Who wrote it"), or what a library caller put there.
 */
import { metaWriter, writerFields } from '@stateflow/core';
import type { Transition } from '@stateflow/store';

/**
 * `user surface client` (e.g. `local mcp-stdio claude-code/1.2.0`; core `metaWriter`), then the
 * MCP tool whose call wrote it (`tool:patch_state`); `-` for a transition without a writer.
 */
export function writerLabel(transition: Transition): string {
  const tool = writerFields(transition.meta)?.['tool'];
  return (metaWriter(transition.meta) ?? '-') + (tool === undefined ? '' : ` tool:${tool}`);
}

/** Whether an MCP call of tool `name` wrote the transition (`meta.writer.tool`). */
export function calledTool(transition: Transition, name: string): boolean {
  return writerFields(transition.meta)?.['tool'] === name;
}

/**
 * Whether `name` names the transition's writer: its client (`claude-code/1.2.0`), the client's
 * name alone (`claude-code`), its user, its surface or its ladder.
 */
export function writtenBy(transition: Transition, name: string): boolean {
  const writer = writerFields(transition.meta);
  if (writer === null) return false;
  const client = writer['client'];
  const clientName = client === undefined ? undefined : client.slice(0, client.lastIndexOf('/') === -1 ? client.length : client.lastIndexOf('/'));
  return [client, clientName, writer['user'], writer['surface'], writer['ladder']].includes(name);
}
