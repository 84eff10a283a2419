/**
 * Child process of the corruption trials: the logical content of the LevelDB database in
 * `argv[2]`, read through the raw classic-level API (no Stateflow code), as one JSON line
 * `{ entries: [[keyHex, sha256(value)], …], error? }` in key order.
 *
 * LevelDB stops an iteration at a damaged block, so the dump scans forward until it stops and
 * then backward from the last key until it stops again: `entries` is everything readable on
 * either side of the damage, `error` LevelDB's first complaint (deterministic for the same
 * bytes, so two dumps are comparable). Then it replays the store's access kinds — point gets
 * and seeks — over every key read, since a damaged block can abort LevelDB there when a scan
 * does not.
 *
 * Opening runs LevelDB's own recovery (its .log becomes a table, a new MANIFEST/CURRENT is
 * written): the physical files change, the key/value content does not. A damaged table can
 * abort this process natively, like any LevelDB reader; the parent records that.
 */
import { createHash } from 'node:crypto';
import { ClassicLevel } from 'classic-level';

const db = new ClassicLevel(process.argv[2], { createIfMissing: false, keyEncoding: 'buffer', valueEncoding: 'buffer' });
const found = new Map();
const errors = [];

/** Reads `iterator` into `found` until it ends or LevelDB reports damage. */
async function scan(iterator) {
  try {
    for await (const [key, value] of iterator) {
      const hex = key.toString('hex');
      if (found.has(hex)) break; // the backward scan met the forward one
      found.set(hex, { key, hash: createHash('sha256').update(value).digest('hex') });
    }
  } catch (err) {
    const cause = err.cause === undefined ? '' : ` (${String(err.cause.message).split('\n')[0]})`;
    errors.push(`${err.code ?? err.name}: ${String(err.message).split('\n')[0]}${cause}`);
  }
}

try {
  await db.open();
  await scan(db.iterator());
  if (errors.length > 0) await scan(db.iterator({ reverse: true }));
  const keys = [...found.values()].map((e) => e.key);
  await db.getMany(keys).catch((err) => errors.push(`${err.code ?? err.name}: get`));
  const seeker = db.iterator();
  for (const key of keys) {
    seeker.seek(key);
    await seeker.next().catch(() => undefined);
  }
  await seeker.close();
} catch (err) {
  errors.push(`${err.code ?? err.name}: ${String(err.message).split('\n')[0]}`);
} finally {
  await db.close().catch(() => undefined);
}
const entries = [...found.entries()].map(([hex, e]) => [hex, e.hash]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
console.log(JSON.stringify(errors.length > 0 ? { entries, error: errors[0] } : { entries }));
