// Asking for a certificate: the request the agent sends, and how the wait ends (issued, denied, failed), with a
// fake API client.
import type { KubeClient, WatchEventHandler } from '@cl/kube-client';
import { CertificateRequestRefused, newCertificateRequest, requestCertificate, usagesFor } from './csr-client';

type Csr = { metadata: { name: string; resourceVersion?: string }; status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string; message?: string }> } };

/** A client whose CSR is `first` when read, then goes through `events` on the watch. */
function fakeClient(first: Csr, events: Csr[] = []) {
  const created: unknown[] = [];
  const client = {
    create: async (_path: string, body: unknown) => {
      created.push(body);
      return { metadata: { name: 'node-csr-1' } };
    },
    get: async () => first,
    watch: (_path: string, _q: unknown, on: WatchEventHandler) => {
      let stop: () => void = () => undefined;
      const done = new Promise<undefined>((resolve) => (stop = () => resolve(undefined)));
      setImmediate(() => events.forEach((e) => on('MODIFIED', e)));
      return { done, stop: () => stop() };
    },
  };
  return { client: client as unknown as KubeClient, created };
}

const pending: Csr = { metadata: { name: 'node-csr-1', resourceVersion: '5' } };
const spec = { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', nodeName: 'n1' };

test('usages as upstream for an ECDSA key', () => {
  expect(usagesFor('kubernetes.io/kube-apiserver-client-kubelet')).toEqual(['digital signature', 'client auth']);
  expect(usagesFor('kubernetes.io/kubelet-serving')).toEqual(['digital signature', 'server auth']);
});

test('the request names the node and the signer; the certificate comes through the watch', async () => {
  const { csrPem, keyPem } = await newCertificateRequest(spec);
  expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  const issued = { ...pending, status: { certificate: Buffer.from('PEM').toString('base64') } };
  const { client, created } = fakeClient(pending, [pending, issued]);
  await expect(requestCertificate(client, spec, csrPem)).resolves.toEqual({ name: 'node-csr-1', certificatePem: 'PEM' });
  expect(created).toEqual([expect.objectContaining({
    kind: 'CertificateSigningRequest',
    metadata: { generateName: 'node-csr-' },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
  })]);
});

test.each<[string, Csr, Csr[], string]>([
  ['denied when read', { ...pending, status: { conditions: [{ type: 'Denied', reason: 'KubectlDeny', message: 'not this one' }] } }, [], 'certificate signing request is denied, reason: KubectlDeny, message: not this one'],
  ['failed on the watch', pending, [{ ...pending, status: { conditions: [{ type: 'Approved' }, { type: 'Failed', reason: 'SignerValidationFailure', message: 'subject organization is not system:nodes' }] } }],
    'certificate signing request failed, reason: SignerValidationFailure, message: subject organization is not system:nodes'],
])('%s: the wait ends with the reason', async (_n, first, events, message) => {
  const { client } = fakeClient(first, events);
  const p = requestCertificate(client, spec, 'csr');
  await expect(p).rejects.toThrow(CertificateRequestRefused);
  await expect(p).rejects.toThrow(message);
});
