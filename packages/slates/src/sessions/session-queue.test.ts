import { describe, expect, it } from 'vitest';
import { SerialQueue } from './session-queue.js';

describe('SerialQueue', () => {
  it('runs tasks of one key one at a time in arrival order, and keys independently', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([queue.run('a', task('a1')), queue.run('a', task('a2')), queue.run('b', task('b1'))]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
    expect(queue.size).toBe(0);
  });

  it('keeps running after a failing task and reports the failure to its caller only', async () => {
    const queue = new SerialQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    await queue.idle();
    expect(queue.size).toBe(0);
  });
});
