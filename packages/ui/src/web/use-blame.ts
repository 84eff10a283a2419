/**
 * The blame column's data: for each open level of a stream's tree at the revision shown, which
 * transition last changed each child (`GET /v1/history/blame`, one request per level, fetched
 * once per revision and level, following its `next`). Off (nothing fetched) until the user turns
 * the column on.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { BlameEntry, BlamePage, Selection } from './types.js';

/** Children blamed per level, at most (the server's page bound). */
const BLAME_LIMIT = 2000;

/** Blame entries by child pointer, for the levels loaded at `rev`. */
export type BlameMap = ReadonlyMap<string, BlameEntry>;

/**
 * One level's blame, following `next`: with API keys a page may end at the server's work budget
 * (server README "Limits"), and `page(until)` reads on below it. Per child, the first page's
 * change that is not null wins, else the last page's `atOrBefore`: the answer of one unbounded request.
 */
export async function blameLevel(page: (until: number | undefined) => Promise<BlamePage>): Promise<BlameEntry[]> {
  let current = await page(undefined);
  const entries = [...current.entries];
  while (current.next !== null) {
    current = await page(current.next);
    current.entries.forEach((entry, i) => {
      if (entries[i]?.change === null) entries[i] = entry;
    });
  }
  return entries;
}

/** The blame of the open levels (`''` and each pointer of `open`) of `selection` at `rev`; empty when off or not a stream. */
export function useBlame(selection: Selection, rev: number | null, open: ReadonlySet<string>, on: boolean): BlameMap {
  const [levels, setLevels] = useState<{ key: string; byLevel: Map<string, BlameEntry[]> }>({ key: '', byLevel: new Map() });
  const stream = selection.type === 'stream' ? selection.stream : null;
  const key = `${stream ?? ''}@${rev ?? ''}`;
  const wanted = ['', ...open];

  useEffect(() => {
    if (!on || stream === null || rev === null || rev === 0) return;
    const known = levels.key === key ? levels.byLevel : new Map<string, BlameEntry[]>();
    const missing = wanted.filter((pointer) => !known.has(pointer));
    if (missing.length === 0 && levels.key === key) return;
    let live = true;
    void Promise.all(
      missing.map((pointer) =>
        blameLevel((until) => get<BlamePage>(`/v1/history/blame${query({ stream, rev, pointer, limit: BLAME_LIMIT, until })}`)).then(
          (entries): [string, BlameEntry[]] => [pointer, entries],
          (): [string, BlameEntry[]] => [pointer, []],
        ),
      ),
    ).then((pages) => {
      if (!live) return;
      setLevels((current) => {
        const byLevel = new Map(current.key === key ? current.byLevel : []);
        for (const [pointer, entries] of pages) byLevel.set(pointer, entries);
        return { key, byLevel };
      });
    });
    return () => {
      live = false;
    };
  }, [on, key, wanted.join('\n')]);

  const out = new Map<string, BlameEntry>();
  if (on && levels.key === key) for (const entries of levels.byLevel.values()) for (const entry of entries) out.set(entry.pointer, entry);
  return out;
}
