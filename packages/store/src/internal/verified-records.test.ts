import { describe, expect, it } from 'vitest';
import { VerifiedRecords } from './verified-records.js';

describe('VerifiedRecords', () => {
  it('skips re-verification only for byte-identical records under the same key', () => {
    const memo = new VerifiedRecords();
    const calls: boolean[] = [];
    const decode = ({ verifyHash }: { verifyHash: boolean }): number => (calls.push(verifyHash), 1);
    const key = Buffer.from('C/global/64');
    memo.decode(key, Buffer.from([1, 2, 3]), decode);
    memo.decode(key, Buffer.from([1, 2, 3]), decode);
    memo.decode(key, Buffer.from([1, 2, 4]), decode); // changed bytes: verified again
    memo.decode(Buffer.from('C/global/128'), Buffer.from([1, 2, 4]), decode); // other key
    expect(calls).toEqual([true, false, true, true]);
  });

  it('remembers nothing when verification throws', () => {
    const memo = new VerifiedRecords();
    const key = Buffer.from('L/1');
    expect(() => memo.decode(key, Buffer.from([9]), () => { throw new Error('corrupt'); })).toThrow('corrupt');
    const calls: boolean[] = [];
    memo.decode(key, Buffer.from([9]), ({ verifyHash }) => calls.push(verifyHash));
    expect(calls).toEqual([true]);
  });
});
