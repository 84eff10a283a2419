/** A transition's hash chain link `prevHash → hash` and whether it was verified against the previous transition. */
import type { InspectedTransition } from './types.js';

/** What the check of the link of transition `seq` says. */
export function verdictText(seq: number, verified: boolean | null): string {
  if (verified === true) return seq === 1 ? '✓ verified: the first transition (prevHash is 64 zeros)' : `✓ verified: prevHash is the hash of seq ${seq - 1}`;
  if (verified === false) return '✗ prevHash does not match the previous transition';
  return 'previous transition compacted or not visible';
}

export function HashLink(props: { seq: number; link: InspectedTransition['link'] }) {
  const link = props.link;
  if (link === null) return <p class="muted small">Not shown: the transition also changed streams you cannot see, so its hashed body is not all here.</p>;
  return (
    <p class="hash">
      <code title={link.prevHash}>{link.prevHash.slice(0, 12)}…</code> → <code title={link.hash}>{link.hash.slice(0, 12)}…</code>{' '}
      <span class={link.verified === true ? 'badge ok' : link.verified === false ? 'badge bad' : 'badge'} data-testid="hash-verified">
        {verdictText(props.seq, link.verified)}
      </span>
    </p>
  );
}
