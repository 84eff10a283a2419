/**
 * Declaration streams (README "Declarations"): configuration the store acts on — shapes, tags
 * (README "Tags"), retention policies (README "Retention") — is declared by a transition on a stream reserved for its
 * kind, so a declaration is versioned, hash-chained, audited, exported, replayed and visible in
 * time travel like every other write, and nothing about it lives outside the log.
 *
 * Every stream id that starts with {@link RESERVED_STREAM_PREFIX} is reserved. One stream per
 * kind holds every declaration of that kind (`stateflow:shapes`: every shape, each with all its
 * versions), so that the declarations of a kind are one state at any seq (precedence between
 * families is decided within one snapshot) and one stream's compare-and-set orders concurrent
 * declarations (two declarations that overlap cannot both pass their checks). The store refuses
 * a write to a reserved id that is not a declaration stream, and a write that leaves a
 * declaration stream ill-formed (each kind's rules; for shapes, `SHAPE_INVALID`); the audit
 * checks every revision of every declaration stream by the same rules. Over HTTP only the
 * store's owner writes them (server README "Users and keys").
 */
import type { StreamId } from './types.js';

/** The prefix of every stream id reserved for declarations. */
export const RESERVED_STREAM_PREFIX = 'stateflow:';

/** The declaration stream of each kind. */
export const DECLARATION_STREAMS = Object.freeze({ shapes: 'stateflow:shapes', tags: 'stateflow:tags', retention: 'stateflow:retention', archives: 'stateflow:archives' } as const);

/** A kind of declaration: a key of {@link DECLARATION_STREAMS}. */
export type DeclarationKind = keyof typeof DECLARATION_STREAMS;

/** Whether `stream` is reserved for declarations (starts with `stateflow:`). */
export function isReservedStream(stream: StreamId): boolean {
  return stream.startsWith(RESERVED_STREAM_PREFIX);
}

/** The kind whose declaration stream `stream` is, or `null` (any other stream, reserved or not). */
export function declarationKindOf(stream: StreamId): DeclarationKind | null {
  for (const [kind, id] of Object.entries(DECLARATION_STREAMS)) if (id === stream) return kind as DeclarationKind;
  return null;
}
