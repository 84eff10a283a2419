/**
 * A Prometheus histogram for the store's hot path (`metrics.ts`): prom-client's `Histogram`
 * validates and hashes its labels on every `observe` (about 1 µs, several per publish), so the
 * store's observations go into plain bucket arrays instead — one per label set, made up front —
 * written in the Prometheus text format at scrape time after the registry's own metrics
 * (`ServerMetrics.text`): `# HELP`, `# TYPE … histogram`, cumulative `_bucket` lines with `le`,
 * `_sum` and `_count` per label set (format 0.0.4; label values escaped).
 */

/** One label set's counts. */
interface Counts {
  labels: Record<string, string>;
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** An observer of one label set. */
export interface Observe {
  observe(value: number): void;
}

/** A label value escaped for the text format (backslash, double quote, line feed). */
function escaped(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `{a="x",b="y"}`, or nothing for no labels. */
function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([name, value]) => `${name}="${escaped(value)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** A histogram of label sets known up front, written as Prometheus text. */
export class StoreHistogram {
  readonly #sets: Counts[] = [];

  /** @param upperBounds bucket upper bounds, ascending (the `+Inf` bucket is added) */
  constructor(
    readonly name: string,
    readonly help: string,
    readonly upperBounds: readonly number[],
  ) {}

  /** The observer of `labels` (made once; keep it). */
  child(labels: Record<string, string>): Observe {
    const counts: Counts = { labels, buckets: new Float64Array(this.upperBounds.length + 1), sum: 0, count: 0 };
    this.#sets.push(counts);
    const bounds = this.upperBounds;
    return {
      observe(value) {
        let i = 0;
        while (i < bounds.length && value > (bounds[i] as number)) i++;
        counts.buckets[i] = (counts.buckets[i] as number) + 1;
        counts.sum += value;
        counts.count += 1;
      },
    };
  }

  /** The histogram in the text format, ending with a line feed. */
  text(): string {
    const lines = [`# HELP ${this.name} ${this.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${this.name} histogram`];
    for (const set of this.#sets) {
      let cumulative = 0;
      for (let i = 0; i <= this.upperBounds.length; i++) {
        cumulative += set.buckets[i] as number;
        const le = i === this.upperBounds.length ? '+Inf' : String(this.upperBounds[i]);
        lines.push(`${this.name}_bucket${labelText({ ...set.labels, le })} ${cumulative}`);
      }
      lines.push(`${this.name}_sum${labelText(set.labels)} ${set.sum}`, `${this.name}_count${labelText(set.labels)} ${set.count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** Forget every observation. */
  reset(): void {
    for (const set of this.#sets) {
      set.buckets.fill(0);
      set.sum = 0;
      set.count = 0;
    }
  }
}
