/**
 * Runtime views of scope states (seed "Semantic model"; DESIGN.md "Effective overlay and
 * planes"): plane selection in intent-first order, the effective overlay, and the `response`
 * rule.
 */
import { PLANES, hasOwn, isJsonObject, overlay } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Selection } from '../selection.js';

/** True for an empty response (`""`, `{}`, `[]`), which views treat as absent. */
function isEmptyResponse(value: JsonValue | undefined): boolean {
  if (value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

/**
 * The root view of one scope state: present built-in planes in intent-first order
 * (`intents, strategy, tactics, artifacts, response, lazy`), empty responses omitted.
 * Top-level keys that are not planes are not part of the view.
 */
export function scopeView(state: JsonObject): JsonObject {
  const view: JsonObject = {};
  for (const plane of PLANES) {
    if (!hasOwn(state, plane)) continue;
    const value = state[plane] as JsonValue;
    if (plane === 'response' && isEmptyResponse(value)) continue;
    view[plane] = value;
  }
  return view;
}

/**
 * The effective view of scope states given low → high priority (global, cwd, session):
 * every plane except `response` overlays recursively (core `overlay`); `response` is the
 * highest-priority present non-empty response in Active mode and omitted in Passive mode.
 */
export function effectiveView(states: readonly JsonObject[], mode: Selection['mode']): JsonObject {
  const merged = overlay(...states.map(withoutResponse));
  let response: JsonValue | undefined;
  if (mode === 'active') {
    for (const state of states) if (hasOwn(state, 'response') && !isEmptyResponse(state.response)) response = state.response;
  }
  return scopeView(response === undefined ? merged : { ...merged, response });
}

function withoutResponse(state: JsonObject): JsonObject {
  if (!hasOwn(state, 'response')) return state;
  const { response: _response, ...rest } = state;
  return rest;
}
