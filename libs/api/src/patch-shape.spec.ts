import { configMap, deployment, pod } from './index';
import { goPrint, patchShapeError } from './patch-shape';

// What upstream's unstructured converter says of each patch's result (a strategic merge patch of a kind).
test.each([
  ['a map given a string', configMap, { metadata: { labels: 'invalid' } }, 'cannot restore map from string'],
  ['a map given a list', configMap, { data: ['a'] }, 'cannot restore map from slice'],
  ['a struct given a string', configMap, { metadata: 'x' }, 'cannot restore struct from: string'],
  ['a list given a map', pod, { spec: { containers: { name: 'c' } } }, 'cannot restore slice from map'],
  ['a string given an integer', configMap, { data: { k: 1 } }, 'cannot convert int64 to string'],
  ['a string given a bool', configMap, { metadata: { name: true } }, 'unrecognized type: string'],
  ['an int32 given a string', deployment, { spec: { replicas: 'three' } }, 'unrecognized type: int32'],
  ['an int32 given a fraction', deployment, { spec: { replicas: 1.5 } }, 'cannot convert float64 to int32'],
  ['a bool given a string', configMap, { immutable: 'yes' }, 'unrecognized type: bool'],
  ['inside a list item', pod, { spec: { containers: [{ name: 'c', image: 5 }] } }, 'cannot convert int64 to string'],
  ['nulls delete, directives are no fields', pod, { metadata: { labels: null }, spec: { $setElementOrder: 'x', containers: [{ name: 'c', $patch: 'delete' }] } }, null],
  ['unknown fields are left to fieldValidation', configMap, { datta: 'x' }, null],
  ['quantities and int-or-strings have their own converters', pod, { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 1 } } }] } }, null],
  ['a fitting patch', configMap, { data: { k: 'v' }, metadata: { labels: { a: 'b' } } }, null],
])('%s', (_name, def, patch, want) => {
  expect(patchShapeError(def, patch)).toBe(want);
});

test.each([
  [{ metadata: { labels: 'invalid' } }, 'map[metadata:map[labels:invalid]]'],
  [{ b: [1, 'x', null], a: true }, 'map[a:true b:[1 x <nil>]]'],
  [{ f: 1.5, g: 1e21, h: 1e-7 }, 'map[f:1.5 g:1e+21 h:1e-07]'],
])('goPrint(%j) is %s', (value, want) => {
  expect(goPrint(value)).toBe(want);
});
