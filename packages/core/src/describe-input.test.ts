import { describe, expect, it } from 'vitest';
import { describeInput } from './describe-input.js';

describe('describeInput', () => {
  it('names every kind of value, quoting strings and cutting long ones at 80 characters', () => {
    expect(describeInput('dir')).toBe('"dir"');
    expect(describeInput('x'.repeat(100))).toBe(`"${'x'.repeat(80)}…"`);
    expect(describeInput(5n)).toBe('5n');
    expect(describeInput(1.5)).toBe('1.5');
    expect(describeInput(false)).toBe('false');
    expect(describeInput(undefined)).toBe('undefined');
    expect(describeInput(Symbol('s'))).toBe('Symbol(s)');
    expect(describeInput(() => 1)).toBe('a function');
    expect(describeInput(null)).toBe('null');
    expect(describeInput([1])).toBe('an array');
    expect(describeInput(Object.create(null))).toBe('an object');
  });

  it('reads nothing from a Proxy that throws on every trap', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('read'); }, getPrototypeOf: () => { throw new Error('proto'); } });
    expect(describeInput(hostile)).toBe('an object');
  });
});
