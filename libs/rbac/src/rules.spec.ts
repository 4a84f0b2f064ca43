import { compactString, ruleAllows, type RuleRequest } from './rules';
import type { PolicyRule } from './types';

const res = (verb: string, apiGroup: string, resource: string, subresource = '', name = ''): RuleRequest => ({ verb, isResourceRequest: true, path: '', apiGroup, resource, subresource, name });
const nonRes = (verb: string, path: string): RuleRequest => ({ verb, isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', name: '' });

describe('ruleAllows (upstream RuleAllows)', () => {
  const cases: Array<[string, PolicyRule, RuleRequest, boolean]> = [
    ['exact verb/group/resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods'), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', '', 'pods'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', '', 'pods'), true],
    ['other group', { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, res('get', 'apps', 'deployments'), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, res('get', 'apps', 'deployments'), true],
    ['no apiGroups never matches a resource', { verbs: ['get'], resources: ['pods'] }, res('get', '', 'pods'), false],
    ['resource * covers subresources', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', '', 'pods', 'log'), true],
    ['resource does not cover its subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods', 'log'), false],
    ['resource/subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', 'log'), true],
    ['resource/subresource not the resource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods'), false],
    ['*/subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments', 'scale'), true],
    ['*/subresource not another subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments', 'status'), false],
    ['*/subresource not the resource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments'), false],
    ['resourceNames match', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('get', '', 'configmaps', '', 'a'), true],
    ['resourceNames other name', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('get', '', 'configmaps', '', 'b'), false],
    ['resourceNames never match a name-less list', { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('list', '', 'configmaps'), false],
    ['nonResourceURL exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonRes('get', '/healthz'), true],
    ['nonResourceURL exact not prefix', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonRes('get', '/healthz/ping'), false],
    ['nonResourceURL trailing *', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, nonRes('get', '/healthz/ping'), true],
    ['nonResourceURL trailing * without the slash', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, nonRes('get', '/healthz'), false],
    ['nonResourceURL *', { verbs: ['*'], nonResourceURLs: ['*'] }, nonRes('post', '/anything'), true],
    ['nonResourceURL verb', { verbs: ['get'], nonResourceURLs: ['*'] }, nonRes('post', '/anything'), false],
    ['a resource rule never grants a path', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, nonRes('get', '/healthz'), false],
    ['a path rule never grants a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, res('get', '', 'pods'), false],
  ];
  it.each(cases)('%s', (_name, rule, req, want) => {
    expect(ruleAllows(req, rule)).toBe(want);
  });
});

describe('compactString (upstream CompactString)', () => {
  it.each([
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}'],
    [{ verbs: ['get', 'list'], nonResourceURLs: ['/a'] }, '{NonResourceURLs:["/a"], Verbs:["get" "list"]}'],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] }, '{APIGroups:[""], Resources:["pods"], ResourceNames:["x"], Verbs:["get"]}'],
  ] as Array<[PolicyRule, string]>)('%j', (rule, want) => {
    expect(compactString(rule)).toBe(want);
  });
});
