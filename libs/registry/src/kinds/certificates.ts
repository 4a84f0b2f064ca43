// certificates.k8s.io/v1 CertificateSigningRequests as upstream (pkg/registry/certificates, pkg/apis/certificates
// validation): the requestor (username, uid, groups, extra) comes from who creates the request, never from the
// body; the spec never changes after create; `/status` is the signers' (certificate and conditions other than
// Approved/Denied), `/approval` the approvers' (Approved/Denied conditions only, as `kubectl certificate approve`
// sends them); and who may approve or sign for a signer is checked as upstream's CertificateApproval and
// CertificateSigning admission plugins do (`approve` / `sign` on `signers`).
import { Type } from '@sinclair/typebox';
import { defineKind, schema, type CsrCondition } from '@cl/api';
import { apiErrors, fieldErrors, humanDuration, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Admission, AdmissionAttributes } from '../admission';
import type { Strategy, SubresourceView } from '../strategy';
import { AGE, ageOf, column } from './columns';
import { parseCertificateRequest } from '@cl/pki';

const { atomicList, int32, object, objectMeta, pb, str, time, typeMeta } = schema;
const bytes = (d?: string) => Type.String({ format: 'byte', description: d });

const condition = object({
  type: pb(1, str('Approved, Denied, Failed, or a signer-specific type.')),
  status: pb(6, str('True, False or Unknown (Approved, Denied and Failed only True).')),
  reason: pb(2, str()),
  message: pb(3, str()),
  lastUpdateTime: pb(4, time()),
  lastTransitionTime: pb(5, time()),
});

export const certificateSigningRequest = defineKind({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
  shortNames: ['csr'],
  subresources: ['approval', 'status'],
  description: 'A request for a certificate from a signer, approved or denied, then issued or failed.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    spec: pb(
      2,
      object({
        request: pb(1, bytes('A PEM-encoded PKCS#10 certificate request (base64 in JSON).')),
        signerName: pb(7, str('The signer asked to sign: kubernetes.io/kube-apiserver-client-kubelet, ...')),
        expirationSeconds: pb(8, int32('The requested validity; at least 600.')),
        usages: pb(5, atomicList(Type.String(), 'Key usages and extended key usages asked for.')),
        username: pb(2, str('Who created the request (set by the server).')),
        uid: pb(3, str()),
        groups: pb(4, atomicList(Type.String())),
        extra: pb(6, Type.Record(Type.String(), Type.Array(Type.String()))),
      }),
    ),
    status: pb(3, object({ conditions: pb(1, atomicList(condition)), certificate: pb(2, bytes('The issued PEM certificate chain (base64 in JSON).')) })),
  }),
});

export type { CsrCondition };

export interface CertificateSigningRequest extends KubeObject {
  spec: { request?: string; signerName?: string; expirationSeconds?: number; usages?: string[]; username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

const csr = (o: KubeObject) => o as CertificateSigningRequest;
const conditionsOf = (o: KubeObject) => csr(o).status?.conditions ?? [];

/** Upstream's allValidUsages, sorted as its error lists them. */
export const KEY_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature', 'email protection',
  'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];

/** Approved, Denied and Failed may only be True. */
const TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SIGNER_FORM = "must be a fully qualified domain and path of the form 'example.com/signer-name'";

function decodePem(b64: string | undefined): string {
  return Buffer.from(b64 ?? '', 'base64').toString('latin1');
}

/** upstream ValidateSignerName: `<DNS subdomain>/<path>`. */
export function validateSignerName(name: string | undefined): FieldError[] {
  const p = 'spec.signerName';
  if (!name) return [fieldErrors.required(p, '')];
  const slash = name.indexOf('/');
  if (slash < 0) return [fieldErrors.invalid(p, name, SIGNER_FORM)];
  const domain = name.slice(0, slash);
  const path = name.slice(slash + 1);
  const errs: FieldError[] = [];
  if (!domain || domain.length > 253 || !DNS_SUBDOMAIN.test(domain)) errs.push(fieldErrors.invalid(p, name, 'the domain portion of the signerName must be a valid DNS subdomain'));
  if (!path) errs.push(fieldErrors.invalid(p, name, 'validating path: path must be specified'));
  return errs;
}

/** Every PEM block of status.certificate must be a CERTIFICATE; at least one. */
function certificateProblem(pem: string): string | null {
  if (!pem) return null;
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----/g)].map((m) => m[1]);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  const other = blocks.find((t) => t !== 'CERTIFICATE');
  return other ? `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(other)}` : null;
}

function validateConditions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(o).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    if (!c.type) errs.push(fieldErrors.required(`${p}.type`, ''));
    const allowed = TRUE_ONLY.has(c.type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!c.status) errs.push(fieldErrors.required(`${p}.status`, ''));
    else if (!allowed.includes(c.status)) errs.push(fieldErrors.notSupported(`${p}.status`, c.status, allowed));
    if (c.type === 'Approved') {
      approved = true;
      if (denied) errs.push(fieldErrors.invalid(`${p}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
    } else if (c.type === 'Denied') {
      denied = true;
      if (approved) errs.push(fieldErrors.invalid(`${p}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (seen.has(c.type)) errs.push(fieldErrors.duplicate(`${p}.type`, c.type));
    seen.add(c.type);
  });
  return errs;
}

/** upstream validateCertificateSigningRequest (the v1 rules; the legacy tolerances of stored data do not arise here). */
export function validateCsr(o: KubeObject): FieldError[] {
  const spec = csr(o).spec ?? {};
  const errs: FieldError[] = [];
  try {
    parseCertificateRequest(decodePem(spec.request));
  } catch (e) {
    errs.push(fieldErrors.invalid('spec.request', '<request data>', (e as Error).message));
  }
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages', ''));
  usages.forEach((u, i) => {
    if (!KEY_USAGES.includes(u)) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
  });
  usages.forEach((u, i) => {
    if (usages.indexOf(u) < i) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
  });
  if (spec.signerName === 'kubernetes.io/legacy-unknown') errs.push(fieldErrors.invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...validateSignerName(spec.signerName));
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < 600) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(o));
  return errs;
}

const ofType = (o: KubeObject, t: string) => conditionsOf(o).filter((c) => c.type === t);

/** upstream validateCertificateSigningRequestUpdate: what each write path may change of the conditions and certificate. */
function validateCsrUpdate(o: KubeObject, old: KubeObject, path: 'main' | 'status' | 'approval'): FieldError[] {
  const errs = validateCsr(o);
  const certificate = csr(o).status?.certificate ?? '';
  const oldCertificate = csr(old).status?.certificate ?? '';
  // An unchanged certificate is not looked at again.
  if (certificate !== oldCertificate) {
    const problem = certificateProblem(decodePem(certificate));
    if (problem) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', problem));
  }
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (ofType(o, t).length < ofType(old, t).length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (path !== 'approval') {
    for (const t of ['Approved', 'Denied']) {
      const before = ofType(old, t);
      const after = ofType(o, t);
      if (after.length > before.length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (after.length === before.length && JSON.stringify(after) !== JSON.stringify(before)) errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
    }
  }
  if (certificate !== oldCertificate) {
    if (path !== 'status') errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** Conditions get their times when the writer left them out (upstream's populateConditionTimestamps). */
function stampConditions(o: KubeObject, old: KubeObject | null): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const c of conditionsOf(o)) {
    c.lastUpdateTime ??= now;
    if (!c.lastTransitionTime) {
      const before = old ? ofType(old, c.type)[0] : undefined;
      c.lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    }
  }
}

/**
 * The objects an approval write produced, so the strategy's prepareForUpdate (which runs for view writes too)
 * keeps their conditions instead of restoring the stored status.
 */
const approvalWrites = new WeakSet<KubeObject>();

const approvalView: SubresourceView = {
  def: certificateSigningRequest,
  get: (o) => o,
  apply(view, current) {
    const next = { ...current, metadata: { ...current.metadata, resourceVersion: view.metadata?.resourceVersion } } as CertificateSigningRequest;
    next.status = { ...(csr(current).status ?? {}), conditions: csr(view).status?.conditions ?? [] };
    if (!next.status.conditions?.length) delete next.status.conditions;
    approvalWrites.add(next);
    return next;
  },
  validateUpdate: (o, old) => validateCsrUpdate(o, old, 'approval'),
};

/** Upstream's printer: Denied over Approved over Pending, then Failed and Issued. */
export function csrCondition(o: KubeObject): string {
  const types = new Set(conditionsOf(o).map((c) => c.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if (csr(o).status?.certificate) s += ',Issued';
  return s;
}

export const csrStrategy: Strategy = {
  // Upstream does not care what requests are called (ValidateCertificateRequestName accepts any name).
  nameValidator: () => [],
  prepareForCreate(o) {
    delete o.status;
  },
  prepareForUpdate(o, old) {
    // The spec is fixed at create; the status changes only through /status and /approval.
    o.spec = old.spec;
    if (approvalWrites.has(o)) {
      approvalWrites.delete(o);
      stampConditions(o, old);
      return;
    }
    if (old.status === undefined) delete o.status;
    else o.status = old.status;
  },
  prepareForStatusUpdate(o, old) {
    const status = o.status;
    for (const k of Object.keys(o)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete o[k];
    for (const [k, v] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') o[k] = v;
    if (status !== undefined) o.status = status;
    o.metadata = { ...old.metadata, resourceVersion: o.metadata?.resourceVersion };
    stampConditions(o, old);
  },
  validate: validateCsr,
  validateUpdate: (o, old) => validateCsrUpdate(o, old, 'main'),
  validateStatusUpdate: (o, old) => validateCsrUpdate(o, old, 'status'),
  fields: { 'spec.signerName': (o) => csr(o).spec?.signerName },
  views: { approval: approvalView },
  table: {
    columns: [
      AGE,
      column('SignerName', 'string', 'The signer the request is for.'),
      column('Requestor', 'string', 'Who created the request.'),
      column('RequestedDuration', 'string', 'The validity asked for (spec.expirationSeconds).'),
      column('Condition', 'string', 'Pending, Approved or Denied; Failed and Issued when they apply.'),
    ],
    cells: (o, now) => {
      const s = csr(o).spec ?? {};
      return [ageOf(o, now), s.signerName ?? '', s.username ?? '', s.expirationSeconds !== undefined ? humanDuration(s.expirationSeconds * 1000) : '<none>', csrCondition(o)];
    },
  },
};

type Authorize = (attrs: { user: unknown; verb: string; apiGroup: string; resource: string; name: string }) => Promise<boolean>;

/** `example.com/*`: who may act for every signer of a domain (upstream's signer name wildcard check). */
const signerWildcard = (name: string) => `${name.slice(0, name.indexOf('/'))}/*`;

async function mayActForSigner(authorize: Authorize, user: unknown, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  const attrs = { user, verb, apiGroup: 'certificates.k8s.io', resource: 'signers' };
  if (await authorize({ ...attrs, name: signerName })) return true;
  return signerName.includes('/') && authorize({ ...attrs, name: signerWildcard(signerName) });
}

interface Requestor {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * The CSR store's admission around the chain: on create the requestor fields come from the user (whatever the
 * body said); with an authorizer, an approval write needs `approve` and a newly set certificate `sign` on the
 * signer, with upstream's messages.
 */
export function csrAdmission(chain: Admission, authorize?: Authorize): Admission {
  const gr = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };
  return {
    names: chain.names,
    async mutate(a: AdmissionAttributes) {
      if (a.operation === 'CREATE' && a.object) {
        const u = (a.user ?? {}) as Requestor;
        const spec = (csr(a.object).spec ??= {});
        delete spec.username;
        delete spec.uid;
        delete spec.groups;
        delete spec.extra;
        if (u.username) spec.username = u.username;
        if (u.uid) spec.uid = u.uid;
        if (u.groups?.length) spec.groups = [...u.groups];
        if (u.extra && Object.keys(u.extra).length) spec.extra = { ...u.extra };
      }
      await chain.mutate(a);
    },
    async validate(a: AdmissionAttributes) {
      if (authorize && a.operation === 'UPDATE' && a.object && a.oldObject) {
        const signerName = csr(a.oldObject).spec?.signerName ?? '';
        if (a.subresource === 'approval' && !(await mayActForSigner(authorize, a.user, 'approve', signerName))) {
          throw apiErrors.forbidden(gr, a.name, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
        }
        const cert = csr(a.object).status?.certificate ?? '';
        if (a.subresource === 'status' && cert && cert !== (csr(a.oldObject).status?.certificate ?? '') && !(await mayActForSigner(authorize, a.user, 'sign', signerName))) {
          throw apiErrors.forbidden(gr, a.name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
        }
      }
      await chain.validate(a);
    },
  };
}
