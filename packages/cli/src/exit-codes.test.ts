import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_FACTS, ErrorCode } from '@stateflow/core';
import { ExitCode, exitCodeFor } from './exit-codes.js';

describe('exit code table', () => {
  it('maps the classes the CLI promises: usage 2, not found 3, conflict 4, corrupt 5, other 1', () => {
    expect(exitCodeFor('USAGE')).toBe(2);
    expect(exitCodeFor('PATH_SYNTAX')).toBe(2);
    expect(exitCodeFor('PATCH_INVALID')).toBe(2);
    expect(exitCodeFor('NOT_FOUND')).toBe(3);
    expect(exitCodeFor('PATH_NOT_FOUND')).toBe(3);
    expect(exitCodeFor('HISTORY_NOT_RETAINED')).toBe(3);
    expect(exitCodeFor('CONFLICT')).toBe(4);
    expect(exitCodeFor('STORE_LOCKED')).toBe(4);
    expect(exitCodeFor('MERGE_CONFLICT')).toBe(4);
    expect(exitCodeFor('MERGE_UNRELATED')).toBe(2);
    expect(exitCodeFor('STORE_CORRUPT')).toBe(5);
    expect(exitCodeFor('INTERNAL')).toBe(1);
  });

  it('gives every declared error code its own entry of the table, never a fallback', () => {
    const allowed = new Set<number>(Object.values(ExitCode).filter((code) => code !== 0));
    for (const code of Object.values(ErrorCode)) {
      expect(Object.hasOwn(ERROR_FACTS, code), code).toBe(true);
      expect(allowed.has(exitCodeFor(code)), code).toBe(true);
    }
    expect(exitCodeFor('FORBIDDEN')).toBe(1);
    expect(exitCodeFor('BODY_TOO_LARGE')).toBe(2);
    expect(exitCodeFor('MEDIA_TYPE_UNSUPPORTED')).toBe(2);
  });

  it("lists in the README's table, row by row, exactly the codes of each exit code", async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const table = /\| exit \| class \| error codes \|\n\| --- \| --- \| --- \|\n((?:\|.*\n)+)/.exec(readme)?.[1] ?? '';
    const rows = table.trim().split('\n').map((row) => {
      const [, exit = '', codes = ''] = /^\| (\d) \| [^|]+ \| (.*) \|$/.exec(row) ?? [];
      return [Number(exit), [...codes.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]).sort()] as const;
    });
    const byExit = new Map<number, string[]>([[0, []]]);
    for (const code of Object.values(ErrorCode)) byExit.set(exitCodeFor(code), [...(byExit.get(exitCodeFor(code)) ?? []), code]);
    expect(new Map(rows)).toEqual(new Map([...byExit].map(([exit, codes]) => [exit, codes.sort()])));
  });
});
