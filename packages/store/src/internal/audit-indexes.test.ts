import { describe, expect, it } from 'vitest';
import { StreamChanges } from './audit-indexes.js';

const columns = (c: { keys: Float64Array; values: Float64Array }): [number[], number[]] => [[...c.keys], [...c.values]];

describe('StreamChanges (the audit spill of one stream)', () => {
  it('grows past its initial capacity and yields the seq index in log order, pruned changes included', () => {
    const changes = new StreamChanges();
    for (let rev = 1; rev <= 100; rev++) changes.push(rev * 2, rev, rev <= 10);
    const [seqs, revs] = columns(changes.seqIndex(0));
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => (i + 1) * 2));
    expect(revs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('expects revision-index entries only for unpruned changes above the origin', () => {
    const changes = new StreamChanges();
    changes.push(1, 1, { pruned: true });
    changes.push(2, 2, { pruned: false }); // a shared transition kept whole, but at the origin
    changes.push(3, 3, { pruned: false });
    changes.push(5, 4, { pruned: false });
    expect(columns(changes.revisionIndex(2))).toEqual([
      [3, 4],
      [3, 5],
    ]);
  });

  it('sorts repeated or falling revisions (a corrupt log) by rev, the later transition winning', () => {
    const changes = new StreamChanges();
    changes.push(1, 1, { pruned: false });
    changes.push(2, 3, { pruned: false });
    changes.push(3, 2, { pruned: false });
    changes.push(4, 3, { pruned: false });
    expect(columns(changes.revisionIndex(0))).toEqual([
      [1, 2, 3],
      [1, 3, 4],
    ]);
  });
});
