/**
 * A virtualised list of fixed-height rows (@tanstack/virtual-core): only the rows in view (plus
 * a few) are in the DOM, so a list of 100k revisions scrolls like one of 100. Keyboard: the
 * list is one tab stop; ArrowUp/Down, PageUp/Down, Home/End move the active row (scrolled into
 * view) and Enter activates it. `onReachEnd` asks for the next page when the last rows show.
 *
 * Parts: the virtualizer (use-virtualizer.ts), the keys (list-keys.ts).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { listKey } from './list-keys.js';
import { useVirtualizer } from './use-virtualizer.js';

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  /** Row contents. */
  row: (index: number) => ComponentChildren;
  /** Accessible name of the list. */
  label: string;
  /** Enter (or a click) on a row. */
  onActivate?: (index: number) => void;
  /** Extra keys on the active row (e.g. ArrowRight in a tree); return true when handled. */
  onKey?: (index: number, event: KeyboardEvent) => boolean;
  onReachEnd?: () => void;
  /** ARIA role of the container: `listbox` (default) or `tree`. */
  role?: 'listbox' | 'tree';
  /** Row id prefix (rows get `id={prefix}-{index}` for aria-activedescendant). */
  idPrefix: string;
  testId?: string;
  /** Extra ARIA attributes of a row (a tree's `aria-level`, `aria-expanded`). */
  rowAria?: (index: number) => Record<string, string | number | boolean | undefined>;
  /** Row to make active (e.g. the one the cursor is on); changes scroll it into view. */
  activeIndex?: number;
}

export function VirtualList(props: VirtualListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const v = useVirtualizer(scroller, props.count, props.rowHeight);
  const move = (to: number) => {
    setActive(to);
    v.scrollToIndex(to, { align: 'auto' });
  };
  useEffect(() => {
    if (props.activeIndex !== undefined && props.activeIndex >= 0 && props.activeIndex < props.count) move(props.activeIndex);
  }, [props.activeIndex]);
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last !== undefined && last.index >= props.count - 4) props.onReachEnd?.();
  }, [last?.index, props.count]);
  const clamped = Math.min(active, Math.max(props.count - 1, 0));

  const onKeyDown = (event: KeyboardEvent) => {
    if (props.count === 0) return;
    if (props.onKey?.(clamped, event) === true) return event.preventDefault();
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? props.rowHeight * 10) / props.rowHeight) - 1);
    const action = listKey(event.key, clamped, props.count, page);
    if (action === null) return;
    event.preventDefault();
    if ('move' in action) move(action.move);
    else props.onActivate?.(clamped);
  };
  return (
    <div
      ref={scroller}
      class="vlist"
      role={props.role ?? 'listbox'}
      aria-label={props.label}
      tabIndex={0}
      aria-activedescendant={props.count > 0 ? `${props.idPrefix}-${clamped}` : undefined}
      onKeyDown={onKeyDown}
      data-testid={props.testId}
    >
      <div style={{ height: `${v.getTotalSize()}px`, position: 'relative' }}>
        {items.map((item) => (
          <div
            key={item.key}
            id={`${props.idPrefix}-${item.index}`}
            class={item.index === clamped ? 'vrow active' : 'vrow'}
            role={props.role === 'tree' ? 'treeitem' : 'option'}
            aria-selected={item.index === clamped}
            {...(props.rowAria?.(item.index) ?? {})}
            style={{ position: 'absolute', top: 0, left: 0, right: 0, height: `${props.rowHeight}px`, transform: `translateY(${item.start}px)` }}
            onClick={() => {
              setActive(item.index);
              props.onActivate?.(item.index);
            }}
          >
            {props.row(item.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
