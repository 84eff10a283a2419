/**
 * Bad-input fuzz (issue 8, "Fault and fuzz harness"): fast-check generates malformed paths,
 * patches and publish inputs, tool inputs and ladder configs, and feeds them to the public
 * entry points. Per category it reports cases, crashes (uncaught exceptions, unhandled
 * rejections or a store left unusable), untyped errors (anything thrown that is not a
 * StateflowError) and partial publications (a rejected call that changed stored state).
 *
 *   node test/harness/fuzz.mjs             # HARNESS_CASES=2000 HARNESS_SEED=…
 */
import fc from 'fast-check';
import { applyPatch, isStateflowError, jsonEqual, parsePath } from '@stateflow/core';
import { openMemoryStore, openStore } from '@stateflow/store';
import { envInt, isMain, printReport, removeDir, tempDir } from './lib.mjs';

const STREAMS = ['global', 'cwd:/w', 'session:s'];

/** Values no JSON document holds, mixed into otherwise plausible inputs. */
const hostile = fc.oneof(
  fc.constantFrom(undefined, Number.NaN, Infinity, -Infinity, -0, 2 ** 64, '', '\u0000', '\ud800', Symbol('s'), () => 1),
  fc.bigInt(),
  fc.date(),
  fc.constant(new Map([['a', 1]])),
  fc.constant(Object.create(null)),
  fc.constant([, 1]), // sparse array
  fc.constant(new Uint8Array([1, 2])),
);

const weirdKey = fc.oneof(
  fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype', 'toString', 'length', '[0]', '[1]', '[01]', '[+1]', '[ 1]', '[1.0]', '[-1]', '[99]', '', ' ', '.', 'a.b'),
  fc.string({ maxLength: 4 }),
);

function objectFrom(entries) {
  const out = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    { arbitrary: hostile, weight: 1 },
    fc.array(tie('tree'), { maxLength: 3 }),
    fc.uniqueArray(fc.tuple(weirdKey, tie('tree')), { maxLength: 4, selector: ([k]) => k }).map(objectFrom),
  ),
}));

/** A value nested `depth` levels deep (stack-depth attacks). */
function deep(depth, leaf = 1) {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function cyclic() {
  const o = { a: 1 };
  o.self = o;
  return o;
}

const pathArb = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc
    .array(
      fc.constantFrom('global', 'cwd', 'session', 'effective', 'lazy', 'plan', '.', '..', '[', ']', ':', '0', '1', '01', '-1', '99999999999999999999', '*', '$', '_', '-', ' ', '\u0000', '😀', '?', '|', '"', "'"),
      { maxLength: 10 },
    )
    .map((parts) => parts.join('')),
);

/** Plain JSON patches that should mostly be accepted, so accepted paths are checked too. */
const plainPatch = fc.dictionary(
  fc.constantFrom('a', 'b', 'base', '__proto__', 'n'),
  fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.array(fc.integer(), { maxLength: 3 }), fc.constant({ list: { '[1]': 7 } })),
  { minKeys: 1, maxKeys: 3 },
);

const publishInputArb = fc.oneof(
  fc.record({ changes: fc.uniqueArray(fc.tuple(fc.constantFrom(...STREAMS), plainPatch), { minLength: 1, maxLength: 3, selector: ([k]) => k }).map(objectFrom) }),
  // A plausible shape with hostile patches.
  fc.record(
    {
      changes: fc.uniqueArray(fc.tuple(fc.constantFrom(...STREAMS, '', 'x'.repeat(1100), 'a\u0000b'), tree), { maxLength: 3, selector: ([k]) => k }).map(objectFrom),
      expected: fc.option(fc.dictionary(fc.constantFrom(...STREAMS), fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom('none', 'any', 'some', 1.5, null))), { nil: undefined }),
      id: fc.option(fc.oneof(fc.string({ maxLength: 3 }), hostile), { nil: undefined }),
      meta: fc.option(tree, { nil: undefined }),
      durability: fc.option(fc.constantFrom('buffered', 'fsync', 'nope', 1), { nil: undefined }),
    },
    { requiredKeys: ['changes'] },
  ),
  // Anything at all.
  tree,
  fc.constantFrom({ changes: null }, { changes: [] }, { changes: 'global' }),
);

/** Inputs every publish fuzz run includes once: stack-depth and cycle attacks. */
const fixedPublishInputs = () => [
  { changes: { global: deep(100) } },
  { changes: { global: deep(5000) } },
  { changes: { global: cyclic() } },
  { changes: { global: { ok: 1 } }, meta: cyclic() },
];

class Tally {
  constructor(name) {
    Object.assign(this, { name, cases: 0, accepted: 0, rejected: 0, crashes: 0, untyped: 0, partial: 0, samples: [], kinds: new Set() });
  }
  /** Run one case; `fn` resolves (accepted) or throws (rejected). */
  async run(input, fn) {
    this.cases++;
    try {
      await fn();
      this.accepted++;
    } catch (err) {
      this.rejected++;
      if (!isStateflowError(err)) {
        this.untyped++;
        const sample = `${describe(input)} → ${err?.constructor?.name}: ${String(err?.message ?? err).slice(0, 160)}`;
        const kind = `${err?.constructor?.name}: ${String(err?.message ?? err).slice(0, 60)}`;
        if (!this.kinds.has(kind)) {
          this.kinds.add(kind);
          this.samples.push(sample);
        }
      }
    }
  }
}

function describe(input) {
  try {
    return JSON.stringify(input, (_, v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? String(v) : v))?.slice(0, 120) ?? String(input);
  } catch (err) {
    return `<not serialisable: ${err.message.split('\n')[0]}>`;
  }
}

async function captured(store) {
  const view = await store.view(STREAMS);
  return { seq: store.lastSeq(), states: Object.fromEntries(STREAMS.map((s) => [s, view.streams[s].state])) };
}

async function fuzzPaths(numRuns, seed) {
  const t = new Tally('paths → core parsePath');
  for (const input of fc.sample(pathArb, { numRuns, seed })) await t.run(input, async () => parsePath(input));
  for (const input of ['a'.repeat(100_000), '['.repeat(50_000), '.a'.repeat(50_000)]) await t.run(input, async () => parsePath(input));
  return t;
}

async function fuzzPublish(store, name, numRuns, seed) {
  const t = new Tally(name);
  await store.publish({ changes: { global: { base: { list: [1, 2, 3] } }, 'session:s': { n: 0 } } });
  for (const input of [...fixedPublishInputs(), ...fc.sample(publishInputArb, { numRuns, seed })]) {
    const before = await captured(store);
    let result;
    await t.run(input, async () => {
      result = await store.publish(input);
    });
    const after = await captured(store);
    if (result === undefined || result.status !== 'accepted') {
      if (after.seq !== before.seq || !jsonEqual(after.states, before.states)) t.partial++;
      continue;
    }
    // Accepted: exactly the transition's streams moved, each by its own net patch.
    const moved = new Set(result.transition.changes.map((c) => c.stream));
    for (const s of STREAMS) {
      if (!moved.has(s) && !jsonEqual(after.states[s], before.states[s])) t.partial++;
    }
    for (const c of result.transition.changes) {
      if (STREAMS.includes(c.stream) && !jsonEqual(applyPatch(before.states[c.stream], c.patch), after.states[c.stream])) t.partial++;
    }
  }
  try {
    const audit = await store.audit();
    if (audit.problems.length > 0) t.crashes++;
    await store.publish({ changes: { global: { still: 'usable' } } });
  } catch {
    t.crashes++;
  }
  return t;
}

async function fuzzTools(store, numRuns, seed) {
  const tools = await import('@stateflow/tools').catch(() => null);
  if (!tools?.createRuntime) return { skipped: '@stateflow/tools has no createRuntime yet' };
  const runtime = tools.createRuntime({ store, selection: { global: true, cwd: '/w', session: 's', mode: 'active' } });
  const t = new Tally('tool inputs → @stateflow/tools runtime');
  const readArb = fc.oneof(tree, fc.record({ path: pathArb }), fc.record({ paths: fc.array(pathArb, { maxLength: 3 }), projection: fc.oneof(fc.constantFrom('value', 'keys', 'patch'), tree) }));
  const patchArb = fc.oneof(tree, fc.record({ patch: tree }), fc.record({ patch: fc.record({ session: tree, cwd: tree }, { requiredKeys: [] }) }));
  const known = [{ path: 'effective' }, { paths: ['global', 'session.plan'] }, { path: 'cwd', projection: 'keys' }];
  for (const input of [...known, ...fc.sample(readArb, { numRuns, seed })]) {
    const seq = store.lastSeq();
    await t.run(input, () => runtime.readState(input));
    if (store.lastSeq() !== seq) t.partial++; // reads never publish
  }
  const knownPatches = [{ patch: { session: { tactics: { next: 'x' } } } }, { patch: { global: { lazy: { notes: ['a'] } } } }];
  for (const input of [...knownPatches, ...fc.sample(patchArb, { numRuns, seed: seed + 1 })]) {
    const before = await captured(store);
    let ok = false;
    await t.run(input, async () => {
      await runtime.patchState(input);
      ok = true;
    });
    if (!ok) {
      const after = await captured(store);
      if (after.seq !== before.seq || !jsonEqual(after.states, before.states)) t.partial++;
    }
  }
  return t;
}

async function fuzzLadders(numRuns, seed) {
  const slates = await import('@stateflow/slates').catch(() => null);
  if (!slates?.loadLadder) return { skipped: '@stateflow/slates does not export loadLadder yet' };
  const t = new Tally('ladder configs → @stateflow/slates loadLadder');
  const configArb = fc.oneof(
    tree,
    fc.string({ maxLength: 40 }),
    fc.record({ name: tree, slates: tree, steps: fc.array(tree, { maxLength: 3 }), exit: tree }, { requiredKeys: [] }),
    fc.constantFrom('a: [', 'steps:\n  - {', '{"steps": 1', '---\n- 1\n- 2', '&a [*a]'),
  );
  for (const input of fc.sample(configArb, { numRuns, seed })) {
    if (input === null || input === undefined || (typeof input !== 'string' && typeof input !== 'object')) continue;
    await t.run(input, async () => slates.loadLadder(input));
  }
  return t;
}

/**
 * Run every category; returns the tallies (or `{ skipped }` for a package not landed yet).
 * @param {{ cases?: number, seed?: number }} options
 */
export async function runFuzz(options = {}) {
  const { cases = 2000, seed = Date.now() % 2 ** 31 } = options;
  const uncaught = [];
  const onUncaught = (err) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const results = [];
  const dir = await tempDir('fuzz');
  try {
    results.push(await fuzzPaths(cases, seed));
    const memory = await openMemoryStore();
    results.push(await fuzzPublish(memory, 'publish inputs → memory-level store', cases, seed));
    await memory.close();
    const disk = await openStore(dir);
    results.push(await fuzzPublish(disk, 'publish inputs → classic-level store', Math.ceil(cases / 4), seed));
    const toolsStore = await openMemoryStore();
    results.push(await fuzzTools(toolsStore, cases, seed));
    await toolsStore.close();
    await disk.close();
    results.push(await fuzzLadders(cases, seed));
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await removeDir(dir);
  }
  return { seed, results, uncaught: uncaught.length };
}

/** Print the report table of {@link runFuzz}. */
export function printFuzz(report) {
  const zero = (v) => v === 0;
  for (const r of report.results) {
    if (r.skipped) {
      console.log(`(skipped: ${r.skipped})`);
      continue;
    }
    printReport(`fuzz: ${r.name} (seed ${report.seed})`, [
      ['cases', r.cases],
      ['accepted', r.accepted],
      ['rejected with a StateflowError', r.rejected - r.untyped],
      ['crashes (must be 0)', r.crashes, zero],
      ['untyped errors (must be 0)', r.untyped, zero],
      ['partial publications (must be 0)', r.partial, zero],
    ]);
    for (const s of r.samples) console.log(`  untyped: ${s}`);
    console.log('');
  }
  printReport('fuzz: process', [['uncaught exceptions / unhandled rejections (must be 0)', report.uncaught, zero]]);
}

/** Sum of every must-be-zero counter. */
export function fuzzFailures(report) {
  return report.uncaught + report.results.reduce((n, r) => n + (r.skipped ? 0 : r.crashes + r.untyped + r.partial), 0);
}

if (isMain(import.meta.url)) {
  const report = await runFuzz({ cases: envInt('HARNESS_CASES', 2000), seed: envInt('HARNESS_SEED', Date.now() % 2 ** 31) });
  printFuzz(report);
  process.exitCode = fuzzFailures(report) === 0 ? 0 : 1;
}
