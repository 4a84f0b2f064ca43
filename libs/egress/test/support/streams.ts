import type { Registry } from 'prom-client';
import type { Duplex } from 'node:stream';

/** Reads until `n` bytes have arrived. */
export function readBytes(stream: Duplex, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (b: Buffer) => {
      got = Buffer.concat([got, b]);
      if (got.length >= n) {
        stream.removeListener('data', onData);
        stream.removeListener('error', reject);
        stream.pause();
        resolve(got);
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

/** One sample of a metric (histogram parts by their full name, e.g. `..._count`), matched on the given labels. */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const v of metric.values as Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>) {
      if ((v.metricName ?? metric.name) !== name) continue;
      if (Object.entries(labels).every(([k, l]) => v.labels[k] === l)) return v.value;
    }
  }
  return undefined;
}

export type DialFailure = Error & { stage?: string };
/** For `.then(noStream, asFailure)`: a dial that was expected to fail. */
export const noStream = (): never => {
  throw new Error('the dial succeeded');
};
export const asFailure = (e: unknown): DialFailure => e as DialFailure;
