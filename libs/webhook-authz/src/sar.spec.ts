import { userInfo, type Attributes } from '@cl/auth';
import { attributesFromSpec, cacheKeyOf, cacheKeyOfAttributes, decodeReviewResponse, encodeReviewRequest, nonResourceAttributes, specFromAttributes } from './sar';
import { forbiddenStatus } from './responses';

const jane = userInfo({ username: 'jane', uid: '1', groups: ['group1', 'group2'], extra: { scopes: ['read', 'write'] } });
const resource = (over: Partial<Attributes> = {}): Attributes => ({
  user: jane,
  verb: 'get',
  isResourceRequest: true,
  path: '/apis/group3/v7beta3/namespaces/kittensandponies/pods/my-pod/proxy',
  namespace: 'kittensandponies',
  apiGroup: 'group3',
  apiVersion: 'v7beta3',
  resource: 'pods',
  subresource: 'proxy',
  name: 'my-pod',
  ...over,
});
const nonResource = (path: string, user = userInfo({ username: 'bob', groups: ['system:authenticated'] })): Attributes => nonResourceAttributes(user, 'get', path);

describe('request body bytes (authz-egress A.4.2)', () => {
  test.each([
    [
      'v1 resource request',
      resource(),
      'v1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"kittensandponies","verb":"get","group":"group3","version":"v7beta3","resource":"pods","subresource":"proxy","name":"my-pod"},"user":"jane","groups":["group1","group2"],"extra":{"scopes":["read","write"]},"uid":"1"},"status":{"allowed":false}}\n',
    ],
    [
      'v1beta1 resource request (groups spelled group)',
      resource(),
      'v1beta1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"kittensandponies","verb":"get","group":"group3","version":"v7beta3","resource":"pods","subresource":"proxy","name":"my-pod"},"user":"jane","group":["group1","group2"],"extra":{"scopes":["read","write"]},"uid":"1"},"status":{"allowed":false}}\n',
    ],
    [
      'v1 non-resource request',
      nonResource('/healthz'),
      'v1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"bob","groups":["system:authenticated"]},"status":{"allowed":false}}\n',
    ],
    [
      'empty user and empty non-resource attributes',
      { ...nonResource('', userInfo({ username: '' })), verb: '' },
      'v1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"nonResourceAttributes":{}},"status":{"allowed":false}}\n',
    ],
    [
      'list with selectors: only requirements, sorted, label values sorted',
      resource({
        user: userInfo({ username: 'alice', groups: ['dev', 'system:authenticated'] }),
        verb: 'list',
        namespace: '',
        apiGroup: '',
        apiVersion: 'v1',
        subresource: '',
        name: '',
        fieldSelector: [
          { key: 'spec.nodeName', operator: 'Equals', values: ['node1'] },
          { key: 'metadata.name', operator: 'NotEquals', values: ['a'] },
        ],
        labelSelector: [
          { key: 'app', operator: 'In', values: ['web', 'db'] },
          { key: 'tier', operator: 'Exists', values: [] },
        ],
      }),
      'v1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"verb":"list","version":"v1","resource":"pods","fieldSelector":{"requirements":[{"key":"metadata.name","operator":"NotIn","values":["a"]},{"key":"spec.nodeName","operator":"In","values":["node1"]}]},"labelSelector":{"requirements":[{"key":"app","operator":"In","values":["db","web"]},{"key":"tier","operator":"Exists"}]}},"user":"alice","groups":["dev","system:authenticated"]},"status":{"allowed":false}}\n',
    ],
    [
      'HTML characters escaped as Go does',
      nonResource('/a<b>&c', userInfo({ username: 'x\u2028y' })),
      'v1',
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"nonResourceAttributes":{"path":"/a\\u003cb\\u003e\\u0026c","verb":"get"},"user":"x\\u2028y"},"status":{"allowed":false}}\n',
    ],
  ] as const)('%s', (_name, attrs, version, expected) => {
    expect(encodeReviewRequest(specFromAttributes(attrs), version)).toBe(expected);
  });

  test('the first example is 393 bytes and the v1beta1 one 397, as upstream', () => {
    expect(Buffer.byteLength(encodeReviewRequest(specFromAttributes(resource()), 'v1'))).toBe(393);
    expect(Buffer.byteLength(encodeReviewRequest(specFromAttributes(resource()), 'v1beta1'))).toBe(397);
  });
});

describe('cache key', () => {
  test.each([
    ['resource request with extra', resource()],
    ['resource request without extra', resource({ user: userInfo({ username: 'jane', uid: '7', groups: ['a', 'b'] }) })],
    ['collection, no groups', resource({ user: userInfo({ username: 'u' }), name: '', subresource: '', verb: 'list' })],
    ['non-resource', nonResource('/healthz/ping')],
    ['anonymous empty verb', { ...nonResource('/x', userInfo({ username: '' })), verb: '' }],
    ['characters Go escapes', nonResource('/a<b>&"\\c\u2028', userInfo({ username: 'x"y', groups: ['<g>'] }))],
    ['non-ASCII', nonResource('/ünïcode', userInfo({ username: 'jöe' }))],
    ['selectors', resource({ fieldSelector: [{ key: 'a', operator: 'Equals', values: ['b'] }] })],
  ])('the fast key equals json.Marshal of the spec: %s', (_n, attrs) => {
    expect(cacheKeyOfAttributes(attrs)).toBe(cacheKeyOf(specFromAttributes(attrs)));
  });

  test('the v1 spec without newline; group order matters, extra key order does not', () => {
    const key = cacheKeyOf(specFromAttributes(resource()));
    expect(key.startsWith('{"resourceAttributes":{"namespace":"kittensandponies"')).toBe(true);
    expect(key.endsWith('"uid":"1"}')).toBe(true);
    const reversed = cacheKeyOf(specFromAttributes(resource({ user: { ...jane, groups: ['group2', 'group1'] } })));
    expect(reversed).not.toBe(key);
    const extra = { b: ['1'], a: ['2'] };
    const reordered = { a: ['2'], b: ['1'] };
    expect(cacheKeyOf(specFromAttributes(resource({ user: { ...jane, extra } })))).toBe(
      cacheKeyOf(specFromAttributes(resource({ user: { ...jane, extra: reordered } }))),
    );
  });
});

describe('response decoding', () => {
  test.each([
    ['allowed', '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}', { allowed: true, denied: false, reason: '', evaluationError: '' }],
    ['kind and apiVersion may be left out', '{"status":{"allowed":false,"denied":true,"reason":"nope"}}', { allowed: false, denied: true, reason: 'nope', evaluationError: '' }],
    ['missing status is no opinion', '{"kind":"SubjectAccessReview"}', { allowed: false }],
    ['unknown fields ignored', '{"status":{"allowed":true,"extra":1},"foo":"bar"}', { allowed: true, denied: false, reason: '', evaluationError: '' }],
  ])('%s', (_n, body, expected) => {
    expect(decodeReviewResponse(body, 'v1')).toEqual(expected);
  });

  test.each([
    ['not JSON', 'error response', "invalid character 'e' looking for beginning of value"],
    ['wrong version', '{"apiVersion":"authorization.k8s.io/v1beta1","status":{"allowed":true}}', 'expected authorization.k8s.io/v1, Kind=SubjectAccessReview'],
    ['wrong field type', '{"status":{"allowed":"yes"}}', 'cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.allowed of type bool'],
    ['not an object', '[1]', 'cannot unmarshal array'],
  ])('%s is an error', (_n, body, message) => {
    expect(() => decodeReviewResponse(body, 'v1')).toThrow(message);
  });
});

describe('attributes from a review spec', () => {
  test('empty version means every version; unusable selectors are reported', () => {
    const { attrs, ignored } = attributesFromSpec(
      { resourceAttributes: { verb: 'list', resource: 'pods', fieldSelector: { requirements: [{ key: 'a', operator: 'Exists' }] } } },
      userInfo({ username: 'u' }),
    );
    expect(attrs.apiVersion).toBe('*');
    expect(attrs.fieldSelector).toBeUndefined();
    expect(ignored).toEqual(['spec.resourceAttributes.fieldSelector ignored due to parse error']);
  });
});

describe('403 Status messages (authz-egress A.8)', () => {
  const alice = userInfo({ username: 'alice' });
  test.each([
    [
      'namespaced object',
      resource({ user: alice, apiGroup: '', subresource: '', name: 'foo', namespace: 'default' }),
      'r1\nr2',
      'pods "foo" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default": r1\nr2',
      { name: 'foo', kind: 'pods' },
    ],
    [
      'subresource, grouped, cluster scope, no reason',
      resource({ user: alice, apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'd', namespace: '' }),
      '',
      'deployments.apps "d" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" at the cluster scope',
      { name: 'd', group: 'apps', kind: 'deployments' },
    ],
    [
      'collection',
      resource({ user: alice, verb: 'list', apiGroup: '', subresource: '', name: '', namespace: 'ns' }),
      '',
      'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"',
      { kind: 'pods' },
    ],
    ['non-resource', nonResource('/metrics', userInfo({ username: 'system:anonymous' })), 'no', 'forbidden: User "system:anonymous" cannot get path "/metrics": no', {}],
  ])('%s', (_n, attrs, reason, message, details) => {
    const s = forbiddenStatus(attrs, reason);
    expect(s.message).toBe(message);
    expect(s.details).toEqual(details);
    expect(s.code).toBe(403);
  });
});
