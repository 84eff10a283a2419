/**
 * Load-time cross-reference rules of a ladder config (seeds/ladr-reads-and-writes.txt
 * "At config load time, every slateRead is validated", "Write-related rules checked at config
 * load time"), plus the rules this package adds (read-only folders, duplicates, exit).
 *
 * Each rule yields one problem string naming the step, the field or branch, and the offending
 * reference, in the seeds' wording.
 */
import type {
  FieldDecl,
  GateAction,
  LadderConfig,
  SlateDecl,
  SlateRef,
  StepDecl,
  WritePolicy,
  WriteTarget,
} from '../config-types.js';
import type { Catalog, FolderInfo } from './catalog.js';
import { isSystemMetatag, isWriteAction } from './catalog.js';
import { parseSource } from './source-spec.js';
import type { JsonCheck } from './user-schemas.js';
import { tryCompile } from './user-schemas.js';

/** Compiled author schemas by step id. */
export interface CompiledChecks {
  match: Map<string, JsonCheck>;
  jsonMatches: Map<string, JsonCheck>;
  requestMatch: Map<string, JsonCheck>;
}

type Compile = (schema: object) => JsonCheck;

interface Ctx {
  catalog: Catalog;
  steps: StepDecl[];
  problems: string[];
  compile: Compile;
  checks: CompiledChecks;
}

/** Slate and folder existence, in the seeds' wording; returns the folder when both exist. */
function checkSlateFolder(ctx: Ctx, who: string, ref: { slate: string; folder: string }): FolderInfo | undefined {
  const slate = ctx.catalog.get(ref.slate);
  if (slate === undefined) {
    ctx.problems.push(`${who} references non-existent slate "${ref.slate}"`);
    return undefined;
  }
  const folder = slate.folders.get(ref.folder);
  if (folder === undefined) {
    ctx.problems.push(`${who} references non-existent folder "${ref.folder}" in slate "${ref.slate}"`);
  }
  return folder;
}

function checkFile(ctx: Ctx, who: string, ref: SlateRef, folder: FolderInfo): boolean {
  if (ref.file === undefined || folder.files.has(ref.file)) return true;
  ctx.problems.push(
    `${who} references non-existent file "${ref.file}" in folder "${ref.folder}" of slate "${ref.slate}"`,
  );
  return false;
}

function checkSlateRead(ctx: Ctx, stepId: string, field: FieldDecl & { type: 'slateRead' }): void {
  const who = `Step "${stepId}": slateRead field "${field.name}"`;
  const ref = field.from;
  const folder = checkSlateFolder(ctx, who, ref);
  if (folder === undefined || !checkFile(ctx, who, ref, folder)) return;
  if (ref.file === undefined && ref.metatag === undefined) {
    ctx.problems.push(`${who} must name a file or a metatag`);
  }
  if (ref.depth !== undefined && ref.metatag !== 'tree') {
    ctx.problems.push(`${who} sets depth, which only applies to metatag "tree"`);
  }
  const tag = ref.metatag;
  if (tag === undefined || isSystemMetatag(tag)) return;
  if (ref.file !== undefined) {
    if (!folder.files.get(ref.file)?.metatags.has(tag)) {
      ctx.problems.push(`${who} references undeclared metatag "${tag}" on file "${ref.file}"`);
    }
  } else if (![...folder.files.values()].some((f) => f.metatags.has(tag))) {
    // A file's effective schema already holds the folder-level metatags; a folder-level
    // declaration alone, in a folder with no file, is in no file's schema (seed rule 5).
    ctx.problems.push(`${who} references undeclared metatag "${tag}" in folder "${ref.folder}" of slate "${ref.slate}"`);
  }
}

/** `from:` validity (shape, declared slate refs, existing step ids); `output` only where `reads.allowOutput`. */
function checkSource(ctx: Ctx, who: string, from: unknown, index: number, reads: { allowOutput: boolean }): void {
  const { allowOutput } = reads;
  const parsed = parseSource(from);
  if ('invalid' in parsed) {
    ctx.problems.push(`${who} has an invalid from: ${parsed.invalid}`);
    return;
  }
  if (parsed.kind === 'output' && !allowOutput) {
    ctx.problems.push(`${who} cannot read from output: the step's own output does not exist before it runs`);
  } else if (parsed.kind === 'previous') {
    const prev = ctx.steps[index - 1];
    if (prev?.type === 'group') {
      ctx.problems.push(`${who} uses from: previous after group step "${prev.id}", which is ambiguous; name a stepId`);
    }
  } else if (parsed.kind === 'step') {
    if (!ctx.steps.some((s) => s.id === parsed.stepId)) {
      ctx.problems.push(`${who} references non-existent step "${parsed.stepId}"`);
    }
  } else if (parsed.kind === 'slate') {
    const ref = parsed.ref;
    const folder = checkSlateFolder(ctx, who, ref);
    if (folder === undefined || !checkFile(ctx, who, ref, folder)) return;
    const tag = ref.metatag;
    if (tag !== undefined && !isSystemMetatag(tag) && !folder.files.get(ref.file as string)?.metatags.has(tag)) {
      ctx.problems.push(`${who} references undeclared metatag "${tag}" on file "${ref.file}"`);
    }
  }
}

function checkSchema(ctx: Ctx, who: string, schema: object, into: Map<string, JsonCheck>, stepId: string): void {
  if (Object.keys(schema).length === 0) {
    ctx.problems.push(`${who} must be a non-empty JSON Schema`);
    return;
  }
  const compiled = tryCompile(ctx.compile, schema);
  if ('problem' in compiled) ctx.problems.push(`${who} ${compiled.problem}`);
  else into.set(stepId, compiled.check);
}

/** Target, policy and key rules shared by slateWrite and gated writes. */
function checkWrite(ctx: Ctx, who: string, to: WriteTarget, on: WritePolicy | undefined, key: string | undefined): void {
  const policy = on ?? 'append';
  if (policy === 'mergeByKey' && key === undefined) ctx.problems.push(`${who} on: mergeByKey requires key`);
  if (policy !== 'mergeByKey' && key !== undefined) {
    ctx.problems.push(`${who} key is only valid with on: mergeByKey, not on: ${policy}`);
  }
  const folder = checkSlateFolder(ctx, who, to);
  if (folder === undefined) return;
  if (folder.access === 'read') {
    ctx.problems.push(`${who} writes to read-only folder "${to.folder}" in slate "${to.slate}"`);
  }
  const tag = to.metatag;
  if (tag === undefined) return;
  if (isSystemMetatag(tag)) {
    ctx.problems.push(`${who} cannot write system metatag "${tag}"`);
    return;
  }
  const type = folder.files.get(to.file)?.metatags.get(tag);
  if (type === undefined) ctx.problems.push(`${who} references undeclared metatag "${tag}" on file "${to.file}"`);
  else if (policy === 'mergeByKey' && type !== 'json') {
    ctx.problems.push(`${who} on: mergeByKey needs a json metatag, but "${tag}" is ${type}`);
  }
}

const WRITE_KEYS = ['to', 'from', 'on', 'key'];
const POLICIES: readonly string[] = ['append', 'overwrite', 'mergeByKey'];
const TARGET_KEYS = ['slate', 'folder', 'file', 'metatag'];

function targetShapeProblem(to: unknown): string | undefined {
  if (typeof to !== 'object' || to === null || Array.isArray(to)) return 'to must be { slate, folder, file, metatag? }';
  const o = to as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !TARGET_KEYS.includes(k));
  if (extra !== undefined) return `to has unknown key "${extra}"`;
  for (const k of ['slate', 'folder', 'file']) {
    if (typeof o[k] !== 'string' || o[k] === '') return `to needs ${k} (a non-empty string)`;
  }
  if (o.metatag !== undefined && (typeof o.metatag !== 'string' || o.metatag === '')) {
    return 'to.metatag must be a non-empty string';
  }
  return undefined;
}

function checkAction(ctx: Ctx, step: StepDecl, index: number, branch: 'then' | 'else', action: GateAction | undefined): void {
  if (action === undefined || action === 'continue' || action === 'abort') return;
  const head = `Step "${step.id}": if.${branch}`;
  if (!isWriteAction(action) || Object.keys(action).length !== 1) {
    const what = typeof action === 'object' ? JSON.stringify(action) : String(action);
    ctx.problems.push(`${head} must be continue, abort or { write: { to, from, on } }, not ${what}`);
    return;
  }
  const who = `Step "${step.id}": gated write (${branch})`;
  const w: Record<string, unknown> = { ...action.write };
  const extra = Object.keys(w).find((k) => !WRITE_KEYS.includes(k));
  if (extra !== undefined) ctx.problems.push(`${who} has unknown key "${extra}"`);
  const shape = targetShapeProblem(w.to);
  if (shape !== undefined) ctx.problems.push(`${who} ${shape}`);
  if (w.on !== undefined && !(typeof w.on === 'string' && POLICIES.includes(w.on))) {
    ctx.problems.push(`${who} on must be append, overwrite or mergeByKey, not ${JSON.stringify(w.on)}`);
  }
  if (w.key !== undefined && (typeof w.key !== 'string' || w.key === '')) {
    ctx.problems.push(`${who} key must be a non-empty string`);
  }
  if (w.from === undefined) ctx.problems.push(`${who} needs from`);
  else checkSource(ctx, who, w.from, index, { allowOutput: true });
  if (shape === undefined) {
    checkWrite(ctx, who, w.to as WriteTarget, w.on as WritePolicy | undefined, w.key as string | undefined);
  }
}

function checkStep(ctx: Ctx, step: StepDecl, index: number): void {
  const head = `Step "${step.id}"`;
  if (step.type === 'group') ctx.problems.push(`${head}: type "group" is not supported by this runtime`);
  const names = new Set<string>();
  for (const field of step.fields ?? []) {
    if (names.has(field.name)) ctx.problems.push(`${head}: field "${field.name}" is declared more than once`);
    names.add(field.name);
    if (field.type === 'slateRead') checkSlateRead(ctx, step.id, field);
    else checkSource(ctx, `${head}: text field "${field.name}"`, field.from, index, { allowOutput: false });
  }
  const gate = step.if;
  if (gate !== undefined) {
    if ((gate.equals === undefined) === (gate.jsonMatches === undefined)) {
      ctx.problems.push(`${head}: if needs exactly one of equals or jsonMatches`);
    }
    if (gate.jsonMatches !== undefined) {
      checkSchema(ctx, `${head}: if.jsonMatches`, gate.jsonMatches, ctx.checks.jsonMatches, step.id);
    }
    checkAction(ctx, step, index, 'then', gate.then);
    checkAction(ctx, step, index, 'else', gate.else);
  }
  const sw = step.slateWrite;
  if (sw !== undefined) {
    checkWrite(ctx, `${head}: slateWrite`, sw.to, sw.on, sw.key);
    checkSchema(ctx, `${head}: slateWrite match`, sw.match, ctx.checks.match, step.id);
  }
  const r = step.retrieve;
  if (r !== undefined) {
    checkSlateFolder(ctx, `${head}: retrieve`, r.to);
    if (names.has(r.as)) ctx.problems.push(`${head}: retrieve as "${r.as}" clashes with field "${r.as}"`);
    checkSchema(ctx, `${head}: retrieve requestMatch`, r.requestMatch, ctx.checks.requestMatch, step.id);
  }
}

function checkSlates(problems: string[], slates: SlateDecl[]): void {
  const titles = new Set<string>();
  for (const slate of slates) {
    if (titles.has(slate.title)) problems.push(`Slate "${slate.title}" is declared more than once`);
    titles.add(slate.title);
    const paths = new Set<string>();
    const walk = (folders: SlateDecl['folders'], parent: string | null): void => {
      for (const decl of folders) {
        const name = typeof decl === 'string' ? decl : decl.name;
        const path = parent === null ? name : `${parent}/${name}`;
        const where = `Slate "${slate.title}": folder "${path}"`;
        if (paths.has(path)) problems.push(`${where} is declared more than once`);
        paths.add(path);
        if (typeof decl === 'string') continue;
        const tags = (list: { name: string }[] | undefined, scope: string): void => {
          const seen = new Set<string>();
          for (const m of list ?? []) {
            if (isSystemMetatag(m.name)) problems.push(`${scope}: metatag "${m.name}" is a system metatag and cannot be declared`);
            else if (seen.has(m.name)) problems.push(`${scope}: metatag "${m.name}" is declared more than once`);
            seen.add(m.name);
          }
        };
        tags(decl.metatags, where);
        const files = new Set<string>();
        for (const f of decl.files ?? []) {
          if (files.has(f.name)) problems.push(`${where}: file "${f.name}" is declared more than once`);
          files.add(f.name);
          tags(f.metatags, `${where}: file "${f.name}"`);
        }
        walk(decl.subfolders ?? [], path);
      }
    };
    walk(slate.folders, null);
  }
}

/**
 * Run every cross-reference rule over the structurally valid parts of a config.
 * @param structure what the structural schema accepted: `validSteps`, the indexes of steps that
 *   passed it; `slatesValid`, whether `slates` passed it (else references are not checked)
 */
export function checkConfigRules(
  config: LadderConfig,
  catalog: Catalog,
  structure: { validSteps: ReadonlySet<number>; slatesValid: boolean },
  compile: Compile,
): { problems: string[]; checks: CompiledChecks } {
  const { validSteps, slatesValid } = structure;
  const checks: CompiledChecks = { match: new Map(), jsonMatches: new Map(), requestMatch: new Map() };
  const problems: string[] = [];
  const steps = Array.isArray(config.steps) ? config.steps : [];
  if (slatesValid) checkSlates(problems, config.slates ?? []);
  const ctx: Ctx = { catalog, steps, problems, compile, checks };
  const ids = new Set<string>();
  steps.forEach((step, index) => {
    if (!validSteps.has(index)) return;
    if (ids.has(step.id)) problems.push(`Step "${step.id}" is declared more than once`);
    ids.add(step.id);
    if (slatesValid) checkStep(ctx, step, index);
  });
  if (typeof config.exit === 'string' && !steps.some((s) => s?.id === config.exit)) {
    problems.push(`exit references non-existent step "${config.exit}"`);
  }
  return { problems, checks };
}
