/**
 * Request stall: how long one legal `POST /v1/state/patch` holds the server's event loop, so
 * every other user's request waits (the cost per request the body limit bounds). A real HTTP
 * server on loopback over a memory store; the stall is the longest event-loop delay
 * (perf_hooks.monitorEventLoopDelay) while the request is served. Baseline: a 1 KiB patch in
 * the same run. Shapes: one long string, an object of small members, an array of small numbers,
 * an array of small objects — the same bytes cost very different CPU.
 *
 * Second part, isolation between users (server README "Limits"): a spawned `stateflow serve`
 * with two keys. Another user's small request (`GET /v1/server`) p99 idle and while one key runs
 * the heaviest search, blame and publish-many it may; the server's CPU per heavy request (its
 * /proc stat); a publish's cost with 500 watch streams of one key open ÷ with none; the server's
 * resident memory per open watch.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import { median, removeDir, report, scaled, serveStore, stopServer, tempDir } from './lib.mjs';

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

// ---- Part 2: isolation between users on a spawned server ----

const LADDER_YAML = `
name: Bench
exit: answer
steps:
  - id: answer
    fields:
      - { name: Question, type: text, from: input.context }
    systemPrompt: "Answer."
`;

/** The server process's CPU time so far (user + system), in ms (Linux /proc). */
async function cpuMs(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The server process's resident memory, in KiB (Linux /proc). */
async function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]);
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

async function isolation() {
  const root = await tempDir('stall-iso');
  const ladders = path.join(root, 'ladders', 'bench');
  await mkdir(ladders, { recursive: true });
  await writeFile(path.join(ladders, 'ladder.yaml'), LADDER_YAML);
  const keys = path.join(root, 'keys.json');
  await writeFile(keys, JSON.stringify({ 'key-alice': 'alice', 'key-bob': 'bob' }));
  const { child, url, token } = await serveStore(path.join(root, 'store'), ['--keys', keys, '--ladders', path.join(root, 'ladders'), '--rate-limit', 'off', '--watches-per-key', '1000', '--body-limit', String(64 * 1024 * 1024)]);
  // `owner`: the server token (the data set up, unbounded as the owner's writes are); a refusal
  // over the work budget (400 over-budget) is an answer too.
  const call = async (key, route, body) => {
    const credential = key === 'owner' ? { 'x-stateflow-token': token } : { authorization: `Bearer ${key}` };
    const response = await fetch(`${url}${route}`, { method: body === undefined ? 'GET' : 'POST', headers: { ...credential, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 200 && !text.includes('over-budget')) throw new Error(`${route} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  try {
    const session = (await call('key-alice', '/v1/bench/ladder/sessions', {})).id;
    const stream = `session:${session}`;
    const KEYS = scaled(1000, 50);
    const REVISIONS = scaled(20_000, 500);
    await call('owner', '/v1/store/publish', { changes: { [stream]: { lazy: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i])) } } });
    for (let done = 1; done < REVISIONS; done += 1000) {
      const inputs = Array.from({ length: Math.min(1000, REVISIONS - done) }, (_, i) => ({ changes: { [stream]: { lazy: { [`k${(done + i) % KEYS}`]: done + i } } } }));
      await call('owner', '/v1/store/publish-many', { inputs });
    }
    const heavy = {
      'search scan=50000': () => call('key-alice', `/v1/history/search?stream=${encodeURIComponent(stream)}&text=needle&scan=50000`),
      'blame scan=50000 limit=2000': () => call('key-alice', `/v1/history/blame?stream=${encodeURIComponent(stream)}&pointer=/lazy&scan=50000&limit=2000`),
      'publish-many 1000 one-key patches (refused past the 200 ms budget)': () => call('key-alice', '/v1/store/publish-many', { inputs: Array.from({ length: 1000 }, (_, i) => ({ changes: { [stream]: { lazy: { [`k${i}`]: -i } } } })) }),
    };
    const ping = async () => {
      const t = performance.now();
      await call('key-bob', '/v1/server');
      return performance.now() - t;
    };
    const idle = [];
    for (let i = 0; i < 200; i++) idle.push(await ping());
    const idleP99 = percentile(idle, 99);
    const rows = [['idle (no heavy request)', '—', idleP99, 1, '—']];
    for (const [name, run] of Object.entries(heavy)) {
      const before = await cpuMs(child.pid);
      const t = performance.now();
      await run();
      const wall = performance.now() - t;
      const cpu = (await cpuMs(child.pid)) - before;
      let running = true;
      const pings = [];
      const load = (async () => {
        for (let i = 0; i < 3; i++) await run();
        running = false;
      })();
      while (running) pings.push(await ping());
      await load;
      const p99 = percentile(pings, 99);
      rows.push([name, wall, p99, p99 / idleP99, cpu]);
    }
    await report('Isolation: another user\'s GET /v1/server p99 while one key runs heavy requests', ['heavy request (alice)', 'its wall ms', "bob's p99 ms", '÷ idle p99', 'server CPU ms per request'], rows, [
      `A spawned stateflow serve; alice's session stream holds a ${KEYS}-key object and ${REVISIONS} revisions. Goals: p99 ≤ 50 ms or ≤ 3× idle; CPU per heavy request ≤ budget + 50 ms.`,
    ]);

    // Watches: a publish's cost with 500 of alice's watch streams open ÷ with none; memory per watch.
    const publishCost = async () => {
      const costs = [];
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        await call('key-alice', '/v1/store/publish', { changes: { [stream]: { lazy: { tick: i + Math.random() } } } });
        costs.push(performance.now() - t);
      }
      return median(costs);
    };
    const none = await publishCost();
    const rssBefore = await rssKiB(child.pid);
    const WATCHES = 500;
    const aborts = [];
    let received = 0;
    await Promise.all(Array.from({ length: WATCHES }, async () => {
      const abort = new AbortController();
      aborts.push(abort);
      const response = await fetch(`${url}/v1/watch?stream=${encodeURIComponent(stream)}`, { headers: { authorization: 'Bearer key-alice' }, signal: abort.signal });
      if (response.status !== 200) throw new Error(`watch answered ${response.status}`);
      const reader = response.body.getReader();
      await reader.read();
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            received += value.byteLength;
          }
        } catch {
          // aborted
        }
      })();
    }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const perWatchKiB = ((await rssKiB(child.pid)) - rssBefore) / WATCHES;
    const withWatches = await publishCost();
    for (const abort of aborts) abort.abort();
    await report('Watch fan-out: a publish with 500 watch streams of one key open', ['figure', 'value', 'goal'], [
      ['publish median ms, no watch open', none, '—'],
      [`publish median ms, ${WATCHES} watches open`, withWatches, '—'],
      ['ratio', withWatches / none, '≤ 1.5'],
      ['server RSS per open watch, KiB', perWatchKiB, 'cap × it ≤ 64 MiB'],
      ['default cap (2,000) × it, MiB', (2000 * perWatchKiB) / 1024, '≤ 64'],
    ], [`${received} bytes of transitions read by the ${WATCHES} watchers. Publish cost is the answer's latency seen by the client (the fan-out runs on the same event loop).`]);
  } finally {
    await stopServer(child);
    await removeDir(root);
  }
}

await isolation();
