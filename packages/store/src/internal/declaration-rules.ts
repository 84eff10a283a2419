/**
 * The store's enforcement of reserved streams (README "Declarations"), one hook for every kind:
 * a change to a reserved id that is no declaration stream is refused, and a change to a
 * declaration stream must leave it well-formed by its kind's rules ({@link DECLARATION_RULES}).
 * Publication calls {@link checkDeclarationChange} for each change it stages; the audit calls
 * {@link declarationProblem} for every stored revision of a reserved stream, so the two apply the
 * same rules.
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS, declarationKindOf, isReservedStream } from '../declarations.js';
import type { DeclarationKind } from '../declarations.js';
import type { StreamId } from '../types.js';
import { checkTagDeclarations } from './tag-declarations.js';
import { checkShapeDeclarations } from './shape-declarations.js';
import { checkRetentionDeclarations } from './retention-declarations.js';
import { checkArchiveDeclarations } from './archive-declarations.js';

/** What a kind's rules may consult: the transition's seq and the heads as staged before it. */
export interface DeclarationContext {
  /** The seq of the transition that writes the revision. */
  seq: number;
  /** A stream's head revision as of the transition (the audit: as replayed so far). */
  headRev(stream: StreamId): number;
}

/** A kind's rules: throw the kind's typed error when `after` is not a well-formed successor of `before`. */
type DeclarationRule = (before: JsonObject, after: JsonObject, context: DeclarationContext) => void | Promise<void>;

/** Each kind's rules; a kind without rules here takes any JSON object. */
const DECLARATION_RULES: Partial<Record<DeclarationKind, DeclarationRule>> = {
  tags: (_before, after, context) => checkTagDeclarations(after, context),
  shapes: (before, after) => checkShapeDeclarations(before, after),
  retention: (_before, after) => checkRetentionDeclarations(after),
  archives: (_before, after) => checkArchiveDeclarations(after),
};

/** The codes a kind's rules refuse a declaration with (the audit reports their message). */
const RULE_CODES = ['TAG_INVALID', 'SHAPE_INVALID', 'RETENTION_INVALID', 'INPUT_INVALID'] as const;

/**
 * Check one staged change of `stream` (its state `before` and `after`): nothing for a stream that
 * is not reserved.
 * @throws STREAM_INVALID for a reserved id that is no declaration stream; the kind's error
 *   (`TAG_INVALID`, `RETENTION_INVALID`, `INPUT_INVALID` for an archive record) for a declaration that is not well-formed
 */
export async function checkDeclarationChange(stream: StreamId, before: JsonObject, after: JsonObject, context: DeclarationContext): Promise<void> {
  if (!isReservedStream(stream)) return;
  const kind = declarationKindOf(stream);
  if (kind === null) {
    throw new StateflowError('STREAM_INVALID', `Stream ${stream} is reserved: ids starting with stateflow: are the store's declaration streams (${Object.values(DECLARATION_STREAMS).join(', ')})`, { stream });
  }
  await DECLARATION_RULES[kind]?.(before, after, context);
}

/**
 * What is wrong with a stored revision `after` of `stream` (its state `before` it), or `null`;
 * `null` for every stream that is not reserved.
 */
export async function declarationProblem(stream: StreamId, before: JsonObject, after: JsonObject, context: DeclarationContext): Promise<string | null> {
  try {
    await checkDeclarationChange(stream, before, after, context);
    return null;
  } catch (err) {
    if (isStateflowError(err, 'STREAM_INVALID') || RULE_CODES.some((code) => isStateflowError(err, code))) return (err as Error).message;
    throw err;
  }
}
