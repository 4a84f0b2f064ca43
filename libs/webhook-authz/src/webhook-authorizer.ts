// The Webhook authorizer (k8s.io/apiserver plugin/pkg/authorizer/webhook): match conditions, then the answer
// cache keyed by the v1 spec, then a SubjectAccessReview round-trip; failures follow the failure policy and
// are never cached.
import type { Attributes } from '@cl/auth';
import type { WebhookConfiguration } from '@cl/config';
import { ExpiringLruCache } from './cache';
import { loadWebhookKubeconfig } from './kubeconfig';
import { MatchConditions } from './match-conditions';
import { authorizationMetrics } from './metrics';
import {
  cacheKeyOf,
  cacheKeyOfAttributes,
  decodeReviewResponse,
  encodeReviewRequest,
  specFromAttributes,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
  type SubjectAccessReviewVersion,
} from './sar';
import type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer, Logger } from './types';
import { SubjectAccessReviewClient, WebhookRequestError, type AgentFactory, type Backoff } from './webhook-client';

export interface WebhookAuthorizerOptions {
  /** The authorizer's `name` (metrics label). */
  name: string;
  webhook: WebhookConfiguration;
  /** How connections are opened; the API server passes its `controlplane` egress agent. Default: direct. */
  agentFactory?: AgentFactory;
  backoff?: Backoff;
  log?: Logger;
  /** Clock for the cache (tests). */
  now?: () => number;
}

// Requester-controlled attributes this large are not cached (a DoS guard upstream).
const MAX_CACHED_ATTRIBUTE_BYTES = 10_000;

function shouldCache(a: Attributes): boolean {
  let n = 0;
  for (const s of [a.namespace, a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, a.path]) n += Buffer.byteLength(s);
  return n < MAX_CACHED_ATTRIBUTE_BYTES;
}

export class WebhookAuthorizer implements ChainAuthorizer {
  readonly name: string;
  private readonly client: SubjectAccessReviewClient;
  private readonly cache: ExpiringLruCache<SubjectAccessReviewStatus>;
  private readonly matcher: MatchConditions;
  private readonly version: SubjectAccessReviewVersion;
  private readonly onError: 'NoOpinion' | 'Deny';
  private readonly log: Logger;
  private readonly failOpen = authorizationMetrics.webhookFailOpen();

  /** Reads the kubeconfig (throws a KubeconfigError) and compiles match conditions not compiled yet. */
  constructor(private readonly opts: WebhookAuthorizerOptions) {
    const w = opts.webhook;
    this.name = opts.name;
    this.version = w.subjectAccessReviewVersion === 'v1beta1' ? 'v1beta1' : 'v1';
    this.onError = w.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion';
    this.log = opts.log ?? ((m) => process.stderr.write(`${m}\n`));
    if (w.connectionInfo.type !== 'KubeConfigFile' || !w.connectionInfo.kubeConfigFile) {
      throw new Error(`connectionInfo.type ${JSON.stringify(w.connectionInfo.type)} is not allowed for this server; use KubeConfigFile`);
    }
    const connection = loadWebhookKubeconfig(w.connectionInfo.kubeConfigFile);
    const evaluations = authorizationMetrics.webhookEvaluations();
    const duration = authorizationMetrics.webhookDuration();
    this.client = new SubjectAccessReviewClient({
      connection,
      timeoutMs: w.timeout,
      agentFactory: opts.agentFactory,
      backoff: opts.backoff,
      onAttempt: (result, seconds) => {
        evaluations.inc({ name: this.name, result });
        duration.observe({ name: this.name, result }, seconds);
      },
    });
    this.cache = new ExpiringLruCache(8192, opts.now);
    this.matcher = new MatchConditions(w.matchConditions ?? [], { type: 'Webhook', name: this.name });
  }

  async authorize(attrs: Attributes, opts: AuthorizeOptions = {}): Promise<AuthorizationResult> {
    let spec: SubjectAccessReviewSpec | undefined;
    if (this.matcher.size > 0) {
      spec = specFromAttributes(attrs);
      const m = this.matcher.evaluate(spec);
      if (m.error) return { decision: this.onError, reason: '', error: m.error };
      if (!m.match) return { decision: 'NoOpinion', reason: '' };
    }
    const w = this.opts.webhook;
    const key = spec ? cacheKeyOf(spec) : cacheKeyOfAttributes(attrs);
    let status = this.cache.get(key);
    if (!status) {
      spec ??= specFromAttributes(attrs);
      try {
        status = await this.client.post(encodeReviewRequest(spec, this.version), (t) => decodeReviewResponse(t, this.version), opts.signal);
      } catch (e) {
        const err = e as Error;
        this.log(`Failed to make webhook authorizer request: ${err.message}`);
        const result = err instanceof WebhookRequestError ? err.result : 'error';
        if (this.onError === 'NoOpinion' && result !== 'canceled' && !opts.signal?.aborted) {
          this.failOpen.inc({ name: this.name, result: result === 'timeout' ? 'timeout' : 'error' });
        }
        return { decision: this.onError, reason: '', error: err };
      }
      if (shouldCache(attrs)) this.cache.set(key, status, status.allowed ? w.authorizedTTL : w.unauthorizedTTL);
    }
    const reason = status.reason ?? '';
    if (status.allowed && status.denied) {
      return { decision: 'Deny', reason, error: new Error('webhook subject access review returned both allow and deny response') };
    }
    if (status.denied) return { decision: 'Deny', reason };
    if (status.allowed) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason };
  }

  /** Releases the connection pool. */
  close(): void {
    this.client.close();
  }
}
