// The certificate controllers' decisions as tables: the approver's recognizers, each built-in signer's checks,
// the issued lifetime, and the cleaner's ages.
import { apiserverClientProblem, certificateValidity, cleanupReason, kubeletClientProblem, kubeletServingProblem, recognize, type Csr, type RequestSubject } from './csr-decisions';

const subject = (over: Partial<RequestSubject> = {}): RequestSubject => ({
  commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [], ...over,
});
const CLIENT = ['digital signature', 'client auth'];

test.each<[string, RequestSubject, string[], string | null]>([
  ['a node client request', subject(), CLIENT, null],
  ['with key encipherment (RSA keys)', subject(), ['digital signature', 'key encipherment', 'client auth'], null],
  ['usages in any order', subject(), ['client auth', 'digital signature'], null],
  ['another organization', subject({ organizations: ['system:masters'] }), CLIENT, 'subject organization is not system:nodes'],
  ['two organizations', subject({ organizations: ['system:nodes', 'x'] }), CLIENT, 'subject organization is not system:nodes'],
  ['a DNS name', subject({ dnsNames: ['n1'] }), CLIENT, 'DNS subjectAltNames are not allowed'],
  ['an IP address', subject({ ipAddresses: ['10.0.0.1'] }), CLIENT, 'IP subjectAltNames are not allowed'],
  ['another common name', subject({ commonName: 'jane' }), CLIENT, 'subject common name does not begin with system:node:'],
  ['server auth', subject(), ['digital signature', 'server auth'], 'usages did not match ["digital signature" "key encipherment" "client auth"]'],
])('kubelet client: %s', (_n, s, usages, want) => {
  expect(kubeletClientProblem(s, usages)).toBe(want);
});

test.each<[string, RequestSubject, string[], string | null]>([
  ['names and addresses', subject({ dnsNames: ['n1'], ipAddresses: ['10.0.0.1'] }), ['digital signature', 'server auth'], null],
  ['no names', subject(), ['digital signature', 'server auth'], 'DNS or IP subjectAltName is required'],
  ['an email', subject({ dnsNames: ['n1'], emailAddresses: ['a@b'] }), ['digital signature', 'server auth'], 'Email subjectAltNames are not allowed'],
  ['client auth', subject({ dnsNames: ['n1'] }), CLIENT, 'usages did not match ["digital signature" "key encipherment" "server auth"]'],
])('kubelet serving: %s', (_n, s, usages, want) => {
  expect(kubeletServingProblem(s, usages)).toBe(want);
});

test.each<[string[], string | null]>([
  [['client auth'], null],
  [['digital signature', 'key encipherment', 'client auth'], null],
  [['server auth'], 'invalid usage for client certificate: server auth'],
  [['digital signature'], 'missing required usages: client auth'],
])('kube-apiserver-client %j', (usages, want) => {
  expect(apiserverClientProblem(subject(), usages)).toBe(want);
});

const csr = (over: Partial<Csr['spec']> = {}, status?: Csr['status'], created = '2026-01-01T00:00:00Z'): Csr => ({
  metadata: { name: 'x', creationTimestamp: created },
  spec: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: CLIENT, username: 'system:bootstrap:abcdef', ...over },
  status,
});

test.each<[string, Csr, RequestSubject, string[]]>([
  ['a bootstrap token asks: nodeclient', csr(), subject(), ['nodeclient']],
  ['the node itself renews: selfnodeclient first', csr({ username: 'system:node:n1' }), subject(), ['selfnodeclient', 'nodeclient']],
  ['another node asks for n1: nodeclient only', csr({ username: 'system:node:n2' }), subject(), ['nodeclient']],
  ['another signer', csr({ signerName: 'kubernetes.io/kubelet-serving' }), subject(), []],
  ['not a node client request', csr(), subject({ organizations: [] }), []],
])('approver: %s', (_n, c, s, want) => {
  expect(recognize(c, s).map((r) => r.subresource)).toEqual(want);
});

test.each<[string, number, number | undefined, number, { notBefore: number; notAfter: number }]>([
  ['the signing duration', 60_000, undefined, Infinity, { notBefore: 1_000_000, notAfter: 1_060_000 }],
  ['expirationSeconds when shorter', 8760 * 3_600_000, 3600, Infinity, { notBefore: 1_000_000, notAfter: 1_000_000 + 3_600_000 }],
  ['the duration when expirationSeconds is longer', 600_000, 3600, Infinity, { notBefore: 1_000_000, notAfter: 1_600_000 }],
  ['long lifetimes are backdated 5m', 24 * 3_600_000, undefined, Infinity, { notBefore: 700_000, notAfter: 700_000 + 24 * 3_600_000 }],
  ['never past the CA', 60_000, undefined, 1_030_000, { notBefore: 1_000_000, notAfter: 1_030_000 }],
])('validity: %s', (_n, duration, expirationSeconds, caNotAfter, want) => {
  expect(certificateValidity(1_000_000, duration, expirationSeconds, caNotAfter)).toEqual(want);
});

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
test.each<[string, Csr, number, number | undefined, string | null]>([
  ['pending for an hour', csr(), T0 + 3_600_000, undefined, null],
  ['pending for a day', csr(), T0 + 24 * 3_600_000 + 1, undefined, 'pending for more than a day'],
  ['approved 30m ago', csr({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(0) }] }), T0 + 1_800_000, undefined, null],
  ['approved over an hour ago', csr({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(0) }] }), T0 + 3_600_001, undefined, 'approved more than an hour ago'],
  ['denied over an hour ago', csr({}, { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: at(0) }] }), T0 + 3_600_001, undefined, 'denied more than an hour ago'],
  ['issued and expired', csr({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(0) }], certificate: 'x' }), T0 + 120_000, T0 + 60_000, 'issued certificate has expired'],
])('cleaner: %s', (_n, c, now, notAfter, want) => {
  expect(cleanupReason(c, now, notAfter)).toBe(want);
});
