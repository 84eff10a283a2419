/**
 * Headless Chromium for the browser tests: Debian's `chromium` driven by playwright-core (no
 * browser download), with the flags that keep it off the network. Absent Chromium skips the
 * tests with a visible message; under CI=true it fails them (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** Without these Chromium tries the network at start and stalls on this machine. */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Screenshots of the views (ignored by git): look at them after a run. */
export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** True when Chromium is installed; false (with a visible message) outside CI; throws under CI. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI'] === 'true') throw new Error(`Chromium is missing under CI: ${CHROMIUM} (.ci/run installs it with apt-get install -y chromium)`);
  console.warn(`SKIPPED: browser tests need ${CHROMIUM} (apt-get install -y chromium)`);
  return false;
}

/** Launch headless Chromium and make sure the artefacts folder exists. */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}
