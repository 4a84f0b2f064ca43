// The health-check SLI metrics of component-base (`/metrics/slis`): one gauge and one counter per check
// and endpoint type. Excluded checks record nothing, as upstream.
import { Counter, Gauge, Registry } from 'prom-client';

export interface HealthResultSink {
  observe(name: string, type: string, healthy: boolean): void;
}

export function healthSliMetrics(registry: Registry): HealthResultSink {
  const gauge = new Gauge({
    name: 'kubernetes_healthcheck',
    help: '[STABLE] This metric records the result of a single healthcheck.',
    labelNames: ['name', 'type'],
    registers: [registry],
  });
  const total = new Counter({
    name: 'kubernetes_healthchecks_total',
    help: '[STABLE] This metric records the results of all healthcheck.',
    labelNames: ['name', 'status', 'type'],
    registers: [registry],
  });
  return {
    observe(name, type, healthy) {
      gauge.set({ name, type }, healthy ? 1 : 0);
      total.inc({ name, status: healthy ? 'success' : 'error', type });
    },
  };
}
