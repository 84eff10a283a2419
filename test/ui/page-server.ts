/**
 * The page tests' server: `stateflow serve` spawned on a free port with the URLs its banner
 * prints (the API's base, and the page's URL with the token in the fragment), and JSON calls to
 * its API that fail loudly with the route, status and body.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { startServe } from '../cli/helpers.js';

/** A running server: the child, the API's base URL, and the page's URL (`…/ui/#token=…`). */
export interface PageServer {
  child: ChildProcessWithoutNullStreams;
  base: string;
  pageUrl: string;
}

/** Start `stateflow <args>` (which include `serve --port 0`) and read its URLs from the banner. */
export async function startPageServer(args: string[]): Promise<PageServer> {
  const started = await startServe(args, {});
  const base = /stateflow serving on (http:\/\/\S+)/.exec(started.banner)?.[1] ?? '';
  const pageUrl = /browser: (http:\/\/\S+)/.exec(started.banner)?.[1] ?? '';
  return { child: started.child, base, pageUrl };
}

/** `GET` (no body) or `POST` (a JSON body) `route` on `base`, its JSON answer; throws with the status and body unless 2xx. */
export async function callApi<T = any>(base: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${route}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as T;
  if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}
