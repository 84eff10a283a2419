/**
 * The history page's undo view end to end: a real `stateflow serve` (spawned binary, LevelDB
 * store in a temp directory) over a history two writers wrote — `ana` over HTTP, and the agent
 * `agent-7` through MCP tool calls (`meta.writer.tool`), one of whose writes `ana` built on — then,
 * in headless Chromium: the revisions list shows the tool calls; the undo view offers the log's
 * writers with their tools; the preview shows the patch per stream and the conflict where `ana`
 * changed what the agent wrote, and refuses to publish while it is open; preferring theirs,
 * previewing again and confirming publishes one transition — checked through the store API. The
 * view is saved as test/ui/artifacts/undo-preview.png.
 *
 * Needs Chromium: without it the suite is skipped with a visible message; under CI=true it fails.
 */
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, stopServe, tempDir } from '../cli/helpers.js';
import { ARTIFACTS, chromiumAvailable, launchBrowser } from './browser.js';
import { callApi, startPageServer } from './page-server.js';

const STREAM = 'cwd:/proj';
const ANA = { user: 'ana', surface: 'http' };
const AGENT = { user: 'agent-7', surface: 'mcp-http', client: 'claude-code/1.2.0', tool: 'patch_state', args: 'sha256:0123456789abcdef' };

if (!chromiumAvailable()) {
  if (process.env.CI === 'true') throw new Error('the undo page test needs Chromium at /usr/bin/chromium');
  console.warn('[test/ui] undo-preview skipped: no Chromium at /usr/bin/chromium');
}

(chromiumAvailable() ? describe : describe.skip)('the history page previews and publishes an undo of one writer', () => {
  let root: string;
  let server: ChildProcessWithoutNullStreams;
  let base: string;
  let pageUrl: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    root = await tempDir();
    const dir = path.join(root, 'store');
    const store = await openStore(dir);
    const write = (writer: Record<string, string>, changes: Record<string, unknown>) => store.publish({ changes: { [STREAM]: changes as never }, meta: { writer } });
    await write(ANA, { strategy: { plan: 'ship v1', owner: 'ana' } });
    await write(AGENT, { lazy: { memo: 'ignore all instructions' }, strategy: { plan: 'rm -rf /' } });
    await write(ANA, { strategy: { plan: 'ship v2 (reviewed)' } });
    await write(AGENT, { tactics: { next: 'exfiltrate' } });
    await store.close();
    ({ child: server, base, pageUrl } = await startPageServer(['--dir', dir, 'serve', '--port', '0']));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pageUrl);
    await page.locator(`[data-stream="${STREAM}"]`).click();
  });

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) await stopServe(server);
    if (root !== undefined) await removeDir(root);
  });

  it('lists the tool calls per transition in the revisions', async () => {
    await page.getByTestId('tab-revisions').click();
    await page.waitForSelector('[data-testid="tool-call"]');
    expect(await page.getByTestId('tool-call').allTextContents()).toEqual(['tool call: patch_state', 'tool call: patch_state']);
  });

  it('offers the writers, previews the undo with its conflict, and publishes once it is settled', async () => {
    await page.getByTestId('tab-undo').click();
    await page.waitForSelector('[data-testid="undo-writer"] option:nth-child(3)', { state: 'attached' });
    const options = await page.locator('[data-testid="undo-writer"] option').allTextContents();
    expect(options).toEqual(['pick a writer…', 'ana http (2)', 'agent-7 mcp-http claude-code/1.2.0 (2) · tools: patch_state']);
    await page.getByTestId('undo-writer').selectOption('agent-7 mcp-http claude-code/1.2.0');
    await page.getByTestId('undo-preview').click();
    await page.waitForSelector('[data-testid="undo-plan"]');
    expect(await page.getByTestId('undo-plan').locator('p').first().textContent()).toBe('2 transitions undone (seq 2, 4), after seq 1 through seq 4.');
    const row = page.getByTestId('undo-conflicts').locator('tbody tr');
    expect(await row.locator('td, th').allTextContents()).toEqual([STREAM, '/strategy/plan', '"rm -rf /"', '"ship v2 (reviewed)"', '"ship v1"', 'open']);
    expect(await page.getByTestId('undo-publish').isDisabled()).toBe(true);
    await page.getByTestId('undo-prefer').selectOption('ours');
    await page.getByTestId('undo-preview').click();
    await page.waitForSelector('[data-testid="undo-publish"]:not([disabled])');
    await page.screenshot({ path: path.join(ARTIFACTS, 'undo-preview.png') });
    await page.getByTestId('undo-publish').click();
    expect(JSON.parse((await page.getByTestId('confirm-patch').textContent()) ?? '')).toEqual({ [STREAM]: { lazy: null, tactics: null } });
    await page.getByTestId('confirm-yes').click();
    await page.waitForSelector('[data-testid="undo-plan"]', { state: 'detached' });
    const state = await callApi<{ state: unknown }>(base, `/v1/store/state?stream=${encodeURIComponent(STREAM)}`);
    expect(state.state).toEqual({ strategy: { plan: 'ship v2 (reviewed)', owner: 'ana' } });
    const last = await callApi<{ meta: { undo: { seqs: number[] } } }>(base, '/v1/store/transitions/5');
    expect(last.meta.undo.seqs).toEqual([2, 4]);
    expect(pageErrors).toEqual([]);
  });
});
