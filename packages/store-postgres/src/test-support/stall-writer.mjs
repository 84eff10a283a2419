/**
 * Child process of the stalled-holder test: opens the PostgreSQL store at argv[2] with
 * `idleInTransactionTimeoutMs` argv[3] and, until killed, alternates a publish of a ~200 KB
 * patch to stream `big` with a revert of it to revision 1 — a write session that holds the
 * store's lock while it stages — printing one line per outcome: `ok <seq>` | `error <code>`.
 * The test stops it (SIGSTOP) while it holds the lock.
 */
import { openPostgresStore } from '@stateflow/store-postgres';

const [url, idleArg] = process.argv.slice(2);
const store = await openPostgresStore(url, { idleInTransactionTimeoutMs: Number(idleArg), maxConnections: 2 });
const blob = (i) => ({ blob: { i, text: `${i}`.padEnd(200_000, 'x') } });
if ((await store.head('big')).rev === 0) await store.publish({ changes: { big: { start: true } } });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  try {
    const r = i % 2 === 0 ? await store.publish({ changes: { big: blob(i) } }) : await store.revert('big', 1);
    process.stdout.write(`ok ${r.transition?.seq ?? 0}\n`);
  } catch (err) {
    process.stdout.write(`error ${err.code ?? err.message}\n`);
  }
}
