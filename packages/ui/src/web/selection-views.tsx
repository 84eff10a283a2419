/**
 * The centre for a selection: the tab bar and the view of the tab — the state tree at the cursor
 * (with the guarded actions on a stream revision), the diff, the path history, the revisions,
 * the slates, the merge of two streams, search through time, lineage, a LangGraph thread's steps
 * and the audit job. The tree stays mounted (hidden) under the other tabs: its view feeds them and the
 * inspector.
 */
import { Actions } from './actions.js';
import { get, query } from './api.js';
import { AuditView } from './audit-view.js';
import { DiffView } from './diff-view.js';
import { LangGraphStepsView } from './langgraph-steps-view.js';
import { LineageView } from './lineage-view.js';
import { MergeView } from './merge-view.js';
import { UndoView } from './undo-view.js';
import { PathHistory } from './path-history.js';
import type { Tab } from './permalink.js';
import { Revisions } from './revisions.js';
import { SearchView } from './search-view.js';
import { SlatesView } from './slates-view.js';
import { StateTree, type TreeView } from './state-tree.js';
import type { Selection } from './types.js';
import type { PointerAt } from './use-navigation.js';
import { ViewTabs } from './view-tabs.js';

export interface SelectionViewsProps {
  selection: Selection;
  tab: Tab;
  onTab: (tab: Tab) => void;
  cursorSeq: number | null;
  onSeq: (seq: number) => void;
  /** The page's version (bumped when it takes in new transitions or publishes). */
  version: number;
  onChanged: () => void;
  view: TreeView | null;
  onView: (view: TreeView | null) => void;
  pointer: PointerAt | null;
  onPointer: (pointer: PointerAt) => void;
  onStatus: (message: string) => void;
  /** Open another selection (a search hit or a lineage mark in another stream). */
  onSelect: (selection: Selection) => void;
}

export function SelectionViews(props: SelectionViewsProps) {
  const { selection, tab, view } = props;
  const stream = selection.type === 'stream' ? selection.stream : null;
  /** Show `target` at `seq` in the tree: its stream opened when it is another one. */
  const jump = (target: string, seq: number) => {
    if (target !== stream) props.onSelect({ type: 'stream', stream: target });
    props.onSeq(seq);
    props.onTab('tree');
  };
  return (
    <>
      <ViewTabs selection={selection} tab={tab} onTab={props.onTab} />
      <div hidden={tab !== 'tree'}>
        {props.cursorSeq !== null && (
          <StateTree
            selection={selection}
            seq={props.cursorSeq}
            version={props.version}
            onView={props.onView}
            onPathHistory={(pointer, rev) => {
              props.onPointer({ pointer, rev });
              props.onTab('history');
            }}
            onStatus={props.onStatus}
            onSeq={props.onSeq}
          />
        )}
        {stream !== null && view?.rev != null && view.head !== null && (
          <Actions stream={stream} rev={view.rev} head={view.head} onDone={(m) => (props.onStatus(m), props.onChanged())} />
        )}
      </div>
      {tab === 'diff' && <DiffView selection={selection} at={view?.rev ?? view?.seq ?? 0} />}
      {tab === 'history' && <HistoryTab stream={stream} pointer={props.pointer} onSeq={props.onSeq} />}
      {tab === 'revisions' && stream !== null && <Revisions stream={stream} rev={view?.rev ?? null} onSeq={props.onSeq} />}
      {tab === 'slates' && stream !== null && view?.rev != null && <SlatesView stream={stream} rev={view.rev} />}
      {tab === 'merge' && stream !== null && <MergeView key={stream} stream={stream} onDone={(m) => (props.onStatus(m), props.onChanged())} />}
      {tab === 'undo' && stream !== null && <UndoView key={stream} stream={stream} onDone={(m) => (props.onStatus(m), props.onChanged())} />}
      <InsightTabs {...props} stream={stream} jump={jump} />
    </>
  );
}

/** The path history tab: the history of the pointer picked in the tree, or what to do first. */
function HistoryTab(props: { stream: string | null; pointer: PointerAt | null; onSeq: (seq: number) => void }) {
  if (props.stream === null) return <p class="muted">Path history reads one stream: pick a stream in the rail.</p>;
  if (props.pointer === null) return <p class="muted">Pick a node in the state tree (its “history” button, or Enter on it).</p>;
  return <PathHistory stream={props.stream} pointer={props.pointer.pointer} at={props.pointer.rev} onSeq={props.onSeq} />;
}

/** Search (kept mounted, so its hits stay while the tree shows one), lineage, LangGraph steps and the audit. */
function InsightTabs(props: SelectionViewsProps & { stream: string | null; jump: (stream: string, seq: number) => void }) {
  const { tab, stream, jump } = props;
  const toRevision = (target: string, rev: number) => void get<{ seq: number }>(`/v1/store/revision-seq${query({ stream: target, rev })}`).then((r) => jump(target, r.seq));
  return (
    <>
      <div hidden={tab !== 'search'}>
        <SearchView selection={props.selection} onOpen={(hit) => jump(hit.stream, hit.seq)} />
      </div>
      {tab === 'lineage' && stream !== null && <LineageView stream={stream} onJump={jump} />}
      {tab === 'steps' && stream !== null && <LangGraphStepsView stream={stream} onSeq={(seq) => jump(stream, seq)} />}
      {tab === 'audit' && <AuditView onSeq={(seq) => (props.onSeq(seq), props.onTab('tree'))} onRevision={toRevision} />}
    </>
  );
}
