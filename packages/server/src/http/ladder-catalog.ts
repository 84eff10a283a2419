/**
 * The ladders a server serves (server README "Starting it"): every `DIR/<author>/<name>.yaml` (or `.yml`) is loaded
 * and validated at start as `@author/name`. A file that fails is reported and not served; the
 * server still starts.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isStateflowError } from '@stateflow/core';
import { loadLadderFile } from '@stateflow/slates';
import type { Ladder } from '@stateflow/slates';

/** One served ladder. */
export interface LadderEntry {
  /** `@author/name`. */
  id: string;
  /** The YAML file it was loaded from. */
  file: string;
  /** The loaded, validated ladder (config, slate catalog, compiled schemas). */
  ladder: Ladder;
}

/** A ladder file that was not served, and why. */
export interface RejectedLadder {
  file: string;
  /** Error code (`CONFIG_INVALID`, …) or `INVALID_NAME` for a file outside the naming scheme. */
  code: string;
  message: string;
}

/** The ladders loaded from a directory. */
export interface LadderCatalog {
  /** The ladders directory (`serve --ladders`), or `null` when the server was given none. */
  dir: string | null;
  /** Served ladders by id `@author/name`. */
  ladders: ReadonlyMap<string, LadderEntry>;
  rejected: RejectedLadder[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * Load and validate every ladder under `dir` (`undefined`: no ladders).
 * Never throws for a bad ladder; a missing or unreadable `dir` is reported as one rejection.
 */
export async function loadLadderCatalog(dir: string | undefined): Promise<LadderCatalog> {
  const ladders = new Map<string, LadderEntry>();
  const rejected: RejectedLadder[] = [];
  if (dir === undefined) return { dir: null, ladders, rejected };
  let authors: string[];
  try {
    authors = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch (cause) {
    rejected.push({ file: dir, code: 'USAGE', message: `cannot read the ladders directory: ${(cause as Error).message}` });
    return { dir, ladders, rejected };
  }
  for (const author of authors) {
    const files = (await readdir(path.join(dir, author))).filter((f) => /\.ya?ml$/.test(f)).sort();
    for (const fileName of files) {
      const file = path.join(dir, author, fileName);
      const name = fileName.replace(/\.ya?ml$/, '');
      const bare = author.replace(/^@/, '');
      if (!NAME.test(bare) || !NAME.test(name)) {
        rejected.push({ file, code: 'INVALID_NAME', message: 'author and ladder names must match [A-Za-z0-9][A-Za-z0-9_.-]*' });
        continue;
      }
      const id = `@${bare}/${name}`;
      if (ladders.has(id)) {
        rejected.push({ file, code: 'INVALID_NAME', message: `${id} is already served from ${ladders.get(id)?.file}` });
        continue;
      }
      try {
        ladders.set(id, { id, file, ladder: await loadLadderFile(file) });
      } catch (err) {
        if (!isStateflowError(err)) throw err;
        rejected.push({ file, code: err.code, message: err.message });
      }
    }
  }
  return { dir, ladders, rejected };
}
