/**
 * What the history page names a transition by: the stream and revision it produced, its seq and
 * time, and, when its meta says, a date and a writer. The meta is the caller's, so these are read
 * by convention: `meta.date` (or `meta.import.date`, which `stateflow import` and `import-git`
 * write) when it is a string that parses as a date; the writer is the first string of
 * `meta.writer`, `meta.user` (session records), `meta.agent`, `meta.author`.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Transition } from '@stateflow/store';

/** The keys of meta that name a writer, in the order they are tried. */
const WRITER_KEYS = ['writer', 'user', 'agent', 'author'] as const;

/** A transition as the page names it (contract `transitionRef`). */
export interface TransitionRef {
  stream: string;
  rev: number;
  seq: number;
  time: string;
  date?: string;
  writer?: string;
}

/** The date the meta carries (`meta.date`, else `meta.import.date`), when it parses as a date. */
export function metaDate(meta: JsonObject | undefined): string | undefined {
  if (meta === undefined) return undefined;
  const imported = meta['import'];
  const date = meta['date'] ?? (isJsonObject(imported) ? imported['date'] : undefined);
  return typeof date === 'string' && !Number.isNaN(Date.parse(date)) ? date : undefined;
}

/** Who wrote the transition, when its meta says (see the module comment). */
export function metaWriter(meta: JsonObject | undefined): string | undefined {
  if (meta === undefined) return undefined;
  for (const key of WRITER_KEYS) {
    const value = meta[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** `transition`, which produced revision `rev` of `stream`, as the page names it. */
export function transitionRef(transition: Transition, stream: string, rev: number): TransitionRef {
  const date = metaDate(transition.meta);
  const writer = metaWriter(transition.meta);
  return { stream, rev, seq: transition.seq, time: transition.time, ...(date === undefined ? {} : { date }), ...(writer === undefined ? {} : { writer }) };
}
