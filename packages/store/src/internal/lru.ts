/** A small least-recently-used map (insertion order of `Map` as recency). */
export class Lru<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  /** Whether `key` has an entry (its recency unchanged). */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    if (this.#max <= 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
  }

  /** Drop every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    for (const key of [...this.#map.keys()]) if (match(key)) this.#map.delete(key);
  }
}
