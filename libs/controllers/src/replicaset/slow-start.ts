// upstream's slowStartBatch: many pod creations are made in batches of 1, 2, 4, ... run concurrently, and stop at
// the first batch with a failure. A ReplicaSet whose pods all fail the same way (a quota, a webhook) then costs
// the API server one request, not hundreds, and records one FailedCreate event, not hundreds.

export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** Calls `fn` up to `count` times; returns how many calls succeeded and the first error of the failed batch. */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    if (failed.length > 0) return { successes, error: failed[0].reason };
    remaining -= batch;
  }
  return { successes };
}
