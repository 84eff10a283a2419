/**
 * Types of a ladder config (seeds/ladr-persistent-memory-with-slates.txt "Add a top-level slates
 * array", seeds/ladr-reads-and-writes.txt, seeds/ladr-stateful-sessions.txt examples).
 *
 * These describe a config that passed {@link ladderConfigSchema}; see the package README for
 * every default.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';

/** Declared type of a user metatag. `json` holds any JSON value (never `null`). */
export type MetatagType = 'string' | 'number' | 'boolean' | 'string[]' | 'number[]' | 'json';

/** A user metatag declaration, on a folder (applies to every file) or on one file. */
export interface MetatagDecl {
  name: string;
  type: MetatagType;
}

/**
 * A declared file. `init` is `blank` (default: empty contents) or a literal: a string is the
 * initial text, any other JSON value is stored as its compact JSON text.
 */
export interface FileDecl {
  name: string;
  init?: JsonValue;
  metatags?: MetatagDecl[];
}

/** Folder eviction policy (seeds: "Every folder has a tokenLimit"). Default `FIFO`. */
export type EvictionPolicy = 'FIFO' | 'LRU' | 'reject';

/** Folder access: `read` folders can be read but never written by the ladder. Default `readWrite`. */
export type FolderAccess = 'read' | 'readWrite';

/**
 * A folder. `tokenLimit` is the budget in tokens for the contents of this folder's own files
 * (subfolders have their own budgets); the string shorthand `- notes` declares an unbounded
 * `readWrite` folder with no files.
 */
export interface FolderDecl {
  name: string;
  tokenLimit?: number;
  access?: FolderAccess;
  evictionPolicy?: EvictionPolicy;
  metatags?: MetatagDecl[];
  files?: FileDecl[];
  subfolders?: Array<FolderDecl | string>;
}

/** A declared slate: a titled tree of folders. */
export interface SlateDecl {
  title: string;
  folders: Array<FolderDecl | string>;
}

/**
 * A reference into a slate. `folder` may be a `/`-separated path into subfolders (`facts/2024`).
 * `depth` applies to the `tree` system metatag only.
 */
export interface SlateRef {
  slate: string;
  folder: string;
  file?: string;
  metatag?: string;
  depth?: number;
}

/** Which node(s) of a source step: per-node routing, sequential flow, or all survivors joined. */
export type NodeRef = 'current' | 'previous' | 'accumulate';

/** `{ stepId }` source: all survivors, one node by routing, or an absolute (0-based) node index. */
export interface StepSource {
  stepId: string;
  nodeRef?: NodeRef;
  node?: number;
}

/**
 * The unified source vocabulary (seeds/ladr-reads-and-writes.txt "Gated writes use from:"):
 * `previous`, `output`, a literal string, a step reference, or a slate reference.
 */
export type SourceSpec = string | StepSource | SlateRef;

/** A `text` field: its value comes from `input.<key>` or any {@link SourceSpec}. */
export interface TextField {
  name: string;
  type: 'text';
  from: SourceSpec;
}

/** A `slateRead` field (seeds/ladr-reads-and-writes.txt "slateRead"). */
export interface SlateReadField {
  name: string;
  type: 'slateRead';
  from: SlateRef;
}

/** A step field. */
export type FieldDecl = TextField | SlateReadField;

/** How a write combines with existing content. Default `append`. */
export type WritePolicy = 'append' | 'overwrite' | 'mergeByKey';

/** Target of a write: a file's contents, or one of its metatags when `metatag` is set. */
export interface WriteTarget {
  slate: string;
  folder: string;
  file: string;
  metatag?: string;
}

/** A schema-matched write (seeds/ladr-reads-and-writes.txt "slateWrite"). */
export interface SlateWriteDecl {
  to: WriteTarget;
  field?: string;
  on?: WritePolicy;
  key?: string;
  match: JsonObject;
}

/** A gated write action (`then: { write: … }`). */
export interface GateWrite {
  to: WriteTarget;
  from: SourceSpec;
  on?: WritePolicy;
  key?: string;
}

/** A gate branch action. */
export type GateAction = 'continue' | 'abort' | { write: GateWrite };

/** A gate (`if:`): exactly one of `equals` (trimmed output equals) or `jsonMatches` (JSON Schema). */
export interface GateDecl {
  equals?: string;
  jsonMatches?: JsonObject;
  then?: GateAction;
  else?: GateAction;
}

/** A bounded retrieval loop (seeds/ladr-persistent-memory-with-slates.txt "retrieve:"). */
export interface RetrieveDecl {
  to: { slate: string; folder: string };
  as: string;
  maxRounds: number;
  requestMatch: JsonObject;
}

/** One ladder step. */
export interface StepDecl {
  id: string;
  type?: 'normal' | 'group';
  fields?: FieldDecl[];
  systemPrompt?: string;
  nodes?: number;
  if?: GateDecl;
  slateWrite?: SlateWriteDecl;
  retrieve?: RetrieveDecl;
}

/** A whole ladder config. `allowedTargets` and `knobs` are accepted and kept verbatim. */
export interface LadderConfig {
  name: string;
  description?: string;
  slates?: SlateDecl[];
  steps: StepDecl[];
  exit?: string;
  allowedTargets?: JsonObject;
  knobs?: JsonObject;
}
