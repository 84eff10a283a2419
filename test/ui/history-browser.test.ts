/**
 * The history browser end to end: a real `stateflow serve` (spawned binary, LevelDB store in a
 * temp directory) with the eslint history imported and a ladder session with slates, driven in
 * headless Chromium. Each view is saved as a screenshot under test/ui/artifacts/ (ignored by git).
 *
 * Needs Chromium and the shared histories: without them the suite is skipped with a visible
 * message; under CI=true it fails instead.
 */
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { applyPatch, jsonEqual, type JsonObject, type JsonValue } from '@stateflow/core';
import { HISTORIES, historiesAvailable, loadExpected, removeDir, stateflow, stopServe, tempDir, type Expected } from '../cli/helpers.js';
import { ARTIFACTS, chromiumAvailable, launchBrowser } from './browser.js';
import { callApi, startPageServer } from './page-server.js';

const FILE = 'eslint-package-json.jsonl';
const STREAM = 'cwd:/proj';
const REV = 100;

const available = historiesAvailable([FILE]) && chromiumAvailable();

(available ? describe : describe.skip)('the history page on the eslint history', () => {
  let root: string;
  let server: ChildProcessWithoutNullStreams;
  let base: string;
  let pageUrl: string;
  let expected: Expected;
  let browser: Browser;
  let page: Page;
  let session: string;
  const pageErrors: string[] = [];

  const api = <T = any>(route: string, body?: unknown): Promise<T> => callApi<T>(base, route, body);
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const cursor = async () => Number(await page.getByTestId('histogram').getAttribute('aria-valuenow'));
  const treeAt = (rev: number) => page.waitForSelector(`[data-testid="tree"][data-rev="${rev}"]`);
  const row = (pointer: string) => page.locator(`[data-testid="tree-rows"] [data-pointer="${pointer}"]`);
  const expand = async (pointer: string) => {
    await row(pointer).locator('.toggle').click();
    await page.waitForSelector(`[data-testid="tree-rows"] [data-pointer^="${pointer}/"]`);
  };

  /** Move the cursor to `seq`: click its place on the histogram (buckets are wall time), then step with the arrow keys. */
  const moveCursor = async (seq: number, buckets: Array<{ fromSeq: number; toSeq: number }>) => {
    const box = (await page.getByTestId('histogram').boundingBox())!;
    const i = buckets.findIndex((b) => b.fromSeq <= seq && seq <= b.toSeq);
    const b = buckets[i]!;
    const fraction = (i + (seq - b.fromSeq + 0.5) / (b.toSeq - b.fromSeq + 1)) / buckets.length;
    await page.mouse.click(box.x + box.width * fraction, box.y + box.height / 2);
    await page.getByTestId('histogram').focus();
    for (let i = 0; i < 50 && (await cursor()) !== seq; i++) await page.keyboard.press((await cursor()) < seq ? 'ArrowRight' : 'ArrowLeft');
    expect(await cursor()).toBe(seq);
  };

  beforeAll(async () => {
    root = await tempDir();
    const dir = path.join(root, 'store');
    expected = await loadExpected(path.join(HISTORIES, FILE));
    const imported = await stateflow(['--dir', dir, '--cwd', '/proj', 'import', path.join(HISTORIES, FILE), '--stream', STREAM, '--at', 'lazy.history']);
    expect(imported.code, imported.stderr).toBe(0);
    ({ child: server, base, pageUrl } = await startPageServer(['--dir', dir, 'serve', '--port', '0', '--ladders', 'packages/cli/examples/ladders', '--model', 'scripted:packages/cli/examples/notes-model.jsonl']));
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#token=[A-Za-z0-9_-]+$/);
    // A ladder session with two calls: its slate stream gets two revisions after its creation.
    session = (await api<{ id: string }>('/v1/demo/notes/sessions', { name: 'release planning' })).id;
    for (const question of ['When do we ship?', 'What did I ask?']) {
      const response = await fetch(`${base}/v1/demo/notes/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': session },
        body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: question }] }),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pageUrl);
  });

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) await stopServe(server);
    if (root !== undefined) await removeDir(root);
  });

  it('takes the token from the fragment into sessionStorage and off the address bar', async () => {
    const token = /#token=(\S+)$/.exec(pageUrl)?.[1];
    expect(await page.evaluate(() => sessionStorage.getItem('stateflow.credential'))).toBe(token);
    await page.waitForFunction(() => !location.hash.includes('token='));
  });

  it('adopts a credential only at load: a later #token= link leaves the address bar and changes nothing', async () => {
    const token = /#token=(\S+)$/.exec(pageUrl)?.[1];
    await page.evaluate(() => {
      location.hash = '#token=another-users-key';
    });
    await page.waitForFunction(() => !location.hash.includes('token='));
    expect(await page.evaluate(() => sessionStorage.getItem('stateflow.credential'))).toBe(token);
  });

  it('lists the streams grouped by kind with head revision, and opens the stream', async () => {
    await page.waitForSelector(`[data-stream="${STREAM}"]`);
    const rail = await page.getByTestId('streams').innerText();
    expect(rail).toContain('cwd:* (1)');
    expect(rail).toContain('slate:* (1)');
    expect(rail).toContain('ladder-session:* (1)');
    expect(rail).toContain(`rev ${expected.docs.length}`);
    await page.locator(`[data-stream="${STREAM}"]`).click();
    await treeAt(expected.docs.length);
    await shot('1-streams-and-tree-at-head');
  });

  it(`moves the cursor to the transition of revision ${REV} and reads version from the tree`, async () => {
    const seq = (await api(`/v1/history/revisions?stream=${encodeURIComponent(STREAM)}&from=${REV}&limit=1`)).revisions[0].seq as number;
    // The page draws an imported stream over its commits' dates (every transition has one): click on that histogram.
    await page.waitForSelector('[data-testid="axis-date"]:checked');
    const histogram = await api(`/v1/history/histogram?buckets=120&stream=${encodeURIComponent(STREAM)}&axis=date`);
    await moveCursor(seq, histogram.buckets);
    await treeAt(REV);
    await expand('/lazy');
    await expand('/lazy/history');
    const version = await row('/lazy/history/version').getByTestId('node-value').innerText();
    expect(version).toBe(JSON.stringify((expected.docs[REV - 1] as JsonObject)['version']));
    expect(await page.getByTestId('inspector-seq').innerText()).toBe(String(seq));
    await row('/lazy/history/version').click();
    await row('/lazy/history/version').getByRole('button', { name: 'copy path' }).click();
    await page.waitForSelector(`[data-testid="status"]:has-text("Copied cwd[${REV}].lazy.history.version")`);
    expect(await page.getByTestId('hash-verified').innerText()).toContain('✓ verified');
    await shot('2-tree-at-revision-100-with-inspector');
  });

  it('is usable with the keyboard: the tree collapses, expands and moves with arrow keys', async () => {
    const tree = page.getByTestId('tree-rows');
    await tree.focus();
    await page.keyboard.press('Home');
    expect(await tree.getAttribute('aria-activedescendant')).toBe('node-0');
    expect(await page.locator('#node-0').getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#node-0[aria-expanded="false"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#node-0[aria-expanded="true"]');
    await page.keyboard.press('ArrowDown');
    expect(await tree.getAttribute('aria-activedescendant')).toBe('node-1');
    expect(await page.locator('#node-1').getAttribute('data-pointer')).toBe(null);
    expect(await page.locator('#node-1 [data-pointer]').getAttribute('data-pointer')).toBe('/lazy/history');
    // The rail is a listbox: arrows move its active row.
    const rail = page.getByTestId('streams');
    await rail.focus();
    const before = await rail.getAttribute('aria-activedescendant');
    await page.keyboard.press('ArrowDown');
    expect(await rail.getAttribute('aria-activedescendant')).not.toBe(before);
  });

  it(`diff ${REV} → ${REV + 1} shows exactly the stored patch, with signs on every change`, async () => {
    await page.getByTestId('tab-diff').click();
    await page.getByTestId('diff-a').fill(String(REV));
    await page.getByTestId('diff-a').press('Tab');
    await page.getByTestId('diff-b').fill(String(REV + 1));
    await page.getByTestId('diff-b').press('Tab');
    await page.waitForFunction(() => document.querySelector('[data-testid="diff-cli"]')?.textContent === 'stateflow diff cwd:/proj 100 101');
    const rows = await page.getByTestId('diff-entries').innerText();
    expect(rows).toMatch(/[+−~]/);
    await shot('3-diff-structural');
    await page.getByTestId('diff-mode-patch').check();
    const shown = JSON.parse(await page.getByTestId('diff-patch').innerText()) as JsonObject;
    const stored = (await api(`/v1/store/patch?stream=${encodeURIComponent(STREAM)}&rev=${REV + 1}`)).patch as JsonObject;
    expect(shown).toEqual(stored);
    const before = { lazy: { history: expected.docs[REV - 1] as JsonObject } };
    expect(jsonEqual(applyPatch(before, shown), { lazy: { history: expected.docs[REV] as JsonValue } })).toBe(true);
    await shot('4-diff-stored-patch');
  });

  it('path history of version lists the revisions that changed it', async () => {
    const changes: number[] = [];
    expected.docs.forEach((doc, i) => {
      const previous = expected.docs[i - 1];
      if (previous === undefined || !jsonEqual(previous['version'] as JsonValue, doc['version'] as JsonValue)) changes.push(i + 1);
    });
    await page.getByTestId('tab-tree').click();
    await row('/lazy/history/version').click();
    await row('/lazy/history/version').getByRole('button', { name: 'history' }).click();
    await page.waitForSelector('[data-testid="path-history-rows"] [data-rev]');
    const list = page.getByTestId('path-history-rows');
    await list.focus();
    // Scroll to the end until the server says there is nothing further to read.
    for (let i = 0; i < 40 && (await page.getByTestId('path-history-count').innerText()).includes('so far'); i++) {
      await page.keyboard.press('End');
      await page.waitForTimeout(150);
    }
    expect(await page.getByTestId('path-history-count').innerText()).toBe(`${changes.length} changes`);
    await page.keyboard.press('Home');
    await page.waitForSelector('[data-testid="path-history-rows"] [data-rev="1"]');
    const firstRevs = await page.locator('[data-testid="path-history-rows"] [data-rev]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-rev'))));
    expect(firstRevs.slice(0, 10)).toEqual(changes.slice(0, 10));
    await shot('5-path-history-of-version');
  });

  it('draws the histogram over the seq on request, so a burst (the import) spreads over the width', async () => {
    // An imported stream is drawn over its commits' dates by default: wall time first, where the import is one burst.
    await page.getByTestId('axis-time').check();
    await page.waitForFunction(() => document.querySelector('[data-testid="axis-name"]')?.textContent?.includes('accepted') === true);
    const before = await page.locator('.histogram .bar').evaluateAll((bars) => bars.filter((b) => Number(b.getAttribute('height')) > 0).length);
    await page.getByTestId('axis-seq').check();
    await page.waitForFunction((n) => document.querySelectorAll('.histogram .bar[height]').length > 0 && [...document.querySelectorAll('.histogram .bar')].filter((b) => Number(b.getAttribute('height')) > 0).length > n, before);
    expect(await cursor()).toBe(REV);
    await shot('5b-histogram-over-seq');
    await page.getByTestId('axis-time').check();
  });

  it('shows a banner for a live publish instead of moving the cursor', async () => {
    const at = await cursor();
    await api('/v1/store/publish', { changes: { global: { lazy: { ping: 1 } } } });
    await page.waitForSelector('[data-testid="new-banner"]');
    expect(await page.getByTestId('new-banner').innerText()).toContain('1 new transition');
    expect(await cursor()).toBe(at);
    await shot('6-live-banner');
  });

  it('revert to here shows the patch, then publishes one transition with it', async () => {
    await page.getByTestId('tab-tree').click();
    await treeAt(REV);
    const head = (await api(`/v1/store/head?stream=${encodeURIComponent(STREAM)}`)).rev as number;
    const lastSeq = (await api('/v1/history/streams?limit=1')).lastSeq as number;
    const patch = (await api(`/v1/history/diff?stream=${encodeURIComponent(STREAM)}&a=${head}&b=${REV}`)).patch as JsonObject;
    await page.getByTestId('revert').click();
    await page.waitForSelector('[data-testid="confirm"]');
    expect(JSON.parse(await page.getByTestId('confirm-patch').innerText())).toEqual(patch);
    await shot('7-revert-confirmation');
    await page.getByTestId('confirm-yes').click();
    await page.waitForSelector('[data-testid="action-message"]');
    expect(await page.getByTestId('action-message').innerText()).toBe(`Reverted: published transition ${lastSeq + 1}.`);
    const transition = await api(`/v1/store/transitions/${lastSeq + 1}`);
    expect(transition.changes).toEqual([{ stream: STREAM, rev: head + 1, patch }]);
    // The server stamps who wrote it (the page's request: the local user over HTTP).
    expect(transition.meta).toEqual({ revert: { stream: STREAM, rev: REV }, writer: { user: 'local', surface: 'http', request: expect.any(String) } });
    expect((await api('/v1/history/streams?limit=1')).lastSeq).toBe(lastSeq + 1);
    const now = (await api(`/v1/store/state?stream=${encodeURIComponent(STREAM)}`)).state;
    expect(jsonEqual(now, { lazy: { history: expected.docs[REV - 1] as JsonValue } })).toBe(true);
  });

  it("a stale page's revert gets the conflict message and publishes nothing", async () => {
    await treeAt(REV);
    await page.waitForSelector(`[data-testid="tree-rev"]:has-text("of ${expected.docs.length + 1}")`);
    // Revision 101 differs from the head (now equal to 100): its revert has a patch to publish.
    await page.getByTestId('histogram').focus();
    await page.keyboard.press('ArrowRight');
    await treeAt(REV + 1);
    await api('/v1/store/publish', { changes: { [STREAM]: { lazy: { history: { version: 'moved-on' } } } } });
    const lastSeq = (await api('/v1/history/streams?limit=1')).lastSeq as number;
    await page.getByTestId('revert').click();
    await page.waitForSelector('[data-testid="confirm"]');
    await page.getByTestId('confirm-yes').click();
    await page.waitForSelector('[data-testid="action-message"]:has-text("Conflict")');
    expect(await page.getByTestId('action-message').getAttribute('role')).toBe('alert');
    expect((await api('/v1/history/streams?limit=1')).lastSeq).toBe(lastSeq);
    await shot('8-stale-revert-conflict');
  });

  it("shows a ladder session's slates as of each call, and the diff the call made", async () => {
    const slate = `slate:@demo/notes:${session}`;
    await page.getByTestId('new-banner').click();
    await page.locator(`[data-stream="${slate}"]`).click();
    await page.getByTestId('tab-slates').click();
    await page.waitForSelector('[data-testid="slates"]');
    const text = await page.getByTestId('slates').innerText();
    expect(text).toContain('Slates as of call 3');
    expect(text).toContain('messages.md');
    expect(text).toContain('Q: What did I ask? A: When we ship.');
    expect(text).toMatch(/tokens/);
    expect(await page.getByTestId('slates-call-diff').innerText()).toContain('messages.md');
    await shot('9-slates-of-a-session');
    // A slate stream has no read_state path: copy path gives the CLI command and the pointer.
    await page.getByTestId('tab-tree').click();
    await row('/layout').click();
    await row('/layout').getByRole('button', { name: 'copy path' }).click();
    await page.waitForSelector(`[data-testid="status"]:has-text("Copied stateflow --json diff ${slate} 0 3  # then look up /layout")`);
  });

  it('shows the effective view with the scope of each value', async () => {
    await page.getByTestId('effective-cwd').fill('/proj');
    await page.getByRole('button', { name: 'Show effective view' }).click();
    await page.waitForSelector('[data-testid="tree-rev"]:has-text("effective view")');
    await page.waitForSelector('[data-testid="tree-rows"] [data-pointer="/lazy"]');
    expect(await row('/lazy').innerText()).toContain('merged global + cwd');
    await expand('/lazy');
    expect(await row('/lazy/ping').innerText()).toContain('from global');
    expect(await row('/lazy/history').innerText()).toContain('from cwd');
    await shot('10-effective-view');
  });

  it('shows the history before a stream origin as compacted, not as missing', async () => {
    const stream = 'cwd:/compacted';
    for (let i = 1; i <= 8; i++) await api('/v1/store/publish', { changes: { [stream]: { lazy: { n: i } } } });
    const early = (await api(`/v1/history/revisions?stream=${encodeURIComponent(stream)}&from=2&limit=1`)).revisions[0].seq as number;
    const { origin } = await api('/v1/store/compact', { stream, keepRevisions: 2 });
    expect(origin).toBeGreaterThan(2);
    await page.goto(`${base}/ui/#stream=${encodeURIComponent(stream)}&seq=${early}`);
    await page.waitForSelector('[data-testid="tree-compacted"]');
    expect(await page.getByTestId('tree-compacted').innerText()).toContain(`before revision ${origin} was compacted`);
    await shot('12-compacted');
    await page.getByTestId('tab-revisions').click();
    await page.waitForSelector(`[data-testid="revisions"] h2:has-text("1–${origin} compacted")`);
    expect(await page.locator('[data-testid="revisions"] h2').innerText()).toContain(`1–${origin} compacted`);
    await page.getByTestId('tab-tree').click();
  });

  it('lists a stream revisions in a virtualised list', async () => {
    await page.goto(pageUrl);
    await page.locator(`[data-stream="${STREAM}"]`).click();
    await page.getByTestId('tab-revisions').click();
    await page.waitForSelector('[data-testid="revision-rows"] [data-rev]');
    const rendered = await page.locator('[data-testid="revision-rows"] [role="option"]').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(200);
    await shot('11-revisions');
    expect(pageErrors).toEqual([]);
  });
});
