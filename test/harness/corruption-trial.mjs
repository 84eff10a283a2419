/**
 * Child process of the corruption trials: opens the (corrupted) store in `argv[2]`, audits it
 * and reads everything back against the oracle in the JSON file `argv[3]`. A corrupted LevelDB
 * table can abort the process from native code, so each trial runs here, never in the parent.
 * Prints one JSON line: { open: 'ok' | code | 'untyped', auditProblems, codes, detected, wrong, untyped }.
 */
import { readFile } from 'node:fs/promises';
import { isStateflowError } from '@stateflow/core';
import { openStore } from '@stateflow/store-leveldb';

const STREAMS = ['global', 'cwd:/w', 'session:a', 'session:b'];

/** Compare reads of the corrupted store with the oracle, one read at a time. */
async function classifyReads(store, oracle, tally) {
  const check = async (what, read, expected) => {
    try {
      const got = await read();
      if (got !== expected) {
        tally.wrong.push(what);
      }
    } catch (err) {
      if (isStateflowError(err)) tally.detected.push(`${what}: ${err.code}`);
      else tally.untyped.push(`${what}: ${String(err)}`);
    }
  };
  if (store.lastSeq() !== oracle.lastSeq) tally.wrong.push(`lastSeq ${store.lastSeq()} ≠ ${oracle.lastSeq}`);
  for (let seq = 1; seq <= oracle.lastSeq; seq++) {
    await check(`transition ${seq}`, async () => JSON.stringify(await store.transition(seq)), oracle.transitions[seq - 1]);
  }
  for (const stream of STREAMS) {
    const expected = oracle.states[stream];
    for (let r = 0; r < expected.length; r++) {
      await check(`stateAt ${stream}@${r}`, async () => JSON.stringify(await store.stateAt(stream, r)), expected[r]);
    }
    await check(`state ${stream}`, async () => JSON.stringify(await store.state(stream)), expected.at(-1));
  }
}

const [dir, oracleFile] = process.argv.slice(2);
const oracle = JSON.parse(await readFile(oracleFile, 'utf8'));
const out = { open: 'ok', auditProblems: 0, codes: [], detected: [], wrong: [], untyped: [] };
let store;
try {
  store = await openStore(dir);
} catch (err) {
  out.open = isStateflowError(err) ? err.code : 'untyped';
  if (!isStateflowError(err)) out.untyped.push(String(err));
}
if (store) {
  try {
    const audit = await store.audit();
    out.auditProblems = audit.problems.length;
    out.codes = audit.problems.map((p) => p.code);
  } catch (err) {
    if (isStateflowError(err)) {
      out.auditProblems = 1;
      out.codes = [err.code];
    } else out.untyped.push(String(err));
  }
  await classifyReads(store, oracle, out);
  await store.close();
}
console.log(JSON.stringify(out));
