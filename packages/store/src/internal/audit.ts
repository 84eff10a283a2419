/**
 * The audit (DESIGN.md "Tamper evidence"): reads every stored record once, replays every stream
 * from its origin checkpoint, and checks the hash chain link by link, every checkpoint, every
 * head, the revision and seq indexes and the idempotency records. It never writes and never
 * stops at the first problem.
 *
 * Memory is O(streams + checkpoints + ids + problems) plus a compact spill of 25 bytes per change:
 * heads, checkpoint hashes and replayed states are per stream; the indexes are checked by
 * merge-joins in key order against each stream's changes in typed-array columns
 * (`audit-indexes.ts` explains why a spill rather than per-stream cursors); idempotency ids are
 * optional client ids and stay in a map.
 */
import { StateTree, isJsonObject, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { AuditCode } from '../audit-code.js';
import type { AuditProblem, AuditReport } from '../types.js';
import { hash } from 'node:crypto';
import { decodeRaw, decodeValue } from './codec.js';
import { GENESIS_HASH, stateHash, transitionHash } from './hash.js';
import { checkRevisionIndex, checkSeqIndex, patchDigest, StreamChanges } from './audit-indexes.js';
import { Family, checkpointKey, describeKey, familyRange, gapRanges, parseKey } from './keys.js';
import { readCheckpoint } from './page-reads.js';
import { decodeCheckpointRoot } from './page-records.js';
import type { CheckpointRoot } from './page-records.js';
import { PagedCheckpointAudit } from './audit-pages.js';
import { FORMAT, SEAL_BYTES, checkpointBody, decodeCount, decodeHead, decodeLog, decodeRevision, decodeTip, isSealedTransition, sealHolds, sealedTransitionParses } from './records.js';
import type { HeadRecord, LogRecord, RevisionRecord, TipRecord } from './records.js';
import type { StorageReader } from '../storage.js';
import { stateProblem } from './validate.js';
import { declarationProblem } from './declaration-rules.js';
import { recordedShapesProblem } from './shape-writes.js';
import { DECLARATION_STREAMS, isReservedStream } from '../declarations.js';
import { EMPTY_TREE } from './store-context.js';

/** Per-stream replay progress. */
interface Replay {
  rev: number;
  /** The replayed state, as a tree: each patch costs what it changes, the plain state is built only at a checkpoint. */
  state: StateTree;
  /** False once a problem makes further replay of this stream meaningless. */
  ok: boolean;
}

/**
 * A checkpoint read: its seq, and its state's digest ({@link stateDigest}) or, paged and above
 * the origin, its root (verified page by page when the replay reaches it: `checked`).
 */
interface CheckpointSeen {
  seq: number;
  digest?: string;
  root?: CheckpointRoot;
  checked?: boolean;
}

/** A checkpoint the replay could not confirm at once: a state whose digest differs, or a paged checkpoint and the replayed tree. */
type Suspect = { state: JsonObject } | { root: CheckpointRoot; tree: StateTree };

/** Report a problem with a record: its code, key, what is wrong, and the stream it belongs to. */
type Report = (code: AuditCode, key: Uint8Array | string, detail: string, stream?: string) => void;

/**
 * What the passes of one audit share: the problems found, and what the earlier passes read
 * (heads, checkpoints, each stream's replay and its changes in log order, ids) for the later
 * ones to check against.
 */
class AuditRun {
  readonly problems: AuditProblem[] = [];
  readonly heads = new Map<string, HeadRecord>();
  readonly checkpoints = new Map<string, Map<number, CheckpointSeen>>();
  readonly replays = new Map<string, Replay>();
  /** Every stream's changes in log order, for the index checks. */
  readonly logged = new Map<string, StreamChanges>();
  /** Streams with an unpruned change above their origin, each with the seq that produced its head revision (if any). */
  readonly headSeqs = new Map<string, number | undefined>();
  /** Seq of each transition (or stub) carrying an idempotency id → that id (ids of two principals may be equal). */
  readonly ids = new Map<number, string>();
  /** What the page-wise checks of paged checkpoints carry from one checkpoint to the next. */
  readonly pages = new PagedCheckpointAudit();
  checkpointCount = 0;
  transitions = 0;
  /** The seq the log's next record should have. */
  expectedSeq = 1;

  constructor(readonly storage: StorageReader) {}

  readonly report: Report = (code, key, detail, stream) => {
    const problem: AuditProblem = { code, key: typeof key === 'string' ? key : describeKey(key), detail };
    if (stream !== undefined) problem.stream = stream;
    this.problems.push(problem);
  };

  originOf(stream: string): number {
    return this.heads.get(stream)?.origin ?? 0;
  }

  replayOf(stream: string): Replay {
    let r = this.replays.get(stream);
    if (r === undefined) {
      r = { rev: 0, state: EMPTY_TREE, ok: true };
      this.replays.set(stream, r);
    }
    return r;
  }

  loggedChanges(stream: string): StreamChanges {
    let changes = this.logged.get(stream);
    if (changes === undefined) {
      changes = new StreamChanges();
      this.logged.set(stream, changes);
    }
    return changes;
  }
}

/**
 * Audit everything in `storage`. `onProgress(done, total)` counts log records (total = the
 * highest stored seq).
 */
export async function runAudit(storage: StorageReader, onProgress?: (done: number, total: number) => void): Promise<AuditReport> {
  const run = new AuditRun(storage);
  // Meta records: the format record, and the tip record that every commit writes.
  const meta = await checkMetaRecords(storage);
  if (meta.formatProblem !== null) run.report(AuditCode.RECORD_INVALID, 'M/format', meta.formatProblem);
  for (const problem of meta.others) run.report(AuditCode.RECORD_INVALID, problem.key, problem.detail);
  await readHeads(run);
  await readCheckpoints(run);
  await replayLog(run, onProgress);
  await checkUnreplayedCheckpoints(run);
  // The tip record against the log (stores written before 0.2 have none).
  if (meta.tip !== null && meta.tip.seq !== run.expectedSeq - 1) {
    run.report(AuditCode.TIP_MISMATCH, 'M/tip', `the tip record says the last seq is ${meta.tip.seq}, the log ends at ${run.expectedSeq - 1}`);
  }
  checkHeads(run);
  await checkIndexes(run);
  await checkIds(run);
  // Anything else: keys between and around the families (each family's pass reported its own
  // malformed keys), so the families are not read twice.
  for (const range of gapRanges()) {
    for await (const [key] of storage.iterate(range)) run.report(AuditCode.UNKNOWN_RECORD, key, 'key outside every known family');
  }
  const streams = [...run.heads.values()].filter((h) => h.rev > 0).length;
  return { transitions: run.transitions, streams, checkpoints: run.checkpointCount, problems: run.problems };
}

async function readHeads(run: AuditRun): Promise<void> {
  for await (const [key, value] of run.storage.iterate(familyRange(Family.head))) {
    const k = parseKey(key);
    if (k.family !== 'head') {
      run.report(AuditCode.UNKNOWN_RECORD, key, 'malformed head key');
      continue;
    }
    try {
      run.heads.set(k.stream, decodeHead(key, value, k.stream));
    } catch (err) {
      run.report(codeOf(value), key, messageOf(err), k.stream);
    }
  }
}

/**
 * Verify each checkpoint, keeping its state as a digest of its JSON text (much cheaper than RFC
 * 8785: replay builds states with the same key order, so equal states serialise equally; a
 * digest mismatch is confirmed with canonical hashes before it is reported) and the origin
 * checkpoints' states, where each stream's replay starts. A paged checkpoint above the origin
 * keeps its verified root only: the replay checks it page by page (`audit-pages.ts`).
 */
async function readCheckpoints(run: AuditRun): Promise<void> {
  for await (const [key, value] of run.storage.iterate(familyRange(Family.checkpoint))) {
    const k = parseKey(key);
    if (k.family !== 'checkpoint') {
      run.report(AuditCode.UNKNOWN_RECORD, key, 'malformed checkpoint key');
      continue;
    }
    run.checkpointCount++;
    try {
      const origin = run.heads.get(k.stream)?.origin;
      const perStream = run.checkpoints.get(k.stream) ?? new Map<number, CheckpointSeen>();
      run.checkpoints.set(k.stream, perStream);
      const root = decodeCheckpointRoot(key, value, k.stream, k.n);
      if (root.objects.length > 0 && k.n !== origin) perStream.set(k.n, { seq: root.record.seq, root });
      else {
        const cp = (await readCheckpoint(run.storage, key, value, k.stream, k.n)).record;
        perStream.set(k.n, { digest: stateDigest(cp.state), seq: cp.seq });
        if (origin !== undefined && origin > 0 && k.n === origin) run.replays.set(k.stream, { rev: origin, state: StateTree.of(cp.state), ok: true });
      }
      if (origin !== undefined && k.n < origin) run.report(AuditCode.RECORD_INVALID, key, `checkpoint below the origin ${origin} should have been deleted by compaction`, k.stream);
    } catch (err) {
      run.report(checkpointCode(key, value, k.stream), key, messageOf(err), k.stream);
    }
  }
  for (const [stream, head] of run.heads) {
    if (head.origin > 0 && !run.replays.has(stream)) {
      run.report(AuditCode.CHECKPOINT_MISSING, `C/${stream}/${head.origin}`, `no valid checkpoint at the origin ${head.origin}`, stream);
      run.replays.set(stream, { rev: head.origin, state: EMPTY_TREE, ok: false });
    }
  }
}

/** The log, in seq order: seq gaps, the chain link by link, each transition's hash, and the replay of every stream. */
async function replayLog(run: AuditRun, onProgress?: (done: number, total: number) => void): Promise<void> {
  let total = 0;
  for await (const [key] of run.storage.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const k = parseKey(key);
    if (k.family === 'log') total = k.seq;
  }
  let prevHash = GENESIS_HASH;
  let done = 0;
  for await (const [key, value] of run.storage.iterate(familyRange(Family.log))) {
    const k = parseKey(key);
    if (k.family !== 'log') {
      run.report(AuditCode.UNKNOWN_RECORD, key, 'key in the log family with a malformed seq');
      continue;
    }
    if (k.seq !== run.expectedSeq) run.report(AuditCode.SEQ_GAP, key, `transitions ${run.expectedSeq}..${k.seq - 1} are missing`);
    run.expectedSeq = k.seq + 1;
    onProgress?.(++done, total);
    let record: LogRecord;
    try {
      record = decodeLog(key, value, k.seq, { verifyHash: false, frozen: false });
    } catch (err) {
      run.report(logCode(key, value), key, messageOf(err));
      prevHash = '';
      continue;
    }
    const stream = record.changes[0]?.stream;
    if (prevHash !== '' && record.prevHash !== prevHash) {
      run.report(AuditCode.CHAIN_BROKEN, key, `prevHash ${record.prevHash.slice(0, 12)}… does not match the previous transition's hash ${prevHash.slice(0, 12)}…`, stream);
    }
    prevHash = record.hash;
    if (record.id !== undefined) run.ids.set(record.seq, record.id);
    if (record.pruned) {
      for (const c of record.changes) {
        run.loggedChanges(c.stream).push(record.seq, c.rev, { pruned: true, digest: 0 });
        if (c.rev > run.originOf(c.stream)) run.report(AuditCode.HISTORY_MISSING, key, `revision ${c.rev} is retained (origin ${run.originOf(c.stream)}) but its transition was pruned`, c.stream);
      }
      continue;
    }
    run.transitions++;
    if (transitionHash(record.prevHash, record) !== record.hash) {
      run.report(AuditCode.HASH_MISMATCH, key, 'the stored hash differs from sha256(prevHash ‖ canonical(body))', stream);
    }
    for (const change of record.changes) {
      const before = isReservedStream(change.stream) ? (run.replays.get(change.stream)?.state.state() ?? {}) : null;
      const suspect = replayChange(run, key, record.seq, change);
      if (before !== null) await auditDeclaration(run, key, record.seq, change, before);
      // A checkpoint whose digest differs (confirmed with canonical hashes), or a paged one.
      if (suspect !== null && !(await checkpointHolds(run, change.stream, change.rev, suspect))) {
        run.report(AuditCode.CHECKPOINT_MISMATCH, `C/${change.stream}/${change.rev}`, 'the checkpoint differs from the replayed state at its revision', change.stream);
      }
    }
    // Every recorded shape version exists (README "Shapes"), as declared when it was written.
    const shapes = recordedShapesProblem(record.meta, run.replays.get(DECLARATION_STREAMS.shapes)?.state.state() ?? {});
    if (shapes !== null) run.report(AuditCode.DECLARATION_INVALID, key, shapes, stream);
  }
}

/** Report a revision of a reserved stream that breaks its kind's rules (declaration-rules.ts). */
async function auditDeclaration(run: AuditRun, key: Uint8Array, seq: number, change: { stream: string; rev: number }, before: JsonObject): Promise<void> {
  const replayed = run.replays.get(change.stream);
  if (replayed?.ok !== true || replayed.rev !== change.rev) return;
  const headRev = (stream: string): number => Math.max(run.replays.get(stream)?.rev ?? 0, run.originOf(stream));
  const problem = await declarationProblem(change.stream, before, replayed.state.state(), { seq, headRev });
  if (problem !== null) run.report(AuditCode.DECLARATION_INVALID, key, `revision ${change.rev}: ${problem}`, change.stream);
}

/**
 * Index one change of the transition at `seq` and, above its stream's origin, replay it and
 * check the checkpoint at its revision (synchronously: the audit's hot loop).
 * @returns the replayed state when a checkpoint at this revision has another digest, or the
 *   replayed tree at a paged checkpoint (to be confirmed by the caller), else `null`
 */
function replayChange(run: AuditRun, key: Uint8Array, seq: number, c: { stream: string; rev: number; patch: JsonObject }): Suspect | null {
  const indexed = c.rev > run.originOf(c.stream);
  run.loggedChanges(c.stream).push(seq, c.rev, { pruned: false, digest: indexed ? patchDigest(c.patch) : 0 });
  if (!indexed) return null;
  run.headSeqs.set(c.stream, c.rev === run.heads.get(c.stream)?.rev ? seq : run.headSeqs.get(c.stream));
  const r = run.replayOf(c.stream);
  if (!r.ok) return null;
  const fail = (code: AuditCode, detail: string): null => {
    run.report(code, key, detail, c.stream);
    r.ok = false;
    return null;
  };
  if (c.rev !== r.rev + 1) return fail(AuditCode.REVISION_GAP, `stream revision ${c.rev} follows revision ${r.rev}`);
  try {
    r.state = r.state.apply(c.patch);
  } catch (err) {
    return fail(AuditCode.PATCH_FAILED, `the patch of revision ${c.rev} does not apply: ${messageOf(err)}`);
  }
  r.rev = c.rev;
  run.pages.touch(c.stream, c.patch);
  const invalid = stateProblem(c.stream, r.state);
  if (invalid !== null) return fail(AuditCode.STATE_INVALID, `revision ${c.rev}: ${invalid}`);
  const cp = run.checkpoints.get(c.stream)?.get(c.rev);
  if (cp === undefined) return null;
  if (cp.seq !== seq) {
    run.report(AuditCode.CHECKPOINT_MISMATCH, `C/${c.stream}/${c.rev}`, 'the checkpoint differs from the replayed state at its revision', c.stream);
    return null;
  }
  if (cp.root !== undefined) {
    cp.checked = true;
    return { root: cp.root, tree: r.state };
  }
  const state = r.state.state();
  return cp.digest === stateDigest(state) ? null : { state };
}

/**
 * Whether the checkpoint of `stream` at `rev` holds the replayed state of `suspect`: page by
 * page for a paged one, else (or when that does not confirm it) by RFC 8785 hash. A checkpoint
 * that does not read is reported here (and counts as holding: one problem, not two).
 */
async function checkpointHolds(run: AuditRun, stream: string, rev: number, suspect: Suspect): Promise<boolean> {
  try {
    if ('state' in suspect) return await sameState(run.storage, stream, rev, suspect.state);
    if (await run.pages.holds(run.storage, stream, suspect.root, suspect.tree)) return true;
    return await sameState(run.storage, stream, rev, suspect.tree.state());
  } catch (err) {
    run.pages.forget(stream);
    run.report(AuditCode.RECORD_INVALID, checkpointKey(stream, rev), messageOf(err), stream);
    return true;
  }
}

/** Paged checkpoints the replay did not reach (a stream whose replay failed, a revision beyond its head, another seq): read whole, to report damage. */
async function checkUnreplayedCheckpoints(run: AuditRun): Promise<void> {
  for (const [stream, perStream] of run.checkpoints) {
    for (const [rev, cp] of perStream) {
      if (cp.root === undefined || cp.checked === true) continue;
      const key = checkpointKey(stream, rev);
      const bytes = await run.storage.get(key);
      try {
        if (bytes !== undefined) await readCheckpoint(run.storage, key, bytes, stream, rev);
      } catch (err) {
        run.report(AuditCode.RECORD_INVALID, key, messageOf(err), stream);
      }
    }
  }
}

/** Heads against the replay: each head's revision and seq, no checkpoint beyond it, no stream with transitions but no head. */
function checkHeads(run: AuditRun): void {
  for (const [stream, head] of run.heads) {
    const r = run.replays.get(stream) ?? { rev: 0, state: EMPTY_TREE, ok: true };
    if (!r.ok) continue;
    const seq = head.rev === head.origin ? undefined : run.headSeqs.get(stream);
    if (r.rev !== head.rev || (seq !== undefined && seq !== head.seq)) {
      run.report(AuditCode.HEAD_MISMATCH, `H/${stream}`, `head says revision ${head.rev} at seq ${head.seq}; the log replays to revision ${r.rev}`, stream);
    }
    for (const rev of run.checkpoints.get(stream)?.keys() ?? []) {
      if (rev > head.rev) run.report(AuditCode.CHECKPOINT_MISMATCH, `C/${stream}/${rev}`, `checkpoint beyond the head revision ${head.rev}`, stream);
    }
  }
  for (const stream of run.headSeqs.keys()) {
    if (!run.heads.has(stream)) run.report(AuditCode.HEAD_MISMATCH, `H/${stream}`, 'stream has transitions but no head', stream);
  }
}

/** The revision index, then the seq index: merge-joins in key order against the logged changes. */
async function checkIndexes(run: AuditRun): Promise<void> {
  const decode = (key: Uint8Array, value: Uint8Array, stream: string): number | undefined => decodeIndex(key, value, stream, run.report);
  const decodeRev = (key: Uint8Array, value: Uint8Array, stream: string, rev: number): RevisionRecord | undefined => {
    try {
      return decodeRevision(key, value, stream, rev, { frozen: false });
    } catch (err) {
      run.report(sealedCode(key, value), key, messageOf(err), stream);
      return undefined;
    }
  };
  const hasCheckpoint = (stream: string, rev: number): boolean => run.checkpoints.get(stream)?.has(rev) === true;
  await checkRevisionIndex(run.storage, run.logged, { originOf: (stream) => run.originOf(stream), hasCheckpoint }, decodeRev, run.report);
  await checkSeqIndex(run.storage, run.logged, (stream) => run.originOf(stream), decode, run.report);
}

/**
 * Every idempotency record — the owner's (`I`) and the principals' (`J`) — points at a transition
 * (or stub) carrying its id, and every transition carrying an id has exactly one record.
 */
async function checkIds(run: AuditRun): Promise<void> {
  const missing = new Map(run.ids);
  for (const family of [Family.id, Family.principalId]) {
    for await (const [key, value] of run.storage.iterate(familyRange(family))) {
      const k = parseKey(key);
      if (k.family !== 'id' && k.family !== 'principalId') {
        run.report(AuditCode.UNKNOWN_RECORD, key, 'malformed idempotency key');
        continue;
      }
      const seq = decodeIndex(key, value, undefined, run.report);
      if (seq === undefined) continue;
      if (run.ids.get(seq) !== k.id) run.report(AuditCode.ID_MISMATCH, key, `points at seq ${seq}, which does not carry this id`);
      else if (!missing.delete(seq)) run.report(AuditCode.ID_MISMATCH, key, `points at seq ${seq}, which another idempotency record already names`);
    }
  }
  for (const [seq, id] of missing) run.report(AuditCode.ID_MISMATCH, `I/${id}`, `transition ${seq} carries this id but the idempotency record is missing`);
}

/** sha256 of a state's JSON text (see the checkpoint pass of {@link runAudit}). */
function stateDigest(state: JsonObject): string {
  return hash('sha256', JSON.stringify(state), 'base64');
}

/** Whether the checkpoint of `stream` at `rev` holds `state` by RFC 8785 hash (a digest mismatch's confirmation). */
async function sameState(storage: StorageReader, stream: string, rev: number, state: JsonObject): Promise<boolean> {
  const key = checkpointKey(stream, rev);
  const bytes = await storage.get(key);
  return bytes !== undefined && stateHash((await readCheckpoint(storage, key, bytes, stream, rev)).record.state) === stateHash(state);
}

function decodeIndex(key: Uint8Array, value: Uint8Array, stream: string | undefined, report: Report): number | undefined {
  try {
    return decodeCount(key, value, stream);
  } catch (err) {
    report(codeOf(value), key, messageOf(err), stream);
    return undefined;
  }
}

/** The format record's problem (or null), the tip record (when there is one), and any other meta problem. */
async function checkMetaRecords(storage: StorageReader): Promise<{ formatProblem: string | null; tip: TipRecord | null; others: { key: string; detail: string }[] }> {
  let formatProblem: string | null = 'format record is missing';
  let tip: TipRecord | null = null;
  const others: { key: string; detail: string }[] = [];
  for await (const [key, value] of storage.iterate(familyRange(Family.meta))) {
    const k = parseKey(key);
    if (k.family === 'meta' && k.name === 'format') {
      try {
        const v = decodeValue(value);
        formatProblem = isJsonObject(v) && v.format === FORMAT.format && v.version === FORMAT.version ? null : 'format record names another format';
      } catch {
        formatProblem = 'format record does not decode';
      }
    } else if (k.family === 'meta' && k.name === 'tip') {
      try {
        tip = decodeTip(key, value);
      } catch (err) {
        others.push({ key: describeKey(key), detail: messageOf(err) });
      }
    } else others.push({ key: describeKey(key), detail: `unknown meta record ${describeKey(key)}` });
  }
  return { formatProblem, tip, others };
}

/** Classify a sealed record that failed verification: SEAL_MISMATCH, else by its body ({@link codeOf}). */
function sealedCode(key: Uint8Array, value: Uint8Array): AuditCode {
  return sealHolds(key, value) ? codeOf(value.subarray(0, value.byteLength - SEAL_BYTES)) : AuditCode.SEAL_MISMATCH;
}

/** Classify a log record that failed to decode: a format-5 transition by its seal and JSON text, a format-4 record as MessagePack. */
function logCode(key: Uint8Array, value: Uint8Array): AuditCode {
  if (!isSealedTransition(value)) return codeOf(value);
  if (!sealHolds(key, value)) return AuditCode.SEAL_MISMATCH;
  return sealedTransitionParses(value) ? AuditCode.RECORD_INVALID : AuditCode.RECORD_UNDECODABLE;
}

/** Classify a checkpoint that failed verification ({@link sealedCode}; STATE_INVALID for a sealed invalid state). */
function checkpointCode(key: Uint8Array, value: Uint8Array, stream: string): AuditCode {
  const code = sealedCode(key, value);
  if (code !== AuditCode.RECORD_INVALID) return code;
  try {
    const { state } = checkpointBody(key, value.subarray(0, value.byteLength - SEAL_BYTES), stream);
    return stateProblem(stream, state) !== null ? AuditCode.STATE_INVALID : AuditCode.RECORD_INVALID;
  } catch {
    return AuditCode.RECORD_INVALID;
  }
}

/** RECORD_UNDECODABLE when the bytes are not MessagePack at all, else RECORD_INVALID. */
function codeOf(value: Uint8Array): AuditCode {
  try {
    decodeRaw(value);
    return AuditCode.RECORD_INVALID;
  } catch {
    return AuditCode.RECORD_UNDECODABLE;
  }
}

function messageOf(err: unknown): string {
  if (isStateflowError(err, 'STORE_CORRUPT')) return err.details.detail ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
