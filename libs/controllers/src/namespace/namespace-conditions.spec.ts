import { mergeConditions, namespaceConditions, type ContentReport } from './namespace-conditions';

const report = (r: Partial<ContentReport> = {}): ContentReport => ({ discoveryFailures: [], deletionFailures: [], remainingResources: new Map(), remainingFinalizers: new Map(), ...r });

test('an emptied namespace: all five conditions False', () => {
  expect(namespaceConditions(report()).map((c) => `${c.type}=${c.status}`)).toEqual([
    'NamespaceDeletionDiscoveryFailure=False',
    'NamespaceDeletionGroupVersionParsingFailure=False',
    'NamespaceDeletionContentFailure=False',
    'NamespaceContentRemaining=False',
    'NamespaceFinalizersRemaining=False',
  ]);
});

test('what remains is listed in name order, as upstream words it', () => {
  const c = namespaceConditions(report({ remainingResources: new Map([['pods.', 2], ['deployments.apps', 1]]), remainingFinalizers: new Map([['b/x', 1], ['a/y', 3]]), deletionFailures: ['x'] }));
  expect(c.find((x) => x.type === 'NamespaceContentRemaining')?.message).toBe('Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances');
  expect(c.find((x) => x.type === 'NamespaceFinalizersRemaining')?.message).toBe('Some content in the namespace has finalizers remaining: a/y in 3 resource instances, b/x in 1 resource instances');
  expect(c.find((x) => x.type === 'NamespaceDeletionContentFailure')?.message).toBe('Failed to delete all resource types, 1 remaining: x');
});

test('merging: unchanged conditions write nothing and keep their times; a change moves only its own time', () => {
  const first = mergeConditions(undefined, namespaceConditions(report()), 't1')!;
  expect(first.every((c) => c.lastTransitionTime === 't1')).toBe(true);
  expect(mergeConditions(first, namespaceConditions(report()), 't2')).toBeUndefined();
  const next = mergeConditions(first, namespaceConditions(report({ remainingResources: new Map([['pods.', 1]]) })), 't3')!;
  expect(next.filter((c) => c.lastTransitionTime === 't3').map((c) => c.type)).toEqual(['NamespaceContentRemaining']);
});
