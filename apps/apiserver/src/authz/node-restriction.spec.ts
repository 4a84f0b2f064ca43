// NodeRestriction's token rule: what a node's TokenRequest must be bound to, and for which audiences (upstream's
// admitServiceAccount with ServiceAccountNodeAudienceRestriction).
import { ApiError, type KubeObject } from '@cl/apimachinery';
import type { UserInfo } from '@cl/auth';
import { admitNodeTokenRequest, type BoundObjectReference, type NodeRequestAuthorizer } from './node-restriction';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} });
const alice: UserInfo = { username: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
const pods: Record<string, KubeObject> = {
  mine: {
    metadata: { name: 'mine', namespace: 'ns', uid: 'mine-uid' },
    spec: {
      nodeName: 'n1',
      volumes: [
        { name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] } },
        { name: 'vault-token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault' } }] } },
      ],
    },
  },
  bare: { metadata: { name: 'bare', namespace: 'ns', uid: 'bare-uid' }, spec: { nodeName: 'n1', volumes: [{ name: 'data', emptyDir: {} }] } },
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
  const outcome = await admitNodeTokenRequest(user, { namespace: 'ns', serviceAccount: 'default', boundObjectRef: ref }, getPod, async () => false).then(() => null, (e: unknown) => e);
  if (code === null) return expect(outcome).toBeNull();
  expect(outcome).toBeInstanceOf(ApiError);
  expect((outcome as ApiError).status.code).toBe(code);
  expect((outcome as ApiError).status.message).toContain(message);
});

describe('audiences (ServiceAccountNodeAudienceRestriction)', () => {
  const bare: BoundObjectReference = { apiVersion: 'v1', kind: 'Pod', name: 'bare', uid: 'bare-uid' };
  // The authorizer grants n1 the audience "granted" for the service account "default" only.
  const asked: Parameters<NodeRequestAuthorizer>[0][] = [];
  const authorize: NodeRequestAuthorizer = async (a) => {
    asked.push(a);
    return a.resource === 'granted' && a.name === 'default';
  };
  const refusal = (audience: string) => `audience "${audience}" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience`;

  test.each<[string, BoundObjectReference, string, string[] | undefined, string | null]>([
    ['none asked, the pod\'s default projected token names none', mine, 'default', undefined, null],
    ['an audience a projected source of the pod names', mine, 'default', ['vault'], null],
    ['an audience no source names', mine, 'default', ['elsewhere'], refusal('elsewhere')],
    ['none asked, a pod without a projected token', bare, 'default', [], refusal('')],
    ['an audience the node was granted', bare, 'default', ['granted'], null],
    ['the granted audience for another service account', bare, 'builder', ['granted'], refusal('granted')],
    ['two audiences, even both named by the pod', mine, 'default', ['vault', ''], 'node may only request 0 or 1 audiences'],
  ])('%s', async (_what, ref, serviceAccount, audiences, message) => {
    const outcome = await admitNodeTokenRequest(node('n1'), { namespace: 'ns', serviceAccount, boundObjectRef: ref, audiences }, getPod, authorize).then(() => null, (e: unknown) => e);
    if (message === null) return expect(outcome).toBeNull();
    expect(outcome).toBeInstanceOf(ApiError);
    expect((outcome as ApiError).status.code).toBe(403);
    expect((outcome as ApiError).status.message).toBe(`serviceaccounts "${serviceAccount}" is forbidden: ${message}`);
  });

  test('the authorizer is asked with the audience as resource and the service account as name', async () => {
    asked.length = 0;
    await admitNodeTokenRequest(node('n1'), { namespace: 'ns', serviceAccount: 'default', boundObjectRef: bare, audiences: ['granted'] }, getPod, authorize);
    expect(asked).toEqual([{ user: node('n1'), verb: 'request-serviceaccounts-token-audience', namespace: 'ns', apiGroup: '', resource: 'granted', name: 'default' }]);
  });
});
