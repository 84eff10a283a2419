/** The diff's controls: the two sides (and the stream of side B), the added / removed / changed filters with their counts, and structural or patch. */
import { CHANGE_MARK } from './format.js';
import type { DiffResult } from './types.js';

/** Which kinds of change the diff shows. */
export type DiffFilter = { added: boolean; removed: boolean; changed: boolean };
export type DiffMode = 'structural' | 'patch';

export interface DiffControlsProps {
  /** `revision` (a stream) or `seq` (an effective view; no stream B). */
  unit: 'revision' | 'seq';
  a: number;
  b: number;
  streamB: string;
  onA: (a: number) => void;
  onB: (b: number) => void;
  onStreamB: (stream: string) => void;
  show: DiffFilter;
  onShow: (show: DiffFilter) => void;
  mode: DiffMode;
  onMode: (mode: DiffMode) => void;
  result: DiffResult | null;
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

export function DiffControls(props: DiffControlsProps) {
  return (
    <form class="diff-controls" onSubmit={(e) => e.preventDefault()}>
      <label class="field inline">
        <span>A ({props.unit})</span>
        <input type="number" min={0} value={props.a} onInput={(e) => props.onA(Number(value(e)))} data-testid="diff-a" />
      </label>
      <label class="field inline">
        <span>B ({props.unit})</span>
        <input type="number" min={0} value={props.b} onInput={(e) => props.onB(Number(value(e)))} data-testid="diff-b" />
      </label>
      {props.unit === 'revision' && (
        <label class="field inline">
          <span>B from stream (fork vs source)</span>
          <input value={props.streamB} placeholder="same stream" onInput={(e) => props.onStreamB(value(e))} />
        </label>
      )}
      <fieldset class="filters">
        <legend>Show</legend>
        {(['added', 'removed', 'changed'] as const).map((kind) => (
          <label class="check" key={kind}>
            <input type="checkbox" checked={props.show[kind]} onChange={(e) => props.onShow({ ...props.show, [kind]: (e.target as HTMLInputElement).checked })} /> {CHANGE_MARK[kind].sign}{' '}
            {CHANGE_MARK[kind].label} ({props.result?.counts[kind] ?? 0})
          </label>
        ))}
      </fieldset>
      <fieldset class="filters">
        <legend>As</legend>
        <label class="check">
          <input type="radio" name="diff-mode" checked={props.mode === 'structural'} onChange={() => props.onMode('structural')} /> structural
        </label>
        <label class="check">
          <input type="radio" name="diff-mode" checked={props.mode === 'patch'} onChange={() => props.onMode('patch')} data-testid="diff-mode-patch" />{' '}
          {props.result?.storedPatch != null ? 'stored patch' : 'patch'}
        </label>
      </fieldset>
    </form>
  );
}
