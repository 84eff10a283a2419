import { describe, expect, it } from 'vitest';
import { adoptFragmentCredential, credential, dropFragmentCredential } from './auth.js';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

describe('adoptFragmentCredential', () => {
  it('moves #token=… into sessionStorage and keeps the rest of the fragment', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const history = { replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) } as unknown as History;
    adoptFragmentCredential({ hash: '#token=abc123&stream=cwd%3A%2Fp', pathname: '/ui/', search: '' } as Location, history, storage);
    expect(credential(storage)).toBe('abc123');
    expect(replaced).toEqual(['/ui/#stream=cwd%3A%2Fp']);
  });

  it('takes #key=… (an API key) the same way, and leaves a fragment without either alone', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const history = { replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) } as unknown as History;
    adoptFragmentCredential({ hash: '#key=sk-1', pathname: '/ui/', search: '' } as Location, history, storage);
    expect(credential(storage)).toBe('sk-1');
    adoptFragmentCredential({ hash: '#stream=global', pathname: '/ui/', search: '' } as Location, history, storage);
    expect(credential(storage)).toBe('sk-1');
    expect(replaced).toEqual(['/ui/']);
  });

  it('dropFragmentCredential (a hashchange) clears the credential from the address bar and adopts nothing', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const history = { replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) } as unknown as History;
    adoptFragmentCredential({ hash: '#token=mine', pathname: '/ui/', search: '' } as Location, history, storage);
    expect(dropFragmentCredential({ hash: '#token=theirs&stream=global', pathname: '/ui/', search: '' } as Location, history)).toBe('theirs');
    expect(credential(storage)).toBe('mine');
    expect(replaced).toEqual(['/ui/', '/ui/#stream=global']);
  });
});
