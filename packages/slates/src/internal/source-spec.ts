/**
 * Shape of the unified source vocabulary (seeds/ladr-reads-and-writes.txt "Gated writes use
 * from:"), parsed once so validation and runtime agree on what each `from:` means.
 */
import type { NodeRef, SlateRef } from '../config-types.js';

/** A parsed source spec. */
export type ParsedSource =
  | { kind: 'previous' }
  | { kind: 'output' }
  | { kind: 'input'; key: string }
  | { kind: 'literal'; text: string }
  | { kind: 'step'; stepId: string; nodeRef: NodeRef | undefined; node: number | undefined }
  | { kind: 'slate'; ref: SlateRef };

const NODE_REFS: readonly string[] = ['current', 'previous', 'accumulate'];
const INPUT = /^input\.([A-Za-z_$][A-Za-z0-9_$-]*)$/;

/** What a valid `from:` looks like, for error messages. */
const SOURCE_FORMS =
  'previous, output, input.<key>, a literal string, { stepId, nodeRef?: current|previous|accumulate } or { stepId, node: N }, or { slate, folder, file, metatag? }';

/** Parse a `from:` value, or return the reason it is not a valid source spec. */
export function parseSource(from: unknown): ParsedSource | { invalid: string } {
  if (typeof from === 'string') {
    if (from === 'previous') return { kind: 'previous' };
    if (from === 'output') return { kind: 'output' };
    const input = INPUT.exec(from);
    if (input) return { kind: 'input', key: input[1] as string };
    return { kind: 'literal', text: from };
  }
  if (typeof from !== 'object' || from === null || Array.isArray(from)) {
    return { invalid: `expected ${SOURCE_FORMS}` };
  }
  const o = from as Record<string, unknown>;
  const keys = Object.keys(o);
  if ('stepId' in o) {
    const extra = keys.filter((k) => !['stepId', 'nodeRef', 'node'].includes(k));
    if (extra.length > 0) return { invalid: `unknown key "${extra[0]}" in a step reference` };
    if (typeof o.stepId !== 'string' || o.stepId === '') return { invalid: 'stepId must be a non-empty string' };
    if (o.nodeRef !== undefined && o.node !== undefined) return { invalid: 'nodeRef and node cannot both be set' };
    if (o.nodeRef !== undefined && !(typeof o.nodeRef === 'string' && NODE_REFS.includes(o.nodeRef))) {
      return { invalid: `nodeRef must be current, previous or accumulate, not ${JSON.stringify(o.nodeRef)}` };
    }
    if (o.node !== undefined && !(typeof o.node === 'number' && Number.isInteger(o.node) && o.node >= 0)) {
      return { invalid: `node must be a non-negative integer, not ${JSON.stringify(o.node)}` };
    }
    return {
      kind: 'step',
      stepId: o.stepId,
      nodeRef: o.nodeRef as NodeRef | undefined,
      node: o.node as number | undefined,
    };
  }
  if ('slate' in o) {
    const extra = keys.filter((k) => !['slate', 'folder', 'file', 'metatag'].includes(k));
    if (extra.length > 0) return { invalid: `unknown key "${extra[0]}" in a slate reference` };
    const { slate, folder, file, metatag } = o;
    const needs = (k: string) => ({ invalid: `a slate reference needs ${k} (a non-empty string)` });
    if (!isNonEmpty(slate)) return needs('slate');
    if (!isNonEmpty(folder)) return needs('folder');
    if (!isNonEmpty(file)) return needs('file');
    if (metatag !== undefined && !isNonEmpty(metatag)) return { invalid: 'metatag must be a non-empty string' };
    return { kind: 'slate', ref: { slate, folder, file, ...(metatag === undefined ? {} : { metatag }) } };
  }
  return { invalid: `expected ${SOURCE_FORMS}` };
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
