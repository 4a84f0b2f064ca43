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
