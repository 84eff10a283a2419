/**
 * The Prometheus text exposition parsed by a real parser (`parse-prometheus-text-format`, the
 * prom2json shape), with lookups by metric name and labels for the tests.
 *
 * That parser folds every sample of a histogram family into one and drops their labels (its
 * `flattenMetrics`), so labelled histograms are read from a second parse of the same text
 * without the `# TYPE … histogram` lines: their `_bucket`, `_sum` and `_count` series are then
 * families of their own, each sample with its labels. Types and help come from the first parse.
 */
// @ts-expect-error the package ships no type declarations; its shape is Family below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample as the parser gives it. */
interface Sample {
  labels?: Record<string, string>;
  value?: string;
}

/** One metric family as the parser gives it. */
interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

/** A scrape: each family's type, and the samples of every series (histograms by `_count`, `_sum`, `_bucket`). */
export interface Scrape {
  types: Map<string, Family['type']>;
  series: Map<string, Sample[]>;
}

const parse = parsePrometheusTextFormat as (text: string) => Family[];

/** Parse `text` (see the module comment). */
export function parseMetrics(text: string): Scrape {
  const types = new Map(parse(text).map((family) => [family.name, family.type]));
  const untyped = text
    .split('\n')
    .filter((line) => !(line.startsWith('# TYPE ') && line.endsWith(' histogram')))
    .join('\n');
  // prom-client writes a histogram's series interleaved per label set (bucket, sum, count, bucket,
  // …): untyped, each run is a family of its own, so runs of one name are joined.
  const series = new Map<string, Sample[]>();
  for (const family of parse(untyped)) series.set(family.name, [...(series.get(family.name) ?? []), ...family.metrics]);
  return { types, series };
}

/** The samples of series `name` whose labels include `labels`. */
export function samples(scrape: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  const series = scrape.series.get(name);
  if (series === undefined) throw new Error(`metric ${name} is missing`);
  return series.filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));
}

/** The series a value of `name` is read from: a histogram's `_count`, else the family itself. */
function counted(scrape: Scrape, name: string): string {
  if (!scrape.types.has(name)) throw new Error(`metric ${name} is missing`);
  return scrape.types.get(name) === 'HISTOGRAM' ? `${name}_count` : name;
}

/** Sum over the matching samples of a counter's or gauge's value, or of a histogram's observation count. */
export function total(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return samples(scrape, counted(scrape, name), labels).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0);
}

/** Sum over the matching samples of a histogram's `_sum`. */
export function histogramSum(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  if (scrape.types.get(name) !== 'HISTOGRAM') throw new Error(`metric ${name} is not a histogram`);
  return samples(scrape, `${name}_sum`, labels).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0);
}

/** Every label value of every sample, with its series name. */
export function labelValues(scrape: Scrape): Array<{ series: string; value: string }> {
  return [...scrape.series].flatMap(([series, list]) => list.flatMap((sample) => Object.values(sample.labels ?? {}).map((value) => ({ series, value }))));
}
