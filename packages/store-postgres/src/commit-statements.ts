/**
 * The SQL of a commit, as one simple-protocol query (README "How it works"): a commit is one
 * round trip to PostgreSQL whatever it holds. The simple protocol runs several statements in one
 * message — in the open transaction of a write session, or as one implicit transaction — but
 * takes no parameters, so keys and values are inlined as hex (`decode('…', 'hex')`, which reads
 * the same whatever `standard_conforming_strings` says); the schema and channel are checked
 * identifiers. The batch's deletions and puts (an upsert) are one statement, a later op on a
 * key winning, with the notification of the store's channel (delivered only once the
 * transaction commits).
 */
import type { StorageOp } from '@stateflow/store';

/** `decode('<hex>', 'hex')`: bytes as a SQL expression. */
const bytes = (value: Uint8Array): string => `decode('${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}','hex')`;

/** The last op on each key, split into deletions and puts (each key in one list only). */
function lastOps(ops: StorageOp[]): { puts: { key: Uint8Array; value: Uint8Array }[]; dels: Uint8Array[] } {
  const last = new Map<string, StorageOp>();
  for (const op of ops) last.set(Buffer.from(op.key.buffer, op.key.byteOffset, op.key.byteLength).toString('hex'), op);
  const puts: { key: Uint8Array; value: Uint8Array }[] = [];
  const dels: Uint8Array[] = [];
  for (const op of last.values()) {
    if (op.type === 'put') puts.push({ key: op.key, value: op.value });
    else dels.push(op.key);
  }
  return { puts, dels };
}

/**
 * One statement writing `ops` to `kv` and notifying `channel`, each part only when `guard` (a
 * SQL condition, `'true'` for none) holds; its one row says whether it wrote (`committed`).
 * `cas` is an optional CTE named `cas` the guard may read.
 */
function writeStatement(kv: string, ops: StorageOp[], channel: string, guard: { cte: string | null; condition: string }): string {
  const { puts, dels } = lastOps(ops);
  const ctes: string[] = [];
  if (guard.cte !== null) ctes.push(`cas AS (${guard.cte})`);
  if (dels.length > 0) ctes.push(`deleted AS (DELETE FROM ${kv} WHERE k IN (${dels.map(bytes).join(',')}) AND ${guard.condition})`);
  if (puts.length > 0) {
    const rows = puts.map(({ key, value }) => `(${bytes(key)},${bytes(value)})`).join(',');
    ctes.push(`written AS (INSERT INTO ${kv} (k, v) SELECT k, v FROM (VALUES ${rows}) AS p(k, v) WHERE ${guard.condition} ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v)`);
  }
  const notify = `pg_notify('${channel}', '')`;
  return `${ctes.length === 0 ? '' : `WITH ${ctes.join(', ')} `}SELECT ${guard.condition} AS committed, CASE WHEN ${guard.condition} THEN ${notify} END AS notified`;
}

/** `SET LOCAL synchronous_commit = off;` for a commit that need not wait for the WAL flush. */
const durability = (sync: boolean): string => (sync ? '' : 'SET LOCAL synchronous_commit = off; ');

/** The end of a write session's transaction: write `ops`, notify, `COMMIT` (the session already holds the lock). */
export function sessionCommitSql(kv: string, ops: StorageOp[], channel: string, options: { sync: boolean }): string {
  return `${durability(options.sync)}${writeStatement(kv, ops, channel, { cte: null, condition: 'true' })}; COMMIT`;
}

/**
 * A whole compare-and-set commit as one implicit transaction: take the store's lock (`lock`,
 * a `SELECT pg_advisory_xact_lock(…)`), and write `ops` only when the value at `expect.key`
 * is exactly `expect.value` (absent: no row), else nothing. The last statement's row says
 * which (`committed`).
 */
export function casCommitSql(kv: string, lock: string, expect: { key: Uint8Array; value: Uint8Array | undefined }, ops: StorageOp[], channel: string, options: { sync: boolean }): string {
  const expected = expect.value === undefined ? 'NULL' : bytes(expect.value);
  const cte = `SELECT 1 WHERE (SELECT v FROM ${kv} WHERE k = ${bytes(expect.key)}) IS NOT DISTINCT FROM ${expected}`;
  return `${lock}; ${durability(options.sync)}${writeStatement(kv, ops, channel, { cte, condition: 'EXISTS (SELECT 1 FROM cas)' })}`;
}
