import { SchedulingQueue } from './scheduling-queue';

let now = 0;
let q: SchedulingQueue;
beforeEach(() => {
  now = 1_000_000;
  q = new SchedulingQueue({ now: () => now });
});
afterEach(() => q.close());

test.each([
  [0, 0],
  [1, 1000],
  [2, 2000],
  [3, 4000],
  [4, 8000],
  [5, 10_000],
  [50, 10_000],
])('after %d attempts the back-off is %d ms', (attempts, ms) => {
  expect(q.backoffMs(attempts)).toBe(ms);
});

test('higher priority first, then the one waiting longest', async () => {
  q.add('ns/a', 0);
  now++;
  q.add('ns/b', 10);
  now++;
  q.add('ns/c', 0);
  q.add('ns/a', 0); // already queued: stays where it is
  const order = [];
  for (let i = 0; i < 3; i++) order.push((await q.pop())!.key);
  expect(order).toEqual(['ns/b', 'ns/a', 'ns/c']);
});

test('an unschedulable pod waits for a cluster change, then for the rest of its back-off', async () => {
  q.add('ns/a', 0);
  const first = (await q.pop())!;
  expect(first.attempts).toBe(1);
  q.requeue('ns/a', true);
  now += 5000; // long past the 1 s back-off, but nothing changed
  let popped: string | undefined;
  void q.pop().then((i) => (popped = i?.key));
  await Promise.resolve();
  expect(popped).toBeUndefined();
  q.moveAllToActiveOrBackoff();
  await new Promise((r) => setImmediate(r));
  expect(popped).toBe('ns/a');
});

test('a change during the attempt sends the pod to back-off rather than to wait for another', async () => {
  const fast = new SchedulingQueue({ initialBackoffMs: 1, maxBackoffMs: 1 });
  fast.add('ns/a', 0);
  await fast.pop();
  fast.moveAllToActiveOrBackoff();
  fast.requeue('ns/a', true);
  // No further change: only the back-off brings it back (were it waiting for a change, this pop would hang).
  expect((await fast.pop())?.key).toBe('ns/a');
  fast.close();
});

test('a waiting pod whose own spec changed is tried again', async () => {
  const fast = new SchedulingQueue({ initialBackoffMs: 1, maxBackoffMs: 1 });
  fast.add('ns/a', 0);
  await fast.pop();
  fast.requeue('ns/a', true);
  fast.podChanged('ns/a', 0);
  expect((await fast.pop())?.attempts).toBe(2);
  fast.close();
});

test('a deleted pod leaves every queue, and its attempt is not requeued', async () => {
  q.add('ns/a', 0);
  await q.pop();
  q.delete('ns/a');
  q.requeue('ns/a', true);
  expect(q.has('ns/a')).toBe(false);
});

test('close() ends a waiting pop', async () => {
  const p = q.pop();
  q.close();
  await expect(p).resolves.toBeUndefined();
});
