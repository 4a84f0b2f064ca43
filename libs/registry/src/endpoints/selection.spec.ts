// Which watches the watch cache indexes: a field selector that pins the kind's index field to one value.
import { podStrategy } from '../kinds/pods';
import type { Strategy } from '../strategy';
import { watchIndexValue } from './selection';

const noIndex: Strategy = { ...podStrategy, watchIndexField: undefined };

test.each([
  ['spec.nodeName=node-1', podStrategy, 'node-1'],
  ['spec.nodeName==node-1', podStrategy, 'node-1'],
  ['status.phase=Running,spec.nodeName=node-2', podStrategy, 'node-2'],
  ['spec.nodeName=', podStrategy, ''],
  ['spec.nodeName!=node-1', podStrategy, undefined],
  ['metadata.name=p', podStrategy, undefined],
  ['spec.nodeName=node-1', noIndex, undefined],
  [null, podStrategy, undefined],
])('%s', (fieldSelector, strategy, expected) => {
  expect(watchIndexValue(strategy, fieldSelector)).toBe(expected);
});
