import { runWorkers, WorkQueue } from './work-queue';

describe('WorkQueue', () => {
  test('a key added twice is queued once, in order of first add', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  test('a key added while being worked on comes back once the work is done, not before', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    q.done(key!);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  test('a waiting get receives the next key added', async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.add('x');
    expect(await next).toBe('x');
  });

  test('addAfter keeps the earliest time asked for', async () => {
    const q = new WorkQueue();
    q.addAfter('a', 60_000);
    q.addAfter('a', 1);
    expect(await q.get()).toBe('a');
    q.shutDown();
  });

  test('addRateLimited backs off per key, forget resets it', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    const times: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = Date.now();
      q.addRateLimited('k');
      q.done((await q.get())!);
      times.push(Date.now() - start);
    }
    expect(times[3]).toBeGreaterThanOrEqual(7);
    q.forget('k');
    q.shutDown();
  });

  test('shutDown ends waiting gets and the workers', async () => {
    const q = new WorkQueue();
    const seen: string[] = [];
    const workers = runWorkers(q, 2, async (k) => void seen.push(k), () => undefined);
    q.add('a');
    await new Promise((r) => setImmediate(r));
    q.shutDown();
    await workers;
    expect(seen).toEqual(['a']);
  });

  test('a sync that throws is retried with back-off', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    let calls = 0;
    const errors: string[] = [];
    const workers = runWorkers(
      q,
      1,
      async () => {
        if (++calls < 3) throw new Error(`try ${calls}`);
        q.shutDown();
      },
      (_k, e) => errors.push((e as Error).message),
    );
    q.add('k');
    await workers;
    expect(errors).toEqual(['try 1', 'try 2']);
  });
});
