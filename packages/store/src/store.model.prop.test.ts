/**
 * Model-based test (CONVENTIONS.md "Tests"): random command sequences run against the real
 * store (memory-level and classic-level in a temp dir) and against a plain in-memory model: per
 * stream an array of states indexed by revision, an origin, and the global seq.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, isStateflowError, jsonEqual } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Backend, Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';

const RUNS = Number(process.env.STATEFLOW_FC_RUNS ?? 100);
const SEED = process.env.STATEFLOW_FC_SEED === undefined ? undefined : Number(process.env.STATEFLOW_FC_SEED);
const STREAMS = ['global', 'session:a', 'cwd:/b'] as const;
const K = 3;

interface Model {
  streams: Map<string, { states: JsonObject[]; origin: number }>;
  seq: number;
}
interface Real {
  h: Harness;
}

const streamOf = (m: Model, s: string): { states: JsonObject[]; origin: number } => {
  let entry = m.streams.get(s);
  if (entry === undefined) {
    entry = { states: [{}], origin: 0 };
    m.streams.set(s, entry);
  }
  return entry;
};
const headOf = (m: Model, s: string): number => streamOf(m, s).states.length - 1;
const current = (m: Model, s: string): JsonObject => streamOf(m, s).states[headOf(m, s)] as JsonObject;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (isStateflowError(err)) return err.code;
    throw err;
  }
}

/** The model's expectation for a read of `s`@`rev`: a state or an error code. */
function expectedAt(m: Model, s: string, rev: number): JsonObject | string {
  const entry = streamOf(m, s);
  if (rev > headOf(m, s)) return 'REVISION_NOT_FOUND';
  if (rev < entry.origin) return 'HISTORY_NOT_RETAINED';
  return entry.states[rev] as JsonObject;
}

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom('x', 'y', ''),
  fc.boolean(),
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
  fc.record({ q: fc.integer({ min: 0, max: 2 }) }),
);
const patchArb: fc.Arbitrary<JsonObject> = fc
  .dictionary(fc.constantFrom('a', 'b', 'c', 'lazy'), fc.oneof(valueArb, fc.constant(null), fc.record({ r: fc.oneof(valueArb, fc.constant(null)) })), {
    minKeys: 1,
    maxKeys: 3,
  })
  .map((p) => {
    // A scope stream's lazy plane must stay an object: only merge objects into it.
    if ('lazy' in p && (p.lazy === null || typeof p.lazy !== 'object' || Array.isArray(p.lazy))) p.lazy = { v: 1 };
    return p;
  });
const streamArb = fc.constantFrom(...STREAMS);

class Publish implements fc.AsyncCommand<Model, Real> {
  constructor(readonly changes: [string, JsonObject][]) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const changes = Object.fromEntries(this.changes);
    const next = new Map<string, JsonObject>();
    for (const [s, p] of this.changes) {
      const after = applyPatch(current(m, s), p);
      if (!jsonEqual(after, current(m, s))) next.set(s, after);
    }
    const result = await r.h.store.publish({ changes });
    if (next.size === 0) {
      expect(result.status).toBe('noop');
      return;
    }
    m.seq++;
    expect(result.status).toBe('accepted');
    expect(result.transition?.seq).toBe(m.seq);
    expect(result.transition?.changes.map((c) => [c.stream, c.rev])).toEqual([...next.keys()].map((s) => [s, headOf(m, s) + 1]));
    for (const [s, state] of next) streamOf(m, s).states.push(state);
  }
  toString = (): string => `publish(${JSON.stringify(this.changes)})`;
}

class PublishInvalid implements fc.AsyncCommand<Model, Real> {
  constructor(readonly stream: string) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    // "[N]" on a key that holds no array (or out of range) is invalid; together with a valid change.
    const bad = { zz: { '[7]': 1 } };
    expect(await codeOf(r.h.store.publish({ changes: { global: { a: 1 }, [this.stream]: bad } }))).toBe('PATCH_INVALID');
    expect(r.h.store.lastSeq()).toBe(m.seq);
  }
  toString = (): string => `publishInvalid(${this.stream})`;
}

class PublishConflict implements fc.AsyncCommand<Model, Real> {
  constructor(readonly stream: string) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const actual = headOf(m, this.stream);
    try {
      await r.h.store.publish({ changes: { [this.stream]: { c: 'conflict' } }, expected: { [this.stream]: actual + 1 } });
      throw new Error('expected CONFLICT');
    } catch (err) {
      expect(isStateflowError(err, 'CONFLICT') && err.details).toEqual({ stream: this.stream, expected: actual + 1, actual });
    }
    expect(r.h.store.lastSeq()).toBe(m.seq);
  }
  toString = (): string => `publishConflict(${this.stream})`;
}

class ReadCurrent implements fc.AsyncCommand<Model, Real> {
  constructor(readonly stream: string) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    expect(await r.h.store.state(this.stream)).toEqual(current(m, this.stream));
    const head = await r.h.store.head(this.stream);
    expect([head.rev, head.origin]).toEqual([headOf(m, this.stream), streamOf(m, this.stream).origin]);
  }
  toString = (): string => `state(${this.stream})`;
}

class ReadAt implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly stream: string,
    readonly pick: number,
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const rev = this.pick % (headOf(m, this.stream) + 2);
    const expected = expectedAt(m, this.stream, rev);
    if (typeof expected === 'string') expect(await codeOf(r.h.store.stateAt(this.stream, rev))).toBe(expected);
    else expect(await r.h.store.stateAt(this.stream, rev)).toEqual(expected);
  }
  toString = (): string => `stateAt(${this.stream}, #${this.pick})`;
}

class PatchAt implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly stream: string,
    readonly pick: number,
  ) {}
  check = (m: Readonly<Model>): boolean => headOf(m as Model, this.stream) > 0;
  async run(m: Model, r: Real): Promise<void> {
    const entry = streamOf(m, this.stream);
    const rev = 1 + (this.pick % headOf(m, this.stream));
    if (rev - 1 < entry.origin) {
      expect(await codeOf(r.h.store.patchAt(this.stream, rev))).toBe('HISTORY_NOT_RETAINED');
      return;
    }
    const patch = await r.h.store.patchAt(this.stream, rev);
    expect(applyPatch(entry.states[rev - 1] as JsonObject, patch)).toEqual(entry.states[rev]);
  }
  toString = (): string => `patchAt(${this.stream}, #${this.pick})`;
}

class Reopen implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.h.reopen();
    expect(r.h.store.lastSeq()).toBe(m.seq);
  }
  toString = (): string => 'reopen';
}

class Compact implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly stream: string,
    readonly keep: number,
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const entry = streamOf(m, this.stream);
    const origin = Math.max(entry.origin, headOf(m, this.stream) - this.keep + 1);
    expect(await r.h.store.compact(this.stream, { keepRevisions: this.keep })).toEqual({ origin, deleted: origin - entry.origin });
    entry.origin = origin;
  }
  toString = (): string => `compact(${this.stream}, ${this.keep})`;
}

class Fork implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {}
  check = (): boolean => this.from !== this.to;
  async run(m: Model, r: Real): Promise<void> {
    const source = current(m, this.from);
    const result = await r.h.store.fork(this.from, this.to, { expected: 'any' });
    if (jsonEqual(source, current(m, this.to))) {
      expect(result.status).toBe('noop');
      return;
    }
    m.seq++;
    expect(result.transition?.seq).toBe(m.seq);
    streamOf(m, this.to).states.push(source);
  }
  toString = (): string => `fork(${this.from} → ${this.to})`;
}

class Revert implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly stream: string,
    readonly pick: number,
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const entry = streamOf(m, this.stream);
    const span = headOf(m, this.stream) - entry.origin + 1;
    const rev = entry.origin + (this.pick % span);
    const target = entry.states[rev] as JsonObject;
    const result = await r.h.store.revert(this.stream, rev);
    if (jsonEqual(target, current(m, this.stream))) {
      expect(result.status).toBe('noop');
      return;
    }
    m.seq++;
    expect(result.transition?.seq).toBe(m.seq);
    entry.states.push(target);
  }
  toString = (): string => `revert(${this.stream}, #${this.pick})`;
}

const publishArb = fc.array(fc.tuple(streamArb, patchArb), { minLength: 1, maxLength: 2 }).map((cs) => new Publish([...new Map(cs)]));
const commands = [
  // Publishing is weighted up so that histories cross several checkpoints (K = 3).
  publishArb,
  publishArb,
  publishArb,
  publishArb,
  streamArb.map((s) => new PublishInvalid(s)),
  streamArb.map((s) => new PublishConflict(s)),
  streamArb.map((s) => new ReadCurrent(s)),
  fc.tuple(streamArb, fc.nat()).map(([s, n]) => new ReadAt(s, n)),
  fc.tuple(streamArb, fc.nat()).map(([s, n]) => new PatchAt(s, n)),
  fc.constant(new Reopen()),
  fc.tuple(streamArb, fc.integer({ min: 1, max: 4 })).map(([s, k]) => new Compact(s, k)),
  fc.tuple(streamArb, streamArb).map(([a, b]) => new Fork(a, b)),
  fc.tuple(streamArb, fc.nat()).map(([s, n]) => new Revert(s, n)),
];

function runModel(backend: Backend, numRuns: number): Promise<void> {
  return fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 60, size: '+1' }), async (cmds) => {
      const h = await backend.create({ checkpointInterval: K, cacheSize: 4 });
      try {
        await fc.asyncModelRun(() => ({ model: { streams: new Map(), seq: 0 }, real: { h } }), cmds);
        expect((await h.store.audit()).problems).toEqual([]);
      } finally {
        await h.destroy();
      }
    }),
    { numRuns, ...(SEED === undefined ? {} : { seed: SEED }) },
  );
}

describe('store against an in-memory model', () => {
  for (const backend of backends) {
    // The disk backend pays for a temp LevelDB per run: a third of the runs.
    const runs = backend.name === 'disk' ? Math.max(1, Math.ceil(RUNS / 3)) : RUNS;
    it(`agrees with the model on ${backend.name} (${runs} runs)`, () => runModel(backend, runs), 300_000);
  }
});
