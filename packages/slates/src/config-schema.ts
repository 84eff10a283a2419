/**
 * JSON Schema (draft-07) of a whole ladder config: the structure that
 * {@link loadLadder} checks before the cross-reference rules of the seeds' validation sections.
 *
 * Source specs (`from:`) and gate actions (`then:`/`else:`) are unions; the schema only fixes
 * their JSON kind and the loader checks their shape with messages naming the step and branch.
 */
import type { JsonObject } from '@stateflow/core';

const identifier = { type: 'string', minLength: 1 };

const metatag = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: identifier,
    type: { enum: ['string', 'number', 'boolean', 'string[]', 'number[]', 'json'] },
  },
  additionalProperties: false,
};

const file = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, pattern: '^[^/]+$' },
    init: { not: { type: 'null' } },
    metatags: { type: 'array', items: { $ref: '#/definitions/metatag' } },
  },
  additionalProperties: false,
};

const folderName = { type: 'string', minLength: 1, pattern: '^[^/]+$' };

const folder = {
  if: { type: 'string' },
  then: folderName,
  else: {
    type: 'object',
    required: ['name', 'tokenLimit'],
    properties: {
      name: folderName,
      tokenLimit: { type: 'integer', minimum: 1 },
      access: { enum: ['read', 'readWrite'] },
      evictionPolicy: { enum: ['FIFO', 'LRU', 'reject'] },
      metatags: { type: 'array', items: { $ref: '#/definitions/metatag' } },
      files: { type: 'array', items: { $ref: '#/definitions/file' } },
      subfolders: { type: 'array', items: { $ref: '#/definitions/folder' } },
    },
    additionalProperties: false,
  },
};

const slateRef = {
  type: 'object',
  required: ['slate', 'folder'],
  properties: {
    slate: identifier,
    folder: identifier,
    file: identifier,
    metatag: identifier,
    depth: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
};

const writeTarget = {
  type: 'object',
  required: ['slate', 'folder', 'file'],
  properties: { slate: identifier, folder: identifier, file: identifier, metatag: identifier },
  additionalProperties: false,
};

const policy = { enum: ['append', 'overwrite', 'mergeByKey'] };

const field = {
  type: 'object',
  required: ['name', 'type', 'from'],
  properties: {
    name: identifier,
    type: { enum: ['text', 'slateRead'] },
    from: { type: ['string', 'object'] },
  },
  additionalProperties: false,
  if: { properties: { type: { const: 'slateRead' } }, required: ['type'] },
  then: { properties: { from: { $ref: '#/definitions/slateRef' } } },
};

const action = { type: ['string', 'object'] };

const step = {
  type: 'object',
  required: ['id'],
  properties: {
    id: identifier,
    type: { enum: ['normal', 'group'] },
    fields: { type: 'array', items: { $ref: '#/definitions/field' } },
    systemPrompt: { type: 'string' },
    nodes: { type: 'integer', minimum: 1, maximum: 64 },
    if: {
      type: 'object',
      properties: {
        equals: { type: 'string' },
        jsonMatches: { type: 'object' },
        then: action,
        else: action,
      },
      additionalProperties: false,
    },
    slateWrite: {
      type: 'object',
      required: ['to', 'match'],
      properties: {
        to: { $ref: '#/definitions/writeTarget' },
        field: identifier,
        on: policy,
        key: identifier,
        match: { type: 'object' },
      },
      additionalProperties: false,
    },
    retrieve: {
      type: 'object',
      required: ['to', 'as', 'maxRounds', 'requestMatch'],
      properties: {
        to: {
          type: 'object',
          required: ['slate', 'folder'],
          properties: { slate: identifier, folder: identifier },
          additionalProperties: false,
        },
        as: identifier,
        maxRounds: { type: 'integer', minimum: 1, maximum: 100 },
        requestMatch: { type: 'object' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** The ladder config schema. Exported for editors and for the CLI's `--schema` output. */
export const ladderConfigSchema: JsonObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Stateflow ladder config',
  type: 'object',
  required: ['name', 'steps'],
  properties: {
    name: identifier,
    description: { type: 'string' },
    slates: {
      type: 'array',
      items: {
        type: 'object',
        required: ['title', 'folders'],
        properties: {
          title: identifier,
          folders: { type: 'array', items: { $ref: '#/definitions/folder' } },
        },
        additionalProperties: false,
      },
    },
    steps: { type: 'array', minItems: 1, items: { $ref: '#/definitions/step' } },
    exit: identifier,
    allowedTargets: { type: 'object' },
    knobs: { type: 'object' },
  },
  additionalProperties: false,
  definitions: { metatag, file, folder, slateRef, writeTarget, field, step },
};
