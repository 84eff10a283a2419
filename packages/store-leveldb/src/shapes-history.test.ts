/**
 * Shapes on LevelDB over a real history (store README "Shapes"; ../shared/data/histories, the
 * eslint package.json): every revision written under version 1, then versions 2–4 declared
 * (`PACKAGE_JSON_SHAPES`, three upcast steps). Every revision reads in version 4 and validates,
 * the stored bytes of every revision and the audit are unchanged, and a reopen reads the same.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diff } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { checkShape, setShape, stateAtShape } from '@stateflow/store';
import { PACKAGE_JSON_SHAPES, removeDir, tempDir } from '@stateflow/test-kit';
import { openStore } from './open-store.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.resolve(here, '..', '..', '..', '..', 'shared', 'data', 'histories', 'eslint-package-json.jsonl');
const present = existsSync(file);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`the eslint history is missing at ${file} (required in CI)`);
  console.warn(`skipping the shapes history test: ${file} is missing`);
}
const STREAM = 'cwd:/repo';

(present ? describe : describe.skip)('shapes over the eslint history on LevelDB', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('shapes-history');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('a history written under v1 reads as v4 at every revision; stored bytes and audit unchanged', async () => {
    const docs = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { doc: JsonObject }).doc);
    let store = await openStore(dir);
    const [v1, ...later] = PACKAGE_JSON_SHAPES;
    await setShape(store, 'manifest', { streams: 'cwd:*', ...v1! });
    let prev: JsonObject = {};
    for (const doc of docs) {
      const patch = diff(prev, doc);
      if (Object.keys(patch).length > 0) await store.publish({ changes: { [STREAM]: patch } });
      prev = doc;
    }
    const head = (await store.head(STREAM)).rev;
    expect(head).toBeGreaterThan(1000);
    const stored: JsonObject[] = [];
    for (let rev = 1; rev <= head; rev++) stored.push(await store.stateAt(STREAM, rev));
    const checked = await checkShape(store, 'manifest', { all: true, candidate: { streams: 'cwd:*', ...later[0]! } });
    expect({ revisions: checked.revisions, failures: checked.failures.length }).toEqual({ revisions: head, failures: 0 });
    for (const version of later) {
      const { upgraded } = await setShape(store, 'manifest', { streams: 'cwd:*', ...version });
      expect(upgraded).toEqual([STREAM]);
    }
    store = await reopen(store);
    for (let rev = 1; rev <= head; rev++) {
      const current = await stateAtShape(store, STREAM, rev, 'current');
      const doc = stored[rev - 1] as JsonObject & { name: string; version?: string };
      expect(current.title).toBe(doc.name);
      expect(current.private).toBe(false);
      expect(current).not.toHaveProperty('version');
      expect((current.release as JsonObject | undefined)?.version).toBe(doc.version);
      expect(await store.stateAt(STREAM, rev)).toEqual(doc);
    }
    // The head was upgraded by one transition per version: it is the v4 state now.
    expect(await store.state(STREAM)).toEqual(await stateAtShape(store, STREAM, head, 'current'));
    expect((await store.head(STREAM)).rev).toBe(head + 3);
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });

  async function reopen(store: Awaited<ReturnType<typeof openStore>>): Promise<Awaited<ReturnType<typeof openStore>>> {
    await store.close();
    return openStore(dir);
  }
});
