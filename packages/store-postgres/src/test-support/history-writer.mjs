/**
 * Child process of the history check (`history-check.test.ts`): opens the PostgreSQL store at
 * argv[2] (through the test's connection-dropping proxy) and runs argv[4] workers, each doing
 * argv[3] publishes: read a stream's head, then publish with that head as the expected revision
 * (now and then `'any'` or a stale one), an idempotency id per logical publish and a marker per
 * attempt in `meta.op`; a publish whose outcome is unknown is retried with the same id (a new
 * attempt). Streams overlap between workers and processes, so compare-and-set races are
 * everyday. One JSON line per event on stdout:
 *   {"e":"invoke","op","t","stream","id","expected"}   before each attempt (t: CLOCK_MONOTONIC ns)
 *   {"e":"ok","op","t","status","seq","hash","rev","id"} | {"e":"fail","op","t","code","actual"?} | {"e":"unknown","op","t","code"}
 *   {"e":"read","op","t0","t","stream","rev"}             a head read that answered
 * A process killed mid-attempt leaves its invoke without an outcome: unknown.
 */
import { openPostgresStore } from '@stateflow/store-postgres';

const [url, opsArg, workersArg, name] = process.argv.slice(2);
const ops = Number(opsArg);
const workers = Number(workersArg);
const STREAMS = ['global', 'cwd:/a', 'session:s', 'session:t'];
const now = () => Number(process.hrtime.bigint());
const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

/** Open the store, trying again while the faults make that fail. */
async function open() {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openPostgresStore(url, { maxConnections: 4, lockTimeoutMs: 2_000 });
    } catch (err) {
      if (attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The outcome of an error: a refusal that wrote nothing (`fail`) or an open outcome (`unknown`). */
function outcomeOf(err) {
  if (err?.code === 'CONFLICT') return { e: 'fail', code: 'CONFLICT', actual: err.details.actual };
  if (err?.code === 'STORE_UNAVAILABLE' && err.details?.outcome === 'not-sent') return { e: 'fail', code: 'STORE_UNAVAILABLE' };
  return { e: 'unknown', code: err?.code ?? String(err) };
}

async function worker(store, w) {
  for (let n = 0; n < ops; n++) {
    const stream = STREAMS[Math.floor(Math.random() * STREAMS.length)];
    const id = `${name}.${w}.${n}`;
    let expected = 'any';
    const t0 = now();
    try {
      const head = await store.head(stream);
      emit({ e: 'read', op: `${id}.head`, t0, t: now(), stream, rev: head.rev });
      const pick = Math.random();
      expected = pick < 0.8 ? (head.rev === 0 ? 'none' : head.rev) : pick < 0.9 ? 'any' : Math.max(0, head.rev - 1);
    } catch {
      // The head read failed (a killed backend): publish without a read guard.
    }
    for (let attempt = 0; attempt < 4; attempt++) {
      const op = `${id}#${attempt}`;
      emit({ e: 'invoke', op, t: now(), stream, id, expected });
      try {
        const r = await store.publish({ changes: { [stream]: { [`k${name}_${w}`]: n, last: op } }, expected: { [stream]: expected }, id, meta: { op } });
        const change = r.transition.changes.find((c) => c.stream === stream);
        emit({ e: 'ok', op, t: now(), status: r.status, seq: r.transition.seq, hash: r.transition.hash, rev: change?.rev ?? null, id: r.transition.id ?? null });
        break;
      } catch (err) {
        const outcome = outcomeOf(err);
        emit({ ...outcome, op, t: now() });
        if (outcome.e !== 'unknown') break;
      }
    }
  }
}

const store = await open();
emit({ e: 'ready', t: now() });
await Promise.all(Array.from({ length: workers }, (_, w) => worker(store, w)));
await store.close();
emit({ e: 'done', t: now() });
