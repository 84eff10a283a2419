import { describe, expect, it } from 'vitest';
import { errorOf } from '@stateflow/test-kit';
import { checkWriterMatch, matchesWriter } from './writer-match.js';

const meta = { writer: { user: 'agent-7', surface: 'mcp-http', client: 'claude-code/1.2.0', tool: 'patch_state' } };

describe('matchesWriter', () => {
  it('matches when the writer has every field named, the client also by its name without the version', () => {
    expect(matchesWriter(meta, { user: 'agent-7' })).toBe(true);
    expect(matchesWriter(meta, { user: 'agent-7', surface: 'mcp-http' })).toBe(true);
    expect(matchesWriter(meta, { client: 'claude-code' })).toBe(true);
    expect(matchesWriter(meta, { client: 'claude-code/1.2.0', tool: 'patch_state' })).toBe(true);
    expect(matchesWriter(meta, { client: 'claude' })).toBe(false);
    expect(matchesWriter(meta, { user: 'agent-7', surface: 'cli' })).toBe(false);
    expect(matchesWriter(meta, { ladder: 'x' })).toBe(false);
    expect(matchesWriter({ writer: 'agent-7' }, { user: 'agent-7' })).toBe(false);
    expect(matchesWriter(undefined, { user: 'agent-7' })).toBe(false);
  });
});

describe('checkWriterMatch', () => {
  it('copies a match and refuses what names no writer', () => {
    expect(checkWriterMatch({ user: 'a', client: 'b' })).toEqual({ user: 'a', client: 'b' });
    for (const [bad, reason] of [
      [null, 'type'],
      ['agent-7', 'type'],
      [{}, 'empty'],
      [{ name: 'x' }, 'unknown-field'],
      [{ user: '' }, 'bad-value'],
      [{ user: 7 }, 'bad-value'],
      [{ user: 'x'.repeat(257) }, 'bad-value'],
    ] as const) {
      const err = errorOf(() => checkWriterMatch(bad));
      expect(err.code).toBe('INPUT_INVALID');
      expect(err.details).toEqual({ field: 'writer', reason });
    }
  });
});
