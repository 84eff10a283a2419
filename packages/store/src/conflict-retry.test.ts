import { describe, expect, it } from 'vitest';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { openMemoryStore } from './open-store.js';
import { retryOnConflict } from './conflict-retry.js';

const conflict = (stream: string) => new StateflowError('CONFLICT', `stream ${stream} moved`, { stream, expected: 1, actual: 2 });

describe('retryOnConflict', () => {
  it('re-evaluates on CONFLICT until an evaluation lands, numbering the attempts', async () => {
    const seen: number[] = [];
    const result = await retryOnConflict({ attempts: 3 }, async (attempt) => {
      seen.push(attempt);
      if (attempt < 3) throw conflict('global');
      return 'landed';
    });
    expect(result).toBe('landed');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('throws the last CONFLICT once the attempts are used up', async () => {
    let calls = 0;
    const err = await retryOnConflict({ attempts: 2 }, async () => {
      calls++;
      throw conflict(`s${calls}`);
    }).catch((e: unknown) => e);
    expect(calls).toBe(2);
    expect(isStateflowError(err, 'CONFLICT') && err.details.stream).toBe('s2');
  });

  it('does not retry other errors, nor a conflict the caller says is final', async () => {
    let calls = 0;
    const other = await retryOnConflict({ attempts: 5 }, async () => {
      calls++;
      throw new StateflowError('STORE_IO', 'disk', { location: null, code: 'EIO' });
    }).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(isStateflowError(other, 'STORE_IO')).toBe(true);
    calls = 0;
    const final = await retryOnConflict({ attempts: 5, retryable: (e) => e.details.stream !== 'meta' }, async () => {
      calls++;
      throw conflict(calls === 1 ? 'slate' : 'meta');
    }).catch((e: unknown) => e);
    expect(calls).toBe(2);
    expect(isStateflowError(final, 'CONFLICT') && final.details.stream).toBe('meta');
  });

  it('lands a read-compute-publish against a head another writer moved, on a real store', async () => {
    const store = await openMemoryStore();
    try {
      await store.publish({ changes: { global: { n: 1 } } });
      let interfered = false;
      const published = await retryOnConflict({ attempts: 2 }, async () => {
        const view = await store.view(['global']);
        const head = view.streams.global;
        if (!interfered) {
          interfered = true;
          await store.publish({ changes: { global: { n: 10 } } });
        }
        const n = (head?.state.n as number) + 1;
        return store.publish({ changes: { global: { n } }, expected: { global: head?.rev ?? 'none' } });
      });
      expect(published.transition?.changes[0]?.rev).toBe(3);
      expect((await store.state('global')).n).toBe(11);
    } finally {
      await store.close();
    }
  });
});
