/**
 * The history page reads a history written under shape v1 as current (store README "Shapes"):
 * a real `stateflow serve` over a LevelDB store where `session:1` was written under v1 of the
 * shape `note` and then upgraded to v2 (`title` → `name`, `tags` a list) and v3 (`status`
 * defaulted), driven in headless Chromium. Stored, the tree shows each revision as written; with
 * the toggle on current, every revision shows in v3, the header names the version it was written
 * in, and the revisions list shows each revision's version. A screenshot goes to
 * test/ui/artifacts/ (never to docs/).
 *
 * Needs Chromium: without it the suite is skipped with a visible message; under CI=true it fails.
 */
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { JsonObject } from '@stateflow/core';
import { setShape } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, stopServe, tempDir } from '../cli/helpers.js';
import { ARTIFACTS, chromiumAvailable, launchBrowser } from './browser.js';
import { callApi, startPageServer } from './page-server.js';

const STREAM = 'session:1';
const V1 = { type: 'object', properties: { title: { type: 'string' }, tags: { type: 'string' } }, required: ['title'] };
const V2 = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'], additionalProperties: false };
const V3 = { ...V2, properties: { ...V2.properties, status: { type: 'string' } }, required: ['name', 'status'] };

(chromiumAvailable() ? describe : describe.skip)('the history page reads a v1 history as current', () => {
  let root: string;
  let server: ChildProcessWithoutNullStreams;
  let base: string;
  let browser: Browser;
  let page: Page;
  /** Per global seq: the stream's revision then, and its state stored and in v3 (read through the library). */
  const expected: Array<{ rev: number; stored: JsonObject; current: JsonObject }> = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    root = await tempDir();
    const dir = path.join(root, 'store');
    const store = await openStore(dir);
    try {
      await setShape(store, 'note', { streams: 'session:*', schema: V1 });
      await store.publish({ changes: { [STREAM]: { title: 'plan', tags: 'draft' } } });
      await store.publish({ changes: { [STREAM]: { title: 'plan v2' } } });
      await store.publish({ changes: { [STREAM]: { tags: 'todo' } } });
      await setShape(store, 'note', { streams: 'session:*', schema: V2, upcast: [{ op: 'move', from: '/title', path: '/name' }, { op: 'wrap', path: '/tags' }] });
      await setShape(store, 'note', { streams: 'session:*', schema: V3, upcast: [{ op: 'default', path: '/status', value: 'open' }] });
      for (let seq = 1; seq <= store.lastSeq(); seq++) {
        const rev = await revisionAsOf(store, seq);
        expected.push({ rev, stored: rev === 0 ? {} : await store.stateAt(STREAM, rev), current: rev === 0 ? {} : await store.stateAt(STREAM, rev, { shape: 'current' }) });
      }
    } finally {
      await store.close();
    }
    let pageUrl: string;
    ({ child: server, base, pageUrl } = await startPageServer(['--dir', dir, 'serve', '--port', '0']));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pageUrl);
    await page.waitForFunction(() => !location.hash.includes('token='));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) await stopServe(server);
    if (root !== undefined) await removeDir(root);
  });

  /** What the tree shows at the top level: each key with its value's text (a container as its kind). */
  const shown = async (): Promise<Record<string, string>> =>
    page.locator('[data-testid="tree-rows"] .node[data-pointer]').evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((r) => {
          const value = r.querySelector('[data-testid="node-value"]');
          const kind = [...(value?.classList ?? [])].find((c) => c.startsWith('kind-')) ?? '';
          return [r.getAttribute('data-pointer') ?? '', kind === 'kind-array' || kind === 'kind-object' ? kind : (value?.textContent ?? '')];
        }),
      ),
    );
  /** The same, from a state: a string as its JSON text, a list or object as its kind. */
  const expectedRows = (state: JsonObject): Record<string, string> =>
    Object.fromEntries(Object.entries(state).map(([k, v]) => [`/${k}`, Array.isArray(v) ? 'kind-array' : typeof v === 'object' ? 'kind-object' : JSON.stringify(v)]));
  const treeAtCursor = (seq: number) => page.waitForSelector(`[data-testid="tree"][data-cursor="${seq}"]`);

  it('stored shows the bytes as written; current shows every revision in v3, with the version it was written in', async () => {
    const early = (await callApi<{ seq: number }>(base, `/v1/store/revision-seq?stream=${encodeURIComponent(STREAM)}&rev=2`)).seq;
    await page.goto(`${base}/ui/#stream=${encodeURIComponent(STREAM)}&seq=${early}`);
    await page.waitForSelector('[data-testid="tree"][data-rev="2"] [data-pointer="/title"]');
    expect(await shown()).toEqual(expectedRows(expected[early - 1]!.stored));
    expect(await shown()).toEqual({ '/title': '"plan v2"', '/tags': '"draft"' });
    expect(await page.getByTestId('shape-facts').innerText()).toBe('shape note: written in v1, shown as v1 (latest v3)');

    await page.getByTestId('shape-current').check();
    await page.waitForSelector('[data-testid="tree"][data-rev="2"] [data-pointer="/name"]');
    expect(await shown()).toEqual({ '/name': '"plan v2"', '/tags': 'kind-array', '/status': '"open"' });
    expect(await page.getByTestId('shape-facts').innerText()).toBe('shape note: written in v1, shown as v3 (latest v3)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'shapes-1-current.png') });

    // Every seq from the first: the stream's revision as of it, read in v3 (the toggle stays on).
    await page.getByTestId('histogram').focus();
    await page.keyboard.press('Home');
    for (const [i, want] of expected.entries()) {
      if (i > 0) await page.keyboard.press('ArrowRight');
      await treeAtCursor(i + 1);
      if (want.rev > 0) await page.waitForSelector(`[data-testid="tree"][data-rev="${want.rev}"] [data-pointer="/name"]`);
      expect(await shown(), `seq ${i + 1}`).toEqual(expectedRows(want.current));
      const written = want.rev === 0 ? 0 : want.rev <= 3 ? 1 : want.rev - 2;
      expect(await page.getByTestId('shape-facts').innerText(), `seq ${i + 1}`).toBe(`shape note: written in v${written}, shown as v3 (latest v3)`);
    }
    expect(expected.map((e) => e.rev)).toEqual([0, 1, 2, 3, 3, 4, 4, 5]);
    expect(expected.filter((e) => e.rev > 0).every((e) => e.current['status'] === 'open' && Array.isArray(e.current['tags']))).toBe(true);
  });

  it('the revisions list shows the version each revision was written in', async () => {
    await page.getByTestId('tab-revisions').click();
    await page.waitForSelector('[data-testid="revision-rows"] [data-rev="5"]');
    const badges = await page
      .locator('[data-testid="revision-rows"] .rev-row[data-rev]')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-rev'), r.querySelector('[data-testid="shape-version"]')?.textContent ?? null]));
    expect(badges).toEqual([
      ['1', 'shape note v1'],
      ['2', 'shape note v1'],
      ['3', 'shape note v1'],
      ['4', 'shape note v2'],
      ['5', 'shape note v3'],
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'shapes-2-revisions.png') });
    expect(pageErrors).toEqual([]);
  });
});

/** The revision `STREAM` had as of global seq `seq`. */
async function revisionAsOf(store: Awaited<ReturnType<typeof openStore>>, seq: number): Promise<number> {
  let rev = 0;
  for await (const t of store.transitions({ stream: STREAM, to: seq })) rev = t.changes.find((c) => c.stream === STREAM)?.rev ?? rev;
  return rev;
}
