/**
 * The history page's second set of views end to end: a real `stateflow serve` (spawned binary,
 * LevelDB store in a temp directory) with the eslint `package.json` history imported into
 * `cwd:/proj` (with each commit's date in the meta), a fork of it under a long name, a LangGraph
 * thread written by the saver, and a stream holding stored XSS payloads — driven in headless
 * Chromium: search through time (the pickaxe finds where `version` becomes `9.2.0` and a click
 * moves the cursor there), the blame column, the lineage graph (a click moves to the fork point),
 * the LangGraph thread as steps, the audit job, and the fixes (the effective view's Transition
 * panel, long names cut in the middle, the axis in the permalink, "over seq" ends, a key's text
 * expands it). Each view is saved under test/ui/artifacts/; with `STATEFLOW_UPDATE_DOCS=1` the
 * README's screenshots under docs/ are refreshed from them (a plain run leaves the checkout as it
 * was).
 *
 * Needs Chromium and the shared histories: without them the suite is skipped with a visible
 * message; under CI=true it fails instead.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Command } from '@langchain/langgraph';
import { jsonEqual, type JsonObject, type JsonValue } from '@stateflow/core';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { HISTORIES, REPO_ROOT, historiesAvailable, loadExpected, removeDir, stateflow, stopServe, tempDir } from '../cli/helpers.js';
import { buildAgent } from '../langgraph/agent-graph.mjs';
import { ARTIFACTS, chromiumAvailable, launchBrowser } from './browser.js';
import { callApi, startPageServer } from './page-server.js';

const FILE = 'eslint-package-json.jsonl';
const STREAM = 'cwd:/proj';
/** A fork whose name is long and differs from its neighbour's only at the end. */
const FORK = 'cwd:/home/someone/work/clients/acme/projects/linting/eslint-config-fork-alpha';
const FORK_AT = 50;
const THREAD = 'langgraph:otters';
const XSS = '<img src=x onerror="window.__xss=1">';
const XSS_STREAM = `other:${XSS}`;

const available = historiesAvailable([FILE]) && chromiumAvailable();

(available ? describe : describe.skip)('the history page: search, blame, lineage, LangGraph steps, audit (eslint history)', () => {
  let root: string;
  let server: ChildProcessWithoutNullStreams;
  let base: string;
  let pageUrl: string;
  let docs: JsonObject[];
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const api = <T = any>(route: string, body?: unknown): Promise<T> => callApi<T>(base, route, body);
  const seqOf = async (stream: string, rev: number) => (await api<{ seq: number }>(`/v1/store/revision-seq?stream=${encodeURIComponent(stream)}&rev=${rev}`)).seq;
  const shot = async (name: string, doc?: string) => {
    const file = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: file });
    if (doc !== undefined && process.env.STATEFLOW_UPDATE_DOCS === '1') await copyFile(file, path.join(REPO_ROOT, 'docs', doc));
  };
  const cursor = async () => Number(await page.getByTestId('histogram').getAttribute('aria-valuenow'));
  const treeAt = (rev: number) => page.waitForSelector(`[data-testid="tree"][data-rev="${rev}"]`);
  const row = (pointer: string) => page.locator(`[data-testid="tree-rows"] [data-pointer="${pointer}"]`);
  const expand = async (pointer: string) => {
    await row(pointer).locator('.toggle').click();
    await page.waitForSelector(`[data-testid="tree-rows"] [data-pointer^="${pointer}/"]`);
  };
  const open = async (stream: string) => {
    await page.getByTestId('streams').locator(`[data-stream="${stream.replaceAll('"', '\\"')}"]`).click();
  };
  const tab = (name: string) => page.getByTestId(`tab-${name}`).click();
  /** The first revision ≥ 1 whose document's `version` is 9.2.0, and the one after it where it is not. */
  const became = () => docs.findIndex((d, i) => d['version'] === '9.2.0' && docs[i - 1]?.['version'] !== '9.2.0') + 1;

  beforeAll(async () => {
    root = await tempDir();
    const dir = path.join(root, 'store');
    docs = (await loadExpected(path.join(HISTORIES, FILE))).docs;
    const imported = await stateflow(['--dir', dir, '--cwd', '/proj', 'import', path.join(HISTORIES, FILE), '--stream', STREAM, '--at', 'lazy.history']);
    expect(imported.code, imported.stderr).toBe(0);
    const store = await openStore(dir);
    try {
      await store.fork(STREAM, FORK, { at: FORK_AT });
      await store.publish({ changes: { [FORK]: { lazy: { history: { name: 'eslint-config-fork' } } } }, meta: { writer: 'agent-7' } });
      const agent = buildAgent(new StateflowSaver(store));
      const config = { configurable: { thread_id: 'otters' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'otters' }] }, config);
      await agent.invoke(new Command({ resume: 'yes' }), config);
      await store.publish({ changes: { [XSS_STREAM]: { [XSS]: `<script>window.__xss=2</script>${XSS}`, note: 'babel <b>bold</b>' } } });
      await store.publish({ changes: { global: { lazy: { shared: 'from global' } } } });
    } finally {
      await store.close();
    }
    ({ child: server, base, pageUrl } = await startPageServer(['--dir', dir, 'serve', '--port', '0']));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pageUrl);
    await page.waitForSelector(`[data-stream="${STREAM}"]`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) await stopServe(server);
    if (root !== undefined) await removeDir(root);
  });

  it('the pickaxe finds where version becomes 9.2.0, and a click moves the cursor there', async () => {
    const rev = became();
    expect(rev).toBeGreaterThan(900);
    await open(STREAM);
    await tab('search');
    await page.getByTestId('search-key').fill('version');
    await page.getByTestId('search-input').fill('9.2.0');
    await page.getByTestId('search-go').click();
    const first = page.getByTestId('search-hit').first();
    await first.waitFor();
    expect(Number(await first.getAttribute('data-rev'))).toBe(rev);
    expect(await first.innerText()).toContain('+ /lazy/history/version = "9.2.0"');
    await shot('v2-1-search', 'history-search.png');
    await first.click();
    await treeAt(rev);
    expect(await cursor()).toBe(await seqOf(STREAM, rev));
    const seq = String(await seqOf(STREAM, rev));
    await page.waitForFunction((want) => document.querySelector('[data-testid="inspector-seq"]')?.textContent === want, seq);
    expect(await page.getByTestId('inspector-seq').innerText()).toBe(seq);
  });

  it('the blame column names the seq that last changed version, license and devDependencies', async () => {
    const rev = became();
    await tab('tree');
    await page.getByTestId('blame-toggle').check();
    await expand('/lazy');
    await expand('/lazy/history');
    /** The last revision ≤ rev whose document changed `key`. */
    const last = (key: string) => {
      for (let r = rev; r >= 1; r--) {
        const before = docs[r - 2]?.[key] as JsonValue | undefined;
        const now = docs[r - 1]?.[key] as JsonValue | undefined;
        if (r === 1 || before === undefined || now === undefined || !jsonEqual(before, now)) return r;
      }
      return 0;
    };
    for (const key of ['version', 'license', 'devDependencies']) {
      const cell = row(`/lazy/history/${key}`).getByTestId('blame');
      await cell.waitFor();
      expect(Number(await cell.getAttribute('data-seq')), key).toBe(await seqOf(STREAM, last(key)));
      expect(await cell.innerText(), key).toContain(`rev ${last(key)}`);
    }
    await shot('v2-2-blame', 'history-browser.png');
    await page.getByTestId('blame-toggle').uncheck();
  });

  it('a fork shows in the lineage, and a click on it moves to the fork point in its source', async () => {
    await open(FORK);
    await tab('lineage');
    const fork = page.locator('[data-testid="lineage-event"][data-kind="fork"]');
    await fork.waitFor();
    expect(await fork.innerText()).toContain(`forked from ${STREAM} rev ${FORK_AT}`);
    expect(await page.locator('svg.lineage-graph .lane-name').count()).toBe(2);
    await shot('v2-3-lineage', 'history-lineage.png');
    await page.locator('[data-testid="lineage-mark"] circle').first().click();
    await treeAt(FORK_AT);
    expect(await page.getByTestId('selection-title').innerText()).toBe(STREAM);
    expect(await cursor()).toBe(await seqOf(STREAM, FORK_AT));
  });

  it('a LangGraph thread written by the saver reads as steps with its messages', async () => {
    await open(THREAD);
    await tab('steps');
    const steps = page.getByTestId('langgraph-step');
    await steps.first().waitFor();
    expect(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-step')))).toEqual(['-1', '0', '1', '2', '3', '4']);
    const messages = await steps.last().getByTestId('step-messages').innerText();
    expect(messages.split('\n').map((l) => l.trim())).toEqual(['human otters', 'ai plan: write about otters', 'ai draft ready', 'human yes', 'ai published: On otters']);
    expect(await steps.nth(1).getByTestId('step-writes').innerText()).toMatch(/^plan \(\w+\) → messages: /);
    expect(await page.getByTestId('langgraph-steps').innerText()).not.toMatch(/\$len|\$pages|\$null/);
    await shot('v2-4-langgraph-steps', 'history-langgraph-steps.png');
  });

  it('runs the audit as a job on the server, with its progress and a clean report', async () => {
    await tab('audit');
    await page.getByTestId('audit-start').click();
    await page.waitForSelector('[data-testid="audit-job"][data-state="done"]');
    const lastSeq = (await api('/v1/history/streams?limit=1')).lastSeq;
    expect(await page.getByTestId('audit-report').innerText()).toContain(`✓ clean: ${lastSeq} transitions`);
    expect(await page.getByTestId('audit-progress').innerText()).toBe(`done: ${lastSeq} of ${lastSeq} log records verified`);
    await shot('v2-5-audit', 'history-audit.png');
  });

  it('fix: the effective view shows the last transition that changed its streams, not the one at the cursor', async () => {
    await tab('tree');
    await page.getByTestId('effective-cwd').fill('/proj');
    await page.getByRole('button', { name: 'Show effective view' }).click();
    const lastSeq = (await api('/v1/history/streams?limit=1')).lastSeq as number;
    await page.getByTestId('histogram').focus();
    await page.keyboard.press('End');
    await page.waitForSelector(`[data-testid="tree"][data-cursor="${lastSeq}"]`);
    // The last transition changed global; the one before it the XSS stream, which is not selected.
    await page.getByTestId('histogram').focus();
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector(`[data-testid="tree"][data-cursor="${lastSeq - 1}"]`);
    const proj = await api(`/v1/store/head?stream=${encodeURIComponent(STREAM)}`);
    await page.waitForFunction((seq) => document.querySelector('[data-testid="inspector-seq"]')?.textContent === String(seq), proj.seq);
  });

  it('fix: a long stream name is cut in the middle, the whole name on hover', async () => {
    const shown = page.getByTestId('streams').locator(`[data-stream="${FORK}"] .stream-id span`);
    const text = await shown.innerText();
    expect(text).toContain('…');
    expect(text.endsWith('fork-alpha')).toBe(true);
    expect(text.startsWith('cwd:/home')).toBe(true);
    expect(await shown.getAttribute('title')).toBe(FORK);
  });

  it('fix: the axis is in the permalink, "over seq" names its ends by seq, and a meta-dated stream says which time is shown', async () => {
    await open(STREAM);
    await page.waitForSelector('[data-testid="axis-date"]:checked');
    await page.waitForFunction(() => document.querySelector('[data-testid="axis-name"]')?.textContent?.includes('meta date') === true);
    expect(await page.getByTestId('axis-name').innerText()).toContain('meta date');
    expect(await page.getByTestId('axis-ends').innerText()).toContain('2013-06-');
    await page.getByTestId('axis-seq').click();
    await page.waitForFunction(() => location.hash.includes('axis=seq'));
    await page.waitForFunction(() => /^seq \d+/.test(document.querySelector('[data-testid="axis-ends"] span')?.textContent ?? ''));
    const link = await page.evaluate(() => location.href);
    const other = await browser.newPage();
    await other.goto(link);
    await other.waitForSelector('[data-testid="axis-seq"]:checked');
    await other.close();
    await page.getByTestId('axis-time').click();
    await page.waitForFunction(() => location.hash.includes('axis=time'));
    // The permalink follows the pick at once; the axis' name with the next render.
    await page.waitForFunction(() => document.querySelector('[data-testid="axis-name"]')?.textContent?.includes('accepted') === true);
    expect(await page.getByTestId('axis-name').innerText()).toContain('accepted');
  });

  it("fix: clicking a key's text expands it", async () => {
    await tab('tree');
    await page.waitForSelector('[data-testid="tree-rows"] [data-pointer="/lazy"]');
    const lazyOpen = await page.locator('[data-testid="tree-rows"] [data-pointer^="/lazy/"]').count();
    if (lazyOpen > 0) {
      await row('/lazy').locator('.key').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="tree-rows"] [data-pointer^="/lazy/"]').length === 0);
    }
    await row('/lazy').locator('.key').click();
    await page.waitForSelector('[data-testid="tree-rows"] [data-pointer="/lazy/history"]');
  });

  it('stored XSS payloads render as text: in the rail, the tree, the title and search hits', async () => {
    await open(XSS_STREAM);
    await page.waitForSelector(`[data-testid="tree-rows"] [data-pointer="/${XSS.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('"', '\\"')}"]`);
    expect(await page.getByTestId('tree-rows').innerText()).toContain(XSS);
    await tab('search');
    await page.getByTestId('search-key').fill('');
    await page.getByTestId('search-mode').selectOption('text');
    await page.getByTestId('search-input').fill('<b>');
    await page.getByTestId('search-go').click();
    await page.getByTestId('search-hit').first().waitFor();
    expect(await page.getByTestId('search-hits').innerText()).toContain('babel <b>bold</b>');
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img[src="x"], b:has-text("bold"), script:has-text("__xss")').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
