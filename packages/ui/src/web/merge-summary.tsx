/**
 * What a merge preview found: the two sides and their base, and the diff the merge would publish
 * on `into` — each leaf of its patch with `into`'s value before and after — with the patch itself.
 * With open conflicts the diff holds only the changes that meet none.
 */
import { ChangeText } from './diff-row.js';
import { CHANGE_MARK } from './format.js';
import { patchRows } from './merge-plan.js';
import { nothingToMerge, type MergePreview } from './merge-requests.js';
import type { JsonObject } from './types.js';

export function MergeSummary(props: { plan: MergePreview; state: JsonObject }) {
  const p = props.plan;
  const rows = patchRows(p.patch, props.state);
  const open = p.conflicts.length;
  const nothing = nothingToMerge(p);
  return (
    <div class="merge-summary" data-testid="merge-summary">
      <p data-testid="merge-sides">
        {p.from}@{p.fromRev} into {p.into}@{p.intoRev}, from their merge base {p.base.stream}@{p.base.rev}
      </p>
      <h3>
        {nothing ? 'Nothing to merge' : `What the merge publishes on ${p.into}`}
        {open > 0 && <span class="muted small"> (besides the {open} conflict{open === 1 ? '' : 's'} below)</span>}
      </h3>
      {nothing ? (
        <p class="muted">{p.into} already holds every change of {p.from} since the base.</p>
      ) : rows.length === 0 ? (
        <p class="muted">No change outside the conflicts.</p>
      ) : (
        <ul class="merge-diff" data-testid="merge-diff">
          {rows.map((r) => (
            <li key={r.pointer} class={r.change} data-pointer={r.pointer}>
              <span class="sign" aria-label={CHANGE_MARK[r.change].label}>
                {CHANGE_MARK[r.change].sign}
              </span>{' '}
              <code>{r.pointer}</code>: <ChangeText entry={r} />
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary>patch</summary>
        <pre class="json" data-testid="merge-patch">{JSON.stringify(p.patch, null, 2)}</pre>
      </details>
    </div>
  );
}
