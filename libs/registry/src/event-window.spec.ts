// The watch cache's window sizing against upstream's rules, on a fake clock.
import { EventWindow, LOWER_BOUND_CAPACITY, UPPER_BOUND_CAPACITY } from './event-window';

const FRESH = 75_000;

/** A window on a clock the test moves, and a push of `n` changes `stepMs` apart; returns the horizon pushes set. */
function windowOnClock(o: { capacity?: number } = {}) {
  let now = 0;
  let revision = 0;
  let horizon = 0;
  const w = new EventWindow<{ revision: number }>({ ...o, eventFreshDurationMs: FRESH, now: () => now });
  return {
    w,
    push(n: number, stepMs: number) {
      for (let i = 0; i < n; i++) {
        now += stepMs;
        const evicted = w.push({ revision: ++revision });
        if (evicted !== undefined) horizon = evicted;
      }
    },
    get horizon() {
      return horizon;
    },
    get revision() {
      return revision;
    },
  };
}

const revisionsAfter = (w: EventWindow<{ revision: number }>, r: number) => [...w.after(r)].map((e) => e.revision);

describe('sizing: the window keeps 75 s of changes within its bounds', () => {
  test.each([
    // [case, changes, ms apart, capacity after, changes held]
    ['a few changes: the lower bound, nothing dropped', 50, 10, LOWER_BOUND_CAPACITY, 50],
    ['1,000 changes within 75 s: it grows to hold them all', 1000, 10, 1600, 1000],
    ['5,000 changes at 600 a second (a saturated cluster): all held', 5000, 1000 / 600, 6400, 5000],
    ['changes a second apart: 75 s of them, at the lower bound plus what stays fresh', 1000, 1000, 100, 100],
    ['more than the upper bound within 75 s: capped', UPPER_BOUND_CAPACITY + 500, 0.1, UPPER_BOUND_CAPACITY, UPPER_BOUND_CAPACITY],
  ])('%s', (_, n, stepMs, capacity, held) => {
    const c = windowOnClock();
    c.push(n, stepMs);
    expect(c.w.capacity).toBe(capacity);
    expect(c.w.length).toBe(held);
    // Everything held is served in order; the horizon is the newest change pushed out.
    expect(revisionsAfter(c.w, 0)).toEqual(Array.from({ length: held }, (_, i) => n - held + i + 1));
    expect(c.horizon).toBe(n - held);
  });

  test('a burst grows the window; once its newest quarter is stale, it halves back (and the horizon moves past what it dropped)', () => {
    const c = windowOnClock();
    c.push(800, 1); // 800 changes in under a second: all held
    expect(c.w.length).toBe(800);
    const grown = c.w.capacity;
    expect(grown).toBeGreaterThanOrEqual(800);
    // Quiet, then a trickle: the burst ages past 75 s and the window shrinks step by step towards the lower bound.
    c.push(1, 200_000);
    c.push(grown, 1000);
    expect(c.w.capacity).toBeLessThan(grown);
    expect(c.w.newest()).toBe(c.revision);
    const oldest = revisionsAfter(c.w, 0)[0];
    expect(c.horizon).toBe(oldest - 1);
  });

  test('a fixed capacity never changes size', () => {
    const c = windowOnClock({ capacity: 5 });
    c.push(20, 0);
    expect([c.w.capacity, c.w.length, c.horizon]).toEqual([5, 5, 15]);
    expect(revisionsAfter(c.w, 17)).toEqual([18, 19, 20]);
  });
});

test('after(r): the changes past r, found by binary search, in order', () => {
  const c = windowOnClock({ capacity: 8 });
  c.push(13, 1); // holds 6..13, wrapped around the ring
  expect(revisionsAfter(c.w, 5)).toEqual([6, 7, 8, 9, 10, 11, 12, 13]);
  expect(revisionsAfter(c.w, 9)).toEqual([10, 11, 12, 13]);
  expect(revisionsAfter(c.w, 13)).toEqual([]);
  c.w.clear();
  expect([c.w.length, c.w.newest(), revisionsAfter(c.w, 0)]).toEqual([0, undefined, []]);
});
