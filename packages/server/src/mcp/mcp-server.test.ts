/**
 * The MCP server's wiring: the `/mcp` selection read from the URL, and the selection checked
 * when a server is created. The tools and errors over real transports are tested end to end in
 * `test/multiprocess/` (stdio through `stateflow mcp`, Streamable HTTP at `/mcp`).
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '@stateflow/store-leveldb';
import { createMcpServer } from './mcp-server.js';
import { selectionFromUrl } from '../http/routes/mcp-route.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

describe('MCP server wiring', () => {
  it('reads the /mcp selection from the URL, with the tools\' rules', () => {
    const parse = (query: string) => selectionFromUrl(new URLSearchParams(query));
    expect(parse('global=1&cwd=/repo&session=s&mode=passive')).toEqual({ mode: 'passive', global: true, cwd: '/repo', session: 's' });
    expect(parse('cwd=/repo&token=abc')).toEqual({ mode: 'active', cwd: '/repo' });
    const codeOf = (query: string) => {
      try {
        parse(query);
        return null;
      } catch (err) {
        return { code: (err as { code?: string }).code, field: (err as { details?: { field?: string } }).details?.field };
      }
    };
    expect(codeOf('cwd=relative/dir')).toEqual({ code: 'INPUT_INVALID', field: 'selection.cwd' });
    expect(codeOf('cwd=/repo&mode=sleepy')).toEqual({ code: 'INPUT_INVALID', field: 'selection.mode' });
    expect(codeOf('')).toEqual({ code: 'INPUT_INVALID', field: 'selection' });
    expect(codeOf('global=yes')).toEqual({ code: 'INPUT_INVALID', field: 'query.global' });
    expect(codeOf('sesion=s')).toEqual({ code: 'INPUT_INVALID', field: 'query.sesion' });
    expect(codeOf('cwd=/a&cwd=/b')).toEqual({ code: 'INPUT_INVALID', field: 'query.cwd' });
  });

  it('refuses an empty selection when the server is created', async () => {
    const scratch = await tempDir('mcp');
    const store = await openStore(scratch);
    try {
      expect(() => createMcpServer({ store, selection: { mode: 'active' } })).toThrow(expect.objectContaining({ code: 'INPUT_INVALID' }));
    } finally {
      await store.close();
      await removeDir(scratch);
    }
  });
});
