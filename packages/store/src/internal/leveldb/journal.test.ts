/**
 * The journal's file format (`journal.ts`): frames read back as written; a torn tail is dropped;
 * damage before the tail is refused, or read up to the damage for a copy being recovered.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureOf } from '@stateflow/test-kit';
import type { StorageOp } from '../../storage.js';
import { JOURNAL_FILE, Journal, encodeFrame, readFrames, readJournal } from './journal.js';

const put = (key: string, value: string): StorageOp => ({ type: 'put', key: Buffer.from(key), value: Buffer.from(value) });
const del = (key: string): StorageOp => ({ type: 'del', key: Buffer.from(key) });
const commits: StorageOp[][] = [[put('L1', 'one'), put('H/a', 'x')], [del('H/a'), put('L2', '')], [put('L3', 'z'.repeat(5000))]];
const bytesOf = (frames: StorageOp[][]): Buffer => Buffer.concat(frames.map(encodeFrame));

describe('journal frames', () => {
  it('read back exactly as written, puts and dels in order', () => {
    const { frames, end, damageAt } = readFrames(bytesOf(commits));
    expect(frames).toEqual(commits);
    expect(end).toBe(bytesOf(commits).byteLength);
    expect(damageAt).toBeNull();
  });

  it('a frame cut anywhere is a torn tail: the frames before it are read, no damage', () => {
    const whole = bytesOf(commits);
    const lastStart = bytesOf(commits.slice(0, 2)).byteLength;
    for (let cut = lastStart; cut < whole.byteLength; cut += 97) {
      expect(readFrames(whole.subarray(0, cut))).toEqual({ frames: commits.slice(0, 2), end: lastStart, damageAt: null, beyond: [] });
    }
    // Garbage or zeros after the last frame are a tail too.
    expect(readFrames(Buffer.concat([whole, Buffer.alloc(300)])).damageAt).toBeNull();
  });

  it('a damaged frame followed by an intact one is damage at its offset; the frames after it are read as evidence', () => {
    const whole = Buffer.from(bytesOf(commits));
    const second = encodeFrame(commits[0] as StorageOp[]).byteLength;
    whole[second + 20] = (whole[second + 20] as number) ^ 0x40;
    expect(readFrames(whole)).toEqual({ frames: commits.slice(0, 1), end: second, damageAt: second, beyond: commits.slice(2) });
  });
});

describe('journal file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'stateflow-journal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends frames, reads them back, and empties to nothing (a torn tail included)', async () => {
    expect(readJournal(dir)).toEqual({ frames: [], end: 0, damageAt: null, beyond: [], bytes: 0 });
    const journal = Journal.open(dir, 0);
    for (const ops of commits) journal.append(ops);
    journal.close();
    await writeFile(path.join(dir, JOURNAL_FILE), Buffer.concat([await readFile(path.join(dir, JOURNAL_FILE)), Buffer.from('torn')]));
    const read = readJournal(dir);
    expect(read.frames).toEqual(commits);
    expect(read.bytes).toBe(read.end + 4);
    const again = Journal.open(dir, read.bytes);
    again.empty();
    again.close();
    expect((await stat(path.join(dir, JOURNAL_FILE))).size).toBe(0);
  });

  it('refuses damage before the tail with STORE_CORRUPT naming the file and offset; a copy being recovered reads up to it', async () => {
    const whole = Buffer.from(bytesOf(commits));
    const second = encodeFrame(commits[0] as StorageOp[]).byteLength;
    whole[second + 17] = (whole[second + 17] as number) ^ 0x01;
    await writeFile(path.join(dir, JOURNAL_FILE), whole);
    expect(await failureOf(async () => readJournal(dir))).toEqual({ code: 'STORE_CORRUPT', details: { file: JOURNAL_FILE, offset: second, detail: 'a journal frame does not verify and intact frames follow it' } });
    expect(readJournal(dir, { tolerateDamage: true }).frames).toEqual(commits.slice(0, 1));
  });
});
