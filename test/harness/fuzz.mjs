/**
 * Bad-input fuzz (test/harness/README.md): fast-check generates malformed paths,
 * patches and publish inputs, tool inputs and ladder configs, and feeds them to the public
 * entry points. Per category it reports cases, crashes (uncaught exceptions, unhandled
 * rejections or a store left unusable), untyped errors (anything thrown that is not a
 * StateflowError) and partial publications (a rejected call that changed stored state).
 *
 *   node test/harness/fuzz.mjs             # HARNESS_CASES=2000 HARNESS_SEED=…
 */
import fc from 'fast-check';
import { applyPatch, isStateflowError, jsonEqual, parsePath } from '@stateflow/core';
import { openMemoryStore } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { envInt, isMain, printReport, removeDir, tempDir } from './lib.mjs';

const STREAMS = ['global', 'cwd:/w', 'session:s'];

/** A getter that throws when read (a hostile in-process caller). */
function throwingGetter() {
  const o = { a: 1 };
  Object.defineProperty(o, 'b', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
  return o;
}

/** Values no JSON document holds, mixed into otherwise plausible inputs. */
const hostile = fc.oneof(
  fc.constantFrom(undefined, Number.NaN, Infinity, -Infinity, -0, 2 ** 64, '', '\u0000', '\ud800', 'a\udc00b', Symbol('s'), () => 1),
  fc.bigInt(),
  fc.date(),
  fc.constant(new Map([['a', 1]])),
  fc.constant(Object.create(null)),
  fc.constant([, 1]), // sparse array
  fc.constant(new Uint8Array([1, 2])),
  fc.constant(null).map(() => cyclic()),
  fc.constant(null).map(() => deep(600)),
  fc.constant(null).map(() => deep(20_000)),
  fc.constant(null).map(throwingGetter),
  fc.constant(null).map(() => ({ [Symbol('k')]: 1, a: 1 })),
  fc.constant(null).map(() => JSON.parse('{"__proto__": {"polluted": true}}')),
  fc.string({ unit: 'binary', maxLength: 6 }), // lone surrogates and control characters
);

const weirdKey = fc.oneof(
  fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype', 'toString', 'length', '[0]', '[1]', '[01]', '[+1]', '[ 1]', '[1.0]', '[-1]', '[99]', '[]', '[number]', '', ' ', '.', 'a.b', '\ud800', '\u0000'),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
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
      // INTERNAL is a foreign error a package boundary wrapped: still a bug escaping.
      if (!isStateflowError(err) || err.code === 'INTERNAL') {
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
  const pathOrHostile = fc.oneof({ arbitrary: pathArb, weight: 4 }, { arbitrary: hostile, weight: 1 });
  const readArb = fc.oneof(
    tree,
    fc.record({ path: pathOrHostile }),
    fc.record({ paths: fc.oneof(fc.array(pathOrHostile, { maxLength: 3 }), hostile), projection: fc.oneof(fc.constantFrom('value', 'keys', 'patch'), tree) }),
  );
  const planes = fc.constantFrom('intents', 'strategy', 'tactics', 'artifacts', 'response', 'lazy');
  const planePatch = fc.dictionary(planes, fc.oneof(tree, fc.dictionary(weirdKey, tree, { maxKeys: 3 })), { maxKeys: 3 });
  const patchArb = fc.oneof(
    tree,
    fc.record({ patch: tree }),
    fc.record({ patch: fc.record({ session: fc.oneof(tree, planePatch), cwd: fc.oneof(tree, planePatch) }, { requiredKeys: [] }) }),
    fc.record({ patch: fc.record({ global: planePatch }) }),
  );
  const known = [{ path: 'effective' }, { paths: ['global', 'session.plan'] }, { path: 'cwd', projection: 'keys' }, { path: 12 }, { paths: ['a', 1n] }];
  for (const input of [...known, ...fc.sample(readArb, { numRuns, seed })]) {
    const seq = store.lastSeq();
    await t.run(input, () => runtime.readState(input));
    if (store.lastSeq() !== seq) t.partial++; // reads never publish
  }
  const knownPatches = [
    { patch: { session: { tactics: { next: 'x' } } } },
    { patch: { global: { lazy: { notes: ['a'] } } } },
    { patch: { session: { lazy: { big: 12n } } } },
    { patch: { cwd: cyclic() } },
    { patch: { session: { lazy: deep(20_000) } } },
    { patch: { session: JSON.parse('{"lazy": {"__proto__": {"polluted": true}}}') } },
  ];
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
  await t.run('baseline()', () => runtime.baseline());
  if ({}.polluted !== undefined) t.crashes++; // Object.prototype polluted
  return t;
}

async function fuzzRuntimeOptions(store, numRuns, seed) {
  const tools = await import('@stateflow/tools').catch(() => null);
  if (!tools?.createRuntime) return { skipped: '@stateflow/tools has no createRuntime yet' };
  const t = new Tally('runtime options → @stateflow/tools createRuntime');
  const selectionArb = fc.oneof(
    tree,
    fc.record(
      {
        global: fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, hostile),
        cwd: fc.oneof({ arbitrary: fc.string({ maxLength: 4 }), weight: 6 }, hostile),
        session: fc.oneof({ arbitrary: fc.string({ maxLength: 4 }), weight: 6 }, hostile),
        mode: fc.oneof({ arbitrary: fc.constantFrom('active', 'passive'), weight: 6 }, hostile),
      },
      { requiredKeys: [] },
    ),
  );
  const optionsArb = fc.oneof(
    hostile,
    fc.record(
      {
        store: fc.oneof({ arbitrary: fc.constant(store), weight: 6 }, hostile),
        selection: selectionArb,
        recentTransitions: fc.oneof({ arbitrary: fc.integer({ min: -2, max: 20 }), weight: 6 }, hostile),
      },
      { requiredKeys: ['store', 'selection'] },
    ),
  );
  for (const input of fc.sample(optionsArb, { numRuns, seed })) {
    const seq = store.lastSeq();
    await t.run(input, async () => tools.createRuntime(input));
    if (store.lastSeq() !== seq) t.partial++;
  }
  return t;
}

/** YAML texts that attack the parser: alias bombs, unresolved aliases, nesting, duplicates, tags. */
function yamlAttacks() {
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) bomb.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(10).fill(`*${'abcdefghi'[i - 1]}`).join(',')}]`);
  return [
    bomb.join('\n'),
    'name: x\nsteps: [*nowhere]',
    '&a [*a]',
    'name: x\nsteps: []\nloop: &l {self: *l}',
    `name: x\nsteps: ${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    `name: x\nsteps: ${'['.repeat(50_000)}`,
    `${'- '.repeat(3_000)}x`,
    `${'{a: '.repeat(2_000)}1${'}'.repeat(2_000)}`,
    'name: a\nname: b\nsteps: []',
    '{"name": "a", "name": "b", "steps": []}',
    'name: x\nsteps: []\n__proto__: {polluted: true}',
    'name: x\nsteps: []\nconstructor: {prototype: {polluted: true}}',
    'name: "\\ud800"\nsteps: []',
    'name: x\nsteps: []\nn: .nan',
    'name: x\nsteps: []\nn: -.inf',
    'name: !!binary aGVsbG8=\nsteps: []',
    'name: !!js/function "() => 1"\nsteps: []',
    'name: x\nsteps: []\nset: !!set {a, b}',
    'a: [',
    'steps:\n  - {',
    '{"steps": 1',
    '---\n- 1\n- 2',
    '\ufeffname: x\nsteps: []',
    'name: "a\u0000b"\nsteps: []',
  ];
}

async function fuzzLadders(numRuns, seed) {
  const slates = await import('@stateflow/slates').catch(() => null);
  if (!slates?.loadLadder) return { skipped: '@stateflow/slates does not export loadLadder yet' };
  const t = new Tally('ladder configs → @stateflow/slates loadLadder / validateLadder / loadLadderFile');
  const configArb = fc.oneof(
    tree,
    hostile,
    fc.string({ maxLength: 40 }),
    fc.record({ name: tree, slates: tree, steps: fc.array(tree, { maxLength: 3 }), exit: tree }, { requiredKeys: [] }),
    fc.constantFrom(...yamlAttacks()),
  );
  for (const input of [...yamlAttacks(), ...fc.sample(configArb, { numRuns, seed })]) {
    await t.run(input, async () => slates.loadLadder(input));
    await t.run(input, async () => {
      // validateLadder lists problems instead of throwing; it must return an array of strings.
      const problems = slates.validateLadder(input);
      if (!Array.isArray(problems) || problems.some((p) => typeof p !== 'string')) throw new TypeError('validateLadder returned a non-list');
    });
  }
  for (const file of [0, 1, 12n, null, undefined, {}, '', Symbol('f'), '/nonexistent/ladder.yaml', '/']) {
    await t.run(file, async () => slates.loadLadderFile(file));
    await t.run(file, async () => slates.validateLadderFile(file));
  }
  if ({}.polluted !== undefined) t.crashes++; // Object.prototype polluted
  return t;
}

async function fuzzRunLadder(store, numRuns, seed) {
  const slates = await import('@stateflow/slates').catch(() => null);
  if (!slates?.runLadder) return { skipped: '@stateflow/slates does not export runLadder yet' };
  const t = new Tally('runLadder inputs → @stateflow/slates runLadder');
  const ladder = slates.loadLadder('name: fuzz\nsteps:\n  - id: only\n    nodes: 1\n');
  const optionsArb = fc.oneof(
    hostile,
    fc.record(
      {
        store: fc.oneof({ arbitrary: fc.constant(store), weight: 12 }, hostile),
        ladder: fc.oneof({ arbitrary: fc.constant(ladder), weight: 12 }, tree, fc.constantFrom(...yamlAttacks())),
        input: fc.oneof({ arbitrary: fc.string({ maxLength: 8 }), weight: 6 }, fc.dictionary(weirdKey, tree, { maxKeys: 3 }), hostile),
        session: fc.oneof({ arbitrary: fc.constantFrom('s1', 's2'), weight: 12 }, hostile),
        ladderId: fc.oneof({ arbitrary: fc.constant('fuzz'), weight: 12 }, hostile),
        encoding: fc.oneof({ arbitrary: fc.constant('o200k_base'), weight: 12 }, hostile),
        conflictRetries: fc.oneof({ arbitrary: fc.integer({ min: -1, max: 3 }), weight: 12 }, hostile),
        model: fc.oneof(
          { arbitrary: fc.constant(null).map(() => slates.scriptedModel(['ok'])), weight: 12 },
          fc.constant({ complete: () => Promise.reject(new TypeError('socket closed')) }),
          fc.constant({ complete: () => Promise.resolve(42) }),
          hostile,
        ),
      },
      { requiredKeys: ['store', 'ladder', 'input', 'model'] },
    ),
  );
  for (const input of fc.sample(optionsArb, { numRuns, seed })) {
    const before = await captured(store);
    let ok = false;
    await t.run(input, async () => {
      await slates.runLadder(input);
      ok = true;
    });
    if (!ok && (store.lastSeq() !== before.seq)) t.partial++;
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
    results.push(await fuzzRuntimeOptions(toolsStore, Math.ceil(cases / 4), seed));
    await toolsStore.close();
    await disk.close();
    results.push(await fuzzLadders(Math.ceil(cases / 2), seed));
    const ladderStore = await openMemoryStore();
    results.push(await fuzzRunLadder(ladderStore, Math.ceil(cases / 8), seed));
    await ladderStore.close();
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
