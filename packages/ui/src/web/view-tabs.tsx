/**
 * The centre's tab bar (the views that apply to the selection: revisions, merge, undo and lineage for a
 * stream, slates for a slate stream, steps for a LangGraph thread; search and the audit always) and the title of the selection.
 */
import type { Tab } from './permalink.js';
import type { Selection } from './types.js';
import { MiddleCut } from './middle-cut.js';

/** The tabs that apply to `selection`, with their titles, in order. */
export function tabsFor(selection: Selection): Array<readonly [Tab, string]> {
  const stream = selection.type === 'stream' ? selection.stream : null;
  return [
    ['tree', 'State tree'],
    ['diff', 'Diff'],
    ['history', 'Path history'],
    ...(stream !== null ? [['revisions', 'Revisions'] as const] : []),
    ...(stream?.startsWith('slate:') === true ? [['slates', 'Slates'] as const] : []),
    ...(stream !== null ? [['merge', 'Merge'] as const] : []),
    ...(stream !== null ? [['undo', 'Undo'] as const] : []),
    ['search', 'Search'],
    ...(stream !== null ? [['lineage', 'Lineage'] as const] : []),
    ...(stream?.startsWith('langgraph:') === true ? [['steps', 'Steps'] as const] : []),
    ['audit', 'Audit'],
  ];
}

/** The title of a selection: the stream, or `effective: global + cwd:… + session:…`. */
export function selectionTitle(selection: Selection): string {
  if (selection.type === 'stream') return selection.stream;
  const parts = [selection.global ? 'global' : '', selection.cwd === '' ? '' : `cwd:${selection.cwd}`, selection.session === '' ? '' : `session:${selection.session}`];
  return `effective: ${parts.filter(Boolean).join(' + ')}`;
}

export function ViewTabs(props: { selection: Selection; tab: Tab; onTab: (tab: Tab) => void }) {
  return (
    <>
      <div class="tabs" role="tablist" aria-label="Views">
        {tabsFor(props.selection).map(([id, title]) => (
          <button key={id} type="button" role="tab" aria-selected={props.tab === id} class={props.tab === id ? 'tab active' : 'tab'} onClick={() => props.onTab(id)} data-testid={`tab-${id}`}>
            {title}
          </button>
        ))}
      </div>
      <h2 class="selection-title" data-testid="selection-title" title={selectionTitle(props.selection)}>
        <MiddleCut text={selectionTitle(props.selection)} />
      </h2>
    </>
  );
}
