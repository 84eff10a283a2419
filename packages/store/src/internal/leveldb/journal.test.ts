/**
 * The journal's file format (`journal.ts`): frames read back as written, numbered; a torn or
 * zeroed tail is dropped; any other bytes that do not verify are damage — refused, or read up to
 * the damage for a copy being recovered — and nothing is ever searched for.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureOf } from '@stateflow/test-kit';
import type { StorageOp } from '../../storage.js';
import { JOURNAL_FILE, Journal, encodeFrame, readFrames, readJournal } from './journal.js';
import type { JournalFrame } from './journal.js';

const put = (key: string, value: string): StorageOp => ({ type: 'put', key: Buffer.from(key), value: Buffer.from(value) });
const del = (key: string): StorageOp => ({ type: 'del', key: Buffer.from(key) });
const commits: JournalFrame[] = [
  { number: 7, ops: [put('L1', 'one'), put('H/a', 'x')] },
  { number: 8, ops: [del('H/a'), put('L2', '')] },
  { number: 9, ops: [put('L3', 'z'.repeat(5000))] },
];
const bytesOf = (frames: JournalFrame[]): Buffer => Buffer.concat(frames.map(encodeFrame));

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

  it('a whole frame that does not verify is damage at its offset (even the last one); the frames after it are read as evidence', () => {
    const whole = Buffer.from(bytesOf(commits));
    const second = encodeFrame(commits[0] as JournalFrame).byteLength;
    whole[second + 20] = (whole[second + 20] as number) ^ 0x40;
    expect(readFrames(whole)).toEqual({ frames: commits.slice(0, 1), end: second, damageAt: second, beyond: commits.slice(2) });
    const last = Buffer.from(bytesOf(commits));
    last[last.byteLength - 1] = (last[last.byteLength - 1] as number) ^ 0x01;
    expect(readFrames(last).damageAt).toBe(bytesOf(commits.slice(0, 2)).byteLength);
  });

  it('bytes after the frames that are neither zeros nor a torn frame are damage; numbers must rise (they may skip: synced commits take numbers without frames)', () => {
    const whole = bytesOf(commits);
    expect(readFrames(Buffer.concat([whole, Buffer.from('garbage, not a frame')])).damageAt).toBe(whole.byteLength);
    const skipping = [commits[0], commits[2]] as JournalFrame[];
    expect(readFrames(bytesOf(skipping))).toEqual({ frames: skipping, end: bytesOf(skipping).byteLength, damageAt: null, beyond: [] });
    const backwards = bytesOf([commits[1] as JournalFrame, commits[0] as JournalFrame]);
    expect(readFrames(backwards).damageAt).toBe(encodeFrame(commits[1] as JournalFrame).byteLength);
  });

  it('never searches: a frame-like run of bytes inside a torn frame is part of the tail', () => {
    const inner = encodeFrame({ number: 10, ops: [put('Lx', 'forged')] });
    const carrier = encodeFrame({ number: 10, ops: [put('L4', `${'a'.repeat(40)}${inner.toString('latin1')}${'b'.repeat(40)}`)] });
    const torn = Buffer.concat([bytesOf(commits), carrier.subarray(0, carrier.byteLength - 20)]);
    expect(readFrames(torn)).toEqual({ frames: commits, end: bytesOf(commits).byteLength, damageAt: null, beyond: [] });
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
    const journal = Journal.open(dir, 0, 7);
    expect(commits.map(({ ops }) => journal.append(ops))).toEqual([7, 8, 9]);
    journal.close();
    const torn = encodeFrame({ number: 10, ops: [put('L4', 'cut short')] }).subarray(0, 30);
    await writeFile(path.join(dir, JOURNAL_FILE), Buffer.concat([await readFile(path.join(dir, JOURNAL_FILE)), torn]));
    const read = readJournal(dir);
    expect(read.frames).toEqual(commits);
    expect(read.bytes).toBe(read.end + 30);
    const again = Journal.open(dir, read.bytes, 10);
    again.empty();
    again.close();
    expect((await stat(path.join(dir, JOURNAL_FILE))).size).toBe(0);
  });

  it('refuses damage before the tail with STORE_CORRUPT naming the file and offset; a copy being recovered reads up to it', async () => {
    const whole = Buffer.from(bytesOf(commits));
    const second = encodeFrame(commits[0] as JournalFrame).byteLength;
    whole[second + 17] = (whole[second + 17] as number) ^ 0x01;
    await writeFile(path.join(dir, JOURNAL_FILE), whole);
    expect(await failureOf(async () => readJournal(dir))).toEqual({ code: 'STORE_CORRUPT', details: { file: JOURNAL_FILE, offset: second, detail: 'a journal frame does not verify' } });
    expect(readJournal(dir, { tolerateDamage: true }).frames).toEqual(commits.slice(0, 1));
  });
});
