/**
 * The credential the page sends: the server's token (printed by `stateflow serve` in the URL's
 * fragment, `/ui/#token=…`) or the user's API key (`#key=…`, or typed into the page when a
 * request answers 401). The fragment never reaches the server or its logs; the page moves the
 * value into `sessionStorage` (this tab only, gone when it closes) and removes it from the
 * address bar. Every request carries it as `Authorization: Bearer …`, the watch stream too
 * (a streamed `fetch`, since `EventSource` cannot send headers).
 */
const STORAGE_KEY = 'stateflow.credential';

/**
 * At load only: take a credential from the URL fragment into sessionStorage, and clear the
 * fragment. A later `hashchange` must not switch the page's key (a link could hand the tab
 * another user's credential, or the attacker's): that is {@link dropFragmentCredential}.
 */
export function adoptFragmentCredential(location: Location, history: History, storage: Storage): void {
  const value = dropFragmentCredential(location, history);
  if (value !== null) storage.setItem(STORAGE_KEY, value);
}

/**
 * Remove `token` and `key` from the URL fragment (the address bar keeps the rest, with
 * `replaceState`); returns the credential it held, or `null`. On a `hashchange` the page calls
 * it alone: the credential leaves the address bar and is not adopted.
 */
export function dropFragmentCredential(location: Location, history: History): string | null {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const value = params.get('token') ?? params.get('key');
  if (value === null || value === '') return null;
  params.delete('token');
  params.delete('key');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`);
  return value;
}

/** The stored credential, or `null`. */
export function credential(storage: Storage = sessionStorage): string | null {
  return storage.getItem(STORAGE_KEY);
}

/** Store (or, with `null`, forget) the credential. */
export function setCredential(value: string | null, storage: Storage = sessionStorage): void {
  if (value === null || value === '') storage.removeItem(STORAGE_KEY);
  else storage.setItem(STORAGE_KEY, value);
}
