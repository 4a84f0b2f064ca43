// The health-check SLI metrics of component-base (`/metrics/slis`): `kubernetes_healthcheck{name,type}` (1 or 0)
// and `kubernetes_healthchecks_total{name,status,type}`. Excluded checks record nothing, as upstream.
//
// Every health request records one result per check, so results are kept in a plain map and rendered when the
// registry is scraped; prom-client's per-call label hashing would otherwise dominate a /livez request.
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';

export interface HealthResultSink {
  observe(name: string, type: string, healthy: boolean): void;
  /** The recorder of one (name, type) series, resolved once at registration; optional for other sinks. */
  series?(name: string, type: string): (healthy: boolean) => void;
}

interface Result {
  name: string;
  type: string;
  healthy: boolean;
  success: number;
  error: number;
}

function scraped(name: string, help: string, type: 'gauge' | 'counter', values: () => MetricValue<string>[]) {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) as unknown as MetricObjectWithValues<MetricValue<string>>,
    reset: () => undefined,
  };
}

export function healthSliMetrics(registry: Registry): HealthResultSink {
  // type -> name -> result: two lookups on strings the caller already holds, no key built per observation.
  const byType = new Map<string, Map<string, Result>>();
  const all = () => [...byType.values()].flatMap((m) => [...m.values()]);
  registry.registerMetric(
    scraped('kubernetes_healthcheck', '[STABLE] This metric records the result of a single healthcheck.', 'gauge', () =>
      all().map((r) => ({ labels: { name: r.name, type: r.type }, value: r.healthy ? 1 : 0 })),
    ) as never,
  );
  registry.registerMetric(
    scraped('kubernetes_healthchecks_total', '[STABLE] This metric records the results of all healthcheck.', 'counter', () =>
      all().flatMap((r) => [
        ...(r.success ? [{ labels: { name: r.name, status: 'success', type: r.type }, value: r.success }] : []),
        ...(r.error ? [{ labels: { name: r.name, status: 'error', type: r.type }, value: r.error }] : []),
      ]),
    ) as never,
  );
  const resultOf = (name: string, type: string, healthy: boolean): Result => {
    let names = byType.get(type);
    if (!names) byType.set(type, (names = new Map()));
    let r = names.get(name);
    if (!r) {
      r = { name, type, healthy, success: 0, error: 0 };
      names.set(name, r);
    }
    return r;
  };
  const record = (r: Result, healthy: boolean) => {
    r.healthy = healthy;
    if (healthy) r.success++;
    else r.error++;
  };
  return {
    observe(name, type, healthy) {
      record(resultOf(name, type, healthy), healthy);
    },
    series(name, type) {
      let r: Result | undefined;
      // Created on the first observation, so a check that never ran has no series (as upstream).
      return (healthy) => record((r ??= resultOf(name, type, healthy)), healthy);
    },
  };
}
