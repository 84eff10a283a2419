/**
 * The history check of many writers on one PostgreSQL store (Jepsen's way): each writer process
 * records every attempt's invocation and outcome (`history-writer.mjs`) on one clock
 * (CLOCK_MONOTONIC, the same for every process of the machine), and this module checks the
 * history against the log the store holds at the end:
 *
 * - **every ok is present once**: an accepted attempt's transition is in the log at its seq with
 *   its hash and marker; a duplicate answer names the transition that carries its id;
 * - **every unknown at most once**, **a refusal not at all** (its marker is nowhere in the log),
 *   **no idempotency id applied twice**, and every transition was made by an attempt of the
 *   history; a retry of an id that had landed before it began answers `duplicate`;
 * - **per-stream linearizability of the compare-and-set**: the log's seq order is the order of
 *   commits (one writer at a time holds the store's lock), so it must agree with real time (a
 *   transition whose attempt ended before another's began comes first); each transition's
 *   revision is its attempt's expected revision + 1; and every value a writer saw — a head read,
 *   the `actual` of a CONFLICT — is a revision the stream held at some moment between that
 *   read's invocation and its answer (the transition making it had begun before the read ended,
 *   the one replacing it had not ended before the read began). These are the necessary
 *   conditions of a linearization; with writes totally ordered by the log they are what a
 *   register's linearizability comes down to for each read on its own.
 */

/** One publish attempt of the history. */
export interface Attempt {
  op: string;
  id: string;
  stream: string;
  expected: number | 'none' | 'any';
  /** ns, CLOCK_MONOTONIC. */
  invoked: number;
  /**
   * ns, when the answer came; `Infinity` for an attempt whose outcome is unknown, which may take
   * effect at any time after it began — also after its writer gave up (a COMMIT the server had
   * received before the connection dropped) — or that never ended (its process died).
   */
  completed: number;
  outcome: 'ok' | 'fail' | 'unknown';
  status?: 'accepted' | 'duplicate' | 'noop';
  seq?: number;
  hash?: string;
  /** The id of the transition a duplicate answer returned. */
  resultId?: string | null;
  code?: string;
  /** A CONFLICT's actual revision. */
  actual?: number;
}

/** A head read that answered. */
export interface HeadRead {
  op: string;
  stream: string;
  rev: number;
  invoked: number;
  completed: number;
}

/** A transition of the log, as the check needs it. */
export interface LogEntry {
  seq: number;
  hash: string;
  id?: string;
  /** The marker of the attempt that made it (`meta.op`). */
  op?: string;
  changes: { stream: string; rev: number }[];
}

/** The history a writer process printed (complete lines only: a cut last line never happened). */
export function parseHistory(output: string): { attempts: Attempt[]; reads: HeadRead[] } {
  const attempts = new Map<string, Attempt>();
  const reads: HeadRead[] = [];
  for (const line of output.split('\n').slice(0, -1)) {
    const e = JSON.parse(line) as Record<string, unknown> & { e: string; op: string; t: number };
    if (e.e === 'read') reads.push({ op: e.op, stream: e.stream as string, rev: e.rev as number, invoked: e.t0 as number, completed: e.t });
    else if (e.e === 'invoke') {
      attempts.set(e.op, { op: e.op, id: e.id as string, stream: e.stream as string, expected: e.expected as Attempt['expected'], invoked: e.t, completed: Infinity, outcome: 'unknown' });
    } else if (e.e === 'ok' || e.e === 'fail' || e.e === 'unknown') {
      const a = attempts.get(e.op);
      if (a === undefined) throw new Error(`an outcome without its invocation: ${line}`);
      Object.assign(a, { completed: e.e === 'unknown' ? Infinity : e.t, outcome: e.e });
      if (e.e === 'ok') Object.assign(a, { status: e.status, seq: e.seq, hash: e.hash, resultId: e.id });
      else Object.assign(a, { code: e.code, ...(typeof e.actual === 'number' ? { actual: e.actual } : {}) });
    }
  }
  return { attempts: [...attempts.values()], reads };
}

/** The transitions of each stream by revision (`[stream][rev]`), with the attempts that made them. */
class Streams {
  readonly #writes = new Map<string, Map<number, { entry: LogEntry; attempt: Attempt | undefined }>>();

  constructor(log: readonly LogEntry[], byOp: Map<string, Attempt>) {
    for (const entry of log) {
      const attempt = entry.op === undefined ? undefined : byOp.get(entry.op);
      for (const { stream, rev } of entry.changes) {
        let revs = this.#writes.get(stream);
        if (revs === undefined) this.#writes.set(stream, (revs = new Map()));
        revs.set(rev, { entry, attempt });
      }
    }
  }

  write(stream: string, rev: number): { entry: LogEntry; attempt: Attempt | undefined } | undefined {
    return this.#writes.get(stream)?.get(rev);
  }

  revs(stream: string): number[] {
    return [...(this.#writes.get(stream)?.keys() ?? [])].sort((a, b) => a - b);
  }

  streams(): string[] {
    return [...this.#writes.keys()];
  }
}

/**
 * Whether revision `rev` of `stream` can have been the head at some moment of [`invoked`,
 * `completed`]: the write making it began before the read ended, the one replacing it did not
 * end before the read began.
 */
function heldDuring(streams: Streams, stream: string, rev: number, invoked: number, completed: number): string | null {
  const made = rev === 0 ? null : streams.write(stream, rev);
  if (rev !== 0 && made === undefined) return `revision ${rev} of ${stream} is not in the log`;
  if (made?.attempt !== undefined && made.attempt.invoked > completed) return `revision ${rev} of ${stream} was made by ${made.attempt.op}, which began after the read ended`;
  const next = streams.write(stream, rev + 1)?.attempt;
  if (next !== undefined && next.completed < invoked) return `revision ${rev + 1} of ${stream} (${next.op}) had replaced it before the read began`;
  return null;
}

function checkAttempts(attempts: readonly Attempt[], log: readonly LogEntry[], report: (problem: string) => void): void {
  const bySeq = new Map(log.map((entry) => [entry.seq, entry]));
  const byMarker = new Map<string, LogEntry[]>();
  const byId = new Map<string, LogEntry[]>();
  for (const entry of log) {
    if (entry.op !== undefined) byMarker.set(entry.op, [...(byMarker.get(entry.op) ?? []), entry]);
    if (entry.id !== undefined) byId.set(entry.id, [...(byId.get(entry.id) ?? []), entry]);
  }
  for (const [id, entries] of byId) if (entries.length > 1) report(`id ${id} applied ${entries.length} times: seqs ${entries.map((e) => e.seq).join(', ')}`);
  const ops = new Set(attempts.map((a) => a.op));
  for (const entry of log) if (entry.op === undefined || !ops.has(entry.op)) report(`seq ${entry.seq} was made by no attempt of the history (${String(entry.op)})`);
  for (const a of attempts) {
    const mine = byMarker.get(a.op) ?? [];
    if (mine.length > 1) report(`${a.op} is in the log ${mine.length} times`);
    if (a.outcome === 'fail' && mine.length > 0) report(`${a.op} was refused (${a.code}) but is in the log at seq ${mine[0]?.seq}`);
    if (a.outcome !== 'ok') continue;
    const at = a.seq === undefined ? undefined : bySeq.get(a.seq);
    if (at === undefined || at.hash !== a.hash) report(`${a.op}: ${a.status} seq ${a.seq} with hash ${a.hash?.slice(0, 12)}… is not in the log`);
    else if (a.status === 'accepted' && at.op !== a.op) report(`${a.op}: accepted as seq ${a.seq}, which another attempt made (${at.op})`);
    else if (a.status === 'duplicate' && (at.id !== a.id || a.resultId !== a.id)) report(`${a.op}: duplicate of id ${a.id} answered with seq ${a.seq}, which carries id ${String(at.id)}`);
  }
  // A retry of an id that had landed (its attempt had ended) before the retry began answers duplicate.
  const byOp = new Map(attempts.map((a) => [a.op, a]));
  for (const a of attempts) {
    if (a.outcome !== 'fail' || a.code !== 'CONFLICT') continue;
    const landed = byId.get(a.id)?.[0];
    const maker = landed?.op === undefined ? undefined : byOp.get(landed.op);
    if (maker !== undefined && maker !== a && maker.completed < a.invoked) report(`${a.op}: id ${a.id} had landed at seq ${landed?.seq} (${maker.op}) before this attempt, which answered CONFLICT instead of duplicate`);
  }
}

function checkLinearizable(attempts: readonly Attempt[], reads: readonly HeadRead[], log: readonly LogEntry[], report: (problem: string) => void): void {
  const byOp = new Map(attempts.map((a) => [a.op, a]));
  const streams = new Streams(log, byOp);
  // Commits in seq order respect real time: each one's attempt ended after every earlier one began.
  let latestStart = -Infinity;
  let latestOp = '';
  for (const entry of log) {
    const a = entry.op === undefined ? undefined : byOp.get(entry.op);
    if (a === undefined) continue;
    if (a.completed < latestStart) report(`seq ${entry.seq} (${a.op}) ended before ${latestOp}, committed earlier, began`);
    if (a.invoked > latestStart) [latestStart, latestOp] = [a.invoked, a.op];
  }
  for (const stream of streams.streams()) {
    const revs = streams.revs(stream);
    if (revs.some((rev, i) => rev !== i + 1)) report(`${stream}: revisions ${revs.join(',')} are not 1…${revs.length}`);
    for (const rev of revs) {
      const a = streams.write(stream, rev)?.attempt;
      const want = a === undefined || a.expected === 'any' ? null : a.expected === 'none' ? 0 : a.expected;
      if (want !== null && a !== undefined && a.stream === stream && rev !== want + 1) report(`${stream}@${rev} made by ${a.op}, which expected revision ${a.expected}`);
    }
  }
  for (const read of reads) {
    const problem = heldDuring(streams, read.stream, read.rev, read.invoked, read.completed);
    if (problem !== null) report(`${read.op} read ${read.stream} at revision ${read.rev}: ${problem}`);
  }
  for (const a of attempts) {
    if (a.code !== 'CONFLICT' || a.actual === undefined) continue;
    const want = a.expected === 'none' ? 0 : a.expected;
    if (a.actual === want) report(`${a.op}: CONFLICT although the actual revision ${a.actual} is the expected one`);
    const problem = heldDuring(streams, a.stream, a.actual, a.invoked, a.completed);
    if (problem !== null) report(`${a.op}: CONFLICT with actual revision ${a.actual}: ${problem}`);
  }
}

/** Every problem of `attempts` and `reads` against `log` (in seq order); empty when they agree. */
export function checkHistory(history: { attempts: readonly Attempt[]; reads: readonly HeadRead[] }, log: readonly LogEntry[]): string[] {
  const problems: string[] = [];
  const report = (problem: string): void => void problems.push(problem);
  log.forEach((entry, i) => {
    if (entry.seq !== i + 1) report(`the log holds seq ${entry.seq} at position ${i + 1}`);
  });
  checkAttempts(history.attempts, log, report);
  checkLinearizable(history.attempts, history.reads, log, report);
  return problems;
}
