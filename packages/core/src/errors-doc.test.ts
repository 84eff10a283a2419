import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from './errors.js';

const errorsMd = readFileSync(fileURLToPath(new URL('../errors.md', import.meta.url)), 'utf8');

/** Rows of the errors.md table: cells split on unescaped `|`. */
const rows = errorsMd
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );

describe('errors.md', () => {
  it('has the columns code, meaning, details, retryable', () => {
    expect(errorsMd).toContain('| code | meaning | details | retryable |');
  });

  it('lists exactly the codes of ErrorCode, each once', () => {
    const documented = rows.map((cells) => (cells[0] ?? '').replace(/`/g, ''));
    expect([...documented].sort()).toEqual(Object.keys(ErrorCode).sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('gives every code a meaning, details and a retryable yes/no', () => {
    for (const cells of rows) {
      expect(cells, cells[0]).toHaveLength(4);
      const [code, meaning, details, retryable] = cells;
      expect(meaning, code).toMatch(/\S{3}/);
      expect(details, code).toMatch(/\S/);
      expect(['yes', 'no'], code).toContain(retryable);
    }
  });
});
