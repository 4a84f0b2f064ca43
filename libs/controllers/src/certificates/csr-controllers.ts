// kube-controller-manager's certificate controllers and the bootstrap token cleaner:
//   csrapproving: approves node client certificate requests when a SubjectAccessReview for the requestor allows
//                 `create` on certificatesigningrequests/nodeclient (or /selfnodeclient for a node's own renewal);
//   csrsigning:   signs approved requests of the built-in signers with the cluster CA, or marks them Failed;
//   csrcleaner:   deletes requests that are done with (ages in ./csr-decisions);
//   tokencleaner: deletes bootstrap token Secrets once they expire.
import { handlersWhile, isConflict, isNotFound, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { KeyQueue } from '../core-v1/loops';
import { parseCertificateRequest } from '@cl/pki';
import { CertificateAuthority, certificateNotAfter } from './ca-signer';
import { BUILTIN_SIGNERS, bootstrapTokenExpiry, certificateValidity, cleanupReason, CLEANER, isApproved, isDenied, isFailed, isIssued, recognize, signerProblem, type BuiltinSigner, type Csr } from './csr-decisions';

export const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const SAR_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const errText = (e: unknown) => (e as Error)?.message ?? String(e);
/** The PEM request of spec.request (base64 in the API object), parsed and its signature checked. */
const requestOf = (c: Csr) => parseCertificateRequest(Buffer.from(c.spec.request ?? '', 'base64').toString('latin1'));
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** A controller over one informer: every add and update queues the object's key. */
abstract class CsrLoop implements Controller {
  protected readonly client: KubeClient;
  protected readonly log: ControllerLog;
  protected readonly csrs: Informer<Csr & { metadata: { name?: string } }>;
  protected readonly queue: KeyQueue;
  private running = false;
  private stopped = false;

  constructor(ctx: ControllerContext, what: string) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.csrs = ctx.informers.informer<Csr>(CSR_PATH);
    this.queue = new KeyQueue((name) => this.syncName(name), (name, e) => this.log(`${what} failed`, { csr: name, err: errText(e) }));
    const live = handlersWhile(() => this.running);
    const add = (c: Csr) => this.queue.add(c.metadata.name ?? '');
    this.csrs.on('add', live(add)).on('update', live(add));
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await this.csrs.start();
    if (this.stopped) return;
    this.running = true;
    for (const c of this.csrs.list()) this.queue.add(c.metadata.name ?? '');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    await this.queue.stop();
  }

  private async syncName(name: string): Promise<void> {
    const c = this.csrs.get(name);
    if (c) await this.sync(c);
  }

  protected abstract sync(c: Csr): Promise<void>;
}

/** csrapproving. */
export class CsrApprovingController extends CsrLoop {
  constructor(ctx: ControllerContext) {
    super(ctx, 'Approving certificate request');
  }

  protected async sync(c: Csr): Promise<void> {
    if (isApproved(c) || isDenied(c) || isIssued(c) || !c.spec.request) return;
    let recognized;
    try {
      recognized = recognize(c, requestOf(c));
    } catch (e) {
      this.log('Unable to parse certificate request', { csr: c.metadata.name, err: errText(e) });
      return;
    }
    if (recognized.length === 0) return;
    for (const r of recognized) {
      const review = await this.client.create<{ status?: { allowed?: boolean } }>(SAR_PATH, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: c.spec.username,
          uid: c.spec.uid,
          groups: c.spec.groups,
          extra: c.spec.extra,
          resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource: r.subresource },
        },
      });
      if (!review.status?.allowed) continue;
      const approved: Csr = { ...c, status: { ...c.status, conditions: [...(c.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message, lastUpdateTime: now() }] } };
      await this.client.update(`${CSR_PATH}/${c.metadata.name}/approval`, approved);
      this.log('Approved certificate request', { csr: c.metadata.name, as: r.subresource });
      return;
    }
    // Recognized, but the requestor may not have it approved (yet: a binding may come): retried with backoff.
    throw new Error(`recognized csr ${JSON.stringify(c.metadata.name)} as ${recognized.map((r) => r.subresource).join(', ')} but subject access review was not approved`);
  }
}

export interface CsrSigningOptions {
  /** PEM of the CA certificate and key per built-in signer (all the same with --cluster-signing-cert-file). */
  signers: Partial<Record<BuiltinSigner, { certPem: string; keyPem: string }>>;
  /** --cluster-signing-duration. */
  durationMs: number;
}

/** csrsigning. */
export class CsrSigningController extends CsrLoop {
  private readonly cas = new Map<string, Promise<CertificateAuthority>>();

  constructor(
    ctx: ControllerContext,
    private readonly opts: CsrSigningOptions,
  ) {
    super(ctx, 'Signing certificate request');
  }

  private ca(signer: BuiltinSigner): Promise<CertificateAuthority> | undefined {
    const files = this.opts.signers[signer];
    if (!files) return undefined;
    let ca = this.cas.get(signer);
    if (!ca) this.cas.set(signer, (ca = CertificateAuthority.load(files.certPem, files.keyPem)));
    return ca;
  }

  protected async sync(c: Csr): Promise<void> {
    if (!isApproved(c) || isIssued(c) || isFailed(c) || isDenied(c) || !c.spec.request) return;
    const signer = BUILTIN_SIGNERS.find((s) => s === c.spec.signerName);
    const ca = signer ? this.ca(signer) : undefined;
    if (!signer || !ca) return; // another signer's request
    const usages = c.spec.usages ?? [];
    let problem: string | null;
    let req;
    try {
      req = requestOf(c);
      problem = signerProblem(signer, req, usages);
    } catch (e) {
      problem = `unable to parse csr: ${errText(e)}`;
    }
    let status: Csr['status'];
    if (problem || !req) {
      status = { ...c.status, conditions: [...(c.status?.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem ?? 'unable to parse csr', lastUpdateTime: now() }] };
      this.log('Certificate request failed validation', { csr: c.metadata.name, err: problem });
    } else {
      const authority = await ca;
      const validity = certificateValidity(Date.now(), this.opts.durationMs, c.spec.expirationSeconds, authority.notAfter);
      status = { ...c.status, certificate: Buffer.from(await authority.issue(req, usages, validity)).toString('base64') };
    }
    try {
      await this.client.update(`${CSR_PATH}/${c.metadata.name}/status`, { ...c, status });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

/** csrcleaner: looks at every request once an hour (upstream's polling interval). */
export class CsrCleanerController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly csrs: Informer<Csr>;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(ctx: ControllerContext) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.csrs = ctx.informers.informer<Csr>(CSR_PATH);
  }

  async start(): Promise<void> {
    await this.csrs.start();
    if (this.stopped) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), CLEANER.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async sweep(): Promise<void> {
    for (const c of this.csrs.list()) {
      if (this.stopped) return;
      const cert = c.status?.certificate ? certificateNotAfter(Buffer.from(c.status.certificate, 'base64').toString('latin1')) : undefined;
      const reason = cleanupReason(c, Date.now(), cert);
      if (!reason) continue;
      try {
        await this.client.delete(`${CSR_PATH}/${c.metadata.name}`, { preconditions: { uid: c.metadata.uid } });
        this.log('Cleaned up certificate request', { csr: c.metadata.name, reason });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) this.log('Cleaning up certificate request failed', { csr: c.metadata.name, err: errText(e) });
      }
    }
  }
}

interface Secret {
  metadata: { name?: string; namespace?: string; uid?: string };
  type?: string;
  data?: Record<string, string>;
}

const SECRETS_PATH = resourcePath({ version: 'v1', resource: 'secrets', namespace: 'kube-system' });

/** tokencleaner: a bootstrap token Secret goes when its expiration passes (checked again at that time). */
export class TokenCleanerController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly secrets: Informer<Secret>;
  private readonly queue: KeyQueue;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = false;

  constructor(ctx: ControllerContext) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.secrets = ctx.informers.informer<Secret>(SECRETS_PATH);
    this.queue = new KeyQueue((key) => this.sync(key), (key, e) => this.log('Cleaning up bootstrap token failed', { secret: key, err: errText(e) }));
    const live = handlersWhile(() => this.running);
    const add = (s: Secret) => {
      if (s.type === 'bootstrap.kubernetes.io/token') this.queue.add(`kube-system/${s.metadata.name}`);
    };
    this.secrets.on('add', live(add)).on('update', live(add));
  }

  async start(): Promise<void> {
    await this.secrets.start();
    this.running = true;
    for (const s of this.secrets.list()) if (s.type === 'bootstrap.kubernetes.io/token') this.queue.add(`kube-system/${s.metadata.name}`);
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const s = this.secrets.get(key);
    if (!s || s.type !== 'bootstrap.kubernetes.io/token') return;
    const expiry = bootstrapTokenExpiry(s.data);
    if (expiry === undefined) return;
    const left = expiry - Date.now();
    if (left > 0) {
      clearTimeout(this.timers.get(key));
      const t = setTimeout(() => {
        this.timers.delete(key);
        if (this.running) this.queue.add(key);
      }, Math.min(left + 50, 2 ** 31 - 1));
      t.unref();
      this.timers.set(key, t);
      return;
    }
    try {
      await this.client.delete(`${SECRETS_PATH}/${s.metadata.name}`, { preconditions: { uid: s.metadata.uid } });
      this.log('Deleted expired bootstrap token', { secret: key });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
