/**
 * Loading and validating a ladder config (seeds/ladr-reads-and-writes.txt "At config load time,
 * every slateRead is validated", "Write-related rules checked at config load time").
 *
 * Loading = parse (YAML 1.2 or JSON) → structural check against {@link ladderConfigSchema} →
 * cross-reference rules → compile every author schema (ajv strict). All problems are collected
 * and reported together.
 */
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import type { ErrorObject } from 'ajv';
import { LineCounter, Parser, YAMLError, parseDocument } from 'yaml';
import type { CST } from 'yaml';
import { StateflowError, pointerSegments } from '@stateflow/core';
import type { LadderConfig } from './config-types.js';
import { ladderConfigSchema } from './config-schema.js';
import type { Catalog } from './internal/catalog.js';
import { buildCatalog } from './internal/catalog.js';
import type { CompiledChecks } from './internal/config-rules.js';
import { checkConfigRules } from './internal/config-rules.js';
import { createSchemaCompiler } from './internal/user-schemas.js';
import { jsonCopy } from './json-copy.js';

/**
 * A loaded, valid ladder: its config plus what the runtime needs (declared slates indexed,
 * author schemas compiled). Produced only by {@link loadLadder} / {@link loadLadderFile}.
 */
export interface Ladder {
  /** The config as written (after YAML/JSON parsing), deeply frozen. */
  readonly config: LadderConfig;
  /** Declared slates by title, with defaults applied and write-target files added. */
  readonly catalog: Catalog;
  /** Compiled `slateWrite.match`, `if.jsonMatches` and `retrieve.requestMatch` by step id. */
  readonly checks: CompiledChecks;
}

const structure = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(ladderConfigSchema);

/**
 * Deepest collection nesting accepted in YAML/JSON config text (the top-level mapping is
 * level 1), checked on yaml's iterative CST before its recursive composer runs: real configs,
 * author JSON Schemas included, stay far below.
 */
export const MAX_CONFIG_DEPTH = 128;

/**
 * Most alias expansions one config may use. Aliases are legitimate YAML, but each expansion
 * copies its anchor's whole value: `maxAliasCount` stops a "billion laughs" config (anchors of
 * anchors, growing exponentially) before it is materialised.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * Parse YAML or JSON text; problems are `YAML: <message>` with line and column. Its errors
 * (syntax, duplicate keys, unresolved or excessive aliases) and JSON-incompatible values all
 * come back as problems, never thrown.
 */
function parseText(text: string): { value: unknown } | { problems: string[] } {
  const lineCounter = new LineCounter();
  const depth = cstDepth(text);
  if (depth > MAX_CONFIG_DEPTH) return { problems: [`YAML: collections nest more than ${MAX_CONFIG_DEPTH} levels deep`] };
  try {
    const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
    if (doc.errors.length > 0) return { problems: doc.errors.map((e) => yamlProblem(e, lineCounter)) };
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown };
  } catch (err) {
    return { problems: [yamlProblem(err, lineCounter)] };
  }
}

/**
 * The package's one translation of the yaml library's errors into config problems. A parse
 * error is a `YAMLError` with a code and a position (reported as line and column). An alias
 * that cannot be expanded makes `toJS` throw a plain `ReferenceError` with no code: whether it
 * was unresolved or over the alias budget only its message says, so that is the one text match
 * here (hostile-config.test.ts feeds it yaml's real errors of both kinds).
 */
function yamlProblem(err: unknown, lines: LineCounter): string {
  if (err instanceof YAMLError) {
    const pos = lines.linePos(err.pos[0]);
    return `YAML: ${err.message} at line ${pos.line}, column ${pos.col}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  const overBudget = err instanceof ReferenceError && /alias count/i.test(message);
  return `YAML: ${message}${overBudget ? ` (more than ${MAX_ALIAS_COUNT} alias expansions)` : ''}`;
}

/**
 * Deepest collection nesting of YAML text, from the yaml library's concrete syntax tree
 * (its parser is iterative, unlike the composer), walked without recursion.
 */
function cstDepth(text: string): number {
  let max = 0;
  const stack: Array<[CST.Token | null | undefined, number]> = [];
  for (const token of new Parser().parse(text)) stack.push([token, 0]);
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [token, depth] = entry;
    if (token === null || token === undefined) continue;
    if (depth > max) max = depth;
    if (depth > MAX_CONFIG_DEPTH) break;
    if (token.type === 'document') stack.push([token.value, depth]);
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      for (const item of token.items) {
        if ('key' in item) stack.push([item.key, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
  return max;
}

/**
 * Where a structural problem is: `head` names the step or slate (and the field inside a step),
 * `rest` the path below it. `joined`: `head` already ends with a name, so the rest follows
 * after a space instead of a colon.
 */
function locate(config: Record<string, unknown>, pointer: string): { head: string; rest: string; joined?: boolean } {
  const parts = pointerSegments(pointer);
  const rest = (from: number): string =>
    parts
      .slice(from)
      .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
      .join('');
  if (parts[0] === 'steps' && parts[1] !== undefined) {
    const step = (config.steps as unknown[])[Number(parts[1])] as { id?: unknown; fields?: unknown } | undefined;
    const head = typeof step?.id === 'string' ? `Step "${step.id}"` : `Step #${Number(parts[1]) + 1}`;
    // A problem inside a field names the field as the rules do (`slateRead field "F"`), not `fields[0]`.
    const field = parts[2] === 'fields' && parts[3] !== undefined && Array.isArray(step?.fields) ? (step.fields[Number(parts[3])] as { name?: unknown; type?: unknown } | undefined) : undefined;
    if (field !== undefined && typeof field.name === 'string' && field.name !== '' && parts.length > 4) {
      const kind = field.type === 'slateRead' ? 'slateRead field' : field.type === 'text' ? 'text field' : 'field';
      return { head: `${head}: ${kind} "${field.name}"`, rest: rest(4), joined: true };
    }
    return { head, rest: rest(2) };
  }
  if (parts[0] === 'slates' && parts[1] !== undefined) {
    const slate = (config.slates as unknown[])[Number(parts[1])] as { title?: unknown } | undefined;
    const head = typeof slate?.title === 'string' ? `Slate "${slate.title}"` : `Slate #${Number(parts[1]) + 1}`;
    return { head, rest: rest(2) };
  }
  return { head: 'Config', rest: rest(0) };
}

/** Query keys a slate reference does not take (seeds/ladr-persistent-memory-with-slates.txt). */
const FILTER_KEYS: ReadonlySet<string> = new Set(['op', 'value', 'orderBy', 'limit']);
const FILTER_ADVICE = 'slateRead does not support server-side filtering (op, value, orderBy, limit): it reads these fields only; use retrieve: for dynamic filtering at runtime';

function describe(config: Record<string, unknown>, e: ErrorObject): string | undefined {
  if (e.keyword === 'if') return undefined; // the failing then/else branch is reported itself
  const { head, rest, joined } = locate(config, e.instancePath);
  const at = rest === '' ? '' : ` ${rest}`;
  const where = joined === true ? `${head}${at}` : `${head}:${at}`;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params.additionalProperty);
      // LADR: "slateRead does NOT support server-side filtering (op, value, orderBy, limit)".
      const filtering = FILTER_KEYS.has(key) && /(^|\.)from$/.test(rest) ? `; ${FILTER_ADVICE}` : '';
      return `${where} has unknown key "${key}"${filtering}`;
    }
    case 'required':
      return `${where} is missing required key "${String(e.params.missingProperty)}"`;
    case 'enum':
      return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/** Structural problems, and which parts are safe for the cross-reference rules. */
function checkStructure(value: object): { problems: string[]; validSteps: Set<number>; slatesValid: boolean } {
  const config = value as Record<string, unknown>;
  const steps = Array.isArray(config.steps) ? config.steps : [];
  const validSteps = new Set<number>(steps.map((_, i) => i));
  let slatesValid = true;
  const problems: string[] = [];
  if (!structure(value)) {
    for (const e of structure.errors ?? []) {
      const step = /^\/steps\/(\d+)/.exec(e.instancePath);
      if (step) validSteps.delete(Number(step[1]));
      if (e.instancePath.startsWith('/slates') || (e.instancePath === '' && e.params.missingProperty === 'slates')) {
        slatesValid = false;
      }
      const text = describe(config, e);
      if (text !== undefined && !problems.includes(text)) problems.push(text);
    }
  }
  if (!Array.isArray(config.steps)) validSteps.clear();
  if (config.slates !== undefined && !Array.isArray(config.slates)) slatesValid = false;
  return { problems, validSteps, slatesValid };
}

function analyse(input: string | object): { problems: string[]; ladder?: Ladder } {
  let value: unknown = input;
  if (typeof input === 'string') {
    const parsed = parseText(input);
    if ('problems' in parsed) return { problems: parsed.problems };
    value = parsed.value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: ['Config: must be a mapping (YAML) or an object (JSON)'] };
  }
  const copy = jsonCopy(value);
  if (!('value' in copy)) {
    const { head, rest, joined } = locate(value as Record<string, unknown>, copy.pointer);
    const where = rest === '' ? head : `${head}${joined === true ? ' ' : ' '}${rest}`;
    return { problems: [`${where}: ${copy.problem}; a ladder config must be JSON data`] };
  }
  // From here on only the copy is read: getters ran once, later mutation cannot reach it.
  const { problems, validSteps, slatesValid } = checkStructure(copy.value as object);
  const config = copy.value as unknown as LadderConfig;
  const steps = (Array.isArray(config.steps) ? config.steps : []).filter((_, i) => validSteps.has(i));
  const catalog = buildCatalog({ slates: slatesValid ? config.slates : [], steps });
  const rules = checkConfigRules(config, catalog, { validSteps, slatesValid }, createSchemaCompiler());
  problems.push(...rules.problems);
  if (problems.length > 0) return { problems };
  const ladder: Ladder = { config, catalog, checks: rules.checks };
  loaded.add(ladder);
  return { problems, ladder };
}

/** Every Ladder this module produced: only these skip loading in {@link isLoadedLadder}. */
const loaded = new WeakSet<object>();

/** True for a {@link Ladder} returned by {@link loadLadder} (not a look-alike object). */
export function isLoadedLadder(value: unknown): value is Ladder {
  return typeof value === 'object' && value !== null && loaded.has(value);
}

/**
 * Every problem of a ladder config, in order (structure, slates, steps, exit); `[]` when valid.
 * Never throws for the config's content: YAML syntax, duplicate keys, unresolved or excessive
 * aliases, text nesting beyond {@link MAX_CONFIG_DEPTH}, values JSON cannot hold (BigInt,
 * functions, symbols, `undefined`, cycles, class instances, NaN, lone surrogates, nesting
 * beyond core's `MAX_PATCH_DEPTH`) are all problems. An object config is read once (a JSON copy).
 * @param input YAML or JSON text, or an already parsed config object
 */
export function validateLadder(input: string | object): string[] {
  return analyse(input).problems;
}

/**
 * Load a ladder config.
 * @param input YAML or JSON text, or an already parsed config object
 * @throws CONFIG_INVALID with `details.problems: string[]` listing every problem at once
 *   (every problem {@link validateLadder} reports, bad YAML and non-JSON values included)
 */
export function loadLadder(input: string | object): Ladder {
  const { problems, ladder } = analyse(input);
  if (ladder === undefined) {
    throw new StateflowError(
      'CONFIG_INVALID',
      `Ladder config has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.join('\n')}`,
      { problems },
    );
  }
  return ladder;
}

/**
 * Read and load a ladder config file (YAML or JSON, UTF-8).
 * @param file path of the config file
 * @throws CONFIG_INVALID as {@link loadLadder}, and when the file is not valid UTF-8;
 *   NOT_FOUND when the file cannot be read; INPUT_INVALID when `file` is not a non-empty string
 */
export async function loadLadderFile(file: string): Promise<Ladder> {
  return loadLadder(await readLadderText(file));
}

/**
 * Read and validate a ladder config file; see {@link validateLadder}. Text that is not valid
 * UTF-8 is a `CONFIG_INVALID` here too: there is no config to list problems of.
 * @throws NOT_FOUND, CONFIG_INVALID, INPUT_INVALID as {@link loadLadderFile}
 */
export async function validateLadderFile(file: string): Promise<string[]> {
  return validateLadder(await readLadderText(file));
}

async function readLadderText(file: string): Promise<string> {
  if (typeof file !== 'string' || file === '') {
    throw new StateflowError('INPUT_INVALID', `A ladder config file must be a path (a non-empty string), got ${typeof file === 'string' ? '""' : `a ${typeof file}`}.`, { field: 'file', reason: 'type' });
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new StateflowError('NOT_FOUND', `Cannot read ladder config "${file}": ${(err as Error).message}`, { file }, { cause: err });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    const problems = [`File: "${file}" is not valid UTF-8 text`];
    throw new StateflowError('CONFIG_INVALID', `Ladder config has 1 problem:\n${problems[0]}`, { problems }, { cause: err });
  }
}
