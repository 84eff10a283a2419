/**
 * Request stall: how long one legal `POST /v1/state/patch` holds the server's event loop, so
 * every other user's request waits (the cost per request the body limit bounds). A real HTTP
 * server on loopback over a memory store; the stall is the longest event-loop delay
 * (perf_hooks.monitorEventLoopDelay) while the request is served. Baseline: a 1 KiB patch in
 * the same run. Shapes: one long string, an object of small members, an array of small numbers,
 * an array of small objects — the same bytes cost very different CPU.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import { report, scaled } from './lib.mjs';

const KIB = 1024;
const shapes = {
  string: (bytes) => 'x'.repeat(bytes),
  // at most 60,000 members: the store's encoder refuses objects of 65,536 keys or more
  members: (bytes) => Object.fromEntries(Array.from({ length: Math.min(60_000, Math.floor(bytes / 16)) }, (_, i) => [`k${i}`, i])),
  numbers: (bytes) => Array.from({ length: Math.floor(bytes / 2) }, (_, i) => i % 10),
  objects: (bytes) => Array.from({ length: Math.floor(bytes / 12) }, (_, i) => ({ a: i % 10 })),
};
const sizes = [1, scaled(256, 1), scaled(1024, 1), scaled(8192, 1)].map((k) => k * KIB);

const store = await openMemoryStore();
const server = await startServer({ store, port: 0, sweepIntervalMs: 0, bodyLimit: 16 * 1024 * KIB, onWarning: () => undefined });
let owner = 0;

/** Longest event-loop delay (ms) while one patch of `value` is served, best of 3. */
async function stall(value) {
  let best = Number.POSITIVE_INFINITY;
  let bodyBytes = 0;
  for (let run = 0; run < 3; run++) {
    const body = JSON.stringify({ selection: { cwd: `/bench/${owner++}`, mode: 'active' }, patch: { lazy: { v: value } } });
    bodyBytes = Buffer.byteLength(body);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const response = await fetch(`${server.url}/v1/state/patch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await response.text();
    delay.disable();
    if (response.status !== 200) throw new Error(`patch answered ${response.status}`);
    best = Math.min(best, delay.max / 1e6);
  }
  return { ms: best, bodyBytes };
}

const baseline = await stall('x'.repeat(KIB));
const rows = [['1 KiB string (baseline)', baseline.bodyBytes, baseline.ms, 1]];
for (const size of sizes.slice(1)) {
  for (const [name, make] of Object.entries(shapes)) {
    const { ms, bodyBytes } = await stall(make(size));
    rows.push([`${size / KIB} KiB ${name}`, bodyBytes, ms, ms / baseline.ms]);
  }
}
await server.close();
await store.close();
await report('Request stall: one state/patch holding the event loop', ['patch', 'body bytes', 'max event-loop delay ms', 'ratio to 1 KiB'], rows, [
  'The default body limit (1 MiB) bounds the worst case to the 1 MiB rows; 8 MiB rows need --body-limit.',
]);
