/**
 * What the history page names a transition by: the stream and revision it produced, its seq and
 * time, and, when its meta says, a date and a writer. The meta is the caller's, so these are read
 * by convention: `meta.date` (or `meta.import.date`, which `stateflow import` and `import-git`
 * write) when it is a string that parses as a date; the writer is core's `metaWriter` (the
 * stamped `meta.writer`, or a conventional string key).
 */
import { isJsonObject, metaWriter } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Transition } from '@stateflow/store';

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

/** `transition`, which produced revision `rev` of `stream`, as the page names it. */
export function transitionRef(transition: Transition, stream: string, rev: number): TransitionRef {
  const date = metaDate(transition.meta);
  const writer = metaWriter(transition.meta);
  return { stream, rev, seq: transition.seq, time: transition.time, ...(date === undefined ? {} : { date }), ...(writer === undefined ? {} : { writer }) };
}
