/**
 * Real data (../shared/data/histories, see its README): every line's `doc` is written at key
 * `doc` of one stream, as the core `diff` from the previous document; documents equal to the
 * previous one (key order ignored) must produce no transition. Every revision is read back with
 * `stateAt` and compared ignoring key order, and `patchAt(rev)` applied to rev−1 must give rev.
 * Runs on the memory backend with the default checkpoint interval (64) (on LevelDB the same
 * engine runs over the same storage seam, which `test/conformance/` checks there).
 */
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyPatch, diff, jsonEqual } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { openMemoryStore } from './open-store.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dataDir = path.resolve(repoRoot, '../shared/data/histories');
const present = existsSync(dataDir);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`real-data histories are missing at ${dataDir} (required in CI)`);
  console.warn(`skipping real-data history tests: ${dataDir} is missing`);
}
const files = present ? readdirSync(dataDir).filter((f) => f.endsWith('.jsonl')).sort() : [];
if (present && files.length === 0 && process.env.CI === 'true') throw new Error(`no *.jsonl histories in ${dataDir}`);

async function* lines(file: string): AsyncGenerator<{ rev: number; doc: JsonObject }> {
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of rl) if (line.trim() !== '') yield JSON.parse(line) as { rev: number; doc: JsonObject };
}

(present ? describe : describe.skip)('real document histories', () => {
  for (const file of files) {
    it(`replays ${file} and reads every revision back`, async () => {
      const store = await openMemoryStore();
      const stream = `history:${path.basename(file, '.jsonl')}`;
      try {
        const docs: JsonObject[] = [];
        const skipped: number[] = [];
        let state: JsonObject = {};
        for await (const { rev, doc } of lines(path.join(dataDir, file))) {
          const next = { doc };
          const patch = diff(state, next);
          if (Object.keys(patch).length === 0) {
            skipped.push(rev);
            continue;
          }
          const r = await store.publish({ changes: { [stream]: patch } });
          expect(r.status).toBe('accepted');
          state = await store.state(stream);
          docs.push(doc);
          expect(r.transition?.changes[0]?.rev).toBe(docs.length);
        }
        // The README lists the documents equal to their predecessor.
        const expected: Record<string, number[]> = {
          'eslint-package-json.jsonl': [23, 30, 319, 323, 856],
          'matrix-react-sdk-en_EN-json.jsonl': [12, 49, 67],
        };
        if (expected[file] !== undefined) expect(skipped).toEqual(expected[file]);
        const head = await store.head(stream);
        expect(head.rev).toBe(docs.length);
        let previous: JsonObject = {};
        for (let rev = 1; rev <= head.rev; rev++) {
          const at = await store.stateAt(stream, rev);
          expect(jsonEqual(at, { doc: docs[rev - 1] as JsonObject })).toBe(true);
          expect(jsonEqual(applyPatch(previous, await store.patchAt(stream, rev)), at)).toBe(true);
          previous = at;
        }
        expect((await store.audit()).problems).toEqual([]);
      } finally {
        await store.close();
      }
    }, 600_000);
  }
});
