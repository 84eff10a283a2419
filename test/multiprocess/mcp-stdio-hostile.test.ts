/**
 * Hostile JSON-RPC over the real stdio endpoint (test/harness/README.md "Bad-input fuzz"): raw
 * protocol lines, written byte for byte (an SDK client could not send most of them), to a spawned
 * `stateflow mcp`, which forwards to the store's server it starts in the background (a
 * classic-level store in a temp directory). Every bad tool input is a tool result with
 * `isError: true` and a Stateflow code; the endpoint stays up and nothing is published by a
 * rejected call.
 *
 * JSON duplicate keys: `JSON.parse` keeps the last one (RFC 8259 §4 leaves duplicates to the
 * parser); the server sees one object and validates that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, removeDir, tempDir } from '../cli/helpers.js';
import { TEST_IDLE_MS, stopServer } from './processes.js';

interface RpcResponse {
  id: number;
  result?: { isError?: boolean; content?: Array<{ type: string; text: string }> };
  error?: { code: number; message: string };
}

describe('MCP stdio server: raw hostile JSON-RPC', () => {
  let dir: string;
  let child: ChildProcessWithoutNullStreams;
  const waiting = new Map<number, (r: RpcResponse) => void>();
  let nextId = 1;

  /** Writes `line` as is; resolves with the response to request `id`. */
  function rawRequest(id: number, line: string): Promise<RpcResponse> {
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${line}\n`);
    });
  }

  /** A tools/call whose `arguments` member is the raw JSON text `args`. */
  function callRaw(name: string, args: string): Promise<RpcResponse> {
    const id = nextId++;
    return rawRequest(id, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`);
  }

  /** The `{code, message}` of an isError tool result. */
  function toolError(response: RpcResponse): { code: string; message: string } {
    expect(response.error).toBeUndefined();
    expect(response.result?.isError).toBe(true);
    return JSON.parse(response.result?.content?.[0]?.text ?? 'null') as { code: string; message: string };
  }

  async function read(path: string): Promise<unknown> {
    const response = await callRaw('read_state', JSON.stringify({ path }));
    expect(response.result?.isError).toBeUndefined();
    return JSON.parse(response.result?.content?.[0]?.text ?? 'null');
  }

  beforeAll(async () => {
    dir = await tempDir('mcp-hostile');
    child = spawn(process.execPath, [BIN, '--dir', dir, '--session', 's1', '--mode', 'active', 'mcp', '--idle-timeout', String(TEST_IDLE_MS)]);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as RpcResponse;
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    const init = await rawRequest(
      0,
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    );
    expect(init.error).toBeUndefined();
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const accepted = await callRaw('patch_state', '{"patch":{"tactics":{"next":"ship"}}}');
    expect(accepted.result?.isError).toBeUndefined();
  });

  afterAll(async () => {
    if (child !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    }
    if (dir !== undefined) {
      await stopServer(dir);
      await removeDir(dir);
    }
  });

  it.each<[string, string, string, RegExp]>([
    ['a number beyond double range (parses to Infinity)', '{"patch":{"tactics":{"n":1e400}}}', 'INPUT_INVALID', /patch\.tactics\.n" is not JSON: Infinity is not a JSON number/],
    ['an escaped lone surrogate', '{"patch":{"tactics":{"s":"a\\ud800b"}}}', 'INPUT_INVALID', /a string with a lone surrogate is not valid Unicode text/],
    ['a lone surrogate key', '{"patch":{"tactics":{"\\udc00":1}}}', 'INPUT_INVALID', /a key with a lone surrogate is not valid Unicode text/],
    ['100,000 levels of nesting', `{"patch":{"lazy":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`, 'INPUT_INVALID', /nested more than 512 levels deep/],
    ['duplicate keys (the last, a number, wins)', '{"patch":{"tactics":{"next":"x"}},"patch":5}', 'INPUT_INVALID', /patch must be object/],
    ['a non-string path', '{"path":12}', 'INPUT_INVALID', /path must be string/],
    ['a top-level array of paths as path', '{"path":["a"]}', 'INPUT_INVALID', /path must be string/],
    ['an empty patch', '{"patch":{}}', 'INPUT_INVALID', /patch must NOT have fewer than 1 properties/],
    ['a bad path', '{"path":"tactics..next"}', 'PATH_SYNTAX', /column/],
    ['an index on an object', '{"patch":{"tactics":{"[0]":1}}}', 'PATCH_INVALID', /Invalid patch/],
  ])('%s is isError with a Stateflow code', async (_, args, code, message) => {
    const tool = args.startsWith('{"path"') ? 'read_state' : 'patch_state';
    const error = toolError(await callRaw(tool, args));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(await read('tactics')).toEqual({ value: { next: 'ship' } });
  });

  it('__proto__ is data: stored, read back, the server unaffected', async () => {
    const response = await callRaw('patch_state', '{"patch":{"lazy":{"__proto__":{"polluted":true}}}}');
    expect(response.result?.isError).toBeUndefined();
    expect(await read('lazy')).toEqual({ value: JSON.parse('{"__proto__":{"polluted":true}}') });
    expect(await read('tactics')).toEqual({ value: { next: 'ship' } });
  });

  it('arguments that are not an object are a JSON-RPC error from the SDK request schema, and the server keeps serving', async () => {
    const response = await callRaw('read_state', '5');
    expect(response.result).toBeUndefined();
    // SDK 1.32 answers a request that fails its schema with InternalError and the zod issues.
    expect(response.error?.code).toBe(-32603);
    expect(response.error?.message).toContain('"arguments"');
    expect(await read('tactics')).toEqual({ value: { next: 'ship' } });
  });

  it('a line that is not JSON is dropped by the transport; the next request is answered', async () => {
    child.stdin.write('{"jsonrpc":"2.0","id":999,"method":\n');
    expect(await read('tactics')).toEqual({ value: { next: 'ship' } });
  });
});
