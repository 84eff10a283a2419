/**
 * The audit from the page: the server runs it as a background job (one at a time per store,
 * cancellable, the store's owner only) and streams its progress here; the report's findings are
 * each linked to the transition (or revision) they name, a click away from the cursor.
 */
import { timeText } from './format.js';
import type { AuditJob } from './types.js';
import { useAuditJob } from './use-audit-job.js';

type Finding = NonNullable<AuditJob['findings']>[number];

export function AuditView(props: { onSeq: (seq: number) => void; onRevision: (stream: string, rev: number) => void }) {
  const { job, error, start, cancel } = useAuditJob();
  const running = job?.state === 'running';
  const share = job === null || job.total === 0 ? 0 : job.done / job.total;
  return (
    <section class="audit" aria-label="Audit" data-testid="audit">
      <p class="muted small">
        Replays every stream and checks the hash chain, every checkpoint, every head and the indexes. It runs on the server, in the background; writers go on meanwhile.
      </p>
      <div class="audit-actions">
        <button type="button" onClick={start} disabled={running} data-testid="audit-start">
          {job === null ? 'Run the audit' : 'Run it again'}
        </button>
        <button type="button" onClick={cancel} disabled={!running} data-testid="audit-cancel">
          Cancel
        </button>
      </div>
      {error !== null && <p role="alert" class="error">{error}</p>}
      {job !== null && (
        <div data-testid="audit-job" data-state={job.state}>
          <progress max={1} value={share} aria-label="Audit progress" />{' '}
          <span data-testid="audit-progress">
            {job.state}: {job.done} of {job.total} log records verified
          </span>
          <span class="muted small"> · started {timeText(job.startedAt)}</span>
          {job.state === 'done' && job.report !== undefined && <AuditReportView job={job} onSeq={props.onSeq} onRevision={props.onRevision} />}
          {job.state === 'failed' && <p class="error">{String(job.error?.['message'] ?? 'the audit failed')}</p>}
        </div>
      )}
    </section>
  );
}

function AuditReportView(props: { job: AuditJob; onSeq: (seq: number) => void; onRevision: (stream: string, rev: number) => void }) {
  const report = props.job.report;
  const findings = props.job.findings ?? [];
  if (report === undefined) return null;
  return (
    <div class="audit-report" data-testid="audit-report">
      <p class={findings.length === 0 ? 'ok' : 'error'}>
        {findings.length === 0 ? '✓ clean' : `✗ ${findings.length} ${findings.length === 1 ? 'problem' : 'problems'}`}: {report.transitions} transitions, {report.streams} streams, {report.checkpoints} checkpoints
      </p>
      <ul data-testid="audit-findings">
        {findings.map((f, i) => (
          <li key={i}>
            <FindingRow finding={f} onSeq={props.onSeq} onRevision={props.onRevision} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function FindingRow(props: { finding: Finding; onSeq: (seq: number) => void; onRevision: (stream: string, rev: number) => void }) {
  const f = props.finding;
  const { seq, rev, stream } = f;
  const link =
    seq !== undefined ? (
      <button type="button" onClick={() => props.onSeq(seq)} data-testid="finding-seq">
        seq {seq}
      </button>
    ) : rev !== undefined && stream !== undefined ? (
      <button type="button" onClick={() => props.onRevision(stream, rev)}>
        {stream} rev {rev}
      </button>
    ) : null;
  return (
    <>
      <code>{f.code}</code> {link} <span class="muted">{f.key}</span> {f.detail}
    </>
  );
}
