/**
 * Bench — MCP transports: `patch_state` calls per second and latency through Streamable HTTP
 * (`/mcp` of a spawned `stateflow serve`, the MCP SDK client) and through the stdio client
 * (spawned `stateflow mcp` processes forwarding to that server), against the baseline of
 * `runtime.patchState` called in-process on a store this process opens. 1 and 8 concurrent
 * clients; each client issues its calls one after another (a closed loop, as an agent does).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openStore } from '@stateflow/store-leveldb';
import { createRuntime } from '@stateflow/tools';
import { BIN, removeDir, report, scaled, serveStore, stopServer, tempDir } from './lib.mjs';
const PROJECT = '/bench/project';
const CALLS = scaled(2_000, 200);
const WARMUP = 50;

const patchOf = (client, i) => ({ patch: { tactics: { [`c${client}`]: `step ${i}` }, lazy: { log: { [`c${client}`]: i } } } });

/** Run `clients` closed loops of `call(client, i)`; calls/s and latency percentiles (ms). */
async function measure(clients, call) {
  const per = Math.ceil(CALLS / clients);
  for (let c = 0; c < clients; c++) for (let i = 0; i < WARMUP / clients; i++) await call(c, -1 - i);
  const latencies = [];
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < per; i++) {
        const t = process.hrtime.bigint();
        await call(c, i);
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { rate: (per * clients) / seconds, p50: pct(0.5), p99: pct(0.99) };
}

function check(result) {
  if (result.isError === true) throw new Error(`patch_state failed: ${result.content?.[0]?.text}`);
}

async function inProcess(clients) {
  const dir = await tempDir('mcp-direct');
  const store = await openStore(dir);
  try {
    const runtime = createRuntime({ store, selection: { cwd: PROJECT, mode: 'active' } });
    return await measure(clients, (c, i) => runtime.patchState(patchOf(c, i)));
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

/** `clients` MCP SDK clients made by `connect(server, dir, c)` against a spawned server, measured. */
async function overMcp(clients, connect) {
  const dir = await tempDir('mcp-transport');
  const server = await serveStore(dir);
  const agents = [];
  try {
    for (let c = 0; c < clients; c++) {
      const client = new Client({ name: `bench-${c}`, version: '0' });
      await client.connect(connect(server, dir));
      agents.push(client);
    }
    return await measure(clients, async (c, i) => check(await agents[c].callTool({ name: 'patch_state', arguments: patchOf(c, i) })));
  } finally {
    await Promise.all(agents.map((a) => a.close()));
    await stopServer(server.child);
    await removeDir(dir);
  }
}

/** An SDK client of the server's /mcp over Streamable HTTP. */
const httpTransport = (server) =>
  new StreamableHTTPClientTransport(new URL(`/mcp?cwd=${encodeURIComponent(PROJECT)}`, server.url), { requestInit: { headers: { 'x-stateflow-token': server.token } } });

/** An SDK client of a spawned `stateflow mcp`, which forwards to the server. */
const stdioTransport = (_server, dir) =>
  new StdioClientTransport({ command: process.execPath, args: [BIN, '--dir', dir, '--cwd', PROJECT, 'mcp'], stderr: 'ignore' });

const rows = [];
for (const clients of [1, 8]) {
  const direct = await inProcess(clients);
  rows.push([`in-process runtime.patchState`, clients, direct.rate, direct.p50, direct.p99, 1, '']);
  for (const [label, run] of [
    ['MCP Streamable HTTP (/mcp)', httpTransport],
    ['MCP stdio (stateflow mcp → /mcp)', stdioTransport],
  ]) {
    const result = await overMcp(clients, run);
    rows.push([label, clients, result.rate, result.p50, result.p99, result.rate / direct.rate, clients === 8 ? 'p99 ≤ 10 ms, ratio ≥ 0.3' : '']);
  }
}

await report(
  'MCP transports: patch_state through Streamable HTTP and the stdio client vs in-process',
  ['path', 'clients', 'calls/s', 'p50 ms', 'p99 ms', 'ratio vs in-process', 'goal'],
  rows,
  [
    `${CALLS} patch_state calls per row (after ${WARMUP} warm-up calls), each client a closed loop; patch ${JSON.stringify(patchOf(0, 1))}; all clients select the same cwd owner, so every call is one transition on one stream (buffered durability, LevelDB).`,
    'HTTP and stdio rows: a spawned `stateflow serve` on loopback holds the store; HTTP clients are MCP SDK clients of its /mcp; stdio clients are MCP SDK clients of spawned `stateflow mcp` processes, which forward with the SDK client to /mcp.',
    'In-process: `createRuntime(...).patchState` on a store this process opened (no transport, no JSON-RPC). The ratio is calls/s of the row over the in-process calls/s at the same client count.',
  ],
);
