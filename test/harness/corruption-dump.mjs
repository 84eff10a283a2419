/**
 * Child process of the corruption trials: the logical content of the LevelDB database in
 * `argv[2]`, read through the raw classic-level API (no Stateflow code), as one JSON line
 * `{ entries: [[keyHex, sha256(value)], …], error? }` in key order. When LevelDB itself refuses
 * to open the damaged files or stops iterating at a damaged block, `error` names its error and
 * `entries` holds what was read before it (deterministic for the same bytes, so comparable).
 *
 * Opening runs LevelDB's own recovery (its .log becomes a table, a new MANIFEST/CURRENT is
 * written): the physical files change, the key/value content does not. A damaged table can
 * abort this process natively, like any LevelDB reader; the parent records that.
 */
import { createHash } from 'node:crypto';
import { ClassicLevel } from 'classic-level';

const db = new ClassicLevel(process.argv[2], { createIfMissing: false, keyEncoding: 'buffer', valueEncoding: 'buffer' });
const entries = [];
try {
  await db.open();
  const keys = [];
  for await (const [key, value] of db.iterator()) {
    keys.push(key);
    entries.push([key.toString('hex'), createHash('sha256').update(value).digest('hex')]);
  }
  // Point reads, seeks and a reverse scan too, as a store does: a damaged block can abort
  // LevelDB on a seek or get where a plain forward scan does not.
  await db.getMany(keys);
  const seeker = db.iterator();
  for (const key of keys) {
    seeker.seek(key);
    await seeker.next();
  }
  await seeker.close();
  for await (const key of db.keys({ reverse: true })) void key;
  console.log(JSON.stringify({ entries }));
} catch (err) {
  const cause = err.cause === undefined ? '' : ` (${String(err.cause.message).split('\n')[0]})`;
  console.log(JSON.stringify({ entries, error: `${err.code ?? err.name}: ${String(err.message).split('\n')[0]}${cause}` }));
} finally {
  await db.close().catch(() => undefined);
}
