// NodeRestriction's token rule: what a node's TokenRequest must be bound to (upstream's admitServiceAccount).
import { ApiError, type KubeObject } from '@cl/apimachinery';
import type { UserInfo } from '@cl/auth';
import { admitNodeTokenRequest, type BoundObjectReference } from './node-restriction';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} });
const alice: UserInfo = { username: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
const pods: Record<string, KubeObject> = {
  mine: { metadata: { name: 'mine', namespace: 'ns', uid: 'mine-uid' }, spec: { nodeName: 'n1' } },
  theirs: { metadata: { name: 'theirs', namespace: 'ns', uid: 'theirs-uid' }, spec: { nodeName: 'n2' } },
};
const getPod = async (_ns: string, name: string) => pods[name];
const mine: BoundObjectReference = { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'mine-uid' };

test.each<[string, UserInfo, BoundObjectReference | undefined, number | null, string]>([
  ['a node, bound to its own pod', node('n1'), mine, null, ''],
  ['not a node: no restriction', alice, undefined, null, ''],
  ['a node, no binding', node('n1'), undefined, 403, 'node requested token not bound to a pod'],
  ['a node, bound to a secret', node('n1'), { ...mine, kind: 'Secret' }, 403, 'node requested token not bound to a pod'],
  ['a node, bound without apiVersion v1', node('n1'), { ...mine, apiVersion: '' }, 403, 'node requested token not bound to a pod'],
  ['a node, a pod binding without a uid', node('n1'), { ...mine, uid: '' }, 403, 'node requested token with a pod binding without a uid'],
  ['a node, a pod that does not exist', node('n1'), { ...mine, name: 'gone' }, 404, 'pods "gone" not found'],
  ['a node, a stale uid', node('n1'), { ...mine, uid: 'stale' }, 403, 'the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated'],
  ['a node, another node\'s pod', node('n1'), { apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'theirs-uid' }, 403, 'node requested token bound to a pod scheduled on a different node'],
])('%s', async (_what, user, ref, code, message) => {
  const outcome = await admitNodeTokenRequest(user, 'ns', 'default', ref, getPod).then(() => null, (e: unknown) => e);
  if (code === null) return expect(outcome).toBeNull();
  expect(outcome).toBeInstanceOf(ApiError);
  expect((outcome as ApiError).status.code).toBe(code);
  expect((outcome as ApiError).status.message).toContain(message);
});
