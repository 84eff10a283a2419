/**
 * The state API for agents that do not speak MCP (server README "State API"): `POST
 * /v1/state/read` and `POST /v1/state/patch` take the `read_state` / `patch_state` tool input
 * plus a `selection` and answer exactly the tool's output. The tool inputs are the tools'
 * contract (`@stateflow/tools` `readStateInputSchema`, `patchStateInputSchema`, also advertised
 * over MCP): {@link stateRoutes} wraps them, so this package does not depend on the tools.
 */
import { Type } from '@sinclair/typebox';
import type { SchemaOptions, Static } from '@sinclair/typebox';
import { bodyErrors } from './error-responses.js';
import { TRANSITION_HEADER } from './headers.js';
import { enumOf } from './json-schemas.js';

/** The owner selection of a state API call (tools' `Selection`). */
export const Selection = Type.Object(
  {
    global: Type.Optional(Type.Unsafe<true>({ const: true })),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    session: Type.Optional(Type.String({ minLength: 1, description: 'A session id you own' })),
    mode: enumOf(['active', 'passive']),
  },
  { additionalProperties: false },
);
export type Selection = Static<typeof Selection>;

/**
 * A tool's output, as the tool declares it (`@stateflow/tools` `ReadStateResult`,
 * `PatchStateResult`): the state API answers it unchanged, so its shape is the tools' to define.
 */
function toolOutput(options: SchemaOptions) {
  return Type.Object({}, { additionalProperties: true, ...options });
}

/** A tool's input schema (a JSON Schema object with its members). */
export interface ToolInputSchema {
  properties: object;
  required?: readonly string[];
}

/** A tool's input schema with the `selection` member the HTTP state API adds (without its `$schema`). */
function withSelection(schema: ToolInputSchema, tool: string) {
  const { $schema: _dialect, ...rest } = schema as ToolInputSchema & { $schema?: string };
  return Type.Unsafe<{ selection: Selection; [member: string]: unknown }>({
    ...rest,
    properties: { ...rest.properties, selection: Selection },
    required: [...(rest.required ?? []), 'selection'],
    description: `The ${tool} tool input plus the owner selection`,
  });
}

/**
 * The two state API routes, their bodies the tool inputs plus `selection`. The tools check the
 * input themselves (with their own codes: PATH_SYNTAX, PATCH_INVALID, …), so the server serves the
 * bodies as documentation and does not validate them again.
 */
export function stateRoutes(tools: { readState: ToolInputSchema; patchState: ToolInputSchema }) {
  const read = {
    method: 'POST',
    url: '/v1/state/read',
    schema: {
      operationId: 'readState',
      summary: 'read_state: the tool input plus a `selection`; answers exactly the tool output',
      body: withSelection(tools.readState, 'read_state'),
      response: { 200: toolOutput({ description: 'The read_state output' }), ...bodyErrors(401, 404, 410, 422) },
    },
  } as const;
  const patch = {
    method: 'POST',
    url: '/v1/state/patch',
    schema: {
      operationId: 'patchState',
      summary: 'patch_state: the tool input plus a `selection`; answers exactly the tool output',
      body: withSelection(tools.patchState, 'patch_state'),
      response: {
        200: toolOutput({
          description: 'The patch_state output',
          headers: {
            [TRANSITION_HEADER]: { description: 'The seq of the transition the call published; absent when the patch changed nothing', type: 'integer' },
          },
        }),
        ...bodyErrors(401, 404, 409, 410),
      },
    },
  } as const;
  return [read, patch] as const;
}
