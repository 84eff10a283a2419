/**
 * The page's one way to load something for a view: `load` runs on mount and whenever `deps`
 * change, the previous request aborted (its late answer dropped). A failure keeps the last value
 * (a view can show it under the error) and is handed out as an {@link ApiError}, a network
 * failure as code `NETWORK`.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** What {@link useLoaded} hands out: the last value loaded and the error of the last load. */
export interface Loaded<T> {
  /** `null` until the first load answers. */
  value: T | null;
  /** `null` after a load that answered. */
  error: ApiError | null;
}

/** An error as the page shows it: the server's, or a network failure as `NETWORK`. */
export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'NETWORK', err instanceof Error ? err.message : String(err));
}

/** Load with `load(signal)` now and whenever `deps` change (see the module header). */
export function useLoaded<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ value: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
      (value) => controller.signal.aborted || setState({ value, error: null }),
      (err: unknown) => controller.signal.aborted || setState((s) => ({ value: s.value, error: asApiError(err) })),
    );
    return () => controller.abort();
  }, deps);
  return state;
}
