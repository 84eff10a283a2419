/** The page's top bar: title, whether the watch stream is live, the "new transitions" banner and the status line. */
export interface TopBarProps {
  live: boolean;
  /** Transitions published since the page's last seq. */
  fresh: number;
  onTakeFresh: () => void;
  status: string;
}

export function TopBar(props: TopBarProps) {
  return (
    <header class="top">
      <h1>Stateflow history</h1>
      <span class={props.live ? 'badge ok' : 'badge'} title="watch stream">
        {props.live ? '● live' : '○ not live'}
      </span>
      {props.fresh > 0 && (
        <button type="button" class="banner" onClick={props.onTakeFresh} data-testid="new-banner">
          {props.fresh} new transition{props.fresh === 1 ? '' : 's'} — show latest
        </button>
      )}
      <p class="sr-only" role="status" aria-live="polite">
        {props.status}
      </p>
      {props.status !== '' && (
        <span class="muted small" data-testid="status">
          {props.status}
        </span>
      )}
    </header>
  );
}
