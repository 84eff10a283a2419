import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from './json.js';
import { applyPatch } from './patch-apply.js';
import { validatePatch } from './patch-validate.js';

/**
 * RFC 7396 (JSON Merge Patch) Appendix A, plus the worked example of section 3. Stateflow
 * states are JSON objects that never retain `null` and patches are non-empty objects
 * (DESIGN.md "Patches"), so every example with an object target, a non-empty object patch and
 * a null-free target applies unchanged; the others are listed below with the reason.
 */
const applicable: Array<[string, JsonObject, JsonObject, JsonObject]> = [
  ['A.1 replace a member', { a: 'b' }, { a: 'c' }, { a: 'c' }],
  ['A.2 add a member', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  ['A.3 delete the only member', { a: 'b' }, { a: null }, {}],
  ['A.4 delete one member', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  ['A.5 scalar replaces an array', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
  ['A.6 array replaces a scalar', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  ['A.7 nested merge with deletion', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  ['A.8 arrays replace whole', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  ['A.15 deletion markers inside a created object are not retained', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  [
    'section 3 example',
    {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    },
    { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] },
    {
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    },
  ],
];

/** Examples whose patch is not an object: Stateflow refuses them as `PATCH_INVALID` `not-object`. */
const refusedPatches: Array<[string, JsonObject, JsonValue, string]> = [
  ['A.10 {"a":"b"} + ["c"] → ["c"]', { a: 'b' }, ['c'], 'non-object patch root: a state stays an object'],
  ['A.11 {"a":"foo"} + null → null', { a: 'foo' }, null, 'non-object patch root: a state stays an object'],
  ['A.12 {"a":"foo"} + "bar" → "bar"', { a: 'foo' }, 'bar', 'non-object patch root: a state stays an object'],
];

/** Examples with no Stateflow counterpart at all (their target is not a valid state). */
const notApplicable: Array<[string, string]> = [
  ['A.9 ["a","b"] + ["c","d"] → ["c","d"]', 'non-object target and patch roots: states and patches are objects'],
  ['A.13 {"e":null} + {"a":1} → {"e":null,"a":1}', 'null retained in the target: null is never stored state'],
  ['A.14 [1,2] + {"a":"b","c":null} → {"a":"b"}', 'non-object target root: a state is always an object'],
];

describe('RFC 7396 Appendix A on object-rooted, null-free state', () => {
  it.each(applicable)('%s', (_name, target, patch, expected) => {
    expect(applyPatch(target, patch)).toEqual(expected);
  });

  it.each(refusedPatches)('%s is refused (%s)', (_name, target, patch) => {
    expect(() => validatePatch(target, patch)).toThrow(expect.objectContaining({ code: 'PATCH_INVALID', details: expect.objectContaining({ reason: 'not-object', at: '' }) }));
  });

  it.skip.each(notApplicable)('%s does not apply: %s', () => {});
});
