// The API server's authorization: the chain from --authorization-config (reloaded when the file changes) or
// from --authorization-mode, the bootstrap grants in front of it, the request filter's metrics, and the
// SubjectAccessReview endpoints answered by the same chain.
import { readFileSync } from 'node:fs';
import { isPromiseLike, type Attributes, type Authorizer, type Decision, type MaybePromise } from '@cl/auth';
import { loadAuthorizationConfiguration, type AuthorizationConfiguration } from '@cl/config';
import type { Admission, ResourceStore } from '@cl/registry';
import type { EgressSelector } from '@cl/egress';
import { createEgressSelector } from '@cl/egress';
import { apiServerID } from '@cl/tracing';
import {
  AuthorizerChain,
  ReloadingAuthorizer,
  authorizationMetrics,
  privilegedGroupsAuthorizer,
  type AgentFactory,
  type AuthorizationResult,
  type ChainAuthorizer,
} from '@cl/webhook-authz';
import type { Logger } from '../logger';
import type { GroupVersion } from '../post-start-hooks';
import type { Route } from '../routes';
import { SERVER_AUTHORIZER_TYPES } from './authorizer-types';
import { bootstrapPolicyAuthorizer } from './bootstrap-rules';
import { effectiveModes, type AuthorizationOptions } from './flags';
import { legacyAuthorizationConfig } from './legacy-config';
import { reviewRoutes } from './review-routes';
import { rulesReviewRoute } from './rules-review-route';
import { StoreAuthorizers } from './store-authorizers';

export { addAuthorizationFlags, authorizationOptions, validateAuthorizationOptions, type AuthorizationOptions } from './flags';

export interface AuthorizationParts {
  /** For the request pipeline: resolves the decision, rejects when the chain failed without an Allow (HTTP 500). */
  authorizer: Authorizer;
  /** The chain itself, with errors as data (SubjectAccessReview status). */
  chain: ChainAuthorizer;
  routes: Route[];
  groupVersions: GroupVersion[];
  /** Starts the store-backed authorizers (RBAC index, aggregation, node graph) on the resource stores. */
  attachStores(stores: readonly ResourceStore[]): Promise<void>;
  /** A store's admission with the RBAC escalation check added where it applies (RBAC mode, RBAC resources). */
  storeAdmission(store: ResourceStore, chain: Admission): Admission;
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

const loadConfig = (text: string) => loadAuthorizationConfiguration(text, { knownTypes: SERVER_AUTHORIZER_TYPES });

export function buildAuthorization(o: AuthorizationOptions, deps: AuthorizationDeps): AuthorizationParts {
  const egress = deps.egress ?? createEgressSelector();
  const agentFactory: AgentFactory = (url, tls) => (tls ? egress.agentFor('controlplane', tls) : egress.agentFor('controlplane'));
  const log = (m: string) => (/fail|error/i.test(m) ? deps.log.error(m) : deps.log.info(m));
  const initialText = o.authorizationConfig ? readFileSync(o.authorizationConfig, 'utf8') : '';
  const initial = o.authorizationConfig ? loadConfig(initialText) : legacyAuthorizationConfig(o);
  const store = new StoreAuthorizers(
    initial.authorizers.map((a) => a.type),
    deps.log,
  );
  const builtins = store.builtins();
  // With RBAC, the public grants come from its bootstrap policy; only system:masters stays in front of the
  // chain, as upstream's privileged-group authorizer. Without RBAC the built-in grants keep their place.
  const prefix = store.rbacEnabled ? [privilegedGroupsAuthorizer(['system:masters'])] : [bootstrapPolicyAuthorizer];
  let chain: ChainAuthorizer;
  let config: () => AuthorizationConfiguration;
  let close: () => Promise<void>;
  if (o.authorizationConfig) {
    const reloading = new ReloadingAuthorizer({ file: o.authorizationConfig, prefix, agentFactory, log, apiServerId: apiServerID(), builtins, load: loadConfig }, initialText);
    reloading.start();
    chain = reloading;
    config = () => reloading.current.config;
    close = () => reloading.close();
  } else {
    const modes = effectiveModes(o);
    const alwaysAllowOnly = modes.length === 1 && modes[0] === 'AlwaysAllow';
    const built = AuthorizerChain.fromConfig(initial, { prefix: alwaysAllowOnly ? [] : prefix, agentFactory, log, builtins });
    chain = built;
    config = () => built.config;
    close = async () => built.close();
  }
  const authorizer = requestFilterAuthorizer(chain);
  return {
    authorizer,
    chain,
    routes: [...reviewRoutes(chain), rulesReviewRoute(config, store.rbac.resolver)],
    groupVersions: [{ group: 'authorization.k8s.io', version: 'v1' }],
    attachStores: (stores) => store.attach(stores),
    storeAdmission: (s, admission) => store.storeAdmission(s, admission, (a) => chain.authorize(a)),
    close: async () => {
      store.stop();
      await close();
    },
  };
}
