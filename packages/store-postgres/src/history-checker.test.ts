/**
 * The history checker of `history-check.test.ts` (`test-support/history.ts`) on small histories
 * written by hand: a clean one passes, and each kind of violation it exists to find is found.
 */
import { describe, expect, it } from 'vitest';
import { checkHistory, parseHistory } from './test-support/history.js';
import type { Attempt, HeadRead, LogEntry } from './test-support/history.js';

/** A clean history: a writes rev 1, b conflicts (saw rev 1), c retries an unknown that landed. */
function clean(): { attempts: Attempt[]; reads: HeadRead[]; log: LogEntry[] } {
  const attempts: Attempt[] = [
    { op: 'a#0', id: 'a', stream: 's', expected: 'none', invoked: 10, completed: 20, outcome: 'ok', status: 'accepted', seq: 1, hash: 'h1', resultId: 'a' },
    { op: 'b#0', id: 'b', stream: 's', expected: 'none', invoked: 15, completed: 30, outcome: 'fail', code: 'CONFLICT', actual: 1 },
    { op: 'c#0', id: 'c', stream: 's', expected: 1, invoked: 25, completed: Infinity, outcome: 'unknown', code: 'STORE_UNAVAILABLE' },
    { op: 'c#1', id: 'c', stream: 's', expected: 1, invoked: 45, completed: 50, outcome: 'ok', status: 'duplicate', seq: 2, hash: 'h2', resultId: 'c' },
  ];
  const reads: HeadRead[] = [{ op: 'b.head', stream: 's', rev: 0, invoked: 5, completed: 12 }];
  const log: LogEntry[] = [
    { seq: 1, hash: 'h1', id: 'a', op: 'a#0', changes: [{ stream: 's', rev: 1 }] },
    { seq: 2, hash: 'h2', id: 'c', op: 'c#0', changes: [{ stream: 's', rev: 2 }] },
  ];
  return { attempts, reads, log };
}

const check = (edit: (h: ReturnType<typeof clean>) => void): string[] => {
  const h = clean();
  edit(h);
  return checkHistory(h, h.log);
};

describe('the history checker', () => {
  it('passes a history that agrees with its log', () => {
    expect(check(() => undefined)).toEqual([]);
  });

  it('reads the writer processes\' lines, an attempt without an outcome being unknown', () => {
    const out = ['{"e":"invoke","op":"x#0","t":1,"stream":"s","id":"x","expected":"none"}', '{"e":"ok","op":"x#0","t":2,"status":"accepted","seq":1,"hash":"h","rev":1,"id":"x"}', '{"e":"invoke","op":"y#0","t":3,"stream":"s","id":"y","expected":1}', '{"e":"read","op":"y.head","t0":2,"t":3,"stream":"s","rev":1}', '{"e":"unkn'].join('\n');
    const { attempts, reads } = parseHistory(out);
    expect(attempts.map((a) => [a.op, a.outcome, a.completed])).toEqual([['x#0', 'ok', 2], ['y#0', 'unknown', Infinity]]);
    // An unknown outcome may take effect after the writer gave up: its attempt never ends.
    expect(parseHistory(`${out.slice(0, out.lastIndexOf('\n'))}\n{"e":"unknown","op":"y#0","t":9,"code":"STORE_UNAVAILABLE"}\n`).attempts[1]?.completed).toBe(Infinity);
    expect(reads).toEqual([{ op: 'y.head', stream: 's', rev: 1, invoked: 2, completed: 3 }]);
  });

  it('finds an acknowledged transition missing, or with another hash', () => {
    expect(check((h) => h.log.splice(1, 1))).toEqual(expect.arrayContaining([expect.stringContaining('c#1: duplicate seq 2')]));
    expect(check((h) => Object.assign(h.log[0] as LogEntry, { hash: 'other' }))).toEqual([expect.stringContaining('a#0: accepted seq 1')]);
  });

  it('finds a refused attempt in the log, an id applied twice, and a transition nobody made', () => {
    expect(check((h) => h.log.push({ seq: 3, hash: 'h3', id: 'b', op: 'b#0', changes: [{ stream: 's', rev: 3 }] }))).toEqual(expect.arrayContaining([expect.stringContaining('b#0 was refused (CONFLICT)')]));
    expect(check((h) => h.log.push({ seq: 3, hash: 'h3', id: 'a', op: 'c#1', changes: [{ stream: 't', rev: 1 }] }))).toEqual(expect.arrayContaining([expect.stringContaining('id a applied 2 times')]));
    expect(check((h) => h.log.push({ seq: 3, hash: 'h3', op: 'z#0', changes: [{ stream: 't', rev: 1 }] }))).toEqual([expect.stringContaining('made by no attempt')]);
  });

  it('finds a duplicate answered with another request\'s transition', () => {
    expect(check((h) => Object.assign(h.attempts[3] as Attempt, { seq: 1, hash: 'h1', resultId: 'a' }))).toEqual([expect.stringContaining('duplicate of id c answered with seq 1')]);
  });

  it('finds a retry of a landed id that answered CONFLICT', () => {
    // a#0 was acknowledged (ended at 20) before its retry began.
    expect(check((h) => h.attempts.push({ op: 'a#1', id: 'a', stream: 's', expected: 'none', invoked: 60, completed: 61, outcome: 'fail', code: 'CONFLICT', actual: 2 }))).toEqual([expect.stringContaining('a#1: id a had landed at seq 1 (a#0) before this attempt, which answered CONFLICT instead of duplicate')]);
    // An unknown outcome may land after its writer gave up: a retry then may still meet CONFLICT.
    expect(check((h) => h.attempts.push({ op: 'c#2', id: 'c', stream: 's', expected: 1, invoked: 60, completed: 61, outcome: 'fail', code: 'CONFLICT', actual: 2 }))).toEqual([]);
  });

  it('finds the compare-and-set broken: a revision that was not expected + 1, a commit order against real time, a gap', () => {
    expect(check((h) => Object.assign(h.attempts[2] as Attempt, { expected: 0 }))).toEqual([expect.stringContaining('s@2 made by c#0, which expected revision 0')]);
    // d#0, committed third, ended before c#0 (and a#0), committed earlier, began.
    expect(
      check((h) => {
        h.attempts.push({ op: 'd#0', id: 'd', stream: 't', expected: 'none', invoked: 5, completed: 8, outcome: 'ok', status: 'accepted', seq: 3, hash: 'h3', resultId: 'd' });
        h.log.push({ seq: 3, hash: 'h3', id: 'd', op: 'd#0', changes: [{ stream: 't', rev: 1 }] });
      }),
    ).toEqual([expect.stringContaining('seq 3 (d#0) ended before c#0')]);
    expect(check((h) => Object.assign(h.log[1] as LogEntry, { changes: [{ stream: 's', rev: 3 }] }))).toEqual(expect.arrayContaining([expect.stringContaining('revisions 1,3')]));
  });

  it('finds reads of a revision the stream never held during the read', () => {
    // rev 0 was replaced by a#0 (ended at 20) before this read began.
    expect(check((h) => h.reads.push({ op: 'late.head', stream: 's', rev: 0, invoked: 35, completed: 36 }))).toEqual([expect.stringContaining('had replaced it before the read began')]);
    // rev 2 was made by c#0, which began after this read ended.
    expect(check((h) => h.reads.push({ op: 'early.head', stream: 's', rev: 2, invoked: 1, completed: 2 }))).toEqual([expect.stringContaining('began after the read ended')]);
    expect(check((h) => Object.assign(h.attempts[1] as Attempt, { actual: 0 }))).toEqual([expect.stringContaining('CONFLICT although the actual revision 0 is the expected one')]);
    expect(check((h) => Object.assign(h.attempts[1] as Attempt, { actual: 7 }))).toEqual([expect.stringContaining('revision 7 of s is not in the log')]);
  });
});
