/**
 * Search through time (git's pickaxe): when did `version` become `9.2.0`, which revisions
 * mention `babel`. A key (a name, or a pointer suffix such as `/dependencies/eslint`) and a value
 * (JSON, or plain text taken as a string), a text, or a key alone; over the selected stream or
 * every visible stream. Each hit is a revision where a match appeared or disappeared, and one
 * click moves the cursor there (and opens its stream).
 */
import { useState } from 'preact/hooks';
import { shownText, timeText } from './format.js';
import type { SearchHit, Selection } from './types.js';
import { useSearch, type SearchQuery } from './use-search.js';

type Mode = 'value' | 'text' | 'key';

/** The route's parameters for what the form holds (a value that is not JSON is searched as a string). */
export function searchQuery(mode: Mode, key: string, input: string, stream: string | null): SearchQuery {
  const q: SearchQuery = stream === null ? {} : { stream };
  if (key.trim() !== '') q.key = key.trim();
  if (mode === 'text' && input !== '') q.text = input;
  if (mode === 'value' && input !== '') {
    let json = input;
    try {
      JSON.parse(input);
    } catch {
      json = JSON.stringify(input);
    }
    q.value = json;
  }
  return q;
}

export function SearchView(props: { selection: Selection; onOpen: (hit: SearchHit) => void }) {
  const stream = props.selection.type === 'stream' ? props.selection.stream : null;
  const [mode, setMode] = useState<Mode>('value');
  const [key, setKey] = useState('');
  const [input, setInput] = useState('');
  const [all, setAll] = useState(stream === null);
  const search = useSearch();
  const submit = (e: Event) => {
    e.preventDefault();
    search.start(searchQuery(mode, key, input, all ? null : stream));
  };
  return (
    <section class="search" aria-label="Search through time" data-testid="search">
      <form class="search-form" onSubmit={submit} role="search">
        <label class="field inline">
          key <input value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} placeholder="version or /dependencies/eslint" data-testid="search-key" />
        </label>
        <label class="field inline">
          match
          <select value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode)} data-testid="search-mode">
            <option value="value">value equals</option>
            <option value="text">text contains</option>
            <option value="key">the key is present</option>
          </select>
        </label>
        {mode !== 'key' && (
          <label class="field inline">
            {mode === 'value' ? 'value (JSON, or text)' : 'text'}
            <input value={input} onInput={(e) => setInput((e.target as HTMLInputElement).value)} placeholder={mode === 'value' ? '9.2.0' : 'babel'} data-testid="search-input" />
          </label>
        )}
        {stream !== null && (
          <label class="check">
            <input type="checkbox" checked={all} onChange={() => setAll(!all)} data-testid="search-all" /> every stream
          </label>
        )}
        <button type="submit" data-testid="search-go">
          Search
        </button>
      </form>
      <SearchStatus search={search} />
      <ol class="hits" data-testid="search-hits">
        {search.hits.map((hit) => (
          <li key={`${hit.seq}:${hit.stream}`}>
            <HitRow hit={hit} showStream={all || stream === null} onOpen={() => props.onOpen(hit)} />
          </li>
        ))}
      </ol>
      {search.next !== null && !search.running && (
        <button type="button" onClick={search.more} data-testid="search-more">
          Search on from seq {search.next + 1}
        </button>
      )}
    </section>
  );
}

function SearchStatus(props: { search: ReturnType<typeof useSearch> }) {
  const { progress, running, error, hits, next } = props.search;
  if (error !== null) return <p role="alert" class="error">{error}</p>;
  if (progress === null) return <p class="muted small">Finds the revisions where a match appears or disappears, oldest first. The server reads a bounded run of the log per request; the page asks on until it finds some.</p>;
  return (
    <p class="muted small" data-testid="search-status" aria-live="polite">
      {running ? 'Searching… ' : ''}
      {hits.length} {hits.length === 1 ? 'revision' : 'revisions'} found; read up to seq {progress.read} of {progress.last}
      {next === null && !running ? ' (the whole log)' : ''}
    </p>
  );
}

/** One hit: where, when, and the matches that appeared (+) and disappeared (−). */
export function HitRow(props: { hit: SearchHit; showStream: boolean; onOpen: () => void }) {
  const h = props.hit;
  return (
    <button type="button" class="hit" onClick={props.onOpen} data-testid="search-hit" data-seq={h.seq} data-rev={h.rev}>
      <span class="hit-where">
        {props.showStream ? `${h.stream} ` : ''}rev {h.rev} · seq {h.seq} · {timeText(h.date ?? h.time)}
      </span>
      {h.appeared.map((m) => (
        <span class="hit-match added" key={`+${m.pointer}`}>
          + {m.pointer} = {shownText(m.value)}
        </span>
      ))}
      {h.disappeared.map((m) => (
        <span class="hit-match removed" key={`-${m.pointer}`}>
          − {m.pointer} (was {shownText(m.value)})
        </span>
      ))}
      {h.more !== undefined && <span class="muted small">and {h.more} more</span>}
    </button>
  );
}
