/** Owner selection: members, mode, absolute cwd, streams. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectedOwners } from './selection.js';
import type { Selection } from './selection.js';
import { errorOf } from '@stateflow/test-kit';

/** The INPUT_INVALID error `selectedOwners` throws for `selection`. */
const failure = (selection: unknown) => errorOf(() => selectedOwners(selection as Selection), 'INPUT_INVALID');

describe('selectedOwners', () => {
  it('maps owners to streams in overlay order; an absolute cwd is normalised', () => {
    expect(selectedOwners({ session: 's1', cwd: '/p/./q/', global: true, mode: 'passive' })).toEqual([
      { scope: 'global', stream: 'global' },
      { scope: 'cwd', stream: `cwd:${path.resolve('/p/q')}` },
      { scope: 'session', stream: 'session:s1' },
    ]);
  });

  it('rejects an unknown member, naming it', () => {
    const err = failure({ cwd: '/p', sesion: 'x', mode: 'active' });
    expect(err.message).toBe('selection does not accept "sesion"; its members are global, cwd, session and mode.');
    expect(err.details).toEqual({ field: 'selection.sesion', reason: 'unknown-field' });
    expect(failure({ cwd: '/p', mode: 'active', __proto__x: 1 }).details.field).toBe('selection.__proto__x');
    expect(failure(JSON.parse('{"cwd": "/p", "mode": "active", "__proto__": {"session": "s"}}')).details.field).toBe('selection.__proto__');
  });

  it('rejects a relative cwd, saying so', () => {
    const err = failure({ cwd: 'proj', mode: 'active' });
    expect(err.message).toMatch(/^selection\.cwd must be an absolute directory path, got the relative path "proj"; resolve it first/);
    expect(err.details).toEqual({ field: 'selection.cwd', reason: 'relative' });
    expect(failure({ cwd: '.', mode: 'active' }).details.reason).toBe('relative');
    expect(failure({ cwd: '', mode: 'active' }).message).toBe('selection.cwd must be an absolute directory path, got "".');
  });

  it('a missing mode reads as required; a wrong one names the value', () => {
    expect(failure({ cwd: '/p' }).message).toBe('selection.mode is required: "active" or "passive".');
    expect(failure({ cwd: '/p', mode: 'sleepy' }).message).toBe('selection.mode must be "active" or "passive", got "sleepy".');
    expect(failure({ cwd: '/p', mode: 1 }).message).toBe('selection.mode must be "active" or "passive", got a number.');
  });

  it('global is true or absent; session a non-empty string; something must be selected', () => {
    expect(failure({ global: false, mode: 'active' }).details.field).toBe('selection.global');
    expect(failure({ session: '', mode: 'active' }).details.field).toBe('selection.session');
    expect(failure({ mode: 'active' }).message).toBe('select at least one owner: global, cwd or session.');
  });

  it('never echoes a huge value in full', () => {
    const err = failure({ cwd: 'x'.repeat(100_000), mode: 'active' });
    expect(err.message.length).toBeLessThan(600);
  });
});
