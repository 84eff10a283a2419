/**
 * The history browser: streams rail (left), time cursor (top), the view of the selection at the
 * cursor (centre: tree, diff, path history, revisions, slates), the transition inspector
 * (right), and the live banner. The URL fragment is a permalink (stream, seq, tab, pointer).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Actions } from './actions.js';
import { get, handleUnauthorized, query, watch } from './api.js';
import { setCredential } from './auth.js';
import { DiffView } from './diff-view.js';
import { Inspector } from './inspector.js';
import { PathHistory } from './path-history.js';
import { Revisions } from './revisions.js';
import { SlatesView } from './slates-view.js';
import { StateTree } from './state-tree.js';
import type { TreeView } from './state-tree.js';
import { StreamsRail } from './streams-rail.js';
import { TimeCursor } from './time-cursor.js';
import type { Histogram, Selection, StreamPage } from './types.js';

type Tab = 'tree' | 'diff' | 'history' | 'revisions' | 'slates';

interface Permalink {
  selection: Selection | null;
  seq: number | null;
  tab: Tab;
  pointer: string | null;
}

function readPermalink(hash: string): Permalink {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const stream = p.get('stream');
  const effective = p.get('effective');
  const selection: Selection | null =
    stream !== null
      ? { type: 'stream', stream }
      : effective !== null
        ? { type: 'effective', global: p.get('global') === '1', cwd: p.get('cwd') ?? '', session: p.get('session') ?? '' }
        : null;
  const seq = p.get('seq');
  const tab = (p.get('tab') ?? 'tree') as Tab;
  return { selection, seq: seq === null ? null : Number(seq), tab, pointer: p.get('pointer') };
}

function writePermalink(link: Permalink): void {
  const p = new URLSearchParams();
  if (link.selection?.type === 'stream') p.set('stream', link.selection.stream);
  if (link.selection?.type === 'effective') {
    p.set('effective', '1');
    if (link.selection.global) p.set('global', '1');
    if (link.selection.cwd !== '') p.set('cwd', link.selection.cwd);
    if (link.selection.session !== '') p.set('session', link.selection.session);
  }
  if (link.seq !== null) p.set('seq', String(link.seq));
  if (link.tab !== 'tree') p.set('tab', link.tab);
  if (link.pointer !== null) p.set('pointer', link.pointer);
  history.replaceState(null, '', `${location.pathname}${location.search}#${p.toString()}`);
}

export function App() {
  const initial = useRef(readPermalink(location.hash)).current;
  const [selection, setSelection] = useState<Selection | null>(initial.selection);
  const [histogram, setHistogram] = useState<Histogram | null>(null);
  const [axis, setAxis] = useState<Histogram['axis']>('time');
  const [cursorSeq, setCursorSeq] = useState<number | null>(initial.seq);
  const [knownLast, setKnownLast] = useState(0);
  const [fresh, setFresh] = useState<number[]>([]);
  const [live, setLive] = useState(false);
  const [version, setVersion] = useState(0);
  const [tab, setTab] = useState<Tab>(initial.tab);
  const [pointer, setPointer] = useState<{ pointer: string; rev: number | null } | null>(initial.pointer === null ? null : { pointer: initial.pointer, rev: null });
  const [view, setView] = useState<TreeView | null>(null);
  const [status, setStatus] = useState('');
  const [askKey, setAskKey] = useState(false);

  useEffect(() => handleUnauthorized(() => setAskKey(true)), []);

  // A permalink pasted into this tab (the page writes its own with replaceState, which fires no event).
  useEffect(() => {
    const follow = () => {
      const link = readPermalink(location.hash);
      if (link.selection === null) return;
      setSelection(link.selection);
      setCursorSeq((c) => link.seq ?? c);
      setTab(link.tab);
      setPointer(link.pointer === null ? null : { pointer: link.pointer, rev: null });
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  // The cursor starts at the last seq (one cheap request), not after the histogram has loaded.
  useEffect(() => {
    get<StreamPage>(`/v1/history/streams${query({ limit: 1 })}`).then((p) => setCursorSeq((c) => c ?? p.lastSeq), () => undefined);
  }, []);

  // The histogram and the last seq the page shows; reloaded when the user takes in new transitions.
  useEffect(() => {
    const stream = selection?.type === 'stream' ? selection.stream : undefined;
    get<Histogram>(`/v1/history/histogram${query({ buckets: 120, axis })}`)
      .catch(() => (stream === undefined ? null : get<Histogram>(`/v1/history/histogram${query({ buckets: 120, stream, axis })}`)))
      .then((h) => {
        if (h === null) return;
        setHistogram(h);
        setKnownLast(h.lastSeq);
        setCursorSeq((c) => c ?? h.lastSeq);
      })
      .catch(() => undefined);
  }, [version, axis, selection?.type === 'stream' ? selection.stream : '']);

  // Live: new transitions raise the banner; the cursor stays where the user put it.
  useEffect(() => {
    if (knownLast === 0 && histogram === null) return;
    const controller = new AbortController();
    void watch(knownLast, (t) => setFresh((f) => (t.seq > knownLast && !f.includes(t.seq) ? [...f, t.seq] : f)), controller.signal, (state) => setLive(state === 'live'));
    return () => controller.abort();
  }, [knownLast, histogram === null]);

  useEffect(() => writePermalink({ selection, seq: cursorSeq, tab, pointer: pointer?.pointer ?? null }), [selection, cursorSeq, tab, pointer]);

  const takeFresh = () => {
    const last = Math.max(knownLast, ...fresh);
    setFresh([]);
    setVersion((v) => v + 1);
    setCursorSeq(last);
  };
  const stream = selection?.type === 'stream' ? selection.stream : null;
  const isSlate = stream?.startsWith('slate:') === true;

  return (
    <div class="app" data-version={version}>
      <header class="top">
        <h1>Stateflow history</h1>
        <span class={live ? 'badge ok' : 'badge'} title="watch stream">
          {live ? '● live' : '○ not live'}
        </span>
        {fresh.length > 0 && (
          <button type="button" class="banner" onClick={takeFresh} data-testid="new-banner">
            {fresh.length} new transition{fresh.length === 1 ? '' : 's'} — show latest
          </button>
        )}
        <p class="sr-only" role="status" aria-live="polite">
          {status}
        </p>
        {status !== '' && (
          <span class="muted small" data-testid="status">
            {status}
          </span>
        )}
      </header>
      <TimeCursor histogram={histogram} seq={cursorSeq ?? 0} onSeq={(s) => setCursorSeq(s)} axis={axis} onAxis={setAxis} />
      <div class="main">
        <StreamsRail
          selection={selection}
          version={version}
          onSelect={(s) => {
            setSelection(s);
            setPointer(null);
            if (tab === 'slates' && !(s.type === 'stream' && s.stream.startsWith('slate:'))) setTab('tree');
          }}
        />
        <main class="centre">
          {selection === null ? (
            <Welcome onPick={setSelection} />
          ) : (
            <>
              <div class="tabs" role="tablist" aria-label="Views">
                {(
                  [
                    ['tree', 'State tree'],
                    ['diff', 'Diff'],
                    ['history', 'Path history'],
                    ...(stream !== null ? [['revisions', 'Revisions'] as const] : []),
                    ...(isSlate ? [['slates', 'Slates'] as const] : []),
                  ] as const
                ).map(([id, title]) => (
                  <button key={id} type="button" role="tab" aria-selected={tab === id} class={tab === id ? 'tab active' : 'tab'} onClick={() => setTab(id)} data-testid={`tab-${id}`}>
                    {title}
                  </button>
                ))}
              </div>
              <h2 class="selection-title" data-testid="selection-title">
                {selection.type === 'stream' ? selection.stream : `effective: ${[selection.global ? 'global' : '', selection.cwd === '' ? '' : `cwd:${selection.cwd}`, selection.session === '' ? '' : `session:${selection.session}`].filter(Boolean).join(' + ')}`}
              </h2>
              <div hidden={tab !== 'tree'}>
                {cursorSeq !== null && (
                  <StateTree
                    selection={selection}
                    seq={cursorSeq}
                    version={version}
                    onView={setView}
                    onPathHistory={(p, rev) => {
                      setPointer({ pointer: p, rev });
                      setTab('history');
                    }}
                    onStatus={setStatus}
                  />
                )}
                {stream !== null && view?.rev != null && view.head !== null && (
                  <Actions stream={stream} rev={view.rev} head={view.head} onDone={(m) => (setStatus(m), setVersion((v) => v + 1))} />
                )}
              </div>
              {tab === 'diff' && <DiffView selection={selection} at={view?.rev ?? view?.seq ?? 0} />}
              {tab === 'history' &&
                (stream === null ? (
                  <p class="muted">Path history reads one stream: pick a stream in the rail.</p>
                ) : pointer === null ? (
                  <p class="muted">Pick a node in the state tree (its “history” button, or Enter on it).</p>
                ) : (
                  <PathHistory stream={stream} pointer={pointer.pointer} at={pointer.rev} onSeq={(s) => setCursorSeq(s)} />
                ))}
              {tab === 'revisions' && stream !== null && <Revisions stream={stream} rev={view?.rev ?? null} onSeq={(s) => setCursorSeq(s)} />}
              {tab === 'slates' && stream !== null && view?.rev != null && <SlatesView stream={stream} rev={view.rev} />}
            </>
          )}
        </main>
        <Inspector seq={view?.seq ?? null} />
      </div>
      {askKey && (
        <KeyPrompt
          onKey={(key) => {
            setCredential(key);
            setAskKey(false);
            setVersion((v) => v + 1);
          }}
        />
      )}
    </div>
  );
}

function Welcome(props: { onPick: (s: Selection) => void }) {
  const [page, setPage] = useState<StreamPage | null>(null);
  useEffect(() => {
    get<StreamPage>(`/v1/history/streams${query({ limit: 5 })}`).then(setPage, () => undefined);
  }, []);
  return (
    <section class="welcome">
      <h2>Pick a stream</h2>
      <p>Choose a stream in the rail (or the effective view of a selection), then drag the time cursor to see it as of any transition.</p>
      {page !== null && page.streams.length === 0 && <p>This store has no transitions yet.</p>}
      {page?.streams[0] !== undefined && (
        <button type="button" onClick={() => props.onPick({ type: 'stream', stream: page.streams[0]!.stream })}>
          Open {page.streams[0].stream}
        </button>
      )}
    </section>
  );
}

function KeyPrompt(props: { onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="key-title">
      <h2 id="key-title">This server needs a token or API key</h2>
      <p>
        Open the URL <code>stateflow serve</code> printed (it carries the token after <code>#token=</code>), or paste your API key. It is kept in this tab's session storage only.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onKey(key.trim());
        }}
      >
        <label class="field">
          <span>Token or API key</span>
          <input type="password" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} autoFocus data-testid="key-input" />
        </label>
        <button type="submit">Use it</button>
      </form>
    </div>
  );
}
