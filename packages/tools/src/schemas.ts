/**
 * The model-facing contract of the two tools: JSON Schemas (draft 2020-12) of their inputs and
 * their descriptions, exported for transports (MCP, HTTP) to advertise verbatim
 * (seed "Progressive read_state" → "Request shape"; "patch_state and arrays").
 */

/** Tool name of the read tool. */
export const READ_STATE_TOOL = 'read_state';
/** Tool name of the mutation tool. */
export const PATCH_STATE_TOOL = 'patch_state';

const PATH_DESCRIPTION =
  'A read_state path: optional root (effective | global | cwd | session) with an optional historical selector ' +
  '(cwd[3] = cwd revision 3, effective[12] = effective state as of transition 12), then .key members, [N] indices ' +
  'and a final half-open range [start:end] (or [start..end]). Examples: effective.lazy, cwd.lazy.memory[0:10], ' +
  'session[3].lazy.investigation, tactics.nextAction.';

/**
 * JSON Schema of the `read_state` input: exactly one of `path` / `paths`, optional `projection`
 * and `shape` (store README "Shapes": default `current`, what an agent reading its memory wants).
 * No other member is accepted (top-level `offset` and `scope` included: history and ownership
 * belong in the path, as in `cwd[1].lazy.memory`).
 */
export const readStateInputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'read_state input',
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, description: PATH_DESCRIPTION },
    paths: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', minLength: 1 },
      description: 'Several paths read from one captured state view; results are positional, in request order.',
    },
    projection: {
      enum: ['value', 'keys', 'patch'],
      default: 'value',
      description:
        'value (default): the exact selected value. keys: {meta, keys} — structural facts and immediate keys with their kinds. ' +
        'patch: the semantic patch at the selected boundary ({} = no change, null = deleted, {"": null} = became an empty object {}).',
    },
    shape: {
      oneOf: [{ enum: ['stored', 'current'] }, { type: 'integer', minimum: 1 }],
      default: 'current',
      description:
        'current (default): past revisions upcast to the latest version of the stream\'s declared shape. stored: as written. N: upcast to version N.',
    },
  },
  oneOf: [{ required: ['path'] }, { required: ['paths'] }],
  additionalProperties: false,
} as const;

/**
 * JSON Schema of the `patch_state` input: `{ patch }`, a non-empty object whose top-level keys
 * are scopes (`global`, `cwd`, `session`) or — with exactly one selected owner — planes.
 */
export const patchStateInputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'patch_state input',
  type: 'object',
  properties: {
    patch: {
      type: 'object',
      minProperties: 1,
      propertyNames: { enum: ['global', 'cwd', 'session', 'intents', 'strategy', 'tactics', 'artifacts', 'response', 'lazy'] },
      description:
        'A recursive semantic patch. Scoped: {"cwd": {"tactics": {...}}, "session": {...}}; with exactly one selected owner ' +
        'the scope level may be omitted: {"tactics": {...}}. Objects merge, scalars and arrays replace, null deletes a key, ' +
        '"[N]" addresses an existing array element.',
    },
  },
  required: ['patch'],
  additionalProperties: false,
} as const;

/** Description of `read_state` for transports (what a model sees). */
export const READ_STATE_DESCRIPTION = [
  'Read Stateflow memory by path. Input {"path": "..."} or {"paths": ["...", ...]} and an optional "projection".',
  'Responses: value → {"value": ...}; keys → {"meta": {...}, "keys": ...}; patch → {"patch": ...}. With "paths" every field holds a positional array.',
  'Paths: effective.lazy, cwd.lazy.memory[0:10], session.tactics.nextAction, cwd[3].lazy.plan (cwd at revision 3), effective[12] (as of transition 12).',
  'With one selected owner, flat paths such as lazy.plan read that owner. A missing or invalid path fails the whole read; nothing is ever truncated.',
  'Reads never change state or future context: promote what matters with patch_state.',
].join('\n');

/** Description of `patch_state` for transports (what a model sees). */
export const PATCH_STATE_DESCRIPTION = [
  'Change Stateflow memory with one recursive semantic patch: {"patch": {"cwd": {"tactics": {"next": "..."}}, "session": {...}}}.',
  'Planes: intents, strategy, tactics, artifacts, response (session only, Active mode), lazy (object root; large or later-needed detail).',
  'Objects merge, scalars and arrays replace whole, null deletes a key, "[N]" replaces or patches an existing array element.',
  'Keys you write must be path keys ([A-Za-z_$][A-Za-z0-9_$-]*: no spaces, dots or non-Latin letters), so read_state can reach them.',
  'A {"$ref": "cwd.lazy.plan"} inside an intent owns that strategy/tactics/lazy key: deleting the intent deletes it too, unless another intent of the scope still references it.',
  'All changes publish atomically or not at all. The result is {"state_updates": {...}} describing cascaded deletions and final effective values.',
].join('\n');
