/**
 * The history page's merge view end to end: a real `stateflow serve` (spawned binary, LevelDB
 * store in a temp directory) with the eslint `package.json` history imported into `cwd:/proj`,
 * forked twice (`cwd:/proj-a`, `cwd:/proj-b`) and both forks edited — `version` set differently,
 * `author` deleted on one and changed on the other, other keys on one side each — then, in headless Chromium: preview merging
 * `proj-a` into `proj-b` (the diff it would publish and the conflict with base, ours and theirs),
 * a publish refused because `proj-b` moved on after the preview (the page says so, nothing is
 * published), a fresh preview, a JSON value as the conflict's resolution, and the publish —
 * checked through the store API. The view is saved as test/ui/artifacts/merge-preview.png (the
 * README's docs/merge-preview.png is a copy).
 *
 * Needs Chromium and the shared histories: without them the suite is skipped with a visible
 * message; under CI=true it fails instead.
 */
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { JsonObject } from '@stateflow/core';
import { HISTORIES, historiesAvailable, loadExpected, removeDir, stateflow, stopServe, tempDir } from '../cli/helpers.js';
import { ARTIFACTS, chromiumAvailable, launchBrowser } from './browser.js';
import { callApi, startPageServer } from './page-server.js';

const FILE = 'eslint-package-json.jsonl';
const SOURCE = 'cwd:/proj';
const A = 'cwd:/proj-a';
const B = 'cwd:/proj-b';

const available = historiesAvailable([FILE]) && chromiumAvailable();

(available ? describe : describe.skip)('the history page previews and publishes a merge of two forks', () => {
  let root: string;
  let server: ChildProcessWithoutNullStreams;
  let base: string;
  let pageUrl: string;
  let browser: Browser;
  let page: Page;
  let head: JsonObject;
  let sourceRev: number;
  const pageErrors: string[] = [];

  const api = <T = any>(route: string, body?: unknown): Promise<T> => callApi<T>(base, route, body);
  const history = (patch: JsonObject) => ({ lazy: { history: patch } });
  const stateOf = async (stream: string) => (await api<{ rev: number; state: { lazy: { history: JsonObject } } }>(`/v1/store/state?stream=${encodeURIComponent(stream)}`));
  const publish = (stream: string, patch: JsonObject) => api('/v1/store/publish', { changes: { [stream]: history(patch) } });

  beforeAll(async () => {
    root = await tempDir();
    const dir = path.join(root, 'store');
    const expected = await loadExpected(path.join(HISTORIES, FILE));
    head = expected.docs[expected.docs.length - 1] as JsonObject;
    sourceRev = expected.docs.length;
    const imported = await stateflow(['--dir', dir, '--cwd', '/proj', 'import', path.join(HISTORIES, FILE), '--stream', SOURCE, '--at', 'lazy.history']);
    expect(imported.code, imported.stderr).toBe(0);
    ({ child: server, base, pageUrl } = await startPageServer(['--dir', dir, 'serve', '--port', '0']));
    // Two forks of the source at its head, each edited: version on both (a conflict), one key each.
    for (const to of [A, B]) await api('/v1/store/fork', { from: SOURCE, to, expected: 'none' });
    await publish(A, { version: '11.0.0-a', author: null, scripts: { 'merge:demo': 'node merge-demo.js' } });
    await publish(B, { version: '11.0.0-b', author: 'Person 2', description: 'An AST-based pattern checker (fork b).' });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pageUrl);
  });

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) await stopServe(server);
    if (root !== undefined) await removeDir(root);
  });

  const preview = async () => {
    await page.getByTestId('merge-preview').click();
    await page.waitForSelector('[data-testid="merge-summary"]');
  };

  it('previews the merge: the sides and their base, the diff it would publish, the conflict with base, ours and theirs', async () => {
    await page.locator(`[data-stream="${A}"]`).click();
    await page.getByTestId('tab-merge').click();
    expect(await page.getByTestId('merge-from').inputValue()).toBe(A);
    await page.getByTestId('merge-into').fill(B);
    await preview();
    expect(await page.getByTestId('merge-sides').innerText()).toBe(`${A}@2 into ${B}@2, from their merge base ${SOURCE}@${sourceRev}`);
    expect(await page.getByTestId('merge-diff').innerText()).toBe('+ /lazy/history/scripts/merge:demo: "node merge-demo.js"');
    expect(JSON.parse((await page.getByTestId('merge-patch').textContent()) ?? '')).toEqual(history({ scripts: { 'merge:demo': 'node merge-demo.js' } }));
    const conflict = page.locator('[data-testid="merge-conflicts"] tr[data-path="/lazy/history/version"]');
    expect(await conflict.locator('td').evaluateAll((cells) => cells.slice(0, 3).map((c) => c.textContent))).toEqual([
      JSON.stringify(head['version']),
      '"11.0.0-b"',
      '"11.0.0-a"',
    ]);
    const deleted = page.locator('[data-testid="merge-conflicts"] tr[data-path="/lazy/history/author"]');
    expect(await deleted.locator('td').evaluateAll((cells) => cells.slice(0, 3).map((c) => c.textContent))).toEqual([JSON.stringify(head['author']), '"Person 2"', '(absent)']);
    expect(await page.locator('[data-testid="merge-conflicts"] tbody tr').count()).toBe(2);
    // Nothing is published until every conflict has a resolution.
    expect(await page.getByTestId('merge-publish').isDisabled()).toBe(true);
    await conflict.getByTestId('pick-value').check();
    await conflict.getByTestId('pick-value-text').fill('"11.1.0"');
    expect(await page.getByTestId('merge-problems').innerText()).toBe('/lazy/history/author: choose ours, theirs or a value');
    expect(await page.getByTestId('merge-publish').isDisabled()).toBe(true);
    await deleted.getByTestId('pick-ours').check();
    expect(await page.getByTestId('merge-publish').isDisabled()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'merge-preview.png') });
  });

  it('refuses to publish over a head that moved after the preview, and says so', async () => {
    const moved = await publish(B, { homepage: 'https://example.org/fork-b' });
    expect(moved.transition.changes[0].rev).toBe(3);
    await page.getByTestId('merge-publish').click();
    const message = page.getByTestId('action-message');
    await message.waitFor();
    expect(await message.getAttribute('role')).toBe('alert');
    expect(await message.innerText()).toMatch(new RegExp(`^Conflict: .*\\. ${B} changed since this preview showed revision 2; nothing was published\\. Preview again`));
    const after = await stateOf(B);
    expect(after.rev).toBe(3);
    expect(after.state.lazy.history['version']).toBe('11.0.0-b');
  });

  it('previews again, publishes with a JSON value for the conflict, and the store holds the merge', async () => {
    await preview();
    expect(await page.getByTestId('merge-sides').innerText()).toBe(`${A}@2 into ${B}@3, from their merge base ${SOURCE}@${sourceRev}`);
    const conflict = page.locator('[data-testid="merge-conflicts"] tr[data-path="/lazy/history/version"]');
    await conflict.getByTestId('pick-value').check();
    await conflict.getByTestId('pick-value-text').fill('"11.1.0"');
    await page.locator('[data-testid="merge-conflicts"] tr[data-path="/lazy/history/author"]').getByTestId('pick-ours').check();
    await page.getByTestId('merge-publish').click();
    await page.getByTestId('confirm').waitFor();
    expect(JSON.parse((await page.getByTestId('confirm-patch').textContent()) ?? '')).toEqual(history({ version: '11.1.0', scripts: { 'merge:demo': 'node merge-demo.js' } }));
    await page.getByTestId('confirm-yes').click();
    await page.waitForSelector(`[data-testid="action-message"][role="status"]`);
    const text = await page.getByTestId('action-message').innerText();
    const seq = Number(/published transition (\d+)\.$/.exec(text)?.[1]);
    expect(text).toBe(`Merged ${A} into ${B}: published transition ${seq}.`);
    const merged = await stateOf(B);
    expect(merged.rev).toBe(4);
    expect(merged.state.lazy.history).toEqual({
      ...head,
      version: '11.1.0',
      author: 'Person 2',
      description: 'An AST-based pattern checker (fork b).',
      homepage: 'https://example.org/fork-b',
      scripts: { ...(head['scripts'] as JsonObject), 'merge:demo': 'node merge-demo.js' },
    });
    const transition = await api(`/v1/store/transitions/${seq}`);
    // The server stamps who wrote it (the page's request: the local user over HTTP).
    expect(transition.meta).toEqual({ merge: { from: A, fromRev: 2, base: { stream: SOURCE, rev: sourceRev } }, writer: { user: 'local', surface: 'http', request: expect.any(String) } });
    expect(transition.changes.map((c: { stream: string; rev: number }) => [c.stream, c.rev])).toEqual([[B, 4]]);
    // A second merge brings nothing new.
    await preview();
    expect(await page.getByTestId('merge-summary').innerText()).toContain(`${B} already holds every change of ${A} since the base.`);
    expect(pageErrors).toEqual([]);
  });
});
