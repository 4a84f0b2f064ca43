import { handlersWhile } from './handler-gate';

test('a gated handler acts only while its gate is open, with its arguments', () => {
  let on = false;
  const seen: Array<[string, number]> = [];
  const handler = handlersWhile(() => on)((a: string, b: number) => void seen.push([a, b]));
  handler('before', 1);
  on = true;
  handler('while', 2);
  on = false;
  handler('after', 3);
  expect(seen).toEqual([['while', 2]]);
});
