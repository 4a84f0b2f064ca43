import { adoptPatch, claimDecision, releasePatch, type ClaimDecision } from './controller-ref';
import type { ObjectMeta } from './types';

const owner = (extra: Partial<ObjectMeta> = {}) => ({ metadata: { name: 'rs', namespace: 'ns', uid: 'u1', ...extra } });
const ref = (uid: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid, controller: true });
const dependent = (extra: Partial<ObjectMeta> = {}) => ({ metadata: { name: 'p', namespace: 'ns', uid: 'p1', ...extra } });

describe('claimDecision', () => {
  test.each<[string, ReturnType<typeof owner>, ReturnType<typeof dependent>, boolean, ClaimDecision]>([
    ['ours and matching', owner(), dependent({ ownerReferences: [ref('u1')] }), true, 'owned'],
    ['ours, no longer matching', owner(), dependent({ ownerReferences: [ref('u1')] }), false, 'release'],
    ['ours, not matching, while we are deleted', owner({ deletionTimestamp: 'now' }), dependent({ ownerReferences: [ref('u1')] }), false, 'ignore'],
    ["someone else's", owner(), dependent({ ownerReferences: [ref('u2')] }), true, 'ignore'],
    ['an orphan that matches', owner(), dependent(), true, 'adopt'],
    ['an orphan owned without controller flag', owner(), dependent({ ownerReferences: [{ ...ref('u9'), controller: false }] }), true, 'adopt'],
    ['an orphan that does not match', owner(), dependent(), false, 'ignore'],
    ['an orphan being deleted', owner(), dependent({ deletionTimestamp: 'now' }), true, 'ignore'],
    ['an orphan while we are deleted', owner({ deletionTimestamp: 'now' }), dependent(), true, 'ignore'],
    ['an orphan in another namespace', owner(), dependent({ namespace: 'other' }), true, 'ignore'],
  ])('%s: %s', (_name, controller, obj, matches, decision) => {
    expect(claimDecision(controller, obj, matches)).toBe(decision);
  });
});

test('the patches carry the dependent uid as a precondition', () => {
  expect(adoptPatch({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', uid: 'u1' } }, 'p1')).toEqual({
    metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true, blockOwnerDeletion: true }], uid: 'p1' },
  });
  expect(releasePatch('u1', 'p1')).toEqual({ metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }], uid: 'p1' } });
});
