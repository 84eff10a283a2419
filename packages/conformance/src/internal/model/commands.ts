/**
 * fast-check commands of the model-based group. Each `run` performs one store operation on the
 * real store and asserts the result against {@link StoreOracle}, then updates the oracle.
 */
import fc from 'fast-check';
import { applyPatch, jsonEqual } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { ExpectedRevision, PublishResult } from '@stateflow/store';
import { assert, assertJsonEqual, rejectsWithCode } from '../assert.js';
import type { TestContext } from '../group.js';
import { patchArb, pickArb, streamArb, STREAMS } from './arbitraries.js';
import type { Prediction, StoreOracle } from './oracle.js';

type Cmd = fc.AsyncCommand<StoreOracle, TestContext>;

function pickRev(pick: number, max: number): number {
  return Math.min(max, Math.floor(pick * (max + 1)));
}

function assertResultMatches(result: PublishResult, prediction: Prediction, model: StoreOracle, what: string): void {
  if (prediction.kind === 'noop') {
    assert.equal(result.status, 'noop', `${what}: expected noop, got ${result.status}`);
    return;
  }
  if (prediction.kind !== 'accepted') throw new Error('rejected predictions are checked by rejectsWithCode');
  assert.equal(result.status, 'accepted', `${what}: expected accepted, got ${result.status}`);
  const t = result.transition!;
  assert.equal(t.seq, prediction.seq, `${what}: seq`);
  assert.deepEqual(
    t.changes.map((c) => [c.stream, c.rev]),
    prediction.changes.map((c) => [c.stream, c.rev]),
    `${what}: changed streams and revisions`,
  );
  for (const change of t.changes) {
    const before = model.current(change.stream);
    const after = prediction.changes.find((c) => c.stream === change.stream)!.after;
    assertJsonEqual(applyPatch(before, change.patch), after, `${what}: net patch of ${change.stream} replays`);
  }
}

class PublishCommand implements Cmd {
  constructor(
    readonly patches: Array<[string, JsonObject]>,
    readonly expect: 'none' | 'head' | 'stale' | 'any',
    readonly id: string | undefined,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const first = this.patches[0]![0];
    const expected: Record<string, ExpectedRevision> = {};
    if (this.expect === 'none') expected[first] = 'none';
    if (this.expect === 'head') expected[first] = model.head(first);
    if (this.expect === 'stale') expected[first] = model.head(first) + 1;
    const input = { changes: Object.fromEntries(this.patches), ...(this.id ? { id: this.id } : {}), expected };
    const dupSeq = this.id === undefined ? undefined : model.ids.get(this.id);
    const seqBefore = model.seq;
    if (dupSeq !== undefined) {
      const result = await ctx.store.publish(input);
      assert.equal(result.status, 'duplicate', 'retry of an accepted id');
      assert.equal(result.transition?.seq, dupSeq);
      return;
    }
    const prediction = model.predict(this.patches, expected as Record<string, number | 'none'>);
    if (prediction.kind === 'rejected') {
      await rejectsWithCode(ctx.store.publish(input), prediction.codes, this.toString());
    } else {
      assertResultMatches(await ctx.store.publish(input), prediction, model, this.toString());
      if (prediction.kind === 'accepted') model.commit(prediction, this.id);
    }
    assert.equal(ctx.store.lastSeq(), model.seq, 'lastSeq');
    if (prediction.kind !== 'accepted') assert.equal(model.seq, seqBefore);
    for (const [stream] of this.patches) assertJsonEqual(await ctx.store.state(stream), model.current(stream), `state ${stream}`);
  }
  toString(): string {
    return `publish(${JSON.stringify(this.patches)}, expect=${this.expect}${this.id ? `, id=${this.id}` : ''})`;
  }
}

class StateAtCommand implements Cmd {
  constructor(readonly stream: string, readonly pick: number) {}
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.stream);
    const rev = pickRev(this.pick, model.head(this.stream) + 1);
    if (rev > model.head(this.stream)) await rejectsWithCode(ctx.store.stateAt(this.stream, rev), 'REVISION_NOT_FOUND');
    else if (rev < s.origin) await rejectsWithCode(ctx.store.stateAt(this.stream, rev), 'HISTORY_NOT_RETAINED');
    else assertJsonEqual(await ctx.store.stateAt(this.stream, rev), s.states[rev]!, `stateAt(${this.stream}, ${rev})`);
  }
  toString(): string {
    return `stateAt(${this.stream}, pick ${this.pick.toFixed(3)})`;
  }
}

class PatchAtCommand implements Cmd {
  constructor(readonly stream: string, readonly pick: number) {}
  check(model: StoreOracle): boolean {
    return model.head(this.stream) > 0;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.stream);
    const rev = 1 + pickRev(this.pick, model.head(this.stream) - 1);
    if (rev < s.origin) {
      await rejectsWithCode(ctx.store.patchAt(this.stream, rev), 'HISTORY_NOT_RETAINED');
      return;
    }
    let patch: JsonObject;
    try {
      patch = await ctx.store.patchAt(this.stream, rev);
    } catch (err) {
      // The patch that produced the origin itself may be gone with the older entries.
      if (rev === s.origin) return void (await rejectsWithCode(Promise.reject(err), 'HISTORY_NOT_RETAINED'));
      throw err;
    }
    assertJsonEqual(applyPatch(s.states[rev - 1]!, patch), s.states[rev]!, `patchAt(${this.stream}, ${rev}) replays`);
  }
  toString(): string {
    return `patchAt(${this.stream}, pick ${this.pick.toFixed(3)})`;
  }
}

class StatesAtCommand implements Cmd {
  constructor(readonly pick: number) {}
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const seq = pickRev(this.pick, model.seq);
    const streams = [...STREAMS];
    const below = streams.some((id) => model.revAtSeq(id, seq) < model.stream(id).origin);
    if (below) {
      await rejectsWithCode(ctx.store.statesAt(streams, seq), 'HISTORY_NOT_RETAINED');
      return;
    }
    const expected = Object.fromEntries(streams.map((id) => [id, model.stream(id).states[model.revAtSeq(id, seq)]!]));
    assertJsonEqual(await ctx.store.statesAt(streams, seq), expected, `statesAt(${seq})`);
  }
  toString(): string {
    return `statesAt(pick ${this.pick.toFixed(3)})`;
  }
}

class HeadCommand implements Cmd {
  constructor(readonly stream: string) {}
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.stream);
    const rev = model.head(this.stream);
    assertJsonEqual(
      await ctx.store.head(this.stream),
      { stream: this.stream, rev, seq: s.seqs[rev]!, origin: s.origin },
      `head(${this.stream})`,
    );
    assertJsonEqual(await ctx.store.state(this.stream), model.current(this.stream), `state(${this.stream})`);
    assert.equal(ctx.store.lastSeq(), model.seq);
  }
  toString(): string {
    return `head(${this.stream})`;
  }
}

class CompactCommand implements Cmd {
  constructor(readonly stream: string, readonly keep: number) {}
  check(model: StoreOracle): boolean {
    return model.head(this.stream) > 0;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.stream);
    const expected = Math.max(s.origin, model.head(this.stream) - this.keep + 1, 0);
    const { origin } = await ctx.store.compact(this.stream, { keepRevisions: this.keep });
    assert.equal(origin, expected, `origin after compact(${this.stream}, ${this.keep})`);
    if (origin > s.origin) model.compacted = true;
    s.origin = origin;
  }
  toString(): string {
    return `compact(${this.stream}, keep ${this.keep})`;
  }
}

class RevertCommand implements Cmd {
  constructor(readonly stream: string, readonly pick: number) {}
  check(model: StoreOracle): boolean {
    return model.head(this.stream) > 0;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.stream);
    const rev = pickRev(this.pick, model.head(this.stream));
    if (rev < s.origin) {
      await rejectsWithCode(ctx.store.revert(this.stream, rev), 'HISTORY_NOT_RETAINED');
      return;
    }
    const target = s.states[rev]!;
    const result = await ctx.store.revert(this.stream, rev);
    if (jsonEqual(target, model.current(this.stream))) {
      assert.equal(result.status, 'noop', 'revert to an equal state');
      return;
    }
    assert.equal(result.status, 'accepted');
    const prediction = { kind: 'accepted' as const, seq: model.seq + 1, changes: [{ stream: this.stream, rev: model.head(this.stream) + 1, after: target }] };
    assertResultMatches(result, prediction, model, this.toString());
    model.commit(prediction);
  }
  toString(): string {
    return `revert(${this.stream}, pick ${this.pick.toFixed(3)})`;
  }
}

class ForkCommand implements Cmd {
  constructor(readonly from: string, readonly to: string, readonly pick: number | null) {}
  check(model: StoreOracle): boolean {
    return this.from !== this.to && model.head(this.to) === 0;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const s = model.stream(this.from);
    const at = this.pick === null ? undefined : pickRev(this.pick, model.head(this.from));
    const rev = at ?? model.head(this.from);
    const call = () => ctx.store.fork(this.from, this.to, at === undefined ? undefined : { at });
    if (rev < s.origin) {
      await rejectsWithCode(call(), 'HISTORY_NOT_RETAINED');
      return;
    }
    const target = s.states[rev]!;
    const result = await call();
    if (Object.keys(target).length === 0) {
      assert.equal(result.status, 'noop', 'fork of an empty state');
      return;
    }
    const prediction = { kind: 'accepted' as const, seq: model.seq + 1, changes: [{ stream: this.to, rev: 1, after: target }] };
    assertResultMatches(result, prediction, model, this.toString());
    model.commit(prediction);
  }
  toString(): string {
    return `fork(${this.from} → ${this.to}${this.pick === null ? '' : `, pick ${this.pick.toFixed(3)}`})`;
  }
}

class AuditCommand implements Cmd {
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    const report = await ctx.store.audit();
    assertJsonEqual(report.problems as never, [], 'audit problems');
    if (!model.compacted) assert.equal(report.transitions, model.seq, 'audited transitions');
  }
  toString(): string {
    return 'audit()';
  }
}

class ReopenCommand implements Cmd {
  check(): boolean {
    return true;
  }
  async run(model: StoreOracle, ctx: TestContext): Promise<void> {
    await ctx.reopen();
    assert.equal(ctx.store.lastSeq(), model.seq, 'lastSeq after reopen');
  }
  toString(): string {
    return 'reopen()';
  }
}

/** The command arbitraries; `options.withReopen` adds close-and-reopen steps. */
export function commandArbs(options: { withReopen: boolean }): Array<fc.Arbitrary<Cmd>> {
  const patches = fc.uniqueArray(fc.tuple(streamArb, patchArb), { minLength: 1, maxLength: 2, selector: ([s]) => s });
  const arbs: Array<fc.Arbitrary<Cmd>> = [
    fc
      .tuple(patches, fc.constantFrom('any', 'any', 'head', 'stale', 'none'), fc.option(fc.constantFrom('id-1', 'id-2', 'id-3'), { freq: 4 }))
      .map(([p, e, id]) => new PublishCommand(p as Array<[string, JsonObject]>, e as PublishCommand['expect'], id ?? undefined)),
    fc
      .tuple(patches)
      .map(([p]) => new PublishCommand(p as Array<[string, JsonObject]>, 'any', undefined)),
    fc.tuple(streamArb, pickArb).map(([s, p]) => new StateAtCommand(s, p)),
    fc.tuple(streamArb, pickArb).map(([s, p]) => new PatchAtCommand(s, p)),
    pickArb.map((p) => new StatesAtCommand(p)),
    streamArb.map((s) => new HeadCommand(s)),
    fc.tuple(streamArb, fc.integer({ min: 1, max: 4 })).map(([s, k]) => new CompactCommand(s, k)),
    fc.tuple(streamArb, pickArb).map(([s, p]) => new RevertCommand(s, p)),
    fc.tuple(streamArb, streamArb, fc.option(pickArb)).map(([f, t, p]) => new ForkCommand(f, t, p)),
    fc.constant(new AuditCommand()),
  ];
  if (options.withReopen) arbs.push(fc.constant(new ReopenCommand()));
  return arbs;
}
