import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { overlay } from './overlay.js';

describe('overlay: global → cwd → session', () => {
  const global: JsonObject = { strategy: { tone: 'plain', rules: ['r1'] }, lazy: { soul: ['s'], rules: { a: 1 } } };
  const cwd: JsonObject = { strategy: { rules: ['r2', 'r3'] }, lazy: { rules: { b: 2 } }, tactics: { next: 'cwd' } };
  const session: JsonObject = { tactics: { next: 'session' }, lazy: { soul: 'replaced' } };

  it('overlays objects recursively; higher scopes win for non-objects; arrays replace whole', () => {
    expect(overlay(global, cwd, session)).toEqual({
      strategy: { tone: 'plain', rules: ['r2', 'r3'] },
      lazy: { soul: 'replaced', rules: { a: 1, b: 2 } },
      tactics: { next: 'session' },
    });
  });

  it('a key absent from an upper scope reveals the lower value (scope-local deletion)', () => {
    const sessionWithoutTactics: JsonObject = { lazy: { soul: 'replaced' } };
    expect(overlay(global, cwd, sessionWithoutTactics).tactics).toEqual({ next: 'cwd' });
    expect(overlay(global, undefined, undefined).lazy).toEqual({ soul: ['s'], rules: { a: 1 } });
  });

  it('an object replaces a scalar and a scalar replaces an object', () => {
    expect(overlay({ a: 1, b: { c: 1 } }, { a: { x: 1 }, b: 2 })).toEqual({ a: { x: 1 }, b: 2 });
  });

  it('skips absent layers; no layers give {}', () => {
    expect(overlay()).toEqual({});
    expect(overlay(undefined, cwd, undefined)).toEqual(cwd);
  });

  it('is deeply frozen, shares unchanged subtrees and mutates no layer', () => {
    const low = { a: { deep: [1] }, b: { c: 1 } };
    const high = { b: { d: 2 } };
    const text = JSON.stringify({ low, high });
    const result = overlay(low, high);
    expect(JSON.stringify({ low, high })).toBe(text);
    expect(result.a).toBe(low.a);
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.b)).toBe(true);
  });

  it('keeps "__proto__" as a data key', () => {
    const low = JSON.parse('{"__proto__": {"a": 1}}') as JsonObject;
    const high = JSON.parse('{"__proto__": {"b": 2}}') as JsonObject;
    const result = overlay(low, high);
    expect(JSON.stringify(result)).toBe('{"__proto__":{"a":1,"b":2}}');
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});
