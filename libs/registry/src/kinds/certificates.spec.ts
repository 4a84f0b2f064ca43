// CertificateSigningRequest validation with upstream's messages, the printer's CONDITION column, and what each
// write path (main, /status, /approval) may change.
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { KubeObject } from '@cl/apimachinery';
import { csrCondition, csrStrategy, validateCsr, type CertificateSigningRequest } from './certificates';
import { parseCertificateRequest } from '@cl/pki';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
let requestPem = '';

beforeAll(async () => {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: ['system:node:n1'] }, { O: ['system:nodes'] }], keys, signingAlgorithm: ALG,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'n1' }, { type: 'ip', value: '10.0.0.1' }])],
  });
  requestPem = csr.toString('pem');
});

const make = (spec: Partial<CertificateSigningRequest['spec']> = {}, status?: CertificateSigningRequest['status']): CertificateSigningRequest => ({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'r' },
  spec: { request: Buffer.from(requestPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], ...spec },
  ...(status ? { status } : {}),
});
const messages = (o: KubeObject) => validateCsr(o).map((e) => e.message);

test('a request parses with its subject and names, and its signature verifies', () => {
  const r = parseCertificateRequest(requestPem);
  expect(r).toMatchObject({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], ipAddresses: ['10.0.0.1'], publicKeyAlgorithm: 'ECDSA' });
  // One changed byte of the signed part breaks the signature.
  const der = Buffer.from(requestPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  der[40] ^= 1;
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  expect(() => parseCertificateRequest(tampered)).toThrow();
});

test.each<[string, () => CertificateSigningRequest, string[]]>([
  ['valid', () => make(), []],
  ['not a request', () => make({ request: Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64') }),
    ['spec.request: Invalid value: "<request data>": PEM block type must be CERTIFICATE REQUEST']],
  ['no usages', () => make({ usages: [] }), ['spec.usages: Required value']],
  ['unknown usage', () => make({ usages: ['client auth', 'flying'] }), [expect.stringMatching(/^spec.usages\[1\]: Unsupported value: "flying": supported values: "any", "cert sign"/) as unknown as string]],
  ['duplicate usage', () => make({ usages: ['client auth', 'client auth'] }), ['spec.usages[1]: Duplicate value: "client auth"']],
  ['no signer', () => make({ signerName: '' }), ['spec.signerName: Required value']],
  ['signer without a path', () => make({ signerName: 'example.com' }), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
  ['the legacy signer', () => make({ signerName: 'kubernetes.io/legacy-unknown' }), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
  ['short expiration', () => make({ expirationSeconds: 599 }), ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']],
  ['approved and denied', () => make({}, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] }),
    ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']],
  ['approved False', () => make({}, { conditions: [{ type: 'Approved', status: 'False' }] }), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']],
  ['duplicate condition', () => make({}, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Approved', status: 'True' }] }), ['status.conditions[1].type: Duplicate value: "Approved"']],
])('validation: %s', (_n, o, want) => {
  expect(messages(o())).toEqual(want);
});

test.each<[string, CertificateSigningRequest['status'], string]>([
  ['new', undefined, 'Pending'],
  ['approved', { conditions: [{ type: 'Approved', status: 'True' }] }, 'Approved'],
  ['issued', { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' }, 'Approved,Issued'],
  ['denied', { conditions: [{ type: 'Denied', status: 'True' }] }, 'Denied'],
  ['failed', { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }] }, 'Approved,Failed'],
])('CONDITION of a %s request', (_n, status, want) => {
  expect(csrCondition(make({}, status))).toBe(want);
});

describe('write paths', () => {
  const approved = { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }] };
  const cert = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

  test('the main resource keeps the spec and status as stored', () => {
    const old = make();
    const next = make({ usages: ['client auth'] }, approved);
    csrStrategy.prepareForUpdate!(next, old);
    expect(next.spec).toEqual(old.spec);
    expect(next.status).toBeUndefined();
  });

  test('/approval sets conditions (with their times) and nothing else', () => {
    const old = make();
    const view = csrStrategy.views!.approval;
    const next = view.apply(make({ usages: ['client auth'] }, { ...approved, certificate: cert }), old) as CertificateSigningRequest;
    csrStrategy.prepareForUpdate!(next, old);
    expect(next.spec).toEqual(old.spec);
    expect(next.status?.certificate).toBeUndefined();
    expect(next.status?.conditions?.[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'KubectlApprove', lastUpdateTime: expect.any(String), lastTransitionTime: expect.any(String) });
    expect(view.validateUpdate!(next, old)).toEqual([]);
  });

  test('/status may set the certificate once, but not approve', () => {
    const old = make({}, approved);
    const issued = make({}, { ...approved, certificate: cert });
    expect(csrStrategy.validateStatusUpdate!(issued, old).map((e) => e.message)).toEqual([]);
    const again = make({}, { ...approved, certificate: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n').toString('base64') });
    expect(csrStrategy.validateStatusUpdate!(again, issued).map((e) => e.message)).toEqual(['status.certificate: Forbidden: updates may not modify existing certificate content']);
    expect(csrStrategy.validateStatusUpdate!(make({}, approved), make()).map((e) => e.message)).toEqual(['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
    expect(csrStrategy.validateStatusUpdate!(make(), old).map((e) => e.message)).toEqual(['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  });

  test('/approval may not set the certificate, and a denial cannot become an approval', () => {
    const denied = make({}, { conditions: [{ type: 'Denied', status: 'True' }] });
    const view = csrStrategy.views!.approval;
    const both = view.apply(make({}, { conditions: [{ type: 'Denied', status: 'True' }, { type: 'Approved', status: 'True' }] }), denied) as CertificateSigningRequest;
    csrStrategy.prepareForUpdate!(both, denied);
    expect(view.validateUpdate!(both, denied).map((e) => e.message)).toEqual(['status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive']);
  });
});
