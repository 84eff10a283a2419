/**
 * A virtualised list of fixed-height rows (@tanstack/virtual-core): only the rows in view (plus
 * a few) are in the DOM, so a list of 100k revisions scrolls like one of 100. Keyboard: the
 * list is one tab stop; ArrowUp/Down, PageUp/Down, Home/End move the active row (scrolled into
 * view) and Enter activates it. `onReachEnd` asks for the next page when the last rows show.
 */
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';

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
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [active, setActive] = useState(0);
  const virtualizer = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  if (virtualizer.current === null) {
    virtualizer.current = new Virtualizer<HTMLDivElement, Element>({
      count: props.count,
      getScrollElement: () => scroller.current,
      estimateSize: () => props.rowHeight,
      overscan: 8,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: () => rerender(undefined),
    });
  }
  const v = virtualizer.current;
  v.setOptions({ ...v.options, count: props.count, estimateSize: () => props.rowHeight });
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  useEffect(() => {
    if (props.activeIndex !== undefined && props.activeIndex >= 0 && props.activeIndex < props.count) {
      setActive(props.activeIndex);
      v.scrollToIndex(props.activeIndex, { align: 'auto' });
    }
  }, [props.activeIndex]);
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last !== undefined && last.index >= props.count - 4) props.onReachEnd?.();
  }, [last?.index, props.count]);
  const clamped = Math.min(active, Math.max(props.count - 1, 0));

  const move = (to: number) => {
    const next = Math.max(0, Math.min(props.count - 1, to));
    setActive(next);
    v.scrollToIndex(next, { align: 'auto' });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (props.count === 0) return;
    if (props.onKey?.(clamped, event) === true) {
      event.preventDefault();
      return;
    }
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? props.rowHeight * 10) / props.rowHeight) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(clamped + 1),
      ArrowUp: () => move(clamped - 1),
      PageDown: () => move(clamped + page),
      PageUp: () => move(clamped - page),
      Home: () => move(0),
      End: () => move(props.count - 1),
      Enter: () => props.onActivate?.(clamped),
    };
    const action = keys[event.key];
    if (action !== undefined) {
      event.preventDefault();
      action();
    }
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
