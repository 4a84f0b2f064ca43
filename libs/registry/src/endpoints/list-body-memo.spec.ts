import type { KubeObject } from '@cl/apimachinery';
import { ListBodyMemo } from './serialize';

const obj = (name: string, rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: rv } });
const many = (n: number, prefix = 'o') => Array.from({ length: n }, (_, i) => obj(`${prefix}${i}`));
const small = { minItems: 2, maxEntries: 2, maxBytes: 1 << 20 };

test('the same objects again: the same bytes, not joined again', () => {
  const memo = new ListBodyMemo(small);
  const items = many(3);
  const first = memo.joined('k', items)!;
  expect(JSON.parse(`[${first.toString()}]`)).toEqual(items.map((o) => ({ metadata: o.metadata })));
  // A new array of the very same (cached) objects is a hit.
  expect(memo.joined('k', [...items])).toBe(first);
});

test.each<[string, (items: KubeObject[]) => KubeObject[]]>([
  ['an object replaced by its next version', (items) => [items[0], obj('o1', '2'), items[2]]],
  ['an object gone', (items) => items.slice(0, 2)],
  ['an object added', (items) => [...items, obj('o3')]],
  ['another order', (items) => [items[1], items[0], items[2]]],
])('a changed collection is joined anew: %s', (_name, change) => {
  const memo = new ListBodyMemo(small);
  const items = many(3);
  const first = memo.joined('k', items)!;
  const next = change(items);
  const second = memo.joined('k', next)!;
  expect(second).not.toBe(first);
  expect(JSON.parse(`[${second.toString()}]`)).toEqual(next.map((o) => ({ metadata: o.metadata })));
});

test('small lists are left to streaming; each selection has its own entry; the least recently used goes', () => {
  const memo = new ListBodyMemo(small);
  expect(memo.joined('k', many(1))).toBeUndefined();
  const a = many(2, 'a');
  const b = many(2, 'b');
  const c = many(2, 'c');
  const ja = memo.joined('a', a);
  const jb = memo.joined('b', b);
  expect(memo.joined('a', a)).toBe(ja); // a is now the most recent
  memo.joined('c', c); // over two entries: b goes
  expect(memo.joined('a', a)).toBe(ja);
  expect(memo.joined('b', b)).not.toBe(jb);
});

test('a byte budget bounds what is kept', () => {
  const memo = new ListBodyMemo({ minItems: 2, maxEntries: 10, maxBytes: 200 });
  const a = many(3, 'a');
  const ja = memo.joined('a', a)!;
  expect(ja.length).toBeLessThan(200);
  memo.joined('b', many(3, 'b')); // both together exceed 200 bytes: a goes
  expect(memo.joined('a', a)).not.toBe(ja);
});
