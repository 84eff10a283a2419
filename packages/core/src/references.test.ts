import { describe, expect, it } from 'vitest';
import {
  anchorRefs,
  findStructuredRefs,
  isAnchorableRef,
  relativizeRefs,
  structuredRef,
} from './references.js';
import type { JsonValue } from './json.js';

describe('structuredRef', () => {
  it('recognises exactly-one-member $ref and $path objects with a string', () => {
    expect(structuredRef({ $ref: 'cwd.lazy.plan' })).toEqual({ kind: '$ref', text: 'cwd.lazy.plan' });
    expect(structuredRef({ $path: 'cwd.tactics.note' })).toEqual({ kind: '$path', text: 'cwd.tactics.note' });
  });
  it('treats objects with extra members, non-strings and prose as ordinary data', () => {
    expect(structuredRef({ $ref: '#/defs/x', type: 'object' })).toBeNull();
    expect(structuredRef({ $ref: 3 })).toBeNull();
    expect(structuredRef('see $cwd.lazy.plan')).toBeNull();
    expect(structuredRef(['$ref'])).toBeNull();
  });
});

describe('findStructuredRefs', () => {
  it('walks depth-first in document order and reports locations', () => {
    const value: JsonValue = {
      a: { $ref: 'lazy.a' },
      b: [{ note: { $path: 'cwd.tactics.b' } }, { $ref: 'cwd.lazy.c' }],
      c: 'prose $cwd.lazy.z is not a reference',
    };
    expect(findStructuredRefs(value)).toEqual([
      { kind: '$ref', text: 'lazy.a', at: ['a'] },
      { kind: '$path', text: 'cwd.tactics.b', at: ['b', 0, 'note'] },
      { kind: '$ref', text: 'cwd.lazy.c', at: ['b', 1] },
    ]);
    expect(findStructuredRefs(value, ['$ref']).map((r) => r.text)).toEqual(['lazy.a', 'cwd.lazy.c']);
  });
});

describe('sole-owner anchoring', () => {
  it('anchors an eligible flat current plane ref: {"$ref":"lazy.plan"} → {"$ref":"cwd.lazy.plan"}', () => {
    expect(anchorRefs({ release: { owns: { $ref: 'lazy.plan' } } }, 'cwd')).toEqual({
      release: { owns: { $ref: 'cwd.lazy.plan' } },
    });
  });
  it('keeps identity for scoped, effective, historical, resource, non-plane, $path and prose refs', () => {
    const kept: JsonValue = [
      { $ref: 'session.lazy.plan' },
      { $ref: 'effective.lazy.plan' },
      { $ref: 'cwd[3].lazy.plan' },
      { $ref: 'https://example.com/doc' },
      { $ref: 'notes.x' },
      { $path: 'lazy.plan' },
      { $ref: 'lazy.plan', why: 'extra member' },
      'use $lazy.plan',
    ];
    expect(anchorRefs(kept, 'cwd')).toBe(kept);
  });
  it('anchors inside patches, leaving null deletions and "[N]" keys alone', () => {
    const patch: JsonValue = { intents: { a: null, b: { '[0]': { $ref: 'tactics.x' } } } };
    expect(anchorRefs(patch, 'session')).toEqual({ intents: { a: null, b: { '[0]': { $ref: 'session.tactics.x' } } } });
  });
  it('shares unchanged subtrees and never mutates its input', () => {
    const untouched = { deep: ['x'] };
    const input = { a: untouched, b: { $ref: 'lazy.b' } };
    const out = anchorRefs(input, 'global');
    expect(out.a).toBe(untouched);
    expect(input.b).toEqual({ $ref: 'lazy.b' });
  });
  it('keeps __proto__ as a data key', () => {
    const input = JSON.parse('{"__proto__": {"$ref": "lazy.p"}}') as JsonValue;
    const out = anchorRefs(input, 'cwd') as Record<string, JsonValue>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out['__proto__']).toEqual({ $ref: 'cwd.lazy.p' });
  });
  it('isAnchorableRef accepts only flat current plane paths', () => {
    expect(isAnchorableRef('lazy')).toBe(true);
    expect(isAnchorableRef('tactics.list[2]')).toBe(true);
    expect(isAnchorableRef('cwd.lazy')).toBe(false);
    expect(isAnchorableRef('lazy.has space')).toBe(false);
  });
});

describe('relative display', () => {
  it('shows same-owner current refs relative and keeps others', () => {
    const stored: JsonValue = {
      a: { $ref: 'cwd.lazy.plan' },
      b: { $ref: 'cwd[2].lazy.plan' },
      c: { $ref: 'session.lazy.plan' },
      d: { $ref: 'effective.lazy.plan' },
      e: 'see $cwd.lazy.plan',
      f: { $ref: 'cwd' },
    };
    expect(relativizeRefs(stored, 'cwd')).toEqual({ ...(stored as object), a: { $ref: 'lazy.plan' } });
  });
  it('round-trips anchoring', () => {
    const model: JsonValue = { x: [{ $ref: 'lazy.a.b' }, { $ref: 'strategy.c' }] };
    expect(relativizeRefs(anchorRefs(model, 'session'), 'session')).toEqual(model);
  });
});
