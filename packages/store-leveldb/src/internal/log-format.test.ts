/**
 * `scanLog` on real write-ahead logs written by LevelDB (classic-level), damaged by hand: what
 * a crash can leave (a record cut short, a fragmented record missing its end, zeros) has no
 * record that verifies after the damage (`verifiedAfter: null`, the torn tail's shape); damage
 * followed by data names the first record that verifies after it, at any byte offset.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_SIZE, HEADER_SIZE, scanLog } from './log-format.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

let dir: string;
let log: Buffer;
/** Offsets of the three records: small, 100 KB (four fragments across blocks), small. */
let offsets: number[];

beforeAll(async () => {
  dir = await tempDir('logformat');
  const db = new ClassicLevel<string, string>(dir);
  await db.open();
  await db.put('a', 'first');
  await db.put('b', 'x'.repeat(100_000));
  await db.put('c', 'last');
  const name = (await readdir(dir)).find((f) => f.endsWith('.log')) as string;
  log = await readFile(path.join(dir, name));
  await db.close();
  offsets = scanLog(log).records.map((r) => r.offset);
});

afterAll(async () => {
  await removeDir(dir);
});

const flip = (bytes: Uint8Array, at: number): Buffer => {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] as number) ^ 0x20;
  return copy;
};

describe('scanLog', () => {
  it('reads every record of an intact log, the fragmented one whole', () => {
    const scan = scanLog(log);
    expect(scan.damage).toBeNull();
    expect(scan.records).toHaveLength(3);
    expect(scan.intactBytes).toBe(log.length);
    expect(log.length).toBeGreaterThan(3 * BLOCK_SIZE);
    // A WriteBatch of one put: 12-byte header, tag, key, value of 100,000 bytes.
    expect(scan.records[1]?.data.length).toBeGreaterThan(100_000);
  });

  it('treats a record cut short by the end of the file as a torn tail', () => {
    const scan = scanLog(log.subarray(0, (offsets[2] as number) + HEADER_SIZE + 1));
    expect(scan.damage).toMatchObject({ offset: offsets[2], reason: 'truncated record at end of file', verifiedAfter: null });
    expect(scan.records).toHaveLength(2);
    expect(scan.intactBytes).toBe(offsets[2]);
  });

  it('treats a fragmented record missing its last fragments as a torn tail', () => {
    const scan = scanLog(log.subarray(0, 2 * BLOCK_SIZE));
    expect(scan.damage).toMatchObject({ offset: offsets[1], reason: 'partial record without end at end of file', verifiedAfter: null });
    expect(scan.records).toHaveLength(1);
  });

  it('treats zeros after the last record as a torn tail', () => {
    const scan = scanLog(Buffer.concat([log, Buffer.alloc(500)]));
    expect(scan.damage).toMatchObject({ offset: log.length, reason: 'zero-filled record', verifiedAfter: null });
    expect(scan.records).toHaveLength(3);
  });

  it('treats damage in a fragment with fragments after it as damage, not a tail', () => {
    const scan = scanLog(flip(log, (offsets[1] as number) + 100));
    expect(scan.damage).toMatchObject({ offset: offsets[1], reason: 'checksum mismatch', verifiedAfter: BLOCK_SIZE });
    expect(scan.records).toHaveLength(1);
    // The damaged record's later fragments are skipped; the record after it is read whole.
    expect(scan.later.map((r) => r.offset)).toEqual([offsets[2]]);
  });

  it('treats a damaged record followed by a torn one as damage, not a tail', () => {
    const torn = log.subarray(0, (offsets[2] as number) + HEADER_SIZE + 2);
    const scan = scanLog(flip(torn, BLOCK_SIZE + 50));
    expect(scan.damage).toMatchObject({ reason: 'checksum mismatch', verifiedAfter: 2 * BLOCK_SIZE });
  });

  it('treats a length that runs past the end of the file, with records that verify after it, as damage', () => {
    // The first record's length made to run past EOF: the header no longer verifies, and the
    // records after it still do — a crash cannot leave that (it tears only what is appended).
    const bytes = Buffer.from(log.subarray(0, (offsets[2] as number) + 20));
    const copy = Buffer.from(log);
    copy.writeUInt16LE(0xfff0, (offsets[0] as number) + 4);
    const scan = scanLog(copy);
    expect(scan.damage).toMatchObject({ offset: offsets[0], reason: 'bad record length', verifiedAfter: offsets[1] });
    expect(scan.later.map((r) => r.offset)).toEqual([offsets[1], offsets[2]]);
    expect(scanLog(bytes).damage).toMatchObject({ offset: offsets[2], verifiedAfter: null });
  });

  it('names a damaged length, and finds the records after it at any offset, not only at block starts', () => {
    const damaged = flip(log, (offsets[0] as number) + 5);
    const scan = scanLog(damaged);
    expect(scan.damage).toMatchObject({ offset: 0, verifiedAfter: offsets[1] });
    expect(scan.records).toHaveLength(0);
    expect(scan.intactBytes).toBe(0);
    // LevelDB's own recovery resynchronises at the next block and would keep only the last one.
    expect(scan.later.map((r) => r.offset)).toEqual([offsets[1], offsets[2]]);
  });

  it('finds a record that verifies after a zeroed page (pages written out of order by a power loss)', () => {
    const copy = Buffer.from(log);
    copy.fill(0, (offsets[1] as number) + 10, (offsets[1] as number) + 4_096);
    const scan = scanLog(copy);
    expect(scan.damage).toMatchObject({ offset: offsets[1], verifiedAfter: BLOCK_SIZE });
    expect(scan.later.map((r) => r.offset)).toEqual([offsets[2]]);
  });
});
