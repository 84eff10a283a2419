/**
 * A JSON Schema of the saver's stored layout (README "The stored layout") as a shape of
 * `langgraph:*` would declare it: what every revision a saver writes holds, so a shaped run of
 * the validation suite checks every write against it. A deleted thread's `{}` validates too.
 */
import type { JsonObject } from '@stateflow/core';

/** A stored value: `{ type, value | text | base64 }`. */
const storedValue = { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] };

/** The checkpoint stream's state, every key optional (an empty state is a deleted thread). */
export const STORED_LAYOUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    checkpoint_id: { type: 'string' },
    parent_checkpoint_id: { type: 'string' },
    checkpoint: storedValue,
    channels: { type: 'object', additionalProperties: { ...storedValue, properties: { ...storedValue.properties, version: { anyOf: [{ type: 'string' }, { type: 'number' }] } } } },
    writes: { type: 'object', additionalProperties: { ...storedValue, properties: { ...storedValue.properties, task_id: { type: 'string' }, channel: { type: 'string' } }, required: ['type', 'task_id', 'channel'] } },
    early_writes: { type: 'object', additionalProperties: { type: 'object' } },
  },
  additionalProperties: false,
};
