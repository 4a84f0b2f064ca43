// prom-client metrics in the default registry, created once per process even when this module is
// loaded twice (ts sources under Jest and the built dist in the same process).
import { Counter, Gauge, Histogram, register } from 'prom-client';

type Config<T extends string> = { name: string; help: string; labelNames: readonly T[] };

export function counter<T extends string>(cfg: Config<T>): Counter<T> {
  return (register.getSingleMetric(cfg.name) as Counter<T> | undefined) ?? new Counter<T>({ ...cfg, registers: [register] });
}

export function gauge<T extends string>(cfg: Config<T>): Gauge<T> {
  return (register.getSingleMetric(cfg.name) as Gauge<T> | undefined) ?? new Gauge<T>({ ...cfg, registers: [register] });
}

export function histogram<T extends string>(cfg: Config<T> & { buckets: number[] }): Histogram<T> {
  return (
    (register.getSingleMetric(cfg.name) as Histogram<T> | undefined) ?? new Histogram<T>({ ...cfg, registers: [register] })
  );
}

/** Go prometheus' ExponentialBuckets(start, factor, count). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

export interface HistogramChild {
  observe(value: number): void;
}

interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram for hot paths: a child per label set is resolved once and `observe` is a bucket search and
 * three additions (prom-client re-validates and hashes the labels on every observation). It registers in
 * the default registry and renders exactly like a prom-client histogram.
 */
export class FastHistogram<T extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly T[],
    private readonly buckets: readonly number[],
  ) {}

  /**
   * The child for one label set. Resolving it is free; the series appears on the first observation (as a Go
   * `WithLabelValues(...).Observe`), so children resolved up front for every outcome show no zero series.
   */
  child(labels: Record<T, string>): HistogramChild {
    const key = this.labelNames.map((n) => labels[n]).join('\u0000');
    const buckets = this.buckets;
    let series = this.series.get(key);
    let generation = this.generation;
    return {
      observe: (v: number) => {
        if (series === undefined || generation !== this.generation) {
          generation = this.generation;
          series = this.series.get(key);
          if (series === undefined) this.series.set(key, (series = { labels: { ...labels }, counts: new Float64Array(buckets.length), sum: 0, count: 0 }));
        }
        for (let i = 0; i < buckets.length; i++) {
          if (v <= buckets[i]) {
            series.counts[i]++;
            break;
          }
        }
        series.sum += v;
        series.count++;
      },
    };
  }

  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: { labels: Record<string, string | number>; value: number; metricName: string }[] } {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Bumped by reset(), so children drop the series they hold. */
  private generation = 0;

  reset(): void {
    this.series.clear();
    this.generation++;
  }
}

/** The process-wide FastHistogram of that name (created and registered on first use). */
export function fastHistogram<T extends string>(cfg: Config<T> & { buckets: number[] }): FastHistogram<T> {
  const existing = register.getSingleMetric(cfg.name) as unknown;
  if (existing instanceof FastHistogram) return existing as FastHistogram<T>;
  const h = new FastHistogram<T>(cfg.name, cfg.help, cfg.labelNames, cfg.buckets);
  register.registerMetric(h as unknown as Parameters<typeof register.registerMetric>[0]);
  return h;
}

export interface ValueChild {
  inc(by?: number): void;
  dec(by?: number): void;
  set(value: number): void;
}

/** Counter or gauge with FastHistogram's resolve-once children (hot-path metrics). */
export class FastValueMetric<T extends string> {
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    private readonly labelNames: readonly T[],
  ) {}

  /** Like FastHistogram.child: the series appears on the first inc/dec/set. */
  child(labels: Record<T, string>): ValueChild {
    const key = this.labelNames.map((n) => labels[n]).join('\u0000');
    let series = this.series.get(key);
    let generation = this.generation;
    const resolve = () => {
      if (series === undefined || generation !== this.generation) {
        generation = this.generation;
        series = this.series.get(key);
        if (series === undefined) this.series.set(key, (series = { labels: { ...labels }, value: 0 }));
      }
      return series;
    };
    return {
      inc: (by = 1) => void (resolve().value += by),
      dec: (by = 1) => void (resolve().value -= by),
      set: (v) => void (resolve().value = v),
    };
  }

  get(): { name: string; help: string; type: 'counter' | 'gauge'; aggregator: 'sum'; values: { labels: Record<string, string>; value: number }[] } {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value })) };
  }

  private generation = 0;

  /** As prom-client: every label set is forgotten (children start new series on their next update). */
  reset(): void {
    this.series.clear();
    this.generation++;
  }
}

function fastValue<T extends string>(cfg: Config<T>, type: 'counter' | 'gauge'): FastValueMetric<T> {
  const existing = register.getSingleMetric(cfg.name) as unknown;
  if (existing instanceof FastValueMetric) return existing as FastValueMetric<T>;
  const m = new FastValueMetric<T>(cfg.name, cfg.help, type, cfg.labelNames);
  register.registerMetric(m as unknown as Parameters<typeof register.registerMetric>[0]);
  return m;
}

export const fastCounter = <T extends string>(cfg: Config<T>) => fastValue(cfg, 'counter');
export const fastGauge = <T extends string>(cfg: Config<T>) => fastValue(cfg, 'gauge');
