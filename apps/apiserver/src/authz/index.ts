// The API server's authorization: the chain from --authorization-config (reloaded when the file changes) or
// from --authorization-mode, the bootstrap grants in front of it, the request filter's metrics, and the
// SubjectAccessReview endpoints answered by the same chain.
import { readFileSync } from 'node:fs';
import { isPromiseLike, type Attributes, type Authorizer, type Decision, type MaybePromise } from '@cl/auth';
import type { EgressSelector } from '@cl/egress';
import { createEgressSelector } from '@cl/egress';
import { apiServerID } from '@cl/tracing';
import {
  AuthorizerChain,
  ReloadingAuthorizer,
  authorizationMetrics,
  type AgentFactory,
  type AuthorizationResult,
  type ChainAuthorizer,
} from '@cl/webhook-authz';
import type { Logger } from '../logger';
import type { GroupVersion } from '../post-start-hooks';
import type { Route } from '../routes';
import { bootstrapPolicyAuthorizer } from './bootstrap-rules';
import { effectiveModes, type AuthorizationOptions } from './flags';
import { legacyAuthorizationConfig } from './legacy-config';
import { reviewRoutes } from './review-routes';

export { addAuthorizationFlags, authorizationOptions, validateAuthorizationOptions, type AuthorizationOptions } from './flags';

export interface AuthorizationParts {
  /** For the request pipeline: resolves the decision, rejects when the chain failed without an Allow (HTTP 500). */
  authorizer: Authorizer;
  /** The chain itself, with errors as data (SubjectAccessReview status). */
  chain: ChainAuthorizer;
  routes: Route[];
  groupVersions: GroupVersion[];
  close(): Promise<void>;
}

export interface AuthorizationDeps {
  /** Webhook calls dial through its `controlplane` selection; direct when absent. */
  egress?: EgressSelector;
  log: Logger;
}

/** An error the chain returned with a non-Allow decision; the pipeline answers it with a 500. */
export class AuthorizationFailure extends Error {
  constructor(readonly result: AuthorizationResult) {
    super(result.error?.message ?? 'authorization failed');
    this.name = 'AuthorizationFailure';
  }
}

function resultLabel(r: AuthorizationResult): string {
  if (r.decision === 'Allow') return 'allowed';
  if (r.error) return 'error';
  return r.decision === 'Deny' ? 'denied' : 'no-opinion';
}

/** The request filter's view: metrics per outcome, and a rejection for a failed chain. Synchronous when the chain is. */
function requestFilterAuthorizer(chain: ChainAuthorizer): Authorizer {
  const attempts = authorizationMetrics.attempts();
  const duration = authorizationMetrics.duration();
  const outcomes = Object.fromEntries(
    ['allowed', 'denied', 'no-opinion', 'error'].map((result) => [result, { count: attempts.child({ result }), latency: duration.child({ result }) }]),
  );
  const outcome = (r: AuthorizationResult, started: number): Decision => {
    const o = outcomes[resultLabel(r)];
    o.count.inc();
    o.latency.observe((performance.now() - started) / 1000);
    if (r.decision !== 'Allow' && r.error) throw new AuthorizationFailure(r);
    return { decision: r.decision, reason: r.reason };
  };
  return {
    authorize(attrs: Attributes): MaybePromise<Decision> {
      const started = performance.now();
      const r = chain.authorize(attrs);
      return isPromiseLike(r) ? r.then((v) => outcome(v, started)) : outcome(r, started);
    },
  };
}

export function buildAuthorization(o: AuthorizationOptions, deps: AuthorizationDeps): AuthorizationParts {
  const egress = deps.egress ?? createEgressSelector();
  const agentFactory: AgentFactory = (url, tls) => (tls ? egress.agentFor('controlplane', tls) : egress.agentFor('controlplane'));
  const log = (m: string) => (/fail|error/i.test(m) ? deps.log.error(m) : deps.log.info(m));
  const prefix = [bootstrapPolicyAuthorizer];
  let chain: ChainAuthorizer;
  let close: () => Promise<void>;
  if (o.authorizationConfig) {
    const reloading = new ReloadingAuthorizer(
      { file: o.authorizationConfig, prefix, agentFactory, log, apiServerId: apiServerID() },
      readFileSync(o.authorizationConfig, 'utf8'),
    );
    reloading.start();
    chain = reloading;
    close = () => reloading.close();
  } else {
    const modes = effectiveModes(o);
    const alwaysAllowOnly = modes.length === 1 && modes[0] === 'AlwaysAllow';
    const built = AuthorizerChain.fromConfig(legacyAuthorizationConfig(o), { prefix: alwaysAllowOnly ? [] : prefix, agentFactory, log });
    chain = built;
    close = async () => built.close();
  }
  return {
    authorizer: requestFilterAuthorizer(chain),
    chain,
    routes: reviewRoutes(chain),
    groupVersions: [{ group: 'authorization.k8s.io', version: 'v1' }],
    close,
  };
}
