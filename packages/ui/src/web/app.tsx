/**
 * The history browser: streams rail (left), time cursor (top), the view of the selection at the
 * cursor (centre: tree, diff, path history, revisions, slates, search, lineage, steps, audit), the transition inspector
 * (right), and the live banner. The URL fragment is a permalink (stream, seq, tab, pointer).
 *
 * Parts: where the page is (use-navigation.ts), the timeline (use-timeline.ts), live updates
 * (use-live.ts), the centre (selection-views.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { handleUnauthorized } from './api.js';
import { setCredential } from './auth.js';
import { Inspector } from './inspector.js';
import { KeyPrompt } from './key-prompt.js';
import { SelectionViews } from './selection-views.js';
import type { TreeView } from './state-tree.js';
import { StreamsRail } from './streams-rail.js';
import { TimeCursor } from './time-cursor.js';
import { TopBar } from './top-bar.js';
import type { Selection } from './types.js';
import { useLive } from './use-live.js';
import { useNavigation } from './use-navigation.js';
import { useTimeline } from './use-timeline.js';
import { Welcome } from './welcome.js';

export function App() {
  const nav = useNavigation();
  const { selection, tab, setCursorSeq } = nav;
  const [version, setVersion] = useState(0);
  const [view, setView] = useState<TreeView | null>(null);
  const [status, setStatus] = useState('');
  const [askKey, setAskKey] = useState(false);
  const { histogram, knownLast } = useTimeline(selection, version, nav.axis, (last) => setCursorSeq((c) => c ?? last));
  const live = useLive(knownLast, histogram !== null);
  const changed = () => setVersion((v) => v + 1);

  useEffect(() => handleUnauthorized(() => setAskKey(true)), []);

  const takeFresh = () => {
    const last = live.take();
    changed();
    setCursorSeq(last);
  };
  const select = (s: Selection) => {
    nav.setSelection(s);
    nav.setPointer(null);
    if (tab === 'slates' && !(s.type === 'stream' && s.stream.startsWith('slate:'))) nav.setTab('tree');
  };

  return (
    <div class="app" data-version={version}>
      <TopBar live={live.live} fresh={live.fresh.length} onTakeFresh={takeFresh} status={status} />
      <TimeCursor histogram={histogram} seq={nav.cursorSeq ?? 0} onSeq={(s) => setCursorSeq(s)} axis={nav.axis} onAxis={nav.setAxis} />
      <div class="main">
        <StreamsRail selection={selection} version={version} onSelect={select} />
        <main class="centre">
          {selection === null ? (
            <Welcome onPick={nav.setSelection} />
          ) : (
            <SelectionViews
              selection={selection}
              tab={tab}
              onTab={nav.setTab}
              cursorSeq={nav.cursorSeq}
              onSeq={(s) => setCursorSeq(s)}
              version={version}
              onChanged={changed}
              view={view}
              onView={setView}
              pointer={nav.pointer}
              onPointer={nav.setPointer}
              onStatus={setStatus}
              onSelect={select}
            />
          )}
        </main>
        <Inspector seq={view?.shownSeq ?? null} selected={selection !== null} />
      </div>
      {askKey && (
        <KeyPrompt
          onKey={(key) => {
            setCredential(key);
            setAskKey(false);
            changed();
          }}
        />
      )}
    </div>
  );
}
