import { describe, expect, it } from 'vitest';
import { metaWriter, writerFields } from './meta-writer.js';

describe('metaWriter', () => {
  it('names a stamped writer by user, surface and ladder or client', () => {
    expect(metaWriter({ writer: { user: 'local', surface: 'mcp-stdio', client: 'claude-code/1.2.0', request: 'p1-7' } })).toBe('local mcp-stdio claude-code/1.2.0');
    expect(metaWriter({ writer: { user: 'alice', surface: 'ladder', ladder: '@alice/researcher', client: 'node' } })).toBe('alice ladder @alice/researcher');
    expect(metaWriter({ writer: { user: 'ci' } })).toBe('ci');
  });

  it('falls back to the conventional string keys, in order, and is undefined without one', () => {
    expect(metaWriter({ writer: 'bot-7', user: 'bob' })).toBe('bot-7');
    expect(metaWriter({ user: '', agent: 'planner', author: 'x' })).toBe('planner');
    expect(metaWriter({ writer: {}, author: 'x' })).toBe('x');
    expect(metaWriter({ tool: 'patch_state' })).toBeUndefined();
    expect(metaWriter(undefined)).toBeUndefined();
  });

  it('writerFields keeps the string fields of a stamped writer only', () => {
    expect(writerFields({ writer: { user: 'u', surface: 's', n: 1 } })).toEqual({ user: 'u', surface: 's' });
    expect(writerFields({ writer: 'text' })).toBeNull();
  });
});
