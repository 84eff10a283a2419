/**
 * The writers' operations: what a writer runs next, drawn from the plan — publish (one or two
 * streams, expected revisions read just before or stale, idempotency ids, fsync or buffered),
 * publishMany, fork, merge, revert, compaction, idempotent retries of earlier calls, and reads
 * (current and historical state) — and running one against a store, with the answer reduced to
 * what the checks need. Patches lean on the edge cases the store must refuse whole: an empty
 * patch, an index out of range, a non-object `lazy` plane.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { ExpectedRevision, Store } from '@stateflow/store';
import type { OkValue, OpSpec, PublishSpec } from './history.js';
import type { Plan } from './plan.js';

/** The streams operations pick from. */
export const STREAMS = ['global', 'cwd:/w', 'session:a', 'session:b'] as const;

const KEYS = ['a', 'b', 'c', 'plan', 'list'] as const;

function value(plan: Plan, depth: number): JsonValue {
  const kind = plan.weighted<string>([['int', 4], ['text', 2], ['array', depth < 2 ? 2 : 0], ['object', depth < 2 ? 2 : 0]]);
  if (kind === 'int') return plan.int(-3, 20);
  if (kind === 'text') return plan.pick(['', 'x', 'draft', 'ship']);
  if (kind === 'array') return Array.from({ length: plan.int(0, 3) }, () => value(plan, depth + 1));
  const out: Record<string, JsonValue> = {};
  for (let n = plan.int(1, 2); n > 0; n--) out[plan.pick(KEYS)] = value(plan, depth + 1);
  return out;
}

/** A patch: mostly 1–3 keys set, deleted, merged into or indexed; now and then one the store must refuse. */
function patch(plan: Plan): JsonObject {
  const kind = plan.weighted<string>([['keys', 30], ['empty', 1], ['lazy', 1]]);
  if (kind === 'empty') return {};
  if (kind === 'lazy') return { lazy: 5 };
  const out: Record<string, JsonValue> = {};
  for (let n = plan.int(1, 3); n > 0; n--) {
    const key = plan.pick(KEYS);
    const how = plan.weighted<string>([['set', 6], ['delete', 2], ['merge', key === 'list' ? 0 : 2], ['index', key === 'list' ? 2 : 0]]);
    if (how === 'delete') out[key] = null;
    else if (how === 'index') out['list'] = { [`[${plan.int(0, 2)}]`]: plan.int(0, 9) };
    else if (how === 'merge') out[key] = { [plan.pick(KEYS)]: value(plan, 1) };
    else if (key === 'list') out[key] = Array.from({ length: plan.int(1, 3) }, () => plan.int(0, 9));
    else out[key] = value(plan, 0);
  }
  return out;
}

/** A writer's memory: the revisions it has seen, its calls to retry, and a counter for labels. */
export interface WriterState {
  name: string;
  n: number;
  /** Highest revision of each stream this writer has seen. */
  seen: Map<string, number>;
  /** Calls with idempotency ids, to retry (the ones whose outcome was unknown, and some others). */
  retries: OpSpec[];
  /** Streams forked one into the other (`[from, to]`, shared by the writers): a merge between them has a base. */
  forks: [string, string][];
}

function publishSpec(plan: Plan, writer: WriterState, marker: string): { input: PublishSpec; expectHead: string | null } {
  const streams = plan.chance(0.3) ? [plan.pick(STREAMS), plan.pick(STREAMS)] : [plan.pick(STREAMS)];
  const changes: Record<string, JsonObject> = {};
  for (const s of streams) changes[s] = patch(plan);
  const first = streams[0] as string;
  const expect = plan.weighted<string>([['any', 4], ['head', 4], ['stale', 1], ['none', 1]]);
  const expected: Record<string, ExpectedRevision> = {};
  if (expect === 'stale') expected[first] = Math.max(0, (writer.seen.get(first) ?? 0) - plan.int(0, 2));
  if (expect === 'none') expected[first] = 'none';
  const input: PublishSpec = { marker, changes, expected, durability: plan.chance(0.3) ? 'fsync' : 'buffered' };
  if (plan.chance(0.6)) input.id = `id-${marker}`;
  return { input, expectHead: expect === 'head' ? first : null };
}

/** A retry of `spec` with the same idempotency ids and new markers. */
function retryOf(spec: OpSpec, marker: string): OpSpec {
  if (spec.kind === 'publish') return { ...spec, input: { ...spec.input, marker }, expectHead: null };
  if (spec.kind === 'publishMany') return { ...spec, inputs: spec.inputs.map((input, i) => ({ ...input, marker: `${marker}/${i}` })) };
  if (spec.kind === 'merge') return { ...spec, marker };
  return spec;
}

/** The next operation of `writer` (`'restart'`: close and open its process's store cleanly). */
export function nextOp(plan: Plan, writer: WriterState, label: string): OpSpec | 'restart' {
  const kind = plan.weighted<string>([
    ['publish', 36], ['publishMany', 8], ['fork', 6], ['merge', 6], ['revert', 5], ['compact', 5],
    ['retry', writer.retries.length > 0 ? 10 : 0], ['state', 7], ['stateAt', 6], ['restart', 1],
  ]);
  const stream = plan.pick(STREAMS);
  const rev = (s: string): number => plan.int(0, (writer.seen.get(s) ?? 0) + 1);
  switch (kind) {
    case 'publish':
      return { kind: 'publish', ...publishSpec(plan, writer, label) };
    case 'publishMany':
      return { kind: 'publishMany', inputs: Array.from({ length: plan.int(2, 3) }, (_, i) => publishSpec(plan, writer, `${label}/${i}`).input) };
    case 'fork': {
      const to = plan.pick(STREAMS.filter((s) => s !== stream));
      return { kind: 'fork', from: stream, to, ...(plan.chance(0.3) ? { at: rev(stream) } : {}), expected: plan.chance(0.3) ? 'none' : 'any', id: `id-${label}` };
    }
    case 'merge': {
      // Mostly between streams a fork related (either way), else any two (MERGE_UNRELATED).
      const related = writer.forks.length > 0 && plan.chance(0.8) ? plan.pick(writer.forks) : null;
      const [from, into] = related === null ? [stream, plan.pick(STREAMS.filter((s) => s !== stream))] : plan.chance(0.5) ? related : [related[1], related[0]];
      return { kind: 'merge', from, into, prefer: plan.chance(0.8) ? 'theirs' : 'ours', marker: label, ...(plan.chance(0.6) ? { id: `id-${label}` } : {}) };
    }
    case 'revert':
      return { kind: 'revert', stream, rev: rev(stream) };
    case 'compact':
      return { kind: 'compact', stream, keep: plan.int(1, 4) };
    case 'retry':
      return retryOf(plan.pick(writer.retries), label);
    case 'state':
      return { kind: 'state', stream };
    case 'stateAt':
      return { kind: 'stateAt', stream, rev: rev(stream) };
    default:
      return 'restart';
  }
}

const asInput = (spec: PublishSpec) => ({
  changes: spec.changes,
  expected: spec.expected,
  meta: { sim: spec.marker },
  durability: spec.durability,
  ...(spec.id === undefined ? {} : { id: spec.id }),
});

/**
 * Run `spec` on `store`. A publish that expects the head it reads reads it first, and the
 * expected revision it sends is written into `spec` (the record then shows what was sent).
 */
export async function runOp(store: Store, spec: OpSpec): Promise<OkValue> {
  switch (spec.kind) {
    case 'publish':
      if (spec.expectHead !== null) spec.input.expected[spec.expectHead] = (await store.head(spec.expectHead)).rev;
      return { kind: 'publish', results: [await store.publish(asInput(spec.input))] };
    case 'publishMany':
      return { kind: 'publish', results: await store.publishMany(spec.inputs.map(asInput)) };
    case 'fork':
      return { kind: 'publish', results: [await store.fork(spec.from, spec.to, { expected: spec.expected, id: spec.id, ...(spec.at === undefined ? {} : { at: spec.at }) })] };
    case 'merge':
      return { kind: 'merge', result: await store.merge({ from: spec.from, into: spec.into, prefer: spec.prefer, meta: { sim: spec.marker }, ...(spec.id === undefined ? {} : { id: spec.id }) }) };
    case 'revert':
      return { kind: 'publish', results: [await store.revert(spec.stream, spec.rev)] };
    case 'compact':
      return { kind: 'compact', origin: (await store.compact(spec.stream, { keepRevisions: spec.keep })).origin };
    case 'state':
      return { kind: 'state', state: await store.state(spec.stream) };
    case 'stateAt':
      return { kind: 'state', state: await store.stateAt(spec.stream, spec.rev) };
    case 'audit':
      return { kind: 'audit', problems: (await store.audit()).problems.length };
  }
}
