import { Registry } from 'prom-client';
import { FastHistogram, FastValueMetric } from '../src';

// Series appear on first use, as Go's WithLabelValues(...).Inc(): children resolved up front for every outcome
// must not put zero-valued series on /metrics.
test.each([
  ['counter', () => new FastValueMetric('t_total', 'T.', 'counter', ['result'] as const), (c: { inc(): void }) => c.inc()],
  ['histogram', () => new FastHistogram('t_seconds', 'T.', ['result'] as const, [0.1, 1]), (c: { observe(v: number): void }) => c.observe(0.5)],
] as const)('a %s child creates its series on first use and again after reset', async (_kind, make, use) => {
  const metric = make();
  const registry = new Registry();
  registry.registerMetric(metric as never);
  const allowed = metric.child({ result: 'allowed' });
  metric.child({ result: 'denied' });
  expect(await registry.metrics()).not.toMatch(/result="/);
  (use as (c: unknown) => void)(allowed);
  let text = await registry.metrics();
  expect(text).toMatch(/result="allowed"/);
  expect(text).not.toMatch(/result="denied"/);
  metric.reset();
  expect(await registry.metrics()).not.toMatch(/result="/);
  (use as (c: unknown) => void)(allowed);
  text = await registry.metrics();
  expect(text).toMatch(/_(total|count)\{result="allowed"\} 1\n/);
});
