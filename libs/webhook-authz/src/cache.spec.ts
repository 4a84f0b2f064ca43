import { ExpiringLruCache } from './cache';

describe('ExpiringLruCache', () => {
  test('entries expire at their own TTL', () => {
    let now = 0;
    const c = new ExpiringLruCache<string>(10, () => now);
    c.set('a', 'A', 100);
    c.set('b', 'B', 10);
    now = 10;
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('A');
    now = 100;
    expect(c.get('a')).toBeUndefined();
  });

  test('a full cache evicts the least recently used entry; a recently read old entry survives', () => {
    const c = new ExpiringLruCache<number>(8, () => 0);
    for (let i = 0; i < 8; i++) c.set(`k${i}`, i, 1000);
    // k0 is the oldest insert; after four more inserts it has drifted into the older quarter, so a read moves it.
    for (let i = 8; i < 11; i++) c.set(`k${i}`, i, 1000);
    expect(c.get('k3')).toBe(3);
    c.set('k11', 11, 1000);
    c.set('k12', 12, 1000);
    expect(c.size).toBe(8);
    expect(c.get('k3')).toBe(3);
    expect(c.get('k4')).toBeUndefined();
    expect(c.get('k12')).toBe(12);
  });
});
