/**
 * Real input end to end: each shared history is imported through the CLI into a
 * LevelDB store on disk; for 50 random revisions `read 'cwd[R].lazy.history'` equals the
 * recorded document, `--projection patch` applied to revision R−1 gives R, the audit is clean,
 * and export → replay into a new directory gives identical hashes and states.
 *
 * The histories live outside the repository (`../shared/data/histories`): absent, the suite is
 * skipped with a visible warning; absent with CI=true, it fails.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, jsonEqual, type JsonObject, type JsonValue } from '@stateflow/core';
import { expectOk, HISTORIES, historiesAvailable, json, loadExpected, removeDir, stateflow, tempDir, type Expected } from './helpers.js';
import { seededRandom, testSeed } from '@stateflow/test-kit';

const FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];
const SAMPLES = 50;
const PROJECT = '/proj';
const STREAM = `cwd:${PROJECT}`;
const AT = 'lazy.history';

/** A seeded choice of `count` distinct revisions in 1..max, sorted. */
function sampleRevisions(max: number, count: number, seed: number): number[] {
  const random = seededRandom(seed);
  const chosen = new Set<number>([1, max]);
  while (chosen.size < Math.min(count, max)) chosen.add(1 + Math.floor(random() * max));
  return [...chosen].sort((a, b) => a - b);
}

const available = historiesAvailable(FILES);
// Which revisions are sampled: STATEFLOW_FC_SEED replays a run's sample.
const seed = testSeed();

(available ? describe : describe.skip).each(FILES)('real history %s through the CLI', (name) => {
  const file = path.join(HISTORIES, name);
  let root: string;
  let dir: string;
  let expected: Expected;
  let revisions: number[];

  const sf = (args: string[], storeDir = dir) => stateflow(['--dir', storeDir, '--cwd', PROJECT, ...args]);

  beforeAll(async () => {
    root = await tempDir();
    dir = path.join(root, 'store');
    expected = await loadExpected(file);
    revisions = sampleRevisions(expected.docs.length, SAMPLES, seed);
  });

  afterAll(async () => {
    await removeDir(root);
  });

  it('imports one revision per distinct document and reports the equal ones as skipped', async () => {
    const report = json(expectOk(await sf(['--json', 'import', file, '--stream', STREAM, '--at', AT]))) as {
      from: number;
      to: number;
      imported: number;
      skipped: { source: string; reason: string }[];
    };
    expect(report).toMatchObject({ stream: STREAM, at: AT, from: 1, to: expected.docs.length, imported: expected.docs.length });
    expect(report.skipped.map((s) => s.source)).toEqual(expected.skippedRevs.map((rev) => `line ${rev} (rev ${rev})`));
    expect(report.skipped.every((s) => s.reason === 'equal to the previous document')).toBe(true);
  });

  it(`reads ${SAMPLES} random revisions back exactly (one batch and single reads)`, async () => {
    const paths = revisions.map((rev) => `cwd[${rev}].${AT}`);
    const batch = json(expectOk(await sf(['--json', 'read', ...paths]))) as { value: JsonValue[] };
    expect(batch.value).toHaveLength(revisions.length);
    revisions.forEach((rev, i) => {
      expect(jsonEqual(batch.value[i] as JsonValue, expected.docs[rev - 1] as JsonObject), `revision ${rev}`).toBe(true);
    });
    for (const rev of revisions.slice(0, 3)) {
      const single = json(expectOk(await sf(['--json', 'read', `cwd[${rev}].${AT}`]))) as { value: JsonValue };
      expect(jsonEqual(single.value, expected.docs[rev - 1] as JsonObject)).toBe(true);
    }
  });

  it('--projection patch applied to revision R-1 gives revision R', async () => {
    const later = revisions.filter((rev) => rev > 1);
    const batch = json(expectOk(await sf(['--json', 'read', '--projection', 'patch', ...later.map((rev) => `cwd[${rev}].${AT}`)]))) as {
      patch: JsonObject[];
    };
    later.forEach((rev, i) => {
      const before = expected.docs[rev - 2] as JsonObject;
      const patch = batch.patch[i] as JsonObject;
      expect(jsonEqual(applyPatch(before, patch), expected.docs[rev - 1] as JsonObject), `revision ${rev}`).toBe(true);
    });
    const first = json(expectOk(await sf(['--json', 'read', '--projection', 'patch', `cwd[1].${AT}`]))) as { patch: JsonValue };
    expect(jsonEqual(first.patch, expected.docs[0] as JsonObject)).toBe(true);
  });

  it('audits clean', async () => {
    const report = json(expectOk(await sf(['--json', 'audit']))) as { transitions: number; problems: unknown[] };
    expect(report.transitions).toBe(expected.docs.length);
    expect(report.problems).toEqual([]);
  });

  it('export then replay into a new directory gives identical hashes and states', async () => {
    const exportFile = path.join(root, 'export.jsonl');
    expectOk(await stateflow(['--dir', dir, 'export'], { stdoutFile: exportFile }));
    const copy = path.join(root, 'copy');
    const replayed = json(expectOk(await stateflow(['--dir', copy, '--json', 'replay', exportFile]))) as JsonObject;
    expect(replayed).toMatchObject({ transitions: expected.docs.length, lastSeq: expected.docs.length, problems: 0 });
    const copyExport = path.join(root, 'copy-export.jsonl');
    expectOk(await stateflow(['--dir', copy, 'export'], { stdoutFile: copyExport }));
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(copyExport, 'utf8')).toBe(await readFile(exportFile, 'utf8'));
    const paths = revisions.slice(0, 10).map((rev) => `cwd[${rev}].${AT}`);
    expect(expectOk(await sf(['--json', 'read', ...paths], copy)).stdout).toBe(expectOk(await sf(['--json', 'read', ...paths])).stdout);
  });
});
