import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json.js';

describe('jsonEqual', () => {
  it('ignores object key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
  });
  it('distinguishes arrays from objects and lengths', () => {
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [1])).toBe(false);
  });
});
