import { OwnWrites } from './own-writes';

const at = (rv: string, uid = 'u') => ({ metadata: { uid, resourceVersion: rv } });

test('OwnWrites: a replaced version is stale until the informer shows another one', () => {
  const w = new OwnWrites();
  expect(w.isStale(at('1'))).toBe(false);
  w.replacedVersion('u', '1');
  w.replacedVersion('u', '2');
  expect(w.isStale(at('1'))).toBe(true);
  expect(w.isStale(at('2'))).toBe(true);
  expect(w.isStale(at('1', 'other'))).toBe(false);
  expect(w.isStale(at('3'))).toBe(false);
  // Caught up: what was recorded is forgotten.
  expect(w.isStale(at('1'))).toBe(false);
});

test('OwnWrites: forget drops an object', () => {
  const w = new OwnWrites();
  w.replacedVersion('u', '1');
  w.forget('u');
  expect(w.isStale(at('1'))).toBe(false);
});
