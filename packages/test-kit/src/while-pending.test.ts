import { describe, expect, it } from 'vitest';
import { whilePending } from './while-pending.js';

const later = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('whilePending', () => {
  it('splits the steps at the moment the pending operation settles', async () => {
    let calls = 0;
    let release!: (v: string) => void;
    const pending = new Promise<string>((resolve) => (release = resolve));
    const result = await whilePending(pending, async () => {
      calls++;
      if (calls === 3) release('done');
      return later(5, calls);
    });
    expect(result).toEqual({ value: 'done', during: [1, 2], after: [3] });
  });

  it('runs no step past one when the operation has settled already, and passes its rejection on', async () => {
    const settled = Promise.reject(new Error('audit failed'));
    let calls = 0;
    await expect(whilePending(settled, async () => ++calls)).rejects.toThrow('audit failed');
    expect(calls).toBe(1);
  });

  it('stops at a step that rejects', async () => {
    await expect(whilePending(later(1_000, 'x'), () => Promise.reject(new Error('step failed')))).rejects.toThrow('step failed');
  });
});
