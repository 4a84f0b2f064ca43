import type { OwnerReference } from '@cl/apimachinery';
import { blockingDependents, defaultPolicy, dependentAction, ownerState, type DependentFacts, type OwnerState } from './gc-decisions';

const ref = (uid: string, blockOwnerDeletion?: boolean): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }) });
const facts = (owners: Array<[string, OwnerState]>, extra: Partial<DependentFacts> = {}): DependentFacts => ({
  deleting: false,
  finalizers: [],
  hasDependents: false,
  owners: owners.map(([uid, state]) => ({ ref: ref(uid), state })),
  ...extra,
});

test.each<[string, DependentFacts, ReturnType<typeof dependentAction>]>([
  ['all owners live: kept', facts([['a', 'solid']]), { action: 'none' }],
  ['no owner left: deleted in the background', facts([['a', 'dangling']]), { action: 'delete', propagationPolicy: 'Background' }],
  ['one live, one gone: the gone reference is dropped', facts([['a', 'solid'], ['b', 'dangling']]), { action: 'removeOwnerReferences', uids: ['b'] }],
  ['one live, one waiting in the foreground: that reference is dropped', facts([['a', 'solid'], ['b', 'waitingForDependentsDeletion']]), { action: 'removeOwnerReferences', uids: ['b'] }],
  ['owner waiting, no dependents of its own: deleted as its finalizers say', facts([['a', 'waitingForDependentsDeletion']]), { action: 'delete', propagationPolicy: 'Background' }],
  ['owner waiting, has dependents: deleted in the foreground', facts([['a', 'waitingForDependentsDeletion']], { hasDependents: true }), { action: 'delete', propagationPolicy: 'Foreground' }],
  ['owners gone, object asks to orphan its dependents', facts([['a', 'dangling']], { finalizers: ['orphan'] }), { action: 'delete', propagationPolicy: 'Orphan' }],
  ['already being deleted: nothing to add', facts([['a', 'dangling']], { deleting: true }), { action: 'none' }],
  ['no owner references', facts([]), { action: 'none' }],
])('%s', (_what, f, want) => {
  expect(dependentAction(f)).toEqual(want);
});

test.each<[string, Parameters<typeof ownerState>[0], OwnerState]>([
  ['absent', undefined, 'dangling'],
  ['another object of that name (a new uid)', { uid: 'other', deleting: false, finalizers: [] }, 'dangling'],
  ['live', { uid: 'a', deleting: false, finalizers: [] }, 'solid'],
  ['deleted in the background (no finalizer): still there', { uid: 'a', deleting: true, finalizers: [] }, 'solid'],
  ['deleted in the foreground', { uid: 'a', deleting: true, finalizers: ['foregroundDeletion'] }, 'waitingForDependentsDeletion'],
])('owner %s: %s', (_what, owner, want) => {
  expect(ownerState(owner, ref('a'))).toBe(want);
});

test('default policy follows the finalizers', () => {
  expect([defaultPolicy([]), defaultPolicy(['orphan']), defaultPolicy(['foregroundDeletion']), defaultPolicy(['example.com/x'])]).toEqual(['Background', 'Orphan', 'Foreground', 'Background']);
});

test('only dependents whose reference blocks owner deletion hold a foreground owner', () => {
  const deps = [{ owners: [ref('o', true)] }, { owners: [ref('o', false)] }, { owners: [ref('o')] }, { owners: [ref('other', true)] }];
  expect(blockingDependents('o', deps)).toEqual([deps[0]]);
});
