import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SerialQueue', () => {
  it('runs tasks of one key one at a time in arrival order, and keys independently', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
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

  it('takes object keys and forgets a key once its work has settled', async () => {
    const queue = new SerialQueue<object>();
    const a = {};
    const b = {};
    const log: string[] = [];
    const first = queue.run(a, async () => {
      await tick();
      log.push('a1');
    });
    const second = queue.run(a, async () => void log.push('a2'));
    const other = queue.run(b, async () => void log.push('b1'));
    expect(queue.size).toBe(2);
    await Promise.all([first, second, other]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
    await queue.idle();
    expect(queue.size).toBe(0);
  });

  it('runAll runs its task while holding every key, and overlapping holders do not deadlock', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const all = queue.runAll(['b', 'a', 'a'], async () => {
      log.push('all start');
      await held;
      log.push('all end');
    });
    await tick();
    const onA = queue.run('a', async () => void log.push('a'));
    const onB = queue.run('b', async () => void log.push('b'));
    const reversed = queue.runAll(['a', 'b'], async () => void log.push('reversed'));
    await tick();
    expect(log).toEqual(['all start']);
    release();
    await Promise.all([all, onA, onB, reversed]);
    expect(log.slice(0, 2)).toEqual(['all start', 'all end']);
    expect(log.slice(2).sort()).toEqual(['a', 'b', 'reversed']);
  });
});
