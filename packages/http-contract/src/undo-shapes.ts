/**
 * The store's undo as the store API takes and answers it (store `UndoInput`, `UndoResult`;
 * store README "Undo").
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { enumOf, jsonObject } from './json-schemas.js';
import { DuplicateTransition, MergeConflict, Transition, expectedRevision, mergeResolution, principal, revision, streamId, streamList } from './store-shapes.js';

const writerField = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));

/** Core `WriterMatch`: fields of `meta.writer` a transition must carry. */
export const WriterMatch = Type.Object(
  {
    user: writerField('The user (an API-key user can name only itself)'),
    surface: writerField('http, mcp-http, mcp-stdio, cli, ladder, server'),
    client: writerField('name/version, or the name alone'),
    ladder: writerField('The ladder id'),
    tool: writerField('The MCP tool whose call wrote it'),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WriterMatch = Static<typeof WriterMatch>;

/** Store `UndoInput`. */
export const UndoInput = Type.Object(
  {
    writer: WriterMatch,
    since: Type.Union(
      [
        revision,
        Type.Object({ seq: revision }, { additionalProperties: false }),
        Type.Object({ time: Type.String({ description: 'ISO 8601' }) }, { additionalProperties: false }),
        Type.Object({ tag: Type.String({ description: 'A tag name' }) }, { additionalProperties: false }),
      ],
      { description: 'After this seq, from this time, or after this tag' },
    ),
    streams: Type.Optional(Type.Array(streamId, { minItems: 1, maxItems: streamList.maxItems, description: 'Only these streams (default: every stream the writer changed)' })),
    expected: Type.Optional(Type.Record(Type.String(), expectedRevision, { description: 'Expected head revision per stream (the heads of a preview)' })),
    resolve: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), mergeResolution), { description: 'Resolution per stream and conflict path (RFC 6901)' })),
    prefer: Type.Optional(enumOf(['ours', 'theirs'], { description: 'ours keeps the later writes, theirs takes the state without the undone ones' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'Answer the undo (status preview) without publishing' })),
    id: Type.Optional(Type.String({ description: 'Idempotency id' })),
    principal: Type.Optional(principal),
    meta: Type.Optional(jsonObject({ description: 'Metadata beside the undo record (may not hold undo)' })),
  },
  { additionalProperties: false },
);
export type UndoInput = Static<typeof UndoInput>;

/** An undo's conflict: a merge conflict and its stream. */
export const UndoConflict = Type.Object({ stream: streamId, ...MergeConflict.properties });
export type UndoConflict = Static<typeof UndoConflict>;

const undoPlan = {
  writer: WriterMatch,
  since: revision,
  through: revision,
  undone: Type.Array(revision, { description: 'The seqs undone' }),
  heads: Type.Record(Type.String(), revision, { description: 'Head revision of each stream in scope as read' }),
  patches: Type.Record(Type.String(), jsonObject(), { description: 'The net patch per stream (published, or that would be)' }),
  conflicts: Type.Array(UndoConflict),
};

/** Store `UndoResult`. */
export const UndoResult = Type.Union([
  Type.Object({ ...undoPlan, status: Type.Literal('accepted'), transition: Transition }),
  Type.Object({ ...undoPlan, status: enumOf(['noop', 'preview']), transition: Type.Null() }),
  Type.Object({ status: Type.Literal('duplicate'), transition: DuplicateTransition }),
]);
export type UndoResult = Static<typeof UndoResult>;
