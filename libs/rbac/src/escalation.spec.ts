import { userInfo } from '@cl/auth';
import { RuleResolver } from './authorizer';
import { covers, confirmNoEscalation, EscalationError } from './escalation';
import { RbacIndex } from './policy-index';
import type { PolicyRule } from './types';

describe('covers (upstream Covers)', () => {
  const cases: Array<[string, PolicyRule[], PolicyRule[], boolean]> = [
    ['everything covers anything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get', 'delete'], apiGroups: ['apps'], resources: ['deployments/scale'] }], true],
    ['same rule', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], true],
    ['split over two owner rules', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }], true],
    ['missing verb', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }], false],
    ['resource does not cover subresource', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }], false],
    ['*/sub covers res/sub', [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }], true],
    ['named owner does not cover all names', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], false],
    ['unnamed owner covers a name', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], true],
    ['url prefix', [{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/api/v1', '/api/*'] }], true],
    ['url outside prefix', [{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis'] }], false],
    ['a resource owner does not cover urls', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], false],
  ];
  it.each(cases)('%s', (_n, owner, servant, want) => {
    expect(covers(owner, servant).covered).toBe(want);
  });
});

describe('confirmNoEscalation', () => {
  const index = new RbacIndex();
  index.put('ClusterRole', { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] });
  index.put('RoleBinding', { metadata: { name: 'b', namespace: 'a' }, roleRef: { kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'jane' }] });
  const resolver = new RuleResolver(index);
  const jane = userInfo({ username: 'jane', groups: ['dev', 'system:authenticated'] });

  it('allows granting rules held in the namespace', () => {
    expect(() => confirmNoEscalation(resolver, jane, 'a', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).not.toThrow();
  });

  it('refuses the same rules in another namespace, with upstream text', () => {
    let err: unknown;
    try {
      confirmNoEscalation(resolver, jane, 'b', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EscalationError);
    expect((err as Error).message).toBe(
      'user "jane" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
  });
});
