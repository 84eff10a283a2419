/**
 * Child process of bench/scale.mjs, so each measurement has its own clean peak RSS.
 *   node scale-child.mjs build <dir> <transitions> <streams>
 *   node scale-child.mjs raw-build <dir> <values>
 *   node scale-child.mjs open <dir> <stream>
 *   node scale-child.mjs audit <dir>
 *   node scale-child.mjs raw-iterate <dir>
 *   node scale-child.mjs idle
 * Prints one JSON line with the measurements (ms, peak RSS in MiB).
 */
import { ClassicLevel } from 'classic-level';
import { openStore } from '@stateflow/store-leveldb';
import { peakRssMiB, time } from './lib.mjs';

export const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });
const [command, dir, a, b] = process.argv.slice(2);
let out;

switch (command) {
  case 'build': {
    const store = await openStore(dir);
    const n = Number(a);
    const streams = Number(b);
    const { ms } = await time(async () => {
      for (let i = 1; i <= n; i++) await store.publish({ changes: { [`session:${i % streams}`]: patchFor(i) } });
    });
    await store.close();
    out = { ms, peakRssMiB: peakRssMiB() };
    break;
  }
  case 'raw-build': {
    const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const value = Buffer.alloc(Buffer.byteLength(JSON.stringify(patchFor(123456))), 0x61);
    const n = Number(a);
    const { ms } = await time(async () => {
      for (let i = 1; i <= n; i++) {
        const key = Buffer.alloc(8);
        key.writeBigUInt64BE(BigInt(i));
        await db.put(key, value);
      }
    });
    await db.close();
    out = { ms, peakRssMiB: peakRssMiB() };
    break;
  }
  case 'open': {
    const opened = await time(() => openStore(dir));
    const store = opened.value;
    const first = await time(() => store.state(a));
    await store.close();
    out = { openMs: opened.ms, firstReadMs: first.ms, peakRssMiB: peakRssMiB() };
    break;
  }
  case 'audit': {
    const store = await openStore(dir);
    const { ms, value } = await time(() => store.audit());
    await store.close();
    if (value.problems.length > 0) throw new Error(`audit found problems: ${JSON.stringify(value.problems.slice(0, 3))}`);
    out = { ms, transitions: value.transitions, peakRssMiB: peakRssMiB() };
    break;
  }
  case 'raw-iterate': {
    const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    let entries = 0;
    const { ms } = await time(async () => {
      for await (const [key, value] of db.iterator()) if (key.length + value.length >= 0) entries++;
    });
    await db.close();
    out = { ms, entries, peakRssMiB: peakRssMiB() };
    break;
  }
  case 'idle': {
    const probe = new ClassicLevel(dir, {});
    await probe.open();
    await probe.close();
    out = { peakRssMiB: peakRssMiB() };
    break;
  }
  default:
    throw new Error(`unknown command ${command}`);
}
console.log(JSON.stringify(out));
