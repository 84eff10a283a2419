/**
 * Loading that follows a moving target without queueing: one load at a time; when it ends and
 * the target moved meanwhile (a dragged cursor), the next load starts at the newest target —
 * the intermediate ones are skipped. So a view follows a drag instead of waiting for it to stop
 * or flooding the server.
 */
import { useEffect, useRef } from 'preact/hooks';

/**
 * Run `load(target, latest)` for `target` whenever `deps` change, one at a time as above;
 * `latest()` is the newest target (a load can drop its answer when the target moved on).
 */
export function useFollowingLoad<T>(target: T, deps: readonly unknown[], load: (target: T, latest: () => T) => Promise<void>): void {
  const wanted = useRef(target);
  const running = useRef(false);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    wanted.current = target;
    if (running.current) return;
    running.current = true;
    void (async () => {
      try {
        for (let t = wanted.current; ; t = wanted.current) {
          await loadRef.current(t, () => wanted.current);
          if (t === wanted.current) return;
        }
      } finally {
        running.current = false;
      }
    })();
  }, deps);
}
