/**
 * A @tanstack/virtual-core virtualizer bound to a Preact component: created once, its count and
 * row height kept current, mounted and updated in layout effects, and the component redrawn when
 * it scrolls (the rows in view changed).
 */
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import type { RefObject } from 'preact';
import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';

/** The virtualizer of `count` rows of `rowHeight` px in the element `scroller` (8 rows drawn beyond the view on each side). */
export function useVirtualizer(scroller: RefObject<HTMLDivElement | null>, count: number, rowHeight: number): Virtualizer<HTMLDivElement, Element> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const virtualizer = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  if (virtualizer.current === null) {
    virtualizer.current = new Virtualizer<HTMLDivElement, Element>({
      count,
      getScrollElement: () => scroller.current,
      estimateSize: () => rowHeight,
      overscan: 8,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: () => rerender(undefined),
    });
  }
  const v = virtualizer.current;
  v.setOptions({ ...v.options, count, estimateSize: () => rowHeight });
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  return v;
}
