/**
 * The declared slate structure of a ladder, indexed for lookups by title and folder path
 * (seeds/ladr-persistent-memory-with-slates.txt "Add a top-level slates array").
 */
import type { JsonValue } from '@stateflow/core';
import type {
  EvictionPolicy,
  FolderAccess,
  FolderDecl,
  GateWrite,
  LadderConfig,
  MetatagType,
  SlateDecl,
  StepDecl,
  WriteTarget,
} from '../config-types.js';

/** System metatags, computed by the projection and never declared or written. */
const SYSTEM_METATAGS = ['index', 'tree', 'created', 'modified', 'size'] as const;

/** True for a system metatag name. */
export function isSystemMetatag(name: string): boolean {
  return (SYSTEM_METATAGS as readonly string[]).includes(name);
}

/** A file known to a folder: declared, or the target of a write in some step. */
export interface FileInfo {
  name: string;
  declared: boolean;
  /** Initial contents; `undefined` for blank. */
  init: string | undefined;
  /** Effective metatag schema: folder-level ∪ file-level (file-level wins on a clash). */
  metatags: Map<string, MetatagType>;
}

/** A folder with defaults applied. `path` is `/`-joined from the slate root. */
export interface FolderInfo {
  path: string;
  name: string;
  /** Budget in tokens; `null` when unbounded (string shorthand). */
  tokenLimit: number | null;
  access: FolderAccess;
  evictionPolicy: EvictionPolicy;
  metatags: Map<string, MetatagType>;
  files: Map<string, FileInfo>;
  subfolders: string[];
}

/** One slate: its folders by path, in declaration order (parents before children). */
export interface SlateInfo {
  title: string;
  folders: Map<string, FolderInfo>;
}

/** Every declared slate by title (first declaration wins on a duplicate title). */
export type Catalog = Map<string, SlateInfo>;

function initText(init: JsonValue | undefined): string | undefined {
  if (init === undefined || init === 'blank') return undefined;
  return typeof init === 'string' ? init : JSON.stringify(init);
}

function addFolder(slate: SlateInfo, decl: FolderDecl | string, parent: string | null): void {
  const d: FolderDecl = typeof decl === 'string' ? { name: decl } : decl;
  const path = parent === null ? d.name : `${parent}/${d.name}`;
  if (slate.folders.has(path)) return;
  const metatags = new Map<string, MetatagType>();
  for (const m of d.metatags ?? []) if (!metatags.has(m.name)) metatags.set(m.name, m.type);
  const files = new Map<string, FileInfo>();
  for (const f of d.files ?? []) {
    if (files.has(f.name)) continue;
    const effective = new Map(metatags);
    for (const m of f.metatags ?? []) effective.set(m.name, m.type);
    files.set(f.name, { name: f.name, declared: true, init: initText(f.init), metatags: effective });
  }
  const subs = (d.subfolders ?? []).map((s) => (typeof s === 'string' ? s : s.name));
  slate.folders.set(path, {
    path,
    name: d.name,
    tokenLimit: typeof decl === 'string' ? null : (d.tokenLimit ?? null),
    access: d.access ?? 'readWrite',
    evictionPolicy: d.evictionPolicy ?? 'FIFO',
    metatags,
    files,
    subfolders: subs,
  });
  for (const sub of d.subfolders ?? []) addFolder(slate, sub, path);
}

/** True for a gate action `{ write: { to: {…}, … } }` (structure only). */
export function isWriteAction(action: unknown): action is { write: GateWrite } {
  if (typeof action !== 'object' || action === null) return false;
  const write = (action as { write?: unknown }).write;
  return typeof write === 'object' && write !== null && typeof (write as { to?: unknown }).to === 'object';
}

/** Every write target of a step (its slateWrite and its gated writes). */
function writeTargets(step: StepDecl): WriteTarget[] {
  const out: WriteTarget[] = [];
  if (step.slateWrite) out.push(step.slateWrite.to);
  for (const branch of [step.if?.then, step.if?.else]) {
    if (isWriteAction(branch)) out.push(branch.write.to);
  }
  return out;
}

/**
 * Index the declared slates. Files that are not declared but are the target of some write
 * (`wins/latest.md` in the slates seed) are added with the folder's metatags, so reads and
 * metatag writes on them validate.
 */
export function buildCatalog(config: { slates?: SlateDecl[]; steps?: StepDecl[] } | LadderConfig): Catalog {
  const catalog: Catalog = new Map();
  for (const s of config.slates ?? []) {
    if (catalog.has(s.title)) continue;
    const slate: SlateInfo = { title: s.title, folders: new Map() };
    for (const f of s.folders) addFolder(slate, f, null);
    catalog.set(s.title, slate);
  }
  for (const step of config.steps ?? []) {
    for (const to of writeTargets(step)) {
      const folder = catalog.get(to?.slate)?.folders.get(to?.folder);
      if (folder === undefined || typeof to.file !== 'string' || folder.files.has(to.file)) continue;
      folder.files.set(to.file, { name: to.file, declared: false, init: undefined, metatags: new Map(folder.metatags) });
    }
  }
  return catalog;
}
