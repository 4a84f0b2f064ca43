import { applyStrategicMergePatch, PatchError } from './index';
import type { ListPatchStrategy, PatchErrorCode, StrategyLookup } from './index';

// Patch strategies of the Pod/Deployment fields the cases touch, as core/v1 and apps/v1 tag them.
const STRATEGIES: Record<string, ListPatchStrategy> = {
  'metadata.finalizers': { type: 'set' },
  'metadata.ownerReferences': { type: 'merge', key: 'uid' },
  'spec.containers': { type: 'merge', key: 'name' },
  'spec.containers.env': { type: 'merge', key: 'name' },
  'spec.containers.ports': { type: 'merge', key: 'containerPort' },
  'spec.containers.volumeMounts': { type: 'merge', key: 'mountPath' },
  'spec.volumes': { type: 'merge', key: 'name' },
  'status.conditions': { type: 'merge', key: 'type' },
};
const strategyAt: StrategyLookup = (path) => STRATEGIES[path.join('.')] ?? { type: 'replace' };

type Obj = Record<string, unknown>;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function thrown(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a PatchError');
}

const c = (name: string, extra: Obj = {}): Obj => ({ name, ...extra });

describe('strategic merge patch applies as kube-apiserver does', () => {
  test.each<[string, Obj, unknown, Obj]>([
    [
      'containers are merged by name',
      { spec: { containers: [c('app', { image: 'app:1', args: ['-v'] }), c('sidecar', { image: 'proxy:1' })] } },
      { spec: { containers: [c('app', { image: 'app:2' })] } },
      { spec: { containers: [c('app', { image: 'app:2', args: ['-v'] }), c('sidecar', { image: 'proxy:1' })] } },
    ],
    [
      'a new container comes before the ones the patch does not name',
      { spec: { containers: [c('a'), c('b')] } },
      { spec: { containers: [c('new', { image: 'x' })] } },
      { spec: { containers: [c('new', { image: 'x' }), c('a'), c('b')] } },
    ],
    [
      'named items keep the patch order; unnamed ones are placed by their original position',
      { spec: { containers: [c('1'), c('2', { image: 'b' }), c('3')] } },
      { spec: { containers: [c('3', { image: 'c' }), c('1', { image: 'a' })] } },
      { spec: { containers: [c('2', { image: 'b' }), c('3', { image: 'c' }), c('1', { image: 'a' })] } },
    ],
    [
      'env is merged by name inside a container',
      { spec: { containers: [c('app', { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] })] } },
      { spec: { containers: [c('app', { env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] })] } },
      { spec: { containers: [c('app', { env: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }] })] } },
    ],
    [
      'ports are merged by an integer merge key',
      { spec: { containers: [c('app', { ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] })] } },
      { spec: { containers: [c('app', { ports: [{ containerPort: 80, protocol: 'TCP' }] })] } },
      { spec: { containers: [c('app', { ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }] })] } },
    ],
    [
      '$patch: delete removes the item with that key',
      { spec: { containers: [c('a'), c('b'), c('c')] } },
      { spec: { containers: [{ name: 'b', $patch: 'delete' }] } },
      { spec: { containers: [c('a'), c('c')] } },
    ],
    [
      '$patch: delete removes every item with that key',
      { spec: { containers: [c('app', { env: [{ name: 'A', value: '1' }, { name: 'B' }, { name: 'A', value: '2' }] })] } },
      { spec: { containers: [c('app', { env: [{ name: 'A', $patch: 'delete' }] })] } },
      { spec: { containers: [c('app', { env: [{ name: 'B' }] })] } },
    ],
    [
      '{"$patch": "replace"} in a list replaces the list with the other items',
      { spec: { containers: [c('a', { image: 'old' }), c('b')] } },
      { spec: { containers: [{ $patch: 'replace' }, c('a', { image: 'new' })] } },
      { spec: { containers: [c('a', { image: 'new' })] } },
    ],
    [
      'finalizers are a set: union in order, without duplicates',
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { finalizers: ['b', 'c', 'c'] } },
      { metadata: { finalizers: ['a', 'b', 'c'] } },
    ],
    ['a new value comes first in a set too', { metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c'] } }, { metadata: { finalizers: ['c', 'a', 'b'] } }],
    [
      '$deleteFromPrimitiveList/finalizers removes values',
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } },
      { metadata: { finalizers: ['a', 'c'] } },
    ],
    [
      '$setElementOrder/finalizers orders a set',
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'b'] } },
      { metadata: { finalizers: ['c', 'a', 'b'] } },
    ],
    [
      '$setElementOrder/conditions orders the merged list',
      { status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Initialized', status: 'True' }, { type: 'PodScheduled', status: 'True' }] } },
      {
        status: {
          '$setElementOrder/conditions': [{ type: 'PodScheduled' }, { type: 'Initialized' }, { type: 'Ready' }],
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      },
      { status: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }] } },
    ],
    [
      '$setElementOrder places a server-only item by its position in the original list',
      { spec: { containers: [c('a'), c('istio-proxy'), c('b')] } },
      { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } },
      { spec: { containers: [c('istio-proxy'), c('b'), c('a')] } },
    ],
    [
      'a kubectl apply patch (delete b, add c) keeps a server-only container in place',
      { spec: { containers: [c('a'), c('istio-proxy'), c('b')] } },
      { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }], containers: [{ name: 'b', $patch: 'delete' }, c('c', { image: 'c:1' })] } },
      { spec: { containers: [c('a'), c('istio-proxy'), c('c', { image: 'c:1' })] } },
    ],
    [
      '$retainKeys clears the fields it does not list',
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    [
      '$retainKeys keeps and merges the listed fields',
      { spec: { volumes: [{ name: 'v', hostPath: { path: '/a' }, extra: 1 }] } },
      { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { type: 'Directory' } }] } },
      { spec: { volumes: [{ name: 'v', hostPath: { path: '/a', type: 'Directory' } }] } },
    ],
    [
      'a replace-strategy list is replaced whole',
      { spec: { containers: [c('app', { args: ['a', 'b'] })], tolerations: [{ key: 'x' }, { key: 'y' }] } },
      { spec: { containers: [c('app', { args: ['c'] })], tolerations: [{ key: 'z' }] } },
      { spec: { containers: [c('app', { args: ['c'] })], tolerations: [{ key: 'z' }] } },
    ],
    [
      'null deletes a map key',
      { metadata: { labels: { app: 'x', tier: 'web' } } },
      { metadata: { labels: { app: null } } },
      { metadata: { labels: { tier: 'web' } } },
    ],
    [
      'a missing nested map is created from the patch, without its nulls',
      { metadata: { name: 'p' } },
      { spec: { template: { metadata: { labels: { app: 'x', gone: null } } } } },
      { metadata: { name: 'p' }, spec: { template: { metadata: { labels: { app: 'x' } } } } },
    ],
    [
      '$patch: replace on a map replaces it',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { $patch: 'replace', c: '3' } } },
      { metadata: { labels: { c: '3' } } },
    ],
    [
      '$patch: delete on a map empties it',
      { metadata: { annotations: { a: '1' }, name: 'x' } },
      { metadata: { annotations: { $patch: 'delete' } } },
      { metadata: { annotations: {}, name: 'x' } },
    ],
    ['$patch: replace at the top level replaces the object', { a: 1, b: { c: 2 } }, { $patch: 'replace', d: 4 }, { d: 4 }],
    ['a scalar replaces a map', { spec: { x: { y: 1 } } }, { spec: { x: 'flat' } }, { spec: { x: 'flat' } }],
    ['a null patch changes nothing', { a: 1 }, null, { a: 1 }],
    [
      'directive keys never reach the result',
      { spec: { containers: [c('a')] } },
      {
        spec: {
          containers: [c('b', { env: [{ name: 'E', value: null }], '$setElementOrder/env': [{ name: 'E' }], resources: { $patch: 'delete' } })],
          volumes: [{ name: 'v', $retainKeys: ['name'] }],
        },
      },
      { spec: { containers: [c('b', { env: [{ name: 'E' }] }), c('a')], volumes: [{ name: 'v' }] } },
    ],
  ])('%s', (_name, original, patch, expected) => {
    expect(applyStrategicMergePatch(original, patch, strategyAt)).toEqual(expected);
  });
});

describe('failures carry the codes interpretStrategicMergePatchError gives', () => {
  test.each<[string, Obj, unknown, PatchErrorCode, string]>([
    ['a patch that is not an object', { a: 1 }, [1], 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['$retainKeys that is not a list', { spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: 'type' } } }, 400, 'invalid patch format of retainKeys'],
    ['a patch field missing from $retainKeys', { spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, 400, 'invalid patch format of retainKeys'],
    ['$deleteFromPrimitiveList without a field', { metadata: { finalizers: ['a'] } }, { metadata: { $deleteFromPrimitiveList: ['a'] } }, 400, 'invalid patch format of primitive list'],
    ['$setElementOrder without a field', { metadata: {} }, { metadata: { $setElementOrder: [] } }, 400, 'invalid patch format of setElementOrder list'],
    ['a list of lists', { spec: { containers: [[1]] } }, { spec: { containers: [[2]] } }, 422, 'lists of lists are not supported'],
    ['a merge-list item without its merge key', { spec: { containers: [c('a')] } }, { spec: { containers: [{ image: 'x' }] } }, 500, 'map: map[image:x] does not contain declared merge key: name'],
    ['an unknown $patch on a map', { metadata: { labels: {} } }, { metadata: { labels: { $patch: 'merge', a: 1 } } }, 500, 'unknown patch type: merge in map: map[$patch:merge a:1]'],
    ['$patch: merge in a list', { spec: { containers: [c('a')] } }, { spec: { containers: [{ $patch: 'merge' }] } }, 500, 'merging lists cannot yet be specified in the patch'],
    ['mixed element types', { metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }, 500, 'list element types are not identical: [[a] [1]]'],
    ['a map item in a set list', { metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [{ $patch: 'replace' }] } }, 500, 'list element types are not identical: [[a] [map[$patch:replace]]]'],
    [
      'a patch list out of step with $setElementOrder',
      { spec: { containers: [c('a'), c('b')] } },
      { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [c('b')] } },
      500,
      "The order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n",
    ],
    [
      'a set patch with a value missing from $setElementOrder',
      { metadata: { finalizers: ['a'] } },
      { metadata: { '$setElementOrder/finalizers': ['a'], finalizers: ['b'] } },
      500,
      "The order in patch list:\n[b]\n doesn't match $setElementOrder list:\n[a]\n",
    ],
  ])('%s', (_name, original, patch, code, message) => {
    const err = thrown(() => applyStrategicMergePatch(original, patch, strategyAt));
    expect([err.code, err.message]).toEqual([code, message]);
  });

  test('a 500 is a plain error: empty reason, the error text as status message', () => {
    const err = thrown(() => applyStrategicMergePatch({ spec: { containers: [c('a')] } }, { spec: { containers: [{ image: 'x' }] } }, strategyAt));
    expect([err.reason, err.statusMessage]).toEqual(['', 'map: map[image:x] does not contain declared merge key: name']);
  });

  test('an original that is not an object is a bad JSON document', () => {
    const err = thrown(() => applyStrategicMergePatch([1], {}, strategyAt));
    expect([err.code, err.message]).toEqual([400, 'invalid JSON document']);
  });
});

describe('the strategy lookup', () => {
  test('is asked with field names from the root, list items transparent', () => {
    const asked: string[] = [];
    const lookup: StrategyLookup = (path) => {
      asked.push(path.join('.'));
      return strategyAt(path);
    };
    const original = { spec: { containers: [c('app', { env: [{ name: 'A' }], ports: [{ containerPort: 80 }] })] } };
    const patch = { spec: { containers: [c('app', { env: [{ name: 'B' }], ports: [{ containerPort: 80, name: 'p' }] })] } };
    applyStrategicMergePatch(original, patch, lookup);
    expect(asked).toEqual(['spec.containers', 'spec.containers.env', 'spec.containers.ports']);
  });

  test('decides between merging and replacing a list', () => {
    const original = { items: [{ id: 'a', v: 1 }] };
    const patch = { items: [{ id: 'b' }] };
    expect(applyStrategicMergePatch(original, patch, () => ({ type: 'merge', key: 'id' }))).toEqual({ items: [{ id: 'b' }, { id: 'a', v: 1 }] });
    expect(applyStrategicMergePatch(original, patch, () => ({ type: 'replace' }))).toEqual({ items: [{ id: 'b' }] });
  });
});

describe('purity', () => {
  test('neither input is modified, and the result shares nothing with the patch', () => {
    const original = deepFreeze({ spec: { containers: [c('a', { env: [{ name: 'A' }] })] }, metadata: { finalizers: ['f'] } });
    const patch = deepFreeze({
      spec: { containers: [c('a', { env: [{ name: 'B' }] }), c('n', { image: 'i' })] },
      metadata: { finalizers: ['g'], labels: { l: 'v' } },
    });
    const result = applyStrategicMergePatch(original, patch, strategyAt) as { metadata: { labels: Obj } };
    expect(result).toEqual({
      spec: { containers: [c('a', { env: [{ name: 'B' }, { name: 'A' }] }), c('n', { image: 'i' })] },
      metadata: { finalizers: ['g', 'f'], labels: { l: 'v' } },
    });
    result.metadata.labels['l'] = 'changed';
    expect(patch.metadata.labels).toEqual({ l: 'v' });
  });
});
